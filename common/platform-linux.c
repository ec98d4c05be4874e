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

/* /proc/self/oom_score_adj, opened read-write; -1 with errno. */
static int oom_file(int *fd, int *score)
{
	char buf[16];
	ssize_t n;
	long v = 0;
	int i = 0, neg;

	*fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	n = read(*fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		close(*fd);
		errno = n < 0 ? errno : EIO;
		return -1;
	}
	buf[n] = '\0';
	/* by hand: no locale or stdio in a vfork child */
	neg = buf[0] == '-';
	for (i = neg; buf[i] >= '0' && buf[i] <= '9' && v <= 1000; i++)
		v = v * 10 + (buf[i] - '0');
	*score = (int)(neg ? -v : v);
	return 0;
}

int srt__os_oom_target(int by, int *target)
{
	int fd, score;

	if (oom_file(&fd, &score) != 0)
		return -1;
	close(fd);
	if (score <= -1000) {
		errno = EPERM;
		return -1;
	}
	score += by;
	*target = score > 1000 ? 1000 : score < -1000 ? -1000 : score;
	return 0;
}

/* Write v (-1000 to 1000) to the score file open at fd: 0, or -1 with
 * errno. */
static int oom_write(int fd, int v)
{
	char buf[16], dig[8];
	int i = 0, l = 0;
	long u = v;

	if (u < 0) {
		buf[i++] = '-';
		u = -u;
	}
	do
		dig[l++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	while (l > 0)
		buf[i++] = dig[--l];
	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	return write(fd, buf, (size_t)i) == i ? 0 : -1;
}

int srt__os_oom_at_least(int min)
{
	int fd, score, rc = 0, err;

	if (min < -1000 || min > 1000) {
		errno = EINVAL;
		return -1;
	}
	if (oom_file(&fd, &score) != 0)
		return -1;
	if (score < min)
		rc = oom_write(fd, min);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

int srt__os_oom_at_most(int max)
{
	int fd, score, rc = 0, err, lo, hi;

	if (max < -1000 || max > 1000) {
		errno = EINVAL;
		return -1;
	}
	if (oom_file(&fd, &score) != 0)
		return -1;
	if (score > max && oom_write(fd, max) != 0) {
		rc = -1;
		/* below the kernel's floor for this process: the lowest score
		 * it takes between max (refused) and the current one (held),
		 * in at most 11 tries */
		for (lo = max, hi = score; errno == EACCES && hi - lo > 1;) {
			int mid = lo + (hi - lo) / 2;

			if (oom_write(fd, mid) == 0)
				hi = mid;
			else
				lo = mid;
		}
	}
	err = errno;
	close(fd);
	errno = err;
	return rc;
}
