/* Fault injection against the proxy, hosted in this process (so its
 * descriptors are ours to count in /proc/self/fd and valgrind sees its
 * memory):
 *
 *  - FAULT_TUNNELS (default 1000) CONNECT and SOCKS5 tunnels at once to a
 *    loopback echo server, each carrying its own position-dependent byte
 *    pattern; about a third are killed mid-transfer (RST via SO_LINGER 0,
 *    plain close, shutdown then close, close with echoed bytes unread).
 *    Every survivor must get back exactly its own bytes, then EOF.
 *  - an upstream server that stops mid-transfer (FIN, RST, close with our
 *    bytes unread): the client sees a prefix of what was sent, then EOF or
 *    a reset, within a bound; never a wrong or extra byte.
 *  - after each storm a fresh CONNECT works, and the descriptors of this
 *    process return to the baseline: sockets and other kinds exactly, pipes
 *    within the proxy's pipe pool (SRT_PIPE_POOL_MAX pipes).
 *
 * Only 127.0.0.1 is ever contacted. Prints TAP; alarm() bounds the run.
 * FAULT_SEED fixes the random choices (printed otherwise). */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proxies/auth.h"
#include "proxies/proxy.h"
#include "proxies/pump.h"
#include "tests/helpers/netkit.h"
#include "tests/unit/tap.h"

#define TOKEN "00112233445566778899aabbccddeeff"

static char sock_path[100];
static int echo_port, cut_port;
static uint64_t rng_state;
static char auth_line[512];

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The byte a stream with `seed` carries at offset `off`. */
static uint8_t pat(uint64_t seed, uint64_t off)
{
	return (uint8_t)(mix(seed ^ (off >> 3) * 0x100000001b3ull) >> ((off & 7) * 8));
}

static void fill_pat(uint8_t *b, size_t n, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(seed, off + i);
}

static bool check_pat(const uint8_t *b, size_t n, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pat(seed, off + i))
			return false;
	return true;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- descriptors ----------------------------------------------------- */

struct fdcount {
	int sockets, pipes, other;
};

static struct fdcount count_fds(void)
{
	struct fdcount c = { 0, 0, 0 };
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self = d ? dirfd(d) : -1;

	if (!d)
		return (struct fdcount){ -1, -1, -1 };
	while ((e = readdir(d))) {
		char link[128];
		ssize_t n;

		if (e->d_name[0] == '.' || atoi(e->d_name) == self)
			continue;
		n = readlinkat(self, e->d_name, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (!strncmp(link, "socket:", 7))
			c.sockets++;
		else if (!strncmp(link, "pipe:", 5))
			c.pipes++;
		else
			c.other++;
	}
	closedir(d);
	return c;
}

/* Print every descriptor (diagnosis of a failed count). */
static void dump_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char link[128], p[300];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		printf("#   fd %s -> %s\n", e->d_name, link);
	}
	closedir(d);
}

/* ---- loopback servers ------------------------------------------------ */

static atomic_int echo_live;

/* Echo written independently of the proxy's pump: a 32 KiB buffer per
 * connection, EOF in -> FIN out once the buffer is drained. */
struct echo_conn {
	int fd;
	size_t len;
	bool eof, shut;
	uint8_t buf[32768];
};

static void echo_close(int ep, struct echo_conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
	atomic_fetch_sub(&echo_live, 1);
}

static int echo_ep;

static void *echo_server(void *arg)
{
	int lfd = *(int *)arg, ep = echo_ep;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[128];

	fcntl(lfd, F_SETFL, O_NONBLOCK);
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	for (;;) {
		int n = epoll_wait(ep, evs, 128, -1);

		for (int i = 0; i < n; i++) {
			struct echo_conn *c = evs[i].data.ptr;
			bool dead = false;

			if (!c) {
				int fd;
				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					c = malloc(sizeof(*c));
					if (!c) {
						close(fd);
						continue;
					}
					c->fd = fd;
					c->len = 0;
					c->eof = c->shut = false;
					atomic_fetch_add(&echo_live, 1);
					ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			if (!c->eof && c->len < sizeof(c->buf)) {
				ssize_t r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
				if (r > 0)
					c->len += (size_t)r;
				else if (r == 0)
					c->eof = true;
				else if (errno != EAGAIN && errno != EINTR)
					dead = true;
			}
			if (!dead && c->len) {
				ssize_t w = send(c->fd, c->buf, c->len, MSG_NOSIGNAL);
				if (w > 0) {
					memmove(c->buf, c->buf + w, c->len - (size_t)w);
					c->len -= (size_t)w;
				} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
					dead = true;
				}
			}
			if (!dead && c->eof && !c->len && !c->shut) {
				shutdown(c->fd, SHUT_WR);
				c->shut = true;
			}
			if (dead || (c->shut && (evs[i].events & (EPOLLHUP | EPOLLERR)))) {
				echo_close(ep, c);
				continue;
			}
			/* wait only for what can make progress */
			ev.events = EPOLLRDHUP | (c->eof || c->len == sizeof(c->buf) ? 0 : EPOLLIN) |
				    (c->len ? EPOLLOUT : 0);
			ev.data.ptr = c;
			epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
		}
	}
	return NULL;
}

/* The cut server: reads a 16-byte header (seed, length, mode), sends
 * `length` pattern bytes and stops: 0 FIN, 1 RST, 2 RST at once without
 * sending, 3 close with the client's extra bytes unread (the kernel
 * answers with RST). */
enum { CUT_FIN, CUT_RST, CUT_RST_NOW, CUT_UNREAD, CUT_MODES };

static atomic_int cut_live;

static void *cut_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint8_t hdr[16], *buf = malloc(65536);
	uint64_t seed;
	uint32_t len, mode, off = 0;
	struct linger lg = { 1, 0 };

	if (!buf || netkit_recv_n(fd, hdr, 16) != 16)
		goto out;
	memcpy(&seed, hdr, 8);
	memcpy(&len, hdr + 8, 4);
	memcpy(&mode, hdr + 12, 4);
	if (mode == CUT_RST_NOW) {
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		goto out;
	}
	while (off < len) {
		uint32_t k = len - off < 65536 ? len - off : 65536;
		fill_pat(buf, k, seed, off);
		if (netkit_send_all(fd, buf, k) < 0)
			goto out;
		off += k;
	}
	if (mode == CUT_FIN)
		shutdown(fd, SHUT_WR);
	else if (mode == CUT_RST)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	else
		usleep(20000); /* let the client's extra bytes arrive unread */
out:
	close(fd);
	free(buf);
	atomic_fetch_sub(&cut_live, 1);
	return NULL;
}

static void *cut_server(void *arg)
{
	netkit_serve_threads(*(int *)arg, cut_conn, &cut_live);
	return NULL;
}

/* ---- proxy clients --------------------------------------------------- */

static int pconnect(void)
{
	struct timeval tv = { 10, 0 };
	int fd = netkit_unix_connect(sock_path);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* An open tunnel to 127.0.0.1:port, by HTTP CONNECT or SOCKS5; -1 when
 * refused. */
static int open_tunnel(int port, bool socks)
{
	int fd = pconnect();

	if (fd < 0)
		return -1;
	if (!socks) {
		char req[1024], resp[512];
		size_t n = 0;
		static const char okresp[] = "HTTP/1.1 200 Connection Established\r\n\r\n";

		snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n",
			 port, port, auth_line);
		if (netkit_send_all(fd, req, strlen(req)) < 0)
			goto fail;
		/* exactly the head: never read into the tunnel's bytes */
		while (n + 1 < sizeof(resp)) {
			ssize_t r = recv(fd, resp + n, 1, 0);
			if (r <= 0)
				goto fail;
			n++;
			if (n >= 4 && !memcmp(resp + n - 4, "\r\n\r\n", 4))
				break;
		}
		resp[n] = '\0';
		if (strcmp(resp, okresp))
			goto fail;
		return fd;
	} else {
		char req[512], conn[10];
		uint8_t r[32];

		netkit_socks_loopback(conn, port);
		if (netkit_send_all(fd, req, netkit_socks_open(req, TOKEN, conn, sizeof(conn))) < 0 ||
		    netkit_recv_n(fd, r, 2) != 2 || r[0] != 5 || r[1] != 2 || netkit_recv_n(fd, r, 2) != 2 || r[1] != 0 || netkit_recv_n(fd, r, 4) != 4 || r[1] != 0)
			goto fail;
		if (r[3] == 1 && netkit_recv_n(fd, r, 6) == 6)
			return fd;
		if (r[3] == 4 && netkit_recv_n(fd, r, 18) == 18)
			return fd;
		goto fail;
	}
fail:
	close(fd);
	return -1;
}

static bool fresh_roundtrip(void)
{
	uint8_t out[4096], in[4096];
	int fd = open_tunnel(echo_port, false);
	bool good;

	if (fd < 0)
		return false;
	fill_pat(out, sizeof(out), 42, 0);
	good = netkit_send_all(fd, out, sizeof(out)) == 0 &&
	       netkit_recv_n(fd, in, sizeof(in)) == sizeof(in) &&
	       !memcmp(in, out, sizeof(in));
	close(fd);
	return good;
}

static void dump_fds(void);

/* Wait until the servers closed every connection and the descriptors are
 * back to `base` (pipes: within the pool); false after `secs`. */
static bool fds_settle(struct fdcount base, double secs, struct fdcount *got)
{
	double end = now() + secs;

	for (;;) {
		*got = count_fds();
		if (atomic_load(&echo_live) == 0 && atomic_load(&cut_live) == 0 &&
		    got->sockets == base.sockets && got->other == base.other &&
		    got->pipes <= base.pipes + 2 * SRT_PIPE_POOL_MAX)
			return true;
		if (now() > end) {
			printf("# echo connections %d, cut connections %d\n", atomic_load(&echo_live),
			       atomic_load(&cut_live));
			dump_fds();
			return false;
		}
		usleep(20000);
	}
}

/* ---- the storm ------------------------------------------------------- */

enum { KILL_NONE, KILL_RST, KILL_CLOSE, KILL_SHUT, KILL_UNREAD };

struct tunnel {
	int fd;
	uint64_t seed;
	uint64_t total, sent, recvd;
	uint64_t kill_at;  /* victims: killed once this much is sent */
	int kill;          /* KILL_* */
	int err;           /* errno of a failed recv/send */
	const char *why;   /* how a survivor went wrong (diagnosis) */
	bool opened, out, wshut, done, bad, corrupt;
};

static void kill_tunnel(struct tunnel *t)
{
	struct linger lg = { 1, 0 };

	switch (t->kill) {
	case KILL_RST:
		setsockopt(t->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		break;
	case KILL_SHUT:
		shutdown(t->fd, SHUT_RDWR);
		break;
	default:
		break; /* plain close; KILL_UNREAD: close with echoed bytes unread */
	}
	close(t->fd);
	t->fd = -1;
	t->done = true;
}

static void finish(struct tunnel *t)
{
	close(t->fd);
	t->fd = -1;
	t->done = true;
}

/* One step of a tunnel after an event; false once it is finished. */
static bool step(int ep, uint32_t id, struct tunnel *t, uint32_t events, uint8_t *buf)
{
	uint64_t lim = t->kill ? t->kill_at : t->total;
	bool want_out;

	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		ssize_t r = recv(t->fd, buf, 65536, 0);
		if (r > 0) {
			if (t->recvd + (uint64_t)r > t->total ||
			    !check_pat(buf, (size_t)r, t->seed, t->recvd))
				t->corrupt = t->bad = true;
			t->recvd += (uint64_t)r;
		} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			/* EOF or error: the end for a survivor, too early for a victim */
			if (r < 0 || t->recvd != t->total || !t->wshut) {
				t->bad = true;
				t->err = r < 0 ? errno : 0;
				t->why = r < 0 ? "recv error" : "EOF before all bytes came back";
			}
			finish(t);
			return false;
		}
	}
	if ((events & EPOLLOUT) && t->sent < lim && t->sent - t->recvd <= 262144) {
		size_t want = lim - t->sent > 65536 ? 65536 : (size_t)(lim - t->sent);
		ssize_t w;

		fill_pat(buf, want, t->seed, t->sent);
		w = send(t->fd, buf, want, MSG_NOSIGNAL);
		if (w > 0) {
			t->sent += (uint64_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			t->bad = true;
			t->err = errno;
			t->why = "send error";
			finish(t);
			return false;
		}
	}
	if (t->kill && t->sent >= t->kill_at &&
	    (t->kill == KILL_UNREAD || t->recvd >= t->kill_at / 2)) {
		kill_tunnel(t);
		return false;
	}
	if (!t->kill && t->sent == t->total && !t->wshut) {
		shutdown(t->fd, SHUT_WR);
		t->wshut = true;
	}
	/* ask for EPOLLOUT only while there is something we may send, so
	 * level-triggered writability does not spin the loop */
	want_out = t->sent < lim && t->sent - t->recvd <= 262144;
	if (want_out != t->out) {
		struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.u32 = id };
		epoll_ctl(ep, EPOLL_CTL_MOD, t->fd, &ev);
		t->out = want_out;
	}
	return true;
}

static void storm(int n, uint64_t max_bytes)
{
	struct tunnel *tv = calloc((size_t)n, sizeof(*tv));
	uint8_t *buf = malloc(65536);
	int ep = epoll_create1(EPOLL_CLOEXEC), opened = 0, victims = 0, survivors = 0, good = 0,
	    active = 0, late = 0, corrupt = 0;
	double t0 = now(), deadline;
	struct epoll_event evs[256];

	for (int i = 0; i < n; i++) {
		struct tunnel *t = &tv[i];
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i };

		/* a stream that starts 16 03 looks like a TLS record to the
		 * proxy's server-name check, which closes it as a malformed
		 * hello (tls_lookalike() checks that); draw such seeds again */
		do
			t->seed = rnd();
		while (pat(t->seed, 0) == 0x16 && pat(t->seed, 1) == 0x03);
		t->total = 1 + rnd() % max_bytes;
		t->kill = rnd() % 3 == 0 ? 1 + (int)(rnd() % 4) : KILL_NONE;
		t->kill_at = t->kill ? 1 + rnd() % t->total : 0;
		t->fd = open_tunnel(echo_port, i % 4 == 3);
		if (t->fd < 0) {
			t->done = t->bad = true;
			continue;
		}
		t->opened = t->out = true;
		opened++;
		if (t->kill)
			victims++;
		fcntl(t->fd, F_SETFL, O_NONBLOCK);
		epoll_ctl(ep, EPOLL_CTL_ADD, t->fd, &ev);
		active++;
	}
	ok(opened == n, "%d tunnels (CONNECT and SOCKS5) open at once (%d opened, %.1f s)", n, opened,
	   now() - t0);
	deadline = now() + 60;
	while (active > 0 && now() < deadline) {
		int k = epoll_wait(ep, evs, 256, 1000);

		for (int e = 0; e < k; e++) {
			uint32_t id = evs[e].data.u32;
			if (!tv[id].done && !step(ep, id, &tv[id], evs[e].events, buf))
				active--;
		}
	}
	for (int i = 0; i < n; i++) {
		struct tunnel *t = &tv[i];
		if (!t->done) {
			late++;
			t->bad = true;
			close(t->fd);
		}
		if (t->corrupt)
			corrupt++;
		if (t->opened && !t->kill) {
			survivors++;
			if (!t->bad && t->recvd == t->total)
				good++;
			else
				printf("# survivor %d (%s): %s%s%s; sent %llu, received %llu of %llu, %s\n", i,
				       i % 4 == 3 ? "SOCKS5" : "CONNECT", t->why ? t->why : "not finished",
				       t->err ? ": " : "", t->err ? strerror(t->err) : "",
				       (unsigned long long)t->sent, (unsigned long long)t->recvd,
				       (unsigned long long)t->total, t->wshut ? "write side shut" : "write side open");
		}
	}
	ok(late == 0, "every tunnel finished or was killed within 60 s (%d still open, %.1f s)", late,
	   now() - t0);
	ok(good == survivors && survivors > 0,
	   "every surviving tunnel got exactly its own bytes back, then EOF (%d of %d; %d killed mid-transfer)",
	   good, survivors, victims);
	ok(corrupt == 0, "no tunnel, killed or not, ever received a wrong or extra byte (%d did)",
	   corrupt);
	close(ep);
	free(buf);
	free(tv);
}

/* Bytes that start like a TLS record but are no ClientHello: the tunnel
 * is closed before anything reaches the upstream (the echo sends none of
 * it back), the fail-closed side of the server-name check. */
static bool tls_lookalike(void)
{
	uint8_t out[64], in[64];
	int fd = open_tunnel(echo_port, false);
	ssize_t r;

	if (fd < 0)
		return false;
	memset(out, 0xa5, sizeof(out));
	memcpy(out, "\x16\x03\x01\x00\x3b\x02", 6); /* handshake record, type 2 */
	if (netkit_send_all(fd, out, sizeof(out)) < 0) {
		close(fd);
		return true; /* already closed */
	}
	/* EOF or a reset; a timeout (SO_RCVTIMEO, 10 s) would mean the
	 * proxy still holds the tunnel, which is not a close */
	r = recv(fd, in, sizeof(in), 0);
	if (r < 0 && errno != ECONNRESET)
		r = 1;
	close(fd);
	return r <= 0;
}

/* ---- upstream closes mid-transfer ------------------------------------ */

static void upstream_cuts(int rounds, uint32_t max_len)
{
	int clean_fin = 0, fins = 0, bad = 0, hung = 0, refused = 0, total = 0;
	uint8_t *buf = malloc(65536);

	for (int r = 0; r < rounds; r++) {
		for (uint32_t mode = 0; mode < CUT_MODES; mode++) {
			uint8_t hdr[16];
			uint64_t seed = rnd(), got = 0;
			uint32_t len = (uint32_t)(rnd() % max_len);
			int fd = open_tunnel(cut_port, r % 2 == 1);
			bool eof = false, err = false;
			double end = now() + 10;

			/* the header opens the stream: it must not start 16 03
			 * either (see storm()) */
			for (;;) {
				uint8_t first[8];
				memcpy(first, &seed, 8);
				if (first[0] != 0x16 || first[1] != 0x03)
					break;
				seed = rnd();
			}
			total++;
			if (fd < 0) {
				refused++;
				continue;
			}
			memcpy(hdr, &seed, 8);
			memcpy(hdr + 8, &len, 4);
			memcpy(hdr + 12, &mode, 4);
			netkit_send_all(fd, hdr, 16);
			if (mode == CUT_UNREAD) {
				/* bytes the server never reads */
				fill_pat(buf, 4096, seed, 0);
				netkit_send_all(fd, buf, 4096);
			}
			while (now() < end) {
				struct pollfd pf = { fd, POLLIN, 0 };
				ssize_t k;
				if (poll(&pf, 1, 500) <= 0)
					continue;
				k = recv(fd, buf, 65536, 0);
				if (k > 0) {
					if (got + (uint64_t)k > len || !check_pat(buf, (size_t)k, seed, got))
						bad++;
					got += (uint64_t)k;
					continue;
				}
				if (k < 0 && errno == EINTR)
					continue;
				if (k == 0)
					eof = true;
				else
					err = true;
				break;
			}
			if (!eof && !err)
				hung++;
			if (mode == CUT_FIN) {
				fins++;
				if (eof && got == len)
					clean_fin++;
			}
			close(fd);
		}
	}
	ok(refused == 0, "tunnels to the cutting server opened (%d refused of %d)", refused, total);
	ok(bad == 0, "upstream FIN/RST mid-transfer: never a wrong or extra byte (%d bad)", bad);
	ok(hung == 0, "upstream FIN/RST mid-transfer: the client sees the close within 10 s (%d hung)",
	   hung);
	ok(clean_fin == fins, "upstream FIN after N bytes: the client gets all N, then EOF (%d of %d)",
	   clean_fin, fins);
	free(buf);
}

int main(void)
{
	char dir[] = "/tmp/srt-fault.XXXXXX", a[64], cred[300], b64[420];
	const char *e;
	int tunnels = 1000, efd, cfd;
	uint64_t bytes = 131072;
	struct srt__net_config s;
	struct srt__proxy_config cfg;
	struct srt__proxy *proxy = NULL;
	struct srt_diag diag = { "", "", 0 };
	struct rlimit rl;
	struct fdcount base0, base, got;
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if ((e = getenv("FAULT_TUNNELS")) && atoi(e) > 0)
		tunnels = atoi(e);
	if ((e = getenv("FAULT_BYTES")) && atoll(e) > 0)
		bytes = (uint64_t)atoll(e);
	rng_state = (e = getenv("FAULT_SEED")) && strtoull(e, NULL, 0) ? strtoull(e, NULL, 0)
								      : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
	printf("# FAULT_SEED=%llu FAULT_TUNNELS=%d FAULT_BYTES=%llu\n", (unsigned long long)rng_state,
	       tunnels, (unsigned long long)bytes);
	alarm((e = getenv("FAULT_ALARM")) && atoi(e) > 0 ? (unsigned)atoi(e) : 170);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)tunnels * 4 + 200) {
			printf("# RLIMIT_NOFILE %llu is too low for %d tunnels: using %d\n",
			       (unsigned long long)rl.rlim_cur, tunnels, (int)(rl.rlim_cur - 200) / 4);
			tunnels = (int)(rl.rlim_cur - 200) / 4;
		}
	}
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(sock_path, sizeof(sock_path), "%s/proxy.sock", dir);
	efd = netkit_listen_tcp(&echo_port);
	cfd = netkit_listen_tcp(&cut_port);
	if (efd < 0 || cfd < 0) {
		printf("Bail out! cannot listen on 127.0.0.1\n");
		return 1;
	}
	echo_ep = epoll_create1(EPOLL_CLOEXEC);
	pthread_create(&t, NULL, echo_server, &efd);
	pthread_create(&t, NULL, cut_server, &cfd);
	usleep(10000);
	base0 = count_fds();

	snprintf(cred, sizeof(cred), "srt:%s", TOKEN);
	srt__b64_encode((uint8_t *)cred, strlen(cred), b64, sizeof(b64));
	snprintf(auth_line, sizeof(auth_line), "Proxy-Authorization: Basic %s\r\n", b64);
	memset(&s, 0, sizeof(s));
	snprintf(a, sizeof(a), "127.0.0.1:%d", echo_port);
	srt__strv_push(&s.allowed_domains, a);
	snprintf(a, sizeof(a), "127.0.0.1:%d", cut_port);
	srt__strv_push(&s.allowed_domains, a);
	memset(&cfg, 0, sizeof(cfg));
	cfg.net = &s;
	cfg.socket_path = sock_path;
	cfg.token = TOKEN;
	if (srt__proxy_new(&proxy, &cfg, &diag) != 0 || srt__proxy_start(proxy, &diag) != 0) {
		printf("Bail out! proxy: %s\n", diag.message);
		return 1;
	}
	srt__strv_release(&s.allowed_domains);
	ok(fresh_roundtrip(), "proxy serves a tunnel before the faults");
	usleep(50000);
	base = count_fds();
	printf("# descriptors with the proxy idle: %d sockets, %d pipes, %d other\n", base.sockets,
	       base.pipes, base.other);

	ok(tls_lookalike(), "a tunnel whose bytes look like TLS but hold no ClientHello is closed unrelayed");
	storm(tunnels, bytes);
	ok(fresh_roundtrip(), "after the storm a fresh CONNECT is served byte-exact");
	ok(fds_settle(base, 15, &got),
	   "no descriptor leak after the storm: %d/%d sockets, %d/%d other, %d pipes (pool %d)",
	   got.sockets, base.sockets, got.other, base.other, got.pipes, 2 * SRT_PIPE_POOL_MAX);

	upstream_cuts(tunnels >= 1000 ? 25 : 5, 2u << 20);
	ok(fresh_roundtrip(), "after the upstream cuts a fresh CONNECT is served byte-exact");
	ok(fds_settle(base, 15, &got),
	   "no descriptor leak after the upstream cuts: %d/%d sockets, %d/%d other, %d pipes",
	   got.sockets, base.sockets, got.other, base.other, got.pipes);

	srt__proxy_free(proxy);
	got = count_fds();
	ok(got.sockets == base0.sockets && got.pipes == base0.pipes && got.other == base0.other,
	   "the freed proxy leaves no descriptor: %d/%d sockets, %d/%d pipes, %d/%d other",
	   got.sockets, base0.sockets, got.pipes, base0.pipes, got.other, base0.other);
	if (!(got.sockets == base0.sockets && got.pipes == base0.pipes && got.other == base0.other))
		dump_fds();
	ok(access(sock_path, F_OK) != 0, "the proxy socket is removed");
	rmdir(dir);
	return tap_done();
}
