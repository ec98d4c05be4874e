/* The one growable string vector of the tree: settings lists in the core,
 * bwrap argument words and path lists in the backends.
 *
 * Zero-initialise (`struct srt__strv v = {0}`) before the first push. The
 * array is kept NULL-terminated once it holds an entry, so v.v can be handed
 * to code that expects an argv-like array. The vector owns its strings. */
#ifndef SRT_COMMON_STRV_H
#define SRT_COMMON_STRV_H

#include <stddef.h>

struct srt__strv {
	char **v;     /* NULL-terminated when n > 0 */
	size_t n;     /* entries, not counting the terminator */
	size_t alloc; /* slots allocated in v */
};

/* Append a copy of s. 0, SRT_E_INVAL (NULL argument) or SRT_E_NOMEM; on
 * failure the vector is unchanged. */
int srt__strv_push(struct srt__strv *v, const char *s);

/* Free every string and the array; the vector is empty again afterwards and
 * may be reused. NULL is a no-op. */
void srt__strv_release(struct srt__strv *v);

#endif
