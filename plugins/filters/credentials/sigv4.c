/* sigv4: re-signing AWS SigV4 requests made with a masked key (sigv4.h).
 *
 * The canonical request is never stored: it is fed to SHA-256 piece by
 * piece as it is built (emit()), except for the query parameters, which
 * must be sorted first. Everything the call needs lives in one workspace
 * of fixed size (struct ws), so a hostile request can make the call
 * refuse but never make it allocate more or read past a bound. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugins/filters/credentials/sha256.h"
#include "plugins/filters/credentials/sigv4.h"

#define ALGO "AWS4-HMAC-SHA256"
#define ALGO_A "AWS4-ECDSA-P256-SHA256"
#define MAX_SECRET 512
#define MAX_KEY_ID 256
#define AMZ_DATE_LEN 16 /* 20150830T123600Z */
#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define UNSIGNED "UNSIGNED-PAYLOAD"
/* The one streaming form whose chunks and trailer carry no signature:
 * only the head is signed, so it is re-signed like any header request. */
#define STREAM_UNSIGNED "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

enum kind { K_NONE, K_HEADER, K_STREAMING, K_PRESIGNED, K_SIGV4A };

struct param {
	const char *k, *v; /* encoded, inside ws.qenc */
	size_t klen, vlen;
};

struct ws {
	/* the client's Authorization, split in place */
	char auth[SIGV4_MAX_AUTH + 1];
	const char *akid, *scope, *signed_headers;
	size_t akid_len, scope_len, sh_len;
	const char *date, *region, *service; /* inside scope */
	size_t date_len, region_len, service_len;
	const char *names[SIGV4_MAX_SIGNED];
	size_t name_len[SIGV4_MAX_SIGNED];
	size_t nnames;
	int is_s3;
	/* header values the call substitutes into the canonical request
	 * (and sets afterwards): NULL leaves the client's */
	const char *token_value;
	const char *payload_hash;
	int set_payload_header;
	/* the canonical path (non-S3: dot segments removed, before encoding) */
	char upath[SIGV4_MAX_TARGET + 2];
	char qenc[3 * SIGV4_MAX_TARGET + 2];
	struct param params[SIGV4_MAX_PARAMS];
	size_t nparams;
	char value[SIGV4_MAX_VALUE + 1];
	char key[4 + MAX_SECRET + 1];
	char new_auth[SIGV4_MAX_AUTH + MAX_KEY_ID + 128];
	struct srt__sha256 sha;
	/* tests: a copy of the canonical request and the string to sign */
	char *cap;
	size_t cap_len, cap_used;
	int cap_over;
};

static void say(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

static enum sigv4_outcome refuse(char *why, size_t why_len, const char *detail)
{
	say(why, why_len, "AWS SigV4 request signed with a masked key cannot be re-signed: %s",
	    detail);
	return SIGV4_REFUSE;
}

static int unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '~';
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return s[64] == '\0';
}

/* The byte an escape "%XY" at s[i] stands for, or -1 when s[i] does not
 * start one (s has n bytes). */
static int escape_at(const char *s, size_t n, size_t i)
{
	int hi, lo;

	if (s[i] != '%' || i + 2 >= n)
		return -1;
	hi = hexval((unsigned char)s[i + 1]);
	lo = hexval((unsigned char)s[i + 2]);
	return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

static int eq_n(const char *a, size_t alen, const char *b)
{
	return b && strlen(b) == alen && memcmp(a, b, alen) == 0;
}

/* The key id is ours when it is the masked one, or the real one (a
 * generic sentinel substitution may already have run over the header). */
static int our_key_id(const char *id, size_t len, const struct sigv4_key *fake,
		      const struct sigv4_key *real)
{
	return len && (eq_n(id, len, fake->key_id) || eq_n(id, len, real->key_id));
}

/* ---- the canonical request sink ---- */

static void emit(struct ws *w, const char *s, size_t n)
{
	srt__sha256_update(&w->sha, s, n);
	if (!w->cap)
		return;
	if (w->cap_used + n >= w->cap_len) {
		w->cap_over = 1;
		return;
	}
	memcpy(w->cap + w->cap_used, s, n);
	w->cap_used += n;
	w->cap[w->cap_used] = '\0';
}

static void emit_s(struct ws *w, const char *s)
{
	emit(w, s, strlen(s));
}

static void emit_pct(struct ws *w, unsigned char c)
{
	static const char digits[] = "0123456789ABCDEF";
	char e[3] = { '%', digits[c >> 4], digits[c & 15] };

	emit(w, e, 3);
}

/* ---- header lines ---- */

/* Every line named `name` (case-insensitively), trimmed, inner runs of
 * blanks folded to one space, joined with ',' into w->value. 1 found, 0
 * absent, -1 too long or too many lines. */
static int header_joined(struct ws *w, const struct srt_filter_headers *h, const char *name,
			 size_t name_len)
{
	size_t i, n = h->count(h), used = 0;
	int found = 0;

	if (n > SIGV4_MAX_HEADERS)
		return -1;
	for (i = 0; i < n; i++) {
		const char *hn, *hv;
		int space = 0, started = 0;

		if (h->at(h, i, &hn, &hv) != SRT_OK || !hn || !hv)
			return -1;
		if (strlen(hn) != name_len || strncasecmp(hn, name, name_len) != 0)
			continue;
		if (found) {
			if (used >= SIGV4_MAX_VALUE)
				return -1;
			w->value[used++] = ',';
		}
		found = 1;
		for (; *hv; hv++) {
			if (*hv == ' ' || *hv == '\t') {
				space = started;
				continue;
			}
			if (used + 2 > SIGV4_MAX_VALUE)
				return -1;
			if (space)
				w->value[used++] = ' ';
			w->value[used++] = *hv;
			space = 0;
			started = 1;
		}
	}
	w->value[used] = '\0';
	return found;
}

/* How many lines are named `name`; SIGV4_MAX_HEADERS + 1 past the scan
 * bound. */
static size_t header_lines(const struct srt_filter_headers *h, const char *name)
{
	size_t i, n = h->count(h), found = 0;

	if (n > SIGV4_MAX_HEADERS)
		return SIGV4_MAX_HEADERS + 1;
	for (i = 0; i < n; i++) {
		const char *hn, *hv;

		if (h->at(h, i, &hn, &hv) == SRT_OK && hn && strcasecmp(hn, name) == 0)
			found++;
	}
	return found;
}

/* ---- Authorization ---- */

/* "Credential=<id>/<scope>" (scope: date/region/service/aws4_request),
 * "SignedHeaders=a;b", "Signature=<hex>", comma-separated, blanks allowed
 * around. Splits w->auth in place. 0 or a refusal detail. */
static const char *parse_auth(struct ws *w, const char *algo)
{
	char *p = w->auth + strlen(algo), *part;
	const char *sig = NULL;

	w->akid = w->scope = w->signed_headers = NULL;
	while (*p) {
		char *eq;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		part = p;
		while (*p && *p != ',' && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
		eq = strchr(part, '=');
		if (!eq)
			return "the Authorization header is malformed";
		*eq++ = '\0';
		if (strcmp(part, "Credential") == 0 && !w->akid) {
			char *slash = strchr(eq, '/');

			if (!slash)
				return "the Authorization Credential has no scope";
			w->akid = eq;
			w->akid_len = (size_t)(slash - eq);
			w->scope = slash + 1;
			w->scope_len = strlen(w->scope);
		} else if (strcmp(part, "SignedHeaders") == 0 && !w->signed_headers) {
			w->signed_headers = eq;
			w->sh_len = strlen(eq);
		} else if (strcmp(part, "Signature") == 0 && !sig) {
			sig = eq;
		} else {
			return "the Authorization header has an unknown or repeated component";
		}
	}
	if (!w->akid)
		return "the Authorization header has no Credential";
	if (!w->signed_headers || !w->sh_len)
		return "the Authorization header has no SignedHeaders";
	if (!sig || !*sig)
		return "the Authorization header has no Signature";
	return NULL;
}

static int scope_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* The services that sign their path as sent, encoded once and never
 * normalised (S3's rule); every other service resolves dot segments and
 * encodes the path a second time. The last slot is spare (NULL) so a test
 * can run AWS's "unnormalized" cases under their own service name. */
static const char *s3_services[] = { "s3", "s3-object-lambda", "s3-outposts", NULL };

/* date(8 digits)/region/service/aws4_request */
static const char *parse_scope(struct ws *w)
{
	const char *s = w->scope, *end = w->scope + w->scope_len, *part[4];
	size_t len[4], i = 0, j;

	while (i < 4) {
		const char *slash = memchr(s, '/', (size_t)(end - s));

		part[i] = s;
		len[i] = (slash ? slash : end) - s;
		i++;
		if (!slash)
			break;
		s = slash + 1;
	}
	if (i != 4 || part[3] + len[3] != end || len[3] != 12 ||
	    memcmp(part[3], "aws4_request", 12) != 0)
		return "the credential scope is not <date>/<region>/<service>/aws4_request";
	if (len[0] != 8)
		return "the credential scope's date is not YYYYMMDD";
	for (j = 0; j < 8; j++)
		if (part[0][j] < '0' || part[0][j] > '9')
			return "the credential scope's date is not YYYYMMDD";
	for (i = 1; i < 3; i++) {
		if (!len[i])
			return "the credential scope has an empty region or service";
		for (j = 0; j < len[i]; j++)
			if (!scope_char(part[i][j]))
				return "the credential scope's region or service has a bad character";
	}
	w->date = part[0], w->date_len = len[0];
	w->region = part[1], w->region_len = len[1];
	w->service = part[2], w->service_len = len[2];
	w->is_s3 = 0;
	for (i = 0; i < sizeof(s3_services) / sizeof(s3_services[0]); i++)
		if (eq_n(w->service, w->service_len, s3_services[i]))
			w->is_s3 = 1;
	return NULL;
}

static int token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == '.' || c == '!' || c == '#' || c == '$' || c == '%' || c == '&' ||
	       c == '\'' || c == '*' || c == '+' || c == '^' || c == '`' || c == '|' || c == '~';
}

/* Lower-case header names, ';'-separated, strictly ascending. */
static const char *parse_signed_headers(struct ws *w)
{
	const char *s = w->signed_headers, *end = s + w->sh_len;

	w->nnames = 0;
	while (s < end) {
		const char *semi = memchr(s, ';', (size_t)(end - s));
		size_t len = (size_t)((semi ? semi : end) - s), i;

		if (!len)
			return "SignedHeaders has an empty name";
		for (i = 0; i < len; i++)
			if (!token_char(s[i]))
				return "SignedHeaders has a name that is not a lower-case token";
		if (w->nnames == SIGV4_MAX_SIGNED)
			return "SignedHeaders names too many headers";
		if (w->nnames) {
			const char *prev = w->names[w->nnames - 1];
			size_t plen = w->name_len[w->nnames - 1];
			int c = memcmp(prev, s, plen < len ? plen : len);

			if (c > 0 || (c == 0 && plen >= len))
				return "SignedHeaders is not sorted";
		}
		if (len == 13 && memcmp(s, "authorization", 13) == 0)
			return "SignedHeaders names Authorization";
		w->names[w->nnames] = s;
		w->name_len[w->nnames] = len;
		w->nnames++;
		s = semi ? semi + 1 : end;
	}
	return NULL;
}

/* ---- classification ---- */

/* Decode %XY escapes of s[0..n) into out (at most outcap - 1 bytes). */
static size_t pct_decode(const char *s, size_t n, char *out, size_t outcap)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < outcap; i++) {
		int c = escape_at(s, n, i);

		if (c >= 0) {
			out[o++] = (char)c;
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return o;
}

/* A presigned URL naming our key: X-Amz-Credential=<id>/... in the query.
 * K_SIGV4A when X-Amz-Algorithm says ECDSA, K_PRESIGNED otherwise. */
static enum kind presigned_kind(const char *target, const struct sigv4_key *fake,
				const struct sigv4_key *real)
{
	const char *q = strchr(target, '?'), *p;
	int ours = 0, ecdsa = 0;

	if (!q)
		return K_NONE;
	for (p = q + 1; *p;) {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		char key[64], val[MAX_KEY_ID + 64];

		if (eq && (size_t)(eq - p) < sizeof(key)) {
			size_t vlen;

			pct_decode(p, (size_t)(eq - p), key, sizeof(key));
			vlen = pct_decode(eq + 1, (size_t)(end - eq - 1), val, sizeof(val));
			if (strcasecmp(key, "X-Amz-Credential") == 0) {
				const char *slash = memchr(val, '/', vlen);

				if (slash && our_key_id(val, (size_t)(slash - val), fake, real))
					ours = 1;
			} else if (strcasecmp(key, "X-Amz-Algorithm") == 0 &&
				   strcmp(val, ALGO_A) == 0) {
				ecdsa = 1;
			}
		}
		p = amp ? amp + 1 : end;
	}
	if (!ours)
		return K_NONE;
	return ecdsa ? K_SIGV4A : K_PRESIGNED;
}

/* The algorithm of an Authorization value that names our key id in its
 * Credential, or NULL. */
static const char *auth_ours(const char *auth, const struct sigv4_key *fake,
			     const struct sigv4_key *real)
{
	const char *algo = NULL, *cred, *slash;

	if (!auth)
		return NULL;
	if (strncmp(auth, ALGO " ", sizeof(ALGO)) == 0)
		algo = ALGO;
	else if (strncmp(auth, ALGO_A " ", sizeof(ALGO_A)) == 0)
		algo = ALGO_A;
	else
		return NULL;
	cred = strstr(auth, "Credential=");
	if (!cred)
		return NULL;
	cred += strlen("Credential=");
	slash = strchr(cred, '/');
	if (!slash || !our_key_id(cred, (size_t)(slash - cred), fake, real))
		return NULL;
	return algo;
}

/* The first Authorization line naming our key: its algorithm and value;
 * *lines counts the Authorization lines. Every line is looked at (a
 * comparison each, within the proxy's own head limit) so that a request
 * padded past SIGV4_MAX_HEADERS is still recognised, then refused. */
static const char *find_auth(const struct srt_filter_headers *h, const struct sigv4_key *fake,
			     const struct sigv4_key *real, const char **value, size_t *lines)
{
	size_t i, n = h->count(h);
	const char *algo = NULL;

	*lines = 0;
	*value = NULL;
	for (i = 0; i < n; i++) {
		const char *hn, *hv, *a;

		if (h->at(h, i, &hn, &hv) != SRT_OK || !hn || !hv ||
		    strcasecmp(hn, "authorization") != 0)
			continue;
		(*lines)++;
		a = auth_ours(hv, fake, real);
		if (a && !algo) {
			algo = a;
			*value = hv;
		}
	}
	return algo;
}

/* What kind of request this is, as far as our key goes. For K_HEADER
 * w->auth is parsed; *detail is set when the request is ours but cannot
 * be re-signed as it is (the caller refuses). */
static enum kind classify(struct ws *w, const char *target, const struct srt_filter_headers *h,
			  const struct sigv4_key *fake, const struct sigv4_key *real,
			  const char **detail)
{
	const char *auth, *algo, *sha;
	size_t len, lines;

	*detail = NULL;
	algo = find_auth(h, fake, real, &auth, &lines);
	if (!algo)
		return presigned_kind(target, fake, real);
	if (strcmp(algo, ALGO_A) == 0)
		return K_SIGV4A;
	if (lines != 1) {
		*detail = "the request has more than one Authorization header";
		return K_HEADER;
	}
	if (h->count(h) > SIGV4_MAX_HEADERS) {
		*detail = "the request has more than 256 header lines";
		return K_HEADER;
	}
	len = strlen(auth);
	if (len > SIGV4_MAX_AUTH) {
		*detail = "the Authorization header is too long";
		return K_HEADER;
	}
	memcpy(w->auth, auth, len + 1);
	*detail = parse_auth(w, algo);
	if (!*detail && !our_key_id(w->akid, w->akid_len, fake, real))
		*detail = "the Authorization header names two keys";
	if (!*detail)
		*detail = parse_scope(w);
	if (!*detail)
		*detail = parse_signed_headers(w);
	sha = h->get(h, "x-amz-content-sha256");
	if (sha && strncmp(sha, "STREAMING-", 10) == 0 && strcmp(sha, STREAM_UNSIGNED) != 0)
		return K_STREAMING;
	return K_HEADER;
}

/* ---- the payload hash ---- */

static int body_absent(const struct srt_filter_headers *h)
{
	const char *cl = h->get(h, "content-length");

	if (h->get(h, "transfer-encoding"))
		return 0;
	return !cl || strcmp(cl, "0") == 0;
}

/* Sets w->payload_hash; 1 when the body's hash is needed and not given. */
static int pick_payload_hash(struct ws *w, const struct srt_filter_headers *h,
			     const char *body_hex)
{
	const char *sha = h->get(h, "x-amz-content-sha256");

	w->set_payload_header = 0;
	if (sha && (strcmp(sha, UNSIGNED) == 0 || strcmp(sha, STREAM_UNSIGNED) == 0)) {
		w->payload_hash = sha;
		return 0;
	}
	if (body_hex) {
		w->payload_hash = body_hex;
		w->set_payload_header = sha && strcmp(sha, body_hex) != 0;
		return 0;
	}
	if (sha && is_hex64(sha)) {
		w->payload_hash = sha;
		return 0;
	}
	if (!sha && body_absent(h)) {
		w->payload_hash = EMPTY_SHA256;
		return 0;
	}
	return 1;
}

/* ---- the canonical request ---- */

/* RFC 3986 dot segments resolved and empty segments dropped, as AWS
 * services other than S3 do; a trailing slash is kept. */
static void normalise_path(struct ws *w, const char *path, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t start, len;

		while (i < n && path[i] == '/')
			i++;
		start = i;
		while (i < n && path[i] != '/')
			i++;
		len = i - start;
		if (!len || (len == 1 && path[start] == '.'))
			continue;
		if (len == 2 && path[start] == '.' && path[start + 1] == '.') {
			while (o && w->upath[o - 1] != '/')
				o--;
			if (o)
				o--;
			continue;
		}
		w->upath[o++] = '/';
		memcpy(w->upath + o, path + start, len);
		o += len;
	}
	if (!o)
		w->upath[o++] = '/';
	else if (path[n - 1] == '/')
		w->upath[o++] = '/';
	w->upath[o] = '\0';
}

static void emit_uri(struct ws *w, const char *path, size_t n)
{
	size_t i;

	if (!w->is_s3) {
		/* the path as sent is encoded once; AWS encodes it again */
		normalise_path(w, path, n);
		for (i = 0; w->upath[i]; i++) {
			unsigned char c = (unsigned char)w->upath[i];

			if (unreserved(c) || c == '/')
				emit(w, (const char *)&w->upath[i], 1);
			else
				emit_pct(w, c);
		}
		return;
	}
	/* S3: encoded once; escapes of unreserved characters undone, others
	 * kept (an encoded '/' stays one), bare reserved bytes encoded */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		int e = escape_at(path, n, i);

		if (e >= 0) {
			c = (unsigned char)e;
			i += 2;
			if (unreserved(c))
				emit(w, (const char *)&c, 1);
			else
				emit_pct(w, c);
		} else if (unreserved(c) || c == '/') {
			emit(w, (const char *)&c, 1);
		} else {
			emit_pct(w, c);
		}
	}
}

/* Decode then strictly encode s[0..n) into w->qenc at *used. */
static int encode_component(struct ws *w, const char *s, size_t n, size_t *used)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int e = escape_at(s, n, i);

		if (e >= 0) {
			c = (unsigned char)e;
			i += 2;
		}
		if (*used + 3 >= sizeof(w->qenc))
			return -1;
		if (unreserved(c)) {
			w->qenc[(*used)++] = (char)c;
		} else {
			w->qenc[(*used)++] = '%';
			w->qenc[(*used)++] = digits[c >> 4];
			w->qenc[(*used)++] = digits[c & 15];
		}
	}
	return 0;
}

static int param_cmp(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(x->k, y->k, n);

	if (c || x->klen != y->klen)
		return c ? c : (x->klen < y->klen ? -1 : 1);
	n = x->vlen < y->vlen ? x->vlen : y->vlen;
	c = memcmp(x->v, y->v, n);
	if (c || x->vlen != y->vlen)
		return c ? c : (x->vlen < y->vlen ? -1 : 1);
	return 0;
}

static const char *build_query(struct ws *w, const char *q)
{
	size_t used = 0;

	w->nparams = 0;
	while (q && *q) {
		const char *amp = strchr(q, '&'), *end = amp ? amp : q + strlen(q);
		const char *eq = memchr(q, '=', (size_t)(end - q));
		const char *kend = eq ? eq : end;
		struct param *p;

		if (end == q) {
			q = amp ? amp + 1 : end;
			continue;
		}
		if (w->nparams == SIGV4_MAX_PARAMS)
			return "the query has too many parameters";
		p = &w->params[w->nparams++];
		p->k = w->qenc + used;
		if (encode_component(w, q, (size_t)(kend - q), &used) < 0)
			return "the query is too long";
		p->klen = (size_t)(w->qenc + used - p->k);
		p->v = w->qenc + used;
		if (eq && encode_component(w, eq + 1, (size_t)(end - eq - 1), &used) < 0)
			return "the query is too long";
		p->vlen = (size_t)(w->qenc + used - p->v);
		q = amp ? amp + 1 : end;
	}
	qsort(w->params, w->nparams, sizeof(w->params[0]), param_cmp);
	return NULL;
}

static void emit_query(struct ws *w)
{
	size_t i;

	for (i = 0; i < w->nparams; i++) {
		if (i)
			emit(w, "&", 1);
		emit(w, w->params[i].k, w->params[i].klen);
		emit(w, "=", 1);
		emit(w, w->params[i].v, w->params[i].vlen);
	}
}

static const char *emit_headers(struct ws *w, const struct srt_filter_headers *h)
{
	size_t i;

	for (i = 0; i < w->nnames; i++) {
		const char *name = w->names[i];
		size_t len = w->name_len[i];
		const char *value;
		int r;

		if (w->token_value && eq_n(name, len, "x-amz-security-token")) {
			value = w->token_value;
		} else if (w->set_payload_header && eq_n(name, len, "x-amz-content-sha256")) {
			value = w->payload_hash;
		} else {
			r = header_joined(w, h, name, len);
			if (r < 0)
				return "a signed header is too long or the head has too many lines";
			if (r == 0)
				return "a header named in SignedHeaders is missing";
			value = w->value;
		}
		emit(w, name, len);
		emit(w, ":", 1);
		emit_s(w, value);
		emit(w, "\n", 1);
	}
	return NULL;
}

/* The canonical request's SHA-256, hex, into `hex`; the request line
 * parts come from the caller. 0 or a refusal detail. */
static const char *canonical_hash(struct ws *w, const char *method, const char *target,
				  const struct srt_filter_headers *h, char hex[65])
{
	const char *q = strchr(target, '?'), *detail;
	size_t plen = q ? (size_t)(q - target) : strlen(target);
	unsigned char d[SRT__SHA256_LEN];

	detail = build_query(w, q ? q + 1 : NULL);
	if (detail)
		return detail;
	srt__sha256_init(&w->sha);
	emit_s(w, method);
	emit(w, "\n", 1);
	emit_uri(w, target, plen);
	emit(w, "\n", 1);
	emit_query(w);
	emit(w, "\n", 1);
	detail = emit_headers(w, h);
	if (detail)
		return detail;
	emit(w, "\n", 1);
	emit(w, w->signed_headers, w->sh_len);
	emit(w, "\n", 1);
	emit_s(w, w->payload_hash);
	srt__sha256_final(&w->sha, d);
	srt__sha256_hex(d, sizeof(d), hex);
	return NULL;
}

/* HMAC chain: "AWS4"+secret, date, region, service, "aws4_request", then
 * the string to sign. */
static void sign(struct ws *w, const char *secret, const char *amz_date, const char *creq_hex,
		 char sig[65])
{
	unsigned char k[SRT__SHA256_LEN];
	struct srt__hmac_sha256 c;
	size_t slen = strlen(secret);

	memcpy(w->key, "AWS4", 4);
	memcpy(w->key + 4, secret, slen);
	srt__hmac_sha256(w->key, 4 + slen, w->date, w->date_len, k);
	srt__hmac_sha256(k, sizeof(k), w->region, w->region_len, k);
	srt__hmac_sha256(k, sizeof(k), w->service, w->service_len, k);
	srt__hmac_sha256(k, sizeof(k), "aws4_request", 12, k);
	srt__hmac_sha256_init(&c, k, sizeof(k));
	srt__hmac_sha256_update(&c, ALGO "\n", sizeof(ALGO));
	srt__hmac_sha256_update(&c, amz_date, AMZ_DATE_LEN);
	srt__hmac_sha256_update(&c, "\n", 1);
	srt__hmac_sha256_update(&c, w->scope, w->scope_len);
	srt__hmac_sha256_update(&c, "\n", 1);
	srt__hmac_sha256_update(&c, creq_hex, 64);
	srt__hmac_sha256_final(&c, k);
	srt__sha256_hex(k, sizeof(k), sig);
	if (w->cap && !w->cap_over) {
		/* the string to sign after the canonical request, for tests */
		int n = snprintf(w->cap + w->cap_used, w->cap_len - w->cap_used,
				 "\n----\n" ALGO "\n%s\n%.*s\n%s", amz_date, (int)w->scope_len,
				 w->scope, creq_hex);

		if (n < 0 || (size_t)n >= w->cap_len - w->cap_used)
			w->cap_over = 1;
		else
			w->cap_used += (size_t)n;
	}
	memset(k, 0, sizeof(k));
}

static int amz_date_ok(const char *d)
{
	size_t i;

	if (!d || strlen(d) != AMZ_DATE_LEN || d[8] != 'T' || d[15] != 'Z')
		return 0;
	for (i = 0; i < 15; i++)
		if (i != 8 && (d[i] < '0' || d[i] > '9'))
			return 0;
	return 1;
}

static int key_ok(const struct sigv4_key *k)
{
	return k && k->key_id && *k->key_id && strlen(k->key_id) <= MAX_KEY_ID && k->secret &&
	       *k->secret && strlen(k->secret) <= MAX_SECRET;
}

static enum sigv4_outcome kind_policy(enum kind k, const struct sigv4_modes *modes, char *why,
				      size_t why_len)
{
	const char *name = k == K_STREAMING ? "streaming" : k == K_PRESIGNED ? "presigned" : "sigv4a";
	int pass = k == K_STREAMING ? modes->streaming_passthrough
		 : k == K_PRESIGNED ? modes->presigned_passthrough
				    : modes->sigv4a_passthrough;

	if (pass) {
		say(why, why_len,
		    "AWS SigV4 %s request uses a masked credential; passed through unchanged "
		    "(credentials.sigv4.%s is \"passthrough\")",
		    name, name);
		return SIGV4_NOT_OURS;
	}
	say(why, why_len,
	    "AWS SigV4 %s request uses a masked credential but cannot be re-signed by the "
	    "sandbox proxy; denied by policy. Set credentials.sigv4.%s to \"passthrough\" to "
	    "forward it unchanged",
	    name, name);
	return SIGV4_REFUSE;
}

/* The session token to sign and send: 0 or a refusal detail. */
static const char *pick_token(struct ws *w, const struct srt_filter_headers *h,
			      const struct sigv4_key *fake, const struct sigv4_key *real)
{
	const char *tok = h->get(h, "x-amz-security-token");
	size_t lines = header_lines(h, "x-amz-security-token");

	w->token_value = NULL;
	if (lines > 1)
		return "the request has more than one X-Amz-Security-Token header";
	if (!real->session_token) {
		if (tok && fake->session_token && strcmp(tok, fake->session_token) == 0)
			return "the request carries the masked session token but the real key "
			       "has none";
		return NULL;
	}
	if (tok && strcmp(tok, real->session_token) != 0 &&
	    (!fake->session_token || strcmp(tok, fake->session_token) != 0))
		return "X-Amz-Security-Token is neither the masked nor the real session token";
	w->token_value = real->session_token;
	return NULL;
}

static enum sigv4_outcome apply(struct ws *w, struct srt_filter_headers *h,
				const struct sigv4_key *real, const char *sig, char *why,
				size_t why_len)
{
	int n = snprintf(w->new_auth, sizeof(w->new_auth),
			 ALGO " Credential=%s/%.*s, SignedHeaders=%.*s, Signature=%s",
			 real->key_id, (int)w->scope_len, w->scope, (int)w->sh_len,
			 w->signed_headers, sig);

	if (n < 0 || (size_t)n >= sizeof(w->new_auth))
		return refuse(why, why_len, "the new Authorization header is too long");
	if (w->token_value && h->set(h, "X-Amz-Security-Token", w->token_value) != SRT_OK)
		return refuse(why, why_len, "X-Amz-Security-Token cannot be set");
	if (w->set_payload_header &&
	    h->set(h, "X-Amz-Content-SHA256", w->payload_hash) != SRT_OK)
		return refuse(why, why_len, "x-amz-content-sha256 cannot be set");
	if (h->set(h, "Authorization", w->new_auth) != SRT_OK)
		return refuse(why, why_len, "the Authorization header cannot be set");
	say(why, why_len, "AWS SigV4 request re-signed with the real key");
	return SIGV4_RESIGNED;
}

static enum sigv4_outcome resign(struct ws *w, const char *method, const char *target,
				 struct srt_filter_headers *h, const struct sigv4_key *fake,
				 const struct sigv4_key *real, const struct sigv4_modes *modes,
				 const char *body_hex, char *why, size_t why_len)
{
	const char *detail, *amz_date;
	char creq_hex[65], sig[65];
	enum kind k;

	k = classify(w, target, h, fake, real, &detail);
	if (k == K_NONE)
		return SIGV4_NOT_OURS;
	if (k != K_HEADER)
		return kind_policy(k, modes, why, why_len);
	if (detail)
		return refuse(why, why_len, detail);
	if (!key_ok(real))
		return refuse(why, why_len, "the real key id or secret is missing or too long");
	if (strlen(target) > SIGV4_MAX_TARGET || target[0] != '/')
		return refuse(why, why_len, "the request target is not a path of at most 8192 bytes");
	amz_date = h->get(h, "x-amz-date");
	if (!amz_date_ok(amz_date))
		return refuse(why, why_len, "the request has no valid X-Amz-Date header");
	if (header_lines(h, "x-amz-date") != 1)
		return refuse(why, why_len, "the request has more than one X-Amz-Date header");
	if (header_lines(h, "x-amz-content-sha256") > 1)
		return refuse(why, why_len, "the request has more than one x-amz-content-sha256 header");
	if (body_hex && (strlen(body_hex) != 64 || !is_hex64(body_hex)))
		return refuse(why, why_len, "the body hash given is not 64 hex digits");
	if (pick_payload_hash(w, h, body_hex))
		return refuse(why, why_len,
			      "the signature covers the request body, whose SHA-256 is "
			      "neither in x-amz-content-sha256 nor known to the proxy");
	detail = pick_token(w, h, fake, real);
	if (detail)
		return refuse(why, why_len, detail);
	detail = canonical_hash(w, method, target, h, creq_hex);
	if (detail)
		return refuse(why, why_len, detail);
	sign(w, real->secret, amz_date, creq_hex, sig);
	return apply(w, h, real, sig, why, why_len);
}

static enum sigv4_outcome run(const char *method, const char *path,
			      struct srt_filter_headers *headers, const struct sigv4_key *fake,
			      const struct sigv4_key *real, const struct sigv4_modes *modes,
			      const char *body_hex, char *why, size_t why_len, char *cap,
			      size_t cap_len)
{
	static const struct sigv4_modes deny_all;
	enum sigv4_outcome r;
	struct ws *w;

	if (why && why_len)
		why[0] = '\0';
	if (!method || !path || !headers || !key_ok(fake) || !real)
		return refuse(why, why_len, "the masked key, the request or its headers are missing");
	w = malloc(sizeof(*w));
	if (!w)
		return refuse(why, why_len, "out of memory");
	w->cap = cap;
	w->cap_len = cap_len;
	w->cap_used = 0;
	w->cap_over = 0;
	if (cap && cap_len)
		cap[0] = '\0';
	r = resign(w, method, path, headers, fake, real, modes ? modes : &deny_all, body_hex, why,
		   why_len);
	/* the workspace held the real secret (key) and the session token's
	 * pointer only; wipe what could matter */
	memset(w->key, 0, sizeof(w->key));
	free(w);
	return r;
}

enum sigv4_outcome sigv4_resign(const char *method, const char *path,
				struct srt_filter_headers *headers, const struct sigv4_key *fake,
				const struct sigv4_key *real, const struct sigv4_modes *modes,
				char *why, size_t why_len)
{
	return run(method, path, headers, fake, real, modes, NULL, why, why_len, NULL, 0);
}

enum sigv4_outcome sigv4_resign_body(const char *method, const char *path,
				     struct srt_filter_headers *headers,
				     const struct sigv4_key *fake, const struct sigv4_key *real,
				     const struct sigv4_modes *modes, const char *body_sha256_hex,
				     char *why, size_t why_len)
{
	return run(method, path, headers, fake, real, modes, body_sha256_hex, why, why_len, NULL,
		   0);
}

int sigv4_wants_body(const char *path, const struct srt_filter_headers *headers,
		     const struct sigv4_key *fake, const struct sigv4_key *real)
{
	const char *detail;
	struct ws *w;
	int wants = 0;

	if (!path || !headers || !key_ok(fake) || !real)
		return 0;
	w = malloc(sizeof(*w));
	if (!w)
		return 0;
	w->cap = NULL;
	if (classify(w, path, headers, fake, real, &detail) == K_HEADER && !detail)
		wants = pick_payload_hash(w, headers, NULL);
	free(w);
	return wants;
}
