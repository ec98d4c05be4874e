/* Settings: JSON text (cJSON) -> document tree -> validated struct
 * srt__settings, following anchor-inventory §1.4 and §2.
 *
 * JSON and YAML (settings_yaml.c) both produce a struct srt__snode tree and
 * share the validator below, so a file means the same thing and fails with
 * the same key path in either spelling. Every error names the key path
 * ("network.allowedDomains[2]") and quotes the offending value. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cjson/cJSON.h>

#include "settings.h"
#include "common/domain.h"

/* ---------------------------------------------------------------- tree */

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

static const struct srt__snode *member(const struct srt__snode *obj, const char *key)
{
	const struct srt__snode *m;

	for (m = obj->child; m; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

/* ------------------------------------------------------ init / release */

void srt__settings_init(struct srt__settings *s)
{
	memset(s, 0, sizeof(*s));
	s->mandatory_deny_search_depth = 3;
	s->tls_max_tunnels = 256;
	s->tls_handshake_timeout_ms = 10000;
}

static void path_entries_release(struct srt__path_entries *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static void credential_release(struct srt__credential *cr)
{
	free(cr->path);
	free(cr->name);
	free(cr->extract);
	free(cr->on_extract_no_match);
	srt__strv_release(&cr->mask_claims);
	srt__strv_release(&cr->inject_hosts);
}

void srt__settings_release(struct srt__settings *s)
{
	size_t i;

	if (!s)
		return;
	srt__strv_release(&s->allowed_domains);
	srt__strv_release(&s->denied_domains);
	for (i = 0; i < s->n_denied_domain_reasons; i++) {
		free(s->denied_domain_reasons[i].key);
		free(s->denied_domain_reasons[i].value);
	}
	free(s->denied_domain_reasons);
	srt__strv_release(&s->denied_resolved_addresses);
	srt__strv_release(&s->allow_unix_sockets);
	srt__strv_release(&s->allow_mach_lookup);
	free(s->mitm_socket_path);
	srt__strv_release(&s->mitm_domains);
	free(s->parent_http);
	free(s->parent_https);
	free(s->parent_no_proxy);
	srt__strv_release(&s->strip_response_headers);
	free(s->ambiguous_request_target);
	free(s->tls_ca_cert_path);
	free(s->tls_ca_key_path);
	srt__strv_release(&s->tls_exclude_domains);
	srt__strv_release(&s->tls_extra_ca_cert_paths);
	path_entries_release(&s->deny_read);
	path_entries_release(&s->allow_read);
	path_entries_release(&s->allow_write);
	path_entries_release(&s->deny_write);
	for (i = 0; i < s->n_ignore_violations; i++) {
		free(s->ignore_violations[i].command_pattern);
		srt__strv_release(&s->ignore_violations[i].lines);
	}
	free(s->ignore_violations);
	free(s->bwrap_path);
	srt__strv_release(&s->git_safe_directories);
	srt__strv_release(&s->ignored_keys);
	srt__strv_release(&s->warnings);
	for (i = 0; i < s->n_filters; i++) {
		free(s->filters[i].plugin);
		free(s->filters[i].config_json);
	}
	free(s->filters);
	for (i = 0; i < s->n_cred_files; i++)
		credential_release(&s->cred_files[i]);
	free(s->cred_files);
	for (i = 0; i < s->n_cred_env_vars; i++)
		credential_release(&s->cred_env_vars[i]);
	free(s->cred_env_vars);
	for (i = 0; i < s->n_aws_pairs; i++) {
		free(s->aws_pairs[i].access_key_id_var);
		free(s->aws_pairs[i].secret_access_key_var);
		free(s->aws_pairs[i].session_token_var);
	}
	free(s->aws_pairs);
	free(s->sigv4_streaming);
	free(s->sigv4_presigned);
	free(s->sigv4_sigv4a);
	srt__settings_init(s);
}

/* ------------------------------------------------- validation context */

struct vctx {
	struct srt__settings *s;
	const char *origin;
	struct srt_diag *diag;
	char path[1024];
	size_t plen;
	char qbuf[3][192];
	unsigned int qi;
	bool fs_enforced;
	size_t unknown_seen; /* unknown keys warned about or suppressed */
};

/* Unknown-key warnings listed before the rest are only counted: a hostile
 * file with a million keys must not become a million warning lines. */
#define MAX_UNKNOWN_WARNINGS 50

/* Quote a value for a message: JSON-style escapes, bounded length. */
static const char *quote(struct vctx *c, const char *v)
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

static void path_append(struct vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void path_append(struct vctx *c, const char *fmt, ...)
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
static size_t path_key(struct vctx *c, const char *key)
{
	size_t old = c->plen;

	if (is_identifier(key))
		path_append(c, "%s%s", c->plen ? "." : "", key);
	else
		path_append(c, "[%s]", quote(c, key));
	return old;
}

static size_t path_index(struct vctx *c, size_t i)
{
	size_t old = c->plen;

	path_append(c, "[%zu]", i);
	return old;
}

static void path_pop(struct vctx *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

static const char *path_str(const struct vctx *c)
{
	return c->plen ? c->path : "(root)";
}

static int fail(struct vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct vctx *c, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return srt_diag_set(c->diag, SRT_E_SETTINGS, path_str(c), "%s: %s: %s",
			    c->origin, path_str(c), msg);
}

static int nomem(struct vctx *c)
{
	return srt_diag_set(c->diag, SRT_E_NOMEM, path_str(c), "%s: %s: out of memory",
			    c->origin, path_str(c));
}

static int warn(struct vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct vctx *c, const char *fmt, ...)
{
	char msg[900], line[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s: %s", c->origin, msg);
	if (srt__strv_push(&c->s->warnings, line) != SRT_OK)
		return nomem(c);
	return SRT_OK;
}

/* Shortest "%g" spelling that reads back as the same double. */
static void fmt_num(char *out, size_t cap, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

static const char *describe(struct vctx *c, const struct srt__snode *n)
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
		fmt_num(num, sizeof(num), n->number);
		snprintf(q, sizeof(c->qbuf[0]), "number %s", num);
		return q;
	case SRT_SNODE_STRING:
		q = c->qbuf[c->qi++ % 3];
		/* quote() fills another slot; copy after the prefix. */
		{
			const char *qq = quote(c, n->string);
			snprintf(q, sizeof(c->qbuf[0]), "string %s", qq);
		}
		return q;
	}
	return "?";
}

static int type_error(struct vctx *c, const struct srt__snode *n, const char *expected)
{
	return fail(c, "expected %s, got %s", expected, describe(c, n));
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

/* Check obj is an object and deal with keys that are not in `known`:
 * strict objects refuse them (as the reference's .strict()), the others
 * get a warning naming the key, since a typo such as "allowWrites" would
 * otherwise silently drop a rule. */
static int check_members(struct vctx *c, const struct srt__snode *obj,
			 const char *const *known, bool strict)
{
	const struct srt__snode *m;
	char list[600];
	size_t o = 0;
	int rc;

	if (obj->type != SRT_SNODE_OBJECT)
		return type_error(c, obj, "an object");
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
			size_t old = path_key(c, m->key);
			char sugg[128] = "";

			if (best)
				snprintf(sugg, sizeof(sugg), " (did you mean \"%s\"?)", best);
			/* A path with a quoted segment is printed as is. */
			rc = warn(c, "unknown key %s ignored%s",
				  strchr(path_str(c), '"') ? path_str(c) : quote(c, path_str(c)), sugg);
			path_pop(c, old);
			if (rc)
				return rc;
		}
	}
	if (o)
		return fail(c, "Unrecognized key(s) in object: %s", list);
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

static int check_duplicates(struct vctx *c, const struct srt__snode *n)
{
	const struct srt__snode *m, **v = NULL;
	size_t i, k, old;
	int rc = SRT_OK;

	if (n->type != SRT_SNODE_OBJECT && n->type != SRT_SNODE_ARRAY)
		return SRT_OK;
	if (n->type == SRT_SNODE_OBJECT && n->n_children > 1) {
		v = malloc(n->n_children * sizeof(*v));
		if (!v)
			return nomem(c);
		for (i = 0, m = n->child; m; m = m->next)
			v[i++] = m;
		qsort(v, n->n_children, sizeof(*v), cmp_keyp);
		for (i = 1; i < n->n_children; i++) {
			if (strcmp(v[i - 1]->key, v[i]->key) == 0) {
				old = path_key(c, v[i]->key);
				rc = fail(c, "duplicate key %s: each key may appear only once in an object",
					  quote(c, v[i]->key));
				path_pop(c, old);
				goto out;
			}
		}
	}
	for (k = 0, m = n->child; m; m = m->next, k++) {
		old = n->type == SRT_SNODE_OBJECT ? path_key(c, m->key) : path_index(c, k);
		rc = check_duplicates(c, m);
		path_pop(c, old);
		if (rc)
			goto out;
	}
out:
	free(v);
	return rc;
}

/* ----------------------------------------------------- value helpers */

static int get_bool(struct vctx *c, const struct srt__snode *n, bool *out)
{
	if (n->type != SRT_SNODE_BOOL)
		return type_error(c, n, "a boolean");
	*out = n->boolean;
	return SRT_OK;
}

static int get_int(struct vctx *c, const struct srt__snode *n, long lo, long hi, int *out)
{
	char num[40];

	if (n->type != SRT_SNODE_NUMBER)
		return type_error(c, n, "an integer");
	fmt_num(num, sizeof(num), n->number);
	if (!isfinite(n->number) || floor(n->number) != n->number)
		return fail(c, "expected an integer, got number %s", num);
	if (n->number < (double)lo)
		return fail(c, "%s is out of range: Number must be greater than or equal to %ld",
			    num, lo);
	if (n->number > (double)hi)
		return fail(c, "%s is out of range: Number must be less than or equal to %ld",
			    num, hi);
	*out = (int)n->number;
	return SRT_OK;
}

/* A string; `empty_msg` (NULL: allowed) is the reference's text for "". */
static int get_string(struct vctx *c, const struct srt__snode *n, const char *empty_msg,
		      char **out)
{
	char *dup;

	if (n->type != SRT_SNODE_STRING)
		return type_error(c, n, "a string");
	if (empty_msg && !*n->string)
		return fail(c, "\"\" is empty: %s", empty_msg);
	dup = strdup(n->string);
	if (!dup)
		return nomem(c);
	free(*out);
	*out = dup;
	return SRT_OK;
}

static int get_enum(struct vctx *c, const struct srt__snode *n, const char *const *allowed,
		    char **out)
{
	char list[256];
	size_t o = 0, i;
	int rc;

	if (n->type != SRT_SNODE_STRING)
		return type_error(c, n, "a string");
	for (i = 0; allowed[i]; i++) {
		if (strcmp(allowed[i], n->string) == 0) {
			rc = get_string(c, n, NULL, out);
			return rc;
		}
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s\"%s\"", i ? ", " : "",
				      allowed[i]);
		if (o >= sizeof(list))
			o = sizeof(list) - 1;
	}
	return fail(c, "%s is not allowed: expected one of %s", quote(c, n->string), list);
}

typedef int (*str_check_fn)(struct vctx *c, const char *v);

/* An array of strings, each checked by `check` (may be NULL). */
static int get_strv(struct vctx *c, const struct srt__snode *n, const char *empty_msg,
		    str_check_fn check, struct srt__strv *out)
{
	const struct srt__snode *e;
	size_t i, old;
	int rc;

	if (n->type != SRT_SNODE_ARRAY)
		return type_error(c, n, "an array of strings");
	srt__strv_release(out);
	for (i = 0, e = n->child; e; e = e->next, i++) {
		old = path_index(c, i);
		if (e->type != SRT_SNODE_STRING)
			rc = type_error(c, e, "a string");
		else if (empty_msg && !*e->string)
			rc = fail(c, "\"\" is empty: %s", empty_msg);
		else if (check && (rc = check(c, e->string)) != SRT_OK)
			;
		else if (srt__strv_push(out, e->string) != SRT_OK)
			rc = nomem(c);
		else
			rc = SRT_OK;
		path_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

/* Keyed helpers: look `key` up in obj, push it on the key path, convert.
 * Absent optional keys leave the default; absent required keys fail. */
static const struct srt__snode *enter(struct vctx *c, const struct srt__snode *obj,
				      const char *key, size_t *old)
{
	const struct srt__snode *m = member(obj, key);

	*old = path_key(c, key);
	return m;
}

static int missing(struct vctx *c, const char *what)
{
	return fail(c, "required key is missing (expected %s)", what);
}

static int opt_bool(struct vctx *c, const struct srt__snode *obj, const char *key, bool *out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc = m ? get_bool(c, m, out) : SRT_OK;

	path_pop(c, old);
	return rc;
}

static int opt_int(struct vctx *c, const struct srt__snode *obj, const char *key, long lo,
		   long hi, int *out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc = m ? get_int(c, m, lo, hi, out) : SRT_OK;

	path_pop(c, old);
	return rc;
}

static int opt_string(struct vctx *c, const struct srt__snode *obj, const char *key,
		      bool required, const char *empty_msg, char **out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc;

	if (m)
		rc = get_string(c, m, empty_msg, out);
	else
		rc = required ? missing(c, "a string") : SRT_OK;
	path_pop(c, old);
	return rc;
}

static int opt_enum(struct vctx *c, const struct srt__snode *obj, const char *key,
		    const char *const *allowed, char **out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc = m ? get_enum(c, m, allowed, out) : SRT_OK;

	path_pop(c, old);
	return rc;
}

/* *present (may be NULL) says whether the key was there. */
static int opt_strv(struct vctx *c, const struct srt__snode *obj, const char *key,
		    bool required, const char *empty_msg, str_check_fn check,
		    struct srt__strv *out, bool *present)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc;

	if (present)
		*present = m != NULL;
	if (m)
		rc = get_strv(c, m, empty_msg, check, out);
	else
		rc = required ? missing(c, "an array") : SRT_OK;
	path_pop(c, old);
	return rc;
}

/* ------------------------------------------------------ value checks */

static int check_domain(struct vctx *c, const char *v, enum srt__domain_list list)
{
	struct srt_diag d = { 0 };

	if (srt__domain_pattern_check(v, list, &d) != SRT_OK)
		return fail(c, "%s", d.message);
	return SRT_OK;
}

static int check_allowed_domain(struct vctx *c, const char *v)
{
	return check_domain(c, v, SRT_LIST_ALLOWED);
}

static int check_denied_domain(struct vctx *c, const char *v)
{
	return check_domain(c, v, SRT_LIST_DENIED);
}

/* parseAddressRange of §2.8: addr[/prefix], zone dropped, IPv6 bare. */
static bool address_range_valid(const char *v)
{
	char addr[64];
	const char *slash = strchr(v, '/'), *pct;
	size_t alen = slash ? (size_t)(slash - v) : strlen(v), i;
	unsigned char a[16];
	int prefix = -1, max;

	if (slash) {
		size_t plen = strlen(slash + 1);

		if (plen < 1 || plen > 3)
			return false;
		prefix = 0;
		for (i = 0; i < plen; i++) {
			if (slash[1 + i] < '0' || slash[1 + i] > '9')
				return false;
			prefix = prefix * 10 + (slash[1 + i] - '0');
		}
	}
	pct = memchr(v, '%', alen);
	if (pct)
		alen = (size_t)(pct - v);
	if (alen == 0 || alen >= sizeof(addr))
		return false;
	memcpy(addr, v, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, a) == 1) {
		max = 32;
	} else if (inet_pton(AF_INET6, addr, a) == 1) {
		static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

		max = 128;
		/* A mapped range is turned into the IPv4 rule; below /96
		 * it would not be an IPv4 range at all. */
		if (memcmp(a, mapped, sizeof(mapped)) == 0 && prefix >= 0 && prefix < 96)
			return false;
	} else {
		return false;
	}
	return prefix <= max;
}

static int check_address_range(struct vctx *c, const char *v)
{
	if (!address_range_valid(v))
		return fail(c, "%s is not valid: Invalid IP address or CIDR range. Use an IPv4/IPv6 "
			    "literal or CIDR, e.g. \"10.0.0.0/8\", \"192.168.1.10\", \"fc00::/7\" "
			    "(IPv6 unbracketed).", quote(c, v));
	return SRT_OK;
}

static int check_mach_lookup(struct vctx *c, const char *v)
{
	const char *star = strchr(v, '*');

	if (star && star[1] != '\0')
		return fail(c, "%s is not valid: Wildcards are only allowed as a single trailing "
			    "\"*\" (e.g., \"com.example.*\" or \"*\" for all services).", quote(c, v));
	return SRT_OK;
}

static int check_abs_path(struct vctx *c, const char *v)
{
	if (!*v)
		return fail(c, "\"\" is empty: Path cannot be empty");
	if (v[0] != '/')
		return fail(c, "%s is not valid: Binary path must be absolute", quote(c, v));
	return SRT_OK;
}

static bool has_glob_chars(const char *v)
{
	return strpbrk(v, "*?[]") != NULL;
}

/* §2.7: a deny glob ending in "/" can match no path. */
static int check_deny_glob(struct vctx *c, const char *v)
{
	char fixed[160];
	size_t len = strlen(v);

	if (!c->fs_enforced || len == 0 || v[len - 1] != '/' || !has_glob_chars(v))
		return SRT_OK;
	if (!(v[0] == '/' || v[0] == '~'))
		return SRT_OK;
	if (v[0] == '~' && v[1] != '/' && v[1] != '\0')
		return SRT_OK;
	while (len > 1 && v[len - 1] == '/')
		len--;
	snprintf(fixed, sizeof(fixed), "%.*s", (int)(len < 150 ? len : 150), v);
	return fail(c, "Deny glob %s ends in a separator, so as a pattern it can match no path. "
		    "Write %s, which is also read as the path of that name where it exists, or "
		    "add a \"**\" segment to match at any depth.", quote(c, v), quote(c, fixed));
}

#define PATH_ENTRY_MESSAGE "Expected a path, or { \"path\": \"<path>\", \"literal\": true }"

static int get_path_entries(struct vctx *c, const struct srt__snode *n, bool deny,
			    struct srt__path_entries *out)
{
	const struct srt__snode *e, *p, *lit, *m;
	size_t i, old;
	int rc = SRT_OK;

	if (n->type != SRT_SNODE_ARRAY)
		return type_error(c, n, "an array of paths");
	path_entries_release(out);
	if (n->n_children) {
		out->v = calloc(n->n_children, sizeof(*out->v));
		if (!out->v)
			return nomem(c);
	}
	for (i = 0, e = n->child; e; e = e->next, i++) {
		struct srt__path_entry *pe = &out->v[i];

		old = path_index(c, i);
		if (e->type == SRT_SNODE_STRING) {
			if (!*e->string)
				rc = fail(c, "\"\" is empty: Path cannot be empty");
			else if (deny)
				rc = check_deny_glob(c, e->string);
			if (!rc && !(pe->path = strdup(e->string)))
				rc = nomem(c);
		} else if (e->type == SRT_SNODE_OBJECT) {
			/* The literal form is strict, as in the reference. */
			p = member(e, "path");
			lit = member(e, "literal");
			for (m = e->child; m; m = m->next)
				if (strcmp(m->key, "path") && strcmp(m->key, "literal"))
					break;
			if (m)
				rc = fail(c, "%s: unknown key %s in a path object", PATH_ENTRY_MESSAGE,
					  quote(c, m->key));
			else if (!p || p->type != SRT_SNODE_STRING)
				rc = fail(c, "%s: \"path\" must be a string", PATH_ENTRY_MESSAGE);
			else if (!*p->string)
				rc = fail(c, "%s: Path cannot be empty", PATH_ENTRY_MESSAGE);
			else if (!lit || lit->type != SRT_SNODE_BOOL || !lit->boolean)
				rc = fail(c, "%s: \"literal\" must be true, got %s", PATH_ENTRY_MESSAGE,
					  lit ? describe(c, lit) : "nothing");
			else if (!(pe->path = strdup(p->string)))
				rc = nomem(c);
			pe->literal = true;
		} else {
			rc = fail(c, "%s, got %s", PATH_ENTRY_MESSAGE, describe(c, e));
		}
		path_pop(c, old);
		if (rc)
			return rc;
		out->n++;
	}
	return SRT_OK;
}

static int opt_paths(struct vctx *c, const struct srt__snode *obj, const char *key,
		     bool required, bool deny, struct srt__path_entries *out)
{
	size_t old;
	const struct srt__snode *m = enter(c, obj, key, &old);
	int rc;

	if (m)
		rc = get_path_entries(c, m, deny, out);
	else
		rc = required ? missing(c, "an array of paths") : SRT_OK;
	path_pop(c, old);
	return rc;
}

/* -------------------------------------------- JSON re-serialisation */

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
			fmt_num(num, sizeof(num), n->number);
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

/* ---------------------------------------------------------- sections */

static int parse_tls_terminate(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "caCertPath", "caKeyPath", "excludeDomains",
					    "extraCaCertPaths", "maxTunnels",
					    "handshakeTimeoutMs", NULL };
	struct srt__settings *s = c->s;
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	s->has_tls_terminate = true;
	if ((rc = opt_string(c, obj, "caCertPath", false,
			     "String must contain at least 1 character(s)", &s->tls_ca_cert_path)) ||
	    (rc = opt_string(c, obj, "caKeyPath", false,
			     "String must contain at least 1 character(s)", &s->tls_ca_key_path)) ||
	    (rc = opt_strv(c, obj, "excludeDomains", false, NULL, check_allowed_domain,
			   &s->tls_exclude_domains, NULL)) ||
	    (rc = opt_strv(c, obj, "extraCaCertPaths", false, NULL, NULL,
			   &s->tls_extra_ca_cert_paths, NULL)) ||
	    (rc = opt_int(c, obj, "maxTunnels", 1, 65536, &s->tls_max_tunnels)) ||
	    (rc = opt_int(c, obj, "handshakeTimeoutMs", 100, 600000,
			  &s->tls_handshake_timeout_ms)))
		return rc;
	if (!s->tls_ca_cert_path != !s->tls_ca_key_path)
		return fail(c, "caCertPath and caKeyPath must be provided together (only %s is set)",
			    s->tls_ca_cert_path ? "caCertPath" : "caKeyPath");
	return SRT_OK;
}

/* A proxy URL: http:// or https:// with an authority, or schemeless
 * host:port (which the parent proxy code reads as http://). */
static int check_proxy_url(struct vctx *c, const char *v)
{
	const char *rest = v, *p;

	if (strncasecmp(v, "http://", 7) == 0)
		rest = v + 7;
	else if (strncasecmp(v, "https://", 8) == 0)
		rest = v + 8;
	else if (strstr(v, "://") || !strchr(v, ':'))
		return fail(c, "%s is not valid: Invalid url (expected \"http://host:port\", "
			    "\"https://host:port\" or \"host:port\")", quote(c, v));
	if (!*rest || *rest == '/' || *rest == '?' || *rest == '#')
		return fail(c, "%s is not valid: Invalid url (it names no host)", quote(c, v));
	for (p = v; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return fail(c, "%s is not valid: Invalid url (it contains a space or a "
				    "control character)", quote(c, v));
	return SRT_OK;
}

static int parse_parent_proxy(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "http", "https", "noProxy", NULL };
	struct srt__settings *s = c->s;
	size_t old;
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	s->has_parent_proxy = true;
	if ((rc = opt_string(c, obj, "http", false, NULL, &s->parent_http)) ||
	    (rc = opt_string(c, obj, "https", false, NULL, &s->parent_https)) ||
	    (rc = opt_string(c, obj, "noProxy", false, NULL, &s->parent_no_proxy)))
		return rc;
	if (s->parent_http) {
		old = path_key(c, "http");
		rc = check_proxy_url(c, s->parent_http);
		path_pop(c, old);
		if (rc)
			return rc;
	}
	if (s->parent_https) {
		old = path_key(c, "https");
		rc = check_proxy_url(c, s->parent_https);
		path_pop(c, old);
	}
	return rc;
}

static int parse_mitm_proxy(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "socketPath", "domains", NULL };
	struct srt__settings *s = c->s;
	size_t old;
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	s->has_mitm_proxy = true;
	if ((rc = opt_string(c, obj, "socketPath", true,
			     "String must contain at least 1 character(s)", &s->mitm_socket_path)) ||
	    (rc = opt_strv(c, obj, "domains", true, NULL, check_allowed_domain,
			   &s->mitm_domains, NULL)))
		return rc;
	if (s->mitm_domains.n == 0) {
		old = path_key(c, "domains");
		rc = fail(c, "[] is empty: Array must contain at least 1 element(s)");
		path_pop(c, old);
	}
	return rc;
}

static int parse_filters(struct vctx *c, const struct srt__snode *arr)
{
	static const char *const keys[] = { "plugin", "config", NULL };
	struct srt__settings *s = c->s;
	const struct srt__snode *e, *cfg;
	size_t i, old;
	int rc = SRT_OK;

	if (arr->type != SRT_SNODE_ARRAY)
		return type_error(c, arr, "an array of { \"plugin\": ..., \"config\": ... } objects");
	s->has_filters = true;
	if (arr->n_children) {
		s->filters = calloc(arr->n_children, sizeof(*s->filters));
		if (!s->filters)
			return nomem(c);
	}
	for (i = 0, e = arr->child; e; e = e->next, i++) {
		struct srt__filter_spec *f = &s->filters[i];

		old = path_index(c, i);
		s->n_filters++;
		if (!(rc = check_members(c, e, keys, false)) &&
		    !(rc = opt_string(c, e, "plugin", true,
				      "String must contain at least 1 character(s)", &f->plugin)) &&
		    (cfg = member(e, "config"))) {
			struct buf b = { 0 };

			to_json(&b, cfg);
			if (b.oom) {
				free(b.p);
				rc = nomem(c);
			} else {
				f->config_json = b.p;
			}
		}
		path_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int parse_denied_domain_reasons(struct vctx *c, const struct srt__snode *obj)
{
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old, i;
	int rc = SRT_OK;

	if (obj->type != SRT_SNODE_OBJECT)
		return type_error(c, obj, "an object mapping deniedDomains entries to reasons");
	if (obj->n_children) {
		s->denied_domain_reasons = calloc(obj->n_children, sizeof(*s->denied_domain_reasons));
		if (!s->denied_domain_reasons)
			return nomem(c);
	}
	for (m = obj->child; m; m = m->next) {
		struct srt__kv *kv = &s->denied_domain_reasons[s->n_denied_domain_reasons];
		bool found = false;

		old = path_key(c, m->key);
		rc = get_string(c, m, "String must contain at least 1 character(s)", &kv->value);
		if (!rc && !(kv->key = strdup(m->key)))
			rc = nomem(c);
		if (!rc) {
			s->n_denied_domain_reasons++;
			/* Keyed by the exact deny entry: a reason for a
			 * spelling that is not on the list is never shown. */
			for (i = 0; i < s->denied_domains.n; i++)
				if (strcmp(s->denied_domains.v[i], m->key) == 0)
					found = true;
			if (!found)
				rc = warn(c, "%s: the key %s is not a network.deniedDomains entry, so "
					  "this reason is never used", path_str(c), quote(c, m->key));
		} else {
			free(kv->value);
			kv->value = NULL;
		}
		path_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int parse_network(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = {
		"allowedDomains", "deniedDomains", "deniedDomainReasons", "strictAllowlist",
		"deniedResolvedAddresses", "allowUnixSockets", "allowAllUnixSockets",
		"allowLocalBinding", "allowMachLookup", "httpProxyPort", "socksProxyPort",
		"mitmProxy", "filterRequest", "allowPlaintextHeaderSet", "stripResponseHeaders",
		"refuseOpaqueTunnels", "requireHostMatch", "ambiguousRequestTarget",
		"tlsTerminate", "parentProxy", "filters", NULL
	};
	static const char *const ambiguous[] = { "refuse", "asSpelled", "normalize", NULL };
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old;
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	if ((rc = opt_strv(c, obj, "allowedDomains", true, NULL, check_allowed_domain,
			   &s->allowed_domains, NULL)) ||
	    (rc = opt_strv(c, obj, "deniedDomains", true, NULL, check_denied_domain,
			   &s->denied_domains, NULL)))
		return rc;
	if ((m = enter(c, obj, "deniedDomainReasons", &old)))
		rc = parse_denied_domain_reasons(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((rc = opt_bool(c, obj, "strictAllowlist", &s->strict_allowlist)) ||
	    (rc = opt_strv(c, obj, "deniedResolvedAddresses", false, NULL, check_address_range,
			   &s->denied_resolved_addresses, NULL)) ||
	    (rc = opt_strv(c, obj, "allowUnixSockets", false, NULL, NULL,
			   &s->allow_unix_sockets, NULL)) ||
	    (rc = opt_bool(c, obj, "allowAllUnixSockets", &s->allow_all_unix_sockets)) ||
	    (rc = opt_bool(c, obj, "allowLocalBinding", &s->allow_local_binding)) ||
	    (rc = opt_strv(c, obj, "allowMachLookup", false, NULL, check_mach_lookup,
			   &s->allow_mach_lookup, NULL)) ||
	    (rc = opt_int(c, obj, "httpProxyPort", 1, 65535, &s->http_proxy_port)) ||
	    (rc = opt_int(c, obj, "socksProxyPort", 1, 65535, &s->socks_proxy_port)) ||
	    (rc = opt_bool(c, obj, "allowPlaintextHeaderSet", &s->allow_plaintext_header_set)) ||
	    (rc = opt_strv(c, obj, "stripResponseHeaders", false,
			   "String must contain at least 1 character(s)", NULL,
			   &s->strip_response_headers, NULL)) ||
	    (rc = opt_bool(c, obj, "refuseOpaqueTunnels", &s->refuse_opaque_tunnels)) ||
	    (rc = opt_bool(c, obj, "requireHostMatch", &s->require_host_match)) ||
	    (rc = opt_enum(c, obj, "ambiguousRequestTarget", ambiguous,
			   &s->ambiguous_request_target)))
		return rc;
	if ((m = enter(c, obj, "filterRequest", &old)))
		rc = fail(c, "filterRequest must be a function: it can only be set through the "
			  "library API (use network.filters for request-filter plugins)");
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "mitmProxy", &old)))
		rc = parse_mitm_proxy(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "tlsTerminate", &old)))
		rc = parse_tls_terminate(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "parentProxy", &old)))
		rc = parse_parent_proxy(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "filters", &old)))
		rc = parse_filters(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	/* The reference throws this at initialize(); refusing the file
	 * up front gives the same outcome with the key named. */
	if (s->has_tls_terminate && s->has_mitm_proxy)
		return fail(c, "network.tlsTerminate and network.mitmProxy are mutually exclusive");
	return SRT_OK;
}

static int parse_filesystem(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "disabled", "denyRead", "allowRead", "allowWrite",
					    "denyWrite", "allowGitConfig", NULL };
	struct srt__settings *s = c->s;
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	if ((rc = opt_bool(c, obj, "disabled", &s->fs_disabled)))
		return rc;
	c->fs_enforced = !s->fs_disabled;
	if ((rc = opt_paths(c, obj, "denyRead", true, true, &s->deny_read)) ||
	    (rc = opt_paths(c, obj, "allowRead", false, false, &s->allow_read)) ||
	    (rc = opt_paths(c, obj, "allowWrite", true, false, &s->allow_write)) ||
	    (rc = opt_paths(c, obj, "denyWrite", true, true, &s->deny_write)) ||
	    (rc = opt_bool(c, obj, "allowGitConfig", &s->allow_git_config)))
		return rc;
	return SRT_OK;
}

/* ------------------------------------------------------- credentials */

static int check_env_name(struct vctx *c, const char *v)
{
	size_t i;
	bool ok = *v && !(v[0] >= '0' && v[0] <= '9');

	for (i = 0; ok && v[i]; i++) {
		char ch = v[i];

		ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		     (ch >= '0' && ch <= '9') || ch == '_';
	}
	if (!ok)
		return fail(c, "%s is not valid: Environment variable name must start with a letter "
			    "or underscore and contain only letters, digits, and underscores",
			    quote(c, v));
	return SRT_OK;
}

/* glibc's regcomp copies a subexpression once per repetition bound and
 * twice for "+", so nested or stacked repetitions multiply:
 * "((b{1,255}){1,255}){1,255}" or "(a+++...+)" with 40 '+' take tens of
 * GiB and minutes. Estimate the expanded size (atoms times the copies of
 * every repetition around them) and refuse a pattern past a small budget. */
#define EXTRACT_MAX_LEN 1024
#define EXTRACT_MAX_EXPANSION 20000

static bool extract_too_complex(const char *v)
{
	unsigned long long group[33], last = 0, b;
	size_t depth = 0, i, n = strlen(v);

	if (n > EXTRACT_MAX_LEN)
		return true;
	group[0] = 0;
	for (i = 0; i < n; i++) {
		switch (v[i]) {
		case '\\':
			if (i + 1 < n)
				i++;
			last = 1;
			group[depth] += 1;
			break;
		case '[':
			/* a bracket expression is one atom: skip "[^]...]" and
			 * "[:class:]" inside it */
			i++;
			if (i < n && v[i] == '^')
				i++;
			if (i < n && v[i] == ']')
				i++;
			while (i < n && v[i] != ']') {
				if (v[i] == '[' && i + 1 < n &&
				    (v[i + 1] == ':' || v[i + 1] == '.' || v[i + 1] == '=')) {
					const char *e = strchr(v + i + 2, v[i + 1]);
					if (!e || e[1] != ']')
						return false; /* regcomp reports it */
					i = (size_t)(e - v) + 2;
					continue;
				}
				i++;
			}
			last = 1;
			group[depth] += 1;
			break;
		case '(':
			if (depth + 1 >= sizeof(group) / sizeof(group[0]))
				return true;
			group[++depth] = 0;
			break;
		case ')':
			if (depth == 0)
				return false; /* regcomp reports it */
			last = group[depth] ? group[depth] : 1;
			depth--;
			group[depth] += last;
			break;
		case '+':
			/* "x+" is compiled as "xx*": the atom twice */
			group[depth] += last;
			last *= 2;
			break;
		case '{':
			b = 0;
			for (i++; i < n && v[i] != '}'; i++)
				if (v[i] >= '0' && v[i] <= '9') {
					unsigned long long x = 0;
					while (i < n && v[i] >= '0' && v[i] <= '9' && x < 100000)
						x = x * 10 + (unsigned long long)(v[i++] - '0');
					i--;
					if (x > b)
						b = x;
				} else if (v[i] == ',' && i + 1 < n && v[i + 1] == '}') {
					b++; /* "{m,}": m copies and a star */
				}
			/* the atom now counts b times instead of once */
			if (b > 1) {
				group[depth] += last * (b - 1);
				last *= b;
			}
			break;
		default:
			last = 1;
			group[depth] += 1;
			break;
		}
		if (group[depth] > EXTRACT_MAX_EXPANSION || last > EXTRACT_MAX_EXPANSION)
			return true;
	}
	return false;
}

static int check_extract(struct vctx *c, const char *v)
{
	regex_t re;
	char err[200];
	int r;

	if (extract_too_complex(v))
		return fail(c, "%s: extract is too complex (nested or large repetition "
			    "counts); simplify the regular expression", quote(c, v));
	r = regcomp(&re, v, REG_EXTENDED);
	if (r != 0) {
		regerror(r, &re, err, sizeof(err));
		return fail(c, "%s: extract is not a valid regular expression: %s", quote(c, v), err);
	}
	r = re.re_nsub >= 1;
	regfree(&re);
	if (!r)
		return fail(c, "%s: extract must contain at least one capturing group \xe2\x80\x94 "
			    "group 1 is the credential value to mask (e.g. \"token:\\s*(\\S+)\").",
			    quote(c, v));
	return SRT_OK;
}

static int parse_credential(struct vctx *c, const struct srt__snode *obj, bool is_file,
			    struct srt__credential *cr)
{
	static const char *const file_keys[] = { "path", "mode", "extract", "onExtractNoMatch",
						 "decode", "maskClaims", "maskDuplicates",
						 "injectHosts", NULL };
	static const char *const env_keys[] = { "name", "mode", "extract", "onExtractNoMatch",
						"decode", "maskClaims", "injectHosts", NULL };
	static const char *const modes[] = { "deny", "mask", NULL };
	static const char *const no_match[] = { "warn", "deny", "error", NULL };
	static const char *const decodes[] = { "jwt", NULL };
	char *mode = NULL, *decode = NULL;
	size_t old;
	int rc;

	if ((rc = check_members(c, obj, is_file ? file_keys : env_keys, false)))
		goto out;
	if (is_file)
		rc = opt_string(c, obj, "path", true, "Path cannot be empty", &cr->path);
	else
		rc = opt_string(c, obj, "name", true, NULL, &cr->name);
	if (rc)
		goto out;
	if (!is_file) {
		old = path_key(c, "name");
		rc = check_env_name(c, cr->name);
		path_pop(c, old);
		if (rc)
			goto out;
	}
	if (!member(obj, "mode")) {
		old = path_key(c, "mode");
		rc = missing(c, "\"deny\" or \"mask\"");
		path_pop(c, old);
		goto out;
	}
	if ((rc = opt_enum(c, obj, "mode", modes, &mode)))
		goto out;
	cr->mask = strcmp(mode, "mask") == 0;
	if ((rc = opt_string(c, obj, "extract", false, NULL, &cr->extract)))
		goto out;
	if (cr->extract) {
		old = path_key(c, "extract");
		rc = check_extract(c, cr->extract);
		path_pop(c, old);
		if (rc)
			goto out;
	}
	if ((rc = opt_enum(c, obj, "onExtractNoMatch", no_match, &cr->on_extract_no_match)) ||
	    (rc = opt_enum(c, obj, "decode", decodes, &decode)) ||
	    (rc = opt_strv(c, obj, "maskClaims", false,
			   "String must contain at least 1 character(s)", NULL, &cr->mask_claims,
			   &cr->has_mask_claims)) ||
	    (is_file && (rc = opt_bool(c, obj, "maskDuplicates", &cr->mask_duplicates))) ||
	    (rc = opt_strv(c, obj, "injectHosts", false, NULL, check_allowed_domain,
			   &cr->inject_hosts, &cr->has_inject_hosts)))
		goto out;
	cr->decode_jwt = decode != NULL;
out:
	free(mode);
	free(decode);
	return rc;
}

/* Does `list` cover host pattern h (ports ignored)? A wildcard is covered
 * only by a wildcard of the same or an ancestor base. */
static bool pattern_covered(const char *h, const struct srt__strv *list)
{
	char hh[256], pp[256];
	size_t i, bl;
	int port;

	if (srt__domain_split_port(h, hh, sizeof(hh), &port) != SRT_OK)
		return false;
	for (i = 0; i < list->n; i++) {
		const char *base;

		if (srt__domain_split_port(list->v[i], pp, sizeof(pp), &port) != SRT_OK)
			continue;
		if (strcmp(pp, "*") == 0)
			return true;
		if (strncmp(pp, "*.", 2) == 0) {
			const char *x = strncmp(hh, "*.", 2) == 0 ? hh + 2 : hh;
			size_t xl = strlen(x);

			base = pp + 2;
			bl = strlen(base);
			if (x != hh && strcasecmp(x, base) == 0)
				return true;
			if (xl > bl + 1 && x[xl - bl - 1] == '.' && strcasecmp(x + xl - bl, base) == 0)
				return true;
		} else if (strncmp(hh, "*.", 2) != 0 && strcasecmp(hh, pp) == 0) {
			return true;
		}
	}
	return false;
}

static int check_credential_rules(struct vctx *c, const struct srt__credential *cr, bool is_file)
{
	struct srt__settings *s = c->s;
	size_t old, j, old2;
	int rc = SRT_OK;

	if (is_file) {
		old = path_key(c, "path");
		if (!cr->mask)
			rc = check_deny_glob(c, cr->path);
		else if (cr->path[strlen(cr->path) - 1] == '/')
			rc = fail(c, "Credential mode \"mask\" applies to a single file, not a directory. "
				  "Use mode \"deny\" for %s, or point at the credential file inside it.",
				  quote(c, cr->path));
		path_pop(c, old);
		if (rc)
			return rc;
	}
	if (cr->has_mask_claims) {
		old = path_key(c, "maskClaims");
		if (!cr->decode_jwt)
			rc = fail(c, "maskClaims requires decode \xe2\x80\x94 it names claims inside the "
				  "decoded payload. Set decode (e.g. \"jwt\"), or remove maskClaims to %s",
				  is_file ? "mask the extracted value whole." : "mask the whole value.");
		else if (cr->mask_claims.n == 0)
			rc = fail(c, "maskClaims is explicitly empty \xe2\x80\x94 no claim would ever be "
				  "masked. Omit maskClaims to mask the whole token, or list the claims "
				  "to protect.");
		path_pop(c, old);
		if (rc)
			return rc;
	}
	if (cr->mask && cr->has_inject_hosts && cr->inject_hosts.n == 0)
		return fail(c, "injectHosts is explicitly empty \xe2\x80\x94 the credential would be "
			    "masked but never injected. Omit injectHosts to default to "
			    "network.allowedDomains, or list the intended hosts.");
	old = path_key(c, "injectHosts");
	for (j = 0; j < cr->inject_hosts.n; j++) {
		const char *h = cr->inject_hosts.v[j];

		old2 = path_index(c, j);
		if (!pattern_covered(h, &s->allowed_domains))
			rc = fail(c, "injectHosts entry %s is not reachable via network.allowedDomains "
				  "\xe2\x80\x94 add %s (or a covering wildcard) to allowedDomains, or "
				  "remove it from injectHosts.", quote(c, h), quote(c, h));
		else if (cr->mask && pattern_covered(h, &s->tls_exclude_domains))
			rc = fail(c, "injectHosts entry %s is entirely covered by "
				  "network.tlsTerminate.excludeDomains. Credential injection only runs "
				  "on TLS-terminated connections, so this host would receive the "
				  "placeholder instead of the credential. Remove it from one of the two "
				  "lists.", quote(c, h));
		path_pop(c, old2);
		if (rc)
			break;
	}
	path_pop(c, old);
	if (rc)
		return rc;
	if (cr->mask && !cr->has_inject_hosts && s->allowed_domains.n > 0 &&
	    s->tls_exclude_domains.n > 0) {
		bool all = true;

		for (j = 0; j < s->allowed_domains.n && all; j++)
			all = pattern_covered(s->allowed_domains.v[j], &s->tls_exclude_domains);
		if (all)
			return fail(c, "This masked credential has no injectHosts, so it defaults to "
				    "network.allowedDomains \xe2\x80\x94 but "
				    "network.tlsTerminate.excludeDomains covers every allowed domain, so "
				    "it could never be injected anywhere. Credential injection only runs "
				    "on TLS-terminated connections.");
	}
	return SRT_OK;
}

static int parse_cred_list(struct vctx *c, const struct srt__snode *arr, bool is_file,
			   struct srt__credential **out, size_t *n_out)
{
	const struct srt__snode *e;
	size_t i, old;
	int rc;

	if (arr->type != SRT_SNODE_ARRAY)
		return type_error(c, arr, "an array of objects");
	if (arr->n_children) {
		*out = calloc(arr->n_children, sizeof(**out));
		if (!*out)
			return nomem(c);
	}
	for (i = 0, e = arr->child; e; e = e->next, i++) {
		old = path_index(c, i);
		(*n_out)++;
		rc = parse_credential(c, e, is_file, &(*out)[i]);
		if (!rc)
			rc = check_credential_rules(c, &(*out)[i], is_file);
		path_pop(c, old);
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static int parse_aws_pairs(struct vctx *c, const struct srt__snode *arr)
{
	static const char *const keys[] = { "accessKeyIdVar", "secretAccessKeyVar",
					    "sessionTokenVar", NULL };
	static const char *const slots[] = { "accessKeyIdVar", "secretAccessKeyVar",
					     "sessionTokenVar" };
	struct srt__settings *s = c->s;
	const struct srt__snode *e;
	struct srt__strv seen = { 0 };
	size_t i, k, j, old, old2;
	int rc = SRT_OK;

	if (arr->type != SRT_SNODE_ARRAY)
		return type_error(c, arr, "an array of objects");
	if (arr->n_children) {
		s->aws_pairs = calloc(arr->n_children, sizeof(*s->aws_pairs));
		if (!s->aws_pairs)
			return nomem(c);
	}
	for (i = 0, e = arr->child; e && !rc; e = e->next, i++) {
		struct srt__aws_pair *p = &s->aws_pairs[i];
		char **vals[3] = { &p->access_key_id_var, &p->secret_access_key_var,
				   &p->session_token_var };

		old = path_index(c, i);
		s->n_aws_pairs++;
		if ((rc = check_members(c, e, keys, true)) ||
		    (rc = opt_string(c, e, "accessKeyIdVar", true, NULL, vals[0])) ||
		    (rc = opt_string(c, e, "secretAccessKeyVar", true, NULL, vals[1])) ||
		    (rc = opt_string(c, e, "sessionTokenVar", false, NULL, vals[2]))) {
			path_pop(c, old);
			break;
		}
		for (k = 0; k < 3 && !rc; k++) {
			const char *v = *vals[k];
			const struct srt__credential *env = NULL;

			if (!v)
				continue;
			old2 = path_key(c, slots[k]);
			for (j = 0; j < seen.n; j++)
				if (strcmp(seen.v[j], v) == 0)
					break;
			for (size_t x = 0; x < s->n_cred_env_vars; x++)
				if (s->cred_env_vars[x].mask && strcmp(s->cred_env_vars[x].name, v) == 0)
					env = &s->cred_env_vars[x];
			if (j < seen.n)
				rc = fail(c, "%s appears in more than one awsPairs slot (within or across "
					  "pairs) \xe2\x80\x94 each variable can fill exactly one slot.",
					  quote(c, v));
			else if (!env)
				rc = fail(c, "%s does not reference a credentials.envVars entry with mode "
					  "\"mask\" \xe2\x80\x94 an AWS pair links already-masked variables; "
					  "add the entry (masking is the opt-in for SigV4 re-signing).",
					  quote(c, v));
			else if (env->extract || env->decode_jwt)
				rc = fail(c, "%s uses extract/decode, but an AWS pair member must be masked "
					  "whole-value: the SigV4 trigger is an exact match of the fake "
					  "access key id, and the signer needs the entire real value.",
					  quote(c, v));
			else if (srt__strv_push(&seen, v) != SRT_OK)
				rc = nomem(c);
			path_pop(c, old2);
		}
		path_pop(c, old);
	}
	srt__strv_release(&seen);
	return rc;
}

static int parse_credentials(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "files", "envVars", "allowPlaintextInject",
					    "awsPairs", "sigv4", NULL };
	static const char *const sigv4_keys[] = { "streaming", "presigned", "sigv4a", NULL };
	static const char *const sigv4_modes[] = { "deny", "passthrough", NULL };
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old, i;
	bool masked = false;
	int rc = SRT_OK;

	if ((rc = check_members(c, obj, keys, true)))
		return rc;
	s->has_credentials = true;
	if ((rc = opt_bool(c, obj, "allowPlaintextInject", &s->cred_allow_plaintext_inject)))
		return rc;
	if ((m = enter(c, obj, "files", &old)))
		rc = parse_cred_list(c, m, true, &s->cred_files, &s->n_cred_files);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "envVars", &old)))
		rc = parse_cred_list(c, m, false, &s->cred_env_vars, &s->n_cred_env_vars);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "awsPairs", &old)))
		rc = parse_aws_pairs(c, m);
	path_pop(c, old);
	if (rc)
		return rc;
	if ((m = enter(c, obj, "sigv4", &old))) {
		if (!(rc = check_members(c, m, sigv4_keys, true)) &&
		    !(rc = opt_enum(c, m, "streaming", sigv4_modes, &s->sigv4_streaming)) &&
		    !(rc = opt_enum(c, m, "presigned", sigv4_modes, &s->sigv4_presigned)))
			rc = opt_enum(c, m, "sigv4a", sigv4_modes, &s->sigv4_sigv4a);
	}
	path_pop(c, old);
	if (rc)
		return rc;
	for (i = 0; i < s->n_cred_files; i++)
		masked |= s->cred_files[i].mask;
	for (i = 0; i < s->n_cred_env_vars; i++)
		masked |= s->cred_env_vars[i].mask;
	if (masked && !s->has_tls_terminate && !s->cred_allow_plaintext_inject)
		return fail(c, "Credential masking requires network.tlsTerminate so substitution runs "
			    "only over a verified TLS connection. Enable tlsTerminate, or set "
			    "credentials.allowPlaintextInject to opt out (not recommended).");
	return SRT_OK;
}

/* ----------------------------------------------------------- the rest */

static int parse_ignore_violations(struct vctx *c, const struct srt__snode *obj)
{
	struct srt__settings *s = c->s;
	const struct srt__snode *m;
	size_t old;
	int rc;

	if (obj->type != SRT_SNODE_OBJECT)
		return type_error(c, obj, "an object mapping command patterns to arrays of strings");
	if (obj->n_children) {
		s->ignore_violations = calloc(obj->n_children, sizeof(*s->ignore_violations));
		if (!s->ignore_violations)
			return nomem(c);
	}
	for (m = obj->child; m; m = m->next) {
		struct srt__ignore_rule *r = &s->ignore_violations[s->n_ignore_violations];

		old = path_key(c, m->key);
		rc = get_strv(c, m, NULL, NULL, &r->lines);
		if (!rc && !(r->command_pattern = strdup(m->key)))
			rc = nomem(c);
		path_pop(c, old);
		s->n_ignore_violations++;
		if (rc)
			return rc;
	}
	return SRT_OK;
}

static bool is_uuid(const char *v)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	size_t g, i;

	for (g = 0; g < 5; g++) {
		for (i = 0; i < (size_t)groups[g]; i++, v++) {
			char ch = *v;

			if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
			      (ch >= 'A' && ch <= 'F')))
				return false;
		}
		if (g < 4 && *v++ != '-')
			return false;
	}
	return *v == '\0';
}

static int check_uuid(struct vctx *c, const struct srt__snode *obj, const char *key)
{
	char *v = NULL;
	size_t old;
	int rc;

	if ((rc = opt_string(c, obj, key, false, NULL, &v)))
		return rc;
	old = path_key(c, key);
	if (v && !is_uuid(v))
		rc = fail(c, "%s is not valid: Invalid uuid", quote(c, v));
	path_pop(c, old);
	free(v);
	return rc;
}

static size_t utf8_chars(const char *v)
{
	size_t n = 0;

	for (; *v; v++)
		if (((unsigned char)*v & 0xc0) != 0x80)
			n++;
	return n;
}

static int parse_windows(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "backend", "sandboxUser", "sublayerGuid",
					    "wfpSublayerGuid", "proxyPortRange", "srtWin", NULL };
	static const char *const backends[] = { "mxc", "srt-win", NULL };
	static const char *const srtwin_keys[] = { "path", NULL };
	const struct srt__snode *m;
	char *tmp = NULL;
	size_t old;
	int lo = 0, hi = 0, rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	c->s->has_windows = true;
	if ((rc = opt_enum(c, obj, "backend", backends, &tmp)))
		goto out;
	free(tmp);
	tmp = NULL;
	if ((rc = opt_string(c, obj, "sandboxUser", false, NULL, &tmp)))
		goto out;
	if (tmp && utf8_chars(tmp) > 20) {
		old = path_key(c, "sandboxUser");
		rc = fail(c, "%s is too long: Windows local usernames are limited to 20 characters",
			  quote(c, tmp));
		path_pop(c, old);
		goto out;
	}
	if ((rc = check_uuid(c, obj, "sublayerGuid")) ||
	    (rc = check_uuid(c, obj, "wfpSublayerGuid")))
		goto out;
	if ((m = enter(c, obj, "proxyPortRange", &old))) {
		if (m->type != SRT_SNODE_ARRAY || m->n_children != 2) {
			rc = type_error(c, m, "an array of two port numbers [low, high]");
		} else {
			size_t o2 = path_index(c, 0);

			rc = get_int(c, m->child, 1, 65535, &lo);
			path_pop(c, o2);
			if (!rc) {
				o2 = path_index(c, 1);
				rc = get_int(c, m->child->next, 1, 65535, &hi);
				path_pop(c, o2);
			}
			if (!rc && !(lo <= hi && hi - lo <= 64))
				rc = fail(c, "[%d, %d] is not valid: low must be \xe2\x89\xa4 high and "
					  "range width \xe2\x89\xa4 64", lo, hi);
		}
	}
	path_pop(c, old);
	if (rc)
		goto out;
	if ((m = enter(c, obj, "srtWin", &old))) {
		free(tmp);
		tmp = NULL;
		if (!(rc = check_members(c, m, srtwin_keys, false)))
			rc = opt_string(c, m, "path", true,
					"String must contain at least 1 character(s)", &tmp);
	}
	path_pop(c, old);
out:
	free(tmp);
	return rc;
}

static int parse_ripgrep(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "command", "args", "argv0", NULL };
	struct srt__strv args = { 0 };
	char *tmp = NULL;
	int rc;

	if (!(rc = check_members(c, obj, keys, false)) &&
	    !(rc = opt_string(c, obj, "command", true, NULL, &tmp)) &&
	    !(rc = opt_strv(c, obj, "args", false, NULL, NULL, &args, NULL)))
		rc = opt_string(c, obj, "argv0", false, NULL, &tmp);
	free(tmp);
	srt__strv_release(&args);
	return rc;
}

static int parse_seccomp(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "applyPath", "argv0", NULL };
	char *tmp = NULL;
	int rc;

	if (!(rc = check_members(c, obj, keys, false)) &&
	    !(rc = opt_string(c, obj, "applyPath", false, NULL, &tmp)))
		rc = opt_string(c, obj, "argv0", false, NULL, &tmp);
	free(tmp);
	return rc;
}

static int parse_git(struct vctx *c, const struct srt__snode *obj)
{
	static const char *const keys[] = { "safeDirectories", NULL };
	int rc;

	if ((rc = check_members(c, obj, keys, false)))
		return rc;
	return opt_strv(c, obj, "safeDirectories", false, NULL, NULL,
			&c->s->git_safe_directories, NULL);
}

/* A binary path key; the compatibility ones are only recorded. */
static int parse_binary_path(struct vctx *c, const struct srt__snode *root, const char *key,
			     char **out)
{
	char *tmp = NULL;
	size_t old;
	int rc;

	if (!member(root, key))
		return SRT_OK;
	if ((rc = opt_string(c, root, key, false, NULL, &tmp)))
		return rc;
	old = path_key(c, key);
	rc = check_abs_path(c, tmp);
	path_pop(c, old);
	if (!rc && out) {
		free(*out);
		*out = tmp;
		tmp = NULL;
	} else if (!rc && srt__strv_push(&c->s->ignored_keys, key) != SRT_OK) {
		rc = nomem(c);
	}
	free(tmp);
	return rc;
}

typedef int (*section_fn)(struct vctx *c, const struct srt__snode *obj);

static int section(struct vctx *c, const struct srt__snode *root, const char *key,
		   bool required, section_fn fn, bool compat)
{
	size_t old;
	const struct srt__snode *m = enter(c, root, key, &old);
	int rc = SRT_OK;

	if (m) {
		rc = fn(c, m);
		if (!rc && compat && srt__strv_push(&c->s->ignored_keys, key) != SRT_OK)
			rc = nomem(c);
	} else if (required) {
		rc = missing(c, "an object");
	}
	path_pop(c, old);
	return rc;
}

static int validate(struct vctx *c, const struct srt__snode *root)
{
	static const char *const keys[] = {
		"network", "filesystem", "credentials", "ignoreViolations",
		"enableWeakerNestedSandbox", "allowNestedUserNamespaces",
		"enableWeakerNetworkIsolation", "allowAppleEvents", "ripgrep",
		"mandatoryDenySearchDepth", "allowPty", "seccomp", "bwrapPath", "socatPath",
		"javaAgentJarPath", "windows", "git", NULL
	};
	struct srt__settings *s = c->s;
	int rc;

	if (!root)
		return fail(c, "expected an object, got an empty document");
	if ((rc = check_duplicates(c, root)))
		return rc;
	if ((rc = check_members(c, root, keys, false)))
		return rc;
	if ((rc = section(c, root, "network", true, parse_network, false)) ||
	    (rc = section(c, root, "filesystem", true, parse_filesystem, false)) ||
	    (rc = section(c, root, "credentials", false, parse_credentials, false)) ||
	    (rc = section(c, root, "ignoreViolations", false, parse_ignore_violations, false)) ||
	    (rc = opt_bool(c, root, "enableWeakerNestedSandbox",
			   &s->enable_weaker_nested_sandbox)) ||
	    (rc = opt_bool(c, root, "allowNestedUserNamespaces",
			   &s->allow_nested_user_namespaces)) ||
	    (rc = opt_bool(c, root, "enableWeakerNetworkIsolation",
			   &s->enable_weaker_network_isolation)) ||
	    (rc = opt_bool(c, root, "allowAppleEvents", &s->allow_apple_events)) ||
	    (rc = section(c, root, "ripgrep", false, parse_ripgrep, true)) ||
	    (rc = opt_int(c, root, "mandatoryDenySearchDepth", 1, 10,
			  &s->mandatory_deny_search_depth)) ||
	    (rc = opt_bool(c, root, "allowPty", &s->allow_pty)) ||
	    (rc = section(c, root, "seccomp", false, parse_seccomp, true)) ||
	    (rc = parse_binary_path(c, root, "bwrapPath", &s->bwrap_path)) ||
	    (rc = parse_binary_path(c, root, "socatPath", NULL)) ||
	    (rc = parse_binary_path(c, root, "javaAgentJarPath", NULL)) ||
	    (rc = section(c, root, "windows", false, parse_windows, false)) ||
	    (rc = section(c, root, "git", false, parse_git, false)))
		return rc;
	if (c->unknown_seen > MAX_UNKNOWN_WARNINGS)
		return warn(c, "%zu more unknown keys ignored (not listed)",
			    c->unknown_seen - MAX_UNKNOWN_WARNINGS);
	return SRT_OK;
}

int srt__settings_from_snode(struct srt__settings *s, const struct srt__snode *root,
			     const char *origin, struct srt_diag *diag)
{
	struct vctx *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c) {
		srt__settings_release(s);
		return srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", origin);
	}
	c->s = s;
	c->origin = origin ? origin : "settings";
	c->diag = diag;
	c->fs_enforced = true;
	rc = validate(c, root);
	if (rc)
		srt__settings_release(s);
	free(c);
	return rc;
}

/* -------------------------------------------------------------- JSON */

static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static int syntax_error(struct srt_diag *diag, const char *origin, const char *text,
			size_t len, size_t off, const char *what)
{
	size_t line, col;
	char near[16];

	line_col(text, off, &line, &col);
	if (off >= len)
		snprintf(near, sizeof(near), "end of input");
	else if ((unsigned char)text[off] >= 0x21 && (unsigned char)text[off] < 0x7f)
		snprintf(near, sizeof(near), "'%c'", text[off]);
	else
		snprintf(near, sizeof(near), "byte 0x%02x", (unsigned char)text[off]);
	return srt_diag_set(diag, SRT_E_SETTINGS, "(root)",
			    "%s is not valid JSON: %s at line %zu, column %zu (at %s)", origin, what,
			    line, col, near);
}

static bool is_json_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Length of a valid UTF-8 sequence at p (0 when invalid): overlongs,
 * surrogates and code points past U+10FFFF are refused. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned int cp;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Checks cJSON does not make, before it runs: JSON's number grammar (cJSON
 * hands any run of "+-.eE0-9" to strtod, accepting "01" and "+1"), raw
 * control characters and "\u0000" in strings (a NUL would silently cut a
 * path short), valid UTF-8, and the nesting bound (cJSON recurses). */
static int json_prescan(const char *t, size_t len, const char *origin, struct srt_diag *diag)
{
	size_t i = 0, depth = 0, n;
	bool in_str = false;

	while (i < len) {
		unsigned char ch = (unsigned char)t[i];

		if (ch >= 0x80) {
			n = utf8_seq((const unsigned char *)t + i, len - i);
			if (!n)
				return syntax_error(diag, origin, t, len, i, "invalid UTF-8");
			i += n;
			continue;
		}
		if (in_str) {
			if (ch == '"') {
				in_str = false;
			} else if (ch < 0x20) {
				return syntax_error(diag, origin, t, len, i,
						    "control character in a string");
			} else if (ch == '\\') {
				if (i + 5 < len && t[i + 1] == 'u' && memcmp(t + i + 2, "0000", 4) == 0)
					return syntax_error(diag, origin, t, len, i,
							    "\"\\u0000\" (NUL) in a string");
				i += 2;
				continue;
			}
			i++;
			continue;
		}
		if (ch == '"') {
			in_str = true;
		} else if (ch == '{' || ch == '[') {
			if (++depth > SRT_SETTINGS_MAX_DEPTH) {
				char what[64];

				snprintf(what, sizeof(what), "nested deeper than %d levels",
					 SRT_SETTINGS_MAX_DEPTH);
				return syntax_error(diag, origin, t, len, i, what);
			}
		} else if (ch == '}' || ch == ']') {
			if (depth)
				depth--;
		} else if (ch == '-' || (ch >= '0' && ch <= '9') || ch == '+' || ch == '.') {
			size_t j = i;

			if (t[j] == '-')
				j++;
			if (j < len && t[j] == '0')
				j++;
			else if (j < len && t[j] >= '1' && t[j] <= '9')
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			else
				return syntax_error(diag, origin, t, len, j, "invalid number");
			if (j < len && t[j] == '.') {
				j++;
				if (j >= len || t[j] < '0' || t[j] > '9')
					return syntax_error(diag, origin, t, len, j, "invalid number");
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			}
			if (j < len && (t[j] == 'e' || t[j] == 'E')) {
				j++;
				if (j < len && (t[j] == '+' || t[j] == '-'))
					j++;
				if (j >= len || t[j] < '0' || t[j] > '9')
					return syntax_error(diag, origin, t, len, j, "invalid number");
				while (j < len && t[j] >= '0' && t[j] <= '9')
					j++;
			}
			if (j < len && strchr("+-.eE0123456789", t[j]))
				return syntax_error(diag, origin, t, len, j, "invalid number");
			i = j;
			continue;
		}
		i++;
	}
	return SRT_OK;
}

static int from_cjson(const cJSON *j, struct srt__snode **out)
{
	struct srt__snode *n = NULL, *ch;
	const cJSON *e;

	if (cJSON_IsNull(j))
		n = srt__snode_new(SRT_SNODE_NULL);
	else if (cJSON_IsBool(j)) {
		n = srt__snode_new(SRT_SNODE_BOOL);
		if (n)
			n->boolean = cJSON_IsTrue(j);
	} else if (cJSON_IsNumber(j)) {
		n = srt__snode_new(SRT_SNODE_NUMBER);
		if (n)
			n->number = j->valuedouble;
	} else if (cJSON_IsString(j)) {
		n = srt__snode_new(SRT_SNODE_STRING);
		if (n && !(n->string = strdup(j->valuestring))) {
			free(n);
			n = NULL;
		}
	} else if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		n = srt__snode_new(cJSON_IsArray(j) ? SRT_SNODE_ARRAY : SRT_SNODE_OBJECT);
		if (!n)
			return SRT_E_NOMEM;
		for (e = j->child; e; e = e->next) {
			if (from_cjson(e, &ch) != SRT_OK) {
				srt__snode_free(n);
				return SRT_E_NOMEM;
			}
			if (n->type == SRT_SNODE_OBJECT && !(ch->key = strdup(e->string))) {
				srt__snode_free(ch);
				srt__snode_free(n);
				return SRT_E_NOMEM;
			}
			srt__snode_append(n, ch);
		}
	} else {
		return SRT_E_INVAL;
	}
	if (!n)
		return SRT_E_NOMEM;
	*out = n;
	return SRT_OK;
}

int srt__settings_parse_json(struct srt__settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag)
{
	struct srt__snode *root = NULL;
	cJSON *j = NULL;
	const char *end = NULL;
	size_t off = 0, i;
	int rc;

	if (!origin)
		origin = "settings";
	if (!s || (!text && len)) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "(root)", "%s: no settings text", origin);
		goto out;
	}
	if (len > SRT_SETTINGS_MAX_BYTES) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)",
				  "%s is too large (%zu bytes; the limit is %u bytes)", origin, len,
				  SRT_SETTINGS_MAX_BYTES);
		goto out;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		off = 3;
	for (i = off; i < len && is_json_ws(text[i]); i++)
		;
	if (i == len) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, "(root)", "%s is empty", origin);
		goto out;
	}
	if (memchr(text, '\0', len)) {
		rc = syntax_error(diag, origin, text, len, (size_t)((const char *)memchr(text, '\0', len) - text),
				  "NUL byte in the text");
		goto out;
	}
	if ((rc = json_prescan(text + off, len - off, origin, diag)) != SRT_OK)
		goto out;
	j = cJSON_ParseWithLengthOpts(text + off, len - off, &end, 0);
	if (!j) {
		size_t pos = end && end >= text + off && end <= text + len ? (size_t)(end - text) : len;

		rc = syntax_error(diag, origin, text, len, pos, "syntax error");
		goto out;
	}
	for (i = (size_t)(end - text); i < len && is_json_ws(text[i]); i++)
		;
	if (i < len) {
		rc = syntax_error(diag, origin, text, len, i, "unexpected text after the JSON value");
		goto out;
	}
	if ((rc = from_cjson(j, &root)) != SRT_OK) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "(root)", "%s: out of memory", origin);
		goto out;
	}
	rc = srt__settings_from_snode(s, root, origin, diag);
	s = NULL;
out:
	if (rc && s)
		srt__settings_release(s);
	cJSON_Delete(j);
	srt__snode_free(root);
	return rc;
}

/* --------------------------------------------------------------- files */

static bool has_yaml_suffix(const char *path)
{
	size_t n = strlen(path);

	return (n >= 5 && strcasecmp(path + n - 5, ".yaml") == 0) ||
	       (n >= 4 && strcasecmp(path + n - 4, ".yml") == 0);
}

static const char *errno_name(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EISDIR: return "EISDIR";
	case ENOENT: return "ENOENT";
	case ENOTDIR: return "ENOTDIR";
	case ELOOP: return "ELOOP";
	case EIO: return "EIO";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ENXIO: return "ENXIO";
	}
	return "error";
}

#define REFUSAL "refusing to run with the built-in defaults, which would drop this file's rules"

int srt__settings_load_file(struct srt__settings *s, const char *path, bool explicit_path,
			   bool *loaded, struct srt_diag *diag)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0, i;
	ssize_t r;
	int fd = -1, rc, e;

	if (loaded)
		*loaded = false;
	if (!s || !path || !*path) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "", "no settings file named");
		goto out;
	}
	/* O_NONBLOCK: a FIFO planted at the path must not hang us; it is
	 * refused below as not a regular file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !explicit_path) {
			rc = SRT_OK;
			goto out;
		}
		if (e == ENOENT)
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" does not exist; refusing to run with the "
					  "built-in defaults, which would drop the rules --settings asked for",
					  path);
		else
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (%s: %s); " REFUSAL,
					  path, errno_name(e), strerror(e));
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" could not be read (%s: %s); " REFUSAL,
				  path, errno_name(e), strerror(e));
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		if (S_ISDIR(st.st_mode))
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (EISDIR: it is a "
					  "directory); " REFUSAL, path);
		else
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (it is not a regular "
					  "file); " REFUSAL, path);
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	if (st.st_size > (off_t)SRT_SETTINGS_MAX_BYTES) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" is too large (%lld bytes; the limit is %u "
				  "bytes)", path, (long long)st.st_size, SRT_SETTINGS_MAX_BYTES);
		goto out;
	}
	/* Read to EOF with a bound rather than trusting st_size: the file
	 * may grow between fstat and read. */
	text = malloc(SRT_SETTINGS_MAX_BYTES + 1);
	if (!text) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, path, "out of memory reading \"%s\"", path);
		goto out;
	}
	for (;;) {
		r = read(fd, text + len, SRT_SETTINGS_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" could not be read (%s: %s); " REFUSAL,
					  path, errno_name(e), strerror(e));
			if (diag)
				diag->saved_errno = e;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > SRT_SETTINGS_MAX_BYTES) {
			rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
					  "settings file \"%s\" is too large (the limit is %u bytes)",
					  path, SRT_SETTINGS_MAX_BYTES);
			goto out;
		}
	}
	for (i = 0; i < len && (is_json_ws(text[i]) || text[i] == '\f' || text[i] == '\v'); i++)
		;
	if (i == len) {
		rc = srt_diag_set(diag, SRT_E_SETTINGS, path,
				  "settings file \"%s\" is empty: delete it, or put settings in it; "
				  REFUSAL, path);
		goto out;
	}
	if (has_yaml_suffix(path))
		rc = srt__settings_parse_yaml(s, text, len, path, diag);
	else
		rc = srt__settings_parse_json(s, text, len, path, diag);
	if (rc == SRT_OK && loaded)
		*loaded = true;
	s = NULL;
out:
	if (rc && s)
		srt__settings_release(s);
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}
