/* The validation engine shared by every settings section: the key path,
 * messages that name it, typed getters and rule tables (see
 * settings-check.h). It knows no section: settings-sections.c says which
 * keys exist and what they mean. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pathcat.h"
#include "settings-check.h"

/* Unknown-key warnings listed before the rest are only counted: a hostile
 * file with a million keys must not become a million warning lines. */
#define MAX_UNKNOWN_WARNINGS 50

void srt__check_init(struct srt__check *c, struct srt__settings *s, const char *origin,
		     struct srt_diag *diag)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->origin = origin ? origin : "settings";
	c->diag = diag;
}

int srt__check_finish(struct srt__check *c)
{
	if (c->unknown_seen > MAX_UNKNOWN_WARNINGS)
		return srt__check_warn(c, "%zu more unknown keys ignored (not listed)",
				       c->unknown_seen - MAX_UNKNOWN_WARNINGS);
	return SRT_OK;
}

/* Quote a value for a message: JSON-style escapes, bounded length. */
const char *srt__check_quote(struct srt__check *c, const char *v)
{
	char *q = c->qbuf[c->qi++ % 3];
	size_t cap = sizeof(c->qbuf[0]), o = 0, i;

	q[o++] = '"';
	for (i = 0; v[i] && o + 10 < cap; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch == '"' || ch == '\\') {
			q[o++] = '\\';
			q[o++] = (char)ch;
		} else if (ch < 0x20 || ch == 0x7f) {
			o += (size_t)snprintf(q + o, cap - o, "\\u%04x", ch);
		} else {
			q[o++] = (char)ch;
		}
	}
	if (v[i]) {
		memcpy(q + o, "...", 3);
		o += 3;
	}
	q[o++] = '"';
	q[o] = '\0';
	return q;
}

static bool is_identifier(const char *k)
{
	size_t i;

	if (!*k || (k[0] >= '0' && k[0] <= '9'))
		return false;
	for (i = 0; k[i]; i++) {
		char ch = k[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '$'))
			return false;
	}
	return true;
}

static void path_append(struct srt__check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void path_append(struct srt__check *c, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (c->plen >= sizeof(c->path) - 1)
		return;
	va_start(ap, fmt);
	w = vsnprintf(c->path + c->plen, sizeof(c->path) - c->plen, fmt, ap);
	va_end(ap);
	if (w < 0)
		c->path[c->plen] = '\0';
	else if ((size_t)w >= sizeof(c->path) - c->plen)
		c->plen = sizeof(c->path) - 1;
	else
		c->plen += (size_t)w;
}

/* Push a key onto the key path; returns the length to pop back to. */
size_t srt__check_push_key(struct srt__check *c, const char *key)
{
	size_t old = c->plen;

	size_t room = sizeof(c->path) - c->plen;

	if (!is_identifier(key)) {
		path_append(c, "[%s]", srt__check_quote(c, key));
	} else if (room > 1) {
		/* the common case without the format parser: every key of
		 * every settings file passes here (path_append's result) */
		size_t w = srt__pathcat(c->path + c->plen, room, ".", c->plen ? 1 : 0, key, NULL, NULL,
					NULL);

		c->plen = w >= room ? sizeof(c->path) - 1 : c->plen + w;
	}
	return old;
}

size_t srt__check_push_index(struct srt__check *c, size_t i)
{
	size_t old = c->plen;

	path_append(c, "[%zu]", i);
	return old;
}

void srt__check_pop(struct srt__check *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

const char *srt__check_path(const struct srt__check *c)
{
	return c->plen ? c->path : "(root)";
}

static int vfail(struct srt__check *c, const char *fmt, va_list ap)
{
	char msg[900];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return srt_diag_set(c->diag, SRT_E_SETTINGS, srt__check_path(c), "%s: %s: %s",
			    c->origin, srt__check_path(c), msg);
}

int srt__check_fail(struct srt__check *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(c, fmt, ap);
	va_end(ap);
	return rc;
}

int srt__check_fail_at(struct srt__check *c, const char *key, const char *fmt, ...)
{
	size_t old = srt__check_push_key(c, key);
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(c, fmt, ap);
	va_end(ap);
	srt__check_pop(c, old);
	return rc;
}

int srt__check_nomem(struct srt__check *c)
{
	return srt_diag_set(c->diag, SRT_E_NOMEM, srt__check_path(c), "%s: %s: out of memory",
			    c->origin, srt__check_path(c));
}

int srt__check_warn(struct srt__check *c, const char *fmt, ...)
{
	char msg[900], line[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s: %s", c->origin, msg);
	if (srt__strv_push(&c->s->warnings, line) != SRT_OK)
		return srt__check_nomem(c);
	return SRT_OK;
}

static const char *describe(struct srt__check *c, const struct srt__snode *n)
{
	char num[40];

	char *q;

	switch (n->type) {
	case SRT_SNODE_NULL: return "null";
	case SRT_SNODE_BOOL: return n->boolean ? "boolean true" : "boolean false";
	case SRT_SNODE_ARRAY: return "an array";
	case SRT_SNODE_OBJECT: return "an object";
	case SRT_SNODE_NUMBER:
		q = c->qbuf[c->qi++ % 3];
		srt__snode_format_number(num, sizeof(num), n->number);
		snprintf(q, sizeof(c->qbuf[0]), "number %s", num);
		return q;
	case SRT_SNODE_STRING:
		q = c->qbuf[c->qi++ % 3];
		/* srt__check_quote() fills another slot; copy after the prefix. */
		{
			const char *qq = srt__check_quote(c, n->string);
			snprintf(q, sizeof(c->qbuf[0]), "string %s", qq);
		}
		return q;
	}
	return "?";
}

int srt__check_type_error(struct srt__check *c, const struct srt__snode *n, const char *expected)
{
	return srt__check_fail(c, "expected %s, got %s", expected, describe(c, n));
}

/* Levenshtein distance (case-insensitive), capped: only "is it <= 2". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64], prev;

	if (la >= 63 || lb >= 63 || la > lb + 2 || lb > la + 2)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
			size_t best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

/* Strict objects refuse unknown keys, all listed in one error; the others
 * warn once per key (up to MAX_UNKNOWN_WARNINGS), suggesting the known key
 * within two edits. */
int srt__check_members(struct srt__check *c, const struct srt__snode *obj,
		       const char *const *known, bool strict)
{
	const struct srt__snode *m;
	char list[600];
	size_t o = 0;
	int rc;

	if (obj->type != SRT_SNODE_OBJECT)
		return srt__check_type_error(c, obj, "an object");
	list[0] = '\0';
	for (m = obj->child; m; m = m->next) {
		const char *const *k;
		const char *best = NULL;
		size_t best_d = 3;

		for (k = known; *k; k++)
			if (strcmp(*k, m->key) == 0)
				break;
		if (*k)
			continue;
		if (!strict && ++c->unknown_seen > MAX_UNKNOWN_WARNINGS)
			continue;
		for (k = known; !strict && *k; k++) {
			size_t d = edit_distance(m->key, *k);

			if (d < best_d) {
				best_d = d;
				best = *k;
			}
		}
		if (strict) {
			if (o < sizeof(list) - 1) {
				int w = snprintf(list + o, sizeof(list) - o, "%s'%s'",
						 o ? ", " : "", m->key);

				o = w < 0 ? o : o + (size_t)w;
				if (o >= sizeof(list))
					o = sizeof(list) - 1;
			}
			continue;
		}
		{
			size_t old = srt__check_push_key(c, m->key);
			char sugg[128] = "";

			if (best)
				snprintf(sugg, sizeof(sugg), " (did you mean \"%s\"?)", best);
			/* A path with a quoted segment is printed as is. */
			rc = srt__check_warn(c, "unknown key %s ignored%s",
					     strchr(srt__check_path(c), '"') ? srt__check_path(c) :
					     srt__check_quote(c, srt__check_path(c)), sugg);
			srt__check_pop(c, old);
			if (rc)
				return rc;
		}
	}
	if (o)
		return srt__check_fail(c, "Unrecognized key(s) in object: %s", list);
	return SRT_OK;
}

/* Every object in the document: refuse duplicate keys. JSON.parse keeps
 * the last one and cJSON the first; rather than pick a meaning for an
 * ambiguous file, say so. Sorting keeps this O(n log n) on hostile input. */
static int cmp_keyp(const void *a, const void *b)
{
	const struct srt__snode *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

int srt__check_duplicates(struct srt__check *c, const struct srt__snode *n)
{
	const struct srt__snode *m, **v = NULL;
	size_t i, k, old;
	int rc = SRT_OK;

	if (n->type != SRT_SNODE_OBJECT && n->type != SRT_SNODE_ARRAY)
		return SRT_OK;
	if (n->type == SRT_SNODE_OBJECT && n->n_children > 1) {
		v = malloc(n->n_children * sizeof(*v));
		if (!v)
			return srt__check_nomem(c);
		for (i = 0, m = n->child; m; m = m->next)
			v[i++] = m;
		qsort(v, n->n_children, sizeof(*v), cmp_keyp);
		for (i = 1; i < n->n_children; i++) {
			if (strcmp(v[i - 1]->key, v[i]->key) == 0) {
				old = srt__check_push_key(c, v[i]->key);
				rc = srt__check_fail(c, "duplicate key %s: each key may appear only once in an object",
						     srt__check_quote(c, v[i]->key));
				srt__check_pop(c, old);
				goto out;
			}
		}
	}
	for (k = 0, m = n->child; m; m = m->next, k++) {
		old = n->type == SRT_SNODE_OBJECT ? srt__check_push_key(c, m->key) : srt__check_push_index(c, k);
		rc = srt__check_duplicates(c, m);
		srt__check_pop(c, old);
		if (rc)
			goto out;
	}
out:
	free(v);
	return rc;
}

/* ----------------------------------------------------- value helpers */

static int get_bool(struct srt__check *c, const struct srt__snode *n, bool *out)
{
	if (n->type != SRT_SNODE_BOOL)
		return srt__check_type_error(c, n, "a boolean");
	*out = n->boolean;
	return SRT_OK;
}

int srt__check_get_int(struct srt__check *c, const struct srt__snode *n, long lo, long hi, int *out)
{
	char num[40];

	if (n->type != SRT_SNODE_NUMBER)
		return srt__check_type_error(c, n, "an integer");
	srt__snode_format_number(num, sizeof(num), n->number);
	if (!isfinite(n->number) || floor(n->number) != n->number)
		return srt__check_fail(c, "expected an integer, got number %s", num);
	if (n->number < (double)lo)
		return srt__check_fail(c, "%s is out of range: Number must be greater than or equal to %ld",
				       num, lo);
	if (n->number > (double)hi)
		return srt__check_fail(c, "%s is out of range: Number must be less than or equal to %ld",
				       num, hi);
	*out = (int)n->number;
	return SRT_OK;
}

int srt__check_get_string(struct srt__check *c, const struct srt__snode *n, const char *empty_msg,
			  char **out)
{
	char *dup;

	if (n->type != SRT_SNODE_STRING)
		return srt__check_type_error(c, n, "a string");
	if (empty_msg && !*n->string)
		return srt__check_fail(c, "\"\" is empty: %s", empty_msg);
	dup = strdup(n->string);
	if (!dup)
		return srt__check_nomem(c);
	free(*out);
	*out = dup;
	return SRT_OK;
}

static int get_enum(struct srt__check *c, const struct srt__snode *n, const char *const *allowed,
		    char **out)
{
	char list[256];
	size_t o = 0, i;
	int rc;

	if (n->type != SRT_SNODE_STRING)
		return srt__check_type_error(c, n, "a string");
	for (i = 0; allowed[i]; i++) {
		if (strcmp(allowed[i], n->string) == 0) {
			rc = srt__check_get_string(c, n, NULL, out);
			return rc;
		}
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s\"%s\"", i ? ", " : "",
				      allowed[i]);
		if (o >= sizeof(list))
			o = sizeof(list) - 1;
	}
	return srt__check_fail(c, "%s is not allowed: expected one of %s",
			       srt__check_quote(c, n->string), list);
}


/* An array of strings, each checked by `check` (may be NULL). */
int srt__check_get_strv(struct srt__check *c, const struct srt__snode *n, const char *empty_msg,
			srt__check_str_fn check, struct srt__strv *out)
{
	const struct srt__snode *e;
	size_t i, old;
	int rc;

	if (n->type != SRT_SNODE_ARRAY)
		return srt__check_type_error(c, n, "an array of strings");
	srt__strv_release(out);
	for (i = 0, e = n->child; e; e = e->next, i++) {
		old = srt__check_push_index(c, i);
		if (e->type != SRT_SNODE_STRING)
			rc = srt__check_type_error(c, e, "a string");
		else if (empty_msg && !*e->string)
			rc = srt__check_fail(c, "\"\" is empty: %s", empty_msg);
		else if (check && (rc = check(c, e->string)) != SRT_OK)
			;
		else if (srt__strv_push(out, e->string) != SRT_OK)
			rc = srt__check_nomem(c);
		else
			rc = SRT_OK;
		srt__check_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

/* Keyed helpers: look `key` up in obj, push it on the key path, convert.
 * Absent optional keys leave the default; absent required keys fail. */
static const struct srt__snode *enter(struct srt__check *c, const struct srt__snode *obj,
				      const char *key, size_t *old)
{
	const struct srt__snode *m = srt__snode_member(obj, key);

	*old = srt__check_push_key(c, key);
	return m;
}

int srt__check_missing(struct srt__check *c, const char *what)
{
	return srt__check_fail(c, "required key is missing (expected %s)", what);
}

int srt__check_opt_bool(struct srt__check *c, const struct srt__snode *obj, const char *key,
			bool *out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc = m ? get_bool(c, m, out) : SRT_OK;

	srt__check_pop(c, old);
	return rc;
}

int srt__check_opt_string(struct srt__check *c, const struct srt__snode *obj, const char *key,
			  bool required, const char *empty_msg, char **out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc;

	if (m)
		rc = srt__check_get_string(c, m, empty_msg, out);
	else
		rc = required ? srt__check_missing(c, "a string") : SRT_OK;
	srt__check_pop(c, old);
	return rc;
}

int srt__check_opt_enum(struct srt__check *c, const struct srt__snode *obj, const char *key,
			const char *const *allowed, char **out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc = m ? get_enum(c, m, allowed, out) : SRT_OK;

	srt__check_pop(c, old);
	return rc;
}

/* *present (may be NULL) says whether the key was there. */
int srt__check_opt_strv(struct srt__check *c, const struct srt__snode *obj, const char *key,
			bool required, const char *empty_msg, srt__check_str_fn check,
			struct srt__strv *out, bool *present)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc;

	if (present)
		*present = m != NULL;
	if (m)
		rc = srt__check_get_strv(c, m, empty_msg, check, out);
	else
		rc = required ? srt__check_missing(c, "an array") : SRT_OK;
	srt__check_pop(c, old);
	return rc;
}

#define PATH_ENTRY_MESSAGE "Expected a path, or { \"path\": \"<path>\", \"literal\": true }"

/* An array of paths: strings, or { "path": ..., "literal": true } objects.
 * Each string goes through `check` (may be NULL); a literal path does not,
 * since it is never read as a pattern. */
static int get_path_entries(struct srt__check *c, const struct srt__snode *n,
			    srt__check_str_fn check, struct srt__path_entries *out)
{
	const struct srt__snode *e, *p, *lit, *m;
	size_t i, old;
	int rc = SRT_OK;

	if (n->type != SRT_SNODE_ARRAY)
		return srt__check_type_error(c, n, "an array of paths");
	srt__path_entries_release(out);
	if (n->n_children) {
		out->v = calloc(n->n_children, sizeof(*out->v));
		if (!out->v)
			return srt__check_nomem(c);
	}
	for (i = 0, e = n->child; e; e = e->next, i++) {
		struct srt__path_entry *pe = &out->v[i];

		old = srt__check_push_index(c, i);
		if (e->type == SRT_SNODE_STRING) {
			if (!*e->string)
				rc = srt__check_fail(c, "\"\" is empty: Path cannot be empty");
			else if (check)
				rc = check(c, e->string);
			if (!rc && !(pe->path = strdup(e->string)))
				rc = srt__check_nomem(c);
		} else if (e->type == SRT_SNODE_OBJECT) {
			/* The literal form is strict: a key besides "path" and
			 * "literal" is an error, so a typo cannot pass unseen. */
			p = srt__snode_member(e, "path");
			lit = srt__snode_member(e, "literal");
			for (m = e->child; m; m = m->next)
				if (strcmp(m->key, "path") && strcmp(m->key, "literal"))
					break;
			if (m)
				rc = srt__check_fail(c, "%s: unknown key %s in a path object", PATH_ENTRY_MESSAGE,
						     srt__check_quote(c, m->key));
			else if (!p || p->type != SRT_SNODE_STRING)
				rc = srt__check_fail(c, "%s: \"path\" must be a string", PATH_ENTRY_MESSAGE);
			else if (!*p->string)
				rc = srt__check_fail(c, "%s: Path cannot be empty", PATH_ENTRY_MESSAGE);
			else if (!lit || lit->type != SRT_SNODE_BOOL || !lit->boolean)
				rc = srt__check_fail(c, "%s: \"literal\" must be true, got %s", PATH_ENTRY_MESSAGE,
						     lit ? describe(c, lit) : "nothing");
			else if (!(pe->path = strdup(p->string)))
				rc = srt__check_nomem(c);
			pe->literal = true;
		} else {
			rc = srt__check_fail(c, "%s, got %s", PATH_ENTRY_MESSAGE, describe(c, e));
		}
		srt__check_pop(c, old);
		if (rc)
			return rc;
		out->n++;
	}
	return SRT_OK;
}

int srt__check_at(struct srt__check *c, const char *key, srt__check_str_fn check,
		  const char *v)
{
	size_t old;
	int rc;

	if (!v)
		return SRT_OK;
	old = srt__check_push_key(c, key);
	rc = check(c, v);
	srt__check_pop(c, old);
	return rc;
}

/* ---------------------------------------------------------- rule tables */

/* One rule with its key on the path; `field` is where the value goes. */
static int apply_rule(struct srt__check *c, const struct srt__snode *obj,
		      const struct srt__rule *r, void *field)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, r->key, &old);
	bool discard = r->flags & SRT_RULE_DISCARD;
	char *tmp = NULL, **str = discard ? &tmp : field;
	struct srt__strv tmpv = { 0 }, *strv = discard ? &tmpv : field;
	int rc = SRT_OK;

	if (!m) {
		if (r->flags & SRT_RULE_REQUIRED)
			rc = srt__check_missing(c, r->kind == SRT_RULE_STRING ? "a string" :
						r->kind == SRT_RULE_STRV ? "an array" :
						r->kind == SRT_RULE_PATHS ? "an array of paths" :
						"an object");
		srt__check_pop(c, old);
		return rc;
	}
	switch (r->kind) {
	case SRT_RULE_BOOL:
		rc = get_bool(c, m, field);
		break;
	case SRT_RULE_INT:
		rc = srt__check_get_int(c, m, r->lo, r->hi, field);
		break;
	case SRT_RULE_STRING:
		rc = srt__check_get_string(c, m, r->empty_msg, str);
		if (!rc && r->check)
			rc = r->check(c, *str);
		break;
	case SRT_RULE_ENUM:
		rc = get_enum(c, m, r->allowed, str);
		break;
	case SRT_RULE_STRV:
		rc = srt__check_get_strv(c, m, r->empty_msg, r->check, strv);
		break;
	case SRT_RULE_PATHS:
		rc = get_path_entries(c, m, r->check, field);
		break;
	case SRT_RULE_NODE:
		rc = r->fn(c, m);
		break;
	}
	srt__check_pop(c, old);
	free(tmp);
	srt__strv_release(&tmpv);
	if (!rc && (r->flags & SRT_RULE_COMPAT) &&
	    srt__strv_push(&c->s->ignored_keys, r->key) != SRT_OK)
		rc = srt__check_nomem(c);
	return rc;
}

int srt__check_rules(struct srt__check *c, const struct srt__snode *obj,
		     const struct srt__rule *rules, void *base)
{
	const struct srt__rule *r;
	int rc = SRT_OK;

	for (r = rules; r->key && !rc; r++)
		rc = apply_rule(c, obj, r, (char *)base + r->offset);
	return rc;
}

int srt__check_object(struct srt__check *c, const struct srt__snode *obj,
		      const char *const *known, bool strict, const struct srt__rule *rules,
		      void *base)
{
	int rc = srt__check_members(c, obj, known, strict);

	return rc ? rc : srt__check_rules(c, obj, rules, base);
}
