/* common/platform.h with Linux's calls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.h"

int srt__os_random(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = getrandom((char *)buf + got, len - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		got += (size_t)r;
	}
	return 0;
}

int srt__os_rename_noreplace(int dfd, const char *from, const char *to)
{
	return renameat2(dfd, from, dfd, to, RENAME_NOREPLACE) == 0 ? 0 : errno;
}

int srt__os_pipe(int fds[2], bool nonblock)
{
	return pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
}

int srt__os_socket(int domain, int type, int protocol, bool nonblock)
{
	return socket(domain, type | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), protocol);
}

int srt__os_sock_close(int fd)
{
	return close(fd);
}

int srt__os_socketpair(int fds[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds);
}

int srt__os_accept(int lfd)
{
	return accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

ssize_t srt__os_send(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t srt__os_recvmsg(int fd, struct msghdr *m)
{
	return recvmsg(fd, m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
}

bool srt__os_is_tcp_stream(int fd)
{
	int v;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 || (v != AF_INET && v != AF_INET6))
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != SOCK_STREAM)
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l) < 0 || v != IPPROTO_TCP)
		return false;
	l = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) == 0 && v == 0;
}

int srt__os_signal_fd(const sigset_t *set)
{
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int srt__os_signal_read(int fd)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return -1;
	return (int)si.ssi_signo;
}

void srt__os_wipe(void *p, size_t len)
{
	explicit_bzero(p, len);
}

void *srt__os_memrchr(const void *s, int c, size_t n)
{
	return memrchr(s, c, n);
}

int srt__os_path_spell(const char *in, char *out, size_t cap)
{
	size_t n = strlen(in);

	if (n + 1 > cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, in, n + 1);
	return 0;
}
