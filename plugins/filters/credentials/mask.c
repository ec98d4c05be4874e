/* Wrap-time masking (common/credmask.h): each masked variable or file
 * gets what the sandbox sees instead of the real value, and every sentinel
 * is recorded with its real value and hosts for the filter.
 *
 *   whole value    one sentinel of the value's length
 *   extract        every match's group 1 replaced by its own sentinel
 *                  (one per distinct capture); maskDuplicates also
 *                  replaces other verbatim occurrences of each capture
 *   decode "jwt"   the value (or each capture; default pattern: a JWT
 *                  anywhere) must be a JWT: replaced by a fake JWT, or
 *                  with maskClaims by the same token whose named string
 *                  claims are sentinels; the fake token stands for the
 *                  real one toward the entry's hosts
 *
 * Patterns are PCRE2 with JavaScript-compatible escapes (\u, \x), so the
 * patterns written for the reference (`token:\s*(\S+)`) work unchanged. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "common/credmask.h"
#include "common/platform.h"
#include "mask.h"
#include "subst.h"

#define JWT_PATTERN "(eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)"
#define FAKE_SIG "c3J0LWZha2U"

/* ------------------------------------------------------------ sentinels */

static int rand_chars(char *out, size_t n, const char *alpha, size_t na)
{
	unsigned char r[64];

	while (n) {
		size_t k = n < sizeof(r) ? n : sizeof(r), i;

		if (srt__os_random(r, k))
			return -1;
		for (i = 0; i < k; i++)
			out[i] = alpha[r[i] % na];
		out += k;
		n -= k;
	}
	return 0;
}

static int uuid4(char out[37])
{
	unsigned char b[16];
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (srt__os_random(b, sizeof(b)))
		return -1;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
	return 0;
}

size_t mask_sentinel(size_t len, char *out)
{
	static const char pad[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
	char u[37];

	if (len >= MASK_MIN_SAME_LENGTH && len < MASK_SHORT_SENTINEL) {
		memcpy(out, "fake_", 5);
		if (rand_chars(out + 5, len - 5, pad, 36))
			return 0;
		out[len] = '\0';
		return len;
	}
	if (uuid4(u))
		return 0;
	snprintf(out, MASK_SHORT_SENTINEL + 1, "fake_value_%s", u);
	if (len > MASK_SHORT_SENTINEL) {
		if (rand_chars(out + MASK_SHORT_SENTINEL, len - MASK_SHORT_SENTINEL, pad,
			       sizeof(pad) - 1))
			return 0;
		out[len] = '\0';
		return len;
	}
	return MASK_SHORT_SENTINEL;
}

/* ------------------------------------------------------------ base64url */

static char *b64url(const unsigned char *p, size_t n)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char *o = malloc(n / 3 * 4 + 5), *w = o;
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		*w++ = a[p[i] >> 2];
		*w++ = a[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*w++ = a[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*w++ = a[p[i + 2] & 63];
	}
	if (n - i == 1) {
		*w++ = a[p[i] >> 2];
		*w++ = a[(p[i] & 3) << 4];
	} else if (n - i == 2) {
		*w++ = a[p[i] >> 2];
		*w++ = a[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*w++ = a[(p[i + 1] & 15) << 2];
	}
	*w = '\0';
	return o;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

/* Decode base64url (no padding) into a NUL-terminated string, or NULL. */
static char *unb64url(const char *s, size_t n)
{
	char *o = malloc(n * 3 / 4 + 4);
	size_t i, w = 0;
	unsigned acc = 0;
	int bits = 0;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0) {
			free(o);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[w++] = (char)((acc >> bits) & 0xff);
		}
	}
	o[w] = '\0';
	if (strlen(o) != w) { /* a NUL inside: not JSON text */
		free(o);
		return NULL;
	}
	return o;
}

/* ------------------------------------------------------------ JWT */

static cJSON *segment_json(const char *s, size_t n)
{
	char *txt = unb64url(s, n);
	cJSON *j;

	if (!txt)
		return NULL;
	j = cJSON_Parse(txt);
	free(txt);
	if (j && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* Split a JWT: the lengths of its three segments, 0 when not one. */
static int jwt_split(const char *s, size_t len, size_t seg[3])
{
	const char *d1 = memchr(s, '.', len), *d2;

	if (!d1)
		return 0;
	d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - s));
	if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - s)))
		return 0;
	seg[0] = (size_t)(d1 - s);
	seg[1] = (size_t)(d2 - d1 - 1);
	seg[2] = len - (size_t)(d2 + 1 - s);
	return seg[0] && seg[1];
}

int mask_is_jwt(const char *s, size_t len)
{
	size_t seg[3];
	cJSON *h, *p;
	int ok;

	if (!jwt_split(s, len, seg))
		return 0;
	h = segment_json(s, seg[0]);
	p = h ? segment_json(s + seg[0] + 1, seg[1]) : NULL;
	ok = h && p && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(h, "alg"));
	cJSON_Delete(h);
	cJSON_Delete(p);
	return ok;
}

/* ------------------------------------------------------------ the run */

struct run {
	cJSON *pairs;    /* filterConfig.pairs */
	cJSON *warnings;
	char error[600];
};

static int add_pair(struct run *r, const char *key, const char *sentinel, const char *real,
		    size_t real_len, const cJSON *hosts)
{
	cJSON *o = cJSON_CreateObject();
	char *rv = strndup(real, real_len);

	if (!o || !rv || !cJSON_AddStringToObject(o, "name", key) ||
	    !cJSON_AddStringToObject(o, "sentinel", sentinel) ||
	    !cJSON_AddStringToObject(o, "real", rv) ||
	    !cJSON_AddItemToObject(o, "hosts", cJSON_Duplicate(hosts, 1))) {
		free(rv);
		cJSON_Delete(o);
		return -1;
	}
	free(rv);
	cJSON_AddItemToArray(r->pairs, o);
	return 0;
}

static void warn(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct run *r, const char *fmt, ...)
{
	char line[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(r->warnings, cJSON_CreateString(line));
}

/* One entry as the messages name it. */
struct ent {
	const char *kind;  /* "env" | "file" */
	const char *label; /* the variable's name or the file's path */
	const char *list;  /* "credentials.envVars" | "credentials.files" */
	const cJSON *hosts;
	const cJSON *claims; /* maskClaims or NULL */
	int dup;             /* maskDuplicates */
	unsigned nkeys;
};

/* A fake JWT for the real token `tok`: the real header and the payload
 * with each named string claim replaced by a sentinel (pairs recorded),
 * or with no claims named, a token of srt's own. */
static char *fake_jwt(struct run *r, struct ent *e, const char *tok, size_t len)
{
	size_t seg[3];
	cJSON *payload;
	char *json, *p64, *out;
	const cJSON *c;
	char sent[MASK_SHORT_SENTINEL + 4096 + 1];

	if (!jwt_split(tok, len, seg))
		return NULL;
	if (!e->claims) {
		char u[37], hdr[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
		char body[100];
		char *h64;

		if (uuid4(u))
			return NULL;
		snprintf(body, sizeof(body), "{\"sub\":\"fake_value_%s\",\"exp\":9999999999}", u);
		h64 = b64url((const unsigned char *)hdr, strlen(hdr));
		p64 = b64url((const unsigned char *)body, strlen(body));
		out = NULL;
		if (h64 && p64 && asprintf(&out, "%s.%s." FAKE_SIG, h64, p64) < 0)
			out = NULL;
		free(h64);
		free(p64);
		return out;
	}
	if (!(payload = segment_json(tok + seg[0] + 1, seg[1])))
		return NULL;
	cJSON_ArrayForEach(c, e->claims) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(payload, c->valuestring);
		char key[300];
		size_t vl;

		if (!cJSON_IsString(v) || !(vl = strlen(v->valuestring)) || vl > 4096)
			continue;
		if (!mask_sentinel(vl, sent))
			goto fail;
		snprintf(key, sizeof(key), "%s:%s#%s", e->kind, e->label, c->valuestring);
		if (add_pair(r, key, sent, v->valuestring, vl, e->hosts) < 0)
			goto fail;
		cJSON_SetValuestring(v, sent);
	}
	json = cJSON_PrintUnformatted(payload);
	cJSON_Delete(payload);
	if (!json)
		return NULL;
	p64 = b64url((const unsigned char *)json, strlen(json));
	free(json);
	out = NULL;
	if (p64 && asprintf(&out, "%.*s.%s." FAKE_SIG, (int)seg[0], tok, p64) < 0)
		out = NULL;
	free(p64);
	return out;
fail:
	cJSON_Delete(payload);
	return NULL;
}

/* The fake for one span (the whole value or one capture): its text, or
 * NULL (r->error set when it is an error, else "not a JWT"). */
static char *fake_span(struct run *r, struct ent *e, const char *s, size_t n, int jwt)
{
	char key[300], *fake;

	snprintf(key, sizeof(key), "%s:%s#%u", e->kind, e->label, e->nkeys++);
	if (jwt) {
		if (!mask_is_jwt(s, n))
			return NULL;
		fake = fake_jwt(r, e, s, n);
	} else {
		fake = malloc(n > MASK_SHORT_SENTINEL ? n + 1 : MASK_SHORT_SENTINEL + 1);
		if (fake && !mask_sentinel(n, fake)) {
			free(fake);
			fake = NULL;
		}
	}
	if (!fake) {
		snprintf(r->error, sizeof(r->error), "%s \"%s\": no sentinel could be made (out of memory or no random bytes)",
			 e->list, e->label);
		return NULL;
	}
	if (add_pair(r, key, fake, s, n, e->hosts) < 0) {
		free(fake);
		snprintf(r->error, sizeof(r->error), "out of memory");
		return NULL;
	}
	return fake;
}

struct span {
	size_t at, len;
	char *fake;
};

/* Every match's group 1 in value: spans in order. -1 and r->error on a
 * bad pattern or a match without group 1. */
static int find_spans(struct run *r, struct ent *e, const char *pattern, const char *v,
		      size_t vlen, struct span **out, size_t *nout)
{
	pcre2_code *re;
	pcre2_match_data *md;
	int err, rc = 0;
	PCRE2_SIZE eoff, pos = 0;
	struct span *sp = NULL;
	size_t n = 0;
	uint32_t groups = 0;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, SRT__CREDMASK_PCRE2_OPTIONS,
			   &err, &eoff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[200];

		pcre2_get_error_message(err, msg, sizeof(msg));
		snprintf(r->error, sizeof(r->error), "%s \"%s\": extract is not a valid regular expression: %s",
			 e->list, e->label, (const char *)msg);
		return -1;
	}
	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
	md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!groups || !md) {
		snprintf(r->error, sizeof(r->error), "%s \"%s\": %s", e->list, e->label,
			 !groups ? "extract must contain at least one capturing group" : "out of memory");
		pcre2_match_data_free(md);
		pcre2_code_free(re);
		return -1;
	}
	while (pos <= vlen &&
	       (rc = pcre2_match(re, (PCRE2_SPTR)v, vlen, pos, 0, md, NULL)) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		if (rc < 2 || ov[2] == PCRE2_UNSET) {
			snprintf(r->error, sizeof(r->error), "%s \"%s\": extract pattern \"%s\" matched without its group 1, so there is no value to mask",
				 e->list, e->label, pattern);
			free(sp);
			sp = NULL;
			n = 0;
			rc = -1;
			break;
		}
		/* group 1 in a lookaround can reach past the match: a capture
		 * that starts inside (or before) the one before cannot be
		 * replaced in place, so the entry fails rather than guessing */
		if (ov[3] > ov[2] && n && ov[2] < sp[n - 1].at + sp[n - 1].len) {
			snprintf(r->error, sizeof(r->error), "%s \"%s\": extract pattern \"%s\" captured overlapping parts of the value (group 1 inside a lookahead or lookbehind?); make its matches' group 1 not overlap",
				 e->list, e->label, pattern);
			rc = -1;
			break;
		}
		if (ov[3] > ov[2]) {
			struct span *ns = realloc(sp, (n + 1) * sizeof(*sp));

			if (!ns) {
				rc = -1;
				snprintf(r->error, sizeof(r->error), "out of memory");
				break;
			}
			sp = ns;
			sp[n].at = ov[2];
			sp[n].len = ov[3] - ov[2];
			sp[n].fake = NULL;
			n++;
		}
		pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
	}
	/* the match limit, the heap limit or memory ran out: the rest of the
	 * value was never searched, and a credential there would be left
	 * real inside the sandbox (red team: "key=((?:\w|\d)+)\s" on a key
	 * at the end of a file), so the entry fails instead */
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH && !r->error[0]) {
		PCRE2_UCHAR msg[200];

		pcre2_get_error_message(rc, msg, sizeof(msg));
		snprintf(r->error, sizeof(r->error), "%s \"%s\": extract pattern \"%s\" could not be applied to the whole value (%s); simplify the regular expression",
			 e->list, e->label, pattern, (const char *)msg);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (r->error[0]) {
		free(sp);
		return -1;
	}
	*out = sp;
	*nout = n;
	return 0;
}

/* The value with every span replaced by its fake; with maskDuplicates,
 * every verbatim occurrence of a capture anywhere in the value. */
static char *rebuild(struct ent *e, const char *v, size_t vlen, struct span *sp, size_t n)
{
	struct subst_pair *pairs;
	char *out = NULL;
	size_t i, o = 0, cap = vlen + 1, last = 0;

	if (e->dup) {
		if (!(pairs = calloc(n, sizeof(*pairs))))
			return NULL;
		for (i = 0; i < n; i++) {
			pairs[i].from = v + sp[i].at;
			pairs[i].from_len = sp[i].len;
			pairs[i].to = sp[i].fake;
			pairs[i].to_len = strlen(sp[i].fake);
		}
		out = subst_string(pairs, n, v, vlen, NULL, NULL);
		free(pairs);
		return out;
	}
	for (i = 0; i < n; i++)
		cap += strlen(sp[i].fake);
	if (!(out = malloc(cap)))
		return NULL;
	for (i = 0; i < n; i++) {
		memcpy(out + o, v + last, sp[i].at - last);
		o += sp[i].at - last;
		memcpy(out + o, sp[i].fake, strlen(sp[i].fake));
		o += strlen(sp[i].fake);
		last = sp[i].at + sp[i].len;
	}
	memcpy(out + o, v + last, vlen - last);
	o += vlen - last;
	out[o] = '\0';
	return out;
}

/* One masked entry: "set" with the fake value, "keep"/"unset"/"deny" when
 * extraction found nothing, or NULL with r->error. */
static const char *mask_entry(struct run *r, struct ent *e, const cJSON *in, char **fake_out)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "value"));
	const char *pattern = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "extract"));
	const char *nomatch = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "onExtractNoMatch"));
	const char *decode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "decode"));
	int jwt = decode && !strcmp(decode, "jwt");
	struct span *sp = NULL;
	size_t n = 0, i, vlen;

	*fake_out = NULL;
	if (!v || !(vlen = strlen(v)))
		return "keep"; /* nothing to protect */
	if (!pattern && !jwt) {
		struct span whole = { 0, vlen, NULL };

		if (!(whole.fake = fake_span(r, e, v, vlen, 0)))
			return NULL;
		*fake_out = whole.fake;
		return "set";
	}
	if (find_spans(r, e, pattern ? pattern : JWT_PATTERN, v, vlen, &sp, &n) < 0)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t j;

		/* one fake per distinct capture */
		for (j = 0; j < i; j++)
			if (sp[j].len == sp[i].len && !memcmp(v + sp[j].at, v + sp[i].at, sp[i].len))
				break;
		if (j < i) {
			sp[i].fake = strdup(sp[j].fake);
		} else {
			sp[i].fake = fake_span(r, e, v + sp[i].at, sp[i].len, jwt);
			if (!sp[i].fake && !r->error[0] && jwt)
				continue; /* not a JWT: not masked */
		}
		if (!sp[i].fake) {
			if (!r->error[0])
				snprintf(r->error, sizeof(r->error), "out of memory");
			goto fail;
		}
	}
	/* drop captures that were not JWTs */
	{
		size_t k = 0;

		for (i = 0; i < n; i++)
			if (sp[i].fake)
				sp[k++] = sp[i];
		n = k;
	}
	if (!n) {
		free(sp);
		if (nomatch && !strcmp(nomatch, "error")) {
			snprintf(r->error, sizeof(r->error),
				 "%s entry \"%s\": extract pattern \"%s\" matched nothing (onExtractNoMatch: \"error\"). Fix the regex, change to \"warn\"/\"deny\", or remove the entry.",
				 e->list, e->label, pattern ? pattern : JWT_PATTERN);
			return NULL;
		}
		if (nomatch && !strcmp(nomatch, "deny"))
			return !strcmp(e->kind, "env") ? "unset" : "deny";
		warn(r, "credentials.%s entry \"%s\" has extract pattern \"%s\" that matched nothing in the %s. The %s is left UNPROTECTED (visible as-is inside the sandbox). Fix the regex, set onExtractNoMatch to \"deny\" or \"error\", or remove the entry.",
		     !strcmp(e->kind, "env") ? "envVars" : "files", e->label,
		     pattern ? pattern : JWT_PATTERN,
		     !strcmp(e->kind, "env") ? "variable's value" : "file",
		     !strcmp(e->kind, "env") ? "variable" : "file");
		return "keep";
	}
	*fake_out = rebuild(e, v, vlen, sp, n);
	for (i = 0; i < n; i++)
		free(sp[i].fake);
	free(sp);
	if (!*fake_out) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		return NULL;
	}
	return "set";
fail:
	for (i = 0; i < n; i++)
		free(sp[i].fake);
	free(sp);
	return NULL;
}

static int one(struct run *r, const cJSON *in, cJSON *results)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "kind"));
	const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "mode"));
	const cJSON *present = cJSON_GetObjectItemCaseSensitive(in, "present");
	cJSON *res = cJSON_CreateObject();
	struct ent e;
	const char *action;
	char *fake = NULL;

	if (!res)
		return -1;
	cJSON_AddItemToArray(results, res);
	memset(&e, 0, sizeof(e));
	e.kind = kind && !strcmp(kind, "file") ? "file" : "env";
	e.list = !strcmp(e.kind, "file") ? "credentials.files" : "credentials.envVars";
	e.label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, !strcmp(e.kind, "file") ? "path" : "name"));
	e.hosts = cJSON_GetObjectItemCaseSensitive(in, "injectHosts");
	e.claims = cJSON_GetObjectItemCaseSensitive(in, "maskClaims");
	e.dup = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "maskDuplicates"));
	if (!e.label || !mode || !cJSON_IsArray(e.hosts) || (e.claims && !cJSON_IsArray(e.claims))) {
		snprintf(r->error, sizeof(r->error), "credentials: malformed masking request");
		return -1;
	}
	if (!strcmp(mode, "deny")) {
		action = !strcmp(e.kind, "env") ? "unset" : "deny";
	} else if (!cJSON_IsTrue(present)) {
		action = "keep"; /* an unset variable, a missing file: nothing to mask */
	} else if (!(action = mask_entry(r, &e, in, &fake))) {
		return -1;
	}
	if (!cJSON_AddStringToObject(res, "action", action) ||
	    (fake && !cJSON_AddStringToObject(res, "value", fake))) {
		free(fake);
		return -1;
	}
	free(fake);
	return 0;
}

static char *answer_error(const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	if (!o || !cJSON_AddStringToObject(o, "error", msg)) {
		cJSON_Delete(o);
		return NULL;
	}
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

__attribute__((visibility("default"))) char *srt_credentials_mask(const char *request_json)
{
	cJSON *req = cJSON_Parse(request_json), *ans = NULL, *results, *cfg, *ver;
	const cJSON *entries, *it;
	struct run r;
	char *out;

	memset(&r, 0, sizeof(r));
	ver = cJSON_GetObjectItemCaseSensitive(req, "version");
	entries = cJSON_GetObjectItemCaseSensitive(req, "entries");
	if (!req || !cJSON_IsNumber(ver) || ver->valueint != SRT__CREDMASK_VERSION ||
	    !cJSON_IsArray(entries)) {
		cJSON_Delete(req);
		return answer_error("credentials: the module does not understand this srt's masking request (version mismatch)");
	}
	ans = cJSON_CreateObject();
	results = cJSON_AddArrayToObject(ans, "results");
	r.warnings = cJSON_AddArrayToObject(ans, "warnings");
	cfg = cJSON_AddObjectToObject(ans, "filterConfig");
	r.pairs = cfg ? cJSON_AddArrayToObject(cfg, "pairs") : NULL;
	if (!results || !r.warnings || !r.pairs)
		goto nomem;
	cJSON_ArrayForEach(it, entries) {
		if (one(&r, it, results) < 0) {
			out = answer_error(r.error[0] ? r.error : "out of memory");
			cJSON_Delete(ans);
			cJSON_Delete(req);
			return out;
		}
	}
	/* what the filter needs besides the pairs, as the settings say it */
	{
		static const char *const copy[] = { "allowPlaintextInject", "awsPairs", "sigv4", NULL };
		size_t i;

		for (i = 0; copy[i]; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, copy[i]);

			if (v && !cJSON_AddItemToObject(cfg, copy[i], cJSON_Duplicate(v, 1)))
				goto nomem;
		}
	}
	out = cJSON_PrintUnformatted(ans);
	cJSON_Delete(ans);
	cJSON_Delete(req);
	return out;
nomem:
	cJSON_Delete(ans);
	cJSON_Delete(req);
	return answer_error("out of memory");
}
