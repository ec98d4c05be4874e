/* common/platform.h on Windows (mingw-w64; win/build.sh builds it, with
 * win/include first on the include path). Sockets are Winsock SOCKET
 * handles kept in an int: Windows keeps only the low 32 bits of a handle
 * significant, so the value round-trips. Every Winsock failure is turned
 * into errno here, so callers read errno as on POSIX. What Windows has no
 * equivalent for fails with ENOSYS, never silently: non-blocking pipes
 * (WSAPoll watches sockets only), descriptors passed over a socket, and
 * directory descriptors. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <direct.h>
#include <io.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <bcrypt.h>

#include "common/platform.h"
#include "common/winpath.h"

/* The value of AT_FDCWD on Linux: the only "directory" Windows code may
 * name, the current one. */
#define SRT_OS_CWD (-100)

/* the SOCKET an int holds */
#define SK(fd) ((SOCKET)(intptr_t)(fd))

static int from_wsa(int e)
{
	switch (e) {
	case WSAEWOULDBLOCK: return EAGAIN;
	case WSAEINPROGRESS: return EINPROGRESS;
	case WSAEINTR: return EINTR;
	case WSAEBADF: case WSAENOTSOCK: return EBADF;
	case WSAEACCES: return EACCES;
	case WSAEFAULT: return EFAULT;
	case WSAEMFILE: return EMFILE;
	case WSAENOBUFS: return ENOBUFS;
	case WSAEADDRINUSE: return EADDRINUSE;
	case WSAEADDRNOTAVAIL: return EADDRNOTAVAIL;
	case WSAEAFNOSUPPORT: return EAFNOSUPPORT;
	case WSAECONNREFUSED: return ECONNREFUSED;
	case WSAECONNRESET: return ECONNRESET;
	case WSAECONNABORTED: return ECONNABORTED;
	case WSAENOTCONN: return ENOTCONN;
	case WSAETIMEDOUT: return ETIMEDOUT;
	case WSAENETUNREACH: return ENETUNREACH;
	case WSAEHOSTUNREACH: return EHOSTUNREACH;
	case WSANOTINITIALISED: return ENOSYS;
	default: return EIO;
	}
}

static int wsa_fail(void)
{
	errno = from_wsa(WSAGetLastError());
	return -1;
}

/* Winsock needs WSAStartup once per process before any socket call. */
static BOOL CALLBACK net_init_once(PINIT_ONCE once, PVOID arg, PVOID *ctx)
{
	WSADATA d;

	return WSAStartup(MAKEWORD(2, 2), &d) == 0;
}

static int net_init(void)
{
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

	if (InitOnceExecuteOnce(&once, net_init_once, NULL, NULL))
		return 0;
	errno = ENOSYS;
	return -1;
}

int srt__os_net_init(void)
{
	return net_init();
}

int srt__os_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;

		if (BCryptGenRandom(NULL, p, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* MoveFileEx without MOVEFILE_REPLACE_EXISTING never replaces: a taken
 * name fails with ERROR_ALREADY_EXISTS, atomically. Windows has no
 * directory descriptors, so only names relative to the current directory
 * (or absolute) are accepted. */
int srt__os_rename_noreplace(int dfd, const char *from, const char *to)
{
	if (dfd != SRT_OS_CWD)
		return ENOSYS;
	if (MoveFileExA(from, to, 0))
		return 0;
	switch (GetLastError()) {
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
		return EACCES;
	default:
		return EIO;
	}
}

/* An anonymous pipe that no child inherits. WSAPoll cannot watch a pipe
 * and Windows has no non-blocking anonymous pipes worth the name, so a
 * non-blocking one is refused: the event loop's descriptors are sockets
 * there (proxies/wakeup-windows.c). */
int srt__os_pipe(int fds[2], bool nonblock)
{
	if (nonblock) {
		errno = ENOSYS;
		return -1;
	}
	return _pipe(fds, 65536, _O_BINARY | _O_NOINHERIT);
}

static int own_socket(SOCKET s, bool nonblock)
{
	u_long on = 1;

	if (!SetHandleInformation((HANDLE)s, HANDLE_FLAG_INHERIT, 0)) {
		errno = EIO;
		return -1;
	}
	if (nonblock && ioctlsocket(s, FIONBIO, &on) != 0)
		return wsa_fail();
	return 0;
}

int srt__os_socket(int domain, int type, int protocol, bool nonblock)
{
	SOCKET s;

	if (net_init() < 0)
		return -1;
	/* born uninheritable: no window in which a child could get it */
	s = WSASocketW(domain, type, protocol, NULL, 0,
		       WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
	if (s == INVALID_SOCKET)
		return wsa_fail();
	if (own_socket(s, nonblock) == 0)
		return (int)s;
	closesocket(s);
	return -1;
}

int srt__os_sock_close(int fd)
{
	return closesocket(SK(fd)) == 0 ? 0 : wsa_fail();
}

int srt__os_listen(const struct sockaddr *a, socklen_t len, int backlog)
{
	BOOL on = TRUE;
	int fd = srt__os_socket(a->sa_family, SOCK_STREAM, 0, true);

	if (fd < 0)
		return -1;
	if (setsockopt(SK(fd), SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&on, sizeof(on)) == 0 &&
	    bind(SK(fd), a, len) == 0 && listen(SK(fd), backlog) == 0)
		return fd;
	wsa_fail();
	{
		int e = errno;

		closesocket(SK(fd));
		errno = e;
	}
	return -1;
}

/* A socket accepted from a listener inherits the listener's
 * non-inheritable flag on Windows; it is set again, with the
 * non-blocking mode the proxy's sockets all have. */
int srt__os_accept(int lfd)
{
	SOCKET s = accept(SK(lfd), NULL, NULL);

	if (s == INVALID_SOCKET)
		return wsa_fail();
	if (own_socket(s, true) == 0)
		return (int)s;
	closesocket(s);
	errno = ECONNABORTED;
	return -1;
}

/* Windows raises no SIGPIPE and has no MSG_DONTWAIT: the proxy's sockets
 * are non-blocking from their creation (srt__os_socket, srt__os_accept). */
ssize_t srt__os_send(int fd, const void *buf, size_t len)
{
	int n = len > INT_MAX ? INT_MAX : (int)len;
	int r = send(SK(fd), buf, n, 0);

	return r < 0 ? wsa_fail() : r;
}

/* Windows passes no descriptors over a socket (WSADuplicateSocket is a
 * different protocol): the bridge's hand-over does not exist there. */
ssize_t srt__os_recvmsg(int fd, struct msghdr *m)
{
	errno = ENOSYS;
	return -1;
}

bool srt__os_is_tcp_stream(int fd)
{
	SOCKET s = SK(fd);
	struct sockaddr_storage ss;
	int sl = sizeof(ss), v = 0, l = sizeof(v);
	BOOL listening = FALSE;

	if (getsockname(s, (struct sockaddr *)&ss, &sl) != 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return false;
	if (getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&v, &l) != 0 || v != SOCK_STREAM)
		return false;
	l = sizeof(listening);
	return getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, (char *)&listening, &l) == 0 && !listening;
}

/* Windows has no signals to block and wait for: a console's Ctrl-C,
 * Ctrl-Break and close events stand in for SIGINT, SIGBREAK and SIGTERM.
 * The handler (on a thread Windows starts) writes the signal's number, a
 * byte, to one end of a loopback socket pair; the other end is the
 * descriptor. Only the signals of set are delivered. */
static SOCKET sig_w = INVALID_SOCKET;
static sigset_t sig_set;

static int sig_of(DWORD ev)
{
	switch (ev) {
	case CTRL_C_EVENT: return SIGINT;
	case CTRL_BREAK_EVENT: return SIGBREAK;
	case CTRL_CLOSE_EVENT: case CTRL_LOGOFF_EVENT: case CTRL_SHUTDOWN_EVENT: return SIGTERM;
	default: return 0;
	}
}

static BOOL WINAPI on_console_event(DWORD ev)
{
	int sig = sig_of(ev);
	unsigned char b = (unsigned char)sig;

	if (!sig || !(sig_set & ((_sigset_t)1 << sig)))
		return FALSE;
	send(sig_w, (const char *)&b, 1, 0);
	return TRUE;
}

int srt__os_signal_fd(const sigset_t *set)
{
	int fds[2];

	if (sig_w != INVALID_SOCKET) {
		errno = EBUSY;
		return -1;
	}
	if (srt__os_socketpair(fds) < 0)
		return -1;
	sig_set = *set;
	sig_w = SK(fds[1]);
	if (!SetConsoleCtrlHandler(on_console_event, TRUE)) {
		srt__os_sock_close(fds[0]);
		srt__os_sock_close(fds[1]);
		sig_w = INVALID_SOCKET;
		errno = EIO;
		return -1;
	}
	return fds[0];
}

int srt__os_signal_read(int fd)
{
	unsigned char b;

	return recv(SK(fd), (char *)&b, 1, 0) == 1 ? (int)b : -1;
}

/* A connected pair of non-blocking, uninheritable loopback TCP sockets:
 * what Windows has for socketpair(2). The listener takes one connection;
 * the accepted socket must be the one this call connected (its address is
 * compared), so another local process racing to connect first is
 * refused, not paired. */
int srt__os_socketpair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET }, me, peer;
	int l = sizeof(a), lm = sizeof(me), lp = sizeof(peer);
	int lfd, c = -1, s = -1;
	u_long on = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = srt__os_socket(AF_INET, SOCK_STREAM, 0, false);
	if (lfd < 0)
		return -1;
	if (bind(SK(lfd), (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(SK(lfd), 1) != 0 ||
	    getsockname(SK(lfd), (struct sockaddr *)&a, &l) != 0)
		goto wsa;
	c = srt__os_socket(AF_INET, SOCK_STREAM, 0, false);
	if (c < 0)
		goto fail;
	if (connect(SK(c), (struct sockaddr *)&a, sizeof(a)) != 0)
		goto wsa;
	{
		SOCKET as = accept(SK(lfd), (struct sockaddr *)&peer, &lp);

		if (as == INVALID_SOCKET)
			goto wsa;
		s = (int)as;
	}
	if (getsockname(SK(c), (struct sockaddr *)&me, &lm) != 0)
		goto wsa;
	if (me.sin_port != peer.sin_port || me.sin_addr.s_addr != peer.sin_addr.s_addr) {
		errno = ECONNREFUSED;
		goto fail;
	}
	if (own_socket(SK(s), true) < 0 || ioctlsocket(SK(c), FIONBIO, &on) != 0)
		goto fail;
	srt__os_sock_close(lfd);
	fds[0] = s;
	fds[1] = c;
	return 0;
wsa:
	wsa_fail();
fail:
	{
		int e = errno;

		srt__os_sock_close(lfd);
		if (c >= 0)
			srt__os_sock_close(c);
		if (s >= 0)
			srt__os_sock_close(s);
		errno = e;
	}
	return -1;
}

void srt__os_wipe(void *p, size_t len)
{
	SecureZeroMemory(p, len);
}

void *srt__os_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;

	while (n--)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

/* The current drive is the current directory's: the core's "/x" is a
 * path on it (common/winpath.h). */
int srt__os_path_spell(const char *in, char *out, size_t cap)
{
	char cur[MAX_PATH];

	if (!_getcwd(cur, sizeof(cur)) || cur[1] != ':') {
		errno = ENOSYS;
		return -1;
	}
	return srt__winpath_to_core(in, cur[0], out, cap);
}

ssize_t srt__os_recv(int fd, void *buf, size_t len, int flags)
{
	int n = len > INT_MAX ? INT_MAX : (int)len;
	int r = recv(SK(fd), buf, n, flags);

	return r < 0 ? wsa_fail() : r;
}

int srt__os_connect(int fd, const struct sockaddr *a, socklen_t len)
{
	if (connect(SK(fd), a, len) == 0)
		return 0;
	wsa_fail();
	if (errno == EAGAIN)
		errno = EINPROGRESS;
	return -1;
}

/* Only a socket answers SO_TYPE; a C library descriptor's number is no
 * socket handle Winsock knows. */
bool srt__os_is_socket(int fd)
{
	int v = 0, l = sizeof(v);

	return fd >= 0 && getsockopt(SK(fd), SOL_SOCKET, SO_TYPE, (char *)&v, &l) == 0;
}

int srt__os_set_nonblock(int fd)
{
	u_long on = 1;

	if (!srt__os_is_socket(fd)) {
		errno = ENOSYS;
		return -1;
	}
	return ioctlsocket(SK(fd), FIONBIO, &on) == 0 ? 0 : wsa_fail();
}

ssize_t srt__os_read(int fd, void *buf, size_t len)
{
	return srt__os_recv(fd, buf, len, 0);
}

ssize_t srt__os_write(int fd, const void *buf, size_t len)
{
	return srt__os_send(fd, buf, len);
}

/* One direction of a relay (srt__os_pollable): a C library descriptor
 * (binary mode: text mode would rewrite CR LF and stop at Ctrl-Z) and the
 * blocking end of a socket pair. The last of the pair's threads to end
 * closes that end. */
struct relay {
	int fd;
	SOCKET s;
	bool to_socket;     /* fd -> s, else s -> fd */
	volatile LONG *refs;
};

static DWORD WINAPI relay_main(void *arg)
{
	struct relay *r = arg;
	char buf[16384];

	for (;;) {
		int n = r->to_socket ? _read(r->fd, buf, sizeof(buf)) :
				       recv(r->s, buf, sizeof(buf), 0);
		int off = 0;

		if (n <= 0)
			break;
		while (off < n) {
			int w = r->to_socket ? send(r->s, buf + off, n - off, 0) :
					       _write(r->fd, buf + off, (unsigned)(n - off));
			if (w <= 0)
				goto done;
			off += w;
		}
	}
done:
	/* the end of file goes on: the loop reads it on its end, or the
	 * descriptor's reader sees it */
	if (r->to_socket)
		shutdown(r->s, SD_SEND);
	_close(r->fd);
	if (InterlockedDecrement(r->refs) == 0) {
		closesocket(r->s);
		free((void *)r->refs);
	}
	free(r);
	return 0;
}

static int relay_start(int fd, SOCKET s, bool to_socket, volatile LONG *refs)
{
	struct relay *r = malloc(sizeof(*r));
	HANDLE th;

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	*r = (struct relay){ fd, s, to_socket, refs };
	_setmode(fd, _O_BINARY);
	th = CreateThread(NULL, 0, relay_main, r, 0, NULL);
	if (!th) {
		free(r);
		errno = EAGAIN;
		return -1;
	}
	CloseHandle(th);
	return 0;
}

int srt__os_pollable(int in_fd, int out_fd, int *in, int *out)
{
	bool rin = !srt__os_is_socket(in_fd), rout = out_fd >= 0 && !srt__os_is_socket(out_fd);
	volatile LONG *refs;
	u_long off = 0;
	int fds[2];

	if (!rin && !rout) {
		*in = in_fd;
		if (out)
			*out = out_fd;
		return 0;
	}
	/* one relayed, one a socket: two different streams, which the loop
	 * reads as one only when both are relayed */
	if (out_fd >= 0 && rin != rout) {
		errno = ENOSYS;
		goto close_fds;
	}
	if (srt__os_socketpair(fds) < 0)
		goto close_fds;
	refs = malloc(sizeof(*refs));
	if (!refs || ioctlsocket(SK(fds[1]), FIONBIO, &off) != 0) {
		free((void *)refs);
		errno = ENOMEM;
		goto close_pair;
	}
	*refs = rout ? 2 : 1;
	if (relay_start(in_fd, SK(fds[1]), true, refs) < 0) {
		free((void *)refs);
		goto close_pair;
	}
	if (rout && relay_start(out_fd, SK(fds[1]), false, refs) < 0) {
		/* the reading thread holds the other reference and closes
		 * in_fd when it ends; the loop's end is never handed out */
		int e = errno;

		InterlockedDecrement(refs);
		srt__os_sock_close(fds[0]);
		_close(out_fd);
		errno = e;
		return -1;
	}
	*in = fds[0];
	if (out)
		*out = out_fd >= 0 ? fds[0] : -1;
	return 0;
close_pair:
	{
		int e = errno;

		srt__os_sock_close(fds[0]);
		srt__os_sock_close(fds[1]);
		errno = e;
	}
close_fds:
	{
		int e = errno;

		rin ? _close(in_fd) : srt__os_sock_close(in_fd);
		if (out_fd >= 0 && out_fd != in_fd)
			rout ? _close(out_fd) : srt__os_sock_close(out_fd);
		errno = e;
	}
	return -1;
}

/* No fork on Windows: nothing to prepare for. */
int srt__os_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	(void)prepare;
	(void)parent;
	(void)child;
	return 0;
}

/* The POSIX shim gives every file the uid 0 of every process, so the
 * answer there was always yes: any directory counts as one this user may
 * write. */
bool srt__os_dir_ours_to_write(const char *dir)
{
	(void)dir;
	return true;
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
