/* cli/platform.h on Windows (mingw-w64; win/build.sh builds it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>

#include <winsock2.h>

#include "platform.h"

/* Windows has no reapers: the backend starts the command in a job object
 * that kills every process of the tree when srt ends (windows-wfp's spawn
 * slot), which is what being the reaper buys on Linux. srt refuses any
 * backend that would start the command without its own process slots
 * (the POSIX spawn is refused on Windows), so nothing runs unreaped. */
int srt__cli_become_reaper(void)
{
	return 0;
}

int srt__cli_reopen_fd(int fd, int flags)
{
	(void)fd;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

/* A C library descriptor, or a handle Winsock answers SO_TYPE for (the
 * arguments are read before anything else started Winsock: started here,
 * as WSAStartup counts its callers, so the proxy's own start is
 * unaffected). */
int srt__cli_listen_fd_open(int fd)
{
	WSADATA d;
	int v = 0, l = sizeof(v), ok;

	if (fcntl(fd, F_GETFD) >= 0)
		return 1;
	if (WSAStartup(MAKEWORD(2, 2), &d) != 0)
		return 0;
	ok = getsockopt((SOCKET)(intptr_t)fd, SOL_SOCKET, SO_TYPE, (char *)&v, &l) == 0;
	WSACleanup();
	return ok;
}

/* Windows raises no SIGPIPE; the socket is srt's, non-blocking. */
ssize_t srt__cli_send(int fd, const void *buf, size_t len)
{
	int r = send((SOCKET)(intptr_t)fd, buf, len > 0x7fffffff ? 0x7fffffff : (int)len, 0);

	if (r < 0)
		errno = WSAGetLastError() == WSAEWOULDBLOCK ? EAGAIN : EIO;
	return r;
}
