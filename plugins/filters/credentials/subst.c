/* Sentinel substitution over strings and streams (see subst.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "subst.h"

#define NONE SIZE_MAX

int subst_stream_init(struct subst_stream *s, const struct subst_pair *pairs, size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->pairs = pairs;
	s->n = n;
	for (i = 0; i < n; i++) {
		if (!pairs[i].from_len)
			return -1;
		if (pairs[i].from_len > s->max_from)
			s->max_from = pairs[i].from_len;
	}
	if (n && !(s->next = calloc(n, sizeof(*s->next))))
		return -1;
	return 0;
}

void subst_stream_release(struct subst_stream *s)
{
	free(s->buf);
	free(s->next);
	memset(s, 0, sizeof(*s));
}

/* The next occurrence of pair i at or after pos in buf[0..len). */
static size_t find(const struct subst_pair *p, const unsigned char *buf, size_t len, size_t pos)
{
	const unsigned char *hit;

	if (pos > len || len - pos < p->from_len)
		return NONE;
	hit = memmem(buf + pos, len - pos, p->from, p->from_len);
	return hit ? (size_t)(hit - buf) : NONE;
}

/* Replace every match that starts where no longer one could still be
 * completed by bytes to come: with `end`, all of buf[0..len); else those
 * starting before the last (max_from - 1) bytes, which stay in the buffer
 * for the next piece (so a match across pieces, and the longest of two
 * starting at one place, come out as they would in one piece). */
static int scan(struct subst_stream *s, size_t len, int end, subst_emit_fn emit, void *ctx)
{
	size_t limit = len, pos = 0, i, upto;
	int rc;

	if (!len) {
		s->held = 0;
		return 0;
	}
	if (!end)
		limit = len > s->max_from - 1 ? len - (s->max_from - 1) : 0;
	for (i = 0; i < s->n; i++)
		s->next[i] = find(&s->pairs[i], s->buf, len, 0);
	for (;;) {
		size_t best = NONE, at = NONE;

		for (i = 0; i < s->n; i++) {
			if (s->next[i] != NONE && s->next[i] < pos)
				s->next[i] = find(&s->pairs[i], s->buf, len, pos);
			if (s->next[i] == NONE || s->next[i] >= limit)
				continue;
			if (at == NONE || s->next[i] < at ||
			    (s->next[i] == at && s->pairs[i].from_len > s->pairs[best].from_len)) {
				at = s->next[i];
				best = i;
			}
		}
		if (best == NONE)
			break;
		if (at > pos && (rc = emit(ctx, s->buf + pos, at - pos)))
			return rc;
		if (s->pairs[best].to_len &&
		    (rc = emit(ctx, s->pairs[best].to, s->pairs[best].to_len)))
			return rc;
		s->replaced++;
		pos = at + s->pairs[best].from_len;
	}
	upto = limit > pos ? limit : pos;
	if (upto > pos && (rc = emit(ctx, s->buf + pos, upto - pos)))
		return rc;
	memmove(s->buf, s->buf + upto, len - upto);
	s->held = len - upto;
	return 0;
}

int subst_stream_feed(struct subst_stream *s, const void *p, size_t len, int end,
		      subst_emit_fn emit, void *ctx)
{
	size_t need;

	if (!s->n) {
		/* nothing to replace: pass through */
		return len ? emit(ctx, p, len) : 0;
	}
	if (len > SIZE_MAX - s->held)
		return -1;
	need = s->held + len;
	if (need > s->cap) {
		size_t cap = need < 4096 ? 4096 : need;
		unsigned char *nb = realloc(s->buf, cap);

		if (!nb)
			return -1;
		s->buf = nb;
		s->cap = cap;
	}
	if (len)
		memcpy(s->buf + s->held, p, len);
	return scan(s, need, end, emit, ctx);
}

struct strbuf {
	char *p;
	size_t len, cap;
};

static int sb_emit(void *ctx, const void *p, size_t n)
{
	struct strbuf *b = ctx;

	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *np = realloc(b->p, cap);

		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

char *subst_string(const struct subst_pair *pairs, size_t n, const char *s, size_t len,
		   size_t *out_len, unsigned long long *count)
{
	struct subst_stream st;
	struct strbuf b = { NULL, 0, 0 };
	int rc;

	if (count)
		*count = 0;
	if (subst_stream_init(&st, pairs, n) < 0)
		return NULL;
	if (!(b.p = malloc(len + 1))) {
		subst_stream_release(&st);
		return NULL;
	}
	b.cap = len + 1;
	rc = subst_stream_feed(&st, s, len, 1, sb_emit, &b);
	if (count)
		*count = st.replaced;
	subst_stream_release(&st);
	if (rc) {
		free(b.p);
		return NULL;
	}
	b.p[b.len] = '\0';
	if (out_len)
		*out_len = b.len;
	return b.p;
}
