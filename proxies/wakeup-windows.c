/* proxies/wakeup.h on Windows: WSAPoll watches sockets only, so the
 * descriptor is one end of a loopback socket pair (srt__os_socketpair),
 * and a thread of its own sends a byte to the other end when the armed
 * deadline passes (a condition variable on GetTickCount64, which never
 * goes back). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <winsock2.h>
#include <windows.h>

#include "common/platform.h"
#include "proxies/wakeup.h"

struct srt__wakeup {
	int fds[2]; /* [0] watched, [1] poked */
	CRITICAL_SECTION lock;
	CONDITION_VARIABLE cond;
	ULONGLONG due; /* GetTickCount64 ms; 0: disarmed */
	bool stop;
	HANDLE timer;
};

static void poke(struct srt__wakeup *w)
{
	char one = 1;

	/* WSAEWOULDBLOCK: the pair is full, so it is readable already */
	send((SOCKET)(intptr_t)w->fds[1], &one, 1, 0);
}

static DWORD WINAPI timer_main(void *arg)
{
	struct srt__wakeup *w = arg;

	EnterCriticalSection(&w->lock);
	while (!w->stop) {
		ULONGLONG now = GetTickCount64();

		if (!w->due) {
			SleepConditionVariableCS(&w->cond, &w->lock, INFINITE);
			continue;
		}
		if (now >= w->due) {
			w->due = 0;
			poke(w);
			continue;
		}
		SleepConditionVariableCS(&w->cond, &w->lock, (DWORD)(w->due - now));
	}
	LeaveCriticalSection(&w->lock);
	return 0;
}

void srt__wakeup_free(struct srt__wakeup *w)
{
	if (!w)
		return;
	if (w->timer) {
		EnterCriticalSection(&w->lock);
		w->stop = true;
		WakeConditionVariable(&w->cond);
		LeaveCriticalSection(&w->lock);
		WaitForSingleObject(w->timer, INFINITE);
		CloseHandle(w->timer);
	}
	DeleteCriticalSection(&w->lock);
	srt__os_sock_close(w->fds[0]);
	srt__os_sock_close(w->fds[1]);
	free(w);
}

int srt__wakeup_new(struct srt__wakeup **out)
{
	struct srt__wakeup *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	if (srt__os_socketpair(w->fds) < 0) {
		free(w);
		return -1;
	}
	InitializeCriticalSection(&w->lock);
	InitializeConditionVariable(&w->cond);
	w->timer = CreateThread(NULL, 0, timer_main, w, 0, NULL);
	if (!w->timer) {
		srt__wakeup_free(w);
		errno = EAGAIN;
		return -1;
	}
	*out = w;
	return 0;
}

int srt__wakeup_fd(const struct srt__wakeup *w)
{
	return w->fds[0];
}

void srt__wakeup_signal(struct srt__wakeup *w)
{
	poke(w);
}

void srt__wakeup_arm(struct srt__wakeup *w, long long ms)
{
	EnterCriticalSection(&w->lock);
	w->due = ms > 0 ? GetTickCount64() + (ULONGLONG)ms : 0;
	WakeConditionVariable(&w->cond);
	LeaveCriticalSection(&w->lock);
}

void srt__wakeup_clear(struct srt__wakeup *w)
{
	char sink[64];

	while (recv((SOCKET)(intptr_t)w->fds[0], sink, sizeof(sink), 0) > 0)
		;
}
