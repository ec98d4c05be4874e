/* proxies/evloop.h on kqueue (macOS, the BSDs): a read and a write filter
 * per descriptor, EV_CLEAR for edges. Built only where <sys/event.h>
 * exists; not compiled on Linux (see doc/ARCHITECTURE.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <unistd.h>

#include "proxies/evloop-impl.h"

struct kloop {
	struct srt__evloop base;
	int kq;
};

static int create(struct srt__evloop **out)
{
	struct kloop *k = calloc(1, sizeof(*k));
	int fl;

	if (!k)
		return -1;
	k->base.ops = &srt__evloop_kqueue_ops;
	k->kq = kqueue();
	if (k->kq < 0 || (fl = fcntl(k->kq, F_GETFD)) < 0 ||
	    fcntl(k->kq, F_SETFD, fl | FD_CLOEXEC) < 0) {
		if (k->kq >= 0)
			close(k->kq);
		free(k);
		return -1;
	}
	*out = &k->base;
	return 0;
}

static void destroy(struct srt__evloop *l)
{
	struct kloop *k = (struct kloop *)l;

	close(k->kq);
	free(k);
}

/* Both filters set to what events asks: a filter not asked for is
 * disabled (added, so that mod needs no knowledge of what was there). */
static int set(struct kloop *k, int fd, uint32_t events, void *ptr)
{
	unsigned short clear = events & SRT_EV_EDGE ? EV_CLEAR : 0;
	struct kevent ch[2];

	EV_SET(&ch[0], (uintptr_t)fd, EVFILT_READ,
	       EV_ADD | clear | (events & SRT_EV_IN ? EV_ENABLE : EV_DISABLE), 0, 0, ptr);
	EV_SET(&ch[1], (uintptr_t)fd, EVFILT_WRITE,
	       EV_ADD | clear | (events & SRT_EV_OUT ? EV_ENABLE : EV_DISABLE), 0, 0, ptr);
	return kevent(k->kq, ch, 2, NULL, 0, NULL) < 0 ? -1 : 0;
}

static int add(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return set((struct kloop *)l, fd, events, ptr);
}

static int mod(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return set((struct kloop *)l, fd, events, ptr);
}

static int del(struct srt__evloop *l, int fd)
{
	struct kloop *k = (struct kloop *)l;
	struct kevent ch[2];
	int r1, r2;

	EV_SET(&ch[0], (uintptr_t)fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[1], (uintptr_t)fd, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	/* one at a time: a filter never added makes the other's fail too */
	r1 = kevent(k->kq, &ch[0], 1, NULL, 0, NULL);
	r2 = kevent(k->kq, &ch[1], 1, NULL, 0, NULL);
	return r1 < 0 && r2 < 0 ? -1 : 0;
}

static int wait_events(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms)
{
	struct kloop *k = (struct kloop *)l;
	struct kevent evs[256];
	struct timespec ts, *tp = NULL;
	int n, i;

	if (max > 256)
		max = 256;
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tp = &ts;
	}
	n = kevent(k->kq, NULL, 0, evs, max, tp);
	for (i = 0; i < n; i++) {
		uint32_t ev = 0;

		if (evs[i].filter == EVFILT_READ)
			ev |= SRT_EV_IN;
		else if (evs[i].filter == EVFILT_WRITE)
			ev |= SRT_EV_OUT;
		if (evs[i].flags & EV_EOF)
			ev |= SRT_EV_RDHUP | (evs[i].filter == EVFILT_WRITE ? SRT_EV_HUP : 0);
		if (evs[i].flags & EV_ERROR)
			ev |= SRT_EV_ERR;
		out[i].events = ev;
		out[i].ptr = evs[i].udata;
	}
	return n;
}

const struct srt__evloop_ops srt__evloop_kqueue_ops = {
	.kind = "kqueue",
	.sees_edges = true,
	.create = create,
	.destroy = destroy,
	.add = add,
	.mod = mod,
	.del = del,
	.wait = wait_events,
	.drained = NULL,
};
