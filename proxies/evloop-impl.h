/* What each implementation of proxies/evloop.h provides (evloop.c picks
 * one and calls through it). */
#ifndef SRT_PROXY_EVLOOP_IMPL_H
#define SRT_PROXY_EVLOOP_IMPL_H

#include "proxies/evloop.h"

struct srt__evloop_ops {
	const char *kind;
	bool sees_edges;
	int (*create)(struct srt__evloop **out);
	void (*destroy)(struct srt__evloop *l);
	int (*add)(struct srt__evloop *l, int fd, uint32_t events, void *ptr);
	int (*mod)(struct srt__evloop *l, int fd, uint32_t events, void *ptr);
	int (*del)(struct srt__evloop *l, int fd);
	int (*wait)(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms);
	void (*drained)(struct srt__evloop *l, int fd, uint32_t events); /* NULL: sees edges */
};

/* Every implementation's loop starts with this. */
struct srt__evloop {
	const struct srt__evloop_ops *ops;
};

extern const struct srt__evloop_ops srt__evloop_poll_ops;
#ifdef SRT_EVLOOP_HAVE_EPOLL
extern const struct srt__evloop_ops srt__evloop_epoll_ops;
#endif
#ifdef SRT_EVLOOP_HAVE_KQUEUE
extern const struct srt__evloop_ops srt__evloop_kqueue_ops;
#endif

#endif
