/* See evloop.h: choosing an implementation and calling through it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/evloop-impl.h"

static _Thread_local struct srt__evloop *current;

static const struct srt__evloop_ops *native(void)
{
#if defined(SRT_EVLOOP_HAVE_EPOLL)
	return &srt__evloop_epoll_ops;
#elif defined(SRT_EVLOOP_HAVE_KQUEUE)
	return &srt__evloop_kqueue_ops;
#else
	return &srt__evloop_poll_ops;
#endif
}

int srt__evloop_new(struct srt__evloop **out)
{
	const char *want = getenv("SRT_EVLOOP");
	const struct srt__evloop_ops *ops = native();

	if (want && !strcmp(want, "poll"))
		ops = &srt__evloop_poll_ops;
	return ops->create(out);
}

void srt__evloop_free(struct srt__evloop *l)
{
	if (l)
		l->ops->destroy(l);
}

const char *srt__evloop_kind(const struct srt__evloop *l)
{
	return l->ops->kind;
}

bool srt__evloop_sees_edges(const struct srt__evloop *l)
{
	return l->ops->sees_edges;
}

int srt__evloop_add(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return l->ops->add(l, fd, events, ptr);
}

int srt__evloop_mod(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	return l->ops->mod(l, fd, events, ptr);
}

int srt__evloop_del(struct srt__evloop *l, int fd)
{
	return l->ops->del(l, fd);
}

int srt__evloop_wait(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms)
{
	return l->ops->wait(l, out, max, timeout_ms);
}

void srt__evloop_enter(struct srt__evloop *l)
{
	current = l;
}

void srt__evloop_drained(int fd, uint32_t events)
{
	struct srt__evloop *l = current;

	if (l && l->ops->drained)
		l->ops->drained(l, fd, events);
}
