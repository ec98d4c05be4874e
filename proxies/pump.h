/* Zero-copy relaying between two non-blocking stream sockets with
 * splice(2) through a pipe, shared by the proxy and the in-sandbox bridge
 * (header-only so the helper binary needs no extra object).
 *
 * Pipes are borrowed from a small pool and given back as soon as they are
 * empty, so an idle tunnel holds no pipe at all: only a direction whose
 * reader is slower than its writer keeps data (and a pipe) in flight. That
 * keeps both memory and descriptors per idle tunnel to the two sockets. */
#ifndef SRT_PROXY_PUMP_H
#define SRT_PROXY_PUMP_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#define SRT_PIPE_POOL_MAX 64
/* Bigger pipes cut the splice calls per byte on bulk transfers; pages
 * are only allocated while data is in flight. 1 MiB is the default
 * fs.pipe-max-size, so an unprivileged caller gets it too (bench: a 1 GiB
 * CONNECT went from about 1,500 to 1,750 MiB/s and the proxy's CPU from
 * 0.29 to 0.24 s/GiB against 256 KiB). When the per-user pipe budget is
 * exhausted F_SETPIPE_SZ fails and the pipe keeps 64 KiB. */
#ifndef SRT_PUMP_CHUNK
#define SRT_PUMP_CHUNK (1024 * 1024)
#endif

struct srt__pipe_pool {
	int fds[SRT_PIPE_POOL_MAX][2];
	int n;
};

struct srt__pump {
	int pr, pw;     /* borrowed pipe, or -1 */
	size_t inpipe;  /* bytes in the pipe */
	bool eof;       /* the source reached EOF */
};

enum {
	SRT_PUMP_ERROR = -1,
	SRT_PUMP_BLOCKED = 0, /* wait for the next edge on either socket */
	SRT_PUMP_EOF = 1,     /* source at EOF and everything delivered */
	SRT_PUMP_DONE = 2,    /* budget moved and delivered */
};

static inline void srt__pump_init(struct srt__pump *p)
{
	p->pr = p->pw = -1;
	p->inpipe = 0;
	p->eof = false;
}

static inline void srt__pipe_pool_drain(struct srt__pipe_pool *pool)
{
	while (pool->n > 0) {
		pool->n--;
		close(pool->fds[pool->n][0]);
		close(pool->fds[pool->n][1]);
	}
}

static inline void srt__pump_put(struct srt__pump *p, struct srt__pipe_pool *pool)
{
	if (p->pr < 0)
		return;
	if (p->inpipe == 0 && pool && pool->n < SRT_PIPE_POOL_MAX) {
		pool->fds[pool->n][0] = p->pr;
		pool->fds[pool->n][1] = p->pw;
		pool->n++;
	} else {
		close(p->pr);
		close(p->pw);
	}
	p->pr = p->pw = -1;
	p->inpipe = 0;
}

/* Release the pump's pipe (a pipe holding data is closed, not pooled). */
static inline void srt__pump_release(struct srt__pump *p, struct srt__pipe_pool *pool)
{
	srt__pump_put(p, pool);
}

#ifdef HAVE_SPLICE
/* splice(2) is Linux's: elsewhere only the pool's bookkeeping above is
 * compiled, and the proxy copies every byte (proxies/io.c). */
static inline int srt__pump_get(struct srt__pump *p, struct srt__pipe_pool *pool)
{
	int fds[2];

	if (p->pr >= 0)
		return 0;
	if (pool && pool->n > 0) { /* NULL: no pool, as in srt__pump_put */
		pool->n--;
		p->pr = pool->fds[pool->n][0];
		p->pw = pool->fds[pool->n][1];
		return 0;
	}
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) /* platform: splice's own, Linux only */
		return -1;
	(void)fcntl(fds[1], F_SETPIPE_SZ, SRT_PUMP_CHUNK);
	p->pr = fds[0];
	p->pw = fds[1];
	return 0;
}

/* Move bytes from src to dst until one side would block. With a budget,
 * at most *budget bytes are taken from src (and *budget is decreased). */
static inline int srt__pump_run(struct srt__pump *p, int src, int dst,
				struct srt__pipe_pool *pool, uint64_t *budget)
{
	for (;;) {
		ssize_t n;
		size_t want = SRT_PUMP_CHUNK;

		if (p->inpipe > 0) {
			n = splice(p->pr, NULL, dst, NULL, p->inpipe,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return errno == EAGAIN ? SRT_PUMP_BLOCKED : SRT_PUMP_ERROR;
			}
			p->inpipe -= (size_t)n;
			continue;
		}
		srt__pump_put(p, pool);
		if (p->eof)
			return SRT_PUMP_EOF;
		if (budget) {
			if (*budget == 0)
				return SRT_PUMP_DONE;
			if (*budget < want)
				want = (size_t)*budget;
		}
		if (srt__pump_get(p, pool) < 0)
			return SRT_PUMP_ERROR;
		/* the pipe is empty here, so EAGAIN can only mean "no data" */
		n = splice(src, NULL, p->pw, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0) {
			p->eof = true;
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			srt__pump_put(p, pool);
			return errno == EAGAIN ? SRT_PUMP_BLOCKED : SRT_PUMP_ERROR;
		}
		p->inpipe = (size_t)n;
		if (budget)
			*budget -= (uint64_t)n;
	}
}
#endif /* HAVE_SPLICE */

#endif
