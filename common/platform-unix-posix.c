/* The platform calls (common/platform.h) Linux and the other POSIX
 * systems make alike, compiled beside common/platform-linux.c or
 * common/platform-posix.c: a descriptor is a socket or a file to the same
 * calls, and poll watches either, so there is nothing to relay. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.h"

int srt__os_net_init(void)
{
	return 0;
}

ssize_t srt__os_recv(int fd, void *buf, size_t len, int flags)
{
	return recv(fd, buf, len, flags | MSG_DONTWAIT);
}

int srt__os_connect(int fd, const struct sockaddr *a, socklen_t len)
{
	return connect(fd, a, len);
}

bool srt__os_is_socket(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

int srt__os_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

ssize_t srt__os_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

ssize_t srt__os_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

/* poll watches any descriptor here: nothing to relay */
int srt__os_pollable(int in_fd, int out_fd, int *in, int *out)
{
	*in = in_fd;
	if (out)
		*out = out_fd;
	return 0;
}

int srt__os_listen(const struct sockaddr *a, socklen_t len, int backlog)
{
	int one = 1, fd = srt__os_socket(a->sa_family, SOCK_STREAM, 0, true);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, a, len) == 0 && listen(fd, backlog) == 0)
		return fd;
	{
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

int srt__os_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	return pthread_atfork(prepare, parent, child);
}

bool srt__os_dir_ours_to_write(const char *dir)
{
	struct stat st;

	return access(dir, W_OK) == 0 || (lstat(dir, &st) == 0 && st.st_uid == geteuid());
}
