/* Growable, NULL-terminated string vectors (struct srt__strv). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "settings.h"

int srt__strv_push(struct srt__strv *v, const char *s)
{
	char **nv;
	char *copy;

	if (!v || !s)
		return SRT_E_INVAL;
	/* n + 2: the new entry and the terminating NULL, so v->v can be
	 * handed to code that expects an argv-like array. */
	if (v->n > ((size_t)-1) / sizeof(*nv) - 2)
		return SRT_E_NOMEM;
	copy = strdup(s);
	if (!copy)
		return SRT_E_NOMEM;
	nv = realloc(v->v, (v->n + 2) * sizeof(*nv));
	if (!nv) {
		free(copy);
		return SRT_E_NOMEM;
	}
	nv[v->n++] = copy;
	nv[v->n] = NULL;
	v->v = nv;
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
}
