/* Buffers, and every byte a connection reads or writes: filling a buffer
 * from a socket, reading an HTTP head, flushing what is queued. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/platform.h"
#include "proxies/conn.h"

int srt__buf_reserve(struct srt__buf *b, size_t extra)
{
	size_t cap;
	char *np;

	if (b->cap - b->len >= extra)
		return 0;
	cap = b->cap ? b->cap : 1024;
	while (cap - b->len < extra)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np)
		return -1;
	b->p = np;
	b->cap = cap;
	return 0;
}

int srt__buf_add(struct srt__buf *b, const void *data, size_t n)
{
	if (srt__buf_reserve(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

void srt__buf_consume(struct srt__buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* snprintf("%s") without printf: runs for every request. */
void srt__copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

void srt__buf_free(struct srt__buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Read from the top of a stack until it is drained (EAGAIN, or a short
 * read: for a stream socket that means the queue is empty, epoll(7), and a
 * layer above a socket returns short only when it has nothing more), EOF
 * or `max` bytes are buffered. */
int srt__io_fill(struct srt__layer *l, struct srt__side *sd, struct srt__buf *b, size_t max)
{
	bool got = false;

	if (!sd->rd && !sd->hup)
		return SRT_FILL_AGAIN;
	for (;;) {
		ssize_t n;
		size_t room;

		if (b->len >= max)
			return SRT_FILL_FULL;
		if (srt__buf_reserve(b, b->len + 4096 > max ? max - b->len : 4096) < 0)
			return SRT_FILL_ERR;
		room = b->cap - b->len;
		if (room > max - b->len)
			room = max - b->len;
		n = srt__layer_recv(l, b->p + b->len, room);
		if (n > 0) {
			b->len += (size_t)n;
			got = true;
			if ((size_t)n < room) {
				sd->rd = false;
				if (!sd->hup)
					return SRT_FILL_DATA;
			}
			continue;
		}
		/* EOF and errors are sticky: report the data first, the next
		 * call sees them again */
		if (n == 0)
			return got ? SRT_FILL_DATA : SRT_FILL_EOF;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			sd->rd = false;
			return got ? SRT_FILL_DATA : SRT_FILL_AGAIN;
		}
		return got ? SRT_FILL_DATA : SRT_FILL_ERR;
	}
}

/* Parse the HTTP head at the start of `b` with `parse` (the request or the
 * response parser), reading more from `l` while it is incomplete. A head still
 * incomplete with `max` bytes buffered is SRT_HTTP_TOO_BIG (the parser says so
 * itself at SRT_HTTP_MAX_HEAD). Returns the head's length, an SRT_HTTP_* error,
 * SRT_HEAD_AGAIN or SRT_HEAD_CLOSED. */
int srt__io_read_head(struct srt__layer *l, struct srt__side *sd, struct srt__buf *b,
		      size_t max, int (*parse)(const char *, size_t, struct srt__http_head *),
		     struct srt__http_head *h)
{
	int len, rc;

	for (;;) {
		len = parse(b->p ? b->p : "", b->len, h);
		if (len != SRT_HTTP_NEED_MORE)
			return len;
		if (b->len >= max)
			return SRT_HTTP_TOO_BIG;
		rc = srt__io_fill(l, sd, b, max);
		if (rc == SRT_FILL_AGAIN)
			return SRT_HEAD_AGAIN;
		if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR)
			return SRT_HEAD_CLOSED;
	}
}

/* Write pending bytes. 1: all written, 0: would block, -1: error. */
int srt__io_flush(struct srt__layer *l, struct srt__buf *b, size_t *off)
{
	while (*off < b->len) {
		ssize_t n = srt__layer_send(l, b->p + *off, b->len - *off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		*off += (size_t)n;
	}
	srt__buf_free(b);
	*off = 0;
	return 1;
}

/* Move bytes from src to dst through userspace: the path for stacks that
 * are not bare sockets, and for every stack in a build without splice.
 * `q` holds what was read and not yet sent (freed once sent, so an idle
 * tunnel holds no buffer); `left` (NULL: until EOF) is the budget of a
 * framed body. Returns an SRT_PUMP_* answer, as srt__pump_run does. */
int srt__io_copy(struct srt__layer *src, struct srt__layer *dst, struct srt__buf *q,
		 size_t *off, uint64_t *left)
{
	bool layered = src->ops != &srt__socket_layer || dst->ops != &srt__socket_layer;

	for (;;) {
		size_t want = layered ? SRT_COPY_CHUNK_LAYERED : SRT_COPY_CHUNK;
		ssize_t n;
		int rc = srt__io_flush(dst, q, off);

		if (rc < 0)
			return SRT_PUMP_ERROR;
		if (rc == 0)
			return SRT_PUMP_BLOCKED;
		if (left && *left == 0)
			return SRT_PUMP_DONE;
		if (left && *left < want)
			want = (size_t)*left;
		if (srt__buf_reserve(q, want) < 0)
			return SRT_PUMP_ERROR;
		n = srt__layer_recv(src, q->p, want);
		if (n > 0) {
			q->len = (size_t)n;
			if (left)
				*left -= (uint64_t)n;
			continue;
		}
		if (n == 0)
			return SRT_PUMP_EOF;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? SRT_PUMP_BLOCKED : SRT_PUMP_ERROR;
	}
}

/* Move one direction of a connection's bytes (`pump` is c->up or c->down):
 * spliced in the kernel when both stacks are bare sockets, else copied. */
int srt__io_move(struct srt__conn *c, struct srt__layer *src, struct srt__layer *dst,
		 struct srt__pump *pump, uint64_t *left)
{
	bool up = pump == &c->up;
	/* without a limit, an unreachable one: the bytes taken from src are
	 * counted either way (the request filters' summaries) */
	uint64_t unlimited = UINT64_MAX, *budget = left ? left : &unlimited, before = *budget;
	int rc;

#ifdef HAVE_SPLICE
	if (!c->p->copy_only && srt__layer_can_splice(src, dst))
		rc = srt__pump_run(pump, src->fd, dst->fd, &c->p->pool, budget);
	else
#endif
		rc = srt__io_copy(src, dst, up ? &c->upq : &c->downq,
				  up ? &c->upq_off : &c->downq_off, budget);
	*(up ? &c->moved_up : &c->moved_down) += before - *budget;
	return rc;
}

/* ---- the socket layer --------------------------------------------------- */

/* A read or write that would block tells the event loop (evloop.h: poll
 * watches the condition again only then). */
static ssize_t socket_recv(struct srt__layer *l, void *buf, size_t n)
{
	ssize_t r = srt__os_recv(l->fd, buf, n, 0);

	if (r < 0 && errno == EAGAIN)
		srt__evloop_drained(l->fd, SRT_EV_IN);
	return r;
}

static ssize_t socket_send(struct srt__layer *l, const void *buf, size_t n)
{
	ssize_t r = srt__os_send(l->fd, buf, n);

	if (r < 0 && errno == EAGAIN)
		srt__evloop_drained(l->fd, SRT_EV_OUT);
	return r;
}

static int socket_shutdown(struct srt__layer *l)
{
	return shutdown(l->fd, SHUT_WR);
}

/* the connection closes the socket itself, after taking it out of the
 * event loop (srt__close_registered) */
static void socket_close(struct srt__layer *l)
{
	(void)l;
}

const struct srt__layer_ops srt__socket_layer = {
	.name = "socket",
	.recv = socket_recv,
	.send = socket_send,
	.shutdown = socket_shutdown,
	.close = socket_close,
};

void srt__layer_socket(struct srt__layer *l, int fd)
{
	l->ops = &srt__socket_layer;
	l->below = NULL;
	l->fd = fd;
}
