/* The socket calls of common/platform.h that the Windows platform file
 * also implements (win/loop-test.c runs them there, under Wine): here,
 * the Linux or POSIX implementation this build has. TAP output. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/platform.h"
#include "tap.h"

static bool cloexec_nonblock(int fd)
{
	int fd_fl = fcntl(fd, F_GETFD), fl = fcntl(fd, F_GETFL);

	return fd_fl >= 0 && (fd_fl & FD_CLOEXEC) && fl >= 0 && (fl & O_NONBLOCK);
}

static void t_socketpair(void)
{
	int fds[2];
	char c = 0;

	ok(srt__os_socketpair(fds) == 0, "srt__os_socketpair makes a pair");
	ok(cloexec_nonblock(fds[0]) && cloexec_nonblock(fds[1]),
	   "both ends are close-on-exec and non-blocking");
	ok(srt__os_send(fds[1], "x", 1) == 1 && read(fds[0], &c, 1) == 1 && c == 'x',
	   "a byte crosses the pair");
	ok(srt__os_send(fds[0], "y", 1) == 1 && read(fds[1], &c, 1) == 1 && c == 'y',
	   "a byte crosses back");
	ok(read(fds[0], &c, 1) < 0 && errno == EAGAIN, "an empty end does not block");
	ok(srt__os_sock_close(fds[1]) == 0 && read(fds[0], &c, 1) == 0,
	   "srt__os_sock_close closes: the other end reads end of file");
	ok(srt__os_sock_close(fds[1]) < 0 && errno == EBADF, "a closed socket cannot be closed again");
	srt__os_sock_close(fds[0]);
}

int main(void)
{
	tap_case(t_socketpair, "socket pair");
	return tap_done();
}
