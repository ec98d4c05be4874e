/* proxies/evloop.h on poll(2), for any POSIX system, and on Windows
 * through win/include/poll.h (WSAPoll, which watches sockets only). poll
 * reports levels: an edge-triggered registration reports a condition
 * once, then leaves it out of the poll set until srt__evloop_drained()
 * says the reader or writer met EAGAIN (or the safety net of evloop.h
 * watches it again). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxies/evloop-impl.h"

#define REARM_EVERY_MS 250

struct entry {
	int fd;
	uint32_t events; /* as registered */
	uint32_t armed;  /* SRT_EV_IN/OUT still to report (edges) */
	void *ptr;
};

struct ploop {
	struct srt__evloop base;
	struct entry *v;      /* dense */
	size_t n, cap;
	int *slot;            /* fd -> index in v, or -1 */
	size_t nslot;
	struct pollfd *pfd;   /* as many as cap */
	int64_t next_rearm;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int create(struct srt__evloop **out)
{
	struct ploop *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	p->base.ops = &srt__evloop_poll_ops;
	p->next_rearm = now_ms() + REARM_EVERY_MS;
	*out = &p->base;
	return 0;
}

static void destroy(struct srt__evloop *l)
{
	struct ploop *p = (struct ploop *)l;

	free(p->v);
	free(p->slot);
	free(p->pfd);
	free(p);
}

static struct entry *find(struct ploop *p, int fd)
{
	if (fd < 0 || (size_t)fd >= p->nslot || p->slot[fd] < 0)
		return NULL;
	return &p->v[p->slot[fd]];
}

static int add(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	struct ploop *p = (struct ploop *)l;

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (find(p, fd)) {
		/* a registration left by a descriptor closed without
		 * srt__evloop_del (epoll forgets those with the last
		 * reference to the file): the number is someone else's now */
		struct entry *e = find(p, fd);

		e->events = events;
		e->armed = events & (SRT_EV_IN | SRT_EV_OUT);
		e->ptr = ptr;
		return 0;
	}
	if ((size_t)fd >= p->nslot) {
		size_t ns = p->nslot ? p->nslot : 64, i;
		int *s;

		while (ns <= (size_t)fd)
			ns *= 2;
		s = realloc(p->slot, ns * sizeof(*s));
		if (!s)
			return -1;
		for (i = p->nslot; i < ns; i++)
			s[i] = -1;
		p->slot = s;
		p->nslot = ns;
	}
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct entry *v = realloc(p->v, nc * sizeof(*v));
		struct pollfd *f;

		if (!v)
			return -1;
		p->v = v;
		f = realloc(p->pfd, nc * sizeof(*f));
		if (!f)
			return -1;
		p->pfd = f;
		p->cap = nc;
	}
	p->v[p->n].fd = fd;
	p->v[p->n].events = events;
	p->v[p->n].armed = events & (SRT_EV_IN | SRT_EV_OUT);
	p->v[p->n].ptr = ptr;
	p->slot[fd] = (int)p->n;
	p->n++;
	return 0;
}

static int mod(struct srt__evloop *l, int fd, uint32_t events, void *ptr)
{
	struct entry *e = find((struct ploop *)l, fd);

	if (!e) {
		errno = ENOENT;
		return -1;
	}
	e->events = events;
	e->armed = events & (SRT_EV_IN | SRT_EV_OUT);
	e->ptr = ptr;
	return 0;
}

static int del(struct srt__evloop *l, int fd)
{
	struct ploop *p = (struct ploop *)l;
	struct entry *e = find(p, fd);
	size_t i;

	if (!e) {
		errno = ENOENT;
		return -1;
	}
	i = (size_t)(e - p->v);
	p->slot[fd] = -1;
	p->n--;
	if (i != p->n) {
		p->v[i] = p->v[p->n];
		p->slot[p->v[i].fd] = (int)i;
	}
	return 0;
}

static void drained(struct srt__evloop *l, int fd, uint32_t events)
{
	struct entry *e = find((struct ploop *)l, fd);

	if (e)
		e->armed |= e->events & events & (SRT_EV_IN | SRT_EV_OUT);
}

/* What a level-triggered entry, or an edge-triggered one's armed
 * conditions, ask poll for. An edge entry with nothing armed is left out
 * (fd -1), hang-ups included: they come with the next armed read. */
static short wanted(const struct entry *e)
{
	uint32_t w = e->events & SRT_EV_EDGE ? e->armed : e->events;
	short ev = 0;

	if (w & SRT_EV_IN)
		ev |= POLLIN;
	if (w & SRT_EV_OUT)
		ev |= POLLOUT;
	return ev;
}

static uint32_t from_poll(short re)
{
	uint32_t ev = 0;

	if (re & POLLIN)
		ev |= SRT_EV_IN;
	if (re & POLLOUT)
		ev |= SRT_EV_OUT;
	if (re & POLLHUP)
		ev |= SRT_EV_HUP | SRT_EV_RDHUP | SRT_EV_IN;
	if (re & (POLLERR | POLLNVAL))
		ev |= SRT_EV_ERR | SRT_EV_IN;
	return ev;
}

static int wait_events(struct srt__evloop *l, struct srt__event *out, int max, int timeout_ms)
{
	struct ploop *p = (struct ploop *)l;
	int64_t now = now_ms();
	size_t i, n = p->n;
	int r, got = 0;

	if (now >= p->next_rearm) {
		for (i = 0; i < n; i++)
			p->v[i].armed = p->v[i].events & (SRT_EV_IN | SRT_EV_OUT);
		p->next_rearm = now + REARM_EVERY_MS;
	}
	if (timeout_ms < 0 || timeout_ms > p->next_rearm - now)
		timeout_ms = (int)(p->next_rearm - now);
	for (i = 0; i < n; i++) {
		short ev = wanted(&p->v[i]);

		p->pfd[i].fd = ev || !(p->v[i].events & SRT_EV_EDGE) ? p->v[i].fd : -1;
		p->pfd[i].events = ev;
		p->pfd[i].revents = 0;
	}
	r = poll(p->pfd, (nfds_t)n, timeout_ms);
	if (r <= 0)
		return r;
	for (i = 0; i < n && got < max; i++) {
		struct entry *e = &p->v[i];
		uint32_t ev;

		/* an edge entry with nothing armed was left out (fd -1) */
		if (!p->pfd[i].revents || (!p->pfd[i].events && e->events & SRT_EV_EDGE))
			continue;
		ev = from_poll(p->pfd[i].revents);
		if (!(e->events & SRT_EV_RDHUP))
			ev &= ~SRT_EV_RDHUP;
		if (e->events & SRT_EV_EDGE)
			e->armed &= ~(ev & (SRT_EV_IN | SRT_EV_OUT));
		out[got].events = ev;
		out[got].ptr = e->ptr;
		got++;
	}
	return got;
}

const struct srt__evloop_ops srt__evloop_poll_ops = {
	.kind = "poll",
	.sees_edges = false,
	.create = create,
	.destroy = destroy,
	.add = add,
	.mod = mod,
	.del = del,
	.wait = wait_events,
	.drained = drained,
};
