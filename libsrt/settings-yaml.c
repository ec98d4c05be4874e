/* The YAML front end: the document is turned into the same struct
 * srt__snode tree the JSON front end builds and validated by the same
 * code (settings-sections.c), so both spellings give identical settings
 * and identical errors. libyaml objects never leave this file.
 *
 * Only the JSON-shaped part of YAML is accepted. Anchors and aliases are
 * refused (an alias bomb expands exponentially, and a settings file has no
 * need for them), as are several documents in one file, non-scalar mapping
 * keys and application tags. Plain scalars follow the YAML 1.2 core schema:
 * true/false -> boolean, integers and floats -> number, null/~/empty ->
 * null; "yes"/"on" stay strings. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "settings.h"
#include "settings-node.h"
#include "settings-sections.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

struct frame {
	struct srt__snode *node;
	char *pending_key; /* mapping: key read, value not yet */
};

struct ybuild {
	struct frame stack[SRT_SETTINGS_MAX_DEPTH];
	size_t depth;
	struct srt__snode *root;
	const char *origin;
	struct srt_diag *diag;
};

static int yerror(struct ybuild *b, const yaml_mark_t *mark, const char *what)
{
	return srt_diag_set(b->diag, SRT_E_SETTINGS, "(root)",
			    "%s is not valid YAML: %s at line %zu, column %zu", b->origin, what,
			    (size_t)mark->line + 1, (size_t)mark->column + 1);
}

static bool all_digits(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

/* YAML 1.2 core schema float: [-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? )
 * ( [eE] [-+]? [0-9]+ )? */
static bool is_core_float(const char *s)
{
	bool digits = false;

	if (*s == '-' || *s == '+')
		s++;
	while (*s >= '0' && *s <= '9') {
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			s++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* Resolve a plain scalar. Returns the node type and fills *num / *b. */
static enum srt__snode_type resolve_plain(const char *v, double *num, bool *b)
{
	const char *u = v;

	if (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	    !strcmp(v, "NULL"))
		return SRT_SNODE_NULL;
	if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
		*b = true;
		return SRT_SNODE_BOOL;
	}
	if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
		*b = false;
		return SRT_SNODE_BOOL;
	}
	if (!strncmp(v, "0x", 2) && all_digits(v + 2, "0123456789abcdefABCDEF")) {
		*num = strtod(v, NULL); /* strtod reads hex; huge values round */
		return SRT_SNODE_NUMBER;
	}
	if (!strncmp(v, "0o", 2) && all_digits(v + 2, "01234567")) {
		double x = 0;

		for (u = v + 2; *u; u++)
			x = x * 8 + (*u - '0');
		*num = x;
		return SRT_SNODE_NUMBER;
	}
	if (is_core_float(v)) {
		*num = strtod(v, NULL);
		return SRT_SNODE_NUMBER;
	}
	u = (*v == '-' || *v == '+') ? v + 1 : v;
	if (!strcmp(u, ".inf") || !strcmp(u, ".Inf") || !strcmp(u, ".INF")) {
		*num = *v == '-' ? -INFINITY : INFINITY;
		return SRT_SNODE_NUMBER;
	}
	if (!strcmp(v, ".nan") || !strcmp(v, ".NaN") || !strcmp(v, ".NAN")) {
		*num = NAN;
		return SRT_SNODE_NUMBER;
	}
	return SRT_SNODE_STRING;
}

static int scalar_node(struct ybuild *b, const yaml_event_t *ev, struct srt__snode **out)
{
	const char *v = (const char *)ev->data.scalar.value;
	const char *tag = (const char *)ev->data.scalar.tag;
	enum srt__snode_type t = SRT_SNODE_STRING;
	struct srt__snode *n;
	double num = 0;
	bool bv = false;

	if (tag && strcmp(tag, "!") != 0 && strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) != 0) {
		char what[160];

		snprintf(what, sizeof(what), "unsupported tag \"%.100s\"", tag);
		return yerror(b, &ev->start_mark, what);
	}
	if (tag && !strcmp(tag, TAG_PREFIX "str")) {
		t = SRT_SNODE_STRING;
	} else if (tag && strcmp(tag, "!") != 0) {
		/* !!int, !!bool, ...: the value must resolve to that type. */
		const char *want = tag + strlen(TAG_PREFIX);

		t = resolve_plain(v, &num, &bv);
		if (!((t == SRT_SNODE_NUMBER && (!strcmp(want, "int") || !strcmp(want, "float"))) ||
		      (t == SRT_SNODE_BOOL && !strcmp(want, "bool")) ||
		      (t == SRT_SNODE_NULL && !strcmp(want, "null")))) {
			char what[160];

			snprintf(what, sizeof(what), "the scalar does not match its tag \"!!%.40s\"",
				 want);
			return yerror(b, &ev->start_mark, what);
		}
	} else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tag) {
		t = resolve_plain(v, &num, &bv);
	}
	n = srt__snode_new(t);
	if (!n)
		return SRT_E_NOMEM;
	n->number = num;
	n->boolean = bv;
	if (t == SRT_SNODE_STRING && !(n->string = strdup(v))) {
		free(n);
		return SRT_E_NOMEM;
	}
	*out = n;
	return SRT_OK;
}

/* Attach a finished value to the open collection (or make it the root). */
static int attach(struct ybuild *b, struct srt__snode *n)
{
	struct frame *f;

	if (b->depth == 0) {
		b->root = n;
		return SRT_OK;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->type == SRT_SNODE_OBJECT) {
		n->key = f->pending_key;
		f->pending_key = NULL;
	}
	srt__snode_append(f->node, n);
	return SRT_OK;
}

static int handle(struct ybuild *b, const yaml_event_t *ev, int *docs, bool *done)
{
	struct srt__snode *n = NULL;
	struct frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
	bool want_key = top && top->node->type == SRT_SNODE_OBJECT && !top->pending_key;
	const char *len_check;
	int rc;

	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_NO_EVENT:
		return SRT_OK;
	case YAML_STREAM_END_EVENT:
		*done = true;
		return SRT_OK;
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return yerror(b, &ev->start_mark,
				      "the file holds more than one document (only one is allowed)");
		return SRT_OK;
	case YAML_ALIAS_EVENT:
		return yerror(b, &ev->start_mark, "aliases (\"*name\") are not supported");
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor)
			return yerror(b, &ev->start_mark, "anchors (\"&name\") are not supported");
		len_check = memchr(ev->data.scalar.value, '\0', ev->data.scalar.length);
		if (len_check)
			return yerror(b, &ev->start_mark, "NUL character in a string");
		if (want_key) {
			top->pending_key = strdup((const char *)ev->data.scalar.value);
			return top->pending_key ? SRT_OK : SRT_E_NOMEM;
		}
		if ((rc = scalar_node(b, ev, &n)) != SRT_OK)
			return rc;
		return attach(b, n);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		const char *anchor = (const char *)(ev->type == YAML_SEQUENCE_START_EVENT ?
						    ev->data.sequence_start.anchor :
						    ev->data.mapping_start.anchor);
		const char *tag = (const char *)(ev->type == YAML_SEQUENCE_START_EVENT ?
						 ev->data.sequence_start.tag :
						 ev->data.mapping_start.tag);

		if (anchor)
			return yerror(b, &ev->start_mark, "anchors (\"&name\") are not supported");
		if (tag && strcmp(tag, ev->type == YAML_SEQUENCE_START_EVENT ?
				  TAG_PREFIX "seq" : TAG_PREFIX "map") != 0) {
			char what[160];

			snprintf(what, sizeof(what), "unsupported tag \"%.100s\"", tag);
			return yerror(b, &ev->start_mark, what);
		}
		if (want_key)
			return yerror(b, &ev->start_mark,
				      "a mapping key must be a plain string, not a list or mapping");
		if (b->depth >= SRT_SETTINGS_MAX_DEPTH) {
			char what[64];

			snprintf(what, sizeof(what), "nested deeper than %d levels",
				 SRT_SETTINGS_MAX_DEPTH);
			return yerror(b, &ev->start_mark, what);
		}
		n = srt__snode_new(ev->type == YAML_SEQUENCE_START_EVENT ? SRT_SNODE_ARRAY :
					   SRT_SNODE_OBJECT);
		if (!n)
			return SRT_E_NOMEM;
		if ((rc = attach(b, n)) != SRT_OK) {
			srt__snode_free(n);
			return rc;
		}
		b->stack[b->depth].node = n;
		b->stack[b->depth].pending_key = NULL;
		b->depth++;
		return SRT_OK;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth) {
			b->depth--;
			free(b->stack[b->depth].pending_key);
			b->stack[b->depth].pending_key = NULL;
		}
		return SRT_OK;
	}
	return SRT_OK;
}

int srt__settings_parse_yaml(struct srt__settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag)
{
	struct ybuild b;
	yaml_parser_t parser;
	yaml_event_t ev;
	bool parser_ok = false, done = false;
	int docs = 0, rc = SRT_OK;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.origin = origin ? origin : "settings";
	b.diag = diag;
	if (!s || (!text && len)) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "(root)", "%s: no settings text", b.origin);
		goto out;
	}
	if (len > SRT_SETTINGS_MAX_BYTES) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)",
				  "%s is too large (%zu bytes; the limit is %u bytes)", b.origin, len,
				  SRT_SETTINGS_MAX_BYTES);
		goto out;
	}
	for (i = 0; i < len && strchr(" \t\r\n", text[i]) && text[i]; i++)
		;
	if (i == len) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)", "%s is empty", b.origin);
		goto out;
	}
	if (memchr(text, '\0', len)) {
		yaml_mark_t m = { 0 };
		const char *nul = memchr(text, '\0', len);

		for (i = 0; text + i < nul; i++) {
			if (text[i] == '\n') {
				m.line++;
				m.column = 0;
			} else {
				m.column++;
			}
		}
		rc = yerror(&b, &m, "NUL byte in the text");
		goto out;
	}
	if (!yaml_parser_initialize(&parser)) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", b.origin);
		goto out;
	}
	parser_ok = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_MEMORY_ERROR) {
				rc = srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory",
						  b.origin);
			} else {
				char what[300];

				snprintf(what, sizeof(what), "%s%s%s%s",
					 parser.problem ? parser.problem : "syntax error",
					 parser.context ? " (" : "",
					 parser.context ? parser.context : "",
					 parser.context ? ")" : "");
				rc = yerror(&b, &parser.problem_mark, what);
			}
			goto out;
		}
		rc = handle(&b, &ev, &docs, &done);
		yaml_event_delete(&ev);
		if (rc == SRT_E_NOMEM)
			rc = srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", b.origin);
		if (rc)
			goto out;
	}
	rc = srt__settings_from_snode(s, b.root, b.origin, diag);
	s = NULL;
out:
	if (rc && s)
		srt__settings_release(s);
	while (b.depth) {
		b.depth--;
		free(b.stack[b.depth].pending_key);
	}
	srt__snode_free(b.root);
	if (parser_ok)
		yaml_parser_delete(&parser);
	return rc;
}
