/* Path text put together with memcpy instead of snprintf.
 *
 * The start-up plan of a sandbox joins and copies a few thousand short
 * paths (each protected name under each write root, each ancestor of each
 * rule); through snprintf's format parser that was about a third of the
 * plan's user-space instructions. srt__pathcat behaves exactly as
 * snprintf(out, cap, "%.*s%s%s%s%s", (int)alen, a, b, c, d, e) with NULL
 * parts read as "": it writes at most cap - 1 bytes and a NUL (when cap > 0)
 * and returns the length the whole text has, so `>= cap` still means "did
 * not fit" to every caller that checks it. */
#ifndef SRT_COMMON_PATHCAT_H
#define SRT_COMMON_PATHCAT_H

#include <stddef.h>
#include <string.h>

static inline size_t srt__pathcat_put(char *out, size_t cap, size_t at, const char *s, size_t n)
{
	if (at + 1 < cap) {
		size_t room = cap - 1 - at;

		memcpy(out + at, s, n < room ? n : room);
	}
	return at + n;
}

static inline size_t srt__pathcat(char *out, size_t cap, const char *a, size_t alen, const char *b,
				  const char *c, const char *d, const char *e)
{
	const char *rest[4] = { b, c, d, e };
	size_t at = srt__pathcat_put(out, cap, 0, a, alen);

	for (int i = 0; i < 4; i++)
		if (rest[i])
			at = srt__pathcat_put(out, cap, at, rest[i], strlen(rest[i]));
	if (cap)
		out[at < cap ? at : cap - 1] = '\0';
	return at;
}

#endif
