/* proxies/evloop.h on Linux's epoll (edges: EPOLLET). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "proxies/evloop-impl.h"

struct eloop {
	struct srt__evloop base;
	int epfd;
};

static uint32_t to_epoll(uint32_t ev)
{
	return (ev & SRT_EV_IN ? EPOLLIN : 0) | (ev & SRT_EV_OUT ? EPOLLOUT : 0) |
	       (ev & SRT_EV_RDHUP ? EPOLLRDHUP : 0) | (ev & SRT_EV_EDGE ? EPOLLET : 0);
}

static uint32_t from_epoll(uint32_t ev)
{
	return (ev & EPOLLIN ? SRT_EV_IN : 0) | (ev & EPOLLOUT ? SRT_EV_OUT : 0) |
	       (ev & EPOLLRDHUP ? SRT_EV_RDHUP : 0) | (ev & EPOLLHUP ? SRT_EV_HUP : 0) |
	       (ev & EPOLLERR ? SRT_EV_ERR : 0);
}

static int create(struct srt__evloop **out)
{
	struct eloop *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->base.ops = &srt__evloop_epoll_ops;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0) {
		free(e);
		return -1;
	}
	*out = &e->base;
	return 0;
}

static void destroy(struct srt__evloop *l)
{
	struct eloop *e = (struct eloop *)l;

	close(e->epfd);
	free(e);
}

static int ctl(struct srt__evloop *l, int op, int fd, uint32_t events, void *ptr)
{
	struct eloop *e = (struct eloop *)l;
	struct epoll_event ev = { .events = to_epoll(events), .data.ptr = ptr };

	return epoll_ctl(e->epfd, op, fd, &ev);
}

static int add(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return ctl(l, EPOLL_CTL_ADD, fd, events, ptr);
}

static int mod(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return ctl(l, EPOLL_CTL_MOD, fd, events, ptr);
}

static int del(struct srt__evloop *l, int fd)
{
	struct eloop *e = (struct eloop *)l;

	return epoll_ctl(e->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static int wait_events(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms)
{
	struct eloop *e = (struct eloop *)l;
	struct epoll_event evs[256];
	int n, i;

	if (max > 256)
		max = 256;
	n = epoll_wait(e->epfd, evs, max, timeout_ms);
	for (i = 0; i < n; i++) {
		out[i].events = from_epoll(evs[i].events);
		out[i].ptr = evs[i].data.ptr;
	}
	return n;
}

const struct srt__evloop_ops srt__evloop_epoll_ops = {
	.kind = "epoll",
	.sees_edges = true,
	.create = create,
	.destroy = destroy,
	.add = add,
	.mod = mod,
	.del = del,
	.wait = wait_events,
	.drained = NULL,
};
