/* common/rmtree.h on POSIX systems, by directory descriptors (see rmtree.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/platform.h"
#include "common/rmtree.h"

#define RM_DEPTH_MAX 256
#define RM_MARKED 01700

/* One removal. Each pass walks RM_DEPTH_MAX levels below its root and
 * moves what lies deeper (or what it cannot open for want of descriptors)
 * into a stage directory of its own, made in the top directory; the next
 * pass walks only that stage. So what a pass could not remove is never
 * walked again, and a tree of any depth costs each of its entries a visit
 * or two. The stages this removal made are .srt-rm-stage-N for N in
 * [first, next): a walk of the top directory passes over them (each is a
 * later pass's root), and a name the command took is skipped over, each
 * try paid from the budget. budget: NULL for no bound. */
struct rm_walk {
	int top;
	int staged;               /* this pass made its stage (.srt-rm-stage-<stage>) */
	unsigned long stage;
	unsigned long first, next; /* the stages made */
	unsigned long moved;
	int progress;             /* something was removed or moved */
	long visited;             /* entries looked at */
	struct srt__rm_budget *budget;
};

#define STAGE_PREFIX ".srt-rm-stage-"
#define STAGE_TRIES 64

int srt__rm_budget_spent(const struct srt__rm_budget *b)
{
	struct timespec now;

	if (b->entries <= 0)
		return 1;
	if (!b->timed)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > b->until.tv_sec ||
	       (now.tv_sec == b->until.tv_sec && now.tv_nsec >= b->until.tv_nsec);
}

static void spend(struct rm_walk *w)
{
	w->visited++;
	if (w->budget && w->budget->entries > 0)
		w->budget->entries--;
}

static int out_of_budget(const struct rm_walk *w)
{
	return w->budget && srt__rm_budget_spent(w->budget);
}

static int is_dot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static void stage_name(char *out, size_t cap, unsigned long k)
{
	snprintf(out, cap, STAGE_PREFIX "%lu", k);
}

/* Is name, in the top directory, one of this removal's stages? */
static int own_stage(const struct rm_walk *w, const char *name)
{
	const char *p = name + sizeof(STAGE_PREFIX) - 1;
	unsigned long k = 0;

	/* only the spelling stage_name() writes: no sign, no leading zero */
	if (strncmp(name, STAGE_PREFIX, sizeof(STAGE_PREFIX) - 1) || !*p || (p[0] == '0' && p[1]))
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || k > (~0UL - 9) / 10)
			return 0;
		k = k * 10 + (unsigned long)(*p - '0');
	}
	return k >= w->first && k < w->next;
}

/* This pass's stage: made on its first move, under the next free number
 * (no descriptor: a move may be for want of one). A budget spent before
 * anything went still pays for the one move that lets the next sweep
 * start where this one stopped. */
static int make_stage(struct rm_walk *w)
{
	char name[48];
	int tries;

	for (tries = 0; !w->staged && tries < STAGE_TRIES && (!out_of_budget(w) || !w->progress); tries++) {
		unsigned long k = w->next++;

		spend(w);
		stage_name(name, sizeof(name), k);
		if (mkdirat(w->top, name, 0700) != 0) {
			if (k == w->first)
				w->first++; /* not ours: the range starts past it */
			continue;
		}
		w->stage = k;
		w->staged = 1;
	}
	return w->staged;
}

/* A directory this pass cannot walk (too deep, or no descriptor left for
 * it): into this pass's stage, for the next. Made its owner's first: a
 * move to another parent rewrites its "..", which needs write permission
 * on it. */
static void move_down_the_line(struct rm_walk *w, int dfd, const char *n)
{
	char to[80];

	if (!make_stage(w))
		return;
	(void)fchmodat(dfd, n, 0700, AT_SYMLINK_NOFOLLOW);
	snprintf(to, sizeof(to), STAGE_PREFIX "%lu/%lu", w->stage, w->moved++);
	if (renameat(dfd, n, w->top, to) == 0)
		w->progress = 1;
}

/* Remove everything below the directory open at dfd. Consumes dfd. */
static void rm_below(struct rm_walk *w, int dfd, int depth)
{
	DIR *d;
	struct dirent *de;
	int top_level = depth == 0;

	if (depth > 0)
		(void)fchmod(dfd, 0700);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while (!out_of_budget(w) && (de = readdir(d))) {
		const char *n = de->d_name;
		int cfd;

		if (is_dot(n))
			continue;
		/* a stage of this removal, met in the top directory: a later
		 * pass's root (the first pass walks the top directory itself) */
		if (top_level && own_stage(w, n))
			continue;
		spend(w);
		if (unlinkat(dirfd(d), n, 0) == 0) {
			w->progress = 1;
			continue;
		}
		if (errno != EISDIR && errno != EPERM)
			continue;
		if (depth >= RM_DEPTH_MAX) {
			move_down_the_line(w, dirfd(d), n);
			continue;
		}
		cfd = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* one the command closed to its owner (mode 000): opened once
		 * it is the owner's again (never a link's target: NOFOLLOW) */
		if (cfd < 0 && errno == EACCES && fchmodat(dirfd(d), n, 0700, AT_SYMLINK_NOFOLLOW) == 0)
			cfd = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				move_down_the_line(w, dirfd(d), n);
			continue;
		}
		rm_below(w, cfd, depth + 1);
		/* the budget spent on the way down before anything went (a
		 * chain deeper than one sweep reaches): what was reached goes to
		 * a stage, where the next sweep starts, instead of walking the
		 * same levels again */
		if (out_of_budget(w) && !w->progress)
			move_down_the_line(w, dirfd(d), n);
		if (unlinkat(dirfd(d), n, AT_REMOVEDIR) == 0)
			w->progress = 1;
	}
	closedir(d);
}

/* The passes over the directory open at top, then the stage directories
 * they emptied: 1 when top is empty, 0 when the budget ran out after some
 * progress (a later sweep goes on), -1 when it cannot be emptied (also
 * when the budget ran out with nothing removed or moved: a tree that only
 * eats budgets is given up). */
static int rm_passes(int top, struct srt__rm_budget *budget)
{
	struct rm_walk w = { top, 0, 0, 0, 0, 0, 0, 0, budget };
	struct dirent *de;
	struct stat st;
	char name[48];
	unsigned long k;
	int root, empty;
	DIR *d;

	/* readable and searchable again, its mark kept (a budget spent
	 * leaves it for the next sweep) */
	if (fstat(top, &st) == 0 && (st.st_mode & 0700) != 0700)
		(void)fchmod(top, (st.st_mode & 07000) | 0700);
	root = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (root >= 0) {
		w.staged = 0;
		rm_below(&w, root, 0);
		root = -1; /* the next pass's root: this one's stage, when it made one */
		if (w.staged && !out_of_budget(&w)) {
			stage_name(name, sizeof(name), w.stage);
			root = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
	}
	for (k = w.first; k < w.next; k++) {
		stage_name(name, sizeof(name), k);
		(void)unlinkat(top, name, AT_REMOVEDIR); /* fails when not emptied, or not ours */
	}
	root = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || !(d = fdopendir(root))) {
		if (root >= 0)
			close(root);
		return -1;
	}
	empty = 1;
	while (empty && (de = readdir(d)))
		empty = is_dot(de->d_name);
	closedir(d);
	if (empty)
		return 1;
	/* spent before it could look at anything, or after some progress: a
	 * later sweep goes on; spent with nothing removed or moved, or every
	 * pass done and still not empty: it cannot be emptied */
	return out_of_budget(&w) && (w.progress || !w.visited) ? 0 : -1;
}

int srt__rm_below_budget(int dfd, struct srt__rm_budget *b)
{
	return rm_passes(dfd, b);
}

/* The top of a tree closed to its owner (a command's chmod 000 of its own
 * TMPDIR, which rm_passes cannot open to make readable again): made
 * readable and searchable to its owner through its parent, when the name
 * still leads to the directory meant (dev, ino) and it is ours. 0, or -1.
 * The parent of a run's TMPDIR is srt's own directory, which no command
 * can write, so only srt's own user could swap the name between the check
 * and the chmod. */
static int top_readable_again(const char *path, dev_t dev, ino_t ino)
{
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];
	struct stat st;
	int pfd, rc = -1;

	if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof(parent))
		return -1;
	snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstatat(pfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == dev && st.st_ino == ino && st.st_uid == geteuid() &&
	    fchmodat(pfd, slash + 1, (st.st_mode & 07000) | 0700, AT_SYMLINK_NOFOLLOW) == 0)
		rc = 0;
	close(pfd);
	return rc;
}

void srt__rm_tree_same(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == EACCES && top_readable_again(path, dev, ino) == 0)
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return;
	}
	(void)rm_passes(fd, NULL);
	close(fd);
	(void)rmdir(path);
}

char *srt__rundir_make(char *tmpl)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t l = strlen(tmpl);
	char *x;

	if (l < 6 || strcmp(tmpl + l - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return NULL;
	}
	x = tmpl + l - 6;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];

		if (srt__os_random(r, sizeof(r)) != 0) {
			errno = EIO;
			return NULL;
		}
		for (size_t i = 0; i < sizeof(r); i++)
			x[i] = letters[r[i] % (sizeof(letters) - 1)];
		/* the umask takes only permission bits: the sticky bit stays */
		if (mkdir(tmpl, RM_MARKED) == 0)
			return tmpl;
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

int srt__rundir_hold(int dfd)
{
	if (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;

		(void)fchmod(dfd, 0700); /* unheld: never taken for a killed run's */
		return -e;
	}
	return fchmod(dfd, RM_MARKED) == 0 ? 0 : -errno;
}

void srt__rundir_sweep(const char *base, int (*match)(const char *name), unsigned mask, unsigned want,
		       int (*remove)(int basefd, const char *name, int dfd, struct srt__rm_budget *b))
{
	DIR *d = opendir(base);
	struct dirent *de;
	time_t now = time(NULL);
	struct srt__rm_budget budget = { SRT_RUNDIR_BUDGET, 1, { 0, 0 } };

	if (!d)
		return;
	clock_gettime(CLOCK_MONOTONIC, &budget.until);
	budget.until.tv_nsec += SRT_RUNDIR_BUDGET_MS * 1000000L;
	if (budget.until.tv_nsec >= 1000000000L) {
		budget.until.tv_sec++;
		budget.until.tv_nsec -= 1000000000L;
	}
	while (!srt__rm_budget_spent(&budget) && (de = readdir(d))) {
		struct stat st, held;
		int fd;

		if (!match(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & mask) != want ||
		    st.st_ctime > now - SRT_RUNDIR_GRACE_S)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* held while it goes: a second sweep at the same time skips it */
		if (fstat(fd, &held) == 0 && held.st_dev == st.st_dev && held.st_ino == st.st_ino &&
		    (held.st_mode & mask) == want && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    remove(dirfd(d), de->d_name, fd, &budget) < 0)
			(void)fchmod(fd, held.st_mode & 0777);
		close(fd);
	}
	closedir(d);
}
