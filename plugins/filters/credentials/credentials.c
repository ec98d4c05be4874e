/* credentials: the request filter that puts real credentials back.
 *
 * Inside the sandbox a masked variable or file holds sentinels (mask.c);
 * this filter, loaded by srt itself whenever the settings have
 * `credentials` (never listed in network.filters), replaces each sentinel
 * by its real value in requests to that credential's own hosts
 * (injectHosts, by default the allowed domains) and nowhere else: a
 * request to any other host leaves with the sentinel, which is worthless.
 *
 *   headers  every header line but the framing ones (Host,
 *            Content-Length, ...): values with a sentinel are rewritten
 *   body     streamed through the filter ABI's body rewriting: sentinels
 *            split across reads are found; the Content-Length is kept
 *            when every injectable sentinel has its real value's length,
 *            else the body goes chunked. Bodies with a Content-Encoding
 *            are left alone (the sentinel is not visible in them).
 *   where    only inside TLS that srt terminated (scheme "https"); on
 *            plain HTTP only with credentials.allowPlaintextInject
 *   AWS      a request signed (SigV4) with a masked access key id is
 *            refused unless it can be re-signed with the real key, so it
 *            never leaves with a signature made from the sentinels
 *
 * Configuration (built by srt, never by hand: it holds the real values,
 * and lives in srt's memory only):
 *   {"pairs": [{"name": "env:NAME#0", "sentinel": "...", "real": "...",
 *               "hosts": ["api.example.com", "*.example.com"]}],
 *    "allowPlaintextInject": false,
 *    "awsPairs": [{"accessKeyIdVar": ..., "secretAccessKeyVar": ...,
 *                  "sessionTokenVar": ...}],
 *    "sigv4": {"streaming": "deny", "presigned": "deny", "sigv4a": "deny"}} */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include <srt/filter.h>

#include "common/platform.h"
#include "plugins/filters/common/jcfg.h"
#include "credentials.h"
#include "mask.h"
#include "sha256.h"
#include "sigv4.h"
#include "subst.h"

static void pair_free(struct cred_pair *p)
{
	size_t i;

	free(p->name);
	if (p->real) {
		srt__os_wipe(p->real, strlen(p->real));
		free(p->real);
	}
	free(p->sentinel);
	for (i = 0; i < p->n_hosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
}

void cred_free(struct cred_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n; i++)
		pair_free(&st->p[i]);
	free(st->p);
	for (i = 0; i < st->n_aws; i++) {
		free(st->aws[i].id_var);
		free(st->aws[i].secret_var);
		free(st->aws[i].token_var);
	}
	free(st->aws);
	free(st);
}

static char *str_member(const cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));

	return v ? strdup(v) : NULL;
}

static int parse_pair(const cJSON *o, struct cred_pair *p, const char *path,
		      struct srt_filter_error *err)
{
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(o, "hosts"), *h;

	p->name = str_member(o, "name");
	p->sentinel = str_member(o, "sentinel");
	p->real = str_member(o, "real");
	if (!p->name || !p->sentinel || !p->real || !*p->sentinel || !cJSON_IsArray(hosts))
		return jcfg_fail(err, path, "expected {name, sentinel, real, hosts}");
	p->n_hosts = (size_t)cJSON_GetArraySize(hosts);
	if (p->n_hosts && !(p->hosts = calloc(p->n_hosts, sizeof(*p->hosts))))
		return jcfg_fail(err, path, "out of memory");
	p->n_hosts = 0;
	cJSON_ArrayForEach(h, hosts) {
		if (!cJSON_IsString(h) || !(p->hosts[p->n_hosts] = strdup(h->valuestring)))
			return jcfg_fail(err, path, "hosts: expected strings");
		p->n_hosts++;
	}
	return SRT_OK;
}

static int parse_sigv4_mode(const cJSON *sig, const char *k, int *out)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sig, k));

	*out = v && !strcmp(v, "passthrough");
	return SRT_OK;
}

int cred_parse(const char *config_json, struct cred_state **out, struct srt_filter_error *err)
{
	cJSON *root = config_json ? cJSON_Parse(config_json) : NULL;
	const cJSON *pairs, *it, *aws, *sig;
	struct cred_state *st;
	char path[64];
	size_t i = 0;
	int rc = SRT_OK;

	*out = NULL;
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return jcfg_fail(err, "", "this filter is configured by srt from the settings' credentials; it is not listed in network.filters");
	}
	if (!(st = calloc(1, sizeof(*st)))) {
		cJSON_Delete(root);
		return jcfg_fail(err, "", "out of memory");
	}
	pairs = cJSON_GetObjectItemCaseSensitive(root, "pairs");
	if (!cJSON_IsArray(pairs)) {
		rc = jcfg_fail(err, "pairs", "expected an array");
		goto out;
	}
	st->n = (size_t)cJSON_GetArraySize(pairs);
	if (st->n && !(st->p = calloc(st->n, sizeof(*st->p)))) {
		rc = jcfg_fail(err, "pairs", "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(it, pairs) {
		jcfg_index(path, sizeof(path), "pairs", i);
		if ((rc = parse_pair(it, &st->p[i++], path, err)))
			goto out;
	}
	st->plaintext = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "allowPlaintextInject"));
	aws = cJSON_GetObjectItemCaseSensitive(root, "awsPairs");
	if (cJSON_IsArray(aws) && cJSON_GetArraySize(aws)) {
		st->aws = calloc((size_t)cJSON_GetArraySize(aws), sizeof(*st->aws));
		if (!st->aws) {
			rc = jcfg_fail(err, "awsPairs", "out of memory");
			goto out;
		}
		cJSON_ArrayForEach(it, aws) {
			struct cred_aws *a = &st->aws[st->n_aws++];

			a->id_var = str_member(it, "accessKeyIdVar");
			a->secret_var = str_member(it, "secretAccessKeyVar");
			a->token_var = str_member(it, "sessionTokenVar");
		}
	}
	sig = cJSON_GetObjectItemCaseSensitive(root, "sigv4");
	parse_sigv4_mode(sig, "streaming", &st->sigv4_streaming);
	parse_sigv4_mode(sig, "presigned", &st->sigv4_presigned);
	parse_sigv4_mode(sig, "sigv4a", &st->sigv4_sigv4a);
out:
	cJSON_Delete(root);
	if (rc) {
		cred_free(st);
		return rc;
	}
	*out = st;
	return SRT_OK;
}

/* ------------------------------------------------------------ per request */

/* An injectHosts pattern ("host", "*.domain", "host:port", "[v6]",
 * "[v6]:port") against the request's canonical host (lower case, IPv6
 * without brackets): "*." takes subdomains only, no port takes any. */
int cred_host_match(const char *host, unsigned port, const char *pattern)
{
	char pat[300];
	char *colon;
	size_t hl, pl;

	if (snprintf(pat, sizeof(pat), "%s", pattern) >= (int)sizeof(pat))
		return 0;
	if (pat[0] == '[') {
		char *close = strchr(pat, ']');

		if (!close)
			return 0;
		if (close[1] == ':' && (unsigned)atoi(close + 2) != port)
			return 0;
		*close = '\0';
		return !strcasecmp(host, pat + 1);
	}
	colon = strchr(pat, ':');
	if (colon && !strchr(colon + 1, ':')) {
		if ((unsigned)atoi(colon + 1) != port)
			return 0;
		*colon = '\0';
	} else if (colon) {
		return !strcasecmp(host, pat); /* a bare IPv6 address */
	}
	if (pat[0] == '*' && pat[1] == '.') {
		hl = strlen(host);
		pl = strlen(pat + 1); /* ".domain" */
		return hl > pl && !strcasecmp(host + hl - pl, pat + 1);
	}
	return !strcasecmp(host, pat);
}

int cred_injectable(const struct cred_pair *p, const char *host, unsigned port)
{
	size_t i;

	for (i = 0; i < p->n_hosts; i++)
		if (cred_host_match(host, port, p->hosts[i]))
			return 1;
	return 0;
}

int cred_transport_ok(const struct cred_state *st, const struct srt_filter_request *req)
{
	const char *scheme = req->conn ? req->conn->scheme : NULL;

	if (scheme && !strcmp(scheme, "https"))
		return 1;
	return scheme && !strcmp(scheme, "http") && st->plaintext;
}

struct cred_req *cred_req_new(const struct cred_state *st, const char *host, unsigned port)
{
	struct cred_req *r = calloc(1, sizeof(*r));
	size_t i;

	if (!r)
		return NULL;
	if (st->n && !(r->pairs = calloc(st->n, sizeof(*r->pairs)))) {
		free(r);
		return NULL;
	}
	r->same_length = 1;
	for (i = 0; i < st->n; i++) {
		const struct cred_pair *p = &st->p[i];
		struct subst_pair *sp;

		if (!cred_injectable(p, host, port))
			continue;
		sp = &r->pairs[r->n++];
		sp->from = p->sentinel;
		sp->from_len = strlen(p->sentinel);
		sp->to = p->real;
		sp->to_len = strlen(p->real);
		if (sp->from_len != sp->to_len)
			r->same_length = 0;
	}
	return r;
}

void cred_req_free(struct cred_req *r)
{
	if (!r)
		return;
	if (r->streaming)
		subst_stream_release(&r->stream);
	free(r->pairs);
	free(r);
}

/* The joined value of every line named `name`, each with the sentinels
 * replaced: NULL on no memory. */
static char *joined(const struct cred_req *r, const struct srt_filter_headers *h,
		    const char *name, unsigned long long *count)
{
	const char *sep = !strcasecmp(name, "cookie") ? "; " : ", ";
	char *acc = NULL;
	size_t i, n = h->count(h);

	*count = 0;
	for (i = 0; i < n; i++) {
		const char *nm, *v;
		unsigned long long k;
		char *s, *next;

		if (h->at(h, i, &nm, &v) || strcasecmp(nm, name))
			continue;
		if (!(s = subst_string(r->pairs, r->n, v, strlen(v), NULL, &k))) {
			free(acc);
			return NULL;
		}
		*count += k;
		if (!acc) {
			acc = s;
			continue;
		}
		next = NULL;
		if (asprintf(&next, "%s%s%s", acc, sep, s) < 0)
			next = NULL;
		srt__os_wipe(s, strlen(s));
		free(s);
		srt__os_wipe(acc, strlen(acc));
		free(acc);
		if (!(acc = next))
			return NULL;
	}
	return acc;
}

static int is_framing(const char *name)
{
	static const char *const framing[] = {
		"host", "content-length", "transfer-encoding", "connection", "upgrade",
		"te", "trailer", "keep-alive", "proxy-connection", NULL
	};
	size_t i;

	for (i = 0; framing[i]; i++)
		if (!strcasecmp(name, framing[i]))
			return 1;
	return 0;
}

static int has_sentinel(const struct cred_req *r, const char *v)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strstr(v, r->pairs[i].from))
			return 1;
	return 0;
}

int cred_headers(const struct cred_req *r, struct srt_filter_headers *h, char *why,
		 size_t why_len, unsigned long long *total)
{
	size_t i, rounds = 0;

	*total = 0;
	for (i = 0; i < h->count(h); i++) {
		const char *nm, *v;
		unsigned long long k;
		char *val, *name;
		int rc;

		if (h->at(h, i, &nm, &v) || !has_sentinel(r, v) ||
		    is_framing(nm))
			continue;
		/* the name stays valid only until set(): a copy, whole */
		if (!(name = strdup(nm)) || !(val = joined(r, h, name, &k))) {
			free(name);
			snprintf(why, why_len, "credentials: out of memory");
			return -1;
		}
		rc = h->set(h, name, val);
		srt__os_wipe(val, strlen(val));
		free(val);
		if (rc) {
			snprintf(why, why_len, "credentials: the credential could not be put into header %.100s", name);
			free(name);
			return -1;
		}
		free(name);
		*total += k;
		if (++rounds > SRT_FILTER_BODY_MAX) /* never: a real value holds no sentinel */
			return -1;
		/* set() put the joined line last: the lines before i are
		 * unchanged, so start again from the top (each sentinel-free
		 * now or framing) */
		i = (size_t)-1;
	}
	return 0;
}


/* ------------------------------------------------------------ AWS */

/* The sentinel standing for variable `var` masked whole, or NULL. */
static const struct cred_pair *whole_pair(const struct cred_state *st, const char *var)
{
	char key[300];
	size_t i;

	snprintf(key, sizeof(key), "env:%s#0", var);
	for (i = 0; i < st->n; i++)
		if (!strcmp(st->p[i].name, key))
			return &st->p[i];
	return NULL;
}

/* One AWS key as the sandbox has it (sentinels) and as it is. */
struct aws_keys {
	const struct cred_pair *id, *secret, *token; /* token may be NULL */
	struct sigv4_key fake, real;
};

static void aws_fill(struct aws_keys *k)
{
	k->fake.key_id = k->id->sentinel;
	k->fake.secret = k->secret->sentinel;
	k->fake.session_token = k->token ? k->token->sentinel : NULL;
	k->real.key_id = k->id->real;
	k->real.secret = k->secret->real;
	k->real.session_token = k->token ? k->token->real : NULL;
}

/* The masked AWS keys: awsPairs, or else AWS_ACCESS_KEY_ID with
 * AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) masked whole. */
static size_t aws_keys(const struct cred_state *st, struct aws_keys *keys, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < st->n_aws && n < max; i++) {
		struct aws_keys *k = &keys[n];

		k->id = st->aws[i].id_var ? whole_pair(st, st->aws[i].id_var) : NULL;
		k->secret = st->aws[i].secret_var ? whole_pair(st, st->aws[i].secret_var) : NULL;
		k->token = st->aws[i].token_var ? whole_pair(st, st->aws[i].token_var) : NULL;
		if (k->id && k->secret) {
			aws_fill(k);
			n++;
		}
	}
	if (!st->n_aws && n < max) {
		struct aws_keys *k = &keys[n];

		k->id = whole_pair(st, "AWS_ACCESS_KEY_ID");
		k->secret = whole_pair(st, "AWS_SECRET_ACCESS_KEY");
		k->token = whole_pair(st, "AWS_SESSION_TOKEN");
		if (k->id && k->secret) {
			aws_fill(k);
			n++;
		}
	}
	return n;
}

/* The masked key the request is SigV4-signed with (header or presigned
 * URL), when its destination is among that key's hosts; else NULL. */
static const struct aws_keys *aws_signed_with_mask(const struct cred_state *st,
						   const struct srt_filter_request *req,
						   struct aws_keys *keys, size_t max)
{
	const char *auth = req->headers->get(req->headers, "authorization");
	size_t i, n = aws_keys(st, keys, max);

	for (i = 0; i < n; i++) {
		const char *id = keys[i].id->sentinel;

		if (!cred_injectable(keys[i].id, req->host, req->port))
			continue;
		if (auth && !strncmp(auth, "AWS4-", 5) && strstr(auth, id))
			return &keys[i];
		if (req->path && strstr(req->path, "X-Amz-Credential=") && strstr(req->path, id))
			return &keys[i];
	}
	return NULL;
}

/* ------------------------------------------------------------ the filter */

static int cr_create(const struct srt_filter_host *host, const char *config_json, void **state,
		     struct srt_filter_error *err)
{
	struct cred_state *st;
	int rc = cred_parse(config_json, &st, err);

	if (rc)
		return rc;
	st->host = host;
	*state = st;
	return SRT_OK;
}

static void cr_destroy(void *state)
{
	cred_free(state);
}

static void cr_log(const struct cred_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void cr_log(const struct cred_state *st, const char *fmt, ...)
{
	char line[400];
	va_list ap;

	if (!st->host || !st->host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	st->host->log(st->host, 1, line);
}

static void sigv4_modes_of(const struct cred_state *st, struct sigv4_modes *m)
{
	m->streaming_passthrough = st->sigv4_streaming;
	m->presigned_passthrough = st->sigv4_presigned;
	m->sigv4a_passthrough = st->sigv4_sigv4a;
}

/* A request signed with a masked AWS key: re-signed with the real one,
 * or its body read first when its payload hash must be computed, or
 * refused (403); never forwarded with the sentinel's signature. */
static enum srt_filter_verdict cr_sigv4(struct cred_state *st, struct srt_filter_request *req,
					struct srt_filter_call *call, const struct aws_keys *k,
					struct cred_req *r)
{
	struct sigv4_modes modes;
	char why[SRT_FILTER_REASON_MAX];
	const char *sha;
	enum sigv4_outcome o;

	sigv4_modes_of(st, &modes);
	why[0] = '\0';
	if (sigv4_wants_body(req->path, req->headers, &k->fake, &k->real)) {
		/* the signature covers the body's hash: read it (as it will
		 * be sent: not rewritten), then sign */
		r->sigv4_body = 1;
		r->sigv4_keys.fake = k->fake;
		r->sigv4_keys.real = k->real;
		r->sigv4_payload_signed = 1;
		srt__sha256_init(&r->sha);
		call->body_cap = SRT_FILTER_BODY_MAX;
		return SRT_FILTER_CONTINUE;
	}
	o = sigv4_resign(req->method, req->path, req->headers, &k->fake, &k->real, &modes, why,
			 sizeof(why));
	if (o == SIGV4_REFUSE) {
		call->status = 403;
		snprintf(call->reason, sizeof(call->reason), "%s", why[0] ? why :
			 "AWS SigV4 request uses a masked credential but cannot be re-signed");
		return SRT_FILTER_DENY;
	}
	if (o == SIGV4_RESIGNED) {
		sha = req->headers->get(req->headers, "x-amz-content-sha256");
		/* a body whose hash was signed must leave as it was hashed */
		r->sigv4_payload_signed = !sha || strcmp(sha, "UNSIGNED-PAYLOAD") != 0;
		cr_log(st, "credentials: AWS SigV4 request %s %s re-signed with the real key",
		       req->method, req->host);
	} else if (why[0]) {
		cr_log(st, "credentials: %s", why);
	}
	return SRT_FILTER_CONTINUE;
}

/* The body of a request whose SigV4 payload hash must be computed. */
static enum srt_filter_verdict cr_sigv4_body(void *state, struct srt_filter_request *req,
					     const void *chunk, size_t len, int end, int truncated,
					     struct srt_filter_call *call)
{
	struct cred_state *st = state;
	struct cred_req *r = *call->data;
	struct sigv4_modes modes;
	unsigned char digest[SRT__SHA256_LEN];
	char hex[2 * SRT__SHA256_LEN + 1], why[SRT_FILTER_REASON_MAX];
	enum sigv4_outcome o;

	if (!r || !r->sigv4_body) {
		snprintf(call->reason, sizeof(call->reason), "credentials: a body arrived that was not asked for");
		return SRT_FILTER_ERROR;
	}
	if (len)
		srt__sha256_update(&r->sha, chunk, len);
	if (!end)
		return SRT_FILTER_CONTINUE;
	if (truncated) {
		call->status = 403;
		snprintf(call->reason, sizeof(call->reason),
			 "AWS SigV4 request uses a masked credential and its body is too large to hash for re-signing");
		return SRT_FILTER_DENY;
	}
	srt__sha256_final(&r->sha, digest);
	srt__sha256_hex(digest, sizeof(digest), hex);
	sigv4_modes_of(st, &modes);
	why[0] = '\0';
	o = sigv4_resign_body(req->method, req->path, req->headers, &r->sigv4_keys.fake,
			      &r->sigv4_keys.real, &modes, hex, why, sizeof(why));
	if (o != SIGV4_RESIGNED) {
		call->status = 403;
		snprintf(call->reason, sizeof(call->reason), "%s", why[0] ? why :
			 "AWS SigV4 request uses a masked credential but cannot be re-signed");
		return SRT_FILTER_DENY;
	}
	cr_log(st, "credentials: AWS SigV4 request %s %s re-signed with the real key (body hashed)",
	       req->method, req->host);
	return SRT_FILTER_CONTINUE;
}

static enum srt_filter_verdict cr_head(void *state, struct srt_filter_request *req,
				       struct srt_filter_call *call)
{
	struct cred_state *st = state;
	unsigned long long n = 0;
	struct aws_keys keys[8];
	const struct aws_keys *aws;
	struct cred_req *r;

	if (!cred_transport_ok(st, req))
		return SRT_FILTER_CONTINUE; /* sentinels leave as they are */
	if (!(r = cred_req_new(st, req->host, req->port))) {
		snprintf(call->reason, sizeof(call->reason), "credentials: out of memory");
		return SRT_FILTER_ERROR;
	}
	if (!r->n) {
		cred_req_free(r);
		return SRT_FILTER_CONTINUE;
	}
	aws = aws_signed_with_mask(st, req, keys, 8);
	if (cred_headers(r, req->headers, call->reason, sizeof(call->reason), &n) < 0) {
		cred_req_free(r);
		return SRT_FILTER_ERROR;
	}
	if (aws) {
		/* after every other header edit: the new signature covers them */
		enum srt_filter_verdict v = cr_sigv4(st, req, call, aws, r);

		if (v != SRT_FILTER_CONTINUE || r->sigv4_body) {
			if (v == SRT_FILTER_CONTINUE) {
				cred_req_free(*call->data);
				*call->data = r;
			} else {
				cred_req_free(r);
			}
			return v;
		}
	}
	if (n)
		cr_log(st, "credentials: %llu sentinel(s) replaced in the headers of %s %s", n,
		       req->method, req->host);
	/* a body that may hold sentinels goes through the rewriting hook;
	 * an encoded (compressed) one cannot show them */
	if (req->content_length != 0 && !req->headers->get(req->headers, "content-encoding") &&
	    !r->sigv4_payload_signed) {
		if (subst_stream_init(&r->stream, r->pairs, r->n) < 0) {
			cred_req_free(r);
			snprintf(call->reason, sizeof(call->reason), "credentials: out of memory");
			return SRT_FILTER_ERROR;
		}
		r->streaming = 1;
		call->rewrite = r->same_length ? SRT_FILTER_REWRITE_SAME_LENGTH :
						 SRT_FILTER_REWRITE_ANY_LENGTH;
		cred_req_free(*call->data);
		*call->data = r;
		return SRT_FILTER_CONTINUE;
	}
	cred_req_free(r);
	return SRT_FILTER_CONTINUE;
}

static int sink_emit(void *ctx, const void *p, size_t n)
{
	struct srt_filter_sink *sink = ctx;

	return sink->write(sink, p, n) ? -1 : 0;
}

static int cr_body(void *state, struct srt_filter_request *req, const void *chunk, size_t len,
		   int end, struct srt_filter_sink *out, void **data)
{
	struct cred_req *r = *data;

	(void)state;
	(void)req;
	if (!r || !r->streaming)
		return len && out->write(out, chunk, len) ? SRT_E_IO : SRT_OK;
	if (subst_stream_feed(&r->stream, chunk, len, end, sink_emit, out))
		return SRT_E_IO;
	return SRT_OK;
}

static void cr_finish(void *state, const struct srt_filter_conn *conn,
		      const struct srt_filter_request *req, const struct srt_filter_summary *sum,
		      void **data)
{
	struct cred_req *r = *data;

	(void)conn;
	(void)sum;
	if (r && r->stream.replaced && req)
		cr_log(state, "credentials: %llu sentinel(s) replaced in the body of %s %s",
		       r->stream.replaced, req->method, req->host);
	cred_req_free(r);
	*data = NULL;
}

__attribute__((visibility("default"))) const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("credentials"),
	.create = cr_create,
	.destroy = cr_destroy,
	.request_head = cr_head,
	.request_body = cr_sigv4_body,
	.finish = cr_finish,
	.rewrite_body = cr_body,
};
