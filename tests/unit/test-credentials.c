/* The credentials module: sentinel substitution (across any piece
 * boundaries), injectHosts, the transport gate, header substitution, the
 * body rewriting through the filter chain (ABI 1.3), and the wrap-time
 * masking (sentinel lengths, PCRE2 extraction with JavaScript-style
 * patterns, maskDuplicates, onExtractNoMatch, JWT fakes and maskClaims). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "tap.h"
#include "plugins/filters/credentials/credentials.h"
#include "plugins/filters/credentials/mask.h"
#include "plugins/filters/credentials/subst.h"
#include "proxies/filter-chain.h"

extern const struct srt_filter srt_filter_entry;

struct out {
	char p[65536];
	size_t n;
};

static int put(void *ctx, const void *p, size_t n)
{
	struct out *o = ctx;

	if (o->n + n >= sizeof(o->p))
		return -1;
	memcpy(o->p + o->n, p, n);
	o->n += n;
	o->p[o->n] = '\0';
	return 0;
}

static void test_subst_boundaries(void)
{
	static const struct subst_pair pairs[] = {
		{ "fake_0123456789", 15, "REAL-VALUE-0001", 15 },
		{ "fake_value_short", 16, "rv", 2 },
	};
	const char *body = "a=fake_0123456789&b=fake_value_short&c=fake_012345678&d=fake_0123456789";
	const char *want = "a=REAL-VALUE-0001&b=rv&c=fake_012345678&d=REAL-VALUE-0001";
	size_t piece, len = strlen(body);
	int all = 1;

	for (piece = 1; piece <= len; piece++) {
		struct subst_stream st;
		struct out o = { .n = 0 };
		size_t off;

		subst_stream_init(&st, pairs, 2);
		for (off = 0; off < len; off += piece) {
			size_t k = len - off < piece ? len - off : piece;

			subst_stream_feed(&st, body + off, k, 0, put, &o);
			if (st.held >= st.max_from)
				all = 0;
		}
		subst_stream_feed(&st, NULL, 0, 1, put, &o);
		if (strcmp(o.p, want)) {
			all = 0;
			printf("# piece %zu: %s\n", piece, o.p);
		}
		subst_stream_release(&st);
	}
	ok(all, "a sentinel split at every possible place is replaced exactly once, a near miss is not");
}

static const char *CFG =
	"{\"pairs\":["
	"{\"name\":\"env:TOK#0\",\"sentinel\":\"fake_abcdefghij\",\"real\":\"real-abcdefghij\",\"hosts\":[\"api.example.com\",\"*.corp.test\"]},"
	"{\"name\":\"env:SHORT#0\",\"sentinel\":\"fake_value_0000-11112222\",\"real\":\"s3\",\"hosts\":[\"api.example.com\"]}],"
	"\"allowPlaintextInject\":false}";

static void test_inject_hosts(void)
{
	struct cred_state *st = NULL;
	struct srt_filter_error err;
	struct cred_req *a, *b, *c;

	ok(cred_parse(CFG, &st, &err) == SRT_OK, "the filter's configuration parses");
	a = cred_req_new(st, "api.example.com", 443);
	b = cred_req_new(st, "x.corp.test", 443);
	c = cred_req_new(st, "evil.example.com", 443);
	ok(a && a->n == 2 && !a->same_length, "both credentials go to api.example.com (one of another length)");
	ok(b && b->n == 1 && b->same_length, "a wildcard injectHost takes its subdomains only");
	ok(c && c->n == 0, "another host gets no real value");
	cred_req_free(a);
	cred_req_free(b);
	cred_req_free(c);
	cred_free(st);
}

static struct srt_filter_conn conn_https = { .size = sizeof(conn_https), .host = "api.example.com",
					     .port = 443, .scheme = "https" };
static struct srt_filter_conn conn_http = { .size = sizeof(conn_http), .host = "api.example.com",
					    .port = 80, .scheme = "http" };

struct waiter {
	int called;
};

static void on_done(void *ctx, struct srt__filter_txn *t, enum srt__filter_step step,
		    const struct srt__filter_outcome *o)
{
	(void)t;
	(void)step;
	(void)o;
	((struct waiter *)ctx)->called++;
}

static int sink_put(struct srt_filter_sink *s, const void *p, size_t n)
{
	return put(s->impl, p, n) ? SRT_E_LIMIT : SRT_OK;
}

/* One request through a chain holding only the credentials filter. */
static int through(const struct srt_filter_conn *conn, const char *host, long long cl,
		   const char *auth, const char *body, size_t piece, char *auth_out, size_t auth_cap,
		   struct out *body_out, int *mode)
{
	struct srt__filter_chain *ch = NULL;
	struct srt_filter_error err;
	struct srt__fheaders fh;
	struct srt__filter_outcome out;
	struct srt_filter_request r;
	struct srt__filter_txn *t;
	struct waiter w = { 0 };
	struct srt_filter_sink sink = { sizeof(sink), sink_put, body_out };
	enum srt__filter_step step;
	const char *v;
	size_t off, len = body ? strlen(body) : 0;

	if (srt__filter_chain_new(0, NULL, NULL, &ch) ||
	    srt__filter_chain_add(ch, &srt_filter_entry, "credentials", CFG, &err))
		return -1;
	srt__fheaders_init(&fh, 8192);
	srt__fheaders_add(&fh, "Host", 4, host, strlen(host));
	srt__fheaders_add(&fh, "Authorization", 13, auth, strlen(auth));
	srt__fheaders_add(&fh, "Cookie", 6, "a=1", 3);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.conn = conn;
	r.method = "POST";
	r.url = "https://x/";
	r.host = host;
	r.port = conn->port;
	r.path = "/";
	r.content_length = cl;
	r.headers = &fh.api;
	t = srt__filter_txn_new(ch, conn);
	step = srt__filter_txn_request_head(t, &r, on_done, &w, &out);
	if (step != SRT__FILTER_DECIDED || out.verdict != SRT_FILTER_ALLOW)
		return -1;
	v = fh.api.get(&fh.api, "authorization");
	snprintf(auth_out, auth_cap, "%s", v ? v : "");
	*mode = srt__filter_txn_rewrite_mode(t);
	for (off = 0; *mode && off < len; off += piece)
		if (srt__filter_txn_rewrite(t, body + off, len - off < piece ? len - off : piece, 0, &sink))
			return -1;
	if (*mode && srt__filter_txn_rewrite(t, NULL, 0, 1, &sink))
		return -1;
	srt__filter_txn_finish(t, NULL);
	srt__fheaders_release(&fh);
	srt__filter_chain_free(ch);
	return 0;
}

static void test_headers_and_body(void)
{
	char auth[200];
	struct out body = { .n = 0 };
	int mode = -1;

	ok(through(&conn_https, "api.example.com", 40, "Bearer fake_abcdefghij", "x=fake_abcdefghij&y=fake_value_0000-11112222",
		   3, auth, sizeof(auth), &body, &mode) == 0, "a request to an injectHost goes through");
	ok(!strcmp(auth, "Bearer real-abcdefghij"), "its header carries the real value (%s)", auth);
	ok(mode == SRT_FILTER_REWRITE_ANY_LENGTH && !strcmp(body.p, "x=real-abcdefghij&y=s3"),
	   "its body too, in 3-byte pieces; a length change asks for chunked (%d: %s)", mode, body.p);

	body.n = 0;
	body.p[0] = '\0';
	ok(through(&conn_https, "x.corp.test", 17, "Bearer fake_abcdefghij", "x=fake_abcdefghij", 1, auth,
		   sizeof(auth), &body, &mode) == 0 && mode == SRT_FILTER_REWRITE_SAME_LENGTH &&
	   !strcmp(body.p, "x=real-abcdefghij"),
	   "sentinels of their value's length keep the Content-Length (%d: %s)", mode, body.p);

	body.n = 0;
	body.p[0] = '\0';
	ok(through(&conn_https, "other.example.com", 17, "Bearer fake_abcdefghij", "x=fake_abcdefghij", 1,
		   auth, sizeof(auth), &body, &mode) == 0 && !strcmp(auth, "Bearer fake_abcdefghij") &&
	   mode == 0, "another host: header untouched, body not rewritten");

	ok(through(&conn_http, "api.example.com", 0, "Bearer fake_abcdefghij", NULL, 1, auth,
		   sizeof(auth), &body, &mode) == 0 && !strcmp(auth, "Bearer fake_abcdefghij"),
	   "plain HTTP without allowPlaintextInject: no injection");
	ok(through(&conn_https, "api.example.com", 0, "Bearer fake_abcdefghij", NULL, 1, auth,
		   sizeof(auth), &body, &mode) == 0 && mode == 0,
	   "a request without a body asks for no rewriting");
}

/* A header name longer than any fixed buffer: its value is replaced under
 * its own name (a cut name would leave the sentinel line and loop). */
static void test_long_header_name(void)
{
	struct cred_state *st = NULL;
	struct srt_filter_error err;
	struct srt__fheaders fh;
	struct cred_req *r;
	char name[400], why[200];
	unsigned long long n = 0;
	const char *v;
	int rc;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	cred_parse(CFG, &st, &err);
	r = cred_req_new(st, "api.example.com", 443);
	srt__fheaders_init(&fh, 8192);
	srt__fheaders_add(&fh, name, strlen(name), "tok fake_abcdefghij", 19);
	rc = cred_headers(r, &fh.api, why, sizeof(why), &n);
	v = fh.api.get(&fh.api, name);
	ok(rc == 0 && n == 1 && fh.n == 1 && v && !strcmp(v, "tok real-abcdefghij"),
	   "a 399-byte header name gets its value replaced, once (%d, %llu, %zu)", rc, n, fh.n);
	srt__fheaders_release(&fh);
	cred_req_free(r);
	cred_free(st);
}

static cJSON *mask(const char *req)
{
	char *a = srt_credentials_mask(req);
	cJSON *j = a ? cJSON_Parse(a) : NULL;

	free(a);
	return j;
}

static const char *result(cJSON *ans, int i, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(ans, "results"), i), k));
}

static void test_sentinels(void)
{
	char s[300];
	size_t n;

	n = mask_sentinel(32, s);
	ok(n == 32 && strlen(s) == 32 && !strncmp(s, "fake_", 5), "a 32-byte value gets a 32-byte sentinel (%s)", s);
	n = mask_sentinel(100, s);
	ok(n == 100 && !strncmp(s, "fake_value_", 11) && s[19] == '-', "a long value: fake_value_<uuid> padded (%s)", s);
	n = mask_sentinel(5, s);
	ok(n == MASK_SHORT_SENTINEL && !strncmp(s, "fake_value_", 11), "a short value gets the 47-byte form");
}

static void test_extract(void)
{
	cJSON *a = mask("{\"version\":1,\"entries\":["
			"{\"kind\":\"env\",\"name\":\"A\",\"mode\":\"mask\",\"present\":true,"
			"\"value\":\"token: abcdefghijklmnop\\ntoken:   qrstuvwxyz012345\",\"extract\":\"token:\\\\s*(\\\\S+)\",\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"file\",\"path\":\"/f\",\"mode\":\"mask\",\"present\":true,"
			"\"value\":\"key=secretsecret1 again secretsecret1\",\"extract\":\"key=(\\\\w+)\",\"maskDuplicates\":true,\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"env\",\"name\":\"B\",\"mode\":\"mask\",\"present\":true,\"value\":\"nothing\",\"extract\":\"token:\\\\s*(\\\\S+)\",\"onExtractNoMatch\":\"deny\",\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"env\",\"name\":\"C\",\"mode\":\"mask\",\"present\":true,\"value\":\"nothing\",\"extract\":\"token:\\\\s*(\\\\S+)\",\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"env\",\"name\":\"D\",\"mode\":\"deny\",\"present\":true,\"injectHosts\":[\"h\"]}"
			"]}");
	const char *v0 = a ? result(a, 0, "value") : NULL;
	const char *v1 = a ? result(a, 1, "value") : NULL;

	ok(v0 && !strncmp(v0, "token: fake_", 12) && strstr(v0, "\ntoken:   fake_") &&
	   !strstr(v0, "abcdefghijklmnop") && !strstr(v0, "qrstuvwxyz012345") &&
	   strlen(v0) == strlen("token: abcdefghijklmnop\ntoken:   qrstuvwxyz012345"),
	   "a JavaScript-style pattern (\\s, \\S) masks every match's group 1 (%s)", v0 ? v0 : "(null)");
	ok(v1 && !strstr(v1, "secretsecret1") && !strncmp(v1, "key=fake_", 9),
	   "maskDuplicates masks a repeat outside the match too (%s)", v1 ? v1 : "(null)");
	ok(a && !strcmp(result(a, 2, "action"), "unset"), "onExtractNoMatch deny unsets the variable");
	{
		char *w = a ? cJSON_PrintUnformatted(cJSON_GetObjectItem(a, "warnings")) : NULL;

		ok(a && !strcmp(result(a, 3, "action"), "keep") && w && strstr(w, "UNPROTECTED"),
		   "no match by default: kept, with the warning");
		free(w);
	}
	ok(a && !strcmp(result(a, 4, "action"), "unset"), "mode deny unsets");
	ok(a && cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "filterConfig"), "pairs")) == 3,
	   "one pair per distinct capture (2 + 1)");
	cJSON_Delete(a);

	a = mask("{\"version\":1,\"entries\":[{\"kind\":\"env\",\"name\":\"E\",\"mode\":\"mask\",\"present\":true,\"value\":\"x\",\"extract\":\"(unclosed\",\"injectHosts\":[]}]}");
	ok(a && cJSON_GetStringValue(cJSON_GetObjectItem(a, "error")) &&
	   strstr(cJSON_GetStringValue(cJSON_GetObjectItem(a, "error")), "not a valid regular expression"),
	   "a bad pattern is an error naming it");
	cJSON_Delete(a);
	a = mask("{\"version\":1,\"entries\":[{\"kind\":\"env\",\"name\":\"E\",\"mode\":\"mask\",\"present\":true,\"value\":\"x\",\"extract\":\"z\",\"onExtractNoMatch\":\"error\",\"injectHosts\":[]}]}");
	ok(a && cJSON_GetStringValue(cJSON_GetObjectItem(a, "error")), "a pattern without a group is an error");
	cJSON_Delete(a);
	/* "key=111...!" makes PCRE2 backtrack past its match limit, which
	 * ended the search: the key after it stayed real, with no word */
	a = mask("{\"version\":1,\"entries\":[{\"kind\":\"file\",\"path\":\"/f\",\"mode\":\"mask\",\"present\":true,"
		 "\"value\":\"key=first1 key=1111111111111111111111111111111111111111! key=realsecret1 \","
		 "\"extract\":\"key=((?:\\\\w|\\\\d)+)\\\\s\",\"injectHosts\":[\"h\"]}]}");
	{
		const char *err = a ? cJSON_GetStringValue(cJSON_GetObjectItem(a, "error")) : NULL;

		ok(err && strstr(err, "could not be applied") && strstr(err, "match limit"),
		   "a pattern that hits PCRE2's match limit is an error, not a value left real (%s)",
		   err ? err : "(none)");
	}
	cJSON_Delete(a);
	/* group 1 inside a lookahead: each match's capture overlaps the one
	 * before (and a lookbehind's can start before it), which the rebuild
	 * took as a span of (size_t)-5 bytes between them */
	a = mask("{\"version\":1,\"entries\":[{\"kind\":\"file\",\"path\":\"/f\",\"mode\":\"mask\",\"present\":true,"
		 "\"value\":\"k=abcdefghijkl\",\"extract\":\"(?=(\\\\w{4,}))\",\"injectHosts\":[\"h\"]}]}");
	{
		const char *err = a ? cJSON_GetStringValue(cJSON_GetObjectItem(a, "error")) : NULL;

		ok(err && strstr(err, "overlap"), "captures that overlap are an error (%s)", err ? err : "(none)");
	}
	cJSON_Delete(a);
}

#define JWT "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLXJlYWwiLCJrIjoiY2xhaW1zZWNyZXQifQ.c2lnbmF0dXJlLXJlYWw"

static void test_jwt(void)
{
	cJSON *a = mask("{\"version\":1,\"entries\":["
			"{\"kind\":\"env\",\"name\":\"J\",\"mode\":\"mask\",\"present\":true,\"value\":\"" JWT "\",\"decode\":\"jwt\",\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"env\",\"name\":\"K\",\"mode\":\"mask\",\"present\":true,\"value\":\"Bearer " JWT "\",\"decode\":\"jwt\",\"maskClaims\":[\"k\"],\"injectHosts\":[\"h\"]},"
			"{\"kind\":\"env\",\"name\":\"L\",\"mode\":\"mask\",\"present\":true,\"value\":\"eyJnotajwt.eyJx.y\",\"decode\":\"jwt\",\"onExtractNoMatch\":\"deny\",\"injectHosts\":[\"h\"]}"
			"]}");
	const char *j = a ? result(a, 0, "value") : NULL;
	const char *k = a ? result(a, 1, "value") : NULL;
	char *pairs = a ? cJSON_PrintUnformatted(cJSON_GetObjectItem(a, "filterConfig")) : NULL;

	ok(j && mask_is_jwt(j, strlen(j)) && strstr(j, ".c3J0LWZha2U") && strcmp(j, JWT),
	   "decode jwt: a fake JWT of srt's own (%s)", j ? j : "(null)");
	ok(k && !strncmp(k, "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", 44) &&
	   mask_is_jwt(k + 7, strlen(k + 7)) && !strstr(k, "eyJzdWIiOiJ1c2VyLXJlYWwiLCJrIjoiY2xhaW1zZWNyZXQifQ"),
	   "maskClaims: the real header, the claim masked (%s)", k ? k : "(null)");
	ok(pairs && strstr(pairs, "\"real\":\"claimsecret\"") && strstr(pairs, "\"real\":\"" JWT "\""),
	   "the fake token and the claim's sentinel both stand for their real values");
	ok(a && !strcmp(result(a, 2, "action"), "unset"), "something that is not a JWT counts as no match");
	free(pairs);
	cJSON_Delete(a);
}

int main(void)
{
	TAP_RUN(test_subst_boundaries);
	TAP_RUN(test_inject_hosts);
	TAP_RUN(test_headers_and_body);
	TAP_RUN(test_long_header_name);
	TAP_RUN(test_sentinels);
	TAP_RUN(test_extract);
	TAP_RUN(test_jwt);
	return tap_done();
}
