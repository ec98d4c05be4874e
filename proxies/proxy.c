/* The filtering proxy: one thread, one epoll loop, one Unix socket serving
 * HTTP (absolute-form and CONNECT) and SOCKS5 chosen by the first byte.
 *
 * Every connection is a small state machine driven by edge-triggered
 * events: conn_run() makes as much progress as it can and returns when a
 * socket would block, so an edge is never lost. Header buffers exist only
 * while a head is parsed; a tunnel holds two sockets and a few hundred
 * bytes, and borrows a splice pipe only while data is in flight. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/domain.h"
#include "proxies/auth.h"
#include "proxies/dns.h"
#include "proxies/guard.h"
#include "proxies/http.h"
#include "proxies/proxy.h"
#include "proxies/pump.h"
#include "proxies/route.h"
#include "proxies/rules.h"
#include "proxies/sni.h"
#include "proxies/socks.h"
#include "proxies/wire.h"

#define EP_LISTEN 0x4c53544e
#define EP_WAKE 0x57414b45
#define EP_CLIENT 0x434c4e54
#define EP_UP 0x55505354

#define FIRST_BYTE_MS 10000
#define HEAD_MS 30000
#define SOCKS_NOAUTH_MS 5000
#define CONNECT_MS 30000
#define IDLE_MS 120000
#define LINGER_MS 2000
#define BODY_BUF (16 * 1024)
#define MAX_ADDRS 16

enum phase {
	PH_SNIFF,
	PH_HTTP_HEAD,
	PH_SOCKS_GREET,
	PH_SOCKS_AUTH,
	PH_SOCKS_REQ,
	PH_RESOLVE,
	PH_CONNECT,
	PH_HTTP_REQBODY,
	PH_HTTP_RESPHEAD,
	PH_HTTP_RESPBODY,
	PH_PROXY_HS,  /* CONNECT sent to a parent/mitm proxy, reading its answer */
	PH_SNI,       /* tunnel open; holding the client's first bytes for the SNI check */
	PH_TUNNEL,
	PH_LINGER,
	PH_FDRECV,    /* the bridge's control connection: receives TCP sockets */
};

/* K_RAW: relayed unparsed to an external proxy (httpProxyPort, socksProxyPort) */
enum kind { K_HTTP_CONNECT, K_HTTP_PLAIN, K_SOCKS, K_RAW };

struct ep {
	uint32_t tag;
};

struct buf {
	char *p;
	size_t len, cap;
};

/* What epoll told us about one socket since we last drained it. With
 * edge-triggered events a read is only worth a system call when data (or
 * EOF) arrived after the last read that came back short or EAGAIN. */
struct side {
	bool rd;  /* readable: an EPOLLIN edge since the last drain */
	bool hup; /* the peer shut down or failed: always try */
};

struct conn {
	struct ep cep, uep;
	struct srt__proxy *p;
	int cfd, ufd;
	struct side cs, us; /* client and upstream socket state */
	enum phase phase;
	enum kind kind;
	bool dead;
	bool socks_noauth; /* SSH probe: the SOCKS client offered no authentication */
	bool cshut, ushut; /* shutdown(SHUT_WR) sent to client / upstream */
	bool keep_alive, head_request, close_after, upstream_close;
	bool unix_client;  /* accepted on the Unix socket (may become PH_FDRECV) */
	bool ctl;          /* a hand-over connection, counted in p->nctl */
	struct buf in;   /* from the client, while parsing */
	struct buf uin;  /* from the upstream, while parsing */
	struct buf cout; /* to the client, pending */
	struct buf uout; /* to the upstream, pending */
	size_t cout_off, uout_off;
	struct srt__pump up, down;
	enum srt__http_body req_body, resp_body;
	uint64_t req_left, resp_left;
	struct srt__chunked chunk;
	char host[256];  /* as requested */
	char canon[256];
	int port;
	char up_canon[256]; /* target of the open upstream connection */
	int up_port;
	enum srt__route up_route;
	unsigned long up_gen;     /* the rules it passed (srt__proxy.gen) */
	enum srt__route route;     /* of the current request */
	struct srt__upstream *via; /* parent or mitm proxy, or NULL: direct */
	int dial_port;            /* what start_connect() dials */
	char *key;       /* attribution */
	char *auth_ok;   /* the last Proxy-Authorization accepted on this connection */
	size_t auth_ok_len;
	struct srt__dns_query *q;
	unsigned long q_gen;      /* p->gen of the guard that passed addrs */
	struct srt__ip addrs[MAX_ADDRS];
	size_t naddrs, next_addr;
	int64_t deadline;
	struct conn *tprev, *tnext; /* timed list */
	struct conn *prev, *next;   /* every connection */
};

struct cmd_list {
	char *key;
	char **v;
	size_t n;
	struct cmd_list *next;
};

struct srt__proxy {
	struct ep lep, wep;
	int lfd, epfd, wakefd;
	char *path;
	char *token;
	srt__proxy_violation_fn on_violation;
	void *ctx;
	int debug;
	pthread_t thread;
	bool started;
	atomic_bool stop;
	pthread_mutex_t lock; /* guards rules and cmds */
	struct srt__net_rules *rules;
	struct cmd_list *cmds;
	/* bumped by every change of rules: a kept upstream that passed older
	 * ones is dialled again, through the guard of the new ones */
	atomic_ulong gen;
	struct srt__dns *dns;
	struct srt__pipe_pool pool;
	struct conn *conns;
	struct conn *timed;
	struct conn *dead;
	size_t nclients;    /* live client connections, accepted or passed,
			     * but not the hand-over ones (nctl) */
	size_t nctl;        /* live hand-over (control) connections */
	size_t max_clients; /* clients at most at once (RLIMIT_NOFILE) */
	bool accept_paused; /* the listener is out of epoll: no descriptor left */
	bool warned_limit, warned_nofile;
	struct srt__ip *local;
	size_t nlocal;
	int64_t local_at;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- small helpers ---------------------------------------------------- */

static int buf_reserve(struct buf *b, size_t extra)
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

static int buf_add(struct buf *b, const void *data, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

static void buf_consume(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* snprintf("%s") without printf: runs for every request. */
static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

enum { FILL_DATA, FILL_AGAIN, FILL_EOF, FILL_ERR, FILL_FULL };

/* Read from fd until it is drained (EAGAIN, or a short read: for a stream
 * socket that means the queue is empty, epoll(7)), EOF or `max` bytes are
 * buffered. */
static int fill(int fd, struct side *sd, struct buf *b, size_t max)
{
	bool got = false;

	if (!sd->rd && !sd->hup)
		return FILL_AGAIN;
	for (;;) {
		ssize_t n;
		size_t room;

		if (b->len >= max)
			return FILL_FULL;
		if (buf_reserve(b, b->len + 4096 > max ? max - b->len : 4096) < 0)
			return FILL_ERR;
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
					return FILL_DATA;
			}
			continue;
		}
		/* EOF and errors are sticky: report the data first, the next
		 * call sees them again */
		if (n == 0)
			return got ? FILL_DATA : FILL_EOF;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			sd->rd = false;
			return got ? FILL_DATA : FILL_AGAIN;
		}
		return got ? FILL_DATA : FILL_ERR;
	}
}

/* read_head's answers besides the parser's: nothing more to read now (epoll
 * resumes the caller), or EOF or a read error before a full head. */
enum { HEAD_AGAIN = INT_MIN, HEAD_CLOSED };

/* Parse the HTTP head at the start of `b` with `parse` (the request or the
 * response parser), reading more from fd while it is incomplete. A head still
 * incomplete with `max` bytes buffered is SRT_HTTP_TOO_BIG (the parser says so
 * itself at SRT_HTTP_MAX_HEAD). Returns the head's length, an SRT_HTTP_* error,
 * HEAD_AGAIN or HEAD_CLOSED. */
static int read_head(int fd, struct side *sd, struct buf *b, size_t max,
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
		rc = fill(fd, sd, b, max);
		if (rc == FILL_AGAIN)
			return HEAD_AGAIN;
		if (rc == FILL_EOF || rc == FILL_ERR)
			return HEAD_CLOSED;
	}
}

/* Write pending bytes. 1: all written, 0: would block, -1: error. */
static int flush(int fd, struct buf *b, size_t *off)
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
	buf_free(b);
	*off = 0;
	return 1;
}

static void timed_set(struct conn *c, int ms)
{
	struct srt__proxy *p = c->p;

	c->deadline = now_ms() + ms;
	if (c->tprev || p->timed == c)
		return;
	c->tnext = p->timed;
	if (p->timed)
		p->timed->tprev = c;
	p->timed = c;
}

static void timed_clear(struct conn *c)
{
	struct srt__proxy *p = c->p;

	if (!c->tprev && p->timed != c)
		return;
	if (c->tprev)
		c->tprev->tnext = c->tnext;
	else
		p->timed = c->tnext;
	if (c->tnext)
		c->tnext->tprev = c->tprev;
	c->tprev = c->tnext = NULL;
	c->deadline = 0;
}

/* Close a descriptor of a connection, taking it out of the event loop
 * first: a registration belongs to the open file, not to the descriptor,
 * and a passed client socket is still open in the bridge (SCM_RIGHTS gives
 * a copy) until the bridge closes its own, so close(2) alone would leave
 * events coming for a connection that reap() has freed. */
static void close_registered(struct srt__proxy *p, int fd)
{
	epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
}

/* Accepting stopped when the process ran out of descriptors (on_accept):
 * one was just freed, so listen again. */
static void resume_accept(struct srt__proxy *p)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &p->lep };

	if (p->accept_paused && epoll_ctl(p->epfd, EPOLL_CTL_MOD, p->lfd, &ev) == 0)
		p->accept_paused = false;
}

static void close_upstream(struct conn *c)
{
	if (c->ufd >= 0) {
		close_registered(c->p, c->ufd);
		c->ufd = -1;
	}
	c->ushut = false;
	c->up_canon[0] = '\0';
	buf_free(&c->uin);
	buf_free(&c->uout);
	c->uout_off = 0;
	srt__pump_release(&c->up, &c->p->pool);
	srt__pump_release(&c->down, &c->p->pool);
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
}

static void conn_close(struct conn *c)
{
	struct srt__proxy *p = c->p;

	if (c->dead)
		return;
	c->dead = true;
	timed_clear(c);
	if (c->q) {
		srt__dns_cancel(c->q);
		c->q = NULL;
	}
	close_upstream(c);
	if (c->cfd >= 0)
		close_registered(p, c->cfd);
	c->cfd = -1;
	buf_free(&c->in);
	buf_free(&c->cout);
	free(c->key);
	c->key = NULL;
	free(c->auth_ok);
	c->auth_ok = NULL;
	free(c->via);
	c->via = NULL;
	if (c->ctl)
		p->nctl--;
	else
		p->nclients--;
	resume_accept(p);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	/* freed after the current batch of events: later events in the same
	 * batch may still point at it */
	c->next = p->dead;
	p->dead = c;
}

static void violation(struct conn *c, const char *reason)
{
	char line[1024];

	snprintf(line, sizeof(line), "deny network-outbound %s:%d (%s)", c->host,
		 c->port, reason);
	if (c->p->debug)
		fprintf(stderr, "srt-proxy: %s\n", line);
	if (c->p->on_violation)
		c->p->on_violation(c->p->ctx, c->key, line);
}

/* Queue a reply, then flush it, shut our side and drain the client until
 * it closes: closing with unread input would reset the connection and
 * could destroy the reply before the client reads it. */
static void reply_and_close(struct conn *c, const void *data, size_t n)
{
	if (c->q) {
		srt__dns_cancel(c->q);
		c->q = NULL;
	}
	close_upstream(c);
	if (n && buf_add(&c->cout, data, n) < 0) {
		conn_close(c);
		return;
	}
	buf_free(&c->in);
	c->phase = PH_LINGER;
	timed_set(c, LINGER_MS);
}

static void reply_text(struct conn *c, const char *text)
{
	reply_and_close(c, text, strlen(text));
}

/* Status-line phrase: printable ASCII only, others become '?'. */
static void sanitize_phrase(const char *in, char *out, size_t cap)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < cap; i++) {
		unsigned char ch = (unsigned char)in[i];
		out[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	out[i] = '\0';
}

static void http_simple(struct conn *c, int status, const char *phrase,
			const char *mark, const char *body)
{
	char msg[2048];

	snprintf(msg, sizeof(msg),
		 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n%s%s%sContent-Length: %zu\r\n"
		 "Connection: close\r\n\r\n%s",
		 status, phrase, mark ? "X-Proxy-Error: " : "", mark ? mark : "",
		 mark ? "\r\n" : "", strlen(body), body);
	reply_text(c, msg);
}

/* A refused target, answered in the client's own protocol: a 403 with
 * `mark` in X-Proxy-Error to HTTP clients (the reason as the CONNECT status
 * phrase, then `body`; `plain_body` to plain HTTP), "not allowed by
 * ruleset" to SOCKS clients, a bare close to raw ones. */
static void deny(struct conn *c, const char *reason, const char *mark, const char *body,
		 const char *plain_body)
{
	char phrase[512], msg[4096];
	uint8_t r[10];

	violation(c, reason);
	switch (c->kind) {
	case K_RAW:
		reply_and_close(c, NULL, 0);
		break;
	case K_HTTP_CONNECT:
		sanitize_phrase(reason, phrase, sizeof(phrase));
		snprintf(msg, sizeof(msg),
			 "HTTP/1.1 403 %s\r\nContent-Type: text/plain\r\n"
			 "X-Proxy-Error: %s\r\n\r\n%s", phrase, mark, body);
		reply_text(c, msg);
		break;
	case K_HTTP_PLAIN:
		http_simple(c, 403, "Forbidden", mark, plain_body);
		break;
	case K_SOCKS:
		srt__socks_reply(r, 2);
		reply_and_close(c, r, sizeof(r));
		break;
	}
}

/* The policy denied the target. */
static void deny_policy(struct conn *c, const char *reason)
{
	deny(c, reason, "blocked-by-allowlist", "Connection blocked by network allowlist",
	     "Connection blocked by network allowlist\n");
}

/* Every resolved address was refused by the guard (proxies/guard.h). */
static void deny_address(struct conn *c, const char *reason)
{
	char body[1024];

	snprintf(body, sizeof(body), "Connection to %s blocked: %s", c->host, reason);
	deny(c, reason, "blocked-by-sandbox-runtime", body, body);
}

static void bad_gateway(struct conn *c)
{
	uint8_t r[10];

	switch (c->kind) {
	case K_RAW:
		reply_and_close(c, NULL, 0);
		break;
	case K_HTTP_CONNECT:
		reply_text(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n");
		break;
	case K_HTTP_PLAIN:
		http_simple(c, 502, "Bad Gateway", NULL, "Bad Gateway\n");
		break;
	case K_SOCKS:
		srt__socks_reply(r, 4);
		reply_and_close(c, r, sizeof(r));
		break;
	}
}

/* ---- policy ------------------------------------------------------------ */

enum { RULE_REFUSE_OPAQUE, RULE_REQUIRE_HOST };

static bool rule_flag(struct conn *c, int which)
{
	bool v;

	pthread_mutex_lock(&c->p->lock);
	v = which == RULE_REFUSE_OPAQUE ? c->p->rules->refuse_opaque :
					  c->p->rules->require_host_match;
	pthread_mutex_unlock(&c->p->lock);
	return v;
}

static bool decide(struct conn *c, char *reason, size_t cap)
{
	const struct cmd_list *l = NULL;
	bool ok;

	pthread_mutex_lock(&c->p->lock);
	for (l = c->key ? c->p->cmds : NULL; l && strcmp(l->key, c->key); l = l->next)
		;
	ok = srt__net_rules_decide(c->p->rules, c->host, c->port, l ? l->v : NULL, l ? l->n : 0,
				reason, cap);
	pthread_mutex_unlock(&c->p->lock);
	return ok;
}

static void refresh_local(struct srt__proxy *p)
{
	int64_t t = now_ms();
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

static void start_connect(struct conn *c);

/* Pick the way out for an allowed target; fills c->via for upstream
 * proxies. Returns -1 on allocation failure. */
static int choose_route(struct conn *c, bool plain)
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
static void addresses_ready(struct conn *c, const struct srt__ip *a, size_t n)
{
	unsigned classes = 0;
	size_t k = 0;
	char reason[512];

	const struct cmd_list *l;
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
		unsigned cl = c->via || c->kind == K_RAW ? 0 :
			      srt__guard_check(c->p->rules, c->canon, c->port, &a[i],
					       c->p->local, c->p->nlocal, named);
		if (cl)
			classes |= cl;
		else if (k < MAX_ADDRS)
			c->addrs[k++] = a[i];
	}
	pthread_mutex_unlock(&c->p->lock);
	if (n == 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: %s: no address\n", c->canon);
		bad_gateway(c);
		return;
	}
	if (k == 0) {
		srt__guard_reason(classes, reason, sizeof(reason));
		deny_address(c, reason);
		return;
	}
	c->naddrs = k;
	c->next_addr = 0;
	start_connect(c);
}

static void conn_run(struct conn *c);
static void fd_recv(struct conn *c);

static void dns_done(void *arg, int status, const struct srt__ip *a, size_t n)
{
	struct conn *c = arg;

	c->q = NULL;
	if (status != 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: %s: lookup failed\n", c->canon);
		bad_gateway(c);
	} else {
		addresses_ready(c, a, n);
	}
	if (!c->dead)
		conn_run(c);
}

static void connect_unix(struct conn *c);

static void resolve(struct conn *c)
{
	struct srt__ip ip;
	const char *name = c->via ? c->via->host : c->canon;

	c->phase = PH_RESOLVE;
	timed_set(c, CONNECT_MS);
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
		bad_gateway(c);
}

static void established(struct conn *c);

static void connected(struct conn *c)
{
	snprintf(c->up_canon, sizeof(c->up_canon), "%s", c->canon);
	c->up_port = c->port;
	c->up_route = c->route;
	c->up_gen = c->q_gen;
	timed_clear(c);
	if (c->via && c->kind != K_HTTP_PLAIN) {
		/* ask the parent or mitm proxy for the tunnel first */
		char req[1200];
		bool v6 = strchr(c->canon, ':') != NULL;
		int n = snprintf(req, sizeof(req),
				 "CONNECT %s%s%s:%d HTTP/1.1\r\nHost: %s%s%s:%d\r\n%s%s%s\r\n",
				 v6 ? "[" : "", c->canon, v6 ? "]" : "", c->port, v6 ? "[" : "",
				 c->canon, v6 ? "]" : "", c->port,
				 *c->via->auth ? "Proxy-Authorization: " : "", c->via->auth,
				 *c->via->auth ? "\r\n" : "");
		if (n < 0 || (size_t)n >= sizeof(req) || buf_add(&c->uout, req, (size_t)n) < 0) {
			conn_close(c);
			return;
		}
		c->phase = PH_PROXY_HS;
		timed_set(c, CONNECT_MS);
		return;
	}
	established(c);
}

/* The upstream proxy's answer to our CONNECT: 2xx opens the tunnel. */
static void proxy_handshake(struct conn *c)
{
	struct srt__http_head *h;
	int rc = flush(c->ufd, &c->uout, &c->uout_off), len;

	if (rc < 0) {
		bad_gateway(c);
		return;
	}
	if (rc == 0)
		return;
	h = malloc(sizeof(*h));
	if (!h) {
		conn_close(c);
		return;
	}
	len = read_head(c->ufd, &c->us, &c->uin, 16 * 1024, srt__http_parse_response, h);
	if (len == HEAD_AGAIN)
		goto out;
	if (len == HEAD_CLOSED)
		len = SRT_HTTP_BAD;
	if (len < 0 || h->status < 200 || h->status > 299) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: upstream proxy refused %s:%d (%d)\n", c->canon,
				c->port, len < 0 ? 0 : h->status);
		bad_gateway(c);
		goto out;
	}
	buf_consume(&c->uin, (size_t)len);
	timed_clear(c);
	established(c);
out:
	free(h);
}

static void established(struct conn *c)
{
	static const char est[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
	uint8_t r[10];

	switch (c->kind) {
	case K_RAW:
	case K_HTTP_CONNECT:
	case K_SOCKS:
		if (c->kind == K_RAW) {
			/* the external proxy answers the client itself */
		} else if (c->kind == K_SOCKS) {
			srt__socks_reply(r, 0);
			if (buf_add(&c->cout, r, sizeof(r)) < 0)
				goto fail;
		} else if (buf_add(&c->cout, est, sizeof(est) - 1) < 0) {
			goto fail;
		}
		/* bytes an upstream proxy sent after its answer go to the
		 * client; the client's own bytes wait for the SNI check (the
		 * external proxy of K_RAW does its own checking) */
		if (c->uin.len && buf_add(&c->cout, c->uin.p, c->uin.len) < 0)
			goto fail;
		buf_free(&c->uin);
		if (c->kind != K_RAW) {
			/* no deadline: a tunnel where only the server talks stays
			 * open, and an idle one holds no buffer */
			if (!c->in.len)
				buf_free(&c->in);
			c->phase = PH_SNI;
			return;
		}
		if (c->in.len && buf_add(&c->uout, c->in.p, c->in.len) < 0)
			goto fail;
		buf_free(&c->in);
		c->phase = PH_TUNNEL;
		return;
	case K_HTTP_PLAIN:
		c->phase = PH_HTTP_REQBODY;
		return;
	}
fail:
	conn_close(c);
}

static void start_connect(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
				  .data.ptr = &c->uep };

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
		fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
			close(fd);
			continue;
		}
		if (epoll_ctl(c->p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			continue;
		}
		c->ufd = fd;
		c->us.rd = true;
		c->us.hup = false;
		c->phase = PH_CONNECT;
		timed_set(c, CONNECT_MS);
		return;
	}
	bad_gateway(c);
}

/* mitmProxy: a Unix socket; a failure never falls back to another route. */
static void connect_unix(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
				  .data.ptr = &c->uep };
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c->via->path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    epoll_ctl(c->p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: mitm proxy '%s': %s\n", c->via->path,
				strerror(errno));
		if (fd >= 0)
			close(fd);
		bad_gateway(c);
		return;
	}
	c->ufd = fd;
	c->us.rd = true;
	c->us.hup = false;
	connected(c);
}

/* The upstream socket reported an event while connecting. */
static void check_connect(struct conn *c)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	if (err == 0) {
		/* writable and no error: connected (EPOLLOUT arrives once) */
		connected(c);
		return;
	}
	close_registered(c->p, c->ufd);
	c->ufd = -1;
	start_connect(c);
}

/* ---- HTTP -------------------------------------------------------------- */

static const char *const auth_required =
	"HTTP/1.1 407 Proxy Authentication Required\r\n"
	"Proxy-Authenticate: Basic realm=\"srt\"\r\n";

static void http_head(struct conn *c)
{
	struct srt__http_head *h;
	struct srt__http_request r;
	struct srt__http_refusal why = { 0, NULL };
	char reason[512];
	int len;
	bool bad, authed;

	h = malloc(sizeof(*h));
	if (!h) {
		conn_close(c);
		return;
	}
	len = read_head(c->cfd, &c->cs, &c->in, SRT_HTTP_MAX_HEAD, srt__http_parse_request, h);
	if (len == HEAD_AGAIN)
		goto out;
	if (len == HEAD_CLOSED) {
		/* EOF or error before a full head: nothing to answer */
		conn_close(c);
		goto out;
	}
	c->kind = K_HTTP_PLAIN;
	if (len == SRT_HTTP_TOO_BIG) {
		http_simple(c, 431, "Request Header Fields Too Large", NULL,
			    "request header fields too large\n");
		goto out;
	}
	if (len < 0) {
		http_simple(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
			    "malformed request\n");
		goto out;
	}
	bad = srt__http_analyze_request(h, &r, &why) < 0;
	c->kind = r.is_connect ? K_HTTP_CONNECT : K_HTTP_PLAIN;
	if (!c->p->token) {
		free(c->key);
		c->key = NULL;
		authed = true;
	} else if (r.auth && c->auth_ok && r.auth_len == c->auth_ok_len &&
		   memcmp(r.auth, c->auth_ok, r.auth_len) == 0) {
		/* the credentials the previous request on this keep-alive
		 * connection passed with: same answer, same attribution */
		authed = true;
	} else {
		free(c->key);
		c->key = NULL;
		free(c->auth_ok);
		c->auth_ok = NULL;
		authed = r.auth && srt__auth_basic_check(r.auth, r.auth_len, c->p->token, &c->key);
		if (authed && !r.is_connect && r.auth_len <= 512 &&
		    (c->auth_ok = malloc(r.auth_len)) != NULL) {
			memcpy(c->auth_ok, r.auth, r.auth_len);
			c->auth_ok_len = r.auth_len;
		}
	}
	if (r.is_connect) {
		/* a tunnel never parses another head */
		free(c->auth_ok);
		c->auth_ok = NULL;
	}
	if (!authed) {
		char msg[256];
		if (r.is_connect)
			snprintf(msg, sizeof(msg), "%s\r\n", auth_required);
		else
			snprintf(msg, sizeof(msg), "%sContent-Length: 0\r\nConnection: close\r\n\r\n",
				 auth_required);
		reply_text(c, msg);
		goto out;
	}
	if (bad) {
		if (r.is_connect || (h->method_len == 7 && !memcmp(h->method, "CONNECT", 7))) {
			c->kind = K_HTTP_CONNECT;
			reply_text(c, "HTTP/1.1 400 Bad Request\r\n\r\n");
		} else {
			char body[300];
			snprintf(body, sizeof(body), "%s\n", why.reason);
			http_simple(c, why.status, why.status == 421 ? "Misdirected Request" :
				    why.status == 431 ? "Request Header Fields Too Large" :
				    "Bad Request", "blocked-by-sandbox-runtime", body);
		}
		goto out;
	}
	copy_str(c->host, sizeof(c->host), r.host);
	c->port = r.port;
	if (!r.is_connect && h->minor == 1 && !r.has_host && rule_flag(c, RULE_REQUIRE_HOST)) {
		http_simple(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
			    "HTTP/1.1 request without a Host header\n");
		goto out;
	}
	if (!decide(c, reason, sizeof(reason))) {
		deny_policy(c, reason);
		goto out;
	}
	srt__net_canon(c->host, c->canon, sizeof(c->canon));
	if (r.is_connect) {
		if (rule_flag(c, RULE_REFUSE_OPAQUE)) {
			/* nothing is TLS-terminated here, so no tunnel can be inspected */
			http_simple(c, 403, "Forbidden", "blocked-by-sandbox-runtime",
				    "this proxy does not tunnel CONNECTs it cannot inspect");
			goto out;
		}
		if (choose_route(c, false) < 0) {
			conn_close(c);
			goto out;
		}
		buf_consume(&c->in, (size_t)len);
		/* a plain request before this one on the same connection may
		 * have left its upstream open for reuse: the tunnel gets its
		 * own, and the old one must not stay registered */
		close_upstream(c);
		resolve(c);
		goto out;
	}
	/* plain HTTP: the rewritten head goes out first */
	if (choose_route(c, true) < 0) {
		conn_close(c);
		goto out;
	}
	buf_free(&c->uout);
	c->uout_off = 0;
	if (buf_reserve(&c->uout, (size_t)len + 512) < 0) {
		conn_close(c);
		goto out;
	}
	if (buf_reserve(&c->uout, (size_t)len + 1024) < 0) {
		conn_close(c);
		goto out;
	}
	c->uout.len = srt__http_build_upstream(h, &r, c->canon, c->via ? c->via->auth : NULL,
					       c->uout.p, c->uout.cap);
	if (c->uout.len == 0) {
		conn_close(c);
		goto out;
	}
	if (r.expect_continue &&
	    buf_add(&c->cout, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0) {
		conn_close(c);
		goto out;
	}
	c->keep_alive = r.keep_alive;
	c->head_request = h->method_len == 4 && memcmp(h->method, "HEAD", 4) == 0;
	c->req_body = r.body;
	c->req_left = r.length;
	srt__chunked_init(&c->chunk);
	buf_consume(&c->in, (size_t)len);
	timed_clear(c);
	if (c->ufd >= 0 && c->up_port == c->port && c->up_route == c->route &&
	    strcmp(c->up_canon, c->canon) == 0 && c->up_gen == atomic_load(&c->p->gen)) {
		/* same origin as the previous request, under the same rules:
		 * reuse the checked connection (no new lookup). After an
		 * update it is dialled again, so the new rules' address
		 * guard sees where it goes. */
		c->phase = PH_HTTP_REQBODY;
		goto out;
	}
	{
		/* keep the head for the new connection */
		struct buf keep = c->uout;
		c->uout.p = NULL;
		close_upstream(c);
		c->uout = keep;
	}
	resolve(c);
out:
	free(h);
}

/* Relay a framed body from src to dst. Returns 1 when the body is
 * complete, 0 to wait, -1 on error. */
static int relay_framed(struct conn *c, int src, int dst, struct buf *srcbuf,
			struct buf *dstbuf, size_t *dstoff, struct srt__pump *pump,
			enum srt__http_body kind, uint64_t *left)
{
	int rc;

	/* body bytes that came with the head join it in one send: one
	 * wakeup of the reader instead of two */
	if ((kind == SRT_BODY_LENGTH || kind == SRT_BODY_EOF) && srcbuf->len) {
		size_t take = srcbuf->len;
		if (kind == SRT_BODY_LENGTH && take > *left)
			take = (size_t)*left;
		if (take) {
			if (buf_add(dstbuf, srcbuf->p, take) < 0)
				return -1;
			buf_consume(srcbuf, take);
			if (kind == SRT_BODY_LENGTH)
				*left -= take;
		}
	}
	rc = flush(dst, dstbuf, dstoff);
	if (rc <= 0)
		return rc;
	switch (kind) {
	case SRT_BODY_NONE:
		return 1;
	case SRT_BODY_LENGTH:
	case SRT_BODY_EOF:
		rc = srt__pump_run(pump, src, dst, &c->p->pool,
				   kind == SRT_BODY_LENGTH ? left : NULL);
		if (rc == SRT_PUMP_ERROR)
			return -1;
		if (rc == SRT_PUMP_DONE)
			return 1;
		if (rc == SRT_PUMP_EOF)
			return kind == SRT_BODY_EOF ? 1 : -1; /* short body */
		return 0;
	case SRT_BODY_CHUNKED:
		for (;;) {
			bool done = false;
			long k;

			if (srcbuf->len) {
				k = srt__chunked_feed(&c->chunk, srcbuf->p, srcbuf->len, &done);
				if (k < 0)
					return -1;
				if (k && buf_add(dstbuf, srcbuf->p, (size_t)k) < 0)
					return -1;
				buf_consume(srcbuf, (size_t)k);
			}
			rc = flush(dst, dstbuf, dstoff);
			if (rc < 0)
				return -1;
			if (done)
				return rc;
			if (rc == 0)
				return 0;
			rc = fill(src, src == c->cfd ? &c->cs : &c->us, srcbuf, BODY_BUF);
			if (rc == FILL_AGAIN)
				return 0;
			if (rc == FILL_EOF || rc == FILL_ERR)
				return -1;
		}
	}
	return -1;
}

/* Relay the request body (client to upstream) or the response body
 * (upstream to client). True when it is complete; false to wait, or after
 * an error, which has closed the connection. */
static bool relay_body(struct conn *c, bool request)
{
	int rc = request ? relay_framed(c, c->cfd, c->ufd, &c->in, &c->uout, &c->uout_off,
					&c->up, c->req_body, &c->req_left)
			 : relay_framed(c, c->ufd, c->cfd, &c->uin, &c->cout, &c->cout_off,
					&c->down, c->resp_body, &c->resp_left);

	if (rc < 0)
		conn_close(c);
	return rc > 0;
}

static void http_reqbody(struct conn *c)
{
	if (!relay_body(c, true))
		return;
	/* flush the 100 Continue or anything queued for the client later */
	c->phase = PH_HTTP_RESPHEAD;
	srt__chunked_init(&c->chunk);
}

static size_t build_downstream(struct conn *c, const struct srt__http_head *h,
			       const struct srt__http_response *r, bool close)
{
	size_t n;

	pthread_mutex_lock(&c->p->lock);
	n = srt__http_build_downstream(h, r, close, c->p->rules->strip, c->p->rules->n_strip,
				       c->cout.p + c->cout.len, c->cout.cap - c->cout.len);
	pthread_mutex_unlock(&c->p->lock);
	return n;
}

static void http_resphead(struct conn *c)
{
	struct srt__http_head *h = malloc(sizeof(*h));
	struct srt__http_response r;
	int len;
	size_t out;

	if (!h) {
		conn_close(c);
		return;
	}
again:
	len = read_head(c->ufd, &c->us, &c->uin, SRT_HTTP_MAX_HEAD, srt__http_parse_response, h);
	if (len == HEAD_AGAIN)
		goto out;
	if (len == HEAD_CLOSED)
		len = SRT_HTTP_BAD;
	if (len < 0 || srt__http_analyze_response(h, c->head_request, &r) < 0 ||
	    h->status == 101) {
		http_simple(c, 502, "Bad Gateway", NULL, "Bad Gateway\n");
		goto out;
	}
	if (h->status < 200) {
		/* interim response: pass it on and read the next head */
		r.body = SRT_BODY_NONE;
		if (buf_reserve(&c->cout, (size_t)len + 64) < 0)
			goto fail;
		out = build_downstream(c, h, &r, false);
		if (!out)
			goto fail;
		c->cout.len += out;
		buf_consume(&c->uin, (size_t)len);
		/* bounded: a stream of interim heads waits for the client */
		if (c->cout.len > SRT_HTTP_MAX_HEAD) {
			int rc2 = flush(c->cfd, &c->cout, &c->cout_off);
			if (rc2 < 0)
				goto fail;
			if (rc2 == 0)
				goto out; /* EPOLLOUT on the client resumes us */
		}
		goto again;
	}
	c->resp_body = r.body;
	c->resp_left = r.length;
	c->upstream_close = r.upstream_close;
	c->close_after = !c->keep_alive || r.body == SRT_BODY_EOF;
	srt__chunked_init(&c->chunk);
	if (buf_reserve(&c->cout, (size_t)len + 128) < 0)
		goto fail;
	out = build_downstream(c, h, &r, c->close_after);
	if (!out)
		goto fail;
	c->cout.len += out;
	buf_consume(&c->uin, (size_t)len);
	c->phase = PH_HTTP_RESPBODY;
	goto out;
fail:
	conn_close(c);
out:
	free(h);
}

static void http_respbody(struct conn *c)
{
	if (!relay_body(c, false))
		return;
	if (c->uin.len)
		c->upstream_close = true; /* bytes after the body: never reuse */
	if (c->upstream_close)
		close_upstream(c);
	else
		buf_free(&c->uin);
	if (c->close_after) {
		reply_and_close(c, NULL, 0);
		return;
	}
	c->phase = PH_HTTP_HEAD;
	timed_set(c, IDLE_MS);
}

/* ---- SOCKS5 ------------------------------------------------------------ */

/* A SOCKS message is still incomplete: read more (up to `max` buffered) and
 * parse again with `step`; EOF, an error or a full buffer closes. */
static void socks_read_more(struct conn *c, size_t max, void (*step)(struct conn *))
{
	int rc = fill(c->cfd, &c->cs, &c->in, max);

	if (rc == FILL_DATA)
		step(c);
	else if (rc != FILL_AGAIN)
		conn_close(c);
}

static void socks_greet(struct conn *c)
{
	uint32_t offers = 0;
	int n = srt__socks_parse_greeting((uint8_t *)c->in.p, c->in.len, &offers);
	uint8_t rep[2] = { 5, 0 };

	if (n == 0) {
		socks_read_more(c, 512, socks_greet);
		return;
	}
	if (n < 0) {
		conn_close(c); /* SOCKS4 or garbage */
		return;
	}
	buf_consume(&c->in, (size_t)n);
	if (!c->p->token) {
		if (!(offers & 1u << SRT_SOCKS_METHOD_NONE)) {
			rep[1] = 0xff;
			reply_and_close(c, rep, 2);
			return;
		}
		c->phase = PH_SOCKS_REQ;
	} else if (offers & 1u << SRT_SOCKS_METHOD_USERPASS) {
		rep[1] = SRT_SOCKS_METHOD_USERPASS;
		c->phase = PH_SOCKS_AUTH;
	} else {
		/* pretend no-auth so an ssh ProxyCommand (which cannot send
		 * credentials) reaches the in-band refusal and learns why */
		c->socks_noauth = true;
		c->phase = PH_SOCKS_REQ;
		timed_set(c, SOCKS_NOAUTH_MS);
	}
	if (buf_add(&c->cout, rep, 2) < 0)
		conn_close(c);
}

static void socks_auth(struct conn *c)
{
	const char *user, *pass;
	size_t ul, pl;
	int n = srt__socks_parse_auth((uint8_t *)c->in.p, c->in.len, &user, &ul, &pass, &pl);
	uint8_t ok[2] = { 1, 0 }, bad[2] = { 1, 1 };

	if (n == 0) {
		socks_read_more(c, 1024, socks_auth);
		return;
	}
	if (n < 0) {
		conn_close(c);
		return;
	}
	free(c->key);
	c->key = NULL;
	if (!srt__auth_socks_check(user, ul, pass, pl, c->p->token, &c->key)) {
		reply_and_close(c, bad, 2);
		return;
	}
	buf_consume(&c->in, (size_t)n);
	if (buf_add(&c->cout, ok, 2) < 0) {
		conn_close(c);
		return;
	}
	c->phase = PH_SOCKS_REQ;
}

static void socks_refuse_unauthenticated(struct conn *c)
{
	static const char dflt[] = "This proxy requires authentication, and this client "
		"did not offer an authentication method, so the connection was refused.";
	char reason[512];
	uint8_t msg[2048 + 10];
	size_t n;
	bool denied;

	pthread_mutex_lock(&c->p->lock);
	denied = srt__net_rules_denied(c->p->rules, c->host, c->port, reason, sizeof(reason));
	pthread_mutex_unlock(&c->p->lock);
	if (denied)
		violation(c, reason);
	if (c->port != 22 || !srt__host_is_valid(c->host)) {
		srt__socks_reply(msg, 2);
		reply_and_close(c, msg, 10);
		return;
	}
	srt__socks_reply(msg, 0);
	n = srt__ssh_refusal(denied ? reason : dflt, msg + 10, sizeof(msg) - 10);
	reply_and_close(c, msg, 10 + n);
}

static void socks_req(struct conn *c)
{
	struct srt__socks_request r;
	int bad_atyp = 0;
	int n = srt__socks_parse_request((uint8_t *)c->in.p, c->in.len, &r, &bad_atyp);
	uint8_t rep[10];
	char reason[512];

	if (n == 0) {
		socks_read_more(c, 1024, socks_req);
		return;
	}
	if (n < 0) {
		if (bad_atyp) {
			srt__socks_reply(rep, 8);
			reply_and_close(c, rep, sizeof(rep));
		} else {
			conn_close(c);
		}
		return;
	}
	buf_consume(&c->in, (size_t)n);
	copy_str(c->host, sizeof(c->host), r.host);
	c->port = r.port;
	if (r.cmd != 1) {
		uint8_t unsupported[2] = { 5, 7 };
		reply_and_close(c, unsupported, 2);
		return;
	}
	if (r.port == 0) {
		/* no such destination (the HTTP side answers 400): general
		 * failure, nothing dialled */
		srt__socks_reply(rep, 1);
		reply_and_close(c, rep, sizeof(rep));
		return;
	}
	if (c->socks_noauth) {
		socks_refuse_unauthenticated(c);
		return;
	}
	if (rule_flag(c, RULE_REFUSE_OPAQUE)) {
		char line[600];
		snprintf(line, sizeof(line), "deny socks-tunnel %s:%d (refuseOpaqueTunnels)",
			 c->host, c->port);
		if (c->p->on_violation)
			c->p->on_violation(c->p->ctx, c->key, line);
		srt__socks_reply(rep, 1);
		reply_and_close(c, rep, sizeof(rep));
		return;
	}
	if (!decide(c, reason, sizeof(reason))) {
		deny_policy(c, reason);
		return;
	}
	srt__net_canon(c->host, c->canon, sizeof(c->canon));
	if (choose_route(c, false) < 0) {
		conn_close(c);
		return;
	}
	resolve(c);
}

/* One direction of a tunnel: first what is queued for dst, then bytes
 * spliced from src; EOF from src goes on as a FIN to dst (*shut). Returns
 * -1 on error, else 0. */
static int tunnel_dir(struct conn *c, int src, int dst, struct buf *queued, size_t *off,
		      struct srt__pump *pump, bool *shut)
{
	int rc = flush(dst, queued, off);

	if (rc < 0)
		return -1;
	if (rc > 0 && !*shut) {
		rc = srt__pump_run(pump, src, dst, &c->p->pool, NULL);
		if (rc == SRT_PUMP_ERROR)
			return -1;
		if (rc == SRT_PUMP_EOF) {
			shutdown(dst, SHUT_WR);
			*shut = true;
		}
	}
	return 0;
}

/* ---- SNI check ---------------------------------------------------------- */

/* Before the first client byte reaches the upstream: when the tunnel
 * carries TLS, its server name must pass the same policy as the CONNECT
 * target, so an allowed CONNECT cannot front for another host.
 * Bytes from the server flow meanwhile (SSH and SMTP speak first). */
static void sni_check(struct conn *c)
{
	char sni[256], reason[512];
	int rc, r;

	if (tunnel_dir(c, c->ufd, c->cfd, &c->cout, &c->cout_off, &c->down, &c->cshut) < 0) {
		conn_close(c);
		return;
	}
	for (;;) {
		r = srt__sni_find((const uint8_t *)(c->in.p ? c->in.p : ""), c->in.len, sni,
				 sizeof(sni));
		if (r != SRT_SNI_MORE)
			break;
		if (c->in.len >= SRT_SNI_PEEK_MAX) {
			r = SRT_SNI_MALFORMED;
			break;
		}
		rc = fill(c->cfd, &c->cs, &c->in, SRT_SNI_PEEK_MAX);
		if (rc == FILL_AGAIN) {
			/* a started hello is held in memory: it must finish in
			 * HEAD_MS, like a request head (a silent client holds
			 * nothing and keeps no deadline) */
			if (c->in.len && !c->deadline)
				timed_set(c, HEAD_MS);
			return;
		}
		if (rc == FILL_EOF || rc == FILL_ERR) {
			/* nothing (or a partial hello) and EOF: nothing to check */
			r = c->in.len ? SRT_SNI_MALFORMED : SRT_SNI_NOT_TLS;
			break;
		}
	}
	if (r == SRT_SNI_MALFORMED) {
		violation(c, "TLS client hello could not be read");
		conn_close(c);
		return;
	}
	if (r == SRT_SNI_FOUND) {
		char canon[300];
		bool ok;
		srt__net_canon(sni, canon, sizeof(canon));
		if (strcmp(canon, c->canon) != 0) {
			char saved[256];
			/* judge the name as if it had been the CONNECT target */
			snprintf(saved, sizeof(saved), "%s", c->host);
			snprintf(c->host, sizeof(c->host), "%s", sni);
			ok = decide(c, reason, sizeof(reason));
			if (!ok) {
				char why[1100];
				snprintf(why, sizeof(why),
					 "TLS server name does not match the request target %s: %s",
					 saved, reason);
				violation(c, why);
				conn_close(c);
				return;
			}
			snprintf(c->host, sizeof(c->host), "%s", saved);
		}
	}
	if (c->in.len && buf_add(&c->uout, c->in.p, c->in.len) < 0) {
		conn_close(c);
		return;
	}
	buf_free(&c->in);
	timed_clear(c);
	c->phase = PH_TUNNEL;
}

/* ---- tunnel and linger --------------------------------------------------- */

static void tunnel(struct conn *c)
{
	if (tunnel_dir(c, c->cfd, c->ufd, &c->uout, &c->uout_off, &c->up, &c->ushut) < 0 ||
	    tunnel_dir(c, c->ufd, c->cfd, &c->cout, &c->cout_off, &c->down, &c->cshut) < 0 ||
	    (c->ushut && c->cshut))
		conn_close(c);
}

static void linger(struct conn *c)
{
	char sink[4096];
	int rc = flush(c->cfd, &c->cout, &c->cout_off);

	if (rc < 0) {
		conn_close(c);
		return;
	}
	if (rc == 0)
		return;
	if (!c->cshut) {
		shutdown(c->cfd, SHUT_WR);
		c->cshut = true;
	}
	for (;;) {
		ssize_t n = recv(c->cfd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		conn_close(c);
		return;
	}
}

/* httpProxyPort / socksProxyPort: that protocol is the external proxy's
 * business (no local filtering, as in the reference); relay it unparsed to
 * the loopback port. */
static void start_external(struct conn *c)
{
	struct srt__ip lo;
	int port;

	pthread_mutex_lock(&c->p->lock);
	port = c->kind == K_SOCKS ? c->p->rules->ext_socks_port : c->p->rules->ext_http_port;
	pthread_mutex_unlock(&c->p->lock);
	if (port <= 0)
		return;
	c->kind = K_RAW;
	snprintf(c->host, sizeof(c->host), "127.0.0.1");
	snprintf(c->canon, sizeof(c->canon), "127.0.0.1");
	c->port = c->dial_port = port;
	c->phase = PH_RESOLVE;
	timed_set(c, CONNECT_MS);
	srt__ip_parse("127.0.0.1", &lo);
	addresses_ready(c, &lo, 1);
}

/* ---- driver ------------------------------------------------------------ */

static void conn_run(struct conn *c)
{
	for (int guard = 0; !c->dead && guard < 64; guard++) {
		enum phase before = c->phase;
		int rc;

		/* anything queued for the client (100 Continue, SOCKS replies) */
		if (c->cout.len && c->phase != PH_LINGER && c->phase != PH_TUNNEL &&
		    c->phase != PH_HTTP_RESPBODY && c->phase != PH_SNI) {
			rc = flush(c->cfd, &c->cout, &c->cout_off);
			if (rc < 0) {
				conn_close(c);
				return;
			}
		}
		switch (c->phase) {
		case PH_SNIFF:
			rc = fill(c->cfd, &c->cs, &c->in, 1);
			if (c->in.len >= 1 && c->in.p[0] == SRT_PASS_HELLO && c->unix_client) {
				/* the bridge: from now on it hands over TCP sockets.
				 * It needs one such connection (a new one after a
				 * failure); a client relayed by a bridge in fallback
				 * mode can start with the same byte, so they are
				 * bounded, having no timeout */
				static const char ack = SRT_PASS_HELLO;
				if (c->p->nctl >= SRT_PASS_MAX_CTL) {
					conn_close(c);
					break;
				}
				c->ctl = true;
				c->p->nctl++;
				c->p->nclients--; /* counted in nctl from now on */
				buf_free(&c->in);
				timed_clear(c);
				c->phase = PH_FDRECV;
				if (buf_add(&c->cout, &ack, 1) < 0)
					conn_close(c);
			} else if (c->in.len >= 1) {
				uint8_t b = (uint8_t)c->in.p[0];
				c->phase = (b == 4 || b == 5) ? PH_SOCKS_GREET : PH_HTTP_HEAD;
				c->kind = (b == 4 || b == 5) ? K_SOCKS : K_HTTP_PLAIN;
				timed_set(c, HEAD_MS);
				start_external(c);
			} else if (rc != FILL_AGAIN) {
				conn_close(c);
			}
			break;
		case PH_HTTP_HEAD:
			http_head(c);
			break;
		case PH_SOCKS_GREET:
			socks_greet(c);
			break;
		case PH_SOCKS_AUTH:
			socks_auth(c);
			break;
		case PH_SOCKS_REQ:
			socks_req(c);
			break;
		case PH_RESOLVE:
			return;
		case PH_CONNECT:
			return; /* check_connect() runs on the upstream's event */
		case PH_HTTP_REQBODY:
			http_reqbody(c);
			break;
		case PH_HTTP_RESPHEAD:
			http_resphead(c);
			break;
		case PH_HTTP_RESPBODY:
			http_respbody(c);
			break;
		case PH_PROXY_HS:
			proxy_handshake(c);
			break;
		case PH_SNI:
			sni_check(c);
			break;
		case PH_TUNNEL:
			tunnel(c);
			return;
		case PH_LINGER:
			linger(c);
			return;
		case PH_FDRECV:
			fd_recv(c);
			return;
		}
		if (c->phase == before)
			return;
	}
}

/* A new client socket (accepted here or passed by the bridge) becomes a
 * connection in PH_SNIFF; the fd is closed on failure. */
static void new_client(struct srt__proxy *p, int fd, bool unix_client)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
	struct conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return;
	}
	c->cep.tag = EP_CLIENT;
	c->uep.tag = EP_UP;
	c->p = p;
	c->cfd = fd;
	c->ufd = -1;
	c->cs.rd = true;
	c->unix_client = unix_client;
	srt__pump_init(&c->up);
	srt__pump_init(&c->down);
	ev.data.ptr = &c->cep;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		free(c);
		return;
	}
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->nclients++;
	c->phase = PH_SNIFF;
	timed_set(c, FIRST_BYTE_MS);
	conn_run(c);
}

/* Said once per run on stderr: the command is holding as many
 * connections as this process can serve. */
static void warn_once(bool *done, const char *what)
{
	if (*done)
		return;
	*done = true;
	fprintf(stderr, "srt: proxy: %s\n", what);
}

static void on_accept(struct srt__proxy *p)
{
	for (;;) {
		int fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* the listener is level-triggered: stop watching
				 * it until a connection closes (or the sweep
				 * retries), instead of spinning on the error */
				struct epoll_event ev = { .events = 0, .data.ptr = &p->lep };
				if (epoll_ctl(p->epfd, EPOLL_CTL_MOD, p->lfd, &ev) == 0)
					p->accept_paused = true;
				warn_once(&p->warned_nofile,
					  "out of file descriptors; new connections wait until others close");
			}
			return; /* EAGAIN: the backlog is empty */
		}
		if (p->nclients >= p->max_clients) {
			/* refused at once, so the client is not left hanging */
			close(fd);
			warn_once(&p->warned_limit,
				  "the sandbox holds as many connections as srt can serve; "
				  "new ones are refused until others close");
			continue;
		}
		new_client(p, fd, true);
	}
}

/* A descriptor from the control connection is untrusted: only a connected
 * TCP socket (what the bridge accepted) is served, as one more client that
 * must still authenticate; anything else is closed unused. */
static void adopt_passed(struct srt__proxy *p, int fd)
{
	struct stat st;
	int v, fl;
	socklen_t l;

	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		goto refuse;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) < 0 ||
	    (v != AF_INET && v != AF_INET6))
		goto refuse;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 || v != SOCK_STREAM)
		goto refuse;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l) < 0 || v != IPPROTO_TCP)
		goto refuse;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) < 0 || v != 0)
		goto refuse;
	if (p->nclients >= p->max_clients) {
		warn_once(&p->warned_limit,
			  "the sandbox holds as many connections as srt can serve; "
			  "new ones are refused until others close");
		goto refuse;
	}
	/* the sender may keep a copy of the open file: every read and write
	 * here also passes MSG_DONTWAIT, this only serves splice */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto refuse;
	new_client(p, fd, false);
	return;
refuse:
	close(fd);
}

/* The control connection: each message is a byte (ignored) with at most
 * SRT_PASS_MAX_FDS descriptors. Received descriptors are close-on-exec
 * from the start; a truncated set (more than the bridge ever sends) or a
 * message with anything but SCM_RIGHTS ends the connection, every
 * descriptor received with it closed. */
static void fd_recv(struct conn *c)
{
	struct srt__proxy *p = c->p;

	if (c->cout.len && flush(c->cfd, &c->cout, &c->cout_off) < 0) {
		conn_close(c);
		return;
	}
	for (;;) {
		union {
			char b[CMSG_SPACE(sizeof(int) * SRT_PASS_MAX_FDS)];
			struct cmsghdr align;
		} cbuf;
		char sink[64];
		struct iovec iov = { sink, sizeof(sink) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b) };
		int fds[SRT_PASS_MAX_FDS], nfd = 0;
		bool bad = false;
		ssize_t n;

		if (!c->cs.rd && !c->cs.hup)
			return;
		n = recvmsg(c->cfd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				c->cs.rd = false;
				return;
			}
			conn_close(c);
			return;
		}
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			size_t k;
			if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
			    h->cmsg_len < CMSG_LEN(0)) {
				bad = true;
				continue;
			}
			k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < k; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
				if (nfd < SRT_PASS_MAX_FDS)
					fds[nfd++] = fd;
				else
					close(fd); /* cannot happen with this buffer */
			}
		}
		if (bad || (m.msg_flags & MSG_CTRUNC)) {
			for (int i = 0; i < nfd; i++)
				close(fds[i]);
			conn_close(c);
			return;
		}
		for (int i = 0; i < nfd; i++)
			adopt_passed(p, fds[i]);
		if (n == 0) {
			conn_close(c);
			return;
		}
		if (c->dead)
			return;
	}
}

static void sweep(struct srt__proxy *p)
{
	int64_t t = now_ms();

	for (struct conn *c = p->timed, *n; c; c = n) {
		n = c->tnext;
		if (c->deadline > t)
			continue;
		if (p->debug)
			fprintf(stderr, "srt-proxy: connection timed out (phase %d)\n", c->phase);
		if (c->phase == PH_RESOLVE || c->phase == PH_CONNECT || c->phase == PH_PROXY_HS) {
			timed_clear(c);
			bad_gateway(c);
			if (!c->dead)
				conn_run(c);
		} else {
			conn_close(c);
		}
	}
}

static void reap(struct srt__proxy *p)
{
	while (p->dead) {
		struct conn *c = p->dead;
		p->dead = c->next;
		free(c);
	}
}

static void note_events(struct side *sd, uint32_t ev)
{
	if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))
		sd->rd = true;
	if (ev & (EPOLLERR | EPOLLHUP | EPOLLRDHUP))
		sd->hup = true;
}

/* A kept upstream between requests that speaks or closes is done. */
static void idle_upstream_check(struct conn *c)
{
	char b;
	ssize_t n = recv(c->ufd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n >= 0 || errno != EAGAIN)
		close_upstream(c);
	else
		c->us.rd = false;
}

static void *loop(void *arg)
{
	struct srt__proxy *p = arg;
	struct epoll_event evs[256];
	int64_t next_sweep = now_ms() + 250;
	sigset_t pipe_set;

	/* splice() into a socket the peer closed raises SIGPIPE at this
	 * thread; blocked, it stays pending instead of killing srt */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

	while (!atomic_load(&p->stop)) {
		int timeout = srt__dns_timeout(p->dns, 250);
		int n = epoll_wait(p->epfd, evs, 256, timeout);

		for (int i = 0; i < n; i++) {
			struct ep *e = evs[i].data.ptr;
			struct conn *c;

			switch (e->tag) {
			case EP_LISTEN:
				on_accept(p);
				break;
			case EP_WAKE:
				break;
			case SRT_EP_DNS:
				srt__dns_event(p->dns, e, evs[i].events);
				break;
			case EP_CLIENT:
				c = (struct conn *)((char *)e - offsetof(struct conn, cep));
				if (c->dead)
					break;
				note_events(&c->cs, evs[i].events);
				conn_run(c);
				break;
			case EP_UP:
				c = (struct conn *)((char *)e - offsetof(struct conn, uep));
				if (c->dead)
					break;
				note_events(&c->us, evs[i].events);
				if (c->phase == PH_CONNECT)
					check_connect(c);
				else if (c->phase == PH_HTTP_HEAD && c->ufd >= 0 && c->us.rd)
					idle_upstream_check(c);
				if (!c->dead)
					conn_run(c);
				break;
			}
		}
		srt__dns_tick(p->dns);
		if (now_ms() >= next_sweep) {
			sweep(p);
			/* descriptors freed elsewhere (pipes, DNS) count too */
			resume_accept(p);
			next_sweep = now_ms() + 250;
		}
		reap(p);
	}
	return NULL;
}

/* ---- public ------------------------------------------------------------ */

/* Tunnels hold two descriptors each; take what the hard limit allows. */
static size_t raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1u << 30 ? 1u << 30 :
									(size_t)rl.rlim_cur;
}

int srt__proxy_new(struct srt__proxy **out, const struct srt__proxy_config *cfg,
		   struct srt_diag *diag)
{
	struct srt__proxy *p = NULL;
	struct sockaddr_un sa;
	struct epoll_event ev;
	int err;

	if (!cfg || !cfg->net || !cfg->socket_path) {
		err = srt_diag_set(diag, SRT_E_INVAL, "", "proxy: missing settings or socket path");
		goto out;
	}
	if (strlen(cfg->socket_path) >= sizeof(sa.sun_path)) {
		err = srt_diag_set(diag, SRT_E_INVAL, cfg->socket_path,
				   "proxy socket path '%s' is too long", cfg->socket_path);
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		err = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}
	p->lfd = p->epfd = p->wakefd = -1;
	p->lep.tag = EP_LISTEN;
	p->wep.tag = EP_WAKE;
	pthread_mutex_init(&p->lock, NULL);
	p->on_violation = cfg->on_violation;
	p->ctx = cfg->ctx;
	p->debug = cfg->debug;
	p->path = strdup(cfg->socket_path);
	p->token = cfg->token && *cfg->token ? strdup(cfg->token) : NULL;
	if (!p->path || (cfg->token && *cfg->token && !p->token)) {
		err = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}
	err = srt__net_rules_new(&p->rules, cfg->net, diag);
	if (err)
		goto out;
	{
		/* two descriptors per client (client and upstream), a
		 * reserve for pipes, DNS and srt itself: clients beyond it
		 * are refused (passed sockets arrive faster than accept's
		 * backlog could hold them back) */
		size_t nofile = raise_nofile();
		p->max_clients = cfg->max_passed ? cfg->max_passed :
				 nofile > 512 ? (nofile - 256) / 2 : nofile / 4;
	}
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	p->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->epfd < 0 || p->wakefd < 0) {
		err = srt_diag_set(diag, SRT_E_IO, "", "cannot create the proxy's event loop: %s",
				   strerror(errno));
		goto out;
	}
	err = srt__dns_new(&p->dns, p->epfd, diag);
	if (err)
		goto out;
	p->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, cfg->socket_path, strlen(cfg->socket_path));
	unlink(cfg->socket_path); /* a stale socket of an earlier run */
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(cfg->socket_path, 0600) < 0 || listen(p->lfd, 4096) < 0) {
		err = srt_diag_set(diag, SRT_E_IO, cfg->socket_path,
				   "cannot listen on the proxy socket '%s': %s",
				   cfg->socket_path, strerror(errno));
		if (diag)
			diag->saved_errno = errno;
		goto out;
	}
	ev.events = EPOLLIN;
	ev.data.ptr = &p->lep;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->lfd, &ev) < 0)
		goto io;
	ev.data.ptr = &p->wep;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->wakefd, &ev) < 0)
		goto io;
	*out = p;
	p = NULL;
	err = SRT_OK;
	goto out;
io:
	err = srt_diag_set(diag, SRT_E_IO, "", "proxy event loop: %s", strerror(errno));
out:
	srt__proxy_free(p);
	return err;
}

int srt__proxy_start(struct srt__proxy *p, struct srt_diag *diag)
{
	int rc;

	if (!p || p->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "proxy already started");
	rc = pthread_create(&p->thread, NULL, loop, p);
	if (rc)
		return srt_diag_set(diag, SRT_E_IO, "", "cannot start the proxy thread: %s",
				    strerror(rc));
	p->started = true;
	return SRT_OK;
}

int srt__proxy_update(struct srt__proxy *p, const struct srt__net_config *net,
		      struct srt_diag *diag)
{
	struct srt__net_rules *r = NULL, *old;
	int err;

	if (!p || !net)
		return srt_diag_set(diag, SRT_E_INVAL, "", "proxy: missing settings");
	/* on failure the old rules stay: never fail open */
	err = srt__net_rules_new(&r, net, diag);
	if (err)
		return err;
	pthread_mutex_lock(&p->lock);
	old = p->rules;
	p->rules = r;
	atomic_fetch_add(&p->gen, 1);
	pthread_mutex_unlock(&p->lock);
	srt__net_rules_free(old);
	return SRT_OK;
}

static void cmd_list_free(struct cmd_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->key);
	free(l);
}

int srt__proxy_command_domains(struct srt__proxy *p, const char *command_key,
			       const struct srt__strv *allowed, struct srt_diag *diag)
{
	struct cmd_list *l = NULL, **pp, *old = NULL;
	char key[101];

	if (!p || !command_key || !*command_key)
		return srt_diag_set(diag, SRT_E_INVAL, "", "per-command list without a command key");
	/* the username carries at most the first 100 bytes of the key */
	snprintf(key, sizeof(key), "%s", command_key);
	if (allowed && allowed->n) {
		l = calloc(1, sizeof(*l));
		if (!l || !(l->key = strdup(key)) || !(l->v = calloc(allowed->n, sizeof(char *))))
			goto nomem;
		for (size_t i = 0; i < allowed->n; i++) {
			if (!(l->v[i] = strdup(allowed->v[i])))
				goto nomem;
			l->n = i + 1;
		}
	}
	pthread_mutex_lock(&p->lock);
	for (pp = &p->cmds; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->key, key)) {
			old = *pp;
			*pp = old->next;
			break;
		}
	}
	if (l) {
		l->next = p->cmds;
		p->cmds = l;
	}
	pthread_mutex_unlock(&p->lock);
	cmd_list_free(old);
	return SRT_OK;
nomem:
	cmd_list_free(l);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
}

void srt__proxy_free(struct srt__proxy *p)
{
	if (!p)
		return;
	if (p->started) {
		uint64_t one = 1;
		atomic_store(&p->stop, true);
		if (write(p->wakefd, &one, sizeof(one)) < 0) {
			/* the loop still wakes within its 250 ms timeout */
		}
		pthread_join(p->thread, NULL);
	}
	while (p->conns)
		conn_close(p->conns);
	reap(p);
	srt__dns_free(p->dns);
	srt__pipe_pool_drain(&p->pool);
	if (p->lfd >= 0) {
		close(p->lfd);
		unlink(p->path);
	}
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->wakefd >= 0)
		close(p->wakefd);
	srt__net_rules_free(p->rules);
	while (p->cmds) {
		struct cmd_list *n = p->cmds->next;
		cmd_list_free(p->cmds);
		p->cmds = n;
	}
	pthread_mutex_destroy(&p->lock);
	free(p->local);
	free(p->path);
	free(p->token);
	free(p);
}

unsigned long srt__proxy_dns_count(struct srt__proxy *p)
{
	return srt__dns_count(p->dns);
}
