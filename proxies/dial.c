/* The way to an allowed target: the route (direct, parent or mitm proxy),
 * the lookup, the addresses the guard lets through, connecting, and the
 * CONNECT handshake with an upstream proxy. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/platform.h"
#include "proxies/conn.h"
#include "proxies/filter-chain.h"
#include "proxies/socks.h"

static void start_connect(struct srt__conn *c);
static void connect_unix(struct srt__conn *c);
static void established(struct srt__conn *c);

static void refresh_local(struct srt__proxy *p)
{
	int64_t t = srt__now_ms();
	struct srt__ip *v;
	size_t n;

	if (p->local && t - p->local_at < 5000)
		return;
	if (srt__guard_local_addrs(&v, &n) < 0)
		return; /* keep the previous list */
	free(p->local);
	p->local = v;
	p->nlocal = n;
	p->local_at = t;
}

/* Pick the way out for an allowed target; fills c->via for upstream
 * proxies. Returns -1 on allocation failure. */
int srt__choose_route(struct srt__conn *c, bool plain)
{
	struct srt__upstream via;

	free(c->via);
	c->via = NULL;
	pthread_mutex_lock(&c->p->lock);
	c->route = srt__route_for(&c->p->rules->routes, c->canon, c->port, plain, &via);
	pthread_mutex_unlock(&c->p->lock);
	if (c->route == SRT_ROUTE_DIRECT)
		return 0;
	c->via = malloc(sizeof(*c->via));
	if (!c->via)
		return -1;
	*c->via = via;
	return 0;
}

/* Keep the answers the guard allows, in order; refuse when none is left. */
static void addresses_ready(struct srt__conn *c, const struct srt__ip *a, size_t n)
{
	unsigned classes = 0;
	size_t k = 0;
	char reason[512];

	const struct srt__cmd_list *l;
	bool named;

	refresh_local(c->p);
	pthread_mutex_lock(&c->p->lock);
	c->q_gen = atomic_load(&c->p->gen); /* the rules this guard applies */
	for (l = c->key ? c->p->cmds : NULL; l && strcmp(l->key, c->key); l = l->next)
		;
	named = srt__net_rules_named(c->p->rules, c->canon, c->port, l ? l->v : NULL,
				     l ? l->n : 0);
	for (size_t i = 0; i < n; i++) {
		/* the parent proxy's own address is configuration, not a
		 * destination: the guard is for targets dialled directly */
		unsigned cl = c->via || c->kind == SRT_K_RAW ? 0 :
			      srt__guard_check(c->p->rules, c->canon, c->port, &a[i],
					       c->p->local, c->p->nlocal, named);
		if (cl)
			classes |= cl;
		else if (k < SRT_MAX_ADDRS)
			c->addrs[k++] = a[i];
	}
	pthread_mutex_unlock(&c->p->lock);
	if (n == 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: %s: no address\n", c->canon);
		srt__bad_gateway(c);
		return;
	}
	if (k == 0) {
		srt__guard_reason(classes, reason, sizeof(reason));
		srt__deny_address(c, reason);
		return;
	}
	c->naddrs = k;
	c->next_addr = 0;
	start_connect(c);
}

static void dns_done(void *arg, int status, const struct srt__ip *a, size_t n)
{
	struct srt__conn *c = arg;

	c->q = NULL;
	if (status != 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: %s: lookup failed\n", c->canon);
		srt__bad_gateway(c);
	} else {
		addresses_ready(c, a, n);
	}
	if (!c->dead)
		srt__conn_run(c);
}

void srt__dial(struct srt__conn *c)
{
	struct srt__ip ip;
	const char *name = c->via ? c->via->host : c->canon;

	c->phase = SRT_PH_RESOLVE;
	srt__timed_set(c, SRT_CONNECT_MS);
	c->q_gen = atomic_load(&c->p->gen); /* routes without the guard too */
	c->dial_port = c->via ? c->via->port : c->port;
	if (c->via && c->via->is_unix) {
		connect_unix(c);
		return;
	}
	if (srt__ip_parse(name, &ip) == 0) {
		/* an IP literal skips DNS, never the guard */
		addresses_ready(c, &ip, 1);
		return;
	}
	if (c->p->debug)
		fprintf(stderr, "srt-proxy: resolving %s\n", name);
	c->q = srt__dns_lookup(c->p->dns, name, dns_done, c);
	if (!c->q)
		srt__bad_gateway(c);
}

static void connected(struct srt__conn *c)
{
	snprintf(c->up_canon, sizeof(c->up_canon), "%s", c->canon);
	c->up_port = c->port;
	c->up_route = c->route;
	c->up_gen = c->q_gen;
	srt__timed_clear(c);
	if (c->via && c->kind != SRT_K_HTTP_PLAIN) {
		/* ask the parent or mitm proxy for the tunnel first */
		char req[1200];
		bool v6 = strchr(c->canon, ':') != NULL;
		int n = snprintf(req, sizeof(req),
				 "CONNECT %s%s%s:%d HTTP/1.1\r\nHost: %s%s%s:%d\r\n%s%s%s\r\n",
				 v6 ? "[" : "", c->canon, v6 ? "]" : "", c->port, v6 ? "[" : "",
				 c->canon, v6 ? "]" : "", c->port,
				 *c->via->auth ? "Proxy-Authorization: " : "", c->via->auth,
				 *c->via->auth ? "\r\n" : "");
		if (n < 0 || (size_t)n >= sizeof(req) || srt__buf_add(&c->uout, req, (size_t)n) < 0) {
			srt__conn_close(c);
			return;
		}
		c->phase = SRT_PH_PROXY_HS;
		srt__timed_set(c, SRT_CONNECT_MS);
		return;
	}
	established(c);
}

/* The upstream proxy's answer to our CONNECT: 2xx opens the tunnel. */
void srt__proxy_handshake(struct srt__conn *c)
{
	struct srt__http_head *h;
	int rc = srt__io_flush(c->uio, &c->uout, &c->uout_off), len;

	if (rc < 0) {
		srt__bad_gateway(c);
		return;
	}
	if (rc == 0)
		return;
	h = &c->p->head;
	len = srt__io_read_head(c->uio, &c->us, &c->uin, 16 * 1024, srt__http_parse_response, h);
	if (len == SRT_HEAD_AGAIN)
		return;
	if (len == SRT_HEAD_CLOSED)
		len = SRT_HTTP_BAD;
	if (len < 0 || h->status < 200 || h->status > 299) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: upstream proxy refused %s:%d (%d)\n", c->canon,
				c->port, len < 0 ? 0 : h->status);
		srt__bad_gateway(c);
		return;
	}
	srt__buf_consume(&c->uin, (size_t)len);
	srt__timed_clear(c);
	established(c);
}

static void established(struct srt__conn *c)
{
	static const char est[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
	uint8_t r[10];

	switch (c->kind) {
	case SRT_K_RAW:
	case SRT_K_HTTP_CONNECT:
	case SRT_K_SOCKS:
		if (c->kind == SRT_K_RAW) {
			/* the external proxy answers the client itself */
		} else if (c->answered) {
			/* srt__tunnel_open told the client already; from here on
			 * (a terminated tunnel's requests) refusals are answered
			 * in the client's protocol again */
			c->answered = false;
			c->icept_pending = false;
		} else if (c->kind == SRT_K_SOCKS) {
			srt__socks_reply(r, 0);
			if (srt__buf_add(&c->cout, r, sizeof(r)) < 0)
				goto fail;
		} else if (c->icept_pending) {
			c->icept_pending = false; /* its client sent no CONNECT */
		} else if (srt__buf_add(&c->cout, est, sizeof(est) - 1) < 0) {
			goto fail;
		}
		/* bytes an upstream proxy sent after its answer go to the
		 * client; the client's own bytes wait for the SNI check (the
		 * external proxy of SRT_K_RAW does its own checking) */
		if (c->uin.len && srt__buf_add(&c->cout, c->uin.p, c->uin.len) < 0)
			goto fail;
		srt__buf_free(&c->uin);
		if (c->inner_http) {
			/* served as plain HTTP from its first byte: the
			 * requests inside meet the request filters */
			c->kind = SRT_K_HTTP_PLAIN;
			c->phase = SRT_PH_HTTP_HEAD;
			c->cs.rd = true;
			srt__timed_set(c, SRT_FIRST_BYTE_MS);
			return;
		}
		if (c->kind != SRT_K_RAW) {
			/* no deadline: a tunnel where only the server talks stays
			 * open, and an idle one holds no buffer */
			if (!c->in.len)
				srt__buf_free(&c->in);
			c->phase = SRT_PH_SNI;
			return;
		}
		if (c->in.len && srt__buf_add(&c->uout, c->in.p, c->in.len) < 0)
			goto fail;
		srt__buf_free(&c->in);
		c->phase = SRT_PH_TUNNEL;
		return;
	case SRT_K_HTTP_PLAIN:
		c->phase = SRT_PH_HTTP_REQBODY;
		return;
	}
fail:
	srt__conn_close(c);
}

static void start_connect(struct srt__conn *c)
{
	while (c->next_addr < c->naddrs) {
		const struct srt__ip *a = &c->addrs[c->next_addr++];
		struct sockaddr_storage ss;
		socklen_t sl;
		int one = 1, fd;

		memset(&ss, 0, sizeof(ss));
		if (a->family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)c->dial_port);
			memcpy(&s4->sin_addr, a->a, 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)c->dial_port);
			memcpy(&s6->sin6_addr, a->a, 16);
			sl = sizeof(*s6);
		}
		fd = srt__os_socket(a->family, SOCK_STREAM, 0, true);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (srt__os_connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
			srt__os_sock_close(fd);
			continue;
		}
		if (srt__evloop_add(c->p->ev, fd, SRT__CONN_EVENTS, &c->uep) < 0) {
			srt__os_sock_close(fd);
			continue;
		}
		c->ul.fd = fd;
		c->us.rd = true;
		c->us.hup = false;
		c->phase = SRT_PH_CONNECT;
		srt__timed_set(c, SRT_CONNECT_MS);
		return;
	}
	srt__bad_gateway(c);
}

/* mitmProxy: a Unix socket; a failure never falls back to another route. */
static void connect_unix(struct srt__conn *c)
{
	struct sockaddr_un sa;
	int fd = srt__os_socket(AF_UNIX, SOCK_STREAM, 0, true);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c->via->path);
	if (fd < 0 || srt__os_connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    srt__evloop_add(c->p->ev, fd, SRT__CONN_EVENTS, &c->uep) < 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: mitm proxy '%s': %s\n", c->via->path,
				strerror(errno));
		if (fd >= 0)
			srt__os_sock_close(fd);
		srt__bad_gateway(c);
		return;
	}
	c->ul.fd = fd;
	c->us.rd = true;
	c->us.hup = false;
	connected(c);
}

/* The upstream socket reported an event while connecting. */
void srt__check_connect(struct srt__conn *c)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(c->ul.fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	if (err == 0) {
		/* writable and no error: connected (EPOLLOUT arrives once) */
		connected(c);
		return;
	}
	srt__close_registered(c->p, c->ul.fd);
	c->ul.fd = -1;
	start_connect(c);
}

/* httpProxyPort / socksProxyPort: that protocol is the external proxy's
 * business (no local filtering, as in the reference); relay it unparsed to
 * the loopback port. */
void srt__start_external(struct srt__conn *c)
{
	struct srt__ip lo;
	int port;

	pthread_mutex_lock(&c->p->lock);
	port = c->kind == SRT_K_SOCKS ? c->p->rules->ext_socks_port : c->p->rules->ext_http_port;
	pthread_mutex_unlock(&c->p->lock);
	if (port <= 0 || c->icept_pending)
		return;
	c->kind = SRT_K_RAW;
	snprintf(c->host, sizeof(c->host), "127.0.0.1");
	snprintf(c->canon, sizeof(c->canon), "127.0.0.1");
	c->port = c->dial_port = port;
	if (c->p->filters && srt__filter_chain_count(c->p->filters)) {
		/* an external proxy's stream is never parsed here, so no filter
		 * could see its requests: refused rather than relayed unfiltered */
		srt__conn_violation(c, "network.filters cannot judge what goes to the external "
				    "proxy (httpProxyPort/socksProxyPort); nothing was relayed");
		srt__reply_and_close(c, NULL, 0);
		return;
	}
	c->phase = SRT_PH_RESOLVE;
	srt__timed_set(c, SRT_CONNECT_MS);
	srt__ip_parse("127.0.0.1", &lo);
	addresses_ready(c, &lo, 1);
}
