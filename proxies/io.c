/* Buffers, and every byte a connection reads or writes: filling a buffer
 * from a socket, reading an HTTP head, flushing what is queued. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

/* Read from fd until it is drained (EAGAIN, or a short read: for a stream
 * socket that means the queue is empty, epoll(7)), EOF or `max` bytes are
 * buffered. */
int srt__io_fill(int fd, struct srt__side *sd, struct srt__buf *b, size_t max)
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
		n = recv(fd, b->p + b->len, room, MSG_DONTWAIT);
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
 * response parser), reading more from fd while it is incomplete. A head still
 * incomplete with `max` bytes buffered is SRT_HTTP_TOO_BIG (the parser says so
 * itself at SRT_HTTP_MAX_HEAD). Returns the head's length, an SRT_HTTP_* error,
 * SRT_HEAD_AGAIN or SRT_HEAD_CLOSED. */
int srt__io_read_head(int fd, struct srt__side *sd, struct srt__buf *b, size_t max,
		     int (*parse)(const char *, size_t, struct srt__http_head *),
		     struct srt__http_head *h)
{
	int len, rc;

	for (;;) {
		len = parse(b->p ? b->p : "", b->len, h);
		if (len != SRT_HTTP_NEED_MORE)
			return len;
		if (b->len >= max)
			return SRT_HTTP_TOO_BIG;
		rc = srt__io_fill(fd, sd, b, max);
		if (rc == SRT_FILL_AGAIN)
			return SRT_HEAD_AGAIN;
		if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR)
			return SRT_HEAD_CLOSED;
	}
}

/* Write pending bytes. 1: all written, 0: would block, -1: error. */
int srt__io_flush(int fd, struct srt__buf *b, size_t *off)
{
	while (*off < b->len) {
		ssize_t n = send(fd, b->p + *off, b->len - *off, MSG_NOSIGNAL | MSG_DONTWAIT);
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
