/* The request-filter chain (proxies/filter-chain.c) driven with synthetic
 * requests and in-process filters: order, first decision wins, fail closed
 * (error, garbage, bad status, timeout), pending completions from another
 * thread, the body hook with its cap, the response hook, finish for every
 * filter, the library callback, and the header accessor's framing rule. */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proxies/filter-chain.h"
#include "tap.h"

/* A scripted filter: its config text is "VERDICT[:status]" for the head
 * hook, e.g. "deny:403", "allow", "continue", "error", "garbage",
 * "pending", "pending-thread", "never", "body:N" (ask N body bytes, deny 413
 * when the body was truncated), "badstatus". */
struct fake {
	char script[64];
	int heads, bodies, finishes, destroyed, cancels;
	size_t body_seen;
	int last_trunc;
	struct srt_filter_call *held;
	enum srt_filter_verdict finish_verdict;
	char finish_by[64];
};

static struct fake *fakes[8];
static int n_fakes;

static int f_create(const struct srt_filter_host *h, const char *cfg, void **st,
		    struct srt_filter_error *err)
{
	struct fake *f = calloc(1, sizeof(*f));

	(void)h;
	if (!cfg || !strcmp(cfg, "\"refuse\"")) {
		snprintf(err->path, sizeof(err->path), "mode");
		snprintf(err->message, sizeof(err->message), "no such mode");
		free(f);
		return SRT_E_INVAL;
	}
	snprintf(f->script, sizeof(f->script), "%s", cfg);
	fakes[n_fakes++] = f;
	*st = f;
	return SRT_OK;
}

static void f_destroy(void *st)
{
	struct fake *f = st;

	if (f->held) {
		f->held->complete(f->held, SRT_FILTER_ERROR);
		f->held = NULL;
	}
	f->destroyed = 1;
}

static void *later(void *arg)
{
	struct srt_filter_call *c = arg;

	usleep(20000);
	c->status = 451;
	snprintf(c->reason, sizeof(c->reason), "decided on a thread");
	c->complete(c, SRT_FILTER_DENY);
	return NULL;
}

static enum srt_filter_verdict script(struct fake *f, struct srt_filter_call *c)
{
	const char *s = f->script;

	if (!strncmp(s, "deny:", 5)) {
		c->status = atoi(s + 5);
		snprintf(c->reason, sizeof(c->reason), "scripted denial\nsecond line");
		return SRT_FILTER_DENY;
	}
	if (!strcmp(s, "allow"))
		return SRT_FILTER_ALLOW;
	if (!strcmp(s, "continue"))
		return SRT_FILTER_CONTINUE;
	if (!strcmp(s, "error")) {
		snprintf(c->reason, sizeof(c->reason), "backend unreachable");
		return SRT_FILTER_ERROR;
	}
	if (!strcmp(s, "badstatus")) {
		c->status = 200;
		return SRT_FILTER_DENY;
	}
	if (!strcmp(s, "pending") || !strcmp(s, "never")) {
		f->held = c;
		return SRT_FILTER_PENDING;
	}
	if (!strcmp(s, "pending-thread")) {
		pthread_t th;

		pthread_create(&th, NULL, later, c);
		pthread_detach(th);
		return SRT_FILTER_PENDING;
	}
	if (!strncmp(s, "body:", 5)) {
		c->body_cap = (size_t)atol(s + 5);
		return SRT_FILTER_CONTINUE;
	}
	return (enum srt_filter_verdict)77;
}

static enum srt_filter_verdict f_conn(void *st, const struct srt_filter_conn *conn,
				      struct srt_filter_call *c)
{
	(void)conn;
	return script(st, c);
}

static enum srt_filter_verdict f_head(void *st, struct srt_filter_request *req,
				      struct srt_filter_call *c)
{
	struct fake *f = st;

	(void)req;
	f->heads++;
	*c->data = f; /* per-request pointer survives to finish */
	return script(f, c);
}

static enum srt_filter_verdict f_body(void *st, struct srt_filter_request *req,
				      const void *chunk, size_t len, int end, int truncated,
				      struct srt_filter_call *c)
{
	struct fake *f = st;

	(void)req;
	(void)chunk;
	f->bodies++;
	f->body_seen += len;
	if (end && truncated) {
		f->last_trunc = 1;
		c->status = 413;
		snprintf(c->reason, sizeof(c->reason), "body too large");
		return SRT_FILTER_DENY;
	}
	return SRT_FILTER_CONTINUE;
}

static enum srt_filter_verdict f_resp(void *st, struct srt_filter_response *r,
				      struct srt_filter_call *c)
{
	(void)st;
	(void)c;
	r->headers->remove(r->headers, "X-Secret");
	return SRT_FILTER_CONTINUE;
}

static void f_finish(void *st, const struct srt_filter_conn *conn,
		     const struct srt_filter_request *req, const struct srt_filter_summary *s,
		     void **data)
{
	struct fake *f = st;

	(void)conn;
	(void)req;
	f->finishes++;
	f->finish_verdict = s->verdict;
	snprintf(f->finish_by, sizeof(f->finish_by), "%s", s->decided_by ? s->decided_by : "");
	*data = NULL;
}

static void f_cancel(void *st, struct srt_filter_call *c)
{
	struct fake *f = st;

	(void)c;
	f->cancels++;
}

static const struct srt_filter fake_vt = {
	.hdr = { SRT_FILTER_MAGIC, SRT_FILTER_ABI_MAJOR, SRT_FILTER_ABI_MINOR,
		 sizeof(struct srt_filter), "fake" },
	.create = f_create,
	.destroy = f_destroy,
	.connection = f_conn,
	.request_head = f_head,
	.request_body = f_body,
	.response_head = f_resp,
	.finish = f_finish,
	.cancel = f_cancel,
};

static struct srt_filter_conn conn = {
	.size = sizeof(conn), .host = "example.com", .port = 80, .scheme = "http", .id = 1,
};

struct waiter {
	int called;
	enum srt__filter_step step;
	struct srt__filter_outcome out;
};

static void on_done(void *ctx, struct srt__filter_txn *t, enum srt__filter_step step,
		    const struct srt__filter_outcome *o)
{
	struct waiter *w = ctx;

	(void)t;
	w->called++;
	w->step = step;
	w->out = *o;
}

/* Service the chain until the waiter is called or ms pass. */
static void pump(struct srt__filter_chain *ch, struct waiter *w, int ms)
{
	struct pollfd p = { .fd = srt__filter_chain_fd(ch), .events = POLLIN };
	int waited = 0;

	while (!w->called && waited < ms) {
		if (poll(&p, 1, 10) > 0)
			srt__filter_chain_service(ch);
		waited += 10;
	}
}

static struct srt__filter_chain *chain(unsigned timeout_ms, const char *const *scripts)
{
	struct srt__filter_chain *ch = NULL;
	struct srt_filter_error err;
	char name[16];
	int i;

	/* the previous chain's fakes are done with */
	while (n_fakes > 0)
		free(fakes[--n_fakes]);
	if (srt__filter_chain_new(timeout_ms, NULL, NULL, &ch) != SRT_OK)
		return NULL;
	for (i = 0; scripts[i]; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (srt__filter_chain_add(ch, &fake_vt, name, scripts[i], &err) != SRT_OK) {
			srt__filter_chain_free(ch);
			return NULL;
		}
	}
	return ch;
}

static struct srt_filter_request mkreq(struct srt__fheaders *fh)
{
	struct srt_filter_request r = {
		.size = sizeof(r), .conn = &conn, .method = "GET",
		.url = "http://example.com/x", .host = "example.com", .port = 80, .path = "/x",
		.content_length = -1, .headers = &fh->api, .id = 7,
	};
	return r;
}

static enum srt__filter_step head(struct srt__filter_chain *ch, struct srt__filter_txn **tp,
				  struct waiter *w, struct srt__filter_outcome *o,
				  struct srt__fheaders *fh, struct srt_filter_request *r)
{
	srt__fheaders_init(fh, 8192);
	srt__fheaders_add(fh, "Host", 4, "example.com", 11);
	*r = mkreq(fh);
	*tp = srt__filter_txn_new(ch, &conn);
	memset(w, 0, sizeof(*w));
	return srt__filter_txn_request_head(*tp, r, on_done, w, o);
}

static void test_order_and_first_decision(void)
{
	static const char *const s[] = { "continue", "deny:403", "allow", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;

	ok(ch != NULL, "chain built");
	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED, "decided synchronously");
	ok(o.verdict == SRT_FILTER_DENY && o.status == 403, "the first non-continue verdict wins");
	ok(o.filter && !strcmp(o.filter, "f1"), "the outcome names the filter (%s)", o.filter);
	ok(!strchr(o.reason, '\n') && contains(o.reason, "scripted denial"),
	   "the reason is one line (%s)", o.reason);
	ok(fakes[0]->heads == 1 && fakes[1]->heads == 1 && fakes[2]->heads == 0,
	   "filters run in order and stop at the decision");
	srt__filter_txn_finish(t, NULL);
	ok(fakes[0]->finishes == 1 && fakes[1]->finishes == 1 && fakes[2]->finishes == 1,
	   "finish runs for every filter, also the one never asked");
	ok(fakes[2]->finish_verdict == SRT_FILTER_DENY && !strcmp(fakes[2]->finish_by, "f1"),
	   "finish sees the verdict and who decided");
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_all_continue_allows(void)
{
	static const char *const s[] = { "continue", "continue", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED && o.verdict == SRT_FILTER_ALLOW &&
	   o.filter == NULL, "every filter continuing allows, decided by nobody");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void fail_closed_case(const char *script, int status, const char *want)
{
	const char *s[] = { script, "allow", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED && o.verdict == SRT_FILTER_DENY &&
	   o.status == status && contains(o.reason, "\"f0\"") && contains(o.reason, want),
	   "%s: denied %d naming the filter (%s)", script, o.status, o.reason);
	ok(fakes[1]->heads == 0, "%s: the next filter is not asked", script);
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_fail_closed(void)
{
	fail_closed_case("error", 502, "backend unreachable");
	fail_closed_case("garbage", 502, "unknown verdict");
	fail_closed_case("badstatus", 502, "outside 400-599");
}

static void test_pending_thread(void)
{
	static const char *const s[] = { "pending-thread", "allow", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_WAIT, "a pending filter makes the step wait");
	ok(w.called == 0, "done is not called from inside the step");
	pump(ch, &w, 2000);
	ok(w.called == 1 && w.step == SRT__FILTER_DECIDED && w.out.verdict == SRT_FILTER_DENY &&
	   w.out.status == 451 && !strcmp(w.out.filter, "f0"),
	   "the completion from another thread arrives through the chain's descriptor");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_pending_then_continue(void)
{
	static const char *const s[] = { "pending", "deny:401", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_WAIT, "pending");
	fakes[0]->held->complete(fakes[0]->held, SRT_FILTER_CONTINUE);
	fakes[0]->held = NULL;
	pump(ch, &w, 2000);
	ok(w.called == 1 && w.out.verdict == SRT_FILTER_DENY && w.out.status == 401 &&
	   fakes[1]->heads == 1, "a pending CONTINUE resumes the chain at the next filter");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_timeout(void)
{
	static const char *const s[] = { "never", NULL };
	struct srt__filter_chain *ch = chain(100, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;
	struct srt_filter_call *late;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_WAIT, "pending forever");
	pump(ch, &w, 3000);
	ok(w.called == 1 && w.out.verdict == SRT_FILTER_DENY && w.out.status == 503 &&
	   contains(w.out.reason, "\"f0\"") && contains(w.out.reason, "100 ms"),
	   "no answer within the timeout denies 503 naming the filter (%s)", w.out.reason);
	ok(fakes[0]->cancels == 1, "the filter is told its call is no longer wanted");
	srt__filter_txn_finish(t, NULL);
	/* the late answer must not touch the finished txn */
	late = fakes[0]->held;
	fakes[0]->held = NULL;
	late->status = 403;
	late->complete(late, SRT_FILTER_DENY);
	memset(&w, 0, sizeof(w));
	pump(ch, &w, 100);
	ok(w.called == 0, "a late completion is dropped");
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_abandon_and_destroy(void)
{
	static const char *const s[] = { "pending", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;
	struct fake *f;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_WAIT, "pending");
	f = fakes[0];
	srt__filter_txn_finish(t, NULL); /* the client went away */
	ok(f->finishes == 1 && f->finish_verdict == SRT_FILTER_DENY,
	   "a request that ends undecided is reported as not allowed");
	ok(f->cancels == 1, "and its pending call is cancelled");
	srt__filter_chain_free(ch); /* destroy completes the held call */
	ok(f->destroyed == 1, "destroy ran and the held completion was freed");
	srt__fheaders_release(&fh);
}

static void test_body(void)
{
	static const char *const s[] = { "body:10", "continue", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;
	const void *held;
	size_t n;
	int end;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_BODY, "a filter asking for the body: BODY");
	ok(srt__filter_txn_body(t, "abcd", 4, 0, on_done, &w, &o) == SRT__FILTER_BODY,
	   "4 bytes of a 10-byte cap: more wanted");
	ok(srt__filter_txn_body(t, "efgh", 4, 1, on_done, &w, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_ALLOW, "the whole body under the cap: allowed");
	ok(fakes[0]->body_seen == 8 && !fakes[0]->last_trunc && fakes[1]->heads == 1,
	   "the filter saw all 8 bytes, then the next filter ran");
	held = srt__filter_txn_held_body(t, &n, &end);
	ok(n == 8 && end && !memcmp(held, "abcdefgh", 8), "the held body is there to send upstream");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_BODY, "again");
	ok(srt__filter_txn_body(t, "0123456789ABCDEF", 16, 0, on_done, &w, &o) ==
	   SRT__FILTER_DECIDED && o.verdict == SRT_FILTER_DENY && o.status == 413,
	   "past the cap the filter is told the body was truncated, and decides");
	ok(fakes[0]->body_seen == 8 + 10, "it saw no more than its cap");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static enum srt_filter_verdict lib_cb(void *ctx, struct srt_filter_request *req,
				      struct srt_filter_call *c)
{
	int *n = ctx;

	(*n)++;
	if (!strcmp(req->method, "GET"))
		return SRT_FILTER_CONTINUE;
	c->status = 405;
	snprintf(c->reason, sizeof(c->reason), "library says no");
	return SRT_FILTER_DENY;
}

static void test_callback(void)
{
	static const char *const s[] = { "continue", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct waiter w;
	int calls = 0;

	srt__filter_chain_set_callback(ch, lib_cb, &calls);
	ok(srt__filter_chain_count(ch) == 2, "the callback counts as a filter");
	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED && o.verdict == SRT_FILTER_ALLOW &&
	   calls == 1, "the callback runs after the modules");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__fheaders_init(&fh, 8192);
	r = mkreq(&fh);
	r.method = "DELETE";
	t = srt__filter_txn_new(ch, &conn);
	ok(srt__filter_txn_request_head(t, &r, on_done, &w, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_DENY && o.status == 405 &&
	   !strcmp(o.filter, "request-filter callback"), "the callback can deny, and is named");
	srt__filter_txn_finish(t, NULL);
	t = srt__filter_txn_new(ch, &conn);
	ok(srt__filter_txn_connection(t, on_done, &w, &o) == SRT__FILTER_DECIDED &&
	   calls == 2, "the callback does not see bare connections");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

static void test_response_head(void)
{
	static const char *const s[] = { "continue", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt__fheaders fh, rh;
	struct srt_filter_response resp;
	struct waiter w;

	head(ch, &t, &w, &o, &fh, &r);
	srt__fheaders_init(&rh, 8192);
	srt__fheaders_add(&rh, "X-Secret", 8, "s3", 2);
	srt__fheaders_add(&rh, "Content-Type", 12, "text/plain", 10);
	resp = (struct srt_filter_response){ sizeof(resp), &r, 200, &rh.api };
	ok(srt__filter_txn_response_head(t, &resp, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_ALLOW && rh.n == 1 && !strcmp(rh.names[0], "Content-Type"),
	   "the response hook strips a header");
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__fheaders_release(&rh);
	srt__filter_chain_free(ch);
}

static void test_headers(void)
{
	static const char *const fr[] = { "Host", "content-length", "Transfer-Encoding",
					  "CONNECTION", "Upgrade", "TE", "Trailer", "Keep-Alive",
					  "Proxy-Connection", NULL };
	struct srt__fheaders fh;
	struct srt_filter_headers *h = &fh.api;
	const char *n, *v;
	int i, refused = 0;

	srt__fheaders_init(&fh, 64);
	srt__fheaders_add(&fh, "Host", 4, "a.example", 9);
	srt__fheaders_add(&fh, "Accept", 6, "x", 1);
	srt__fheaders_add(&fh, "accept", 6, "y", 1);
	for (i = 0; fr[i]; i++)
		refused += h->set(h, fr[i], "v") == SRT_E_INVAL && h->remove(h, fr[i]) == SRT_E_INVAL;
	ok(refused == 9, "all nine framing headers can be neither set nor removed (%d)", refused);
	ok(!strcmp(h->get(h, "HOST"), "a.example"), "framing headers can be read, any case");
	ok(h->set(h, "X-Bad", "a\r\nInjected: 1") == SRT_E_INVAL, "CR/LF in a value is refused");
	ok(h->set(h, "Bad Name", "v") == SRT_E_INVAL && h->set(h, "", "v") == SRT_E_INVAL,
	   "a name that is not a token is refused");
	ok(h->set(h, "Accept", "z") == SRT_OK && h->count(h) == 2 &&
	   h->at(h, 1, &n, &v) == SRT_OK && !strcmp(v, "z"), "set replaces every line of the name");
	ok(h->set(h, "X-Long", "0123456789012345678901234567890123456789012345678901234567") ==
	   SRT_E_LIMIT, "the head cannot grow past its limit");
	ok(h->remove(h, "accept") == SRT_OK && h->count(h) == 1, "remove drops the lines");
	ok(h->at(h, 5, &n, &v) == SRT_E_INVAL, "at() past the end is refused");
	srt__fheaders_release(&fh);
}

static void test_create_error(void)
{
	struct srt__filter_chain *ch = NULL;
	struct srt_filter_error err;

	srt__filter_chain_new(0, NULL, NULL, &ch);
	ok(srt__filter_chain_add(ch, &fake_vt, "x", "\"refuse\"", &err) == SRT_E_INVAL &&
	   !strcmp(err.path, "mode") && !strcmp(err.message, "no such mode") &&
	   srt__filter_chain_count(ch) == 0,
	   "a create() failure comes back with its key path, and the filter is not added");
	srt__filter_chain_free(ch);
}

/* A keep-alive connection's txn is ended and begun again instead of freed
 * and allocated: each passage's finish hooks run once, a second request
 * starts from a clean decision, and freeing an ended txn calls no hook. */
static void test_txn_kept(void)
{
	static const char *const s[] = { "continue", "deny:403", NULL };
	struct srt__filter_chain *ch = chain(0, s);
	struct srt__filter_outcome o;
	struct srt__filter_txn *t;
	struct srt_filter_request r;
	struct srt_filter_summary sum = { .size = sizeof(sum), .status = 403 };
	struct srt__fheaders fh;
	struct waiter w;

	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED && o.verdict == SRT_FILTER_DENY,
	   "first request decided");
	srt__filter_txn_end(t, &sum);
	ok(fakes[0]->finishes == 1 && fakes[1]->finishes == 1 &&
	   fakes[1]->finish_verdict == SRT_FILTER_DENY, "ending it runs the finish hooks once");
	srt__filter_txn_end(t, &sum);
	ok(fakes[0]->finishes == 1, "ending an ended txn runs nothing");
	srt__filter_txn_restart(t, &conn);
	memset(&o, 0, sizeof(o));
	ok(srt__filter_txn_request_head(t, &r, on_done, &w, &o) == SRT__FILTER_DECIDED &&
	   o.verdict == SRT_FILTER_DENY && fakes[0]->heads == 2 && fakes[1]->heads == 2,
	   "the kept txn runs the next request through every filter again");
	srt__filter_txn_finish(t, NULL);
	ok(fakes[0]->finishes == 2 && fakes[1]->finishes == 2,
	   "finishing the restarted txn runs the hooks of its passage");
	srt__fheaders_release(&fh);
	ok(head(ch, &t, &w, &o, &fh, &r) == SRT__FILTER_DECIDED, "a third txn");
	srt__filter_txn_end(t, NULL);
	srt__filter_txn_finish(t, NULL);
	ok(fakes[0]->finishes == 3, "freeing an ended txn runs no hook twice (%d)",
	   fakes[0]->finishes);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
}

/* A header list with an arena: the received lines go into it, what a
 * filter sets past its room gets a block of its own, and a cleared list
 * serves the next request from the same arena. */
static void test_headers_arena(void)
{
	struct srt__fheaders fh;
	struct srt_filter_headers *h = &fh.api;
	const char *n, *v;
	char *arena = NULL, big[3000];
	int round, good = 0;

	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	srt__fheaders_init(&fh, 8192);
	for (round = 0; round < 3; round++) {
		srt__fheaders_reserve(&fh, 4 + 11 + 2 + 6 + 3 + 2);
		if (round == 0)
			arena = fh.arena;
		good += fh.arena != NULL && fh.arena == arena;
		good += srt__fheaders_add(&fh, "Host", 4, "example.com", 11) == SRT_OK &&
			srt__fheaders_add(&fh, "Accept", 6, "*/*", 3) == SRT_OK &&
			!fh.own[0] && !fh.own[1];
		/* a value larger than the arena's room gets a block of its own */
		good += h->set(h, "Accept", "text/plain") == SRT_OK &&
			h->set(h, "X-Added", big) == SRT_OK && fh.own[2];
		good += h->count(h) == 3 && h->at(h, 0, &n, &v) == SRT_OK &&
			!strcmp(n, "Host") && !strcmp(v, "example.com") &&
			!strcmp(h->get(h, "accept"), "text/plain") && !strcmp(h->get(h, "x-added"), big);
		good += h->remove(h, "Accept") == SRT_OK && h->count(h) == 2 &&
			h->at(h, 1, &n, &v) == SRT_OK && !strcmp(n, "X-Added");
		srt__fheaders_clear(&fh);
		good += h->count(h) == 0 && fh.bytes == 0;
	}
	ok(good == 18, "lines in the arena and in blocks of their own read, change and go alike, "
	   "three requests on one arena (%d of 18)", good);
	srt__fheaders_release(&fh);
}

int main(void)
{
	TAP_RUN(test_order_and_first_decision);
	TAP_RUN(test_all_continue_allows);
	TAP_RUN(test_fail_closed);
	TAP_RUN(test_pending_thread);
	TAP_RUN(test_pending_then_continue);
	TAP_RUN(test_timeout);
	TAP_RUN(test_abandon_and_destroy);
	TAP_RUN(test_body);
	TAP_RUN(test_callback);
	TAP_RUN(test_response_head);
	TAP_RUN(test_headers);
	TAP_RUN(test_create_error);
	TAP_RUN(test_txn_kept);
	TAP_RUN(test_headers_arena);
	return tap_done();
}
