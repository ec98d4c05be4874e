/* HTTP clients: the request head (authentication, the policy, the
 * rewritten head), request and response bodies, the response head. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxies/auth.h"
#include "proxies/conn.h"
#include "proxies/wire.h"

static const char *const auth_required =
	"HTTP/1.1 407 Proxy Authentication Required\r\n"
	"Proxy-Authenticate: Basic realm=\"srt\"\r\n";

static const char ambiguous_refusal[] =
	"ambiguous request-target: as spelled and normalized it names different paths "
	"(a dot segment, leading slashes or \"\\\"); nothing was forwarded "
	"(network.ambiguousRequestTarget in the sandbox's configuration is \"refuse\")\n";

/* A target whose path reads two ways (proxies/net-config.h) is refused,
 * forwarded as spelled, or replaced by its normalised form, before
 * anything judges or forwards the path. Returns 0 to go on (the target
 * may now point into *norm, the caller's to free), -1 once the client has
 * been answered or the connection closed. */
int srt__http_target_check(struct srt__conn *c, struct srt__http_request *r, char **norm)
{
	enum srt__target_mode mode;

	if (!srt__http_target_ambiguous(r->origin_target, r->origin_target_len))
		return 0;
	pthread_mutex_lock(&c->p->lock);
	mode = c->p->rules->ambiguous_target;
	pthread_mutex_unlock(&c->p->lock);
	if (mode == SRT_TARGET_AS_SPELLED)
		return 0;
	if (mode == SRT_TARGET_REFUSE) {
		srt__conn_violation(c, "ambiguous request-target");
		srt__reply_http(c, 400, "Bad Request", "ambiguous-request-target",
				ambiguous_refusal);
		return -1;
	}
	*norm = malloc(r->origin_target_len);
	if (!*norm) {
		srt__conn_close(c);
		return -1;
	}
	r->origin_target_len = srt__http_target_normalize(r->origin_target, r->origin_target_len,
							  *norm, r->origin_target_len);
	r->origin_target = *norm;
	return 0;
}

/* The CONNECT asks for its tunnel to be served as plain HTTP
 * (proxies/wire.h): exactly one such line, with the value "http". */
static bool serve_as_http(const struct srt__http_head *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n; i++)
		if (srt__http_name_is(&h->h[i], SRT_SERVE_HTTP_NAME)) {
			if (h->h[i].value_len != 4 || strncasecmp(h->h[i].value, "http", 4))
				return false;
			n++;
		}
	return n == 1;
}

void srt__serve_http_head(struct srt__conn *c)
{
	struct srt__http_head *h;
	struct srt__http_request r;
	struct srt__http_refusal why = { 0, NULL };
	char *norm = NULL;
	int len;
	bool bad, authed;

	if (c->terminated || c->inner_http) {
		srt__tls_serve_head(c);
		return;
	}
	h = &c->p->head;
	len = srt__io_read_head(c->cio, &c->cs, &c->in, SRT_HTTP_MAX_HEAD, srt__http_parse_request, h);
	if (len == SRT_HEAD_AGAIN)
		goto out;
	if (len == SRT_HEAD_CLOSED) {
		/* EOF or error before a full head: nothing to answer */
		srt__conn_close(c);
		goto out;
	}
	c->kind = SRT_K_HTTP_PLAIN;
	if (len == SRT_HTTP_TOO_BIG) {
		srt__reply_http(c, 431, "Request Header Fields Too Large", NULL,
			    "request header fields too large\n");
		goto out;
	}
	if (len < 0) {
		srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
			    "malformed request\n");
		goto out;
	}
	bad = srt__http_analyze_request(h, &r, &why) < 0;
	c->kind = r.is_connect ? SRT_K_HTTP_CONNECT : SRT_K_HTTP_PLAIN;
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
		srt__reply_text(c, msg);
		goto out;
	}
	if (bad) {
		if (r.is_connect || (h->method_len == 7 && !memcmp(h->method, "CONNECT", 7))) {
			c->kind = SRT_K_HTTP_CONNECT;
			srt__reply_text(c, "HTTP/1.1 400 Bad Request\r\n\r\n");
		} else {
			char body[300];
			snprintf(body, sizeof(body), "%s\n", why.reason);
			srt__reply_http(c, why.status, why.status == 421 ? "Misdirected Request" :
				    why.status == 431 ? "Request Header Fields Too Large" :
				    "Bad Request", "blocked-by-sandbox-runtime", body);
		}
		goto out;
	}
	srt__copy_str(c->host, sizeof(c->host), r.host);
	c->port = r.port;
	if (!r.is_connect && h->minor == 1 && !r.has_host && srt__rule_flag(c, SRT_FLAG_REQUIRE_HOST)) {
		srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
			    "HTTP/1.1 request without a Host header\n");
		goto out;
	}
	/* known before the judgement: a refused intercepted port-80
	 * connection gets the HTTP answer, not a reset (the requests inside
	 * such a tunnel come back here and keep the flag) */
	if (r.is_connect)
		c->inner_http = serve_as_http(h);
	/* a question to the application brings this function back with
	 * the head still in c->in */
	if (srt__conn_judge(c, srt__serve_http_head) != SRT__ASK_GO)
		goto out;
	srt__net_canon(c->host, c->canon, sizeof(c->canon));
	if (r.is_connect) {
		if (!c->inner_http && srt__rule_flag(c, SRT_FLAG_REFUSE_OPAQUE) &&
		    !srt__tls_may_take(c)) {
			/* this tunnel would not be TLS-terminated nor served as
			 * HTTP: nothing in it could be inspected */
			srt__reply_http(c, 403, "Forbidden", "blocked-by-sandbox-runtime",
				    "this proxy does not tunnel CONNECTs it cannot inspect");
			goto out;
		}
		srt__buf_consume(&c->in, (size_t)len);
		/* a plain request before this one on the same connection may
		 * have left its upstream open for reuse: the tunnel gets its
		 * own, and the old one must not stay registered */
		srt__close_upstream(c);
		if (srt__filter_active(c) && !c->inner_http) {
			/* an opaque tunnel meets the connection hook only, once
			 * its ClientHello's server name is known; one served as
			 * HTTP meets every hook with each of its requests */
			srt__tunnel_open(c);
			goto out;
		}
		if (srt__choose_route(c, false) < 0) {
			srt__conn_close(c);
			goto out;
		}
		srt__dial(c);
		goto out;
	}
	/* plain HTTP: the rewritten head goes out first */
	if (srt__http_target_check(c, &r, &norm) < 0)
		goto out;
	/* the filters judge the target as it will be sent; a pending
	 * verdict brings this function back with the head still in c->in */
	if (srt__filter_request(c, h, &r, r.origin_target, r.origin_target_len, (size_t)len) !=
	    SRT__FILTER_GO)
		goto out;
	if (srt__filter_rewrite_plan(c, h, &r) < 0)
		goto out;
	if (srt__choose_route(c, true) < 0) {
		srt__conn_close(c);
		goto out;
	}
	srt__buf_free(&c->uout);
	c->uout_off = 0;
	if (srt__buf_reserve(&c->uout, (size_t)len + 1024) < 0) {
		srt__conn_close(c);
		goto out;
	}
	c->uout.len = srt__http_build_upstream(h, &r, c->canon, c->via ? c->via->auth : NULL,
					       c->uout.p, c->uout.cap);
	if (c->uout.len == 0) {
		srt__conn_close(c);
		goto out;
	}
	if (r.expect_continue && !srt__filter_continued(c) &&
	    srt__buf_add(&c->cout, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0) {
		srt__conn_close(c);
		goto out;
	}
	c->keep_alive = r.keep_alive;
	c->upgrade = r.upgrade;
	c->head_request = h->method_len == 4 && memcmp(h->method, "HEAD", 4) == 0;
	c->req_body = r.body;
	c->req_left = r.length;
	srt__chunked_init(&c->chunk);
	srt__buf_consume(&c->in, (size_t)len);
	srt__timed_clear(c);
	if (c->ul.fd >= 0 && c->up_port == c->port && c->up_route == c->route &&
	    strcmp(c->up_canon, c->canon) == 0 && c->up_gen == atomic_load(&c->p->gen)) {
		/* same origin as the previous request, under the same rules:
		 * reuse the checked connection (no new lookup). After an
		 * update it is dialled again, so the new rules' address
		 * guard sees where it goes. */
		c->phase = SRT_PH_HTTP_REQBODY;
		goto out;
	}
	{
		/* keep the head for the new connection */
		struct srt__buf keep = c->uout;
		c->uout.p = NULL;
		srt__close_upstream(c);
		c->uout = keep;
	}
	srt__dial(c);
out:
	free(norm);
}

/* Relay a framed body from src to dst. Returns 1 when the body is
 * complete, 0 to wait, -1 on error. */
static int relay_framed(struct srt__conn *c, struct srt__layer *src, struct srt__layer *dst,
			struct srt__buf *srcbuf,
			struct srt__buf *dstbuf, size_t *dstoff, struct srt__pump *pump,
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
			if (srt__buf_add(dstbuf, srcbuf->p, take) < 0)
				return -1;
			srt__buf_consume(srcbuf, take);
			if (kind == SRT_BODY_LENGTH)
				*left -= take;
			*(src == c->cio ? &c->moved_up : &c->moved_down) += take;
		}
	}
	rc = srt__io_flush(dst, dstbuf, dstoff);
	if (rc <= 0)
		return rc;
	switch (kind) {
	case SRT_BODY_NONE:
		return 1;
	case SRT_BODY_LENGTH:
	case SRT_BODY_EOF:
		rc = srt__io_move(c, src, dst, pump, kind == SRT_BODY_LENGTH ? left : NULL);
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
				if (k && srt__buf_add(dstbuf, srcbuf->p, (size_t)k) < 0)
					return -1;
				*(src == c->cio ? &c->moved_up : &c->moved_down) += (uint64_t)k;
				srt__buf_consume(srcbuf, (size_t)k);
			}
			rc = srt__io_flush(dst, dstbuf, dstoff);
			if (rc < 0)
				return -1;
			if (done)
				return rc;
			if (rc == 0)
				return 0;
			rc = srt__io_fill(src, src == c->cio ? &c->cs : &c->us, srcbuf, SRT_BODY_BUF);
			if (rc == SRT_FILL_AGAIN)
				return 0;
			if (rc == SRT_FILL_EOF || rc == SRT_FILL_ERR)
				return -1;
		}
	}
	return -1;
}

/* Relay the request body (client to upstream) or the response body
 * (upstream to client). True when it is complete; false to wait, or after
 * an error, which has closed the connection. */
static bool relay_body(struct srt__conn *c, bool request)
{
	int rc = request ? relay_framed(c, c->cio, c->uio, &c->in, &c->uout, &c->uout_off,
					&c->up, c->req_body, &c->req_left)
			 : relay_framed(c, c->uio, c->cio, &c->uin, &c->cout, &c->cout_off,
					&c->down, c->resp_body, &c->resp_left);

	if (rc < 0)
		srt__conn_close(c);
	return rc > 0;
}

void srt__serve_http_reqbody(struct srt__conn *c)
{
	if (srt__filter_rewriting(c)) {
		int rc = srt__filter_relay_rewritten(c);

		if (rc < 0)
			srt__conn_close(c);
		if (rc <= 0)
			return;
	} else if (!relay_body(c, true)) {
		return;
	}
	/* flush the 100 Continue or anything queued for the client later */
	c->phase = SRT_PH_HTTP_RESPHEAD;
	srt__chunked_init(&c->chunk);
}

static size_t build_downstream(struct srt__conn *c, const struct srt__http_head *h,
			       const struct srt__http_response *r, bool close)
{
	size_t n;

	pthread_mutex_lock(&c->p->lock);
	n = srt__http_build_downstream(h, r, close, c->p->rules->strip, c->p->rules->n_strip,
				       c->cout.p + c->cout.len, c->cout.cap - c->cout.len);
	pthread_mutex_unlock(&c->p->lock);
	return n;
}

/* The upstream agreed to the client's Upgrade (a WebSocket handshake
 * answered 101): after the filters have seen the answer, it goes to the
 * client and the connection becomes a two-way relay, as a CONNECT tunnel
 * is (inside a terminated tunnel, through both TLS layers). Bytes either
 * side sent after its head are the new protocol's first: they go on. */
static void switch_protocols(struct srt__conn *c, struct srt__http_head *h,
			     const struct srt__http_response *r, size_t len)
{
	size_t out;

	c->close_after = true;
	if (srt__filter_response(c, h, r) != SRT__FILTER_GO)
		return;
	if (srt__buf_reserve(&c->cout, len + 128) < 0)
		goto fail;
	out = build_downstream(c, h, r, false);
	if (!out)
		goto fail;
	c->cout.len += out;
	srt__buf_consume(&c->uin, len);
	if ((c->uin.len && srt__buf_add(&c->cout, c->uin.p, c->uin.len) < 0) ||
	    (c->in.len && srt__buf_add(&c->uout, c->in.p, c->in.len) < 0))
		goto fail;
	c->moved_down += c->uin.len;
	c->moved_up += c->in.len;
	srt__buf_free(&c->uin);
	srt__buf_free(&c->in);
	srt__filter_end(c);
	srt__timed_clear(c);
	/* bytes may wait behind either socket's edge, or inside a TLS layer */
	c->cs.rd = c->us.rd = true;
	c->phase = SRT_PH_TUNNEL;
	return;
fail:
	srt__conn_close(c);
}

void srt__serve_http_resphead(struct srt__conn *c)
{
	struct srt__http_head *h = &c->p->head;
	struct srt__http_response r;
	int len;
	size_t out;

again:
	len = srt__io_read_head(c->uio, &c->us, &c->uin, SRT_HTTP_MAX_HEAD, srt__http_parse_response, h);
	if (len == SRT_HEAD_AGAIN)
		return;
	if (len == SRT_HEAD_CLOSED)
		len = SRT_HTTP_BAD;
	if (len < 0 || srt__http_analyze_response(h, c->head_request, &r) < 0 ||
	    (h->status == 101 && !(c->upgrade && r.upgrade))) {
		/* a switch nobody asked for, or to no named protocol */
		srt__reply_http(c, 502, "Bad Gateway", NULL, "Bad Gateway\n");
		return;
	}
	if (h->status == 101) {
		switch_protocols(c, h, &r, (size_t)len);
		return;
	}
	if (h->status < 200) {
		/* interim response: pass it on and read the next head */
		r.body = SRT_BODY_NONE;
		if (srt__buf_reserve(&c->cout, (size_t)len + 64) < 0)
			goto fail;
		out = build_downstream(c, h, &r, false);
		if (!out)
			goto fail;
		c->cout.len += out;
		srt__buf_consume(&c->uin, (size_t)len);
		/* bounded: a stream of interim heads waits for the client */
		if (c->cout.len > SRT_HTTP_MAX_HEAD) {
			int rc2 = srt__io_flush(c->cio, &c->cout, &c->cout_off);
			if (rc2 < 0)
				goto fail;
			if (rc2 == 0)
				return; /* EPOLLOUT on the client resumes us */
		}
		goto again;
	}
	c->resp_body = r.body;
	c->resp_left = r.length;
	c->upstream_close = r.upstream_close;
	c->close_after = !c->keep_alive || r.body == SRT_BODY_EOF;
	srt__chunked_init(&c->chunk);
	if (srt__filter_response(c, h, &r) != SRT__FILTER_GO)
		return;
	if (srt__buf_reserve(&c->cout, (size_t)len + 128) < 0)
		goto fail;
	out = build_downstream(c, h, &r, c->close_after);
	if (!out)
		goto fail;
	c->cout.len += out;
	srt__buf_consume(&c->uin, (size_t)len);
	c->phase = SRT_PH_HTTP_RESPBODY;
	return;
fail:
	srt__conn_close(c);
}

void srt__serve_http_respbody(struct srt__conn *c)
{
	if (!relay_body(c, false))
		return;
	srt__filter_end(c);
	if (c->uin.len)
		c->upstream_close = true; /* bytes after the body: never reuse */
	if (c->upstream_close)
		srt__close_upstream(c);
	else
		srt__buf_free(&c->uin);
	if (c->close_after) {
		srt__reply_and_close(c, NULL, 0);
		return;
	}
	c->phase = SRT_PH_HTTP_HEAD;
	srt__timed_set(c, SRT_IDLE_MS);
}
