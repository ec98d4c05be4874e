/* TCP echo server for the idle-tunnel benchmark: one epoll loop, any number
 * of connections, loopback only.
 *
 * Usage: echo [-p PORT] [-a ADDR]   (default 127.0.0.1:18007)
 * Prints "listening ADDR:PORT" on stdout once bound. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

struct conn {
	int fd;
	size_t len, off; /* bytes not yet echoed, in buf */
	char buf[4096];
};

static void conn_free(int ep, struct conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
}

/* 0 ok, -1 close */
static int pump(int ep, struct conn *c)
{
	struct epoll_event ev = { .data.ptr = c };

	for (;;) {
		if (c->off < c->len) {
			ssize_t w = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN)
					return -1;
				/* wait for room, stop reading meanwhile */
				ev.events = EPOLLOUT;
				epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
				return 0;
			}
			c->off += (size_t)w;
			continue;
		}
		c->off = c->len = 0;
		ssize_t r = recv(c->fd, c->buf, sizeof(c->buf), 0);
		if (r == 0)
			return -1;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -1;
			ev.events = EPOLLIN;
			epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
			return 0;
		}
		c->len = (size_t)r;
	}
}

int main(int argc, char **argv)
{
	int port = 18007;
	const char *addr = "127.0.0.1";
	struct sockaddr_in sa;
	struct epoll_event ev = { .events = EPOLLIN }, evs[256];
	int lfd, ep;

	if (bench_server_options(argc, argv, &port, &addr, NULL))
		return 2;
	if (bench_server_prepare("echo", addr, port, &sa))
		return 2;
	lfd = bench_server_listen("echo", &sa, 0);
	if (lfd < 0)
		return 1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	printf("listening %s:%d\n", addr, port);
	fflush(stdout);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			if (!c) {
				for (;;) {
					int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
					if (fd < 0)
						break;
					c = malloc(sizeof(*c));
					if (!c) {
						close(fd);
						continue;
					}
					c->fd = fd;
					c->len = c->off = 0;
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			if (pump(ep, c) < 0)
				conn_free(ep, c);
		}
	}
}
