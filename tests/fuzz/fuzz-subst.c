/* libFuzzer harness: the credentials module's sentinel substitution over
 * request bodies (plugins/filters/credentials/subst.h). Input: up to four
 * pairs "from\0to\0", then "\1", then the body; the body is fed in pieces
 * whose sizes come from the body's own bytes. Bodies come from the
 * sandboxed command, so besides memory safety this checks:
 *  - fed in any pieces, the output equals the output of the whole body at
 *    once (a sentinel split across reads is found, nothing is duplicated
 *    or lost);
 *  - the stream never holds back more than (longest from - 1) bytes;
 *  - when every pair keeps its length, the output has the input's length
 *    (so a kept Content-Length stays true);
 *  - with no `from` in the output's source, the output is the input. */
#include "config.h"

#include "fuzz.h"
#include "plugins/filters/credentials/subst.h"

struct out {
	unsigned char *p;
	size_t n, cap;
};

static int put(void *ctx, const void *p, size_t n)
{
	struct out *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 16;
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			abort();
	}
	memcpy(o->p + o->n, p, n);
	o->n += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct subst_pair pairs[4];
	struct subst_stream st;
	struct out piecewise = { 0 };
	const uint8_t *body, *end = d + n, *p = d;
	size_t np = 0, blen, off = 0, i;
	int same = 1;
	char *whole;
	size_t whole_len;

	while (np < 4 && p < end && *p != 1) {
		const uint8_t *z1 = memchr(p, 0, (size_t)(end - p)), *z2;

		if (!z1 || z1 == p)
			return 0;
		z2 = memchr(z1 + 1, 0, (size_t)(end - z1 - 1));
		if (!z2)
			return 0;
		pairs[np].from = (const char *)p;
		pairs[np].from_len = (size_t)(z1 - p);
		pairs[np].to = (const char *)z1 + 1;
		pairs[np].to_len = (size_t)(z2 - z1 - 1);
		if (pairs[np].from_len != pairs[np].to_len)
			same = 0;
		np++;
		p = z2 + 1;
	}
	if (p >= end || *p != 1)
		return 0;
	body = p + 1;
	blen = (size_t)(end - body);

	whole = subst_string(pairs, np, (const char *)body, blen, &whole_len, NULL);
	if (!whole)
		abort();
	if (subst_stream_init(&st, pairs, np) < 0)
		abort();
	while (off < blen) {
		size_t k = 1 + body[off] % 7;

		if (k > blen - off)
			k = blen - off;
		if (subst_stream_feed(&st, body + off, k, 0, put, &piecewise))
			abort();
		FUZZ_CHECK(!np || st.held < st.max_from, "held %zu bytes with longest from %zu",
			   st.held, st.max_from);
		off += k;
	}
	if (subst_stream_feed(&st, NULL, 0, 1, put, &piecewise))
		abort();
	FUZZ_CHECK(piecewise.n == whole_len && (!whole_len || !memcmp(piecewise.p, whole, whole_len)),
		   "piecewise output (%zu bytes) differs from whole output (%zu bytes)",
		   piecewise.n, whole_len);
	if (same)
		FUZZ_CHECK(whole_len == blen, "same-length pairs changed the length %zu -> %zu",
			   blen, whole_len);
	for (i = 0; i < np; i++)
		if (memmem(body, blen, pairs[i].from, pairs[i].from_len))
			break;
	if (i == np)
		FUZZ_CHECK(whole_len == blen && (!blen || !memcmp(whole, body, blen)),
			   "no sentinel in the body, yet it changed");
	subst_stream_release(&st);
	free(piecewise.p);
	free(whole);
	return 0;
}
