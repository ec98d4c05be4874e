/* A small HTTP/1.1 server for the benchmarks: one epoll loop per thread
 * (SO_REUSEPORT), keep-alive and pipelining, loopback only.
 *
 *   GET /bytes/N   N bytes (zeros) with a Content-Length
 *   GET /          a two-byte body
 *
 * Usage: httpd [-p PORT] [-t THREADS] [-a ADDR]   (default 127.0.0.1:18080, 1)
 * Prints "listening ADDR:PORT" on stdout once every thread is bound. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

#define INBUF 8192
#define CHUNK (256 * 1024)

static char zeros[CHUNK];
static struct sockaddr_in bind_addr;

struct conn {
	int fd;
	size_t inlen;
	char in[INBUF];
	char head[160];      /* response head still to send */
	size_t head_len, head_off;
	uint64_t body_left;  /* body bytes still to send */
	int close_after;
	int want_out;        /* EPOLLOUT armed */
};

static int listen_one(void)
{
	return bench_server_listen("httpd", &bind_addr, 1);
}

static void conn_free(int ep, struct conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
}

static void set_out(int ep, struct conn *c, int on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };

	if (c->want_out == on)
		return;
	c->want_out = on;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Parse one request at the start of c->in; 1 = a response is queued,
 * 0 = need more input, -1 = bad request (close). */
static int parse_one(struct conn *c)
{
	char *end = memmem(c->in, c->inlen, "\r\n\r\n", 4);
	char *sp1, *sp2, *path, *p;
	size_t reqlen;
	uint64_t n = 2;
	int is_bytes = 0, http10;

	if (!end)
		return c->inlen >= sizeof(c->in) ? -1 : 0;
	reqlen = (size_t)(end - c->in) + 4;
	sp1 = memchr(c->in, ' ', reqlen);
	if (!sp1)
		return -1;
	sp2 = memchr(sp1 + 1, ' ', reqlen - (size_t)(sp1 + 1 - c->in));
	if (!sp2)
		return -1;
	*sp2 = '\0';
	path = sp1 + 1;
	/* absolute-form: skip scheme and authority */
	if (!strncasecmp(path, "http://", 7)) {
		p = strchr(path + 7, '/');
		path = p ? p : (char *)"/";
	}
	if (!strncmp(path, "/bytes/", 7)) {
		n = strtoull(path + 7, NULL, 10);
		is_bytes = 1;
	}
	http10 = !strncmp(sp2 + 1, "HTTP/1.0", 8);
	/* header scan for Connection: close / keep-alive (case-insensitive) */
	c->close_after = http10;
	for (p = sp2 + 1; p < end; p++) {
		if ((*p == '\n') && !strncasecmp(p + 1, "connection:", 11)) {
			char *v = p + 12;
			while (*v == ' ')
				v++;
			if (!strncasecmp(v, "close", 5))
				c->close_after = 1;
			else if (!strncasecmp(v, "keep-alive", 10))
				c->close_after = 0;
		}
	}
	c->head_len = (size_t)snprintf(c->head, sizeof(c->head),
				       "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n%s\r\n",
				       (unsigned long long)n,
				       c->close_after ? "Connection: close\r\n" : "");
	c->head_off = 0;
	c->body_left = is_bytes ? n : 0;
	if (!is_bytes) {
		/* the tiny body goes with the head */
		memcpy(c->head + c->head_len, "ok", 2);
		c->head_len += 2;
	}
	memmove(c->in, c->in + reqlen, c->inlen - reqlen);
	c->inlen -= reqlen;
	return 1;
}

/* Send what is queued; 0 = all sent, 1 = would block, -1 = error. */
static int flush(struct conn *c)
{
	while (c->head_off < c->head_len || c->body_left) {
		ssize_t w;
		if (c->head_off < c->head_len) {
			w = send(c->fd, c->head + c->head_off, c->head_len - c->head_off,
				 MSG_NOSIGNAL | (c->body_left ? MSG_MORE : 0));
		} else {
			size_t n = c->body_left < CHUNK ? (size_t)c->body_left : CHUNK;
			w = send(c->fd, zeros, n, MSG_NOSIGNAL);
		}
		if (w < 0) {
			if (errno == EAGAIN)
				return 1;
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (c->head_off < c->head_len)
			c->head_off += (size_t)w;
		else
			c->body_left -= (uint64_t)w;
	}
	return 0;
}

/* Serve as many requests as the input holds and the socket accepts. */
static int serve(int ep, struct conn *c)
{
	for (;;) {
		int r = flush(c);
		if (r < 0)
			return -1;
		if (r == 1) {
			set_out(ep, c, 1);
			return 0;
		}
		if (c->close_after)
			return -1;
		r = parse_one(c);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	set_out(ep, c, 0);
	return 0;
}

static void *loop(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[256];

	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			if (!c) {
				for (;;) {
					int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
					int one = 1;
					if (fd < 0)
						break;
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					c = calloc(1, sizeof(*c));
					if (!c) {
						close(fd);
						continue;
					}
					c->fd = fd;
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			if (evs[i].events & EPOLLIN) {
				while (c->inlen < sizeof(c->in)) {
					ssize_t r = recv(c->fd, c->in + c->inlen,
							 sizeof(c->in) - c->inlen, 0);
					if (r > 0) {
						c->inlen += (size_t)r;
						continue;
					}
					if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
						/* peer closed: finish nothing more */
						c->close_after = 1;
						c->body_left = 0;
						c->head_len = c->head_off = 0;
					}
					break;
				}
			}
			if ((evs[i].events & (EPOLLERR | EPOLLHUP)) || serve(ep, c) < 0)
				conn_free(ep, c);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int port = 18080, threads = 1;
	const char *addr = "127.0.0.1";

	if (bench_server_options(argc, argv, &port, &addr, &threads))
		return 2;
	if (bench_server_prepare("httpd", addr, port, &bind_addr))
		return 2;
	if (threads < 1)
		threads = 1;
	int fds[64];
	if (threads > 64)
		threads = 64;
	for (int i = 0; i < threads; i++)
		if ((fds[i] = listen_one()) < 0)
			return 1;
	printf("listening %s:%d\n", addr, port);
	fflush(stdout);
	for (int i = 1; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, loop, (void *)(intptr_t)fds[i]);
	}
	loop((void *)(intptr_t)fds[0]);
	return 0;
}
