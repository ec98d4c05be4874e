/* common/rmtree.h on POSIX systems, by directory descriptors (see rmtree.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/rmtree.h"

#define RM_DEPTH_MAX 256
#define RM_MARKED 01700

/* One removal. Each pass walks RM_DEPTH_MAX levels below its root and
 * moves what lies deeper into a stage directory of its own, made in the
 * top directory; the next pass walks only that stage. So what a pass
 * could not remove is never walked again, and a tree of any depth costs
 * each of its entries a visit or two. budget: NULL for no bound. */
struct rm_walk {
	int top;
	int stage;            /* this pass's stage directory, or -1 until it moves something */
	unsigned long stages; /* stage directories made: .srt-rm-stage-0 .. */
	unsigned long moved;
	struct srt__rm_budget *budget;
};

int srt__rm_budget_spent(const struct srt__rm_budget *b)
{
	struct timespec now;

	if (b->entries <= 0)
		return 1;
	if (!b->until.tv_sec)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > b->until.tv_sec ||
	       (now.tv_sec == b->until.tv_sec && now.tv_nsec >= b->until.tv_nsec);
}

static void spend(struct rm_walk *w)
{
	if (w->budget && w->budget->entries > 0)
		w->budget->entries--;
}

static int out_of_budget(const struct rm_walk *w)
{
	return w->budget && srt__rm_budget_spent(w->budget);
}

static void stage_name(char *out, size_t cap, unsigned long k)
{
	snprintf(out, cap, ".srt-rm-stage-%lu", k);
}

/* A directory too deep for this pass: into this pass's stage, for the
 * next. Made its owner's first: a move to another parent rewrites its
 * "..", which needs write permission on it. */
static void move_down_the_line(struct rm_walk *w, int dfd, const char *n)
{
	char name[48];

	if (w->stage < 0) {
		stage_name(name, sizeof(name), w->stages);
		if (mkdirat(w->top, name, 0700) != 0)
			return; /* the command made that name: the deep part stays */
		w->stage = openat(w->top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		w->stages++;
		if (w->stage < 0)
			return;
	}
	(void)fchmodat(dfd, n, 0700, AT_SYMLINK_NOFOLLOW);
	snprintf(name, sizeof(name), "%lu", w->moved++);
	(void)renameat(dfd, n, w->stage, name);
}

/* Remove everything below the directory open at dfd. Consumes dfd. */
static void rm_below(struct rm_walk *w, int dfd, int depth)
{
	DIR *d;
	struct dirent *de;

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

		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		spend(w);
		if (unlinkat(dirfd(d), n, 0) == 0 || (errno != EISDIR && errno != EPERM))
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
		if (cfd < 0)
			continue;
		rm_below(w, cfd, depth + 1);
		(void)unlinkat(dirfd(d), n, AT_REMOVEDIR);
	}
	closedir(d);
}

/* The passes over the directory open at top, then the stage directories
 * they emptied. 1 when top is empty. */
static int rm_passes(int top, struct srt__rm_budget *budget)
{
	struct rm_walk w = { top, -1, 0, 0, budget };
	struct dirent *de;
	struct stat st;
	char name[48];
	int root, empty;
	DIR *d;

	/* readable and searchable again, its mark kept (a budget spent
	 * leaves it for the next sweep) */
	if (fstat(top, &st) == 0 && (st.st_mode & 0700) != 0700)
		(void)fchmod(top, (st.st_mode & 07000) | 0700);
	root = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (root >= 0) {
		w.stage = -1;
		rm_below(&w, root, 0);
		root = w.stage; /* the next pass's root, or -1: nothing went deeper */
		if (root >= 0 && out_of_budget(&w)) {
			close(root);
			root = -1;
		}
	}
	while (w.stages > 0) {
		stage_name(name, sizeof(name), --w.stages);
		(void)unlinkat(top, name, AT_REMOVEDIR); /* fails when not emptied */
	}
	root = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || !(d = fdopendir(root))) {
		if (root >= 0)
			close(root);
		return 0;
	}
	empty = 1;
	while (empty && (de = readdir(d)))
		if (!(de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
					       (de->d_name[1] == '.' && de->d_name[2] == '\0'))))
			empty = 0;
	closedir(d);
	return empty;
}

int srt__rm_below_budget(int dfd, struct srt__rm_budget *b)
{
	return rm_passes(dfd, b);
}

void srt__rm_tree_same(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

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

int srt__rundir_hold(int dfd)
{
	if (flock(dfd, LOCK_EX | LOCK_NB) != 0)
		return -errno;
	return fchmod(dfd, RM_MARKED) == 0 ? 0 : -errno;
}

void srt__rundir_sweep(const char *base, int (*match)(const char *name), unsigned mask, unsigned want,
		       int (*remove)(int basefd, const char *name, int dfd, struct srt__rm_budget *b))
{
	DIR *d = opendir(base);
	struct dirent *de;
	time_t now = time(NULL);
	struct srt__rm_budget budget = { SRT_RUNDIR_BUDGET, { 0, 0 } };

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
