/* cli/platform.h with POSIX alone: for systems other than Linux, and
 * built on Linux by configure --with-platform=posix. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>

#include "platform.h"

/* POSIX has no subreaper (FreeBSD's procctl and macOS have none in
 * common): srt refuses to run rather than let the command's daemons
 * outlive it unseen. */
int srt__cli_become_reaper(void)
{
	return ENOSYS;
}

int srt__cli_reopen_fd(int fd, int flags)
{
	(void)fd;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

/* srt ignores SIGPIPE where MSG_NOSIGNAL is missing (macOS): the socket's
 * reader being gone is an EPIPE here as on Linux. */
int srt__cli_listen_fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

ssize_t srt__cli_send(int fd, const void *buf, size_t len)
{
#ifdef MSG_NOSIGNAL
	return send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
#else
	return send(fd, buf, len, MSG_DONTWAIT);
#endif
}
