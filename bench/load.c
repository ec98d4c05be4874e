/* Load client for the benchmarks. It speaks HTTP/1.1 either straight to the
 * server or through an HTTP proxy (absolute-form requests with
 * Proxy-Authorization taken from the proxy URL's user:password, as srt puts
 * it in $HTTP_PROXY), and can hold many CONNECT tunnels open.
 *
 *   load seq     -u URL [-x PROXY] [-n 1000] [-w 100]
 *       sequential keep-alive GETs on one connection; p50/p99 latency
 *   load conc    -u URL [-x PROXY] [-c 50] [-d 5]
 *       C connections, each sending the next request as soon as the last
 *       response is in (closed loop); requests/s
 *   load tunnels -t HOST:PORT -x PROXY [-n 1000] [-r READYFILE -g GOFILE]
 *       open N CONNECT tunnels to HOST:PORT (an echo server), write READYFILE,
 *       wait for GOFILE to exist, send one byte through each, check the echo
 *
 * PROXY "env" means $HTTP_PROXY. -U PATH dials that Unix socket instead of
 * the proxy's host:port (the proxy URL still gives the credentials): used
 * to time srt's proxy without the in-sandbox bridge. Output: one JSON
 * object on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct endpoint {
	char host[300];
	char port[16];
	struct sockaddr_storage sa;
	socklen_t salen;
};

static struct endpoint server, proxy;
static int use_proxy;
static const char *unix_path; /* -U: dial this Unix socket instead of the proxy's address */
static char auth_hdr[1500]; /* "Proxy-Authorization: Basic ...\r\n" or "" */
static char path[1024] = "/";
static char request[4096];
static size_t request_len;

/* user+system CPU seconds of this process so far */
static double cpu_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "load: %s\n", what);
	exit(1);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void pct_decode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			*o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static void b64(const unsigned char *in, size_t n, char *out)
{
	static const char t[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		out[o++] = t[in[i] >> 2];
		out[o++] = t[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		out[o++] = t[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
		out[o++] = t[in[i + 2] & 63];
	}
	if (i < n) {
		out[o++] = t[in[i] >> 2];
		if (i + 1 < n) {
			out[o++] = t[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
			out[o++] = t[(in[i + 1] & 15) << 2];
		} else {
			out[o++] = t[(in[i] & 3) << 4];
			out[o++] = '=';
		}
		out[o++] = '=';
	}
	out[o] = '\0';
}

static void resolve(struct endpoint *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(e->host, e->port, &hints, &res) != 0)
		die("cannot resolve host");
	memcpy(&e->sa, res->ai_addr, res->ai_addrlen);
	e->salen = res->ai_addrlen;
	freeaddrinfo(res);
}

/* host[:port] from "scheme://[userinfo@]host[:port][/path]" */
static void parse_url(const char *url, struct endpoint *e, char *userinfo,
		      size_t ucap, int is_proxy)
{
	const char *p = strstr(url, "://"), *at, *slash, *colon;
	char hostport[300];
	size_t n;

	p = p ? p + 3 : url;
	slash = strchr(p, '/');
	if (!slash)
		slash = p + strlen(p);
	at = memchr(p, '@', (size_t)(slash - p));
	if (userinfo)
		userinfo[0] = '\0';
	if (at) {
		n = (size_t)(at - p);
		if (userinfo && n < ucap) {
			memcpy(userinfo, p, n);
			userinfo[n] = '\0';
		}
		p = at + 1;
	}
	n = (size_t)(slash - p);
	if (n >= sizeof(hostport))
		die("url too long");
	memcpy(hostport, p, n);
	hostport[n] = '\0';
	if (hostport[0] == '[') {
		char *rb = strchr(hostport, ']');
		if (!rb)
			die("bad url");
		*rb = '\0';
		snprintf(e->host, sizeof(e->host), "%s", hostport + 1);
		colon = rb[1] == ':' ? rb + 1 : NULL;
	} else {
		colon = strrchr(hostport, ':');
		if (colon)
			*(char *)colon = '\0';
		snprintf(e->host, sizeof(e->host), "%s", hostport);
	}
	snprintf(e->port, sizeof(e->port), "%s", colon ? colon + 1 : (is_proxy ? "3128" : "80"));
	if (!is_proxy && *slash)
		snprintf(path, sizeof(path), "%s", slash);
}

static void setup_proxy(const char *px)
{
	char ui[512], raw[1030];

	if (!px)
		return;
	if (!strcmp(px, "env")) {
		px = getenv("HTTP_PROXY");
		if (!px)
			px = getenv("http_proxy");
		if (!px)
			die("-x env but no HTTP_PROXY");
	}
	use_proxy = 1;
	parse_url(px, &proxy, ui, sizeof(ui), 1);
	resolve(&proxy);
	auth_hdr[0] = '\0';
	if (ui[0]) {
		char *colon = strchr(ui, ':');
		char enc[1400];
		if (colon) {
			*colon = '\0';
			pct_decode(ui);
			pct_decode(colon + 1);
			snprintf(raw, sizeof(raw), "%s:%s", ui, colon + 1);
		} else {
			pct_decode(ui);
			snprintf(raw, sizeof(raw), "%s:", ui);
		}
		b64((const unsigned char *)raw, strlen(raw), enc);
		snprintf(auth_hdr, sizeof(auth_hdr), "Proxy-Authorization: Basic %s\r\n", enc);
	}
}

static void build_request(void)
{
	if (use_proxy)
		request_len = (size_t)snprintf(request, sizeof(request),
			"GET http://%s:%s%s HTTP/1.1\r\nHost: %s:%s\r\n%sUser-Agent: srt-bench\r\n\r\n",
			server.host, server.port, path, server.host, server.port, auth_hdr);
	else
		request_len = (size_t)snprintf(request, sizeof(request),
			"GET %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: srt-bench\r\n\r\n",
			path, server.host, server.port);
}

static int dial(int nonblock)
{
	const struct endpoint *e = use_proxy ? &proxy : &server;
	int fd, one = 1;

	if (unix_path && use_proxy) {
		struct sockaddr_un un = { .sun_family = AF_UNIX };
		if (strlen(unix_path) >= sizeof(un.sun_path))
			return -1;
		strcpy(un.sun_path, unix_path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (const struct sockaddr *)&un, sizeof(un)) < 0 && errno != EINPROGRESS) {
			close(fd);
			return -1;
		}
		return fd;
	}
	fd = socket(e->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)&e->sa, e->salen) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Incremental response parser: returns bytes consumed by a complete
 * response at the start of buf (0 = incomplete, -1 = bad), sets *close. */
static long response_len(const char *buf, size_t n, int *close_conn)
{
	const char *end = memmem(buf, n, "\r\n\r\n", 4), *p;
	long long cl = -1;

	if (!end)
		return n > 65536 ? -1 : 0;
	if (n < 12 || strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 9, "200", 3))
		return -1;
	*close_conn = 0;
	for (p = buf; p < end; p++) {
		if (*p != '\n')
			continue;
		if (!strncasecmp(p + 1, "content-length:", 15))
			cl = strtoll(p + 16, NULL, 10);
		else if (!strncasecmp(p + 1, "connection:", 11)) {
			const char *v = p + 12;
			while (*v == ' ')
				v++;
			if (!strncasecmp(v, "close", 5))
				*close_conn = 1;
		}
	}
	if (cl < 0)
		return -1;
	if ((size_t)(end - buf) + 4 + (size_t)cl > n)
		return 0;
	return (long)((end - buf) + 4 + cl);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- seq ---- */
static int run_seq(int n, int warm)
{
	double *lat = calloc((size_t)n, sizeof(double));
	char buf[70000];
	int fd = -1, reconnects = -1;

	if (!lat)
		die("out of memory");
	for (int i = -warm; i < n; i++) {
		size_t have = 0;
		long len = 0;
		int cl = 0;
		double t0;

		if (fd < 0) {
			fd = dial(0);
			if (fd < 0)
				die("connect failed");
			reconnects++;
		}
		t0 = now();
		if (send(fd, request, request_len, MSG_NOSIGNAL) != (ssize_t)request_len)
			die("send failed");
		while ((len = response_len(buf, have, &cl)) == 0) {
			ssize_t r = recv(fd, buf + have, sizeof(buf) - have, 0);
			if (r <= 0)
				die("connection closed mid-response");
			have += (size_t)r;
		}
		if (len < 0)
			die("bad response");
		if (i >= 0)
			lat[i] = (now() - t0) * 1e3;
		if (cl) {
			close(fd);
			fd = -1;
		}
	}
	qsort(lat, (size_t)n, sizeof(double), cmp_double);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += lat[i];
	int i99 = (int)((double)n * 0.99 + 0.999999) - 1;
	printf("{\"requests\": %d, \"p50_ms\": %.4f, \"p99_ms\": %.4f, \"mean_ms\": %.4f, "
	       "\"min_ms\": %.4f, \"max_ms\": %.4f, \"reconnects\": %d, \"cpu_s\": %.3f}\n",
	       n, lat[n / 2], lat[i99 < 0 ? 0 : i99], sum / n, lat[0], lat[n - 1], reconnects,
	       cpu_self());
	return 0;
}

/* ---- conc ---- */
struct cconn {
	int fd;
	int connected;
	size_t have;
	char buf[4096];
};

static int cconn_open(int ep, struct cconn *c)
{
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLIN, .data.ptr = c };

	c->fd = dial(1);
	c->connected = 0;
	c->have = 0;
	if (c->fd < 0)
		return -1;
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	return 0;
}

static int run_conc(int nconn, double secs)
{
	struct cconn *cs = calloc((size_t)nconn, sizeof(*cs));
	struct epoll_event evs[512];
	long long done = 0, errors = 0, reconnects = 0;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	double t0, deadline;

	double cpu0 = cpu_self();

	if (!cs)
		die("out of memory");
	for (int i = 0; i < nconn; i++)
		if (cconn_open(ep, &cs[i]) < 0)
			die("connect failed");
	t0 = now();
	deadline = t0 + secs;
	while (now() < deadline) {
		int n = epoll_wait(ep, evs, 512, 100);
		for (int i = 0; i < n; i++) {
			struct cconn *c = evs[i].data.ptr;
			if (!c->connected) {
				int err = 0;
				socklen_t el = sizeof(err);
				struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
				getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err)
					goto broken;
				c->connected = 1;
				epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
				if (send(c->fd, request, request_len, MSG_NOSIGNAL) != (ssize_t)request_len)
					goto broken;
				continue;
			}
			for (;;) {
				ssize_t r = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, 0);
				long len;
				int cl = 0;
				if (r < 0 && errno == EAGAIN)
					break;
				if (r <= 0)
					goto broken;
				c->have += (size_t)r;
				len = response_len(c->buf, c->have, &cl);
				if (len < 0)
					goto broken;
				if (len == 0)
					continue;
				done++;
				memmove(c->buf, c->buf + len, c->have - (size_t)len);
				c->have -= (size_t)len;
				if (cl) {
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
					close(c->fd);
					reconnects++;
					if (cconn_open(ep, c) < 0)
						die("reconnect failed");
					break;
				}
				if (send(c->fd, request, request_len, MSG_NOSIGNAL) != (ssize_t)request_len)
					goto broken;
				break;
			}
			continue;
broken:
			errors++;
			epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
			close(c->fd);
			if (errors > 1000)
				die("too many errors");
			if (cconn_open(ep, c) < 0)
				die("reconnect failed");
		}
	}
	double el = now() - t0;
	printf("{\"connections\": %d, \"seconds\": %.3f, \"requests\": %lld, \"rps\": %.1f, "
	       "\"errors\": %lld, \"reconnects\": %lld, \"cpu_s\": %.3f}\n",
	       nconn, el, done, (double)done / el, errors, reconnects, cpu_self() - cpu0);
	return 0;
}

/* ---- tunnels ---- */
struct tun {
	int fd;
	int state; /* 0 connecting, 1 sent CONNECT, 2 open, 3 failed, 4 echoed */
	size_t have;
	char buf[256];
};

static int run_tunnels(const char *target, int n, const char *ready, const char *go)
{
	struct tun *ts = calloc((size_t)n, sizeof(*ts));
	struct epoll_event evs[512];
	char req[2048];
	int ep = epoll_create1(EPOLL_CLOEXEC), next = 0, pending = 0, opened = 0, failed = 0;
	int echoed = 0;
	const int max_pending = 200;
	size_t reqlen;
	double t0 = now(), topen, deadline;

	if (!ts)
		die("out of memory");
	reqlen = (size_t)snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n",
				  target, target, auth_hdr);
	deadline = t0 + 120;
	while ((opened + failed < n) && now() < deadline) {
		while (next < n && pending < max_pending) {
			struct tun *t = &ts[next++];
			struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = t };
			t->fd = dial(1);
			if (t->fd < 0) {
				t->state = 3;
				failed++;
				continue;
			}
			epoll_ctl(ep, EPOLL_CTL_ADD, t->fd, &ev);
			pending++;
		}
		int k = epoll_wait(ep, evs, 512, 1000);
		for (int i = 0; i < k; i++) {
			struct tun *t = evs[i].data.ptr;
			if (t->state == 0) {
				int err = 0;
				socklen_t el = sizeof(err);
				struct epoll_event ev = { .events = EPOLLIN, .data.ptr = t };
				getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err)
					goto fail;
				if (!use_proxy) {
					t->state = 2;
					epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
					pending--;
					opened++;
					continue;
				}
				if (send(t->fd, req, reqlen, MSG_NOSIGNAL) != (ssize_t)reqlen)
					goto fail;
				t->state = 1;
				epoll_ctl(ep, EPOLL_CTL_MOD, t->fd, &ev);
				continue;
			}
			if (t->state == 1) {
				/* read byte-wise up to the blank line, leaving the tunnel clean */
				for (;;) {
					ssize_t r = recv(t->fd, t->buf + t->have, 1, 0);
					if (r < 0 && errno == EAGAIN)
						break;
					if (r <= 0)
						goto fail;
					t->have++;
					if (t->have >= 4 && !memcmp(t->buf + t->have - 4, "\r\n\r\n", 4)) {
						if (strncmp(t->buf + 8, " 200", 4))
							goto fail;
						t->state = 2;
						epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
						pending--;
						opened++;
						break;
					}
					if (t->have >= sizeof(t->buf) - 1)
						goto fail;
				}
				continue;
			}
			continue;
fail:
			t->state = 3;
			epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
			close(t->fd);
			pending--;
			failed++;
		}
	}
	topen = now() - t0;
	if (ready) {
		char tmp[4096];
		FILE *f;
		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		if (!f)
			die("cannot write the ready file");
		fprintf(f, "%d %d\n", opened, failed);
		fclose(f);
		rename(tmp, ready);
	}
	if (go) {
		struct stat st;
		double gdl = now() + 300;
		while (stat(go, &st) != 0 && now() < gdl)
			usleep(10000);
	}
	/* one byte through each open tunnel, then collect the echoes */
	for (int i = 0; i < n; i++) {
		struct tun *t = &ts[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = t };
		if (t->state != 2)
			continue;
		if (send(t->fd, "x", 1, MSG_NOSIGNAL) != 1) {
			t->state = 3;
			continue;
		}
		epoll_ctl(ep, EPOLL_CTL_ADD, t->fd, &ev);
	}
	deadline = now() + 60;
	while (echoed < opened && now() < deadline) {
		int k = epoll_wait(ep, evs, 512, 1000);
		for (int i = 0; i < k; i++) {
			struct tun *t = evs[i].data.ptr;
			char ch;
			ssize_t r = recv(t->fd, &ch, 1, 0);
			if (r < 0 && errno == EAGAIN)
				continue;
			epoll_ctl(ep, EPOLL_CTL_DEL, t->fd, NULL);
			if (r == 1 && ch == 'x' && t->state == 2) {
				t->state = 4;
				echoed++;
			} else {
				t->state = 3;
			}
		}
	}
	printf("{\"tunnels\": %d, \"opened\": %d, \"failed\": %d, \"echoed\": %d, \"open_seconds\": %.3f}\n",
	       n, opened, failed, echoed, topen);
	for (int i = 0; i < n; i++)
		if (ts[i].state != 3 && ts[i].fd > 0)
			close(ts[i].fd);
	return echoed == n ? 0 : 3;
}

int main(int argc, char **argv)
{
	const char *url = NULL, *px = NULL, *target = NULL, *ready = NULL, *go = NULL, *mode;
	int n = -1, warm = 100, conns = 50, opt;
	double secs = 5;
	struct rlimit rl;

	if (argc < 2)
		die("usage: load seq|conc|tunnels [options]");
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "u:x:n:w:c:d:t:r:g:U:")) != -1) {
		switch (opt) {
		case 'U': unix_path = optarg; break;
		case 'u': url = optarg; break;
		case 'x': px = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'c': conns = atoi(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 't': target = optarg; break;
		case 'r': ready = optarg; break;
		case 'g': go = optarg; break;
		default: die("bad option");
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setup_proxy(px);
	if (!strcmp(mode, "tunnels")) {
		if (!target)
			die("tunnels needs -t HOST:PORT");
		if (!use_proxy) {
			parse_url(target, &server, NULL, 0, 0);
			resolve(&server);
		}
		return run_tunnels(target, n > 0 ? n : 1000, ready, go);
	}
	if (!url)
		die("-u URL needed");
	parse_url(url, &server, NULL, 0, 0);
	if (!use_proxy)
		resolve(&server);
	build_request();
	if (!strcmp(mode, "seq"))
		return run_seq(n > 0 ? n : 1000, warm);
	if (!strcmp(mode, "conc"))
		return run_conc(conns, secs);
	die("unknown mode");
	return 2;
}
