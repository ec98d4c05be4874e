/* `srt proxy`: the filtering proxy alone, without a sandbox, for other
 * sandboxes and containers. An external decider (proxies/decider.h) gives
 * the domain lists in its hello and a verdict for every request, through
 * the request-filter chain. Fixed policy: opaque tunnels refused (with
 * the CA of --ca-fd, a CONNECT carrying TLS is terminated and each request
 * inside is asked about; any other CONNECT is refused), the Host header
 * must match the target, resolved names may not reach the private ranges,
 * no proxy authentication (whoever reaches the listening socket is a
 * client: it is loopback-only unless the caller says otherwise).
 *
 * The proxy serves the TCP listener itself (--listen's, or --listen-fd's),
 * on every system: a client of it is never the sandbox's bridge, so it
 * cannot hand sockets over. This thread only waits for a reason to stop
 * (a signal, the lifeline's end, the decider's death). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <srt/srt.h>

#include "common/platform.h"
#include "common/strv.h"
#include "proxies/decider-filter.h"
#include "proxies/filter-chain.h"
#include "proxies/net-config.h"
#include "proxies/proxy.h"

/* The ranges a resolved name may not reach in this mode. */
static const char *const private_ranges[] = {
	"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
};

struct serve {
	const struct srt_proxy_options *o;
	const struct srt__tls_module *tls; /* --ca-fd: termination, else NULL */
	struct srt__tls_ctx *tls_ctx;
	struct srt__dfilter *df;
	struct srt__filter_chain *chain;
	struct srt__proxy *proxy;
	int lfd, sigfd, life, deadpipe[2];
	char dead_why[256];
	struct srt__strv allowed, denied;
};

/* The decider filter built before the chain takes it: the chain creates
 * its filters through create(), so create() adopts this one. */
static pthread_mutex_t handover_lock = PTHREAD_MUTEX_INITIALIZER;
static struct srt__dfilter *handover;

static int adopt_create(const struct srt_filter_host *host, const char *config_json,
			void **state, struct srt_filter_error *err)
{
	(void)host;
	(void)config_json;
	pthread_mutex_lock(&handover_lock);
	*state = handover;
	handover = NULL;
	pthread_mutex_unlock(&handover_lock);
	if (*state)
		return SRT_OK;
	snprintf(err->message, sizeof(err->message), "no decider to adopt");
	return SRT_E_STATE;
}

static const struct srt_filter decider_vt = {
	.hdr = { SRT_FILTER_MAGIC, SRT_FILTER_ABI_MAJOR, SRT_FILTER_ABI_MINOR,
		 sizeof(struct srt_filter), "decider" },
	.create = adopt_create,
	.destroy = srt__dfilter_destroy,
	.request_head = srt__dfilter_request_head,
	.request_body = srt__dfilter_request_body,
	.finish = srt__dfilter_finish,
	.cancel = srt__dfilter_cancel,
	.completed = srt__dfilter_completed,
};

int srt__proxy_start_failed(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(why, cap, "start failed: ");

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < cap)
		vsnprintf(why + n, cap - (size_t)n, fmt, ap);
	va_end(ap);
	return 1;
}


static void on_dead(void *ctx, const char *why)
{
	struct serve *s = ctx;
	ssize_t r;

	snprintf(s->dead_why, sizeof(s->dead_why), "%s", why);
	r = srt__os_send(s->deadpipe[1], "x", 1);
	(void)r;
}

static void chain_log(void *ctx, int is_debug, const char *line)
{
	const struct srt_proxy_options *o = ctx;

	if (!is_debug || o->debug)
		fprintf(stderr, "srt proxy: %s\n", line);
}

/* --listen host:port ("[v6]:port" too), bound and listening. */
static int bind_listen(const char *spec, int *out, char *where, size_t wcap, char *why,
		       size_t cap)
{
	char host[256];
	const char *colon, *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV },
			*ai = NULL;
	int fd, rc;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host))
			return srt__proxy_start_failed(why, cap, "--listen \"%s\": not host:port", spec);
		snprintf(host, sizeof(host), "%.*s", (int)(rb - spec - 1), spec + 1);
		port = rb + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || (size_t)(colon - spec) >= sizeof(host))
			return srt__proxy_start_failed(why, cap, "--listen \"%s\": not host:port", spec);
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = colon + 1;
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return srt__proxy_start_failed(why, cap, "--listen \"%s\": %s", spec, gai_strerror(rc));
	fd = srt__os_listen(ai->ai_addr, (socklen_t)ai->ai_addrlen, 1024);
	if (fd < 0) {
		int e = errno;
		freeaddrinfo(ai);
		return srt__proxy_start_failed(why, cap, "--listen \"%s\": %s", spec, strerror(e));
	}
	freeaddrinfo(ai);
	{
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);
		char a[INET6_ADDRSTRLEN] = "?";
		int p = 0;
		getsockname(fd, (struct sockaddr *)&ss, &l);
		if (ss.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a));
			p = ntohs(((struct sockaddr_in *)&ss)->sin_port);
			snprintf(where, wcap, "%s:%d", a, p);
		} else {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
			p = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
			snprintf(where, wcap, "[%s]:%d", a, p);
		}
	}
	*out = fd;
	return 0;
}

int srt__proxy_listen_range(int lo, int hi, const char *key, int *port, struct srt_diag *diag)
{
	struct sockaddr_in sa;
	int p, e = 0;

	if (lo < 1 || hi > 65535 || lo > hi) {
		srt_diag_set(diag, SRT_E_INVAL, key, "%s: [%d, %d] is not a port range", key, lo, hi);
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (p = lo; p <= hi; p++) {
		int fd;

		sa.sin_port = htons((unsigned short)p);
		fd = srt__os_listen((const struct sockaddr *)&sa, sizeof(sa), 1024);
		if (fd >= 0) {
			*port = p;
			return fd;
		}
		e = errno; /* said as "in use" below: Windows' C library has no text for it */
	}
	srt_diag_set(diag, SRT_E_UNAVAILABLE, key,
		     "proxy: no free port in %s %d-%d on 127.0.0.1 (port %d: %s); end what holds them, or set %s to another range the sandbox's network rules permit",
		     key, lo, hi, hi, e == EADDRINUSE ? "in use" : strerror(e), key);
	return -1;
}

static int check_listen_fd(int fd, char *why, size_t cap)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) < 0 || !v)
		return srt__proxy_start_failed(why, cap, "--listen-fd %d is not a listening socket", fd);
	if (srt__os_set_nonblock(fd) < 0)
		return srt__proxy_start_failed(why, cap, "--listen-fd %d: %s", fd, strerror(errno));
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* A stop asked for while waiting (a signal, the lifeline's end)? */
static const char *stop_asked(struct serve *s, int timeout_ms)
{
	struct pollfd pf[2] = { { .fd = s->sigfd, .events = POLLIN },
				{ .fd = s->life, .events = POLLIN } };
	static char why[64];

	/* no lifeline: not watched (Windows' poll takes sockets only) */
	if (poll(pf, s->life >= 0 ? 2 : 1, timeout_ms) <= 0)
		return NULL;
	if (pf[0].revents & POLLIN) {
		int sig = srt__os_signal_read(s->sigfd);
		if (sig > 0) {
			snprintf(why, sizeof(why), "%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
			return why;
		}
	}
	if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
		char b[256];
		ssize_t r = srt__os_read(s->life, b, sizeof(b));
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return "lifeline closed";
	}
	return NULL;
}

static int start_decider(struct serve *s, char *why, size_t cap)
{
	struct srt__dfilter_config dc;
	char w[256];

	memset(&dc, 0, sizeof(dc));
	/* pipes are relayed through a socket where poll needs one (Windows) */
	if (srt__os_pollable(s->o->decider_in,
			     s->o->decider_out == s->o->decider_in ? -1 : s->o->decider_out,
			     &dc.in_fd, &dc.out_fd) < 0)
		return srt__proxy_start_failed(why, cap, "cannot read the decider's descriptors: %s",
					       strerror(errno));
	if (dc.out_fd < 0)
		dc.out_fd = dc.in_fd;
	dc.plaintext_header_set = s->o->plaintext_header_set != 0;
	dc.dead = on_dead;
	dc.dead_ctx = s;
	if (srt__dfilter_start(&dc, &s->df, w, sizeof(w)) != SRT_OK)
		return srt__proxy_start_failed(why, cap, "%s", w);
	return 0;
}

/* The decider's hello, however long it takes, unless told to stop. */
static int wait_hello(struct serve *s, char *why, size_t cap)
{
	char w[300];

	for (;;) {
		const char *stop;
		if (srt__dfilter_wait_hello(s->df, 200, &s->allowed, &s->denied, w, sizeof(w)) == SRT_OK)
			return 0;
		if (strstr(w, "died"))
			return srt__proxy_start_failed(why, cap, "%s", w);
		stop = stop_asked(s, 0);
		if (stop)
			return srt__proxy_start_failed(why, cap, "%s before the decider's hello", stop);
	}
}

static int start_proxy(struct serve *s, char *why, size_t cap)
{
	struct srt__net_config net;
	struct srt__proxy_config pc;
	struct srt_filter_error ferr;
	struct srt_diag diag;
	char *ranges[sizeof(private_ranges) / sizeof(private_ranges[0]) + 1];
	size_t i;

#ifndef SRT__PROXY_RUNS_FILTERS
#error "srt proxy needs a proxy that puts every request to net.filters"
#endif
	if (srt__filter_chain_new(0, chain_log, (void *)s->o, &s->chain) != SRT_OK)
		return srt__proxy_start_failed(why, cap, "cannot make the filter chain");
	pthread_mutex_lock(&handover_lock);
	handover = s->df;
	pthread_mutex_unlock(&handover_lock);
	memset(&ferr, 0, sizeof(ferr));
	if (srt__filter_chain_add(s->chain, &decider_vt, "decider", NULL, &ferr) != SRT_OK)
		return srt__proxy_start_failed(why, cap, "the decider filter: %s", ferr.message);
	s->df = NULL; /* the chain's now */
	for (i = 0; i < sizeof(private_ranges) / sizeof(private_ranges[0]); i++)
		ranges[i] = (char *)private_ranges[i];
	ranges[i] = NULL;
	memset(&net, 0, sizeof(net));
	net.allowed_domains = s->allowed;
	net.denied_domains = s->denied;
	net.denied_resolved_addresses.v = ranges;
	net.denied_resolved_addresses.n = i;
	net.strip_response_headers.v = (char **)s->o->strip_response_headers;
	net.strip_response_headers.n = s->o->nstrip_response_headers;
	net.refuse_opaque_tunnels = true;
	net.require_host_match = true;
	net.filters = s->chain;
	memset(&pc, 0, sizeof(pc));
	pc.net = &net;
	pc.tcp_listener = s->lfd;
	s->lfd = -1; /* the proxy's now */
	pc.debug = s->o->debug;
	pc.tls = s->tls;
	pc.tls_ctx = s->tls_ctx;
	memset(&diag, 0, sizeof(diag));
	if (srt__proxy_new(&s->proxy, &pc, &diag) != SRT_OK ||
	    srt__proxy_start(s->proxy, &diag) != SRT_OK)
		return srt__proxy_start_failed(why, cap, "%s", diag.message);
	return 0;
}

/* After the decider died: how long the proxy goes on serving before it
 * stops, so the requests that were waiting for a verdict get their 503
 * (the dead filter answers at once) instead of a closed connection. */
#define DEAD_GRACE_MS 1000

static const char *serve_loop(struct serve *s)
{
	static char why[300];
	struct timespec dead_at = { 0, 0 };

	for (;;) {
		struct pollfd pf[3] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = s->deadpipe[0], .events = POLLIN },
			{ .fd = s->life, .events = POLLIN },
		};
		const char *stop;
		int wait_ms = -1;
		nfds_t n = s->life >= 0 ? 3 : 2;

		if (dead_at.tv_sec) {
			struct timespec now;
			long gone;

			clock_gettime(CLOCK_MONOTONIC, &now);
			gone = (now.tv_sec - dead_at.tv_sec) * 1000 +
			       (now.tv_nsec - dead_at.tv_nsec) / 1000000;
			if (gone >= DEAD_GRACE_MS)
				return why;
			wait_ms = (int)(DEAD_GRACE_MS - gone);
		}
		if (poll(pf, n, wait_ms) < 0 && errno != EINTR)
			return "poll failed";
		if (pf[1].revents & POLLIN) {
			char b[8];

			/* told once: the byte is taken */
			while (srt__os_recv(s->deadpipe[0], b, sizeof(b), 0) > 0)
				;
			if (dead_at.tv_sec)
				continue;
			snprintf(why, sizeof(why), "decider: %s", s->dead_why);
			clock_gettime(CLOCK_MONOTONIC, &dead_at);
			if (!dead_at.tv_sec)
				dead_at.tv_sec = 1;
			continue;
		}
		if ((pf[0].revents | pf[2].revents) && (stop = stop_asked(s, 0)))
			return stop;
	}
}

static void cleanup(struct serve *s)
{
	if (s->lfd >= 0)
		srt__os_sock_close(s->lfd);
	srt__proxy_free(s->proxy);
	srt__filter_chain_free(s->chain);
	srt__dfilter_destroy(s->df);
	if (s->sigfd >= 0)
		srt__os_sock_close(s->sigfd);
	if (s->life >= 0)
		srt__os_sock_close(s->life);
	if (s->deadpipe[0] >= 0) {
		srt__os_sock_close(s->deadpipe[0]);
		srt__os_sock_close(s->deadpipe[1]);
	}
	srt__strv_release(&s->allowed);
	srt__strv_release(&s->denied);
}

int srt__proxy_only_serve(const struct srt_proxy_options *o, const struct srt__tls_module *tls,
			  struct srt__tls_ctx *tls_ctx, char *why, size_t cap)
{
	struct serve s;
	sigset_t set;
	char where[128];
	int rc;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.tls = tls;
	s.tls_ctx = tls_ctx;
	s.lfd = s.life = s.deadpipe[0] = s.deadpipe[1] = -1;
	if (o->listen_fd >= 0 && check_listen_fd(o->listen_fd, why, cap))
		return 1;
	/* blocked before any thread exists, so only the signal descriptor
	 * takes them */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	s.sigfd = srt__os_signal_fd(&set);
	/* a socket pair: poll on Windows watches sockets only */
	if (s.sigfd < 0 || srt__os_socketpair(s.deadpipe) < 0) {
		rc = srt__proxy_start_failed(why, cap, "cannot watch signals: %s", strerror(errno));
		goto out;
	}
	if (o->lifeline_fd >= 0 && srt__os_pollable(o->lifeline_fd, -1, &s.life, NULL) < 0) {
		s.life = -1;
		rc = srt__proxy_start_failed(why, cap, "cannot watch the lifeline: %s", strerror(errno));
		goto out;
	}
	rc = start_decider(&s, why, cap);
	if (!rc)
		rc = wait_hello(&s, why, cap);
	/* listening only once the decider said hello: a client never
	 * reaches a proxy that has no lists yet */
	if (!rc && o->listen_fd >= 0) {
		s.lfd = o->listen_fd;
		snprintf(where, sizeof(where), "fd %d", o->listen_fd);
	} else if (!rc)
		rc = bind_listen(o->listen, &s.lfd, where, sizeof(where), why, cap);
	if (!rc)
		rc = start_proxy(&s, why, cap);
	if (!rc) {
		fprintf(stderr, "srt proxy: serving %s\n", where);
		snprintf(why, cap, "%s", serve_loop(&s));
	}
out:
	cleanup(&s);
	return rc ? 1 : 0;
}
