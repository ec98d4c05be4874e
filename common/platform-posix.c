/* common/platform.h with POSIX alone: for systems other than Linux, and
 * built on Linux by configure --with-platform=posix. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.h"

int srt__os_random(void *buf, size_t len)
{
#ifdef HAVE_ARC4RANDOM_BUF
	arc4random_buf(buf, len);
	return 0;
#else
	size_t got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	return e;
#endif
}

/* POSIX has no rename that refuses to replace. A name that is not a
 * directory is linked to its new name (link(2) never replaces) and then
 * unlinked; a directory gets the new name only after a check that it is
 * free, which a process racing the rename could defeat: the fallback is
 * weaker, and says so here. */
int srt__os_rename_noreplace(int dfd, const char *from, const char *to)
{
	struct stat st;

	if (fstatat(dfd, from, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno;
	if (!S_ISDIR(st.st_mode)) {
		if (linkat(dfd, from, dfd, to, 0) != 0)
			return errno;
		return unlinkat(dfd, from, 0) == 0 ? 0 : errno;
	}
	if (fstatat(dfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return EEXIST;
	if (errno != ENOENT)
		return errno;
	return renameat(dfd, from, dfd, to) == 0 ? 0 : errno;
}

static int set_flags(int fd, bool nonblock)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
		return -1;
	if (!nonblock)
		return 0;
	fl = fcntl(fd, F_GETFL);
	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* Without pipe2 and SOCK_CLOEXEC a descriptor is inheritable for a moment:
 * a fork in another thread then could leak it into a child until that
 * child execs (and the flag is set before any exec of ours). */
int srt__os_pipe(int fds[2], bool nonblock)
{
	if (pipe(fds) != 0)
		return -1;
	if (set_flags(fds[0], nonblock) == 0 && set_flags(fds[1], nonblock) == 0)
		return 0;
	close(fds[0]);
	close(fds[1]);
	return -1;
}

/* A new socket's flags, and no SIGPIPE where the system can say so per
 * socket: 0, or -1 with errno. */
static int own_socket(int fd, bool nonblock)
{
	if (set_flags(fd, nonblock) < 0)
		return -1;
#ifdef SO_NOSIGPIPE
	{
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
	}
#endif
	return 0;
}

int srt__os_socket(int domain, int type, int protocol, bool nonblock)
{
	int fd = socket(domain, type, protocol);

	if (fd < 0)
		return -1;
	if (own_socket(fd, nonblock) == 0)
		return fd;
	close(fd);
	return -1;
}

int srt__os_sock_close(int fd)
{
	return close(fd);
}

int srt__os_socketpair(int fds[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
		return -1;
	if (own_socket(fds[0], true) == 0 && own_socket(fds[1], true) == 0)
		return 0;
	close(fds[0]);
	close(fds[1]);
	return -1;
}

int srt__os_accept(int lfd)
{
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0)
		return -1;
	if (own_socket(fd, true) == 0)
		return fd;
	close(fd);
	errno = ECONNABORTED;
	return -1;
}

/* MSG_NOSIGNAL is POSIX since 2008 but missing on macOS, where the socket
 * carries SO_NOSIGPIPE instead (set above); the proxy's thread also blocks
 * SIGPIPE. */
ssize_t srt__os_send(int fd, const void *buf, size_t len)
{
#ifdef MSG_NOSIGNAL
	return send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
#else
	return send(fd, buf, len, MSG_DONTWAIT);
#endif
}

/* Without MSG_CMSG_CLOEXEC a received descriptor is inheritable until
 * the flag is set just after: a fork elsewhere in that moment could leak
 * it (srt forks only from threads that exec at once). */
ssize_t srt__os_recvmsg(int fd, struct msghdr *m)
{
	ssize_t n = recvmsg(fd, m, MSG_DONTWAIT);
	struct cmsghdr *c;

	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		size_t k, nfd;
		int *fds;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		fds = (int *)(void *)CMSG_DATA(c);
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < nfd; k++)
			fcntl(fds[k], F_SETFD, FD_CLOEXEC);
	}
	return n;
}

/* Without SO_DOMAIN and SO_PROTOCOL (macOS): the family from the local
 * address, and a stream socket of IPv4 or IPv6 is taken for TCP (SCTP's
 * stream sockets aside, which a sandboxed command cannot make here). */
bool srt__os_is_tcp_stream(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int v;
	socklen_t l = sizeof(v);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != SOCK_STREAM)
		return false;
	l = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) == 0 && v == 0;
}

/* Without signalfd: a thread takes the (blocked) signals with sigwait and
 * writes each one's number, a byte, into a pipe. It lives as long as the
 * process. */
struct sigpipe {
	sigset_t set;
	int w;
};

static void *sig_main(void *arg)
{
	struct sigpipe *sp = arg;

	for (;;) {
		int sig;
		unsigned char b;

		if (sigwait(&sp->set, &sig) != 0)
			continue;
		b = (unsigned char)sig;
		if (write(sp->w, &b, 1) < 0) {
			/* full: a signal is already waiting to be read */
		}
	}
	return NULL;
}

int srt__os_signal_fd(const sigset_t *set)
{
	struct sigpipe *sp = malloc(sizeof(*sp));
	pthread_t t;
	int fds[2], rc;

	if (!sp || srt__os_pipe(fds, true) < 0) {
		free(sp);
		return -1;
	}
	sp->set = *set;
	sp->w = fds[1];
	rc = pthread_create(&t, NULL, sig_main, sp);
	if (rc) {
		close(fds[0]);
		close(fds[1]);
		free(sp);
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return fds[0];
}

int srt__os_signal_read(int fd)
{
	unsigned char b;

	return read(fd, &b, 1) == 1 ? (int)b : -1;
}

void srt__os_wipe(void *p, size_t len)
{
	volatile unsigned char *v = p;

	while (len--)
		*v++ = 0;
}

void *srt__os_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;

	while (n--)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
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

/* No OOM score on this system: the kernel's own choice stands. */
int srt__os_oom_target(int by, int *target)
{
	(void)by;
	(void)target;
	errno = ENOSYS;
	return -1;
}

int srt__os_oom_at_least(int min)
{
	(void)min;
	errno = ENOSYS;
	return -1;
}

int srt__os_oom_at_most(int max)
{
	(void)max;
	errno = ENOSYS;
	return -1;
}
