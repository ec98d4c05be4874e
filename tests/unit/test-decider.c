/* The decider protocol v1 (proxies/decider.c): frames, the strict JSON
 * reader, each message's checks, the frames the proxy builds, and the link
 * over a socketpair standing in for the decider: verdicts matched by id,
 * the 5 s clock, late verdicts, need_body, and a decider that dies or
 * breaks the protocol failing every pending request closed. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxies/decider.h"
#include "tests/unit/tap.h"

static int parse(const char *json, struct srt__decider_msg *m, char *why, size_t cap)
{
	return srt__decider_parse((const uint8_t *)json, strlen(json), m, why, cap);
}

static int rejects(const char *json, const char *want)
{
	struct srt__decider_msg m;
	char why[200];
	int rc = parse(json, &m, why, sizeof(why));

	if (rc == 0) {
		srt__decider_msg_release(&m);
		return 0;
	}
	if (want && !strstr(why, want)) {
		printf("# why: %s\n", why);
		return 0;
	}
	return 1;
}

static void test_frame(void)
{
	ok(srt__decider_frame((const uint8_t *)"\0\0\0", 3) == 0, "three bytes: more needed");
	ok(srt__decider_frame((const uint8_t *)"\0\0\0\0", 4) == -1, "length 0 refused");
	ok(srt__decider_frame((const uint8_t *)"\0\x10\0\x01", 4) == -1, "1 MiB + 1 refused");
	ok(srt__decider_frame((const uint8_t *)"\0\x10\0\0", 4) == 0, "1 MiB waits for its bytes");
	ok(srt__decider_frame((const uint8_t *)"\0\0\0\x02{}x", 7) == 6, "a frame and a byte more");
}

static void test_json(void)
{
	ok(rejects("[]", "not a JSON object"), "an array is not a message");
	ok(rejects("{\"t\":\"hello\",\"proto\":1,\"x\":null}", "null"), "null refused");
	ok(rejects("{\"t\":\"hello\",\"t\":\"hello\",\"proto\":1}", "duplicate key"), "duplicate key");
	ok(rejects("{\"t\":\"hel\xc0\xafo\",\"proto\":1}", "UTF-8"), "overlong UTF-8");
	ok(rejects("{\"t\":\"\xed\xa0\x80\",\"proto\":1}", "UTF-8"), "UTF-8 surrogate");
	ok(rejects("{\"t\":\"\\ud800\",\"proto\":1}", "surrogate"), "lone high surrogate");
	ok(rejects("{\"t\":\"\\udc00x\",\"proto\":1}", "surrogate"), "lone low surrogate");
	ok(rejects("{\"t\":\"hello\",\"proto\":1} x", "after"), "trailing bytes");
	ok(rejects("{\"t\":\"hello\",\"proto\":01}", "leading zero"), "leading zero");
	ok(rejects("{\"t\":\"hello\",\"proto\":1,\"a\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}",
		   "nesting"), "nesting bounded");
	ok(rejects("{\"t\":\"hello\",\"proto\":1", "truncated"), "truncated object");
	ok(rejects("{\"t\":\"a\tb\"}", "control"), "raw tab in a string");
	ok(rejects("{\"t\":\"bye\"}", "unknown message"), "unknown t");
	ok(rejects("{\"proto\":1}", "without"), "no t");
}

static void test_hello(void)
{
	struct srt__decider_msg m;
	char why[200];

	ok(parse("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"example.com\",\"*.github.com\","
		 "\"127.0.0.1:8080\",\"[::1]:443\",\"::1\"],\"deniedDomains\":[\"evil.example.com\"]}",
		 &m, why, sizeof(why)) == 0 && m.type == SRT__DM_HELLO && m.hello.nallowed == 5 &&
	   m.hello.ndenied == 1 && !strcmp(m.hello.allowed[1], "*.github.com"), "hello with lists");
	srt__decider_msg_release(&m);
	ok(parse("{\"t\":\"hello\",\"proto\":1}", &m, why, sizeof(why)) == 0 && m.hello.nallowed == 0,
	   "hello without lists");
	srt__decider_msg_release(&m);
	ok(rejects("{\"t\":\"hello\",\"proto\":2}", "proto"), "proto 2 refused");
	ok(rejects("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"a.com\",\"a.com\"]}", "repeats"),
	   "repeated entry");
	ok(rejects("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"Example.com\"]}", "valid host"),
	   "upper case refused");
	ok(rejects("{\"t\":\"hello\",\"proto\":1,\"extra\":true}", "unknown field"), "unknown field");
	ok(srt__decider_entry_valid("a.b.c:65535") && !srt__decider_entry_valid("a.b:65536") &&
	   !srt__decider_entry_valid("a.b:080") && !srt__decider_entry_valid("*.com") &&
	   !srt__decider_entry_valid("-a.com") && !srt__decider_entry_valid("a.123") &&
	   srt__decider_entry_valid("::1:80") && !srt__decider_entry_valid("1::2::3") && srt__decider_entry_valid("localhost") &&
	   !srt__decider_entry_valid("a..b") && !srt__decider_entry_valid("a_b.com") &&
	   !srt__decider_entry_valid("[1.2.3.4]:80") && !srt__decider_entry_valid(""),
	   "egress entry grammar");
}

static void test_verdicts(void)
{
	struct srt__decider_msg m;
	char why[200];

	ok(parse("{\"t\":\"verdict\",\"id\":7,\"action\":\"allow\",\"setHeaders\":{\"X-A\":[\"1\",\"2\"]},"
		 "\"removeHeaders\":[\"X-B\"],\"cred\":\"github\",\"credential\":\"tok\"}",
		 &m, why, sizeof(why)) == 0 && m.verdict.id == 7 && m.verdict.action == SRT__DV_ALLOW &&
	   m.verdict.nset == 2 && !strcmp(m.verdict.set[1].name, "x-a") &&
	   !strcmp(m.verdict.set[1].value, "2") && m.verdict.nremove == 1 &&
	   !strcmp(m.verdict.remove[0], "x-b") && !strcmp(m.verdict.credential, "tok"),
	   "allow with edits and a credential");
	srt__decider_msg_release(&m);
	ok(parse("{\"t\":\"verdict\",\"id\":3,\"action\":\"deny\",\"status\":451,\"reason\":\"no\"}",
		 &m, why, sizeof(why)) == 0 && m.verdict.status == 451 && !strcmp(m.verdict.reason, "no"),
	   "deny with status and reason");
	srt__decider_msg_release(&m);
	ok(parse("{\"t\":\"verdict\",\"id\":3,\"action\":\"need_body\",\"max\":33554432}",
		 &m, why, sizeof(why)) == 0 && m.verdict.max == 33554432, "need_body at the cap");
	srt__decider_msg_release(&m);
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"need_body\",\"max\":33554433}", "max"),
	   "need_body over the cap");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"deny\",\"status\":399}", "status"),
	   "status 399");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"deny\",\"status\":403.0}", "status"),
	   "fractional status");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"deny\",\"status\":403,\"reason\":\"a\\nb\"}",
		   "reason"), "reason with a newline");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"setHeaders\":{\"Content_Length\":[\"1\"]}}",
		   "framing"), "setting a framing header (folded spelling)");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"removeHeaders\":[\"transfer-encoding\"]}",
		   "framing"), "removing a framing header");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"setHeaders\":{\"Authorization\":[\"x\"]}}",
		   "cred"), "a credential header only through cred");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"setHeaders\":{\"x\":[\"a\\r\\nb: c\"]}}",
		   "header value"), "CRLF in a value");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"cred\":\"github\"}", "together"),
	   "cred without credential");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"cred\":\"g\",\"credential\":\"a b\"}",
		   "printable"), "credential with a space");
	ok(rejects("{\"t\":\"verdict\",\"id\":0,\"action\":\"allow\"}", "id"), "id 0");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"maybe\"}", "action"), "unknown action");
	ok(rejects("{\"t\":\"verdict\",\"id\":3,\"action\":\"deny\",\"status\":403,\"max\":1}", "unknown field"),
	   "a field of another action");
}

static void test_build(void)
{
	struct srt__decider_field h[] = {
		{ "Host", "example.com" }, { "Accept", "*/*" }, { "X-Two", "a" },
		{ "accept", "text/html" }, { "X-Q", "say \"hi\"\\" },
	};
	struct srt__decider_req r = {
		.method = "GET", .host = "example.com", .port = 80, .host_header = "example.com",
		.path = "/a b", .query = "q=1", .headers = h, .nheaders = 5,
	};
	const char *want = "{\"t\":\"req\",\"id\":1,\"method\":\"GET\",\"host\":\"example.com\",\"port\":80,"
			   "\"hostHeader\":\"example.com\",\"path\":\"/a b\",\"query\":\"q=1\","
			   "\"headers\":{\"accept\":[\"*/*\",\"text/html\"],\"x-two\":[\"a\"],"
			   "\"x-q\":[\"say \\\"hi\\\"\\\\\"]}}";
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	char why[200], *big;
	struct srt__decider_field many[191];
	int i;

	ok(srt__decider_build_req(&buf, &len, &cap, 1, &r, why, sizeof(why)) == 0 &&
	   srt__decider_frame(buf, len) == (long)len && len - 4 == strlen(want) &&
	   !memcmp(buf + 4, want, len - 4), "req frame as the protocol spells it");
	if (len - 4 != strlen(want) || memcmp(buf + 4, want, len - 4))
		printf("# got %.*s\n", (int)len - 4, buf + 4);
	len = 0;
	r.path = "/\xff";
	ok(srt__decider_build_req(&buf, &len, &cap, 2, &r, why, sizeof(why)) == -1 && len == 0 &&
	   strstr(why, "UTF-8"), "a path that is not UTF-8 is not sent");
	big = malloc(8194);
	memset(big, 'a', 8193);
	big[8193] = 0;
	r.path = big;
	ok(srt__decider_build_req(&buf, &len, &cap, 2, &r, why, sizeof(why)) == -1 && len == 0,
	   "a path over 8 KiB is not sent");
	r.path = "/";
	for (i = 0; i < 191; i++) {
		many[i].name = "x";
		many[i].value = "v";
	}
	r.headers = many;
	r.nheaders = 191;
	ok(srt__decider_build_req(&buf, &len, &cap, 2, &r, why, sizeof(why)) == -1 && len == 0,
	   "191 header values are not sent");
	r.nheaders = 190;
	ok(srt__decider_build_req(&buf, &len, &cap, 2, &r, why, sizeof(why)) == 0, "190 are");
	len = 0;
	ok(srt__decider_build_body(&buf, &len, &cap, 9, (const uint8_t *)"hi", 2, true) == 0 &&
	   len == 4 + strlen("{\"t\":\"body\",\"id\":9,\"data\":\"aGk=\",\"cut\":true}") &&
	   !memcmp(buf + 4, "{\"t\":\"body\",\"id\":9,\"data\":\"aGk=\",\"cut\":true}", len - 4),
	   "body frame");
	free(big);
	free(buf);
}

/* ---- the link against a scripted decider -------------------------------- */

struct seen {
	int n;
	enum srt__decider_action last;
	int status;
	char reason[256];
	uint64_t id;
	int hellos, deaths;
	size_t nallowed;
};

static void on_verdict(void *ctx, const struct srt__decider_verdict *v)
{
	struct seen *s = ctx;

	s->n++;
	s->last = v->action;
	s->status = v->status;
	s->id = v->id;
	snprintf(s->reason, sizeof(s->reason), "%s", v->reason ? v->reason : "");
}

static void on_hello(void *ctx, const struct srt__decider_hello *h)
{
	struct seen *s = ctx;

	s->hellos++;
	s->nallowed = h->nallowed;
}

static void on_dead(void *ctx, const char *why)
{
	struct seen *s = ctx;

	(void)why;
	s->deaths++;
}

static const struct srt__decider_ops ops = { on_hello, on_dead };

static void send_frame(int fd, const char *json)
{
	uint32_t n = (uint32_t)strlen(json);
	uint8_t h[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };

	if (write(fd, h, 4) != 4 || write(fd, json, n) != (ssize_t)n)
		abort();
}

/* One frame from the proxy (blocking), NUL-terminated in out. */
static int recv_frame(int fd, char *out, size_t cap)
{
	uint8_t h[4];
	uint32_t n;
	size_t got = 0;

	if (recv(fd, h, 4, MSG_WAITALL) != 4)
		return -1;
	n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
	if (n >= cap)
		return -1;
	while (got < n) {
		ssize_t r = recv(fd, out + got, n - got, 0);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	out[n] = 0;
	return (int)n;
}

static struct srt__decider *pair(int *peer, struct seen *s)
{
	int sv[2];
	char f[256];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	*peer = sv[1];
	memset(s, 0, sizeof(*s));
	{
		struct srt__decider *d = srt__decider_new(sv[0], sv[0], &ops, s);
		if (recv_frame(*peer, f, sizeof(f)) < 0 || strcmp(f, "{\"t\":\"hello\",\"proto\":1}"))
			abort();
		return d;
	}
}

static const struct srt__decider_req req = { .method = "GET", .host = "a.com", .port = 80,
					     .path = "/" };

static uint64_t ask(struct srt__decider *d, struct seen *s, int64_t now)
{
	uint64_t id = 0;
	char why[100];

	if (srt__decider_ask(d, &req, now, on_verdict, s, &id, why, sizeof(why)) < 0)
		abort();
	return id;
}

static void test_link(void)
{
	struct seen s;
	int peer;
	struct srt__decider *d = pair(&peer, &s);
	char f[4096];
	uint64_t a, b;

	send_frame(peer, "{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"a.com\"]}");
	srt__decider_on_read(d, 0);
	ok(s.hellos == 1 && s.nallowed == 1 && srt__decider_ready(d), "hello received");
	a = ask(d, &s, 0);
	b = ask(d, &s, 0);
	ok(a == 1 && b == 2 && srt__decider_pending(d) == 2, "ids start at 1 and increase");
	ok(recv_frame(peer, f, sizeof(f)) > 0 && strstr(f, "\"id\":1,") &&
	   recv_frame(peer, f, sizeof(f)) > 0 && strstr(f, "\"id\":2,"), "both reqs sent");
	send_frame(peer, "{\"t\":\"verdict\",\"id\":2,\"action\":\"deny\",\"status\":403,\"reason\":\"no\"}");
	srt__decider_on_read(d, 100);
	ok(s.n == 1 && s.id == 2 && s.last == SRT__DV_DENY && !strcmp(s.reason, "no"),
	   "verdicts matched by id, out of order");
	ok(srt__decider_tick(d, 4999) == 1 && s.n == 1, "no timeout before 5 s");
	ok(srt__decider_tick(d, 5000) == -1 && s.n == 2 && s.id == 1 &&
	   s.last == SRT__DV_UNAVAILABLE && s.status == 503, "5 s without a verdict: 503");
	send_frame(peer, "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\"}");
	srt__decider_on_read(d, 5001);
	ok(s.n == 2 && !srt__decider_dead(d), "a late verdict is dropped");
	a = ask(d, &s, 6000);
	recv_frame(peer, f, sizeof(f));
	send_frame(peer, "{\"t\":\"verdict\",\"id\":3,\"action\":\"need_body\",\"max\":4}");
	srt__decider_on_read(d, 6000);
	ok(s.n == 3 && s.last == SRT__DV_NEED_BODY && srt__decider_tick(d, 60000) == -1 && s.n == 3,
	   "need_body: no clock while the body is collected");
	ok(srt__decider_body(d, a, (const uint8_t *)"abcd", 4, true, 60000) == 0 &&
	   recv_frame(peer, f, sizeof(f)) > 0 &&
	   !strcmp(f, "{\"t\":\"body\",\"id\":3,\"data\":\"YWJjZA==\",\"cut\":true}"), "body sent");
	send_frame(peer, "{\"t\":\"verdict\",\"id\":3,\"action\":\"need_body\",\"max\":4}");
	srt__decider_on_read(d, 60001);
	ok(srt__decider_dead(d) && s.n == 4 && s.last == SRT__DV_UNAVAILABLE && s.deaths == 1 &&
	   srt__decider_pending(d) == 0, "need_body twice kills the link, the request fails 503");
	ask(d, &s, 60002);
	ok(s.n == 5 && s.last == SRT__DV_UNAVAILABLE, "a dead link answers 503 at once");
	srt__decider_free(d);
	close(peer);
}

static void test_link_deaths(void)
{
	struct seen s;
	int peer;
	struct srt__decider *d;

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\"}");
	srt__decider_on_read(d, 0);
	ok(srt__decider_dead(d) && strstr(srt__decider_why(d), "not a hello"),
	   "a verdict before the hello kills the link");
	srt__decider_free(d);
	close(peer);

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"hello\",\"proto\":1}");
	srt__decider_on_read(d, 0);
	ask(d, &s, 0);
	ask(d, &s, 0);
	send_frame(peer, "{\"t\":\"verdict\",\"id\":9,\"action\":\"allow\"}");
	srt__decider_on_read(d, 0);
	ok(srt__decider_dead(d) && s.n == 2 && s.last == SRT__DV_UNAVAILABLE && s.deaths == 1,
	   "a verdict for a request never asked fails every pending one");
	srt__decider_free(d);
	close(peer);

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"hello\",\"proto\":1}");
	srt__decider_on_read(d, 0);
	ask(d, &s, 0);
	send_frame(peer, "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\"}");
	send_frame(peer, "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\"}");
	srt__decider_on_read(d, 0);
	ok(s.n == 1 && s.last == SRT__DV_ALLOW && srt__decider_dead(d) &&
	   strstr(srt__decider_why(d), "second verdict"), "a second verdict kills the link");
	srt__decider_free(d);
	close(peer);

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"hello\",\"proto\":1}");
	srt__decider_on_read(d, 0);
	ask(d, &s, 0);
	if (write(peer, "\xff\xff\xff\xff", 4) != 4)
		abort();
	srt__decider_on_read(d, 0);
	ok(srt__decider_dead(d) && s.n == 1 && s.status == 503 &&
	   strstr(srt__decider_why(d), "frame"), "an oversized frame kills the link");
	srt__decider_free(d);
	close(peer);

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"hello\",\"proto\":1}");
	srt__decider_on_read(d, 0);
	ask(d, &s, 0);
	close(peer);
	srt__decider_on_read(d, 0);
	ok(srt__decider_dead(d) && s.n == 1 && s.status == 503 && strstr(s.reason, "closed"),
	   "the decider's EOF fails the pending request closed");
	srt__decider_free(d);

	d = pair(&peer, &s);
	send_frame(peer, "{\"t\":\"hello\",\"proto\":1}");
	srt__decider_on_read(d, 0);
	{
		uint64_t id = ask(d, &s, 0);
		srt__decider_cancel(d, id);
	}
	send_frame(peer, "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\"}");
	srt__decider_on_read(d, 0);
	ok(!srt__decider_dead(d) && s.n == 0, "a verdict for a cancelled request is dropped");
	srt__decider_free(d);
	close(peer);
}

int main(void)
{
	TAP_RUN(test_frame);
	TAP_RUN(test_json);
	TAP_RUN(test_hello);
	TAP_RUN(test_verdicts);
	TAP_RUN(test_build);
	TAP_RUN(test_link);
	TAP_RUN(test_link_deaths);
	return tap_done();
}
