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
	bool narrow;
	const struct srt_filter_host *host;
	srt__dfilter_dead_fn dead;
	void *dead_ctx;
	bool hello, is_dead;
	char why[256];
	struct srt__strv allowed, denied;
};

/* One request, kept in the call's per-filter data pointer. */
struct dreq {
	struct srt__dfilter *f;
	struct srt_filter_call *call; /* the pending call, NULL when none */
	uint64_t id;                  /* on the link; 0: not asked */
	bool asked_body;
	uint8_t *body;
	size_t blen;
	bool cut;
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
	ssize_t r = write(f->wake[1], &b, 1);

	(void)r; /* a full pipe already wakes the thread */
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

static void on_verdict(void *ctx, const struct srt__decider_verdict *v)
{
	struct dreq *r = ctx;
	char reason[SRT_FILTER_REASON_MAX];

	switch (v->action) {
	case SRT__DV_ALLOW:
		if (v->nset || v->cred)
			finish_call(r, SRT_FILTER_DENY, 403,
				    "plaintext_header_set: the decider's allow sets headers, "
				    "which this proxy does not apply; nothing was forwarded");
		else if (v->nremove)
			finish_call(r, SRT_FILTER_DENY, 403,
				    "the decider's allow removes headers, which this proxy does "
				    "not apply; nothing was forwarded");
		else
			finish_call(r, SRT_FILTER_CONTINUE, 0, NULL);
		return;
	case SRT__DV_DENY:
		snprintf(reason, sizeof(reason), "decider: %s",
			 v->reason ? v->reason : "denied by the decider");
		finish_call(r, SRT_FILTER_DENY, v->status, reason);
		return;
	case SRT__DV_NEED_BODY:
		if (!r->f->body_max) {
			srt__decider_cancel(r->f->link, v->id);
			finish_call(r, SRT_FILTER_ERROR, 502,
				    "the decider asked for the request body, and this filter "
				    "was not configured to collect one (bodyMax)");
			return;
		}
		r->asked_body = true;
		srt__decider_body(r->f->link, v->id, r->body,
				  r->blen < v->max ? r->blen : (size_t)v->max,
				  r->cut || r->blen > v->max, now_ms());
		return;
	case SRT__DV_UNAVAILABLE:
	default:
		snprintf(reason, sizeof(reason), "decider_unavailable: %s",
			 v->reason ? v->reason : "no verdict");
		finish_call(r, SRT_FILTER_DENY, 503, reason);
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
		poll(pf, 3, timeout);
		if (pf[0].revents & POLLIN) {
			char b[64];
			while (read(f->wake[0], b, sizeof(b)) > 0)
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

	if (!f || srt__os_pipe(f->wake, true) < 0) {
		snprintf(why, cap, "cannot start the decider link: %s", strerror(errno));
		close(cfg->in_fd);
		if (cfg->out_fd != cfg->in_fd)
			close(cfg->out_fd);
		free(f);
		return SRT_E_IO;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->hello_cond, NULL);
	f->child = cfg->child;
	f->body_max = cfg->body_max;
	f->narrow = cfg->narrow_by_hello;
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

/* The request as the protocol carries it: path and query split at the
 * first '?', Host given apart, every other header as received. */
static enum srt_filter_verdict ask(struct srt__dfilter *f, struct dreq *r,
				   struct srt_filter_request *req, struct srt_filter_call *call)
{
	struct srt__decider_field hs[SRT__DECIDER_REQ_VALUES_MAX + 1];
	struct srt__decider_req dr;
	char path[SRT__DECIDER_REQ_FIELD_MAX + 2], why[200], reason[SRT_FILTER_REASON_MAX];
	const char *q, *p = req->path ? req->path : "/";
	size_t n = req->headers ? req->headers->count(req->headers) : 0, i, k = 0;
	uint64_t id = 0;

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
	/* r->call stays NULL while asking: a link that dies inside the call
	 * (a failed write) must not complete a call before it was PENDING */
	r->call = NULL;
	if (srt__decider_ask(f->link, &dr, now_ms(), on_verdict, r, &id, why, sizeof(why)) < 0) {
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
	char reason[SRT_FILTER_REASON_MAX];

	if (!r)
		return deny_now(call, 503, "decider_unavailable: out of memory");
	pthread_mutex_lock(&f->lock);
	if (f->is_dead) {
		snprintf(reason, sizeof(reason), "decider_unavailable: %.200s", f->why);
		pthread_mutex_unlock(&f->lock);
		return deny_now(call, 503, reason);
	}
	if (f->hello && hello_refuses(f, req->host, req->port)) {
		pthread_mutex_unlock(&f->lock);
		return deny_now(call, 403, "host_not_allowed: the decider's lists refuse this host");
	}
	if (f->body_max) {
		/* the body first: the decider may ask for it */
		pthread_mutex_unlock(&f->lock);
		call->body_cap = f->body_max < SRT_FILTER_BODY_MAX ? f->body_max : SRT_FILTER_BODY_MAX;
		return SRT_FILTER_CONTINUE;
	}
	v = ask(f, r, req, call);
	pthread_mutex_unlock(&f->lock);
	return v;
}

enum srt_filter_verdict srt__dfilter_request_body(void *state, struct srt_filter_request *req,
						  const void *chunk, size_t len, int end,
						  int truncated, struct srt_filter_call *call)
{
	struct srt__dfilter *f = state;
	struct dreq *r = dreq_of(f, call);
	enum srt_filter_verdict v;

	if (!r)
		return deny_now(call, 503, "decider_unavailable: out of memory");
	if (len) {
		size_t room = f->body_max > r->blen ? f->body_max - r->blen : 0;
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
	if (f->is_dead) {
		char reason[SRT_FILTER_REASON_MAX];
		snprintf(reason, sizeof(reason), "decider_unavailable: %.200s", f->why);
		pthread_mutex_unlock(&f->lock);
		return deny_now(call, 503, reason);
	}
	v = ask(f, r, req, call);
	pthread_mutex_unlock(&f->lock);
	return v;
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
	close(f->wake[0]);
	close(f->wake[1]);
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
