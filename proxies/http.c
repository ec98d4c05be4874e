/* HTTP/1.x heads for the proxy. The parser is deliberately stricter than
 * the RFC allows: a proxy that authorises one host and forwards to the
 * next hop must not read a message differently from that hop, so
 * everything two parsers could disagree on (bare LF, folding, whitespace
 * before a colon, CL with TE, duplicate lengths) is refused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxies/http.h"

static bool is_tchar(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return true;
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool is_value_char(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Find the end of the head (CRLF CRLF). Any LF not preceded by CR makes
 * the head malformed right away, so a bare-LF client gets a 400 rather
 * than a timeout. */
static int head_end(const char *buf, size_t len)
{
	size_t lim = len < SRT_HTTP_MAX_HEAD ? len : SRT_HTTP_MAX_HEAD, i;

	for (i = 0; i < lim; i++) {
		if (buf[i] != '\n')
			continue;
		if (i == 0 || buf[i - 1] != '\r')
			return SRT_HTTP_BAD;
		if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r')
			return (int)(i + 1);
	}
	return len >= SRT_HTTP_MAX_HEAD ? SRT_HTTP_TOO_BIG : SRT_HTTP_NEED_MORE;
}

static int parse_version(const char *p, size_t n, int *minor)
{
	if (n != 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
		return -1;
	*minor = p[7] - '0';
	return 0;
}

/* Header lines from `p` up to the empty line at `end`. */
static int parse_headers(const char *p, const char *end, struct srt__http_head *h)
{
	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon, *v, *ve;
		struct srt__http_header *hd;

		/* a CR ends a line only as CR LF: a bare CR is another parser's
		 * line end and this one's smuggling vector */
		if (!eol || eol + 1 >= end || eol[1] != '\n')
			return SRT_HTTP_BAD;
		if (eol == p)
			return 0; /* the empty line */
		if (h->n >= SRT_HTTP_MAX_HEADERS)
			return SRT_HTTP_TOO_BIG;
		colon = p;
		while (colon < eol && is_tchar((unsigned char)*colon))
			colon++;
		if (colon == p || colon == eol || *colon != ':')
			return SRT_HTTP_BAD; /* includes folding and "name :" */
		v = colon + 1;
		ve = eol;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		for (const char *q = v; q < ve; q++)
			if (!is_value_char((unsigned char)*q))
				return SRT_HTTP_BAD;
		hd = &h->h[h->n++];
		hd->name = p;
		hd->name_len = (size_t)(colon - p);
		hd->value = v;
		hd->value_len = (size_t)(ve - v);
		p = eol + 2;
	}
	return SRT_HTTP_BAD;
}

int srt__http_parse_request(const char *buf, size_t len, struct srt__http_head *h)
{
	int end = head_end(buf, len), rc;
	const char *p = buf, *eol, *sp1, *sp2;

	if (end <= 0)
		return end;
	memset(h, 0, sizeof(*h));
	eol = memchr(buf, '\r', (size_t)end);
	if (!eol || eol[1] != '\n')
		return SRT_HTTP_BAD;
	sp1 = memchr(p, ' ', (size_t)(eol - p));
	if (!sp1 || sp1 == p)
		return SRT_HTTP_BAD;
	for (const char *q = p; q < sp1; q++)
		if (!is_tchar((unsigned char)*q))
			return SRT_HTTP_BAD;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1)
		return SRT_HTTP_BAD;
	for (const char *q = sp1 + 1; q < sp2; q++)
		if ((unsigned char)*q <= 0x20 || (unsigned char)*q >= 0x7f)
			return SRT_HTTP_BAD;
	if (parse_version(sp2 + 1, (size_t)(eol - sp2 - 1), &h->minor) < 0)
		return SRT_HTTP_BAD;
	h->method = p;
	h->method_len = (size_t)(sp1 - p);
	h->target = sp1 + 1;
	h->target_len = (size_t)(sp2 - sp1 - 1);
	rc = parse_headers(eol + 2, buf + end, h);
	return rc < 0 ? rc : end;
}

int srt__http_parse_response(const char *buf, size_t len, struct srt__http_head *h)
{
	int end = head_end(buf, len), rc;
	const char *eol;

	if (end <= 0)
		return end;
	memset(h, 0, sizeof(*h));
	eol = memchr(buf, '\r', (size_t)end);
	if (!eol || eol[1] != '\n' || eol - buf < 12 || parse_version(buf, 8, &h->minor) < 0 || buf[8] != ' ')
		return SRT_HTTP_BAD;
	for (int i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return SRT_HTTP_BAD;
	h->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	if (h->status < 100)
		return SRT_HTTP_BAD;
	if (eol - buf > 12) {
		if (buf[12] != ' ')
			return SRT_HTTP_BAD;
		for (const char *q = buf + 13; q < eol; q++)
			if (!is_value_char((unsigned char)*q))
				return SRT_HTTP_BAD;
		h->reason = buf + 13;
		h->reason_len = (size_t)(eol - buf - 13);
	} else {
		h->reason = "";
	}
	rc = parse_headers(eol + 2, buf + end, h);
	return rc < 0 ? rc : end;
}

/* Does a comma-separated header value hold `token` (case-insensitive)? */
static bool list_has(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token), i = 0;

	while (i < n) {
		size_t s, e;
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && strncasecmp(v + s, token, tl) == 0)
			return true;
	}
	return false;
}

static bool connection_lists(const struct srt__http_head *h, const char *name,
			     size_t name_len)
{
	char tmp[64];

	if (name_len >= sizeof(tmp))
		return false;
	memcpy(tmp, name, name_len);
	tmp[name_len] = '\0';
	for (size_t i = 0; i < h->n; i++)
		if (srt__http_name_is(&h->h[i], "connection") &&
		    list_has(h->h[i].value, h->h[i].value_len, tmp))
			return true;
	return false;
}

static int parse_port(const char *p, size_t n, int *port)
{
	int v = 0;

	if (n == 0 || n > 5 || p[0] == '0')
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

/* "host:port", "[v6]:port", or without a port when default_port > 0. */
static int parse_authority(const char *a, size_t n, int default_port,
			   char *host, size_t host_cap, int *port)
{
	const char *hs, *he, *rest;
	size_t hl;

	if (n == 0)
		return -1;
	if (a[0] == '[') {
		const char *rb = memchr(a, ']', n);
		if (!rb)
			return -1;
		hs = a + 1;
		he = rb;
		rest = rb + 1;
	} else {
		const char *colon = memchr(a, ':', n);
		hs = a;
		he = colon ? colon : a + n;
		rest = he;
	}
	hl = (size_t)(he - hs);
	if (hl == 0 || hl >= host_cap)
		return -1;
	for (size_t i = 0; i < hl; i++)
		if ((unsigned char)hs[i] <= 0x20 || (unsigned char)hs[i] >= 0x7f ||
		    hs[i] == '@' || hs[i] == '[' || hs[i] == ']' || hs[i] == '/')
			return -1;
	if (a[0] == '[' && !memchr(hs, ':', hl))
		return -1; /* brackets only around IPv6 */
	memcpy(host, hs, hl);
	host[hl] = '\0';
	if (rest == a + n) {
		if (default_port <= 0)
			return -1;
		*port = default_port;
		return 0;
	}
	if (*rest != ':')
		return -1;
	if (rest + 1 == a + n && default_port > 0) {
		*port = default_port; /* "host:" means the default port */
		return 0;
	}
	return parse_port(rest + 1, (size_t)(a + n - rest - 1), port);
}

static bool host_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 1 && a[la - 1] == '.')
		la--;
	if (lb > 1 && b[lb - 1] == '.')
		lb--;
	return la == lb && strncasecmp(a, b, la) == 0;
}

static bool request_hop_header(const struct srt__http_head *h,
			       const struct srt__http_header *hd);
static bool response_hop_header(const struct srt__http_head *h,
				const struct srt__http_header *hd, bool keep_length);

static int refuse(struct srt__http_refusal *why, int status, const char *reason)
{
	why->status = status;
	why->reason = reason;
	return -1;
}

static int parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

/* Do the Upgrade lines name WebSocket and nothing else? What flows after a
 * switch is not HTTP and meets no request filter, so only a protocol known
 * to carry no requests of its own is passed on: WebSocket (RFC 6455). A
 * block list of the protocols that do carry requests (h2c of RFC 7540 3.2,
 * TLS of RFC 2817, HTTP/x) missed every other name a server may take for
 * one of them or switch to as it likes ("h2c;x", "spdy/3.1", a private
 * token): any other name drops the upgrade and the request goes on as
 * HTTP/1.1 (a server then answers it as such; RFC 9113 has deprecated
 * h2c), and a 101 naming another protocol is no switch the proxy relays. */
static bool upgrade_only_websocket(const struct srt__http_head *h)
{
	bool named = false;

	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		size_t k = 0;

		if (!srt__http_name_is(hd, "upgrade"))
			continue;
		while (k < hd->value_len) {
			size_t s, e;

			while (k < hd->value_len && (hd->value[k] == ' ' || hd->value[k] == '\t' ||
						    hd->value[k] == ','))
				k++;
			if (k == hd->value_len)
				break;
			s = k;
			while (k < hd->value_len && hd->value[k] != ',')
				k++;
			e = k;
			while (e > s && (hd->value[e - 1] == ' ' || hd->value[e - 1] == '\t'))
				e--;
			if (e - s != 9 || strncasecmp(hd->value + s, "websocket", 9) != 0)
				return false;
			named = true;
		}
	}
	return named;
}

int srt__http_analyze_request(const struct srt__http_head *h,
			      struct srt__http_request *r,
			      struct srt__http_refusal *why)
{
	bool have_cl = false, have_te = false, conn_close = false, conn_keep = false;
	bool conn_upgrade = false, have_upgrade = false;
	bool is_connect = h->method_len == 7 && memcmp(h->method, "CONNECT", 7) == 0;
	int n_host = 0, n_auth = 0, bad_status = 0;
	const char *bad_reason = NULL;
	const struct srt__http_header *host_hd = NULL;

	memset(r, 0, sizeof(*r));
	/* the rebuilt head copies the end-to-end headers and adds up to three
	 * (Host, framing, a parent's Proxy-Authorization): keep room for them */
	{
		size_t e2e = 0;
		for (size_t i = 0; i < h->n; i++)
			if (!request_hop_header(h, &h->h[i]))
				e2e++;
		if (e2e > SRT_HTTP_MAX_HEADERS - 4) {
			bad_status = 431;
			bad_reason = "too many header fields";
		}
	}
	/* Every header is read even after a fault, so the credentials are
	 * known and a refused request is answered with its fault (400, 431),
	 * not with 407 because the fault came before Proxy-Authorization. */
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		const char *fault = NULL;

		if (srt__http_name_is(hd, "content-length")) {
			uint64_t v;
			if (parse_length(hd->value, hd->value_len, &v) < 0)
				fault = "invalid Content-Length";
			else if (have_cl && v != r->length)
				fault = "conflicting Content-Length headers";
			have_cl = true;
			if (!fault)
				r->length = v;
		} else if (srt__http_name_is(hd, "transfer-encoding")) {
			if (have_te || hd->value_len != 7 ||
			    strncasecmp(hd->value, "chunked", 7) != 0)
				fault = "unsupported Transfer-Encoding";
			have_te = true;
		} else if (srt__http_name_is(hd, "host")) {
			n_host++;
			host_hd = hd;
			r->has_host = true;
		} else if (srt__http_name_is(hd, "proxy-authorization")) {
			n_auth++;
			r->auth = hd->value;
			r->auth_len = hd->value_len;
		} else if (srt__http_name_is(hd, "connection")) {
			if (list_has(hd->value, hd->value_len, "close"))
				conn_close = true;
			if (list_has(hd->value, hd->value_len, "keep-alive"))
				conn_keep = true;
			if (list_has(hd->value, hd->value_len, "upgrade"))
				conn_upgrade = true;
		} else if (srt__http_name_is(hd, "upgrade")) {
			if (hd->value_len)
				have_upgrade = true;
		} else if (srt__http_name_is(hd, "expect")) {
			if (list_has(hd->value, hd->value_len, "100-continue"))
				r->expect_continue = true;
		}
		if (fault && !bad_status) {
			bad_status = 400;
			bad_reason = fault;
		}
	}
	/* two credentials: neither is trusted */
	if (n_auth > 1) {
		r->auth = NULL;
		r->auth_len = 0;
	}
	if (bad_status) {
		r->is_connect = is_connect;
		return refuse(why, bad_status, bad_reason);
	}
	r->keep_alive = h->minor == 1 ? !conn_close : (conn_keep && !conn_close);

	if (is_connect) {
		r->is_connect = true;
		if (parse_authority(h->target, h->target_len, 0, r->host,
				    sizeof(r->host), &r->port) < 0)
			return refuse(why, 400, "Bad Request");
		r->body = SRT_BODY_NONE;
		return 0;
	}

	if (h->target_len < 7 || strncasecmp(h->target, "http://", 7) != 0)
		return refuse(why, 400, "the proxy only forwards absolute http:// request targets");
	{
		const char *a = h->target + 7, *end = h->target + h->target_len, *p = a;
		while (p < end && *p != '/' && *p != '?' && *p != '#')
			p++;
		if (memchr(a, '@', (size_t)(p - a)))
			return refuse(why, 400, "malformed request-target");
		if (parse_authority(a, (size_t)(p - a), 80, r->host, sizeof(r->host),
				    &r->port) < 0)
			return refuse(why, 400, "malformed request-target");
		r->origin_target = p;
		{
			const char *hash = memchr(p, '#', (size_t)(end - p));
			r->origin_target_len = (size_t)((hash ? hash : end) - p);
		}
	}
	if (n_host > 1)
		return refuse(why, 421, "more than one Host header");
	if (host_hd) {
		char hh[256];
		int hp;
		if (parse_authority(host_hd->value, host_hd->value_len, 80, hh,
				    sizeof(hh), &hp) < 0 ||
		    hp != r->port || !host_equal(hh, r->host))
			return refuse(why, 421, "Host header does not match the request target");
	}
	if (have_cl && have_te)
		return refuse(why, 400, "both Content-Length and Transfer-Encoding");
	/* HTTP/1.0 has no chunked framing: a 1.0 parser after us would read
	 * the chunks as something else (RFC 9112 6.1: treat as faulty) */
	if (have_te && h->minor == 0)
		return refuse(why, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (have_te)
		r->body = SRT_BODY_CHUNKED;
	else if (have_cl && r->length > 0)
		r->body = SRT_BODY_LENGTH;
	else
		r->body = SRT_BODY_NONE;
	if (have_te)
		r->length = 0;
	/* HTTP/1.0 has no Upgrade (RFC 9110 7.8: a server ignores it there);
	 * a switch to anything but WebSocket is not honoured: requests it
	 * carried would reach the server unseen by the filters */
	r->upgrade = conn_upgrade && have_upgrade && h->minor == 1 && upgrade_only_websocket(h);
	return 0;
}

static bool request_hop_header(const struct srt__http_head *h,
			       const struct srt__http_header *hd)
{
	static const char *const hop[] = {
		"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
		"proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
		"host", "content-length", "expect", NULL,
	};
	for (size_t i = 0; hop[i]; i++)
		if (srt__http_name_is(hd, hop[i]))
			return true;
	return connection_lists(h, hd->name, hd->name_len);
}

struct out {
	char *p;
	size_t n, cap;
	bool overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->overflow || o->cap - o->n < n) {
		o->overflow = true;
		return;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Decimal, at least `width` digits: a head is built per request, and
 * printf's machinery was a visible share of the proxy's time. */
static void put_dec(struct out *o, unsigned long long v, int width);

/* "Name: value" as received (the parser refused CR, LF and NUL in both) */
static void put_header(struct out *o, const struct srt__http_header *hd)
{
	put(o, hd->name, hd->name_len);
	puts_(o, ": ");
	put(o, hd->value, hd->value_len);
	puts_(o, "\r\n");
}

static void put_dec(struct out *o, unsigned long long v, int width)
{
	char d[24];
	int i = (int)sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
		width--;
	} while (v || width > 0);
	put(o, d + i, sizeof(d) - (size_t)i);
}

static void put_host(struct out *o, const char *host, int port, bool v6)
{
	if (v6)
		puts_(o, "[");
	puts_(o, host);
	if (v6)
		puts_(o, "]");
	if (port != 80) {
		puts_(o, ":");
		put_dec(o, (unsigned)port, 1);
	}
}

/* The protocol switch asked for or agreed to: the Upgrade lines as
 * received, and the one Connection option that goes with them (every
 * other option the peer listed stays a hop-by-hop header, removed). */
static void put_upgrade(struct out *o, const struct srt__http_head *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (srt__http_name_is(&h->h[i], "upgrade"))
			put_header(o, &h->h[i]);
	puts_(o, "Connection: Upgrade\r\n");
}

/* The framing srt decided on, never the peer's own lines (those are
 * dropped with the hop-by-hop headers). */
static void put_framing(struct out *o, int body, unsigned long long length)
{
	if (body == SRT_BODY_LENGTH) {
		puts_(o, "Content-Length: ");
		put_dec(o, length, 1);
		puts_(o, "\r\n");
	} else if (body == SRT_BODY_CHUNKED) {
		puts_(o, "Transfer-Encoding: chunked\r\n");
	}
}

size_t srt__http_build_upstream(const struct srt__http_head *h,
				const struct srt__http_request *r,
				const char *canon_host, const char *proxy_auth,
				char *buf, size_t cap)
{
	struct out o = { buf, 0, cap, false };
	bool v6 = strchr(canon_host, ':') != NULL;

	put(&o, h->method, h->method_len);
	puts_(&o, " ");
	if (proxy_auth) {
		puts_(&o, "http://");
		put_host(&o, canon_host, r->port, v6);
	}
	if (r->origin_target_len == 0 || r->origin_target[0] != '/')
		puts_(&o, "/");
	put(&o, r->origin_target, r->origin_target_len);
	puts_(&o, " HTTP/1.");
	put_dec(&o, (unsigned)h->minor, 1);
	puts_(&o, "\r\nHost: ");
	put_host(&o, canon_host, r->port, v6);
	puts_(&o, "\r\n");
	if (proxy_auth && *proxy_auth) {
		puts_(&o, "Proxy-Authorization: ");
		puts_(&o, proxy_auth);
		puts_(&o, "\r\n");
	}
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		if (request_hop_header(h, hd))
			continue;
		put_header(&o, hd);
	}
	put_framing(&o, r->body, r->length);
	if (r->upgrade)
		put_upgrade(&o, h);
	puts_(&o, "\r\n");
	return o.overflow ? 0 : o.n;
}

int srt__http_analyze_response(const struct srt__http_head *h, bool head_request,
			       struct srt__http_response *r)
{
	bool have_cl = false, have_te = false, chunked_last = false;
	bool conn_close = false, conn_keep = false, have_upgrade = false;

	memset(r, 0, sizeof(*r));
	r->status = h->status;
	/* the rebuilt head copies the end-to-end headers and adds up to three
	 * (Content-Length or Transfer-Encoding, Connection) */
	{
		size_t e2e = 0;
		for (size_t i = 0; i < h->n; i++)
			if (!response_hop_header(h, &h->h[i], false))
				e2e++;
		if (e2e > SRT_HTTP_MAX_HEADERS - 4)
			return -1;
	}
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		if (srt__http_name_is(hd, "content-length")) {
			uint64_t v;
			if (parse_length(hd->value, hd->value_len, &v) < 0 ||
			    (have_cl && v != r->length))
				return -1;
			have_cl = true;
			r->length = v;
		} else if (srt__http_name_is(hd, "transfer-encoding")) {
			/* the last coding decides; repeated headers concatenate */
			const char *v = hd->value;
			size_t n = hd->value_len;
			size_t s = n;
			while (s > 0 && v[s - 1] != ',')
				s--;
			while (s < n && (v[s] == ' ' || v[s] == '\t'))
				s++;
			chunked_last = n - s == 7 && strncasecmp(v + s, "chunked", 7) == 0;
			have_te = true;
		} else if (srt__http_name_is(hd, "connection")) {
			if (list_has(hd->value, hd->value_len, "close"))
				conn_close = true;
			if (list_has(hd->value, hd->value_len, "keep-alive"))
				conn_keep = true;
		} else if (srt__http_name_is(hd, "upgrade") && hd->value_len) {
			have_upgrade = true;
		}
	}
	r->upstream_close = conn_close || (h->minor == 0 && !conn_keep);
	/* a switch must name the protocol switched to (RFC 9110 15.2.2), and
	 * the only one a request is sent upstream asking for: WebSocket */
	r->upgrade = h->status == 101 && have_upgrade && h->minor == 1 && upgrade_only_websocket(h);
	if (h->status < 200 || h->status == 204 || h->status == 304 || head_request) {
		r->body = SRT_BODY_NONE;
		return 0;
	}
	if (have_te) {
		/* TE with CL: TE wins (RFC 9112 6.3), but never reuse that upstream */
		if (have_cl)
			r->upstream_close = true;
		r->length = 0;
		if (chunked_last) {
			r->body = SRT_BODY_CHUNKED;
		} else {
			r->body = SRT_BODY_EOF;
			r->upstream_close = true;
		}
		return 0;
	}
	if (have_cl) {
		r->body = r->length ? SRT_BODY_LENGTH : SRT_BODY_NONE;
		return 0;
	}
	r->body = SRT_BODY_EOF;
	r->upstream_close = true;
	return 0;
}

static bool response_hop_header(const struct srt__http_head *h,
				const struct srt__http_header *hd, bool keep_length)
{
	static const char *const hop[] = {
		"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
		"proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
		NULL,
	};
	for (size_t i = 0; hop[i]; i++)
		if (srt__http_name_is(hd, hop[i]))
			return true;
	if (!keep_length && srt__http_name_is(hd, "content-length"))
		return true;
	return connection_lists(h, hd->name, hd->name_len);
}

static char fold(char c)
{
	if (c == '_' || c == '.')
		return '-';
	return (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
}

bool srt__http_name_folds(const char *a, size_t alen, const char *b)
{
	size_t bl = strlen(b);

	if (alen != bl)
		return false;
	for (size_t i = 0; i < alen; i++)
		if (fold(a[i]) != fold(b[i]))
			return false;
	return true;
}

size_t srt__http_build_downstream(const struct srt__http_head *h,
				  const struct srt__http_response *r, bool close,
				  char *const *strip, size_t n_strip,
				  char *buf, size_t cap)
{
	struct out o = { buf, 0, cap, false };
	/* a HEAD or 304 answer keeps its Content-Length: it describes the
	 * representation, no body follows */
	bool keep_length = r->body == SRT_BODY_NONE && h->status >= 200 &&
			   h->status != 204;

	puts_(&o, "HTTP/1.1 ");
	put_dec(&o, h->status < 0 ? 0 : (unsigned)h->status, 3);
	puts_(&o, " ");
	put(&o, h->reason, h->reason_len);
	puts_(&o, "\r\n");
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		bool stripped = false;
		if (response_hop_header(h, hd, keep_length))
			continue;
		for (size_t k = 0; k < n_strip && !stripped; k++)
			stripped = srt__http_name_folds(hd->name, hd->name_len, strip[k]);
		if (stripped)
			continue;
		put_header(&o, hd);
	}
	put_framing(&o, r->body, r->length);
	if (r->upgrade)
		put_upgrade(&o, h);
	else if (close)
		puts_(&o, "Connection: close\r\n");
	puts_(&o, "\r\n");
	return o.overflow ? 0 : o.n;
}

enum {
	CH_SIZE0, CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER_BOL, CH_TRAILER_NAME, CH_TRAILER, CH_TRAILER_LF, CH_END_LF, CH_DONE,
};

#define CH_MAX_LINE 4096
#define CH_MAX_TRAILER (16 * 1024)

void srt__chunked_init(struct srt__chunked *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CH_SIZE0;
}

uint64_t srt__chunked_data_left(const struct srt__chunked *c)
{
	return c->state == CH_DATA ? c->remaining : 0;
}

void srt__chunked_skip(struct srt__chunked *c, uint64_t n)
{
	if (c->state != CH_DATA || n > c->remaining)
		return;
	c->remaining -= n;
	if (c->remaining == 0)
		c->state = CH_DATA_CR;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

long srt__chunked_feed(struct srt__chunked *c, const char *buf, size_t len,
		       bool *done)
{
	size_t i = 0;

	*done = c->state == CH_DONE;
	while (i < len && c->state != CH_DONE) {
		char ch = buf[i];
		int hv;

		switch (c->state) {
		case CH_SIZE0:
		case CH_SIZE:
			hv = hexval(ch);
			if (hv >= 0) {
				if (c->line >= 15)
					return -1;
				c->remaining = c->remaining << 4 | (uint64_t)hv;
				c->line++;
				c->state = CH_SIZE;
			} else if (c->state == CH_SIZE0) {
				return -1;
			} else if (ch == ';' || ch == ' ' || ch == '\t') {
				c->state = CH_EXT;
			} else if (ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return -1;
			}
			i++;
			break;
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (ch == '\n' || ++c->line > CH_MAX_LINE ||
				 (!is_value_char((unsigned char)ch)))
				return -1;
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -1;
			c->line = 0;
			c->state = c->remaining ? CH_DATA : CH_TRAILER_BOL;
			i++;
			break;
		case CH_DATA: {
			size_t take = len - i;
			if (take > c->remaining)
				take = (size_t)c->remaining;
			c->remaining -= take;
			i += take;
			if (c->remaining == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (ch != '\r')
				return -1;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_SIZE0;
			c->remaining = 0;
			c->line = 0;
			i++;
			break;
		case CH_TRAILER_BOL:
			if (ch == '\r') {
				c->state = CH_END_LF;
				i++;
				break;
			}
			/* a trailer is a header field, "name: value": a line
			 * of anything else (a request line, say) is a parser
			 * disagreement waiting to happen, not a trailer */
			if (!is_tchar((unsigned char)ch))
				return -1;
			c->state = CH_TRAILER_NAME;
			/* fall through */
		case CH_TRAILER_NAME:
			if (++c->trailer > CH_MAX_TRAILER)
				return -1;
			if (ch == ':')
				c->state = CH_TRAILER;
			else if (!is_tchar((unsigned char)ch))
				return -1;
			i++;
			break;
		case CH_TRAILER:
			if (++c->trailer > CH_MAX_TRAILER)
				return -1;
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if (ch == '\n' || !is_value_char((unsigned char)ch))
				return -1;
			i++;
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_TRAILER_BOL;
			i++;
			break;
		case CH_END_LF:
			if (ch != '\n')
				return -1;
			c->state = CH_DONE;
			i++;
			break;
		default:
			return -1;
		}
	}
	*done = c->state == CH_DONE;
	return (long)i;
}

/* ---- request-target ----------------------------------------------------- */

static bool is_slash(char ch)
{
	return ch == '/' || ch == '\\';
}

/* 1 for a "." segment, 2 for "..", in any spelling of %2e; else 0 */
static int dot_segment(const char *s, size_t n)
{
	int dots = 0;

	for (size_t i = 0; i < n; dots++) {
		if (s[i] == '.')
			i++;
		else if (n - i >= 3 && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] | 0x20) == 'e')
			i += 3;
		else
			return 0;
	}
	return dots <= 2 ? dots : 0;
}

size_t srt__http_target_normalize(const char *t, size_t n, char *out, size_t cap)
{
	const char *q = memchr(t, '?', n);
	size_t plen = q ? (size_t)(q - t) : n, i = 0, o = 0;

	if (cap < n || n == 0)
		return 0;
	if (!is_slash(t[0])) {
		memcpy(out, t, n);
		return n;
	}
	/* out is "/" then "segment/" per kept segment; the last segment has
	 * no "/" unless it was a dot segment or empty */
	out[o++] = '/';
	while (i < plen && is_slash(t[i]))
		i++;
	while (i < plen) {
		size_t s = i;
		int dot;

		while (i < plen && !is_slash(t[i]))
			i++;
		dot = dot_segment(t + s, i - s);
		if (dot == 2 && o > 1) {
			/* drop the last kept segment: out ends in '/' here */
			o--;
			while (out[o - 1] != '/')
				o--;
		} else if (dot == 0) {
			memcpy(out + o, t + s, i - s);
			o += i - s;
			if (i < plen)
				out[o++] = '/';
		}
		if (i < plen)
			i++; /* the separator */
	}
	memcpy(out + o, t + plen, n - plen);
	return o + (n - plen);
}

/* Nothing to resolve: no "\\", no segment starting with '.' or '%', no
 * leading "//" (the common case, checked without a copy). */
static bool target_plain(const char *t, size_t n)
{
	const char *q = memchr(t, '?', n);
	size_t plen = q ? (size_t)(q - t) : n;

	if (plen >= 2 && t[0] == '/' && t[1] == '/')
		return false;
	for (size_t i = 0; i < plen; i++) {
		if (t[i] == '\\')
			return false;
		if (t[i] == '/' && i + 1 < plen && (t[i + 1] == '.' || t[i + 1] == '%'))
			return false;
	}
	return true;
}

bool srt__http_target_ambiguous(const char *t, size_t n)
{
	char stack[512], *buf;
	size_t m;
	bool differs;

	if (n == 0 || target_plain(t, n))
		return false;
	buf = n <= sizeof(stack) ? stack : malloc(n);
	if (!buf)
		return true; /* cannot tell: the caller refuses */
	m = srt__http_target_normalize(t, n, buf, n);
	differs = m != n || memcmp(buf, t, n) != 0;
	if (buf != stack)
		free(buf);
	return differs;
}
