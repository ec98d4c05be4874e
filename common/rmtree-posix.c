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

/* One removal: the top directory, where what lies deeper than the walk
 * goes is moved up; the names given to those; the entries it may still
 * remove (-1: no bound); whether the pass removed or moved anything. */
struct rm_walk {
	int top;
	unsigned long moved;
	long *budget;
	int progress;
};

static void spend(struct rm_walk *w)
{
	if (w->budget && *w->budget > 0)
		(*w->budget)--;
	w->progress = 1;
}

static int out_of_budget(const struct rm_walk *w)
{
	return w->budget && *w->budget == 0;
}

/* A directory too deep for this pass: moved up into the top directory
 * under a name no entry has, for the next pass. */
static void move_up(struct rm_walk *w, int dfd, const char *n)
{
	char up[48];
	struct stat st;
	int tries;

	for (tries = 0; tries < 16; tries++) {
		snprintf(up, sizeof(up), ".srt-rm-deep-%lu", w->moved++);
		if (fstatat(w->top, up, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
			continue;
		if (renameat(dfd, n, w->top, up) == 0)
			w->progress = 1;
		return;
	}
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
		if (unlinkat(dirfd(d), n, 0) == 0) {
			spend(w);
			continue;
		}
		if (errno != EISDIR && errno != EPERM)
			continue;
		if (depth >= RM_DEPTH_MAX) {
			move_up(w, dirfd(d), n);
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
		if (unlinkat(dirfd(d), n, AT_REMOVEDIR) == 0)
			spend(w);
	}
	closedir(d);
}

/* Passes over the directory open at top until it is empty, the budget is
 * spent or a pass changes nothing. 1 when empty. */
static int rm_passes(int top, long *budget)
{
	struct rm_walk w = { top, 0, budget, 1 };
	struct dirent *de;
	struct stat st;
	int fd, empty = 0;
	DIR *d;

	/* readable and searchable again, its mark kept (a budget spent
	 * leaves it for the next sweep) */
	if (fstat(top, &st) == 0 && (st.st_mode & 0700) != 0700)
		(void)fchmod(top, (st.st_mode & 07000) | 0700);
	while (w.progress && !out_of_budget(&w)) {
		w.progress = 0;
		fd = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		rm_below(&w, fd, 0);
	}
	fd = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
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

int srt__rm_below_budget(int dfd, long *budget)
{
	return rm_passes(dfd, budget);
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
		       int (*remove)(int basefd, const char *name, int dfd, long *budget))
{
	DIR *d = opendir(base);
	struct dirent *de;
	time_t now = time(NULL);
	long budget = SRT_RUNDIR_BUDGET;

	if (!d)
		return;
	while (budget > 0 && (de = readdir(d))) {
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
