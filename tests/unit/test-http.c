/* HTTP head parser, request analysis, rewritten heads and chunked framing. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/http.h"
#include "tests/unit/tap.h"

static struct srt__http_head h;

static int req(const char *s)
{
	return srt__http_parse_request(s, strlen(s), &h);
}

static int analyze(const char *s, struct srt__http_request *r, struct srt__http_refusal *w)
{
	if (req(s) <= 0)
		return -100;
	return srt__http_analyze_request(&h, r, w);
}

static void test_parse(void)
{
	const char *good = "GET http://a.b/x HTTP/1.1\r\nHost: a.b\r\nX:  y \r\n\r\nBODY";
	int n = req(good);

	ok(n == (int)(strlen(good) - 4), "parse returns the head length (%d)", n);
	ok(h.n == 2 && h.h[1].value_len == 1 && h.h[1].value[0] == 'y',
	   "values are trimmed");
	ok(req("GET http://a.b/ HTTP/1.1\r\nHost: a.b\r\n") == SRT_HTTP_NEED_MORE,
	   "incomplete head needs more");
	ok(req("GET http://a.b/ HTTP/1.1\nHost: a.b\n\n") == SRT_HTTP_BAD, "bare LF refused");
	ok(req("GET http://a.b/ HTTP/1.1\r\nX: a\rY: b\r\n\r\n") == SRT_HTTP_BAD,
	   "bare CR inside a header line refused");
	ok(req("GET http://a.b/ HTTP/1.1\rX\r\n\r\n") == SRT_HTTP_BAD,
	   "bare CR in the request line refused");
	ok(srt__http_parse_response("HTTP/1.1 200 OK\rX\r\n\r\n", 22, &h) == SRT_HTTP_BAD,
	   "bare CR in a status line refused");
	ok(req("GET http://a.b/ HTTP/1.1\r\nHost : a.b\r\n\r\n") == SRT_HTTP_BAD,
	   "space before colon refused");
	ok(req("GET http://a.b/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n") == SRT_HTTP_BAD,
	   "obsolete folding refused");
	ok(req("GET http://a.b/ HTTP/2.0\r\n\r\n") == SRT_HTTP_BAD, "HTTP/2.0 refused");
	ok(req("GET  http://a.b/ HTTP/1.1\r\n\r\n") == SRT_HTTP_BAD, "double space refused");
	ok(req("GET http://a.b/ HTTP/1.1\r\nX: a\001b\r\n\r\n") == SRT_HTTP_BAD,
	   "control character in a value refused");
	{
		size_t big = SRT_HTTP_MAX_HEAD + 100;
		char *b = malloc(big);
		memset(b, 'a', big);
		memcpy(b, "GET http://a.b/ HTTP/1.1\r\nX: ", 29);
		ok(srt__http_parse_request(b, big, &h) == SRT_HTTP_TOO_BIG,
		   "head over 64 KiB is too big");
		free(b);
	}
	{
		char b[8192];
		size_t o = (size_t)sprintf(b, "GET http://a.b/ HTTP/1.1\r\n");
		for (int i = 0; i < SRT_HTTP_MAX_HEADERS + 1; i++)
			o += (size_t)sprintf(b + o, "X%d: 1\r\n", i);
		strcpy(b + o, "\r\n");
		ok(req(b) == SRT_HTTP_TOO_BIG, "too many headers");
	}
	{
		char b[8192];
		struct srt__http_request r;
		struct srt__http_refusal w;
		size_t o = (size_t)sprintf(b, "GET http://a.b/ HTTP/1.1\r\n");
		for (int i = 0; i < SRT_HTTP_MAX_HEADERS - 3; i++)
			o += (size_t)sprintf(b + o, "X%d: 1\r\n", i);
		strcpy(b + o, "\r\n");
		ok(req(b) > 0 && srt__http_analyze_request(&h, &r, &w) == -1 && w.status == 431,
		   "headers the rebuilt head could not carry: 431");
	}
	ok(srt__http_parse_response("HTTP/1.1 200 OK\r\nA: b\r\n\r\n", 25, &h) == 25 &&
	   h.status == 200 && h.reason_len == 2, "response status line");
	ok(srt__http_parse_response("HTTP/1.1 20 OK\r\n\r\n", 18, &h) == SRT_HTTP_BAD,
	   "two-digit status refused");
	ok(srt__http_parse_response("HTTP/1.0 204\r\n\r\n", 16, &h) == 16 && h.minor == 0,
	   "status line without a reason");
}

static void test_analyze(void)
{
	struct srt__http_request r;
	struct srt__http_refusal w;

	ok(analyze("CONNECT example.com:443 HTTP/1.1\r\n\r\n", &r, &w) == 0 &&
	   r.is_connect && !strcmp(r.host, "example.com") && r.port == 443,
	   "CONNECT authority");
	ok(analyze("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", &r, &w) == 0 &&
	   !strcmp(r.host, "::1") && r.port == 8443, "CONNECT bracketed IPv6");
	ok(analyze("CONNECT example.com HTTP/1.1\r\n\r\n", &r, &w) == -1 && w.status == 400,
	   "CONNECT without a port refused");
	ok(analyze("CONNECT example.com:0 HTTP/1.1\r\n\r\n", &r, &w) == -1, "port 0 refused");
	ok(analyze("CONNECT example.com:65536 HTTP/1.1\r\n\r\n", &r, &w) == -1,
	   "port 65536 refused");
	ok(analyze("CONNECT a:b:443 HTTP/1.1\r\n\r\n", &r, &w) == -1,
	   "unbracketed colons refused");
	ok(analyze("GET http://Example.com:8080/p?q=1#frag HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
		   &r, &w) == 0 && !r.is_connect && r.port == 8080 &&
	   r.origin_target_len == 6 && !strncmp(r.origin_target, "/p?q=1", 6),
	   "absolute-form: host, port, path and query, fragment cut");
	ok(analyze("GET http://a.com HTTP/1.1\r\n\r\n", &r, &w) == 0 && r.port == 80 &&
	   r.origin_target_len == 0, "absolute-form without a path");
	ok(analyze("GET /x HTTP/1.1\r\nHost: a.com\r\n\r\n", &r, &w) == -1 && w.status == 400,
	   "origin-form refused by a proxy");
	ok(analyze("GET http://user@a.com/ HTTP/1.1\r\n\r\n", &r, &w) == -1,
	   "userinfo refused");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nHost: b.com\r\n\r\n", &r, &w) == -1 &&
	   w.status == 421 && strstr(w.reason, "does not match"),
	   "Host mismatch refused with 421");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nHost: a.com:81\r\n\r\n", &r, &w) == -1 &&
	   w.status == 421, "Host port mismatch refused");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nHost: a.com\r\nHost: a.com\r\n\r\n", &r, &w) == -1 &&
	   w.status == 421 && strstr(w.reason, "more than one"), "two Host headers refused");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nHost: A.COM.:80\r\n\r\n", &r, &w) == 0,
	   "Host compared case-insensitively, default port, trailing dot");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		   &r, &w) == -1 && w.status == 400 && strstr(w.reason, "both"),
	   "Content-Length with Transfer-Encoding refused");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
		   &r, &w) == -1, "conflicting Content-Length refused");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
		   &r, &w) == 0 && r.body == SRT_BODY_LENGTH && r.length == 5,
	   "repeated equal Content-Length accepted");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nContent-Length: +5\r\n\r\n", &r, &w) == -1,
	   "signed Content-Length refused");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n"
		   "Proxy-Authorization: Basic eDp5\r\n\r\n", &r, &w) == -1 && w.status == 400 &&
	   r.auth && r.auth_len == 10 && !strncmp(r.auth, "Basic eDp5", 10),
	   "a refused request still yields its credentials, so it gets 400, not 407");
	ok(analyze("CONNECT a.com:443 HTTP/1.1\r\nContent-Length: 1,1\r\n"
		   "Proxy-Authorization: Basic eDp5\r\n\r\n", &r, &w) == -1 && w.status == 400 &&
	   r.is_connect && r.auth, "a refused CONNECT is known as one, with its credentials");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		   &r, &w) == -1, "Transfer-Encoding other than chunked refused");
	ok(analyze("POST http://a.com/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r, &w) == 0 &&
	   r.body == SRT_BODY_CHUNKED, "chunked request body");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nConnection: close\r\n\r\n", &r, &w) == 0 &&
	   !r.keep_alive, "Connection: close");
	ok(analyze("GET http://a.com/ HTTP/1.0\r\n\r\n", &r, &w) == 0 && !r.keep_alive,
	   "HTTP/1.0 closes by default");
	ok(analyze("POST http://a.com/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", &r, &w) == -1 && w.status == 400,
	   "Transfer-Encoding in an HTTP/1.0 request: 400");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nProxy-Authorization: Basic eA==\r\n"
		   "Proxy-Authorization: Basic eQ==\r\n\r\n", &r, &w) == 0 && r.auth == NULL,
	   "two Proxy-Authorization headers: neither is used");
}

static void test_build(void)
{
	struct srt__http_request r;
	struct srt__http_refusal w;
	struct srt__http_response rs;
	char out[4096];
	size_t n;

	analyze("POST http://A.com:8080/p?q HTTP/1.1\r\nHost: a.com:8080\r\n"
		"Proxy-Authorization: Basic xx\r\nConnection: close, X-Secret\r\n"
		"X-Secret: 1\r\nKeep-Alive: 5\r\nUpgrade: h2c\r\nTE: trailers\r\n"
		"Content-Length: 3\r\nAccept: */*\r\n\r\n", &r, &w);
	n = srt__http_build_upstream(&h, &r, "a.com", NULL, out, sizeof(out));
	out[n] = '\0';
	ok(n > 0 && !strncmp(out, "POST /p?q HTTP/1.1\r\nHost: a.com:8080\r\n", 38),
	   "request line in origin form, Host rebuilt");
	ok(!strstr(out, "Proxy-Authorization") && !strstr(out, "X-Secret") &&
	   !strstr(out, "Keep-Alive") && !strstr(out, "Upgrade") && !strstr(out, "TE:") &&
	   !strstr(out, "Connection"), "hop-by-hop and Connection-listed headers removed");
	ok(strstr(out, "Accept: */*\r\n") && strstr(out, "Content-Length: 3\r\n") &&
	   !strcmp(out + n - 4, "\r\n\r\n"), "end-to-end headers and framing kept");
	ok(srt__http_build_upstream(&h, &r, "a.com", NULL, out, 20) == 0, "small buffer reports 0");
	analyze("GET http://[::1]/ HTTP/1.1\r\n\r\n", &r, &w);
	n = srt__http_build_upstream(&h, &r, "::1", NULL, out, sizeof(out));
	out[n] = '\0';
	ok(strstr(out, "Host: [::1]\r\n") != NULL, "IPv6 Host bracketed, default port elided");
	analyze("GET http://a.com:8080/p HTTP/1.1\r\nProxy-Authorization: Basic mine\r\n\r\n", &r, &w);
	n = srt__http_build_upstream(&h, &r, "a.com", "Basic cGFyZW50OnB3", out, sizeof(out));
	out[n] = '\0';
	ok(!strncmp(out, "GET http://a.com:8080/p HTTP/1.1\r\n", 34) &&
	   strstr(out, "Proxy-Authorization: Basic cGFyZW50OnB3\r\n") && !strstr(out, "mine"),
	   "to a parent proxy: absolute form and the parent's credentials only");

	{
		const char *s = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: keep-alive\r\n"
				"Keep-Alive: timeout=5\r\nX: y\r\n\r\n";
		srt__http_parse_response(s, strlen(s), &h);
	}
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && rs.body == SRT_BODY_LENGTH &&
	   rs.length == 10 && !rs.upstream_close, "response with Content-Length");
	n = srt__http_build_downstream(&h, &rs, false, NULL, 0, out, sizeof(out));
	out[n] = '\0';
	ok(!strstr(out, "Keep-Alive") && !strstr(out, "Connection") &&
	   strstr(out, "Content-Length: 10"), "response hop-by-hop removed");
	ok(srt__http_analyze_response(&h, true, &rs) == 0 && rs.body == SRT_BODY_NONE,
	   "HEAD response has no body");
	{
		char *strip[] = { (char *)"x" };
		char *strip2[] = { (char *)"X_Powered.BY" };
		const char *s2 = "HTTP/1.1 200 OK\r\nX-Powered-By: php\r\nX: y\r\nContent-Length: 0\r\n\r\n";
		srt__http_parse_response(s2, strlen(s2), &h);
		srt__http_analyze_response(&h, false, &rs);
		n = srt__http_build_downstream(&h, &rs, false, strip, 1, out, sizeof(out));
		out[n] = '\0';
		ok(!strstr(out, "X: y") && strstr(out, "X-Powered-By"), "stripResponseHeaders removes a name");
		n = srt__http_build_downstream(&h, &rs, false, strip2, 1, out, sizeof(out));
		out[n] = '\0';
		ok(!strstr(out, "Powered") && strstr(out, "X: y"), "stripResponseHeaders folds - _ . and case");
	}
	srt__http_parse_response("HTTP/1.1 200 OK\r\n\r\n", 19, &h);
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && rs.body == SRT_BODY_EOF &&
	   rs.upstream_close, "no framing: until EOF");
	n = srt__http_build_downstream(&h, &rs, true, NULL, 0, out, sizeof(out));
	out[n] = '\0';
	ok(strstr(out, "Connection: close\r\n") != NULL, "close announced");
	srt__http_parse_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 47, &h);
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && rs.body == SRT_BODY_CHUNKED,
	   "chunked response");
	{
		const char *s = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
		srt__http_parse_response(s, strlen(s), &h);
	}
	ok(srt__http_analyze_response(&h, false, &rs) == -1, "conflicting response lengths");
	srt__http_parse_response("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", 48, &h);
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && rs.body == SRT_BODY_NONE,
	   "304 has no body");
}

/* Only a switch to WebSocket is relayed: after any other the requests it
 * may carry (h2c, HTTP/x, or a name the server maps to one of them) would
 * reach the server unseen by the filters. */
static void test_upgrade(void)
{
	static const char *const refused[] = { "h2c", "H2C", "h2", "TLS/1.0", "HTTP/2.0",
					       "h2c;x", "spdy/3.1", "foo", "websocket, h2c",
					       "websocketx", "websocket/13" };
	struct srt__http_request r;
	struct srt__http_refusal w;
	struct srt__http_response rs;
	char q[256];

	ok(analyze("GET http://a.com/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		   &r, &w) == 0 && r.upgrade, "a WebSocket upgrade is passed on");
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nConnection: upgrade\r\nUpgrade:  WebSocket \r\n\r\n",
		   &r, &w) == 0 && r.upgrade, "WebSocket in any case, with spaces around");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(q, sizeof(q), "GET http://a.com/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n",
			 refused[i]);
		ok(analyze(q, &r, &w) == 0 && !r.upgrade, "Upgrade: %s is dropped", refused[i]);
	}
	ok(analyze("GET http://a.com/ HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
		   "Upgrade: foo\r\n\r\n", &r, &w) == 0 && !r.upgrade,
	   "a second Upgrade line naming another protocol drops the upgrade");
	{
		const char *s = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
		srt__http_parse_response(s, strlen(s), &h);
	}
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && rs.upgrade, "a 101 to WebSocket is a switch");
	{
		const char *s = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
		srt__http_parse_response(s, strlen(s), &h);
	}
	ok(srt__http_analyze_response(&h, false, &rs) == 0 && !rs.upgrade,
	   "a 101 naming another protocol is no switch the proxy relays");
}

static long feed_all(struct srt__chunked *c, const char *s, bool *done)
{
	return srt__chunked_feed(c, s, strlen(s), done);
}

static void test_chunked(void)
{
	struct srt__chunked c;
	bool done;
	const char *body = "5\r\nhello\r\n1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nT: v\r\n\r\nNEXT";
	long k;

	srt__chunked_init(&c);
	k = feed_all(&c, body, &done);
	ok(done && k == (long)strlen(body) - 4, "chunked body ends before the next message (%ld)", k);
	srt__chunked_init(&c);
	done = false;
	k = 0;
	for (size_t i = 0; i < strlen(body) && !done; i++) {
		long r = srt__chunked_feed(&c, body + i, 1, &done);
		if (r < 0) {
			k = -1;
			break;
		}
		k += r;
	}
	ok(done && k == (long)strlen(body) - 4, "byte-at-a-time gives the same end");
	srt__chunked_init(&c);
	ok(feed_all(&c, "0\r\n\r\n", &done) == 5 && done, "empty chunked body");
	srt__chunked_init(&c);
	ok(feed_all(&c, "g\r\n", &done) == -1, "bad size refused");
	srt__chunked_init(&c);
	ok(feed_all(&c, "5\r\nhelloX\r\n", &done) == -1, "missing CRLF after data refused");
	srt__chunked_init(&c);
	ok(feed_all(&c, "ffffffffffffffff\r\n", &done) == -1, "oversized chunk length refused");
	srt__chunked_init(&c);
	ok(feed_all(&c, "5\nhello", &done) == -1, "bare LF refused");
	srt__chunked_init(&c);
	feed_all(&c, "10\r\n", &done);
	ok(srt__chunked_data_left(&c) == 16, "data left while in a chunk");
	/* a trailer is "name: value"; a request line there is refused, not
	 * passed on for a laxer parser to take as the next request */
	srt__chunked_init(&c);
	ok(feed_all(&c, "0\r\nGET http://b.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n", &done) == -1,
	   "a request line among the trailers is refused");
	srt__chunked_init(&c);
	ok(feed_all(&c, "0\r\n: v\r\n\r\n", &done) == -1, "a trailer without a name is refused");
	srt__chunked_init(&c);
	ok(feed_all(&c, "0\r\nX-Sum: 1\r\nY:\r\n\r\n", &done) == 19 && done, "name: value trailers pass");
}

/* norm(in): the normalised target, or "(none)" */
static const char *norm(const char *in)
{
	static char out[256];
	size_t n = srt__http_target_normalize(in, strlen(in), out, sizeof(out) - 1);

	if (!n)
		return "(none)";
	out[n] = '\0';
	return out;
}

static void test_target(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "/", "/" },
		{ "/a/b?x=1", "/a/b?x=1" },
		{ "/a//b", "/a//b" },       /* an empty segment is not ambiguous */
		{ "/a/b/", "/a/b/" },
		{ "/a/.../b", "/a/.../b" }, /* three dots are a name */
		{ "/a%2eb", "/a%2eb" },     /* a dot inside a name */
		{ "/a/../b", "/b" },
		{ "/a/./b", "/a/b" },
		{ "/a/b/..", "/a/" },
		{ "/a/b/.", "/a/b/" },
		{ "/..", "/" },
		{ "/../../etc/passwd", "/etc/passwd" },
		{ "/a/%2e%2E/b", "/b" },
		{ "/a/.%2e/b", "/b" },
		{ "/a/%2e/b", "/a/b" },
		{ "//evil/x", "/evil/x" },
		{ "/a\\..\\b", "/b" },
		{ "\\a", "/a" },
		{ "/public/..%2fsecret", "/public/..%2fsecret" }, /* %2f is not a separator */
		{ "/a/b?q=/../x", "/a/b?q=/../x" },                /* the query is not a path */
		{ "/x/..?q", "/?q" },
		{ "*", "*" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = norm(cases[i].in);
		ok(!strcmp(got, cases[i].want), "normalised '%s' is '%s' (%s)", cases[i].in,
		   cases[i].want, got);
		ok(srt__http_target_ambiguous(cases[i].in, strlen(cases[i].in)) ==
			   (strcmp(cases[i].in, cases[i].want) != 0),
		   "'%s' is %sambiguous", cases[i].in,
		   strcmp(cases[i].in, cases[i].want) ? "" : "not ");
	}
	{
		char out[4];
		ok(srt__http_target_normalize("/a/b", 4, out, 3) == 0, "a short buffer is refused");
	}
}

int main(void)
{
	TAP_RUN(test_parse);
	TAP_RUN(test_analyze);
	TAP_RUN(test_build);
	TAP_RUN(test_upgrade);
	TAP_RUN(test_chunked);
	TAP_RUN(test_target);
	return tap_done();
}
