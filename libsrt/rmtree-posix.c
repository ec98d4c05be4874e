/* libsrt/rmtree.h on POSIX systems: the tree is walked by directory
 * descriptors, each directory opened with O_NOFOLLOW relative to its
 * parent's, so a link the command left (or swapped in) is removed, never
 * followed out of the tree. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rmtree.h"

#define RM_DEPTH_MAX 256

/* Remove everything below the directory open at dfd: never through a
 * link (each directory is opened with O_NOFOLLOW relative to its parent's
 * descriptor), a directory the command made unreadable is made readable
 * first (it is this user's), and a tree deeper than RM_DEPTH_MAX is left
 * where it lies. Consumes dfd. */
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

void srt__rm_tree(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino) {
		rm_below(fd, 0);
		(void)rmdir(path);
	} else {
		close(fd);
	}
}
