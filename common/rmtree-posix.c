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

/* Remove everything below the directory open at dfd. Consumes dfd. */
static void rm_below(int dfd, int depth)
{
	DIR *d;
	struct dirent *de;

	(void)fchmod(dfd, 0700);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		int cfd;

		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (unlinkat(dirfd(d), n, 0) == 0 || (errno != EISDIR && errno != EPERM))
			continue;
		if (depth >= RM_DEPTH_MAX)
			continue;
		cfd = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		rm_below(cfd, depth + 1);
		(void)unlinkat(dirfd(d), n, AT_REMOVEDIR);
	}
	closedir(d);
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
	rm_below(fd, 0);
	(void)rmdir(path);
}

int srt__rundir_hold(int dfd)
{
	return flock(dfd, LOCK_EX | LOCK_NB) == 0 ? 0 : -errno;
}

void srt__rundir_sweep(const char *base, int (*match)(const char *name), int mode)
{
	DIR *d = opendir(base);
	struct dirent *de;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st, held;
		int fd;

		if (!match(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (mode >= 0 && (st.st_mode & 07777) != (unsigned)mode) ||
		    st.st_ctime > now - SRT_RUNDIR_GRACE_S)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* held while it goes: a second sweep at the same time skips it */
		if (fstat(fd, &held) == 0 && held.st_dev == st.st_dev && held.st_ino == st.st_ino &&
		    srt__rundir_hold(fd) == 0 &&
		    snprintf(path, sizeof(path), "%s/%s", base, de->d_name) < (int)sizeof(path))
			srt__rm_tree_same(path, st.st_dev, st.st_ino);
		close(fd);
	}
	closedir(d);
}
