/* The request filters (proxies/filter-chain.h) where the proxy meets
 * them: an opaque tunnel's connection (CONNECT, SOCKS5), a plain request's
 * head and its response head. They run after the domain lists allowed
 * the target, so no filter can widen them.
 *
 * A filter that answers later parks the connection in SRT_PH_FILTER (the
 * loop serves the others meanwhile); the chain's completion stores the
 * outcome and calls the phase's step again, which meets the stored
 * outcome where it asked the chain the first time. A plain request's head
 * stays in c->in until then, so the step parses it again: the parsed head
 * is the loop's scratch, and another connection has used it meanwhile.
 *
 * A filter that wants the request body sees it before any of the request
 * reaches the upstream: the body is read into c->in behind the head (up
 * to SRT_FILTER_HOLD_MAX raw bytes), shown to the chain, and relayed from
 * there once the chain allows.
 *
 * Fail closed: anything the filters' answer cannot be applied to (too many
 * header lines, a body too large to hold) denies the request. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/conn.h"
#include "proxies/filter-chain.h"
#include "proxies/socks.h"

struct srt__fstate {
	struct srt__filter_txn *txn;
	struct srt_filter_conn fc;
	struct srt_filter_request fr;
	struct srt__fheaders fh;  /* the request's headers, as the filters left them */
	struct srt__fheaders rh;  /* the response's, until its head is written */
	char *cmd, *method, *url, *path; /* method, path, url: one block */
	size_t method_cap;        /* that block's size, kept between requests */
	bool request;             /* one request's passage, else a tunnel's */
	bool waiting, ready;      /* a step is pending / its outcome is stored */
	bool conn_stage;          /* a plain request's connection hooks are running */
	enum srt__filter_step step;
	struct srt__filter_outcome out;
	enum srt__phase resume_phase;
	void (*resume)(struct srt__conn *c);
	int status;
	uint64_t up_mark, down_mark; /* c->moved_up/down when it began */
	/* the request body shown to the filters: it stays in c->in after the
	 * head (nothing reaches the upstream before the verdict) */
	size_t body_off;          /* c->in offset of the next byte to show */
	enum srt__http_body body;
	uint64_t body_left;       /* SRT_BODY_LENGTH: bytes still to show */
	struct srt__chunked chunk;
	bool body_end;            /* the end was shown */
	bool continued;           /* 100 Continue sent to let the body come */
	size_t held;              /* c->in's size counted in p->filter_held */
	/* a filter rewrites the body as it goes upstream (ABI 1.3) */
	int rw_mode;              /* enum srt_filter_rewrite; 0: not rewritten */
	enum srt__http_body rw_in;
	uint64_t rw_left;         /* SRT_BODY_LENGTH: content bytes still to come */
	uint64_t rw_length;       /* SRT_BODY_LENGTH: the declared length */
	uint64_t rw_out;          /* content bytes the filter wrote */
	struct srt__chunked rw_chunk;
	bool rw_chunked_out;      /* sent chunked (the length may change) */
	bool rw_done;             /* the end was rewritten and queued */
	struct srt_filter_sink sink;
	struct srt__conn *conn;
};

/* The most raw body bytes held for the filters: their largest cap plus
 * the chunked framing around it. */
#define SRT_FILTER_HOLD_MAX (2 * (size_t)SRT_FILTER_BODY_MAX + 65536)
/* ... and across every connection at once: the sandboxed command opens as
 * many connections as it likes, and must not make srt hold gigabytes */
#define SRT_FILTER_HOLD_TOTAL ((size_t)256 << 20)

static bool chain_on(const struct srt__conn *c)
{
	return c->p->filters && srt__filter_chain_count(c->p->filters) > 0;
}

bool srt__filter_active(const struct srt__conn *c)
{
	return chain_on(c);
}

static const char *status_phrase(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 451: return "Unavailable For Legal Reasons";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return status < 500 ? "Request Denied" : "Filter Error";
	}
}

static void fstate_free(struct srt__fstate *f)
{
	srt__filter_txn_finish(f->txn, NULL);
	srt__fheaders_release(&f->fh);
	srt__fheaders_release(&f->rh);
	free(f->cmd);
	free(f->method); /* and path and url: one block */
	free(f);
}

/* The body is no longer held for the filters (decided, or the end). */
static void release_hold(struct srt__conn *c)
{
	if (c->f && c->f->held) {
		c->p->filter_held -= c->f->held;
		c->f->held = 0;
	}
}

/* The passage is over: every filter's finish hook, then nothing is left. */
static void finish(struct srt__conn *c)
{
	struct srt__fstate *f = c->f;
	struct srt_filter_summary sum;

	if (!f)
		return;
	release_hold(c);
	c->f = NULL;
	memset(&sum, 0, sizeof(sum));
	sum.size = sizeof(sum);
	sum.status = f->status;
	sum.bytes_up = c->moved_up - f->up_mark;
	sum.bytes_down = c->moved_down - f->down_mark;
	if (c->dead || c->f_spare) {
		srt__filter_txn_finish(f->txn, &sum);
		f->txn = NULL;
		fstate_free(f);
		return;
	}
	srt__filter_txn_end(f->txn, &sum);
	/* kept for the next request on this keep-alive connection, with what
	 * it allocated (the txn, the header lists' arrays and arenas, the
	 * method block, the command's id): a request then allocates nothing */
	srt__fheaders_clear(&f->fh);
	srt__fheaders_clear(&f->rh);
	{
		struct srt__fheaders fh = f->fh, rh = f->rh;
		struct srt__filter_txn *txn = f->txn;
		char *cmd = f->cmd, *method = f->method;
		size_t method_cap = f->method_cap;

		memset(f, 0, sizeof(*f));
		f->fh = fh;
		f->rh = rh;
		f->fh.api.impl = &f->fh;
		f->rh.api.impl = &f->rh;
		f->txn = txn;
		f->cmd = cmd;
		f->method = method;
		f->method_cap = method_cap;
	}
	c->f_spare = f;
}

void srt__filter_end(struct srt__conn *c)
{
	finish(c);
	if (c->dead && c->f_spare) {
		fstate_free(c->f_spare);
		c->f_spare = NULL;
	}
}

static struct srt__fstate *fstate_new(struct srt__conn *c, bool request)
{
	struct srt__fstate *f;

	finish(c); /* a kept-alive connection's previous request */
	f = c->f_spare;
	c->f_spare = NULL;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		srt__fheaders_init(&f->fh, SRT_HTTP_MAX_HEAD);
		srt__fheaders_init(&f->rh, SRT_HTTP_MAX_HEAD);
	}
	f->request = request;
	f->up_mark = c->moved_up;
	f->down_mark = c->moved_down;
	if (f->cmd && (!c->key || strcmp(f->cmd, c->key))) {
		free(f->cmd);
		f->cmd = NULL;
	}
	if (c->key && !f->cmd && !(f->cmd = strdup(c->key))) {
		fstate_free(f);
		return NULL;
	}
	f->fc.size = sizeof(f->fc);
	f->fc.host = c->canon;
	f->fc.port = (uint16_t)c->port;
	f->fc.command_id = f->cmd;
	f->fc.id = ++c->p->filter_ids;
	c->f = f;
	return f;
}

/* The chain's passage for f: the kept txn of the connection's last
 * request begun again, else a new one. false: out of memory. */
static bool txn_begin(struct srt__conn *c, struct srt__fstate *f)
{
	if (f->txn) {
		srt__filter_txn_restart(f->txn, &f->fc);
		return true;
	}
	return (f->txn = srt__filter_txn_new(c->p->filters, &f->fc)) != NULL;
}

/* The client's answer to a denial: the status and the reason (the filter's
 * own line, which names it), and the violation naming the filter. A tunnel
 * already answered (srt__tunnel_open) is closed: its client expects the
 * server's bytes now, not an HTTP status; its violation names the server
 * name the hook saw. */
static void refuse(struct srt__conn *c, int status, const char *filter, const char *reason)
{
	char line[900], body[sizeof(line) + 2], name[300] = "";
	uint8_t r[10];

	if (c->answered)
		snprintf(name, sizeof(name), c->sni[0] ? " (TLS server name %s)" :
			 " (no TLS server name)", c->sni);
	snprintf(line, sizeof(line), "request filter %s: %s%s", filter ? filter : "(proxy)",
		 reason && *reason ? reason : "denied", name);
	srt__conn_violation(c, line);
	if (c->f)
		c->f->status = status;
	finish(c);
	if (c->answered) {
		srt__reply_and_close(c, NULL, 0);
		return;
	}
	switch (c->kind) {
	case SRT_K_SOCKS:
		srt__socks_reply(r, 2);
		srt__reply_and_close(c, r, sizeof(r));
		break;
	case SRT_K_RAW:
		srt__reply_and_close(c, NULL, 0);
		break;
	default:
		snprintf(body, sizeof(body), "%s\n", line);
		srt__reply_http(c, status, status_phrase(status), "blocked-by-filter", body);
		break;
	}
}

static void refuse_outcome(struct srt__conn *c, const struct srt__filter_outcome *o)
{
	refuse(c, o->status >= 400 && o->status <= 599 ? o->status : SRT__FILTER_STATUS_ERROR,
	       o->filter, o->reason);
}

/* The chain's completion of a pending step (from srt__filter_chain_service
 * on the loop's thread). */
static void on_done(void *ctx, struct srt__filter_txn *txn, enum srt__filter_step step,
		    const struct srt__filter_outcome *out)
{
	struct srt__conn *c = ctx;
	struct srt__fstate *f = c->f;

	(void)txn;
	if (c->dead || !f || !f->waiting)
		return;
	f->waiting = false;
	f->ready = true;
	f->step = step;
	if (out)
		f->out = *out;
	else
		memset(&f->out, 0, sizeof(f->out));
	c->phase = f->resume_phase;
	f->resume(c);
	if (!c->dead)
		srt__conn_run(c);
}

static int park(struct srt__conn *c, void (*resume)(struct srt__conn *c))
{
	c->f->waiting = true;
	c->f->resume_phase = c->phase;
	c->f->resume = resume;
	c->phase = SRT_PH_FILTER;
	/* the chain answers within its own timeout; this deadline only
	 * guards against a chain that never does */
	srt__timed_set(c, SRT_HEAD_MS);
	return SRT__FILTER_PARKED;
}

/* The stored outcome of a pending step, met again by the step it resumed:
 * true when there was one (*step and *out set). */
static bool take_outcome(struct srt__conn *c, enum srt__filter_step *step,
			 struct srt__filter_outcome *out)
{
	if (!c->f || !c->f->ready)
		return false;
	c->f->ready = false;
	*step = c->f->step;
	*out = c->f->out;
	return true;
}

int srt__filter_connection(struct srt__conn *c, const char *scheme, const char *sni,
			   void (*resume)(struct srt__conn *c))
{
	struct srt__filter_outcome out;
	enum srt__filter_step step;

	if (!chain_on(c))
		return SRT__FILTER_GO;
	if (!take_outcome(c, &step, &out)) {
		struct srt__fstate *f = fstate_new(c, false);

		if (!f || !txn_begin(c, f)) {
			refuse(c, 503, NULL, "out of memory for the request filters");
			return SRT__FILTER_REFUSED;
		}
		f->fc.scheme = scheme;
		f->fc.sni = sni;
		memset(&out, 0, sizeof(out));
		step = srt__filter_txn_connection(f->txn, on_done, c, &out);
		if (step == SRT__FILTER_WAIT)
			return park(c, resume);
	}
	if (step != SRT__FILTER_DECIDED) {
		refuse(c, SRT__FILTER_STATUS_ERROR, out.filter, "the connection hook asked for a body");
		return SRT__FILTER_REFUSED;
	}
	if (out.verdict != SRT_FILTER_ALLOW) {
		refuse_outcome(c, &out);
		return SRT__FILTER_REFUSED;
	}
	return SRT__FILTER_GO; /* the tunnel's passage ends when it closes */
}

/* "http://host[:port]path" (brackets around an IPv6 host, no port when it
 * is 80) into `out`, which holds strlen(host) + path_len + 32 bytes (at
 * most 16 more are written). Runs for every filtered request: copies, not
 * printf. */
static void build_url(char *out, const char *host, bool v6, int port, const char *path,
		      size_t path_len)
{
	size_t hl = strlen(host), o = 0;
	char num[8];
	int k = 0;

	memcpy(out, "http://", 7);
	o = 7;
	if (v6)
		out[o++] = '[';
	memcpy(out + o, host, hl);
	o += hl;
	if (v6)
		out[o++] = ']';
	if (port != 80) {
		out[o++] = ':';
		for (unsigned v = (unsigned)port & 0xffff; k == 0 || v; v /= 10)
			num[k++] = (char)('0' + v % 10);
		while (k)
			out[o++] = num[--k];
	}
	memcpy(out + o, path, path_len + 1);
}

/* What a head's lines take in a header list (names, values, their NULs). */
static size_t head_bytes(const struct srt__http_head *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++)
		n += h->h[i].name_len + h->h[i].value_len + 2;
	return n;
}

static int fill_request(struct srt__conn *c, struct srt__fstate *f, const struct srt__http_head *h,
			const struct srt__http_request *r, const char *target, size_t target_len)
{
	bool v6 = strchr(c->canon, ':') != NULL;
	bool slash = target_len && target[0] == '/';
	size_t path_len = target_len + !slash;
	size_t url_cap = strlen(c->canon) + path_len + 32;
	/* the method, the path and the URL in one block (f->method frees
	 * it), kept for the connection's next request */
	size_t need = h->method_len + 1 + path_len + 1 + url_cap;

	f->fc.scheme = c->terminated ? "https" : "http";
	/* inside a terminated tunnel: the name its ClientHello asked for */
	f->fc.sni = c->terminated && c->tls_name[0] ? c->tls_name : NULL;
	if (need > f->method_cap) {
		char *b = realloc(f->method, need);

		if (!b)
			return -1;
		f->method = b;
		f->method_cap = need;
	}
	memcpy(f->method, h->method, h->method_len);
	f->method[h->method_len] = '\0';
	/* an empty origin target means "/" (and is sent as such) */
	f->path = f->method + h->method_len + 1;
	f->path[0] = '/';
	if (target_len)
		memcpy(f->path + !slash, target, target_len);
	f->path[path_len] = '\0';
	f->url = f->path + path_len + 1;
	build_url(f->url, c->canon, v6, c->port, f->path, path_len);
	/* room for every line in the list's arena: no allocation per line */
	srt__fheaders_reserve(&f->fh, head_bytes(h));
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];

		/* the sandbox's proxy credentials are srt's, not the request's */
		if (srt__http_name_is(hd, "proxy-authorization"))
			continue;
		if (srt__fheaders_add(&f->fh, hd->name, hd->name_len, hd->value, hd->value_len))
			return -1;
	}
	f->fr.size = sizeof(f->fr);
	f->fr.conn = &f->fc;
	f->fr.method = f->method;
	f->fr.url = f->url;
	f->fr.host = c->canon;
	f->fr.port = (uint16_t)c->port;
	f->fr.path = f->path;
	f->fr.content_length = r->body == SRT_BODY_LENGTH ? (long long)r->length :
			       r->body == SRT_BODY_NONE ? 0 : -1;
	f->fr.headers = &f->fh.api;
	f->fr.id = f->fc.id;
	return 0;
}

/* Point the head's header lines at the filters' list: what is sent is
 * what the filters left. Framing lines are the client's own (no filter
 * can change them), so the framing read from the head still holds. */
static int apply_headers(struct srt__http_head *h, const struct srt__fheaders *fh)
{
	if (fh->n > SRT_HTTP_MAX_HEADERS)
		return -1;
	for (size_t i = 0; i < fh->n; i++) {
		h->h[i].name = fh->names[i];
		h->h[i].name_len = strlen(fh->names[i]);
		h->h[i].value = fh->values[i];
		h->h[i].value_len = strlen(fh->values[i]);
	}
	h->n = fh->n;
	return 0;
}

int srt__filter_request(struct srt__conn *c, struct srt__http_head *h,
			const struct srt__http_request *r, const char *target, size_t target_len,
			size_t head_len)
{
	struct srt__filter_outcome out;
	enum srt__filter_step step;
	struct srt__fstate *f;

	if (!chain_on(c))
		return SRT__FILTER_GO;
	if (!take_outcome(c, &step, &out)) {
		f = fstate_new(c, true);
		if (!f || fill_request(c, f, h, r, target, target_len) < 0 ||
		    !txn_begin(c, f)) {
			refuse(c, 503, NULL, "out of memory for the request filters");
			return SRT__FILTER_REFUSED;
		}
		/* the connection hooks first: a filter that judges only where
		 * connections go must see plain requests too */
		memset(&out, 0, sizeof(out));
		f->conn_stage = true;
		step = srt__filter_txn_connection(f->txn, on_done, c, &out);
		if (step == SRT__FILTER_WAIT)
			return park(c, srt__serve_http_head);
	}
	f = c->f;
	if (f->conn_stage) {
		f->conn_stage = false;
		if (step != SRT__FILTER_DECIDED || out.verdict != SRT_FILTER_ALLOW) {
			if (step != SRT__FILTER_DECIDED)
				out.status = SRT__FILTER_STATUS_ERROR;
			refuse_outcome(c, &out);
			return SRT__FILTER_REFUSED;
		}
		/* a connection allowed is not a request allowed: every filter
		 * is asked about the request */
		memset(&out, 0, sizeof(out));
		step = srt__filter_txn_request_head(f->txn, &f->fr, on_done, c, &out);
		if (step == SRT__FILTER_WAIT)
			return park(c, srt__serve_http_head);
	}
	if (step == SRT__FILTER_BODY) {
		f = c->f;
		f->body_off = head_len;
		f->body = r->body;
		f->body_left = r->body == SRT_BODY_LENGTH ? r->length : 0;
		f->body_end = false;
		srt__chunked_init(&f->chunk);
		if (r->expect_continue && !f->continued) {
			if (srt__buf_add(&c->cout, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0) {
				srt__conn_close(c);
				return SRT__FILTER_REFUSED;
			}
			f->continued = true;
		}
		c->phase = SRT_PH_FILTER_BODY;
		return SRT__FILTER_PARKED;
	}
	if (out.verdict != SRT_FILTER_ALLOW) {
		refuse_outcome(c, &out);
		return SRT__FILTER_REFUSED;
	}
	if (apply_headers(h, &c->f->fh) < 0) {
		refuse(c, 431, out.filter, "the filters left too many header lines");
		return SRT__FILTER_REFUSED;
	}
	return SRT__FILTER_GO;
}

int srt__filter_response(struct srt__conn *c, struct srt__http_head *h,
			 const struct srt__http_response *r)
{
	struct srt__fstate *f = c->f;
	struct srt_filter_response resp;
	struct srt__filter_outcome out;

	if (!f || !f->request || !f->txn)
		return SRT__FILTER_GO;
	if (!srt__filter_chain_has_response_hooks(c->p->filters)) {
		f->status = h->status; /* for the finish hooks */
		return SRT__FILTER_GO;
	}
	srt__fheaders_clear(&f->rh);
	srt__fheaders_reserve(&f->rh, head_bytes(h));
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];

		if (srt__fheaders_add(&f->rh, hd->name, hd->name_len, hd->value, hd->value_len)) {
			refuse(c, SRT__FILTER_STATUS_ERROR, NULL,
			       "the response head could not be handed to the filters");
			return SRT__FILTER_REFUSED;
		}
	}
	memset(&resp, 0, sizeof(resp));
	resp.size = sizeof(resp);
	resp.request = &f->fr;
	resp.status = h->status;
	resp.headers = &f->rh.api;
	memset(&out, 0, sizeof(out));
	if (srt__filter_txn_response_head(f->txn, &resp, &out) != SRT__FILTER_DECIDED ||
	    out.verdict != SRT_FILTER_ALLOW) {
		if (out.verdict != SRT_FILTER_DENY)
			out.status = SRT__FILTER_STATUS_ERROR;
		refuse_outcome(c, &out);
		return SRT__FILTER_REFUSED;
	}
	if (apply_headers(h, &f->rh) < 0) {
		refuse(c, SRT__FILTER_STATUS_ERROR, out.filter,
		       "the filters left too many response header lines");
		return SRT__FILTER_REFUSED;
	}
	(void)r;
	f->status = h->status;
	return SRT__FILTER_GO;
}

bool srt__filter_continued(const struct srt__conn *c)
{
	return c->f && c->f->continued;
}

/* A pending body step completed: more body wanted, or the decision, which
 * the head's step meets again. */
static void body_resume(struct srt__conn *c)
{
	struct srt__fstate *f = c->f;

	if (f->step == SRT__FILTER_BODY) {
		f->ready = false;
		c->phase = SRT_PH_FILTER_BODY;
		return;
	}
	c->phase = SRT_PH_HTTP_HEAD;
}

/* Show `n` body bytes (or the end) to the chain. 1: more wanted, 0: the
 * step is pending or decided (the phase says which), -1: refused. */
static int show(struct srt__conn *c, const char *p, size_t n, bool end)
{
	struct srt__fstate *f = c->f;
	struct srt__filter_outcome out;
	enum srt__filter_step step;

	memset(&out, 0, sizeof(out));
	if (end)
		f->body_end = true;
	step = srt__filter_txn_body(f->txn, p, n, end, on_done, c, &out);
	if (step == SRT__FILTER_BODY) {
		if (f->body_end) {
			refuse(c, SRT__FILTER_STATUS_ERROR, NULL,
			       "the filters asked for more of a request body that has ended");
			return -1;
		}
		return 1;
	}
	if (step == SRT__FILTER_WAIT) {
		park(c, body_resume);
		c->f->resume_phase = SRT_PH_HTTP_HEAD;
		return 0;
	}
	/* decided: the head's step applies it, with the body still held
	 * (relayed from c->in from now on) */
	release_hold(c);
	f->ready = true;
	f->step = SRT__FILTER_DECIDED;
	f->out = out;
	c->phase = SRT_PH_HTTP_HEAD;
	return 0;
}

/* The next piece of body content in c->in: 1 and (*p, *n) set, or 0 when
 * more bytes must be read first; *end once the body is complete. -1 on a
 * framing error. */
static int next_piece(struct srt__conn *c, const char **p, size_t *n, bool *end)
{
	struct srt__fstate *f = c->f;
	const char *b = c->in.p;

	*end = false;
	*n = 0;
	switch (f->body) {
	case SRT_BODY_LENGTH:
		if (!f->body_left) {
			*end = true;
			return 1;
		}
		if (c->in.len <= f->body_off)
			return 0;
		*p = b + f->body_off;
		*n = c->in.len - f->body_off;
		if (*n > f->body_left)
			*n = (size_t)f->body_left;
		f->body_off += *n;
		f->body_left -= *n;
		return 1;
	case SRT_BODY_CHUNKED:
		while (f->body_off < c->in.len) {
			uint64_t left = srt__chunked_data_left(&f->chunk);
			bool done = false;

			if (left) {
				*p = b + f->body_off;
				*n = c->in.len - f->body_off;
				if (*n > left)
					*n = (size_t)left;
				srt__chunked_skip(&f->chunk, *n);
				f->body_off += *n;
				return 1;
			}
			/* framing: one byte at a time (sizes, CRLFs, trailers) */
			if (srt__chunked_feed(&f->chunk, b + f->body_off, 1, &done) != 1)
				return -1;
			f->body_off++;
			if (done) {
				*end = true;
				return 1;
			}
		}
		return 0;
	default:
		*end = true; /* no body */
		return 1;
	}
}

void srt__filter_body(struct srt__conn *c)
{
	struct srt__fstate *f = c->f;

	if (!f || !f->txn) {
		srt__conn_close(c);
		return;
	}
	for (;;) {
		const char *p = NULL;
		size_t n;
		bool end;
		int rc = next_piece(c, &p, &n, &end);

		if (rc < 0) {
			srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
					"malformed chunked request body\n");
			return;
		}
		if (rc > 0) {
			if ((n || end) && show(c, p, n, end) <= 0)
				return;
			continue;
		}
		if (c->in.len >= SRT_FILTER_HOLD_MAX) {
			refuse(c, 413, NULL, "the request body is too large to hold for the filters");
			return;
		}
		if (c->p->filter_held >= SRT_FILTER_HOLD_TOTAL) {
			refuse(c, 503, NULL, "too many request bodies are held for the filters at once");
			return;
		}
		rc = srt__io_fill(c->cio, &c->cs, &c->in, SRT_FILTER_HOLD_MAX);
		if (c->in.len > f->held) {
			c->p->filter_held += c->in.len - f->held;
			f->held = c->in.len;
			/* a body that keeps coming keeps its connection: the
			 * deadline is for a client that stalls */
			srt__timed_set(c, SRT_HEAD_MS);
		}
		if (rc == SRT_FILL_AGAIN)
			return;
		if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR) {
			srt__conn_close(c); /* a short body: nothing was forwarded */
			return;
		}
	}
}

/* ------------------------------------------------ rewriting the body */

bool srt__filter_rewriting(const struct srt__conn *c)
{
	return c->f && c->f->rw_mode;
}

int srt__filter_rewrite_plan(struct srt__conn *c, const struct srt__http_head *h,
			     struct srt__http_request *r)
{
	struct srt__fstate *f = c->f;
	int mode;

	if (!f || !f->txn || !(mode = srt__filter_txn_rewrite_mode(f->txn)))
		return 0;
	if (r->body == SRT_BODY_NONE || (r->body == SRT_BODY_LENGTH && r->length == 0))
		return 0; /* nothing to rewrite */
	if (r->body != SRT_BODY_LENGTH && r->body != SRT_BODY_CHUNKED) {
		refuse(c, SRT__FILTER_STATUS_ERROR, NULL, "a request body of unknown framing cannot be rewritten");
		return -1;
	}
	f->rw_mode = mode;
	f->rw_in = r->body;
	f->rw_left = f->rw_length = r->body == SRT_BODY_LENGTH ? r->length : 0;
	f->rw_out = 0;
	f->rw_done = false;
	srt__chunked_init(&f->rw_chunk);
	/* the client's Content-Length stays true only when every byte is
	 * replaced by one: otherwise the body goes chunked */
	f->rw_chunked_out = !(mode == SRT_FILTER_REWRITE_SAME_LENGTH && r->body == SRT_BODY_LENGTH);
	if (f->rw_chunked_out && h->minor == 0) {
		refuse(c, 505, NULL, "a request body whose length changes needs HTTP/1.1 (chunked)");
		return -1;
	}
	if (f->rw_chunked_out)
		r->body = SRT_BODY_CHUNKED;
	return 0;
}

static int sink_write(struct srt_filter_sink *sink, const void *p, size_t n)
{
	struct srt__fstate *f = sink->impl;
	struct srt__conn *c = f->conn;
	char size[24];
	int k;

	if (!n)
		return SRT_OK;
	if (f->rw_done)
		return SRT_E_STATE;
	if (!f->rw_chunked_out && f->rw_out + n > f->rw_length)
		return SRT_E_LIMIT; /* more than the Content-Length the upstream was told */
	f->rw_out += n;
	if (!f->rw_chunked_out)
		return srt__buf_add(&c->uout, p, n) < 0 ? SRT_E_NOMEM : SRT_OK;
	k = snprintf(size, sizeof(size), "%zx\r\n", n);
	if (srt__buf_add(&c->uout, size, (size_t)k) < 0 || srt__buf_add(&c->uout, p, n) < 0 ||
	    srt__buf_add(&c->uout, "\r\n", 2) < 0)
		return SRT_E_NOMEM;
	return SRT_OK;
}

/* The next piece of body content at the front of c->in, consumed from it
 * by the caller: 1 (*n bytes at *p, maybe 0, and *end), 0 read more, -1
 * malformed. Chunk framing is eaten here. */
static int rw_piece(struct srt__conn *c, const char **p, size_t *n, bool *end)
{
	struct srt__fstate *f = c->f;

	*end = false;
	*n = 0;
	*p = c->in.p;
	if (f->rw_in == SRT_BODY_LENGTH) {
		if (!f->rw_left) {
			*end = true;
			return 1;
		}
		if (!c->in.len)
			return 0;
		*n = c->in.len < f->rw_left ? c->in.len : (size_t)f->rw_left;
		f->rw_left -= *n;
		*end = !f->rw_left;
		return 1;
	}
	while (c->in.len) {
		uint64_t left = srt__chunked_data_left(&f->rw_chunk);
		bool done = false;

		if (left) {
			*n = c->in.len < left ? c->in.len : (size_t)left;
			srt__chunked_skip(&f->rw_chunk, *n);
			return 1;
		}
		/* framing: one byte at a time (sizes, CRLFs, trailers) */
		if (srt__chunked_feed(&f->rw_chunk, c->in.p, 1, &done) != 1)
			return -1;
		srt__buf_consume(&c->in, 1);
		c->moved_up++;
		if (done) {
			*end = true;
			*p = c->in.p;
			return 1;
		}
	}
	return 0;
}

/* Hand one piece to the filter; at the end, close the body. */
static int rw_step(struct srt__conn *c, const char *p, size_t n, bool end)
{
	struct srt__fstate *f = c->f;

	if (n && srt__filter_txn_rewrite(f->txn, p, n, 0, &f->sink) < 0)
		return -1;
	if (n) {
		srt__buf_consume(&c->in, n);
		c->moved_up += n;
	}
	if (!end)
		return 0;
	if (srt__filter_txn_rewrite(f->txn, NULL, 0, 1, &f->sink) < 0)
		return -1;
	if (f->rw_chunked_out) {
		if (srt__buf_add(&c->uout, "0\r\n\r\n", 5) < 0)
			return -1;
	} else if (f->rw_out != f->rw_length) {
		return -1; /* the filter broke its word: never send a lying length */
	}
	f->rw_done = true;
	return 0;
}

int srt__filter_relay_rewritten(struct srt__conn *c)
{
	struct srt__fstate *f = c->f;

	if (!f || !f->rw_mode)
		return -1;
	f->conn = c;
	f->sink.size = sizeof(f->sink);
	f->sink.write = sink_write;
	f->sink.impl = f;
	for (;;) {
		const char *p;
		size_t n;
		bool end;
		int rc = srt__io_flush(c->uio, &c->uout, &c->uout_off);

		if (rc <= 0)
			return rc; /* wait for the upstream, or failed */
		if (f->rw_done)
			return 1;
		rc = rw_piece(c, &p, &n, &end);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			if (rw_step(c, p, n, end) < 0)
				return -1;
			continue;
		}
		rc = srt__io_fill(c->cio, &c->cs, &c->in, SRT_BODY_BUF);
		if (rc == SRT_FILL_AGAIN)
			return 0;
		if (rc != SRT_FILL_DATA && rc != SRT_FILL_FULL)
			return -1; /* a short body: the upstream never sees its end */
	}
}
