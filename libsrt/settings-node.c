/* The settings document tree: building and freeing it, member lookup,
 * and writing a subtree back out as compact JSON (network.filters hands
 * each plugin its "config" that way, whichever spelling the file used). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/error.h>

#include "settings-node.h"

struct srt__snode *srt__snode_new(enum srt__snode_type type)
{
	struct srt__snode *n = calloc(1, sizeof(*n));

	if (n)
		n->type = type;
	return n;
}

void srt__snode_free(struct srt__snode *n)
{
	while (n) {
		struct srt__snode *next = n->next;

		srt__snode_free(n->child);
		free(n->string);
		free(n->key);
		free(n);
		n = next;
	}
}

void srt__snode_append(struct srt__snode *parent, struct srt__snode *child)
{
	child->next = NULL;
	if (parent->last)
		parent->last->next = child;
	else
		parent->child = child;
	parent->last = child;
	parent->n_children++;
}

const struct srt__snode *srt__snode_member(const struct srt__snode *obj, const char *key)
{
	const struct srt__snode *m;

	for (m = obj->child; m; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

void srt__snode_format_number(char *out, size_t cap, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

/* ------------------------------------------------ JSON re-serialisation */

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void buf_add(struct buf *b, const char *s, size_t len)
{
	if (b->oom)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *np;

		while (cap < b->n + len + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	char esc[8];

	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = (char)ch;
			buf_add(b, esc, 2);
		} else if (ch < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			buf_add(b, esc, 6);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_add(b, "\"", 1);
}

static void to_json(struct buf *b, const struct srt__snode *n)
{
	const struct srt__snode *m;
	char num[40];

	switch (n->type) {
	case SRT_SNODE_NULL: buf_add(b, "null", 4); break;
	case SRT_SNODE_BOOL: n->boolean ? buf_add(b, "true", 4) : buf_add(b, "false", 5); break;
	case SRT_SNODE_NUMBER:
		if (!isfinite(n->number))
			buf_add(b, "null", 4);
		else {
			srt__snode_format_number(num, sizeof(num), n->number);
			buf_add(b, num, strlen(num));
		}
		break;
	case SRT_SNODE_STRING: buf_str(b, n->string); break;
	case SRT_SNODE_ARRAY:
	case SRT_SNODE_OBJECT:
		buf_add(b, n->type == SRT_SNODE_ARRAY ? "[" : "{", 1);
		for (m = n->child; m; m = m->next) {
			if (m != n->child)
				buf_add(b, ",", 1);
			if (n->type == SRT_SNODE_OBJECT) {
				buf_str(b, m->key);
				buf_add(b, ":", 1);
			}
			to_json(b, m);
		}
		buf_add(b, n->type == SRT_SNODE_ARRAY ? "]" : "}", 1);
		break;
	}
}

int srt__snode_to_json(const struct srt__snode *n, char **out)
{
	struct buf b = { 0 };

	to_json(&b, n);
	if (b.oom) {
		free(b.p);
		return SRT_E_NOMEM;
	}
	*out = b.p;
	return SRT_OK;
}
