/* Sentinel substitution: every occurrence of a pair's `from` bytes is
 * replaced by its `to` bytes, in a string or in a stream that arrives in
 * pieces of any size (a request body), with a match that straddles two
 * pieces found all the same. Where several pairs match at one place the
 * earliest match wins, then the longest `from`. The stream holds back at
 * most (longest from - 1) bytes between pieces and never more.
 *
 * Pure code (no I/O, no allocation beyond the stream's own buffer), so
 * the unit tests and the fuzz harness run it directly. */
#ifndef SRT_PLUGIN_CREDENTIALS_SUBST_H
#define SRT_PLUGIN_CREDENTIALS_SUBST_H

#include <stddef.h>

struct subst_pair {
	const char *from;
	size_t from_len; /* > 0 */
	const char *to;
	size_t to_len;
};

/* Where replaced bytes go: 0, or non-zero to stop (returned as is). */
typedef int (*subst_emit_fn)(void *ctx, const void *p, size_t n);

struct subst_stream {
	const struct subst_pair *pairs; /* borrowed */
	size_t n;
	size_t max_from;
	unsigned char *buf; /* held bytes, then the piece being scanned */
	size_t held, cap;
	size_t *next;       /* per pair: next occurrence in buf, or SIZE_MAX */
	unsigned long long replaced;
};

/* Start a stream over `pairs` (borrowed until subst_stream_release). 0 or
 * -1 (out of memory, or a pair with an empty `from`). */
int subst_stream_init(struct subst_stream *s, const struct subst_pair *pairs, size_t n);
/* Feed the next piece (len may be 0); `end` flushes what was held. The
 * output goes to emit in order. 0, -1 out of memory, or emit's answer. */
int subst_stream_feed(struct subst_stream *s, const void *p, size_t len, int end,
		      subst_emit_fn emit, void *ctx);
void subst_stream_release(struct subst_stream *s);

/* Replace in a whole string: a new NUL-terminated string (length in
 * *out_len when non-NULL), or NULL when out of memory. *count gets the
 * number of replacements. */
char *subst_string(const struct subst_pair *pairs, size_t n, const char *s, size_t len,
		   size_t *out_len, unsigned long long *count);

#endif
