/* TLS termination of CONNECT tunnels. After the tunnel's SNI check, a
 * CONNECT whose target is not in tlsTerminate.excludeDomains gets a TLS
 * server layer on the client's stack (a leaf certificate for the name the
 * ClientHello asked for, minted by the TLS module) and a TLS client layer
 * on the upstream's, which was dialled through the address guard (and any
 * parent proxy) like every tunnel. Once both handshakes are done, the
 * connection serves plain HTTP between the two layers: each request goes
 * through the same request filters, response handling and violations as a
 * plain-HTTP request, always to the CONNECT target. mbedTLS stays in the
 * module (proxies/tls.h); this file only drives it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/domain.h"
#include "proxies/conn.h"
#include "proxies/net-config.h"
#include "proxies/tls.h"

int srt__tls_setup(struct srt__proxy *p, const struct srt__proxy_config *cfg)
{
	const struct srt__net_config *net = cfg->net;

	if (!cfg->tls || !cfg->tls_ctx)
		return 0;
	p->tls = cfg->tls;
	p->tls_ctx = cfg->tls_ctx;
	p->tls_max = net->tls_max_tunnels > 0 ? net->tls_max_tunnels : 256;
	p->tls_hs_ms = net->tls_handshake_ms > 0 ? net->tls_handshake_ms : 10000;
	for (size_t i = 0; i < net->tls_exclude_domains.n; i++)
		if (srt__strv_push(&p->tls_exclude, net->tls_exclude_domains.v[i]))
			return -1;
	return 0;
}

void srt__tls_teardown(struct srt__proxy *p)
{
	srt__strv_release(&p->tls_exclude);
}

static bool excluded(const struct srt__conn *c)
{
	for (size_t i = 0; i < c->p->tls_exclude.n; i++)
		if (srt__domain_match(c->canon, c->port, c->p->tls_exclude.v[i]))
			return true;
	return false;
}

bool srt__tls_may_take(const struct srt__conn *c)
{
	return c->p->tls && !excluded(c);
}

/* A TLS record carrying a handshake: 0x16 0x03 0x0x */
static bool looks_tls(const struct srt__buf *b)
{
	const unsigned char *u = (const unsigned char *)b->p;

	return b->len >= 3 && u[0] == 0x16 && u[1] == 0x03 && u[2] <= 0x03;
}

bool srt__tls_take(struct srt__conn *c, const char *sni)
{
	char err[300], why[600];
	const char *name;

	if (!c->p->tls || c->kind != SRT_K_HTTP_CONNECT || !looks_tls(&c->in) || excluded(c))
		return false;
	if (c->p->tls_open >= (size_t)c->p->tls_max) {
		snprintf(why, sizeof(why),
			 "too many TLS-terminated tunnels open (network.tlsTerminate.maxTunnels is %d)",
			 c->p->tls_max);
		srt__conn_violation(c, why);
		srt__conn_close(c);
		return true;
	}
	/* the certificate names what the client asked for; a name that is not
	 * the CONNECT target is answered 421 on every request below */
	snprintf(c->tls_name, sizeof(c->tls_name), "%s", sni ? sni : "");
	name = sni && *sni ? sni : c->canon;
	c->terminated = true;
	c->p->tls_open++;
	c->cio = c->p->tls->server_new(c->p->tls_ctx, c->cio, name, c->in.p, c->in.len, err,
				       sizeof(err));
	if (!c->cio) {
		c->cio = &c->cl;
		snprintf(why, sizeof(why), "TLS termination: %s", err);
		srt__conn_violation(c, why);
		srt__conn_close(c);
		return true;
	}
	c->moved_up += c->in.len;
	srt__buf_free(&c->in);
	c->uio = c->p->tls->client_new(c->p->tls_ctx, c->uio, c->canon, err, sizeof(err));
	if (!c->uio) {
		c->uio = &c->ul;
		srt__conn_close(c);
		return true;
	}
	c->kind = SRT_K_HTTP_PLAIN;
	c->phase = SRT_PH_TLS_HS;
	srt__timed_set(c, c->p->tls_hs_ms);
	return true;
}

/* The client's handshake first (it must see our certificate before it
 * sends a request), then the upstream's: a server that cannot be trusted
 * is answered 502 with the reason, over the client's TLS. */
void srt__tls_handshakes(struct srt__conn *c)
{
	char err[500], body[1100];
	int rc;

	rc = c->p->tls->handshake(c->cio, err, sizeof(err));
	if (rc == 0)
		return;
	if (rc < 0) {
		if (c->p->debug)
			fprintf(stderr, "srt-proxy: TLS termination for %s: client: %s\n", c->host, err);
		srt__conn_close(c);
		return;
	}
	if (!c->up_hs_done) {
		rc = c->p->tls->handshake(c->uio, err, sizeof(err));
		if (rc == 0)
			return;
		if (rc < 0) {
			snprintf(body, sizeof(body), "upstream %s:%d: %s\n", c->host, c->port, err);
			srt__timed_clear(c);
			srt__reply_http(c, 502, "Bad Gateway", "upstream-tls", body);
			return;
		}
		c->up_hs_done = true;
	}
	srt__timed_set(c, SRT_FIRST_BYTE_MS);
	/* the handshakes may have left bytes behind either socket's edge */
	c->cs.rd = c->us.rd = true;
	c->phase = SRT_PH_HTTP_HEAD;
}

/* The Host header names the CONNECT target: host, or host:port, with the
 * port optional when it is the scheme's (443 inside TLS, 80 in a tunnel
 * served as plain HTTP). */
static bool host_matches(const struct srt__conn *c, const char *v, size_t n)
{
	char a[300], b[300];
	bool v6 = strchr(c->host, ':') != NULL;

	snprintf(a, sizeof(a), v6 ? "[%s]" : "%s", c->host);
	snprintf(b, sizeof(b), v6 ? "[%s]:%d" : "%s:%d", c->host, c->port);
	if (n == strlen(b) && strncasecmp(v, b, n) == 0)
		return true;
	return c->port == (c->terminated ? 443 : 80) && n == strlen(a) &&
	       strncasecmp(v, a, n) == 0;
}

static const struct srt__http_header *find_host(const struct srt__http_head *h, int *count)
{
	const struct srt__http_header *found = NULL;

	*count = 0;
	for (size_t i = 0; i < h->n; i++)
		if (srt__http_name_is(&h->h[i], "host")) {
			found = &h->h[i];
			(*count)++;
		}
	return found;
}

static void misdirected(struct srt__conn *c, const char *why)
{
	char body[800];

	snprintf(body, sizeof(body), "%s\n", why);
	srt__reply_http(c, 421, "Misdirected Request", "blocked-by-sandbox-runtime", body);
}

/* Read the head of a request inside the tunnel and judge it against the
 * CONNECT target. Returns the head's length, or < 0 once answered or
 * waiting (SRT_HEAD_AGAIN). */
static int read_inner_head(struct srt__conn *c, struct srt__http_head *h)
{
	int len = srt__io_read_head(c->cio, &c->cs, &c->in, SRT_HTTP_MAX_HEAD,
				    srt__http_parse_request, h);

	if (len == SRT_HEAD_AGAIN)
		return len;
	if (len == SRT_HEAD_CLOSED) {
		srt__conn_close(c);
		return -1;
	}
	if (len == SRT_HTTP_TOO_BIG) {
		srt__reply_http(c, 431, "Request Header Fields Too Large", NULL,
				"request header fields too large\n");
		return -1;
	}
	if (len < 0) {
		srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
				"malformed request\n");
		return -1;
	}
	return len;
}

/* The request as an absolute http:// target naming what the Host header
 * says (already checked to be the CONNECT target), so the plain-HTTP
 * analysis applies unchanged; the authority is then the CONNECT target's. */
static char *absolute_target(struct srt__conn *c, const struct srt__http_head *h,
			     const struct srt__http_header *host, size_t *len)
{
	const char *t = h->target;
	size_t tl = h->target_len, cap;
	char *out;
	int n;

	if (tl && t[0] != '/' && !(tl == 1 && t[0] == '*')) {
		/* absolute form: the authority is discarded, the path kept */
		const char *scheme = c->terminated ? "https://" : "http://";
		size_t sl = strlen(scheme);
		const char *p = tl > sl ? memchr(t + sl, '/', tl - sl) : NULL;
		if (tl < sl || strncasecmp(t, scheme, sl) != 0 || !p)
			return NULL;
		tl -= (size_t)(p - t);
		t = p;
	}
	cap = tl + 300;
	out = malloc(cap);
	if (!out)
		return NULL;
	if (host)
		n = snprintf(out, cap, "http://%.*s%.*s", (int)host->value_len, host->value, (int)tl, t);
	else
		n = snprintf(out, cap, strchr(c->host, ':') ? "http://[%s]:%d%.*s" : "http://%s:%d%.*s",
			     c->host, c->port, (int)tl, t);
	if (n < 0 || (size_t)n >= cap) {
		free(out);
		return NULL;
	}
	*len = (size_t)n;
	return out;
}

void srt__tls_serve_head(struct srt__conn *c)
{
	struct srt__http_head *h = &c->p->head;
	const struct srt__http_header *host;
	struct srt__http_request r;
	struct srt__http_refusal why = { 0, NULL };
	char *abs = NULL, *norm = NULL, msg[700];
	size_t abs_len = 0;
	int len, nhost;

	len = read_inner_head(c, h);
	if (len < 0)
		return;
	if (c->ul.fd < 0) {
		/* the upstream closed a kept-alive connection: the client
		 * opens a new tunnel */
		srt__conn_close(c);
		return;
	}
	if (c->tls_name[0]) {
		char canon[300];
		srt__net_canon(c->tls_name, canon, sizeof(canon));
		if (strcmp(canon, c->canon) != 0) {
			snprintf(msg, sizeof(msg),
				 "TLS server name %s does not match the CONNECT target %s",
				 c->tls_name, c->host);
			srt__conn_violation(c, msg);
			misdirected(c, msg);
			return;
		}
	}
	host = find_host(h, &nhost);
	if (nhost > 1 || (host && !host_matches(c, host->value, host->value_len))) {
		snprintf(msg, sizeof(msg), "Host header does not match the CONNECT target %s:%d",
			 c->host, c->port);
		misdirected(c, msg);
		return;
	}
	if (!host && h->minor == 1) {
		srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
				"HTTP/1.1 request without a Host header\n");
		return;
	}
	abs = absolute_target(c, h, host, &abs_len);
	if (!abs) {
		srt__reply_http(c, 400, "Bad Request", "blocked-by-sandbox-runtime",
				"malformed request-target\n");
		return;
	}
	h->target = abs;
	h->target_len = abs_len;
	if (srt__http_analyze_request(h, &r, &why) < 0 || r.is_connect) {
		snprintf(msg, sizeof(msg), "%s\n", why.reason ? why.reason : "bad request");
		srt__reply_http(c, why.status == 421 ? 421 : 400,
				why.status == 421 ? "Misdirected Request" : "Bad Request",
				"blocked-by-sandbox-runtime", msg);
		goto out;
	}
	/* the CONNECT target, never the request's own spelling */
	srt__copy_str(r.host, sizeof(r.host), c->host);
	r.port = c->port;
	if (srt__http_target_check(c, &r, &norm) < 0)
		goto out;
	if (srt__filter_request(c, h, &r, r.origin_target, r.origin_target_len, (size_t)len) !=
	    SRT__FILTER_GO)
		goto out;
	if (srt__filter_rewrite_plan(c, h, &r) < 0)
		goto out;
	srt__buf_free(&c->uout);
	c->uout_off = 0;
	if (srt__buf_reserve(&c->uout, (size_t)len + 1024) < 0)
		goto fail;
	c->uout.len = srt__http_build_upstream(h, &r, c->canon, NULL, c->uout.p, c->uout.cap);
	if (c->uout.len == 0)
		goto fail;
	if (r.expect_continue && !srt__filter_continued(c) &&
	    srt__buf_add(&c->cout, "HTTP/1.1 100 Continue\r\n\r\n", 25) < 0)
		goto fail;
	c->keep_alive = r.keep_alive;
	c->upgrade = r.upgrade;
	c->head_request = h->method_len == 4 && memcmp(h->method, "HEAD", 4) == 0;
	c->req_body = r.body;
	c->req_left = r.length;
	srt__chunked_init(&c->chunk);
	srt__buf_consume(&c->in, (size_t)len);
	srt__timed_clear(c);
	c->phase = SRT_PH_HTTP_REQBODY;
	goto out;
fail:
	srt__conn_close(c);
out:
	free(norm);
	free(abs);
}
