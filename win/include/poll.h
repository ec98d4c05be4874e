/* win/include: poll() as WSAPoll, sockets only (see win/include/README). */
#ifndef SRT_WIN_POLL_H
#define SRT_WIN_POLL_H
#include <errno.h>
#include <winsock2.h>

typedef unsigned long nfds_t;

/* errno from the last Winsock error (what the poll loop reports). */
static inline int srt_win_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int r;

	/* WSAPoll refuses an empty set: a poll of nothing only waits */
	if (!n) {
		Sleep(timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms);
		return 0;
	}
	r = WSAPoll(fds, n, timeout_ms);
	if (r < 0) {
		int e = WSAGetLastError();

		errno = e == WSAENOBUFS ? ENOMEM : e == WSAEINTR ? EINTR : EINVAL;
	}
	return r;
}
#define poll srt_win_poll
#endif
