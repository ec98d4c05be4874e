/* libFuzzer harness: the proxy's HTTP/1.x code (proxies/http.h). Each input
 * is read the way the proxy reads a client and an upstream:
 *  - as a request head: parse, analyse, and build the upstream head into
 *    an exact-size buffer, as proxies/proxy.c does (len + 512) and into a
 *    buffer a byte too small; the rebuilt head must parse again with the
 *    same method, host and framing (we must never send the next hop
 *    something our own strict parser would refuse or read differently);
 *  - as a response head: parse, analyse, build the downstream head, which
 *    must parse again;
 *  - the bytes after the head (or the whole input) through the chunked
 *    scanner in one piece, byte by byte and in pieces using the skip fast
 *    path: every way of feeding must agree on where the body ends.
 * Parsed pointers must stay inside the input, lengths inside the head. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"
#include "common/domain.h"
#include "proxies/http.h"

static void check_span(const char *p, size_t n, const char *buf, size_t len,
		       const char *what)
{
	if (n == 0)
		return;
	FUZZ_CHECK(p >= buf && p + n <= buf + len && p + n >= p,
		   "%s (%zu bytes) lies outside the input", what, n);
}

static void check_head(const struct srt__http_head *h, const char *buf, size_t end)
{
	FUZZ_CHECK(h->n <= SRT_HTTP_MAX_HEADERS, "%zu headers", h->n);
	FUZZ_CHECK(h->minor == 0 || h->minor == 1, "minor %d", h->minor);
	for (size_t i = 0; i < h->n; i++) {
		const struct srt__http_header *hd = &h->h[i];
		check_span(hd->name, hd->name_len, buf, end, "header name");
		check_span(hd->value, hd->value_len, buf, end, "header value");
		FUZZ_CHECK(hd->name_len > 0, "empty header name");
		/* CR and LF end lines; they can never be inside a field */
		FUZZ_CHECK(!memchr(hd->name, '\r', hd->name_len) &&
			   !memchr(hd->name, '\n', hd->name_len) &&
			   !memchr(hd->value, '\r', hd->value_len) &&
			   !memchr(hd->value, '\n', hd->value_len),
			   "line break inside header %zu", i);
	}
}

/* "CRLF line ends only": a head the parser accepts has no CR that is not
 * followed by LF and no LF that is not preceded by CR. */
static void check_line_ends(const char *buf, size_t end, const char *what)
{
	for (size_t i = 0; i < end; i++) {
		if (buf[i] == '\r')
			FUZZ_CHECK(i + 1 < end && buf[i + 1] == '\n',
				   "%s head accepted with a bare CR at offset %zu", what, i);
		if (buf[i] == '\n')
			FUZZ_CHECK(i > 0 && buf[i - 1] == '\r',
				   "%s head accepted with a bare LF at offset %zu", what, i);
	}
}

static size_t build_up(const struct srt__http_head *h, const struct srt__http_request *r,
		       const char *canon, const char *proxy_auth, size_t cap, char **out)
{
	char *buf = malloc(cap ? cap : 1);
	size_t n;

	if (!buf)
		abort();
	n = srt__http_build_upstream(h, r, canon, proxy_auth, buf, cap);
	FUZZ_CHECK(n <= cap, "upstream head of %zu bytes in %zu", n, cap);
	*out = buf;
	return n;
}

/* A rebuilt head adds lines (Host, the framing header, our
 * Proxy-Authorization, Connection: close), so one built from a head at
 * the limits may pass them: a size limit, not a syntax error, and the
 * next hop applies its own. Only that case may come back TOO_BIG. */
static bool over_limits(const char *out, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i + 1 < n; i++)
		if (out[i] == '\r' && out[i + 1] == '\n')
			lines++;
	/* the start line and the empty line are not headers */
	return n > SRT_HTTP_MAX_HEAD || lines - 2 > SRT_HTTP_MAX_HEADERS;
}

#define PARENT_AUTH "Basic dXNlcjpwYXNz"

/* The head we send must parse again under our own strict rules, keep the
 * method, carry one Host and the analysed framing only, and never pass
 * the client's Proxy-Authorization on (only ours, to a parent proxy). Sent
 * to a parent proxy, it must analyse to the same host, port and framing. */
static void check_upstream(const struct srt__http_head *h, const struct srt__http_request *r,
			   const char *canon, const char *pa, const char *out, size_t n,
			   struct srt__http_head *h2)
{
	bool have_host = false, have_cl = false, have_te = false;
	int end2, n_auth = 0;

	end2 = srt__http_parse_request(out, n, h2);
	if (end2 == SRT_HTTP_TOO_BIG && over_limits(out, n))
		return;
	FUZZ_CHECK(end2 == (int)n, "rebuilt upstream head does not parse (%d of %zu): %.*s",
		   end2, n, (int)n, out);
	check_head(h2, out, n);
	FUZZ_CHECK(h2->method_len == h->method_len &&
		   memcmp(h2->method, h->method, h->method_len) == 0,
		   "method changed upstream");
	for (size_t i = 0; i < h2->n; i++) {
		const struct srt__http_header *hd = &h2->h[i];
		if (srt__http_name_is(hd, "host")) {
			FUZZ_CHECK(!have_host, "two Host headers upstream");
			have_host = true;
		} else if (srt__http_name_is(hd, "content-length")) {
			FUZZ_CHECK(!have_cl, "two Content-Length headers upstream");
			have_cl = true;
		} else if (srt__http_name_is(hd, "transfer-encoding")) {
			FUZZ_CHECK(!have_te, "two Transfer-Encoding headers upstream");
			have_te = true;
		} else if (srt__http_name_is(hd, "proxy-authorization")) {
			n_auth++;
			FUZZ_CHECK(pa && *pa && hd->value_len == strlen(pa) &&
				   memcmp(hd->value, pa, hd->value_len) == 0,
				   "client's Proxy-Authorization forwarded upstream");
		}
	}
	FUZZ_CHECK(n_auth == (pa && *pa ? 1 : 0), "%d Proxy-Authorization headers upstream",
		   n_auth);
	FUZZ_CHECK(have_host, "no Host header upstream");
	FUZZ_CHECK(!(have_cl && have_te), "both framings upstream");
	FUZZ_CHECK(have_te == (r->body == SRT_BODY_CHUNKED) &&
		   have_cl == (r->body == SRT_BODY_LENGTH),
		   "upstream framing differs from the analysed one");
	if (pa) {
		struct srt__http_request r2;
		struct srt__http_refusal why2;
		char c2[300];

		FUZZ_CHECK(srt__http_analyze_request(h2, &r2, &why2) == 0,
			   "the parent proxy would refuse our head: %s: %.*s", why2.reason,
			   (int)n, out);
		if (srt__host_canonicalize(r2.host, c2, sizeof(c2)) != SRT_OK)
			snprintf(c2, sizeof(c2), "%s", r2.host);
		FUZZ_CHECK(strcmp(c2, canon) == 0 && r2.port == r->port &&
			   r2.body == r->body && r2.length == r->length,
			   "the parent proxy reads %s:%d, we authorised %s:%d", c2, r2.port, canon,
			   r->port);
	}
}

static void fuzz_request(const char *buf, size_t len)
{
	struct srt__http_head *h = malloc(sizeof(*h)), *h2 = malloc(sizeof(*h2));
	struct srt__http_request r;
	struct srt__http_refusal why;
	char canon[300], *out = NULL, *small = NULL;
	int end;
	size_t n, n2;

	if (!h || !h2)
		abort();
	end = srt__http_parse_request(buf, len, h);
	FUZZ_CHECK(end == SRT_HTTP_NEED_MORE || end == SRT_HTTP_BAD ||
		   end == SRT_HTTP_TOO_BIG || (end > 0 && (size_t)end <= len),
		   "parse_request returned %d for %zu bytes", end, len);
	if (end <= 0)
		goto out;
	FUZZ_CHECK(end <= SRT_HTTP_MAX_HEAD, "head of %d bytes", end);
	check_line_ends(buf, (size_t)end, "request");
	check_head(h, buf, (size_t)end);
	check_span(h->method, h->method_len, buf, (size_t)end, "method");
	check_span(h->target, h->target_len, buf, (size_t)end, "target");
	memset(&why, 0, sizeof(why));
	if (srt__http_analyze_request(h, &r, &why) < 0) {
		FUZZ_CHECK(why.status >= 400 && why.status < 600 && why.reason,
			   "refusal without a status or reason");
		goto out;
	}
	FUZZ_CHECK(fuzz_terminated(r.host, sizeof(r.host)) && r.host[0],
		   "analysed host empty or unterminated");
	FUZZ_CHECK(r.port >= 1 && r.port <= 65535, "port %d", r.port);
	check_span(r.auth, r.auth_len, buf, (size_t)end, "Proxy-Authorization");
	if (r.is_connect)
		goto out;
	check_span(r.origin_target, r.origin_target_len, buf, (size_t)end, "origin target");
	FUZZ_CHECK(r.body != SRT_BODY_EOF, "request body until EOF");
	/* as the proxy does: canonical host, or the raw one lower-cased */
	if (srt__host_canonicalize(r.host, canon, sizeof(canon)) != SRT_OK) {
		size_t i;
		for (i = 0; r.host[i] && i + 1 < sizeof(canon); i++)
			canon[i] = (char)tolower((unsigned char)r.host[i]);
		canon[i] = '\0';
	}
	for (int hop = 0; hop < 3; hop++) {
		/* to the origin; to a parent proxy without and with credentials */
		const char *pa = hop == 0 ? NULL : hop == 1 ? "" : PARENT_AUTH;

		free(out);
		free(small);
		out = small = NULL;
		n = build_up(h, &r, canon, pa, (size_t)end + 1024, &out);
		if (n == 0)
			continue;
		n2 = build_up(h, &r, canon, pa, n - 1, &small);
		FUZZ_CHECK(n2 == 0, "upstream head of %zu bytes fit in %zu", n, n - 1);
		check_upstream(h, &r, canon, pa, out, n, h2);
	}
out:
	free(out);
	free(small);
	free(h);
	free(h2);
}

/* stripResponseHeaders as a user writes them; the comparison below is
 * this harness's own, not the one under test: case-insensitive with '-',
 * '_' and '.' the same character. */
static char *const strip[] = { "x-secret", "Set_Cookie", "server.timing" };
#define N_STRIP (sizeof(strip) / sizeof(strip[0]))

static int fold(unsigned char c)
{
	if (c == '_' || c == '.')
		return '-';
	return tolower(c);
}

static bool folds_equal(const char *a, size_t alen, const char *b)
{
	if (alen != strlen(b))
		return false;
	for (size_t i = 0; i < alen; i++)
		if (fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
			return false;
	return true;
}

static void fuzz_response(const char *buf, size_t len, bool head_request, bool close)
{
	struct srt__http_head *h = malloc(sizeof(*h)), *h2 = malloc(sizeof(*h2));
	struct srt__http_response r;
	char *out = NULL;
	size_t cap, n;
	int end, end2;

	if (!h || !h2)
		abort();
	end = srt__http_parse_response(buf, len, h);
	FUZZ_CHECK(end == SRT_HTTP_NEED_MORE || end == SRT_HTTP_BAD ||
		   end == SRT_HTTP_TOO_BIG || (end > 0 && (size_t)end <= len),
		   "parse_response returned %d for %zu bytes", end, len);
	if (end <= 0)
		goto out;
	check_line_ends(buf, (size_t)end, "response");
	check_head(h, buf, (size_t)end);
	FUZZ_CHECK(h->status >= 100 && h->status <= 999, "status %d", h->status);
	if (srt__http_analyze_response(h, head_request, &r) < 0)
		goto out;
	cap = (size_t)end + 512;
	out = malloc(cap);
	if (!out)
		abort();
	n = srt__http_build_downstream(h, &r, close, strip, N_STRIP, out, cap);
	FUZZ_CHECK(n <= cap, "downstream head of %zu bytes in %zu", n, cap);
	if (n == 0)
		goto out;
	FUZZ_CHECK(srt__http_build_downstream(h, &r, close, strip, N_STRIP, out, n - 1) == 0,
		   "downstream head of %zu bytes fit in %zu", n, n - 1);
	n = srt__http_build_downstream(h, &r, close, strip, N_STRIP, out, cap);
	end2 = srt__http_parse_response(out, n, h2);
	if (end2 == SRT_HTTP_TOO_BIG && over_limits(out, n))
		goto out;
	FUZZ_CHECK(end2 == (int)n, "rebuilt downstream head does not parse (%d of %zu)",
		   end2, n);
	FUZZ_CHECK(h2->status == h->status, "status changed downstream");
	for (size_t i = 0; i < h2->n; i++)
		for (size_t j = 0; j < N_STRIP; j++)
			FUZZ_CHECK(!folds_equal(h2->h[i].name, h2->h[i].name_len, strip[j]),
				   "stripped header %.*s passed downstream", (int)h2->h[i].name_len,
				   h2->h[i].name);
	/* the library's folding agrees with the harness's on every name seen */
	for (size_t i = 0; i < h->n; i++)
		for (size_t j = 0; j < N_STRIP; j++)
			FUZZ_CHECK(srt__http_name_folds(h->h[i].name, h->h[i].name_len, strip[j]) ==
				   folds_equal(h->h[i].name, h->h[i].name_len, strip[j]),
				   "srt__http_name_folds(%.*s, %s) disagrees", (int)h->h[i].name_len,
				   h->h[i].name, strip[j]);
out:
	free(out);
	free(h);
	free(h2);
}

struct chunk_result {
	long consumed; /* bytes of body, or -1 on a framing error */
	bool done;
};

static struct chunk_result chunk_whole(const char *b, size_t n)
{
	struct srt__chunked c;
	struct chunk_result res;
	bool done = false;
	long k;

	srt__chunked_init(&c);
	k = srt__chunked_feed(&c, b, n, &done);
	FUZZ_CHECK(k >= -1 && k <= (long)n, "chunked_feed returned %ld for %zu", k, n);
	res.consumed = k;
	res.done = k >= 0 && done;
	if (k >= 0 && !done)
		FUZZ_CHECK((size_t)k == n, "stopped at %ld of %zu without being done", k, n);
	return res;
}

/* Feed in pieces whose sizes come from `steps`; with `skip`, chunk data is
 * moved with chunked_skip as the proxy's splice path does. */
static struct chunk_result chunk_pieces(const char *b, size_t n, const uint8_t *steps,
					size_t nsteps, bool skip)
{
	struct srt__chunked c;
	struct chunk_result res = { 0, false };
	size_t off = 0, si = 0;

	srt__chunked_init(&c);
	while (off < n) {
		size_t piece = nsteps ? (size_t)(steps[si++ % nsteps] % 17) + 1 : 1;
		bool done = false;
		long k;

		if (skip) {
			uint64_t left = srt__chunked_data_left(&c);
			if (left) {
				size_t mv = n - off;
				if (mv > left)
					mv = (size_t)left;
				srt__chunked_skip(&c, mv);
				off += mv;
				continue;
			}
		}
		if (piece > n - off)
			piece = n - off;
		k = srt__chunked_feed(&c, b + off, piece, &done);
		FUZZ_CHECK(k >= -1 && k <= (long)piece, "chunked_feed returned %ld for %zu", k,
			   piece);
		if (k < 0) {
			res.consumed = -1;
			return res;
		}
		off += (size_t)k;
		if (done) {
			res.done = true;
			break;
		}
		FUZZ_CHECK((size_t)k == piece, "stopped at %ld of %zu without being done", k,
			   piece);
	}
	res.consumed = (long)off;
	return res;
}

static void fuzz_chunked(const char *b, size_t n, const uint8_t *steps, size_t nsteps)
{
	struct chunk_result whole = chunk_whole(b, n);
	struct chunk_result bytes = chunk_pieces(b, n, NULL, 0, false);
	struct chunk_result pieces = chunk_pieces(b, n, steps, nsteps, false);
	struct chunk_result skipped = chunk_pieces(b, n, steps, nsteps, true);

	FUZZ_CHECK(whole.consumed == bytes.consumed && whole.done == bytes.done,
		   "one piece: %ld done %d; byte by byte: %ld done %d", whole.consumed,
		   whole.done, bytes.consumed, bytes.done);
	FUZZ_CHECK(whole.consumed == pieces.consumed && whole.done == pieces.done,
		   "one piece: %ld done %d; in pieces: %ld done %d", whole.consumed,
		   whole.done, pieces.consumed, pieces.done);
	FUZZ_CHECK(whole.consumed == skipped.consumed && whole.done == skipped.done,
		   "one piece: %ld done %d; with skip: %ld done %d", whole.consumed,
		   whole.done, skipped.consumed, skipped.done);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct srt__http_head *h;
	int end;

	fuzz_request(buf, size);
	fuzz_response(buf, size, size & 1, size & 2);
	/* the body after a head, or the whole input as a body */
	h = malloc(sizeof(*h));
	if (!h)
		abort();
	end = srt__http_parse_request(buf, size, h);
	if (end <= 0)
		end = srt__http_parse_response(buf, size, h);
	free(h);
	if (end > 0)
		fuzz_chunked(buf + end, size - (size_t)end, data, (size_t)end);
	else
		fuzz_chunked(buf, size, data + size / 2, size - size / 2);
	return 0;
}
