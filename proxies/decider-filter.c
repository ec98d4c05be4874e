/* The decider as a request filter: see decider-filter.h. One lock guards
 * the link; the proxy's thread takes it to send a request, the link's
 * thread to read verdicts, and each verdict completes its call with the
 * lock held, so a request the proxy forgets (finish) is cancelled on the
 * link before its memory goes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/platform.h"
#include "common/domain.h"
#include "proxies/auth.h"
#include "proxies/decider-filter.h"
#include "proxies/decider.h"

struct srt__dfilter {
	pthread_mutex_t lock;
	pthread_cond_t hello_cond;
	struct srt__decider *link;
	int wake[2];
	pthread_t thread;
	bool started, stop;
	pid_t child;
	size_t body_max;
	bool narrow, plaintext_set;
	const struct srt_filter_host *host;
	srt__dfilter_dead_fn dead;
	void *dead_ctx;
	bool hello, is_dead;
	char why[256];
	struct srt__strv allowed, denied;
};

/* The header edits of an allow, applied on the proxy's thread. */
struct edits {
	struct srt__decider_header *set; /* setHeaders, one per value, by name */
	size_t nset;
	char **remove;
	size_t nremove;
	char *cred, *credential;
};

/* A verdict that came while the proxy was still collecting the body the
 * decider asked for (no call to complete then): answered at the body's end. */
struct early {
	bool set;
	enum srt_filter_verdict v;
	int status;
	char reason[SRT_FILTER_REASON_MAX];
};

/* One request, kept in the call's per-filter data pointer. Written by
 * the link's thread under the lock; the proxy's thread reads it after the
 * completion (which orders the two) or under the lock. */
struct dreq {
	struct srt__dfilter *f;
	struct srt_filter_call *call; /* the pending call, NULL when none */
	uint64_t id;                  /* on the link; 0: not asked */
	bool asked_body;              /* need_body came: collecting */
	bool plaintext;               /* not inside terminated TLS */
	bool bodyless;                /* GET, HEAD or OPTIONS */
	bool is_conn;                 /* an opaque tunnel: no headers, no body */
	long long content_length;
	size_t want;                  /* body bytes the decider gets */
	uint8_t *body;
	size_t blen;
	bool cut;
	struct edits *edits;          /* an allow's, until applied */
	struct early early;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wake(struct srt__dfilter *f)
{
	char b = 0;
	ssize_t r = srt__os_send(f->wake[1], &b, 1);

	(void)r; /* a full pair already wakes the thread */
}

static void logf_(struct srt__dfilter *f, const char *line)
{
	if (f->host && f->host->log)
		f->host->log(f->host, 0, line);
}

static void on_hello(void *ctx, const struct srt__decider_hello *h)
{
	struct srt__dfilter *f = ctx;
	size_t i;

	for (i = 0; i < h->nallowed; i++)
		srt__strv_push(&f->allowed, h->allowed[i]);
	for (i = 0; i < h->ndenied; i++)
		srt__strv_push(&f->denied, h->denied[i]);
	f->hello = true;
	pthread_cond_broadcast(&f->hello_cond);
}

static void on_dead(void *ctx, const char *why)
{
	struct srt__dfilter *f = ctx;
	char line[320];

	f->is_dead = true;
	snprintf(f->why, sizeof(f->why), "%s", why);
	pthread_cond_broadcast(&f->hello_cond);
	if (f->stop) /* the end srt itself caused: nothing to warn of */
		return;
	snprintf(line, sizeof(line), "the decider is unavailable: %s", why);
	logf_(f, line);
	if (f->dead)
		f->dead(f->dead_ctx, why);
}

static const struct srt__decider_ops link_ops = { on_hello, on_dead };

static void finish_call(struct dreq *r, enum srt_filter_verdict v, int status, const char *reason)
{
	struct srt_filter_call *call = r->call;

	r->call = NULL;
	r->id = 0;
	if (!call)
		return;
	if (v == SRT_FILTER_DENY || v == SRT_FILTER_ERROR) {
		call->status = status;
		snprintf(call->reason, sizeof(call->reason), "%s", reason);
	}
	call->complete(call, v);
}

static void edits_free(struct edits *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nset; i++) {
		free(e->set[i].name);
		free(e->set[i].value);
	}
	for (i = 0; i < e->nremove; i++)
		free(e->remove[i]);
	free(e->set);
	free(e->remove);
	if (e->credential)
		srt__os_wipe(e->credential, strlen(e->credential));
	free(e->credential);
	free(e->cred);
	free(e);
}

/* Copy the allow's edits out of the verdict (valid during the callback
 * only). NULL when out of memory. */
static struct edits *edits_copy(const struct srt__decider_verdict *v)
{
	struct edits *e = calloc(1, sizeof(*e));
	bool ok = e != NULL;
	size_t i;

	if (ok && v->nset && !(e->set = calloc(v->nset, sizeof(*e->set))))
		ok = false;
	for (i = 0; ok && i < v->nset; i++, e->nset++) {
		e->set[i].name = strdup(v->set[i].name);
		e->set[i].value = strdup(v->set[i].value);
		ok = e->set[i].name && e->set[i].value;
	}
	if (ok && v->nremove && !(e->remove = calloc(v->nremove, sizeof(char *))))
		ok = false;
	for (i = 0; ok && i < v->nremove; i++, e->nremove++)
		ok = (e->remove[i] = strdup(v->remove[i])) != NULL;
	if (ok && v->cred) {
		e->cred = strdup(v->cred);
		e->credential = strdup(v->credential);
		ok = e->cred && e->credential;
	}
	if (!ok) {
		edits_free(e);
		return NULL;
	}
	return e;
}

/* A verdict for a request whose body is still being collected: kept for
 * the body's end (lock held). */
static void keep_early(struct dreq *r, enum srt_filter_verdict v, int status, const char *reason)
{
	r->id = 0;
	r->early.set = true;
	r->early.v = v;
	r->early.status = status;
	snprintf(r->early.reason, sizeof(r->early.reason), "%s", reason ? reason : "");
}

static void answer(struct dreq *r, enum srt_filter_verdict v, int status, const char *reason)
{
	if (!r->call && r->asked_body)
		keep_early(r, v, status, reason);
	else
		finish_call(r, v, status, reason);
}

static void on_allow(struct dreq *r, const struct srt__decider_verdict *v)
{
	if (r->is_conn && (v->nset || v->nremove || v->cred)) {
		/* fail closed: an edit asked for and not made is not allowed */
		answer(r, SRT_FILTER_ERROR, 502, "the decider's allow asks for header edits on "
		       "an opaque tunnel, which has no headers to edit");
		return;
	}
	if ((v->nset || v->cred) && r->plaintext && !r->f->plaintext_set) {
		answer(r, SRT_FILTER_DENY, 403,
		       "plaintext_header_set: the decider's allow sets headers on a plain-HTTP "
		       "request, and header sets on plain HTTP are not enabled; nothing was "
		       "forwarded");
		return;
	}
	if (v->nset || v->nremove || v->cred) {
		r->edits = edits_copy(v);
		if (!r->edits) {
			answer(r, SRT_FILTER_ERROR, 502, "out of memory for the decider's header edits");
			return;
		}
	}
	answer(r, SRT_FILTER_CONTINUE, 0, NULL);
}

/* need_body: the request-head call completes with CONTINUE and body_cap,
 * so the proxy collects the body (holding it back from the target) and
 * hands it to the body hook, which sends it to the decider. */
static void on_need_body(struct dreq *r, const struct srt__decider_verdict *v)
{
	struct srt_filter_call *call = r->call;

	if (r->is_conn) {
		srt__decider_cancel(r->f->link, v->id);
		finish_call(r, SRT_FILTER_DENY, 403,
			    "bodyless_method_body: the decider asked for the body of an opaque "
			    "tunnel, which has none");
		return;
	}
	if (r->bodyless && r->content_length != 0) {
		srt__decider_cancel(r->f->link, v->id);
		finish_call(r, SRT_FILTER_DENY, 403,
			    "bodyless_method_body: the decider asked for the body of a request "
			    "whose method carries none");
		return;
	}
	if (!call) { /* the request ended: nothing to collect for */
		srt__decider_cancel(r->f->link, v->id);
		r->id = 0;
		return;
	}
	r->asked_body = true;
	r->want = v->max < r->f->body_max ? (size_t)v->max : r->f->body_max;
	r->call = NULL;
	call->body_cap = r->want;
	call->complete(call, SRT_FILTER_CONTINUE);
}

static void on_verdict(void *ctx, const struct srt__decider_verdict *v)
{
	struct dreq *r = ctx;
	char reason[SRT_FILTER_REASON_MAX];

	switch (v->action) {
	case SRT__DV_ALLOW:
		on_allow(r, v);
		return;
	case SRT__DV_DENY:
		snprintf(reason, sizeof(reason), "decider: %s",
			 v->reason ? v->reason : "denied by the decider");
		answer(r, SRT_FILTER_DENY, v->status, reason);
		return;
	case SRT__DV_NEED_BODY:
		on_need_body(r, v);
		return;
	case SRT__DV_UNAVAILABLE:
	default:
		snprintf(reason, sizeof(reason), "decider_unavailable: %s",
			 v->reason ? v->reason : "no verdict");
		answer(r, SRT_FILTER_DENY, 503, reason);
		return;
	}
}

static void *loop(void *arg)
{
	struct srt__dfilter *f = arg;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		struct pollfd pf[3];
		int timeout = srt__decider_tick(f->link, now_ms());
		int in = srt__decider_in_fd(f->link), out = srt__decider_out_fd(f->link);
		bool wantw = srt__decider_wants_write(f->link);

		pf[0] = (struct pollfd){ .fd = f->wake[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = in, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = wantw ? out : -1, .events = POLLOUT };
		if (in == out && wantw) {
			pf[1].events |= POLLOUT;
			pf[2].fd = -1;
		}
		pthread_mutex_unlock(&f->lock);
		/* unused entries (a link that died has no descriptors) are
		 * left out, not passed as -1: Windows' poll takes sockets only */
		poll(pf, in < 0 ? 1 : wantw && in != out ? 3 : 2, timeout);
		if (pf[0].revents & POLLIN) {
			char b[64];
			while (srt__os_recv(f->wake[0], b, sizeof(b), 0) > 0)
				;
		}
		pthread_mutex_lock(&f->lock);
		if (f->stop)
			break;
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR))
			srt__decider_on_read(f->link, now_ms());
		if ((pf[1].revents | pf[2].revents) & (POLLOUT | POLLERR))
			srt__decider_on_write(f->link);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

int srt__dfilter_start(const struct srt__dfilter_config *cfg, struct srt__dfilter **out,
		       char *why, size_t cap)
{
	struct srt__dfilter *f = calloc(1, sizeof(*f));
	int rc;

	/* a socket pair: poll on Windows watches sockets only */
	if (!f || srt__os_socketpair(f->wake) < 0) {
		snprintf(why, cap, "cannot start the decider link: %s", strerror(errno));
		srt__os_sock_close(cfg->in_fd);
		if (cfg->out_fd != cfg->in_fd)
			srt__os_sock_close(cfg->out_fd);
		free(f);
		return SRT_E_IO;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->hello_cond, NULL);
	f->child = cfg->child;
	f->body_max = cfg->body_max && cfg->body_max < SRT_FILTER_BODY_MAX ? cfg->body_max :
		      SRT_FILTER_BODY_MAX;
	f->narrow = cfg->narrow_by_hello;
	f->plaintext_set = cfg->plaintext_header_set;
	f->host = cfg->host;
	f->dead = cfg->dead;
	f->dead_ctx = cfg->dead_ctx;
	f->link = srt__decider_new(cfg->in_fd, cfg->out_fd, &link_ops, f);
	if (!f->link) {
		snprintf(why, cap, "cannot start the decider link: out of memory");
		srt__dfilter_destroy(f);
		return SRT_E_NOMEM;
	}
	rc = pthread_create(&f->thread, NULL, loop, f);
	if (rc) {
		snprintf(why, cap, "cannot start the decider thread: %s", strerror(rc));
		srt__dfilter_destroy(f);
		return SRT_E_IO;
	}
	f->started = true;
	*out = f;
	return SRT_OK;
}

int srt__dfilter_wait_hello(struct srt__dfilter *f, int timeout_ms, struct srt__strv *allowed,
			    struct srt__strv *denied, char *why, size_t cap)
{
	struct timespec until;
	int rc = 0;
	size_t i;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&f->lock);
	while (!f->hello && !f->is_dead && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&f->hello_cond, &f->lock, &until);
	if (f->hello && !f->is_dead) {
		for (i = 0; allowed && i < f->allowed.n; i++)
			srt__strv_push(allowed, f->allowed.v[i]);
		for (i = 0; denied && i < f->denied.n; i++)
			srt__strv_push(denied, f->denied.v[i]);
		pthread_mutex_unlock(&f->lock);
		return SRT_OK;
	}
	if (f->is_dead)
		snprintf(why, cap, "the decider died before its hello (%s)", f->why);
	else
		snprintf(why, cap, "the decider sent no hello within %d ms", timeout_ms);
	pthread_mutex_unlock(&f->lock);
	return SRT_E_IO;
}

/* The hello's lists refuse host:port? (lock held) */
static bool hello_refuses(struct srt__dfilter *f, const char *host, int port)
{
	char canon[300];
	size_t i;
	bool allowed = f->allowed.n == 0;

	if (!f->narrow)
		return false;
	if (srt__host_canonicalize(host, canon, sizeof(canon)) != 0)
		return true;
	for (i = 0; i < f->denied.n; i++)
		if (srt__domain_match(canon, port, f->denied.v[i]))
			return true;
	for (i = 0; !allowed && i < f->allowed.n; i++)
		allowed = srt__domain_match(canon, port, f->allowed.v[i]);
	return !allowed;
}

static enum srt_filter_verdict deny_now(struct srt_filter_call *call, int status,
					const char *reason)
{
	call->status = status;
	snprintf(call->reason, sizeof(call->reason), "%s", reason);
	return SRT_FILTER_DENY;
}

/* With f->lock held: true, and the verdict in *v, when the decider is not
 * to be asked at all (it is dead, or its hello's lists refuse the host). */
static bool refused_unasked(struct srt__dfilter *f, const char *host, int port,
			    struct srt_filter_call *call, enum srt_filter_verdict *v)
{
	char reason[SRT_FILTER_REASON_MAX];

	if (f->is_dead) {
		snprintf(reason, sizeof(reason), "decider_unavailable: %.200s", f->why);
		*v = deny_now(call, 503, reason);
		return true;
	}
	if (f->hello && hello_refuses(f, host, port)) {
		*v = deny_now(call, 403, "host_not_allowed: the decider's lists refuse this host");
		return true;
	}
	return false;
}

/* Send the frame dr for r and leave call pending on the verdict. r->call
 * stays NULL while asking: a link that dies inside the ask (a failed
 * write) must not complete a call before it was PENDING. */
static enum srt_filter_verdict send_ask(struct srt__dfilter *f, struct dreq *r,
					const struct srt__decider_req *dr,
					struct srt_filter_call *call)
{
	char why[200], reason[SRT_FILTER_REASON_MAX];
	uint64_t id = 0;

	r->call = NULL;
	if (srt__decider_ask(f->link, dr, now_ms(), on_verdict, r, &id, why, sizeof(why)) < 0) {
		snprintf(reason, sizeof(reason), "bad_request: %s", why);
		return deny_now(call, 400, reason);
	}
	if (srt__decider_dead(f->link)) {
		snprintf(reason, sizeof(reason), "decider_unavailable: %.200s", f->why);
		return deny_now(call, 503, reason);
	}
	r->call = call;
	r->id = id;
	wake(f);
	return SRT_FILTER_PENDING;
}

/* The request as the protocol carries it: path and query split at the
 * first '?', Host given apart, every other header as received. */
static enum srt_filter_verdict ask(struct srt__dfilter *f, struct dreq *r,
				   struct srt_filter_request *req, struct srt_filter_call *call)
{
	struct srt__decider_field hs[SRT__DECIDER_REQ_VALUES_MAX + 1];
	struct srt__decider_req dr;
	char path[SRT__DECIDER_REQ_FIELD_MAX + 2];
	const char *q, *p = req->path ? req->path : "/";
	size_t n = req->headers ? req->headers->count(req->headers) : 0, i, k = 0;

	if (n > SRT__DECIDER_REQ_VALUES_MAX + 1)
		return deny_now(call, 400, "bad_request: too many header values for the decider");
	for (i = 0; i < n; i++)
		if (req->headers->at(req->headers, i, &hs[k].name, &hs[k].value) == SRT_OK)
			k++;
	memset(&dr, 0, sizeof(dr));
	dr.method = req->method;
	dr.host = req->host;
	dr.port = req->port;
	dr.host_header = req->headers ? req->headers->get(req->headers, "host") : NULL;
	dr.sni = req->conn ? req->conn->sni : NULL;
	q = strchr(p, '?');
	if ((size_t)(q ? q - p : (ptrdiff_t)strlen(p)) > SRT__DECIDER_REQ_FIELD_MAX)
		return deny_now(call, 400, "bad_request: the path is too long for the decider");
	snprintf(path, sizeof(path), "%.*s", (int)(q ? q - p : (ptrdiff_t)strlen(p)), p);
	dr.path = path;
	dr.query = q ? q + 1 : NULL;
	dr.headers = hs;
	dr.nheaders = k;
	r->plaintext = !(req->conn && req->conn->scheme && !strcmp(req->conn->scheme, "https"));
	r->bodyless = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD") ||
		      !strcmp(req->method, "OPTIONS");
	r->content_length = req->content_length;
	return send_ask(f, r, &dr, call);
}

/* An opaque connection (CONNECT or SOCKS5 tunnel) as the protocol's req
 * frame: method "CONNECT", the target's host and port, the TLS hello's
 * server name when the proxy saw one, and as the path the CONNECT request
 * target (authority form, "host:port"); no headers. A decider written for
 * HTTP requests judges it by the same fields. */
static enum srt_filter_verdict ask_conn(struct srt__dfilter *f, struct dreq *r,
					const struct srt_filter_conn *conn,
					struct srt_filter_call *call)
{
	struct srt__decider_req dr;
	char authority[SRT__DECIDER_REQ_FIELD_MAX + 16];
	bool v6 = strchr(conn->host, ':') != NULL;

	if (strlen(conn->host) > SRT__DECIDER_REQ_FIELD_MAX)
		return deny_now(call, 400, "bad_request: the host is too long for the decider");
	snprintf(authority, sizeof(authority), "%s%s%s:%u", v6 ? "[" : "", conn->host,
		 v6 ? "]" : "", (unsigned)conn->port);
	memset(&dr, 0, sizeof(dr));
	dr.method = "CONNECT";
	dr.host = conn->host;
	dr.port = conn->port;
	dr.sni = conn->sni;
	dr.path = authority;
	r->is_conn = true;
	return send_ask(f, r, &dr, call);
}

static struct dreq *dreq_of(struct srt__dfilter *f, struct srt_filter_call *call)
{
	struct dreq *r = *call->data;

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (r)
			r->f = f;
		*call->data = r;
	}
	return r;
}

enum srt_filter_verdict srt__dfilter_request_head(void *state, struct srt_filter_request *req,
						  struct srt_filter_call *call)
{
	struct srt__dfilter *f = state;
	struct dreq *r = dreq_of(f, call);
	enum srt_filter_verdict v;

	if (!r)
		return deny_now(call, 503, "decider_unavailable: out of memory");
	pthread_mutex_lock(&f->lock);
	if (!refused_unasked(f, req->host, req->port, call, &v))
		v = ask(f, r, req, call);
	pthread_mutex_unlock(&f->lock);
	return v;
}

/* Plain requests (scheme "http", "https") are asked about in their
 * request-head hook, whose frame carries the same host, port and server
 * name: only an opaque tunnel, which has no request, is asked here. */
enum srt_filter_verdict srt__dfilter_connection(void *state, const struct srt_filter_conn *conn,
						struct srt_filter_call *call)
{
	struct srt__dfilter *f = state;
	struct dreq *r;
	enum srt_filter_verdict v;

	if (conn->scheme && (!strcmp(conn->scheme, "http") || !strcmp(conn->scheme, "https")))
		return SRT_FILTER_CONTINUE;
	if (!conn->host || !conn->port)
		return deny_now(call, 400, "bad_request: the tunnel names no target");
	r = dreq_of(f, call);
	if (!r)
		return deny_now(call, 503, "decider_unavailable: out of memory");
	pthread_mutex_lock(&f->lock);
	if (!refused_unasked(f, conn->host, conn->port, call, &v))
		v = ask_conn(f, r, conn, call);
	pthread_mutex_unlock(&f->lock);
	return v;
}

/* The body the decider asked for, collected up to r->want. At its end
 * the body goes to the decider, whose verdict completes the call. */
enum srt_filter_verdict srt__dfilter_request_body(void *state, struct srt_filter_request *req,
						  const void *chunk, size_t len, int end,
						  int truncated, struct srt_filter_call *call)
{
	struct srt__dfilter *f = state;
	struct dreq *r = dreq_of(f, call);
	char reason[SRT_FILTER_REASON_MAX];
	enum srt_filter_verdict v;

	(void)req;
	if (!r)
		return deny_now(call, 503, "decider_unavailable: out of memory");
	if (!r->asked_body)
		return deny_now(call, 502, "the body was offered before the decider asked for it");
	if (len) {
		size_t room = r->want > r->blen ? r->want - r->blen : 0;
		size_t take = len < room ? len : room;
		uint8_t *b = take ? realloc(r->body, r->blen + take) : r->body;

		if (take && !b)
			return deny_now(call, 503, "decider_unavailable: out of memory");
		if (take)
			memcpy(b + r->blen, chunk, take);
		r->body = b;
		r->blen += take;
		r->cut = r->cut || take < len;
	}
	if (!end)
		return SRT_FILTER_CONTINUE;
	r->cut = r->cut || truncated;
	pthread_mutex_lock(&f->lock);
	if (r->early.set) {
		/* decided while the body came: the edits, if any, apply here */
		struct early e = r->early;

		pthread_mutex_unlock(&f->lock);
		if (e.v == SRT_FILTER_DENY || e.v == SRT_FILTER_ERROR) {
			deny_now(call, e.status, e.reason);
			return e.v;
		}
		return srt__dfilter_completed(f, req, e.v, call);
	}
	if (f->is_dead || !r->id) {
		snprintf(reason, sizeof(reason), "decider_unavailable: %.200s",
			 f->is_dead ? f->why : "the decider forgot the request");
		pthread_mutex_unlock(&f->lock);
		return deny_now(call, 503, reason);
	}
	if (srt__decider_body(f->link, r->id, r->body, r->blen, r->cut, now_ms()) < 0) {
		pthread_mutex_unlock(&f->lock);
		return deny_now(call, 503, "decider_unavailable: the request was no longer waiting "
				"for its body");
	}
	r->call = call;
	wake(f);
	v = SRT_FILTER_PENDING;
	pthread_mutex_unlock(&f->lock);
	return v;
}

/* Remove every line whose name folds to `name` (case, and '-', '_', '.'
 * alike, as the protocol compares names). */
static int remove_folded(struct srt_filter_headers *h, bool (*match)(const char *, const char *),
			 const char *name)
{
	size_t i = h->count(h);

	while (i-- > 0) {
		const char *n, *v;
		char copy[260];
		int rc;

		if (h->at(h, i, &n, &v) != SRT_OK || !match(n, name))
			continue;
		snprintf(copy, sizeof(copy), "%s", n);
		if ((rc = h->remove(h, copy)) != SRT_OK)
			return rc;
		i = h->count(h); /* remove() took every spelling of it: look again */
		if (i == 0)
			break;
	}
	return SRT_OK;
}

static bool fold_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a, y = *b;

		if (x == '_' || x == '.')
			x = '-';
		if (y == '_' || y == '.')
			y = '-';
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

static bool is_credential(const char *n, const char *unused)
{
	(void)unused;
	return srt__decider_credential_header(n);
}

/* cred: the client's own credential headers go, then Authorization gets
 * the decider's secret: Basic for class "github" to github.com (its git
 * over HTTP wants it so), Bearer everywhere else. */
static int place_credential(struct srt_filter_headers *h, const struct edits *e, const char *host)
{
	size_t n = strlen(e->credential), cap = 4 * (n + 20) / 3 + 16;
	char *plain = malloc(n + 20), *val = malloc(cap + 8);
	int rc;

	if (!plain || !val) {
		free(plain);
		free(val);
		return SRT_E_NOMEM;
	}
	rc = remove_folded(h, is_credential, "");
	if (rc == SRT_OK && !strcmp(e->cred, "github") && host && !strcmp(host, "github.com")) {
		snprintf(plain, n + 20, "x-access-token:%s", e->credential);
		memcpy(val, "Basic ", 6);
		if (!srt__b64_encode((const uint8_t *)plain, strlen(plain), val + 6, cap + 2))
			rc = SRT_E_NOMEM;
	} else if (rc == SRT_OK) {
		snprintf(val, cap + 8, "Bearer %s", e->credential);
	}
	if (rc == SRT_OK)
		rc = h->set(h, "Authorization", val);
	srt__os_wipe(plain, n + 20);
	srt__os_wipe(val, cap + 8);
	free(plain);
	free(val);
	return rc;
}

/* setHeaders: one line per name, its values joined by ", " (one field
 * value, as HTTP reads repeated lines). */
static int set_headers(struct srt_filter_headers *h, const struct edits *e)
{
	size_t i = 0;

	while (i < e->nset) {
		size_t j, len = 0;
		char *joined;
		int rc;

		for (j = i; j < e->nset && !strcmp(e->set[j].name, e->set[i].name); j++)
			len += strlen(e->set[j].value) + 2;
		if (!(joined = malloc(len + 1)))
			return SRT_E_NOMEM;
		joined[0] = '\0';
		for (size_t k = i; k < j; k++) {
			if (k > i)
				strcat(joined, ", ");
			strcat(joined, e->set[k].value);
		}
		rc = h->set(h, e->set[i].name, joined);
		free(joined);
		if (rc != SRT_OK)
			return rc;
		i = j;
	}
	return SRT_OK;
}

static int apply_edits(struct srt_filter_request *req, const struct edits *e, const char **what)
{
	struct srt_filter_headers *h = req->headers;
	size_t i;
	int rc = SRT_OK;

	if (!h)
		return SRT_E_INVAL;
	for (i = 0; rc == SRT_OK && i < e->nremove; i++) {
		*what = "removeHeaders";
		rc = remove_folded(h, fold_eq, e->remove[i]);
	}
	if (rc == SRT_OK && e->cred) {
		*what = "cred";
		rc = place_credential(h, e, req->host);
	}
	if (rc == SRT_OK && e->nset) {
		*what = "setHeaders";
		rc = set_headers(h, e);
	}
	return rc;
}

enum srt_filter_verdict srt__dfilter_completed(void *state, struct srt_filter_request *req,
					       enum srt_filter_verdict verdict,
					       struct srt_filter_call *call)
{
	struct dreq *r = call->data ? *call->data : NULL;
	const char *what = "the edits";
	struct edits *e;
	int rc;

	(void)state;
	if (!r || !r->edits)
		return verdict;
	e = r->edits;
	r->edits = NULL;
	rc = apply_edits(req, e, &what);
	edits_free(e);
	if (rc == SRT_OK)
		return verdict;
	call->status = 502;
	snprintf(call->reason, sizeof(call->reason),
		 "the decider's %s could not be applied (%s); nothing was forwarded", what,
		 rc == SRT_E_LIMIT ? "the head would grow past its limit" :
		 rc == SRT_E_NOMEM ? "out of memory" : "refused by the proxy");
	return SRT_FILTER_ERROR;
}

/* Drop r's pending request (lock held): the link forgets it, so a late
 * verdict is dropped, and the call is completed (ERROR, ignored by the
 * chain), since completing is what frees it. */
static void drop(struct srt__dfilter *f, struct dreq *r)
{
	if (r->id)
		srt__decider_cancel(f->link, r->id);
	finish_call(r, SRT_FILTER_ERROR, 503, "decider_unavailable: the request ended first");
}

void srt__dfilter_cancel(void *state, struct srt_filter_call *call)
{
	struct srt__dfilter *f = state;
	struct dreq *r = call->data ? *call->data : NULL;

	if (!r)
		return;
	pthread_mutex_lock(&f->lock);
	if (r->call == call)
		drop(f, r);
	pthread_mutex_unlock(&f->lock);
}

void srt__dfilter_finish(void *state, const struct srt_filter_conn *conn,
			 const struct srt_filter_request *req,
			 const struct srt_filter_summary *summary, void **data)
{
	struct srt__dfilter *f = state;
	struct dreq *r = data ? *data : NULL;

	(void)conn;
	(void)req;
	(void)summary;
	if (!r)
		return;
	pthread_mutex_lock(&f->lock);
	drop(f, r); /* a core without cancel: the call may still be pending */
	pthread_mutex_unlock(&f->lock);
	free(r->body);
	edits_free(r->edits);
	free(r);
	*data = NULL;
}

void srt__dfilter_destroy(void *state)
{
	struct srt__dfilter *f = state;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	f->dead = NULL; /* no report for the end we cause */
	if (f->link)
		srt__decider_shutdown(f->link, "the filter was destroyed");
	pthread_mutex_unlock(&f->lock);
	if (f->started) {
		wake(f);
		pthread_join(f->thread, NULL);
	}
	srt__decider_free(f->link);
	if (f->child > 0) {
		int st;
		kill(f->child, SIGTERM);
		waitpid(f->child, &st, 0);
	}
	srt__strv_release(&f->allowed);
	srt__strv_release(&f->denied);
	srt__os_sock_close(f->wake[0]);
	srt__os_sock_close(f->wake[1]);
	pthread_cond_destroy(&f->hello_cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

size_t srt__dfilter_pending(struct srt__dfilter *f)
{
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = srt__decider_pending(f->link);
	pthread_mutex_unlock(&f->lock);
	return n;
}
