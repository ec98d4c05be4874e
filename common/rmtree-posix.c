/* common/rmtree.h on POSIX systems, by directory descriptors (see rmtree.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
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
