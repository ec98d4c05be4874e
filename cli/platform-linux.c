/* cli/platform.h with Linux's calls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "platform.h"

int srt__cli_become_reaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : errno;
}

int srt__cli_reopen_fd(int fd, int flags)
{
	char via[64];

	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	return open(via, flags);
}

int srt__cli_listen_fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

ssize_t srt__cli_send(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}
