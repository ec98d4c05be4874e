/* The one growable string vector (common/strv.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <srt/error.h>

#include "common/strv.h"

int srt__strv_push(struct srt__strv *v, const char *s)
{
	char *copy;

	if (!v || !s)
		return SRT_E_INVAL;
	/* n + 2: the new entry and the terminating NULL */
	if (v->n + 2 > v->alloc) {
		size_t na = v->alloc ? v->alloc : 8;
		char **nv;

		while (na < v->n + 2) {
			if (na > ((size_t)-1) / sizeof(*nv) / 2)
				return SRT_E_NOMEM;
			na *= 2;
		}
		nv = realloc(v->v, na * sizeof(*nv));
		if (!nv)
			return SRT_E_NOMEM;
		v->v = nv;
		v->alloc = na;
	}
	copy = strdup(s);
	if (!copy)
		return SRT_E_NOMEM;
	v->v[v->n++] = copy;
	v->v[v->n] = NULL;
	return SRT_OK;
}

void srt__strv_release(struct srt__strv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
	v->alloc = 0;
}
