/* The validation engine shared by every settings section: the key path
 * being checked ("network.allowedDomains[2]"), error and warning messages
 * that name it and quote the offending value, typed getters for the
 * values a document may hold, and rule tables that read an object's keys
 * in order into a C struct.
 *
 * Every function returning int returns SRT_OK or a negative enum srt_err;
 * on failure the context's diag says what is wrong and where:
 *   key = the key path or "(root)", message = "<origin>: <key>: ...". */
#ifndef SRT_SETTINGS_CHECK_H
#define SRT_SETTINGS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <srt/error.h>

#include "settings.h"
#include "settings-node.h"

/* One validation run. The settings being filled and the diag are
 * borrowed from the caller of srt__check_init(). */
struct srt__check {
	struct srt__settings *s;
	const char *origin;
	struct srt_diag *diag;
	char path[1024];
	size_t plen;
	char qbuf[3][192];
	unsigned int qi;
	size_t unknown_seen; /* unknown keys warned about or suppressed */
};

/* Start a run that fills s; origin (NULL: "settings") names the source in
 * messages. Cannot fail. */
void srt__check_init(struct srt__check *c, struct srt__settings *s, const char *origin,
		     struct srt_diag *diag);
/* End a run that succeeded: count the unknown keys past the listed ones. */
int srt__check_finish(struct srt__check *c);

/* ---- the key path */

/* Push a key (or an array index) onto the key path; returns the length
 * srt__check_pop() goes back to. */
size_t srt__check_push_key(struct srt__check *c, const char *key);
size_t srt__check_push_index(struct srt__check *c, size_t i);
void srt__check_pop(struct srt__check *c, size_t old);
/* The key path, or "(root)". */
const char *srt__check_path(const struct srt__check *c);

/* ---- messages (at the current key path) */

int srt__check_fail(struct srt__check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* srt__check_fail() with `key` pushed for the message. */
int srt__check_fail_at(struct srt__check *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int srt__check_nomem(struct srt__check *c);
/* Add "<origin>: <message>" to s->warnings. */
int srt__check_warn(struct srt__check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int srt__check_missing(struct srt__check *c, const char *what);
int srt__check_type_error(struct srt__check *c, const struct srt__snode *n,
			  const char *expected);
/* A value quoted for a message (JSON-style escapes, bounded length). The
 * text lives in the context until three more quotes are made. */
const char *srt__check_quote(struct srt__check *c, const char *v);

/* ---- document-wide checks */

/* obj must be an object. Keys missing from `known` (NULL-terminated) are
 * refused when strict, otherwise each gets a warning naming the key and
 * the nearest known spelling, since a typo such as "allowWrites" would
 * otherwise silently drop a rule. */
int srt__check_members(struct srt__check *c, const struct srt__snode *obj,
		       const char *const *known, bool strict);
/* Refuse a key that appears twice in one object, anywhere below n. */
int srt__check_duplicates(struct srt__check *c, const struct srt__snode *n);

/* ---- typed getters: convert n (the current key path) into *out */

typedef int (*srt__check_str_fn)(struct srt__check *c, const char *v);
typedef int (*srt__check_node_fn)(struct srt__check *c, const struct srt__snode *n);

int srt__check_get_int(struct srt__check *c, const struct srt__snode *n, long lo, long hi,
		       int *out);
/* A string; `empty_msg` (NULL: allowed) is the message for "". */
int srt__check_get_string(struct srt__check *c, const struct srt__snode *n,
			  const char *empty_msg, char **out);
/* An array of strings, each checked by `check` (may be NULL). */
int srt__check_get_strv(struct srt__check *c, const struct srt__snode *n,
			const char *empty_msg, srt__check_str_fn check, struct srt__strv *out);

/* ---- keyed getters: look `key` up in obj and convert it with the key
 * on the path. An absent optional key leaves the default; an absent
 * required key fails. */

int srt__check_opt_bool(struct srt__check *c, const struct srt__snode *obj, const char *key,
			bool *out);
int srt__check_opt_string(struct srt__check *c, const struct srt__snode *obj,
			  const char *key, bool required, const char *empty_msg, char **out);
int srt__check_opt_enum(struct srt__check *c, const struct srt__snode *obj, const char *key,
			const char *const *allowed, char **out);
/* *present (may be NULL) says whether the key was there. */
int srt__check_opt_strv(struct srt__check *c, const struct srt__snode *obj, const char *key,
			bool required, const char *empty_msg, srt__check_str_fn check,
			struct srt__strv *out, bool *present);
/* check(v) with `key` on the path; a NULL v passes. */
int srt__check_at(struct srt__check *c, const char *key, srt__check_str_fn check,
		  const char *v);

/* ---- rule tables */

enum srt__rule_kind {
	SRT_RULE_BOOL,   /* bool */
	SRT_RULE_INT,    /* int in [lo, hi] */
	SRT_RULE_STRING, /* char *, then `check` on it */
	SRT_RULE_ENUM,   /* char *, one of `allowed` */
	SRT_RULE_STRV,   /* struct srt__strv, each string through `check` */
	SRT_RULE_PATHS,  /* struct srt__path_entries, each string through `check` */
	SRT_RULE_NODE,   /* the member handed to `fn` */
};

#define SRT_RULE_REQUIRED 0x1u /* an absent key is an error */
#define SRT_RULE_DISCARD  0x2u /* validate only; store nothing (offset unused) */
#define SRT_RULE_COMPAT   0x4u /* accepted for compatibility: a present, valid key
				  is recorded in s->ignored_keys */

/* One key of an object: how to read it and where it goes (`offset` into
 * the struct handed to srt__check_rules()). */
struct srt__rule {
	const char *key;
	enum srt__rule_kind kind;
	unsigned int flags;
	size_t offset;
	long lo, hi;                 /* INT */
	const char *empty_msg;       /* STRING, STRV: the message for "" */
	const char *const *allowed;  /* ENUM */
	srt__check_str_fn check;     /* STRING, STRV, PATHS */
	srt__check_node_fn fn;       /* NODE */
};

/* Table rows: `off` is offsetof() the field in the struct the table fills. */
#define SRT_KEY_BOOL(k, off) { .key = (k), .kind = SRT_RULE_BOOL, .offset = (off) }
#define SRT_KEY_INT(k, off, min, max) \
	{ .key = (k), .kind = SRT_RULE_INT, .offset = (off), .lo = (min), .hi = (max) }
#define SRT_KEY_STRING(k, off, fl, empty, chk) \
	{ .key = (k), .kind = SRT_RULE_STRING, .flags = (fl), .offset = (off), \
	  .empty_msg = (empty), .check = (chk) }
#define SRT_KEY_ENUM(k, off, fl, list) \
	{ .key = (k), .kind = SRT_RULE_ENUM, .flags = (fl), .offset = (off), .allowed = (list) }
#define SRT_KEY_STRV(k, off, fl, empty, chk) \
	{ .key = (k), .kind = SRT_RULE_STRV, .flags = (fl), .offset = (off), \
	  .empty_msg = (empty), .check = (chk) }
#define SRT_KEY_PATHS(k, off, fl, chk) \
	{ .key = (k), .kind = SRT_RULE_PATHS, .flags = (fl), .offset = (off), .check = (chk) }
#define SRT_KEY_NODE(k, fl, f) { .key = (k), .kind = SRT_RULE_NODE, .flags = (fl), .fn = (f) }
#define SRT_KEY_END { .key = NULL }

/* Apply rules (terminated by SRT_KEY_END) to obj in table order, storing
 * into base; stops at the first error. */
int srt__check_rules(struct srt__check *c, const struct srt__snode *obj,
		     const struct srt__rule *rules, void *base);
/* srt__check_members(c, obj, known, strict), then srt__check_rules(). */
int srt__check_object(struct srt__check *c, const struct srt__snode *obj,
		      const char *const *known, bool strict, const struct srt__rule *rules,
		      void *base);

#endif
