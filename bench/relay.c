/* A relay with no logic at all: the ceiling of the 50-connection and the
 * throughput figures.
 *
 * Each accepted connection gets its own connection to a fixed upstream,
 * and bytes are copied both ways with recv(2)/send(2) from one epoll loop:
 * no parsing, no decision, no authentication. It moves a request with the
 * same socket calls srt's proxy needs at the least (two receives and two
 * sends), so no proxy that forwards through the kernel's TCP can beat its
 * requests/s on this machine. Benchmark use only: writes block (one slow
 * reader stalls every connection), which the benchmark's loads never mind.
 *
 * With -s it moves bytes with splice(2) through a 1 MiB pipe per
 * direction instead, as srt's proxy does: the throughput ceiling.
 *
 * Usage: relay -p PORT -u UPSTREAM_PORT [-s]   (both on 127.0.0.1)
 * Prints "listening 127.0.0.1:PORT" once bound. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct side {
	int fd;
	int pr, pw; /* -s: this direction's pipe */
	struct side *peer;
};

static int use_splice;

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static void pair_close(int ep, struct side *s)
{
	struct side *p = s->peer;

	epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
	epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
	close(s->fd);
	close(p->fd);
	if (use_splice) {
		close(s->pr);
		close(s->pw);
		close(p->pr);
		close(p->pw);
	}
	s->fd = p->fd = -1; /* freed never: a later event of this batch may name it */
}

static void accept_all(int ep, int l, const struct sockaddr_in *up)
{
	int one = 1, c;

	while ((c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct side *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
		struct epoll_event ea = { .events = EPOLLIN }, eb = { .events = EPOLLIN };

		/* a blocking connect: loopback answers at once */
		if (u < 0 || !a || !b || connect(u, (const struct sockaddr *)up, sizeof(*up)) < 0) {
			fprintf(stderr, "relay: upstream: %s\n", strerror(errno));
			exit(1);
		}
		if (use_splice) {
			int pa[2], pb[2];

			if (pipe2(pa, O_CLOEXEC) < 0 || pipe2(pb, O_CLOEXEC) < 0) {
				fprintf(stderr, "relay: pipe: %s\n", strerror(errno));
				exit(1);
			}
			fcntl(pa[1], F_SETPIPE_SZ, 1 << 20);
			fcntl(pb[1], F_SETPIPE_SZ, 1 << 20);
			a->pr = pa[0];
			a->pw = pa[1];
			b->pr = pb[0];
			b->pw = pb[1];
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		a->fd = c;
		b->fd = u;
		a->peer = b;
		b->peer = a;
		ea.data.ptr = a;
		eb.data.ptr = b;
		epoll_ctl(ep, EPOLL_CTL_ADD, c, &ea);
		epoll_ctl(ep, EPOLL_CTL_ADD, u, &eb);
	}
}

/* -s: what is readable now into the pipe, then all of it to the peer
 * (a blocking write); false when the pair is done */
static int move_spliced(struct side *s)
{
	ssize_t n = splice(s->fd, NULL, s->pw, NULL, 1 << 20, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n <= 0)
		return 0;
	while (n > 0) {
		ssize_t m = splice(s->pr, NULL, s->peer->fd, NULL, (size_t)n, SPLICE_F_MOVE);

		if (m <= 0)
			return 0;
		n -= m;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[256];
	struct sockaddr_in me, up;
	int port = 0, uport = 0, one = 1, opt, l, ep;

	while ((opt = getopt(argc, argv, "p:u:s")) != -1) {
		if (opt == 'p')
			port = atoi(optarg);
		else if (opt == 'u')
			uport = atoi(optarg);
		else if (opt == 's')
			use_splice = 1;
		else
			return 2;
	}
	if (port <= 0 || uport <= 0) {
		fprintf(stderr, "usage: relay -p PORT -u UPSTREAM_PORT [-s]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	me = loopback(port);
	up = loopback(uport);
	l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || ep < 0 || bind(l, (struct sockaddr *)&me, sizeof(me)) < 0 || listen(l, 1024) < 0) {
		fprintf(stderr, "relay: listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
		return 1;
	}
	epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
	printf("listening 127.0.0.1:%d\n", port);
	fflush(stdout);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);

		for (int i = 0; i < n; i++) {
			struct side *s = evs[i].data.ptr;
			ssize_t r;

			if (!s) {
				accept_all(ep, l, &up);
				continue;
			}
			if (s->fd < 0)
				continue;
			if (use_splice) {
				if (!move_spliced(s))
					pair_close(ep, s);
				continue;
			}
			r = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0 || send(s->peer->fd, buf, (size_t)r, MSG_NOSIGNAL) != r)
				pair_close(ep, s);
		}
	}
}
