/* The core's Windows platform pieces the proxy's loop stands on, driven
 * under Wine by win/test.sh: common/platform-windows.c (random bytes, the
 * no-replace rename, sockets made uninheritable and non-blocking,
 * socket pairs, refusals of what Windows lacks), proxies/evloop-poll.c on
 * WSAPoll and proxies/wakeup-windows.c, with a loopback TCP listener in a
 * port range and a client talking through the loop. One line per case:
 * "PASS name" or "FAIL name: why"; the exit status is the failures'
 * count. */
#include "config.h"

#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

#include "common/platform.h"
#include "proxies/evloop.h"
#include "proxies/wakeup.h"

#define SK(fd) ((SOCKET)(intptr_t)(fd))

static int failures;

static void result(const char *name, const char *why)
{
	if (why) {
		failures++;
		printf("FAIL %s: %s\n", name, why);
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

static const char *t_random(void)
{
	unsigned char a[32], b[32], zero[32] = { 0 };

	if (srt__os_random(a, sizeof(a)) || srt__os_random(b, sizeof(b)))
		return "srt__os_random failed";
	if (!memcmp(a, b, sizeof(a)) || !memcmp(a, zero, sizeof(a)))
		return "two draws are equal or zero";
	return NULL;
}

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int holds(const char *path, const char *text)
{
	char buf[32] = "";
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strcmp(buf, text);
}

static const char *t_rename(void)
{
	static char why[96];
	int e;

	remove("rn-a");
	remove("rn-b");
	remove("rn-c");
	if (put("rn-a", "A") || put("rn-b", "B"))
		return "cannot write the test files";
	e = srt__os_rename_noreplace(-100, "rn-a", "rn-b");
	if (e != EEXIST || !holds("rn-a", "A") || !holds("rn-b", "B")) {
		snprintf(why, sizeof(why), "over an existing name: %d (want EEXIST, both kept)", e);
		return why;
	}
	e = srt__os_rename_noreplace(-100, "rn-a", "rn-c");
	if (e || !holds("rn-c", "A")) {
		snprintf(why, sizeof(why), "to a free name: %d", e);
		return why;
	}
	if (srt__os_rename_noreplace(3, "rn-c", "rn-d") != ENOSYS)
		return "a directory descriptor was not refused (Windows has none)";
	remove("rn-b");
	remove("rn-c");
	return NULL;
}

static const char *t_refusals(void)
{
	int fds[2];
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	if (srt__os_pipe(fds, true) == 0 || errno != ENOSYS)
		return "a non-blocking pipe was not refused";
	if (srt__os_recvmsg(0, &m) != -1 || errno != ENOSYS)
		return "descriptor passing was not refused";
	if (srt__os_pipe(fds, false) != 0)
		return "a blocking pipe failed";
	{
		DWORD fl = 0;
		HANDLE h = (HANDLE)_get_osfhandle(fds[0]);
		bool bad = !GetHandleInformation(h, &fl) || (fl & HANDLE_FLAG_INHERIT);

		_close(fds[0]);
		_close(fds[1]);
		if (bad)
			return "the pipe is inheritable";
	}
	return NULL;
}

static int inheritable(int fd)
{
	DWORD fl = 0;

	return !GetHandleInformation((HANDLE)SK(fd), &fl) || (fl & HANDLE_FLAG_INHERIT);
}

/* recv on a non-blocking socket, waiting up to 2 s for the first byte
 * (a loaded machine delivers loopback bytes late, never lost). */
static int recv_wait(int fd, char *buf, int cap)
{
	ULONGLONG end = GetTickCount64() + 2000;
	int r;

	while ((r = recv(SK(fd), buf, cap, 0)) < 0 && WSAGetLastError() == WSAEWOULDBLOCK &&
	       GetTickCount64() < end)
		Sleep(5);
	return r;
}

static const char *t_socketpair(void)
{
	int fds[2];
	char c = 0;
	const char *why = NULL;

	if (srt__os_socketpair(fds) < 0)
		return "srt__os_socketpair failed";
	if (srt__os_send(fds[1], "x", 1) != 1 || recv_wait(fds[0], &c, 1) != 1 || c != 'x')
		why = "a byte did not cross the pair";
	else if (srt__os_send(fds[0], "y", 1) != 1 || recv_wait(fds[1], &c, 1) != 1 || c != 'y')
		why = "a byte did not cross back";
	else if (recv(SK(fds[0]), &c, 1, 0) != -1 || WSAGetLastError() != WSAEWOULDBLOCK)
		why = "an empty end is not non-blocking";
	else if (inheritable(fds[0]) || inheritable(fds[1]))
		why = "an end is inheritable";
	else if (!srt__os_is_tcp_stream(fds[0]))
		why = "an end is not seen as a TCP stream";
	srt__os_sock_close(fds[0]);
	srt__os_sock_close(fds[1]);
	return why;
}

/* A loopback listener on the first free port of [lo, hi]. */
static int listen_range(int lo, int hi, int *port)
{
	int p;

	for (p = lo; p <= hi; p++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((u_short)p) };
		int fd = srt__os_socket(AF_INET, SOCK_STREAM, 0, true);

		if (fd < 0)
			return -1;
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(SK(fd), (struct sockaddr *)&a, sizeof(a)) == 0 && listen(SK(fd), 16) == 0) {
			*port = p;
			return fd;
		}
		srt__os_sock_close(fd);
	}
	return -1;
}

/* Wait up to ms for an event whose ptr is want: its events, or 0. */
static uint32_t wait_for(struct srt__evloop *l, void *want, int ms)
{
	ULONGLONG end = GetTickCount64() + (ULONGLONG)ms;

	for (;;) {
		struct srt__event ev[8];
		ULONGLONG now = GetTickCount64();
		int n, i;

		if (now >= end)
			return 0;
		n = srt__evloop_wait(l, ev, 8, (int)(end - now));
		for (i = 0; i < n; i++)
			if (ev[i].ptr == want)
				return ev[i].events;
	}
}

/* Read what is there until the socket would block, then report the drain
 * as the proxy's socket layer does. */
static int drain(int fd, char *buf, int cap)
{
	int got = 0, r;

	while ((r = recv(SK(fd), buf + got, cap - got, 0)) > 0)
		got += r;
	if (r < 0 && WSAGetLastError() == WSAEWOULDBLOCK)
		srt__evloop_drained(fd, SRT_EV_IN);
	return r == 0 && !got ? -1 : got;
}

static const char *t_loop(void)
{
	static char why[128];
	struct srt__evloop *l = NULL;
	int lfd, port = 0, c = -1, s = -1, lo = 60080;
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[64];
	const char *fail = NULL;

	if (srt__evloop_new(&l) < 0)
		return "srt__evloop_new failed";
	srt__evloop_enter(l);
	if (strcmp(srt__evloop_kind(l), "poll")) {
		srt__evloop_free(l);
		return "the loop is not poll";
	}
	lfd = listen_range(lo, lo + 9, &port);
	if (lfd < 0) {
		srt__evloop_free(l);
		return "no free port in 60080-60089";
	}
	srt__evloop_add(l, lfd, SRT_EV_IN, &lfd);
	c = srt__os_socket(AF_INET, SOCK_STREAM, 0, true);
	a.sin_port = htons((u_short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (c < 0 || (connect(SK(c), (struct sockaddr *)&a, sizeof(a)) != 0 &&
		      WSAGetLastError() != WSAEWOULDBLOCK)) {
		fail = "the client cannot connect";
		goto out;
	}
	if (!(wait_for(l, &lfd, 2000) & SRT_EV_IN)) {
		fail = "the listener was not reported readable";
		goto out;
	}
	s = srt__os_accept(lfd);
	if (s < 0 || inheritable(s) || !srt__os_is_tcp_stream(s) || srt__os_is_tcp_stream(lfd)) {
		fail = "accept: no socket, an inheritable one, or a wrong TCP check";
		goto out;
	}
	srt__evloop_add(l, s, SRT_EV_IN | SRT_EV_EDGE, &s);
	srt__evloop_add(l, c, SRT_EV_OUT, &c);
	if (!(wait_for(l, &c, 2000) & SRT_EV_OUT)) {
		fail = "the client's connect was not reported";
		goto out;
	}
	srt__evloop_del(l, c);
	if (srt__os_send(c, "ping", 4) != 4) {
		fail = "the client cannot send";
		goto out;
	}
	if (!(wait_for(l, &s, 2000) & SRT_EV_IN) || drain(s, buf, sizeof(buf)) != 4 ||
	    memcmp(buf, "ping", 4)) {
		fail = "the request did not arrive through the loop";
		goto out;
	}
	/* edge-triggered and drained: nothing more until new bytes come */
	if (wait_for(l, &s, 100)) {
		fail = "a drained edge registration was reported again";
		goto out;
	}
	if (srt__os_send(s, "pong", 4) != 4 || recv_wait(c, buf, 4) != 4 ||
	    memcmp(buf, "pong", 4)) {
		fail = "the answer did not come back";
		goto out;
	}
	srt__os_send(c, "more", 4);
	if (!(wait_for(l, &s, 2000) & SRT_EV_IN) || drain(s, buf, sizeof(buf)) != 4) {
		fail = "new bytes after a drain were not reported";
		goto out;
	}
	srt__os_sock_close(c);
	c = -1;
	if (!(wait_for(l, &s, 2000) & SRT_EV_IN) || drain(s, buf, sizeof(buf)) != -1) {
		fail = "the client's close was not seen as end of file";
		goto out;
	}
out:
	if (fail) {
		snprintf(why, sizeof(why), "%s (port %d, WSA error %d)", fail, port, WSAGetLastError());
		fail = why;
	}
	if (s >= 0)
		srt__os_sock_close(s);
	if (c >= 0)
		srt__os_sock_close(c);
	srt__os_sock_close(lfd);
	srt__evloop_free(l);
	return fail;
}

static DWORD WINAPI later(void *arg)
{
	Sleep(100);
	srt__wakeup_signal(arg);
	return 0;
}

static const char *t_wakeup(void)
{
	struct srt__evloop *l = NULL;
	struct srt__wakeup *w = NULL;
	const char *fail = NULL;
	ULONGLONG t0, dt;
	HANDLE th;
	int fd;

	if (srt__evloop_new(&l) < 0 || srt__wakeup_new(&w) < 0) {
		srt__evloop_free(l);
		return "cannot make the loop or the wakeup";
	}
	srt__evloop_enter(l);
	fd = srt__wakeup_fd(w);
	srt__evloop_add(l, fd, SRT_EV_IN, w);
	th = CreateThread(NULL, 0, later, w, 0, NULL);
	if (!(wait_for(l, w, 2000) & SRT_EV_IN))
		fail = "a signal from another thread did not wake the loop";
	WaitForSingleObject(th, INFINITE);
	CloseHandle(th);
	srt__wakeup_clear(w);
	if (!fail && wait_for(l, w, 100))
		fail = "still readable after clear";
	t0 = GetTickCount64();
	srt__wakeup_arm(w, 150);
	if (!fail && !(wait_for(l, w, 3000) & SRT_EV_IN))
		fail = "an armed deadline did not wake the loop";
	dt = GetTickCount64() - t0;
	if (!fail && dt < 100)
		fail = "the deadline woke the loop early";
	srt__wakeup_clear(w);
	srt__wakeup_arm(w, 100);
	srt__wakeup_arm(w, 0);
	if (!fail && wait_for(l, w, 400))
		fail = "a disarmed deadline still woke the loop";
	srt__evloop_free(l);
	srt__wakeup_free(w);
	return fail;
}

int main(void)
{
	result("random bytes from BCryptGenRandom", t_random());
	result("rename never replaces; a directory descriptor is refused", t_rename());
	result("non-blocking pipes and descriptor passing refused, blocking pipe made", t_refusals());
	result("socket pair: connected both ways, non-blocking, uninheritable", t_socketpair());
	result("loopback listener in 60080-60089, client through the WSAPoll loop", t_loop());
	result("wakeup: another thread's signal, a deadline, clear and disarm", t_wakeup());
	return failures;
}
