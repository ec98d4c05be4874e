/* linux-bwrap: the mount plan's model: the node table and the state the
 * rules give a path.
 *
 * Model. Every rule is applied at the path it resolves to on the host (deny
 * rules follow symbolic links; allow rules only follow links nobody inside a
 * sandbox could have planted). For any path p:
 *   readable(p): the deepest of denyRead / allowRead / allowWrite at or
 *     above p decides; at one path allowRead beats denyRead beats allowWrite.
 *     Default: readable.
 *   writable(p): readable(p), an allowWrite at or above p, and no
 *     denyWrite at or above p: for writes the deny wins even over a deeper
 *     allow (the plan notes the allow it overrides).
 *     Default: read-only.
 * So the outcome never depends on the order the settings list rules in,
 * a denied directory is neither readable nor writable, and an allowRead
 * under a denyRead re-opens the real files (writable only when an allowWrite
 * covers them). */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount-model.h"

int srt__mount_push3(struct srt__mount_ctx *c, const char *a, const char *b, const char *d)
{
	if (srt__strv_push(&c->plan->words, a) || (b && srt__strv_push(&c->plan->words, b)) ||
	    (d && srt__strv_push(&c->plan->words, d)))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

int srt__mount_note(struct srt__mount_ctx *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (srt__strv_push(&c->plan->notes, buf))
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

int srt__mount_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

size_t srt__mount_depth_of(const char *p)
{
	size_t d = 0;

	if (strcmp(p, "/") == 0)
		return 0;
	for (; *p; p++)
		if (*p == '/')
			d++;
	return d;
}

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

long srt__mount_lookup(const struct srt__mount_ctx *c, const char *p, size_t n)
{
	size_t i;

	if (!c->tab_size)
		return -1;
	for (i = hash(p, n) & (c->tab_size - 1);; i = (i + 1) & (c->tab_size - 1)) {
		long k = c->tab[i];

		if (!k)
			return -1;
		if (strlen(c->v[k - 1].path) == n && memcmp(c->v[k - 1].path, p, n) == 0)
			return k - 1;
	}
}

static int tab_insert(struct srt__mount_ctx *c, size_t idx)
{
	size_t i;

	if ((c->n + 1) * 2 > c->tab_size) {
		size_t ns = c->tab_size ? c->tab_size * 2 : 256, j;
		long *nt = calloc(ns, sizeof(*nt));

		if (!nt)
			return SRT_E_NOMEM;
		for (j = 0; j < c->tab_size; j++) {
			long k = c->tab[j];
			size_t h;

			if (!k)
				continue;
			for (h = hash(c->v[k - 1].path, strlen(c->v[k - 1].path)) & (ns - 1); nt[h];
			     h = (h + 1) & (ns - 1))
				;
			nt[h] = k;
		}
		free(c->tab);
		c->tab = nt;
		c->tab_size = ns;
	}
	for (i = hash(c->v[idx].path, strlen(c->v[idx].path)) & (c->tab_size - 1); c->tab[i];
	     i = (i + 1) & (c->tab_size - 1))
		;
	c->tab[i] = (long)idx + 1;
	return SRT_OK;
}

long srt__mount_node_get(struct srt__mount_ctx *c, const char *path)
{
	long k = srt__mount_lookup(c, path, strlen(path));
	struct srt__mount_node *nd;

	if (k >= 0)
		return k;
	if (c->n >= MAX_NODES) {
		c->err = srt_diag_set(c->diag, SRT_E_LIMIT, "filesystem",
				      "more than %d filesystem rules after expansion; narrow the rules",
				      MAX_NODES);
		return -1;
	}
	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 64;
		struct srt__mount_node *nv = realloc(c->v, na * sizeof(*nv));

		if (!nv)
			goto nomem;
		c->v = nv;
		c->alloc = na;
	}
	nd = &c->v[c->n];
	memset(nd, 0, sizeof(*nd));
	nd->path = strdup(path);
	if (!nd->path)
		goto nomem;
	nd->depth = srt__mount_depth_of(path);
	nd->parent = -1;
	nd->dflt = 1;
	if (tab_insert(c, c->n)) {
		free(nd->path);
		goto nomem;
	}
	return (long)c->n++;
nomem:
	c->err = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	return -1;
}

struct srt__mount_state srt__mount_state_of(const struct srt__mount_ctx *c, const char *p)
{
	struct srt__mount_state s;
	size_t len = strlen(p), i;
	int r = 1, aw = 0, dw = 0;

	for (i = 0; i <= len; i++) {
		long k;
		unsigned kd;

		if (i == 0)
			k = srt__mount_lookup(c, "/", 1);
		else if (i == len || p[i] == '/')
			k = i > 1 || i == len ? srt__mount_lookup(c, p, i) : -1;
		else
			continue;
		if (k < 0)
			continue;
		kd = c->v[k].kinds;
		if (kd & K_AR)
			r = 1;
		else if (kd & K_DR)
			r = 0;
		else if (kd & K_AW)
			r = 1;
		if (kd & K_DW)
			dw = 1;
		if (kd & K_AW)
			aw = 1;
		if (i == len)
			break;
	}
	s.r = r;
	s.w = r && aw && !dw;
	return s;
}
