/* The external decider protocol v1 (see decider.h): frames, a strict JSON
 * reader for what the decider sends, the messages the proxy sends, and the
 * link that matches verdicts to requests. Every byte from the decider is
 * hostile: lengths are checked before use, nesting is bounded, and any
 * departure from the protocol kills the link, failing every pending
 * request closed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform.h"
#include "proxies/auth.h"
#include "proxies/decider.h"

#define JSON_DEPTH_MAX 16

/* ---- framing ---------------------------------------------------------- */

long srt__decider_frame(const uint8_t *buf, size_t n)
{
	uint32_t len;

	if (n < 4)
		return 0;
	len = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
	if (len == 0 || len > SRT__DECIDER_FRAME_MAX)
		return -1;
	if (n - 4 < len)
		return 0;
	return (long)len + 4;
}

/* ---- strict JSON -------------------------------------------------------- */

enum jtype { J_OBJ, J_ARR, J_STR, J_NUM, J_BOOL };

struct jv {
	enum jtype t;
	bool b;
	bool integer;     /* J_NUM without fraction or exponent, fits int64 */
	int64_t i;
	char *s;          /* J_STR: decoded, NUL-terminated */
	size_t slen;
	struct jv *kids;  /* J_OBJ, J_ARR */
	char **keys;      /* J_OBJ */
	size_t *keylens;
	size_t n, alloc;
};

struct jp {
	const uint8_t *p, *end;
	char *why;
	size_t cap;
};

static int jfail(struct jp *j, const char *fmt, ...)
{
	va_list ap;

	if (j->why && j->cap && !j->why[0]) {
		va_start(ap, fmt);
		vsnprintf(j->why, j->cap, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void jv_free(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jv_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->keylens);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* One UTF-8 sequence at p (at most n bytes): its length, or 0 when it is
 * not well-formed (overlong, a surrogate, past U+10FFFF, truncated). */
static size_t utf8_len(const uint8_t *p, size_t n)
{
	uint8_t c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && p[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && p[1] >= 0xa0)
			return 0; /* a surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && p[1] < 0x90)
			return 0;
		if (c == 0xf4 && p[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

static int hex4(const uint8_t *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		uint8_t c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at j->p (the opening quote). The decoded form is never longer
 * than the spelled one, so one allocation of the spelled size holds it. */
static int parse_string(struct jp *j, char **out, size_t *outlen)
{
	const uint8_t *start = ++j->p;
	const uint8_t *q = start;
	char *s, *o;

	while (q < j->end && *q != '"')
		q += *q == '\\' && q + 1 < j->end ? 2 : 1;
	if (q >= j->end)
		return jfail(j, "an unterminated string");
	s = malloc((size_t)(q - start) + 1);
	if (!s)
		return jfail(j, "out of memory");
	o = s;
	while (j->p < q) {
		uint8_t c = *j->p;
		if (c < 0x20) {
			free(s);
			return jfail(j, "a control character in a string");
		}
		if (c != '\\') {
			size_t l = utf8_len(j->p, (size_t)(q - j->p));
			if (!l) {
				free(s);
				return jfail(j, "invalid UTF-8");
			}
			memcpy(o, j->p, l);
			o += l;
			j->p += l;
			continue;
		}
		c = j->p[1];
		j->p += 2;
		switch (c) {
		case '"': *o++ = '"'; continue;
		case '\\': *o++ = '\\'; continue;
		case '/': *o++ = '/'; continue;
		case 'b': *o++ = '\b'; continue;
		case 'f': *o++ = '\f'; continue;
		case 'n': *o++ = '\n'; continue;
		case 'r': *o++ = '\r'; continue;
		case 't': *o++ = '\t'; continue;
		case 'u': break;
		default:
			free(s);
			return jfail(j, "a bad escape in a string");
		}
		{
			unsigned cp, lo;
			if (q - j->p < 4 || hex4(j->p, &cp) < 0) {
				free(s);
				return jfail(j, "a bad \\u escape");
			}
			j->p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(s);
				return jfail(j, "a lone surrogate");
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (q - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
				    hex4(j->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
					free(s);
					return jfail(j, "a lone surrogate");
				}
				j->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			o += put_utf8(o, cp);
		}
	}
	*o = 0;
	j->p = q + 1;
	*out = s;
	*outlen = (size_t)(o - s);
	return 0;
}

static int parse_number(struct jp *j, struct jv *v)
{
	bool neg = false, frac = false;
	uint64_t mag = 0;
	int digits = 0;

	v->t = J_NUM;
	if (j->p < j->end && *j->p == '-') {
		neg = true;
		j->p++;
	}
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return jfail(j, "a malformed number");
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
		return jfail(j, "a number with a leading zero");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		if (digits < 19)
			mag = mag * 10 + (uint64_t)(*j->p - '0');
		digits++;
		j->p++;
	}
	if (j->p < j->end && *j->p == '.') {
		frac = true;
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "a malformed number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		frac = true;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "a malformed number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (!frac && digits <= 18) {
		v->integer = true;
		v->i = neg ? -(int64_t)mag : (int64_t)mag;
	}
	return 0;
}

static int parse_value(struct jp *j, struct jv *v, int depth);

static int kid_add(struct jp *j, struct jv *v)
{
	if (v->n == v->alloc) {
		size_t na = v->alloc ? v->alloc * 2 : 4;
		struct jv *k = realloc(v->kids, na * sizeof(*k));
		if (!k)
			return jfail(j, "out of memory");
		v->kids = k;
		if (v->t == J_OBJ) {
			char **keys = realloc(v->keys, na * sizeof(*keys));
			size_t *kl;
			if (!keys)
				return jfail(j, "out of memory");
			v->keys = keys;
			kl = realloc(v->keylens, na * sizeof(*kl));
			if (!kl)
				return jfail(j, "out of memory");
			v->keylens = kl;
		}
		v->alloc = na;
	}
	memset(&v->kids[v->n], 0, sizeof(v->kids[0]));
	if (v->t == J_OBJ)
		v->keys[v->n] = NULL;
	v->n++;
	return 0;
}

struct keyref {
	const char *k;
	size_t l;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t m = x->l < y->l ? x->l : y->l;
	int c = memcmp(x->k, y->k, m);

	return c ? c : (x->l > y->l) - (x->l < y->l);
}

/* Duplicate keys, found by sorting (an object may have many keys). */
static int check_dups(struct jp *j, const struct jv *v)
{
	struct keyref *r;
	size_t i;
	int rc = 0;

	if (v->n < 2)
		return 0;
	r = malloc(v->n * sizeof(*r));
	if (!r)
		return jfail(j, "out of memory");
	for (i = 0; i < v->n; i++) {
		r[i].k = v->keys[i];
		r[i].l = v->keylens[i];
	}
	qsort(r, v->n, sizeof(*r), keyref_cmp);
	for (i = 1; i < v->n && !rc; i++)
		if (!keyref_cmp(&r[i - 1], &r[i]))
			rc = jfail(j, "a duplicate key \"%.64s\"", r[i].k);
	free(r);
	return rc;
}

static int parse_container(struct jp *j, struct jv *v, int depth)
{
	bool obj = *j->p == '{';
	uint8_t close = obj ? '}' : ']';

	v->t = obj ? J_OBJ : J_ARR;
	if (depth >= JSON_DEPTH_MAX)
		return jfail(j, "nesting deeper than %d", JSON_DEPTH_MAX);
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (kid_add(j, v) < 0)
			return -1;
		skip_ws(j);
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return jfail(j, "an object key that is not a string");
			if (parse_string(j, &v->keys[v->n - 1], &v->keylens[v->n - 1]) < 0)
				return -1;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return jfail(j, "a missing ':'");
			j->p++;
		}
		if (parse_value(j, &v->kids[v->n - 1], depth + 1) < 0)
			return -1;
		skip_ws(j);
		if (j->p >= j->end)
			return jfail(j, "a truncated %s", obj ? "object" : "array");
		if (*j->p == close) {
			j->p++;
			break;
		}
		if (*j->p != ',')
			return jfail(j, "a missing ','");
		j->p++;
	}
	return obj ? check_dups(j, v) : 0;
}

static bool match_word(struct jp *j, const char *w)
{
	size_t l = strlen(w);

	if ((size_t)(j->end - j->p) < l || memcmp(j->p, w, l))
		return false;
	j->p += l;
	return true;
}

static int parse_value(struct jp *j, struct jv *v, int depth)
{
	skip_ws(j);
	if (j->p >= j->end)
		return jfail(j, "a missing value");
	switch (*j->p) {
	case '{':
	case '[':
		return parse_container(j, v, depth);
	case '"':
		v->t = J_STR;
		return parse_string(j, &v->s, &v->slen);
	case 't':
	case 'f':
		v->t = J_BOOL;
		v->b = *j->p == 't';
		if (!match_word(j, v->b ? "true" : "false"))
			return jfail(j, "a malformed literal");
		return 0;
	case 'n':
		return jfail(j, "null");
	default:
		return parse_number(j, v);
	}
}

/* The whole payload: one object, nothing after it. */
static int json_parse(const uint8_t *p, size_t n, struct jv *root, char *why, size_t cap)
{
	struct jp j = { p, p + n, why, cap };

	memset(root, 0, sizeof(*root));
	skip_ws(&j);
	if (j.p >= j.end || *j.p != '{')
		return jfail(&j, "not a JSON object");
	if (parse_value(&j, root, 0) < 0) {
		jv_free(root);
		return -1;
	}
	skip_ws(&j);
	if (j.p != j.end) {
		jv_free(root);
		return jfail(&j, "bytes after the JSON object");
	}
	return 0;
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	size_t i, l = strlen(key);

	for (i = 0; i < o->n; i++)
		if (o->keylens[i] == l && !memcmp(o->keys[i], key, l))
			return &o->kids[i];
	return NULL;
}

/* ---- checks on names and values ---------------------------------------- */

static char fold(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	if (c == '_' || c == '.')
		return '-';
	return c;
}

static bool folded_in(const char *name, const char *const *list)
{
	for (; *list; list++) {
		const char *a = name, *b = *list;
		while (*a && *b && fold(*a) == fold(*b)) {
			a++;
			b++;
		}
		if (!*a && !*b)
			return true;
	}
	return false;
}

bool srt__decider_framing_header(const char *name)
{
	static const char *const framing[] = {
		"host", "content-length", "transfer-encoding", "connection", "upgrade",
		"te", "trailer", "keep-alive", "proxy-connection", NULL
	};
	return folded_in(name, framing);
}

bool srt__decider_credential_header(const char *name)
{
	static const char *const cred[] = {
		"authorization", "proxy-authorization", "cookie", "x-api-key", NULL
	};
	return folded_in(name, cred);
}

/* An HTTP token (RFC 9110 tchar), 1..256 bytes. */
static bool token_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 256)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
			continue;
		if (!strchr("!#$%&'*+-.^_`|~", c) || !c)
			return false;
	}
	return true;
}

/* A header value: no NUL, CR or LF, nor other control bytes but tab. */
static bool value_ok(const char *s, size_t n)
{
	size_t i;

	if (n > SRT__DECIDER_REQ_FIELD_MAX)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

/* A deny reason: no control characters (C0, DEL, and C1 as UTF-8). */
static bool reason_ok(const char *s, size_t n)
{
	size_t i;

	if (n > SRT__DECIDER_REASON_MAX)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return false;
	}
	return true;
}

static bool label_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 63)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && !(c == '-' && i > 0 && i + 1 < n))
			return false;
	}
	return true;
}

/* A lower-case DNS name of at least min_labels labels. */
static bool dns_name_ok(const char *s, size_t n, int min_labels)
{
	size_t start = 0, i;
	int labels = 0;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!label_ok(s + start, i - start))
			return false;
		labels++;
		if (i == n && !(s[start] >= 'a' && s[start] <= 'z'))
			return false; /* the last label starts with a letter */
		start = i + 1;
	}
	return labels >= min_labels;
}

static bool port_ok(const char *s, size_t n)
{
	unsigned long v = 0;
	size_t i;

	if (n == 0 || n > 5 || s[0] == '0')
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v >= 1 && v <= 65535;
}

static bool ip_literal(const char *s, size_t n, int af)
{
	char tmp[64];
	unsigned char buf[16];

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	return inet_pton(af, tmp, buf) == 1;
}

bool srt__decider_entry_valid(const char *s)
{
	size_t n = strlen(s);
	const char *colon;

	if (n == 0 || n > 253 + 6)
		return false;
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', n);
		if (!rb || !ip_literal(s + 1, (size_t)(rb - s - 1), AF_INET6))
			return false;
		if ((size_t)(rb - s) + 1 == n)
			return true;
		return rb[1] == ':' && port_ok(rb + 2, n - (size_t)(rb - s) - 2);
	}
	colon = strchr(s, ':');
	if (colon && strchr(colon + 1, ':'))
		return ip_literal(s, n, AF_INET6); /* a bare IPv6 literal, no port */
	if (colon) {
		if (!port_ok(colon + 1, n - (size_t)(colon - s) - 1))
			return false;
		n = (size_t)(colon - s);
	}
	if (ip_literal(s, n, AF_INET))
		return true;
	if (n > 2 && s[0] == '*' && s[1] == '.')
		return dns_name_ok(s + 2, n - 2, 2);
	return dns_name_ok(s, n, 1);
}

/* ---- messages from the decider ------------------------------------------ */

static int bad(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (why && cap) {
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Every key of o is one of the NULL-terminated names. */
static int only_keys(const struct jv *o, const char *const *names, const char *what,
		     char *why, size_t cap)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		const char *const *k;
		for (k = names; *k; k++)
			if (strlen(*k) == o->keylens[i] && !memcmp(*k, o->keys[i], o->keylens[i]))
				break;
		if (!*k)
			return bad(why, cap, "%s has an unknown field \"%.64s\"", what, o->keys[i]);
	}
	return 0;
}

static char *dup_lower(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	size_t i;

	if (!d)
		return NULL;
	for (i = 0; i < n; i++)
		d[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
	d[n] = 0;
	return d;
}

static int take_list(const struct jv *v, const char *name, char ***out, size_t *nout,
		     char *why, size_t cap)
{
	size_t i, k;

	*out = NULL;
	*nout = 0;
	if (!v)
		return 0;
	if (v->t != J_ARR)
		return bad(why, cap, "hello: %s is not an array", name);
	if (!v->n)
		return 0;
	*out = calloc(v->n, sizeof(char *));
	if (!*out)
		return bad(why, cap, "out of memory");
	for (i = 0; i < v->n; i++) {
		const struct jv *e = &v->kids[i];
		if (e->t != J_STR || strlen(e->s) != e->slen || !srt__decider_entry_valid(e->s))
			return bad(why, cap, "hello: %s[%zu] is not a valid host entry", name, i);
		for (k = 0; k < i; k++)
			if (!strcmp((*out)[k], e->s))
				return bad(why, cap, "hello: %s[%zu] repeats \"%s\"", name, i, e->s);
		(*out)[i] = strdup(e->s);
		if (!(*out)[i])
			return bad(why, cap, "out of memory");
		(*nout)++;
	}
	return 0;
}

static int parse_hello(const struct jv *o, struct srt__decider_hello *h, char *why, size_t cap)
{
	static const char *const keys[] = { "t", "proto", "allowedDomains", "deniedDomains", NULL };
	const struct jv *proto = jget(o, "proto");

	if (only_keys(o, keys, "hello", why, cap) < 0)
		return -1;
	if (!proto || proto->t != J_NUM || !proto->integer || proto->i != 1)
		return bad(why, cap, "hello: proto is not 1");
	if (take_list(jget(o, "allowedDomains"), "allowedDomains", &h->allowed, &h->nallowed,
		      why, cap) < 0)
		return -1;
	return take_list(jget(o, "deniedDomains"), "deniedDomains", &h->denied, &h->ndenied,
			 why, cap);
}

static int header_add(struct srt__decider_verdict *v, size_t *alloc, const char *name,
		      size_t nl, const char *value, size_t vl)
{
	if (v->nset == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 4;
		struct srt__decider_header *h = realloc(v->set, na * sizeof(*h));
		if (!h)
			return -1;
		v->set = h;
		*alloc = na;
	}
	v->set[v->nset].name = dup_lower(name, nl);
	v->set[v->nset].value = strndup(value, vl);
	if (!v->set[v->nset].name || !v->set[v->nset].value) {
		free(v->set[v->nset].name);
		free(v->set[v->nset].value);
		return -1;
	}
	v->nset++;
	return 0;
}

static int parse_set_headers(const struct jv *sh, struct srt__decider_verdict *v,
			     char *why, size_t cap)
{
	size_t i, k, alloc = 0;

	if (sh->t != J_OBJ)
		return bad(why, cap, "verdict: setHeaders is not an object");
	for (i = 0; i < sh->n; i++) {
		const char *name = sh->keys[i];
		const struct jv *vals = &sh->kids[i];
		if (!token_ok(name, sh->keylens[i]))
			return bad(why, cap, "verdict: setHeaders has a bad header name");
		if (srt__decider_framing_header(name))
			return bad(why, cap, "verdict: setHeaders may not set the framing header \"%s\"",
				   name);
		if (srt__decider_credential_header(name))
			return bad(why, cap, "verdict: setHeaders may not set \"%s\" (use cred)", name);
		if (vals->t != J_ARR || vals->n == 0)
			return bad(why, cap, "verdict: setHeaders.%s is not a non-empty array", name);
		for (k = 0; k < vals->n; k++) {
			const struct jv *e = &vals->kids[k];
			if (e->t != J_STR || !value_ok(e->s, e->slen))
				return bad(why, cap, "verdict: setHeaders.%s[%zu] is not a header value",
					   name, k);
			if (header_add(v, &alloc, name, sh->keylens[i], e->s, e->slen) < 0)
				return bad(why, cap, "out of memory");
		}
	}
	return 0;
}

static int parse_remove_headers(const struct jv *rh, struct srt__decider_verdict *v,
				char *why, size_t cap)
{
	size_t i;

	if (rh->t != J_ARR)
		return bad(why, cap, "verdict: removeHeaders is not an array");
	if (!rh->n)
		return 0;
	v->remove = calloc(rh->n, sizeof(char *));
	if (!v->remove)
		return bad(why, cap, "out of memory");
	for (i = 0; i < rh->n; i++) {
		const struct jv *e = &rh->kids[i];
		if (e->t != J_STR || !token_ok(e->s, e->slen))
			return bad(why, cap, "verdict: removeHeaders[%zu] is not a header name", i);
		if (srt__decider_framing_header(e->s))
			return bad(why, cap,
				   "verdict: removeHeaders may not remove the framing header \"%s\"",
				   e->s);
		v->remove[i] = dup_lower(e->s, e->slen);
		if (!v->remove[i])
			return bad(why, cap, "out of memory");
		v->nremove++;
	}
	return 0;
}

static bool printable_ascii(const char *s, size_t n, size_t max)
{
	size_t i;

	if (n == 0 || n > max)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static int parse_allow(const struct jv *o, struct srt__decider_verdict *v, char *why, size_t cap)
{
	static const char *const keys[] = { "t", "id", "action", "setHeaders", "removeHeaders",
					    "cred", "credential", NULL };
	const struct jv *sh = jget(o, "setHeaders"), *rh = jget(o, "removeHeaders");
	const struct jv *cred = jget(o, "cred"), *credential = jget(o, "credential");

	if (only_keys(o, keys, "verdict allow", why, cap) < 0)
		return -1;
	v->action = SRT__DV_ALLOW;
	if (sh && parse_set_headers(sh, v, why, cap) < 0)
		return -1;
	if (rh && parse_remove_headers(rh, v, why, cap) < 0)
		return -1;
	if (!cred != !credential)
		return bad(why, cap, "verdict: cred and credential come together");
	if (!cred)
		return 0;
	if (cred->t != J_STR || !token_ok(cred->s, cred->slen) || cred->slen > 64)
		return bad(why, cap, "verdict: cred is not a class name");
	if (credential->t != J_STR ||
	    !printable_ascii(credential->s, credential->slen, SRT__DECIDER_CREDENTIAL_MAX))
		return bad(why, cap, "verdict: credential is not 1 to %d printable ASCII characters",
			   SRT__DECIDER_CREDENTIAL_MAX);
	v->cred = strdup(cred->s);
	v->credential = strdup(credential->s);
	if (!v->cred || !v->credential)
		return bad(why, cap, "out of memory");
	return 0;
}

static int parse_deny(const struct jv *o, struct srt__decider_verdict *v, char *why, size_t cap)
{
	static const char *const keys[] = { "t", "id", "action", "status", "reason", NULL };
	const struct jv *st = jget(o, "status"), *r = jget(o, "reason");

	if (only_keys(o, keys, "verdict deny", why, cap) < 0)
		return -1;
	v->action = SRT__DV_DENY;
	if (!st || st->t != J_NUM || !st->integer || st->i < 400 || st->i > 599)
		return bad(why, cap, "verdict: deny status is not 400..599");
	v->status = (int)st->i;
	if (!r)
		return 0;
	if (r->t != J_STR || !reason_ok(r->s, r->slen))
		return bad(why, cap, "verdict: reason is not text of at most %d bytes without control characters",
			   SRT__DECIDER_REASON_MAX);
	v->reason = strdup(r->s);
	return v->reason ? 0 : bad(why, cap, "out of memory");
}

static int parse_need_body(const struct jv *o, struct srt__decider_verdict *v, char *why,
			   size_t cap)
{
	static const char *const keys[] = { "t", "id", "action", "max", NULL };
	const struct jv *m = jget(o, "max");

	if (only_keys(o, keys, "verdict need_body", why, cap) < 0)
		return -1;
	v->action = SRT__DV_NEED_BODY;
	if (!m || m->t != J_NUM || !m->integer || m->i < 1 || m->i > SRT__DECIDER_BODY_MAX)
		return bad(why, cap, "verdict: need_body max is not 1..%u", SRT__DECIDER_BODY_MAX);
	v->max = (uint64_t)m->i;
	return 0;
}

static int parse_verdict(const struct jv *o, struct srt__decider_verdict *v, char *why, size_t cap)
{
	const struct jv *id = jget(o, "id"), *a = jget(o, "action");

	if (!id || id->t != J_NUM || !id->integer || id->i < 1)
		return bad(why, cap, "verdict: id is not a positive integer");
	v->id = (uint64_t)id->i;
	if (!a || a->t != J_STR)
		return bad(why, cap, "verdict: action is missing");
	if (!strcmp(a->s, "allow"))
		return parse_allow(o, v, why, cap);
	if (!strcmp(a->s, "deny"))
		return parse_deny(o, v, why, cap);
	if (!strcmp(a->s, "need_body"))
		return parse_need_body(o, v, why, cap);
	return bad(why, cap, "verdict: unknown action");
}

int srt__decider_parse(const uint8_t *p, size_t n, struct srt__decider_msg *out,
		       char *why, size_t cap)
{
	struct jv root;
	const struct jv *t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (why && cap)
		why[0] = 0;
	if (json_parse(p, n, &root, why, cap) < 0)
		return -1;
	t = jget(&root, "t");
	if (!t || t->t != J_STR)
		rc = bad(why, cap, "a message without \"t\"");
	else if (!strcmp(t->s, "hello")) {
		out->type = SRT__DM_HELLO;
		rc = parse_hello(&root, &out->hello, why, cap);
	} else if (!strcmp(t->s, "verdict")) {
		out->type = SRT__DM_VERDICT;
		rc = parse_verdict(&root, &out->verdict, why, cap);
	} else
		rc = bad(why, cap, "an unknown message \"%.32s\"", t->s);
	jv_free(&root);
	if (rc < 0)
		srt__decider_msg_release(out);
	return rc;
}

void srt__decider_verdict_release(struct srt__decider_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nset; i++) {
		free(v->set[i].name);
		free(v->set[i].value);
	}
	free(v->set);
	for (i = 0; i < v->nremove; i++)
		free(v->remove[i]);
	free(v->remove);
	free(v->reason);
	free(v->cred);
	if (v->credential)
		srt__os_wipe(v->credential, strlen(v->credential));
	free(v->credential);
	memset(v, 0, sizeof(*v));
}

static void strs_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void srt__decider_msg_release(struct srt__decider_msg *m)
{
	strs_free(m->hello.allowed, m->hello.nallowed);
	strs_free(m->hello.denied, m->hello.ndenied);
	srt__decider_verdict_release(&m->verdict);
	memset(m, 0, sizeof(*m));
}

/* ---- messages to the decider ------------------------------------------- */

struct out {
	uint8_t **buf;
	size_t *len, *cap;
	size_t start;
	bool failed;
};

static void out_raw(struct out *o, const void *p, size_t n)
{
	if (o->failed)
		return;
	if (*o->len + n > *o->cap) {
		size_t nc = *o->cap ? *o->cap : 256;
		uint8_t *b;
		while (nc < *o->len + n)
			nc *= 2;
		b = realloc(*o->buf, nc);
		if (!b) {
			o->failed = true;
			return;
		}
		*o->buf = b;
		*o->cap = nc;
	}
	memcpy(*o->buf + *o->len, p, n);
	*o->len += n;
}

static void out_str(struct out *o, const char *s)
{
	out_raw(o, s, strlen(s));
}

/* A JSON string; false when s is not UTF-8 (nothing sensible to send). */
static bool out_json(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	out_raw(o, "\"", 1);
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t l;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			out_raw(o, e, 2);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			out_raw(o, e, 6);
			i++;
			continue;
		}
		l = utf8_len((const uint8_t *)s + i, n - i);
		if (!l)
			return false;
		out_raw(o, s + i, l);
		i += l;
	}
	out_raw(o, "\"", 1);
	return true;
}

static void out_begin(struct out *o, uint8_t **buf, size_t *len, size_t *cap)
{
	o->buf = buf;
	o->len = len;
	o->cap = cap;
	o->start = *len;
	o->failed = false;
	out_raw(o, "\0\0\0\0", 4);
}

/* Fill in the length; on failure drop the partial frame. */
static int out_end(struct out *o, char *why, size_t cap)
{
	size_t n;

	if (o->failed) {
		*o->len = o->start;
		return bad(why, cap, "out of memory");
	}
	n = *o->len - o->start - 4;
	if (n > SRT__DECIDER_FRAME_MAX) {
		*o->len = o->start;
		return bad(why, cap, "the request is over the decider's %u-byte frame limit",
			   SRT__DECIDER_FRAME_MAX);
	}
	(*o->buf)[o->start] = (uint8_t)(n >> 24);
	(*o->buf)[o->start + 1] = (uint8_t)(n >> 16);
	(*o->buf)[o->start + 2] = (uint8_t)(n >> 8);
	(*o->buf)[o->start + 3] = (uint8_t)n;
	return 0;
}

int srt__decider_build_hello(uint8_t **buf, size_t *len, size_t *cap)
{
	struct out o;

	out_begin(&o, buf, len, cap);
	out_str(&o, "{\"t\":\"hello\",\"proto\":1}");
	return out_end(&o, NULL, 0);
}

static int field(struct out *o, const char *name, const char *v, bool limited,
		 char *why, size_t cap)
{
	size_t n = strlen(v);

	if (limited && n > SRT__DECIDER_REQ_FIELD_MAX)
		return bad(why, cap, "the request's %s is over %u bytes", name,
			   SRT__DECIDER_REQ_FIELD_MAX);
	out_str(o, ",\"");
	out_str(o, name);
	out_str(o, "\":");
	if (!out_json(o, v, n))
		return bad(why, cap, "the request's %s is not UTF-8", name);
	return 0;
}

static bool name_eq_ci(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}

/* "headers": {"name": [values...]}, names lower-case in the order they
 * first appear, Host left out. */
static int headers(struct out *o, const struct srt__decider_req *r, char *why, size_t cap)
{
	size_t i, k, values = 0, bytes = 0;
	bool any = false;

	for (i = 0; i < r->nheaders; i++) {
		if (name_eq_ci(r->headers[i].name, "host"))
			continue;
		values++;
		bytes += strlen(r->headers[i].name) + strlen(r->headers[i].value);
	}
	if (values > SRT__DECIDER_REQ_VALUES_MAX)
		return bad(why, cap, "the request has over %d header values",
			   SRT__DECIDER_REQ_VALUES_MAX);
	if (bytes > SRT__DECIDER_REQ_HEADER_BYTES)
		return bad(why, cap, "the request's headers are over %u bytes",
			   SRT__DECIDER_REQ_HEADER_BYTES);
	for (i = 0; i < r->nheaders; i++) {
		const char *name = r->headers[i].name;
		bool seen = false, first = true;
		char *lc;
		if (name_eq_ci(name, "host"))
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = name_eq_ci(r->headers[k].name, name);
		if (seen)
			continue;
		if (!token_ok(name, strlen(name)))
			return bad(why, cap, "a request header name is not a token");
		lc = dup_lower(name, strlen(name));
		if (!lc)
			return bad(why, cap, "out of memory");
		out_str(o, any ? "," : ",\"headers\":{");
		any = true;
		out_json(o, lc, strlen(lc));
		free(lc);
		out_str(o, ":[");
		for (k = i; k < r->nheaders; k++) {
			const char *v = r->headers[k].value;
			if (!name_eq_ci(r->headers[k].name, name))
				continue;
			if (!first)
				out_str(o, ",");
			first = false;
			if (!out_json(o, v, strlen(v)))
				return bad(why, cap, "the request header %s is not UTF-8", name);
		}
		out_str(o, "]");
	}
	if (any)
		out_str(o, "}");
	return 0;
}

int srt__decider_build_req(uint8_t **buf, size_t *len, size_t *cap, uint64_t id,
			   const struct srt__decider_req *r, char *why, size_t whycap)
{
	struct out o;
	char num[64];
	int rc = 0;

	if (!r->method || !r->host || !r->path || r->port < 1 || r->port > 65535)
		return bad(why, whycap, "the request lacks a method, host, path or port");
	out_begin(&o, buf, len, cap);
	snprintf(num, sizeof(num), "{\"t\":\"req\",\"id\":%llu", (unsigned long long)id);
	out_str(&o, num);
	rc = field(&o, "method", r->method, true, why, whycap);
	if (!rc)
		rc = field(&o, "host", r->host, true, why, whycap);
	if (!rc) {
		snprintf(num, sizeof(num), ",\"port\":%d", r->port);
		out_str(&o, num);
	}
	if (!rc && r->host_header && *r->host_header)
		rc = field(&o, "hostHeader", r->host_header, true, why, whycap);
	if (!rc && r->sni && *r->sni)
		rc = field(&o, "sni", r->sni, true, why, whycap);
	if (!rc)
		rc = field(&o, "path", r->path, true, why, whycap);
	if (!rc && r->query && *r->query)
		rc = field(&o, "query", r->query, false, why, whycap);
	if (!rc)
		rc = headers(&o, r, why, whycap);
	if (rc) {
		*len = o.start;
		return -1;
	}
	out_str(&o, "}");
	return out_end(&o, why, whycap);
}

int srt__decider_build_body(uint8_t **buf, size_t *len, size_t *cap, uint64_t id,
			    const uint8_t *data, size_t n, bool cut)
{
	struct out o;
	char num[64];
	size_t enc = (n + 2) / 3 * 4 + 1;
	char *b64;

	if (n > SRT__DECIDER_BODY_MAX)
		return -1;
	b64 = malloc(enc);
	if (!b64)
		return -1;
	srt__b64_encode(data, n, b64, enc);
	out_begin(&o, buf, len, cap);
	snprintf(num, sizeof(num), "{\"t\":\"body\",\"id\":%llu,\"data\":\"", (unsigned long long)id);
	out_str(&o, num);
	out_str(&o, b64);
	out_str(&o, cut ? "\",\"cut\":true}" : "\"}");
	free(b64);
	/* a body frame may pass the read limit: the decider asked for max bytes */
	if (o.failed) {
		*len = o.start;
		return -1;
	}
	n = *len - o.start - 4;
	(*buf)[o.start] = (uint8_t)(n >> 24);
	(*buf)[o.start + 1] = (uint8_t)(n >> 16);
	(*buf)[o.start + 2] = (uint8_t)(n >> 8);
	(*buf)[o.start + 3] = (uint8_t)n;
	return 0;
}

/* ---- the link ----------------------------------------------------------- */

#define HASH_SIZE 1024

struct pend {
	uint64_t id;
	int64_t deadline;
	srt__decider_verdict_fn cb;
	void *ctx;
	bool asked_body;
	bool timed;                  /* on the deadline list */
	struct pend *hnext;
	struct pend *prev, *next;    /* deadline order (all deadlines are now + 5 s) */
};

struct srt__decider {
	int in, out;
	bool out_sock;
	const struct srt__decider_ops *ops;
	void *ctx;
	uint8_t *ob;
	size_t olen, ocap, ooff;
	uint8_t *ib;
	size_t ilen, icap;
	bool ready, dead;
	char why[256];
	uint64_t newest;
	struct pend *hash[HASH_SIZE];
	struct pend *head, *tail;
	size_t npend;
	uint64_t late[SRT__DECIDER_LATE_WINDOW]; /* ids timed out or cancelled */
};

struct srt__decider *srt__decider_new(int in_fd, int out_fd,
				      const struct srt__decider_ops *ops, void *ctx)
{
	struct srt__decider *d = calloc(1, sizeof(*d));

	if (!d) {
		srt__os_sock_close(in_fd);
		if (out_fd != in_fd)
			srt__os_sock_close(out_fd);
		return NULL;
	}
	d->in = in_fd;
	d->out = out_fd;
	d->ops = ops;
	d->ctx = ctx;
	d->out_sock = srt__os_is_socket(out_fd);
	srt__os_set_nonblock(in_fd);
	srt__os_set_nonblock(out_fd);
	if (srt__decider_build_hello(&d->ob, &d->olen, &d->ocap) < 0) {
		srt__decider_free(d);
		return NULL;
	}
	srt__decider_on_write(d);
	return d;
}

static void close_fds(struct srt__decider *d)
{
	if (d->in >= 0)
		srt__os_sock_close(d->in);
	if (d->out >= 0 && d->out != d->in)
		srt__os_sock_close(d->out);
	d->in = d->out = -1;
}

static void unlink_timed(struct srt__decider *d, struct pend *p)
{
	if (!p->timed)
		return;
	if (p->prev)
		p->prev->next = p->next;
	else
		d->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		d->tail = p->prev;
	p->prev = p->next = NULL;
	p->timed = false;
}

static void link_timed(struct srt__decider *d, struct pend *p, int64_t deadline)
{
	p->deadline = deadline;
	p->prev = d->tail;
	p->next = NULL;
	if (d->tail)
		d->tail->next = p;
	else
		d->head = p;
	d->tail = p;
	p->timed = true;
}

static struct pend *find(struct srt__decider *d, uint64_t id)
{
	struct pend *p;

	for (p = d->hash[id % HASH_SIZE]; p; p = p->hnext)
		if (p->id == id)
			return p;
	return NULL;
}

/* Take p out of every list; the caller frees it. */
static void forget(struct srt__decider *d, struct pend *p)
{
	struct pend **pp;

	for (pp = &d->hash[p->id % HASH_SIZE]; *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	unlink_timed(d, p);
	d->npend--;
}

static void unavailable(struct pend *p, const char *why)
{
	struct srt__decider_verdict v;

	memset(&v, 0, sizeof(v));
	v.id = p->id;
	v.action = SRT__DV_UNAVAILABLE;
	v.status = 503;
	v.reason = (char *)why;
	p->cb(p->ctx, &v);
}

static void die(struct srt__decider *d, const char *fmt, ...)
{
	va_list ap;
	char why[sizeof(d->why) + 40];

	if (d->dead)
		return;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	d->dead = true;
	close_fds(d);
	d->olen = d->ooff = 0;
	snprintf(why, sizeof(why), "the decider is unavailable (%s)", d->why);
	while (d->head || d->npend) {
		struct pend *p = d->head;
		size_t i;
		for (i = 0; !p && i < HASH_SIZE; i++)
			p = d->hash[i];
		forget(d, p);
		unavailable(p, why);
		free(p);
	}
	if (d->ops && d->ops->dead)
		d->ops->dead(d->ctx, d->why);
}

void srt__decider_shutdown(struct srt__decider *d, const char *why)
{
	die(d, "%s", why);
}

void srt__decider_free(struct srt__decider *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < HASH_SIZE; i++)
		while (d->hash[i]) {
			struct pend *p = d->hash[i];
			d->hash[i] = p->hnext;
			free(p);
		}
	close_fds(d);
	free(d->ob);
	free(d->ib);
	free(d);
}

int srt__decider_in_fd(const struct srt__decider *d)
{
	return d->in;
}

int srt__decider_out_fd(const struct srt__decider *d)
{
	return d->out;
}

bool srt__decider_wants_write(const struct srt__decider *d)
{
	return !d->dead && d->ooff < d->olen;
}

bool srt__decider_ready(const struct srt__decider *d)
{
	return d->ready && !d->dead;
}

bool srt__decider_dead(const struct srt__decider *d)
{
	return d->dead;
}

const char *srt__decider_why(const struct srt__decider *d)
{
	return d->dead ? d->why : NULL;
}

size_t srt__decider_pending(const struct srt__decider *d)
{
	return d->npend;
}

void srt__decider_on_write(struct srt__decider *d)
{
	while (!d->dead && d->ooff < d->olen) {
		ssize_t w = d->out_sock ?
			srt__os_send(d->out, d->ob + d->ooff, d->olen - d->ooff) :
			srt__os_write(d->out, d->ob + d->ooff, d->olen - d->ooff);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w <= 0) {
			die(d, "writing to it: %s", w < 0 ? strerror(errno) : "nothing written");
			return;
		}
		d->ooff += (size_t)w;
	}
	if (d->ooff == d->olen) {
		d->ooff = d->olen = 0;
	} else if (d->ooff > d->olen / 2) {
		memmove(d->ob, d->ob + d->ooff, d->olen - d->ooff);
		d->olen -= d->ooff;
		d->ooff = 0;
	}
}

/* After queueing a frame: write what can be written, and give up on a
 * decider that lets its input pile up. */
static void queued(struct srt__decider *d)
{
	srt__decider_on_write(d);
	if (!d->dead && d->olen - d->ooff > SRT__DECIDER_OUT_MAX)
		die(d, "it left over %u MiB unread", SRT__DECIDER_OUT_MAX >> 20);
}

static void late_mark(struct srt__decider *d, uint64_t id)
{
	d->late[id % SRT__DECIDER_LATE_WINDOW] = id;
}

static void on_verdict(struct srt__decider *d, struct srt__decider_verdict *v, int64_t now_ms)
{
	struct pend *p = find(d, v->id);

	(void)now_ms;
	if (!p) {
		if (v->id > d->newest) {
			die(d, "a verdict for request %llu, which was never asked",
			    (unsigned long long)v->id);
			return;
		}
		if (d->newest - v->id >= SRT__DECIDER_LATE_WINDOW ||
		    d->late[v->id % SRT__DECIDER_LATE_WINDOW] == v->id)
			return; /* late: the request was answered 503 or went away */
		die(d, "a second verdict for request %llu", (unsigned long long)v->id);
		return;
	}
	if (v->action == SRT__DV_NEED_BODY) {
		if (p->asked_body) {
			die(d, "need_body twice for request %llu", (unsigned long long)v->id);
			return;
		}
		/* no clock while the proxy collects the body */
		p->asked_body = true;
		unlink_timed(d, p);
		p->cb(p->ctx, v);
		return;
	}
	forget(d, p);
	p->cb(p->ctx, v);
	free(p);
}

static void on_frame(struct srt__decider *d, const uint8_t *payload, size_t n, int64_t now_ms)
{
	struct srt__decider_msg m;
	char why[200];

	if (srt__decider_parse(payload, n, &m, why, sizeof(why)) < 0) {
		die(d, "it broke the protocol: %s", why);
		return;
	}
	if (!d->ready) {
		if (m.type != SRT__DM_HELLO)
			die(d, "it broke the protocol: its first message is not a hello");
		else {
			d->ready = true;
			if (d->ops && d->ops->hello)
				d->ops->hello(d->ctx, &m.hello);
		}
	} else if (m.type == SRT__DM_HELLO)
		die(d, "it broke the protocol: a second hello");
	else
		on_verdict(d, &m.verdict, now_ms);
	srt__decider_msg_release(&m);
}

/* Whole frames at the start of the input buffer. */
static void frames(struct srt__decider *d, int64_t now_ms)
{
	size_t off = 0;

	while (!d->dead) {
		long k = srt__decider_frame(d->ib + off, d->ilen - off);
		if (k < 0) {
			die(d, "it broke the protocol: a frame of length 0 or over %u bytes",
			    SRT__DECIDER_FRAME_MAX);
			return;
		}
		if (k == 0)
			break;
		on_frame(d, d->ib + off + 4, (size_t)k - 4, now_ms);
		off += (size_t)k;
	}
	if (d->dead)
		return;
	memmove(d->ib, d->ib + off, d->ilen - off);
	d->ilen -= off;
}

void srt__decider_on_read(struct srt__decider *d, int64_t now_ms)
{
	while (!d->dead) {
		ssize_t r;
		if (d->icap - d->ilen < 65536) {
			size_t nc = d->ilen + 65536;
			uint8_t *b = realloc(d->ib, nc);
			if (!b) {
				die(d, "out of memory");
				return;
			}
			d->ib = b;
			d->icap = nc;
		}
		r = srt__os_read(d->in, d->ib + d->ilen, d->icap - d->ilen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r < 0 && errno != ECONNRESET) {
			die(d, "reading from it: %s", strerror(errno));
			return;
		}
		if (r <= 0) {
			die(d, "it closed its end");
			return;
		}
		d->ilen += (size_t)r;
		frames(d, now_ms);
	}
}

int srt__decider_ask(struct srt__decider *d, const struct srt__decider_req *r, int64_t now_ms,
		     srt__decider_verdict_fn cb, void *ctx, uint64_t *id, char *why, size_t cap)
{
	struct pend *p;
	uint64_t nid = d->newest + 1;

	if (d->dead) {
		struct pend tmp = { .id = 0, .cb = cb, .ctx = ctx };
		char w[sizeof(d->why) + 40];
		snprintf(w, sizeof(w), "the decider is unavailable (%s)", d->why);
		*id = 0;
		unavailable(&tmp, w);
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return bad(why, cap, "out of memory");
	if (srt__decider_build_req(&d->ob, &d->olen, &d->ocap, nid, r, why, cap) < 0) {
		free(p);
		return -1;
	}
	d->newest = nid;
	d->late[nid % SRT__DECIDER_LATE_WINDOW] = 0;
	p->id = nid;
	p->cb = cb;
	p->ctx = ctx;
	p->hnext = d->hash[nid % HASH_SIZE];
	d->hash[nid % HASH_SIZE] = p;
	link_timed(d, p, now_ms + SRT__DECIDER_VERDICT_MS);
	d->npend++;
	*id = nid;
	queued(d);
	return 0;
}

int srt__decider_body(struct srt__decider *d, uint64_t id, const uint8_t *data, size_t n,
		      bool cut, int64_t now_ms)
{
	struct pend *p = d->dead ? NULL : find(d, id);

	if (!p || !p->asked_body || p->timed)
		return -1;
	if (srt__decider_build_body(&d->ob, &d->olen, &d->ocap, id, data, n, cut) < 0) {
		die(d, "out of memory for a body");
		return 0;
	}
	link_timed(d, p, now_ms + SRT__DECIDER_VERDICT_MS);
	queued(d);
	return 0;
}

void srt__decider_cancel(struct srt__decider *d, uint64_t id)
{
	struct pend *p = find(d, id);

	if (!p)
		return;
	forget(d, p);
	late_mark(d, id);
	free(p);
}

int srt__decider_tick(struct srt__decider *d, int64_t now_ms)
{
	while (d->head && d->head->deadline <= now_ms) {
		struct pend *p = d->head;
		forget(d, p);
		late_mark(d, p->id);
		unavailable(p, "the decider gave no verdict within 5 s");
		free(p);
	}
	if (!d->head)
		return -1;
	return (int)(d->head->deadline - now_ms);
}
