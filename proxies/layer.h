/* A connection's byte stream as a stack of layers, after curl's connection
 * filters: each layer offers recv/send/shutdown/close and reaches the
 * socket through the layer below it. Today every stack is the socket
 * layer alone; a TLS layer can later sit on it, under HTTP, without the
 * HTTP code knowing, because every byte a connection reads or writes goes
 * through the top of its stack (proxies/io.c).
 *
 * recv and send behave as recv(2) and send(2) on a non-blocking socket:
 * > 0 bytes moved, recv 0 at EOF, -1 with errno set (EAGAIN: nothing now,
 * the socket's next event resumes the caller). */
#ifndef SRT_PROXY_LAYER_H
#define SRT_PROXY_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct srt__layer;

struct srt__layer_ops {
	const char *name;
	ssize_t (*recv)(struct srt__layer *l, void *buf, size_t n);
	ssize_t (*send)(struct srt__layer *l, const void *buf, size_t n);
	/* nothing more will be sent (the peer reads EOF after what was sent) */
	int (*shutdown)(struct srt__layer *l);
	/* release this layer's own state; the layers below stay */
	void (*close)(struct srt__layer *l);
};

struct srt__layer {
	const struct srt__layer_ops *ops;
	struct srt__layer *below; /* NULL for the socket layer */
	int fd;                   /* the socket at the bottom of the stack, or -1 */
};

/* The bottom of every stack: a non-blocking stream socket. */
extern const struct srt__layer_ops srt__socket_layer;

/* Make `l` the socket layer of fd (-1: no socket). */
void srt__layer_socket(struct srt__layer *l, int fd);

static inline ssize_t srt__layer_recv(struct srt__layer *l, void *buf, size_t n)
{
	return l->ops->recv(l, buf, n);
}

static inline ssize_t srt__layer_send(struct srt__layer *l, const void *buf, size_t n)
{
	return l->ops->send(l, buf, n);
}

static inline int srt__layer_shutdown(struct srt__layer *l)
{
	return l->ops->shutdown(l);
}

/* Release every layer of a stack from its top down (the socket's
 * descriptor stays: the connection takes it out of the event loop and
 * closes it). */
static inline void srt__layer_release(struct srt__layer *top)
{
	for (struct srt__layer *l = top, *below; l; l = below) {
		below = l->below;
		l->ops->close(l);
	}
}

/* Bytes may move between two stacks with splice(2), in the kernel, only
 * when both are bare sockets and the build allows it (configure
 * --disable-splice keeps every byte on the copy path). */
static inline bool srt__layer_can_splice(const struct srt__layer *a, const struct srt__layer *b)
{
#ifdef SRT_NO_SPLICE
	(void)a;
	(void)b;
	return false;
#else
	return a->ops == &srt__socket_layer && b->ops == &srt__socket_layer && a->fd >= 0 &&
	       b->fd >= 0;
#endif
}

#endif
