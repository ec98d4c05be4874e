/* rules: declarative method / host / path / header rules, first match wins.
 *
 *   {"rules": [
 *      {"action": "deny", "methods": ["TRACE", "TRACK"]},
 *      {"action": "allow", "host": "api.github.com", "methods": ["GET", "HEAD"]},
 *      {"action": "deny", "host": "api.github.com"},
 *      {"action": "next", "path": "/me/repo.git/git-receive-pack"},
 *      {"action": "deny", "path": "*\/git-receive-pack", "status": 403,
 *       "reason": "git push is not allowed"}],
 *    "default": "next"}
 *
 * A rule matches when every condition it has holds: `methods` (exact,
 * case-sensitive, as HTTP methods are), `host` (a glob, any case), `path`
 * (a glob on the path without the query; `*` also crosses '/'), `headers`
 * (name -> glob on the first value; a missing header does not match).
 * Actions: "deny" (status 400-599, default 403, and a reason), "allow" (the
 * request goes ahead and later filters are not asked), "next" (no
 * objection from this filter: the next filter decides). No rule matching:
 * `default` ("next" unless set).
 *
 * A rule with `sni` (a glob, any case, on the server name of the TLS
 * ClientHello) judges connections instead of requests: opaque CONNECT
 * tunnels and SOCKS5 streams, whose hello the proxy reads before it dials,
 * and the connection of each request inside a terminated tunnel. It may
 * also have `host` (the connection's target); `methods`, `path` and
 * `headers` do not exist there. A connection without a server name (not
 * TLS, or a client that sent nothing in time) matches no `sni` rule. The
 * connection rules are tried in order, first match wins; none matching
 * lets the connection go on to the request rules, `default` included. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <srt/filter.h>

#include "plugins/filters/common/jcfg.h"

enum action { ACT_NEXT, ACT_ALLOW, ACT_DENY };

/* A glob, and whether it has only '*' and '?' (simple_match, not fnmatch):
 * known when the config is read, not looked for on every request */
struct glob {
	char *s;
	int simple;
	size_t lit; /* simple: the length of its prefix before any '*' or '?' */
	int literal; /* simple, with no '*' or '?' at all: s itself, lit bytes */
};

struct hdr_cond {
	char *name;
	struct glob glob;
};

struct rule {
	enum action action;
	struct glob sni; /* a connection rule (see above) */
	char **methods;
	size_t n_methods;
	struct glob host;
	int host_as_prev; /* the rule before has the same host glob */
	struct glob path;
	struct hdr_cond *headers;
	size_t n_headers;
	int status;
	char *reason;
};

struct rules {
	struct rule *r;
	size_t n;
	size_t n_conn; /* rules with sni */
	enum action dflt;
};

static char *dup_str(const cJSON *j)
{
	return strdup(j->valuestring);
}

static int is_simple(const char *glob)
{
	return !strpbrk(glob, "[\\");
}

/* What a glob's matching can know before any request (its string is
 * set by the caller). */
static void set_glob(struct glob *g, const char *s)
{
	g->simple = is_simple(s);
	g->lit = strcspn(s, "*?");
	g->literal = g->simple && s[g->lit] == '\0';
}

static int parse_action(const cJSON *j, const char *path, enum action *out,
			struct srt_filter_error *err)
{
	if (!cJSON_IsString(j))
		return jcfg_fail(err, path, "expected \"allow\", \"deny\" or \"next\"");
	if (!strcmp(j->valuestring, "allow"))
		*out = ACT_ALLOW;
	else if (!strcmp(j->valuestring, "deny"))
		*out = ACT_DENY;
	else if (!strcmp(j->valuestring, "next"))
		*out = ACT_NEXT;
	else
		return jcfg_fail(err, path, "\"%s\" is not an action (allow, deny, next)",
				 j->valuestring);
	return SRT_OK;
}

static int method_ok(const char *m)
{
	if (!*m)
		return 0;
	for (; *m; m++)
		if (!((*m >= 'A' && *m <= 'Z') || (*m >= 'a' && *m <= 'z') || *m == '-' ||
		      *m == '_'))
			return 0;
	return 1;
}

static int parse_methods(const cJSON *j, const char *base, struct rule *r,
			 struct srt_filter_error *err)
{
	const cJSON *m;
	char path[128];
	size_t i = 0;

	if (!cJSON_IsArray(j) || !cJSON_GetArraySize(j))
		return jcfg_fail(err, base, "expected a non-empty array of methods");
	r->methods = calloc((size_t)cJSON_GetArraySize(j), sizeof(*r->methods));
	if (!r->methods)
		return SRT_E_NOMEM;
	cJSON_ArrayForEach(m, j) {
		jcfg_index(path, sizeof(path), base, i++);
		if (!cJSON_IsString(m) || !method_ok(m->valuestring))
			return jcfg_fail(err, path, "expected a method name such as \"GET\"");
		if (!(r->methods[r->n_methods] = dup_str(m)))
			return SRT_E_NOMEM;
		r->n_methods++;
	}
	return SRT_OK;
}

static int parse_headers(const cJSON *j, const char *base, struct rule *r,
			 struct srt_filter_error *err)
{
	const cJSON *m;
	char path[128];

	if (!cJSON_IsObject(j) || !cJSON_GetArraySize(j))
		return jcfg_fail(err, base, "expected an object of header name -> glob");
	r->headers = calloc((size_t)cJSON_GetArraySize(j), sizeof(*r->headers));
	if (!r->headers)
		return SRT_E_NOMEM;
	cJSON_ArrayForEach(m, j) {
		jcfg_key(path, sizeof(path), base, m->string);
		if (!cJSON_IsString(m))
			return jcfg_fail(err, path, "expected a glob string");
		if (!(r->headers[r->n_headers].name = strdup(m->string)) ||
		    !(r->headers[r->n_headers].glob.s = dup_str(m)))
			return SRT_E_NOMEM;
		set_glob(&r->headers[r->n_headers].glob, m->valuestring);
		r->n_headers++;
	}
	return SRT_OK;
}

/* ASCII lower case in place: what FNM_CASEFOLD does to host names. */
static void fold_str(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
}

static int parse_glob(const cJSON *j, const char *path, struct glob *out, int is_path,
		      struct srt_filter_error *err)
{
	if (!cJSON_IsString(j) || !*j->valuestring)
		return jcfg_fail(err, path, "expected a non-empty glob string");
	if (is_path && j->valuestring[0] != '/' && j->valuestring[0] != '*')
		return jcfg_fail(err, path, "a path glob starts with '/' or '*'");
	set_glob(out, j->valuestring);
	if (!(out->s = dup_str(j)))
		return SRT_E_NOMEM;
	/* host and sni globs match in any case: a simple one is kept in
	 * lower case and meets a subject folded once per request, so its
	 * matching compares bytes (fnmatch folds the others itself) */
	if (!is_path && out->simple)
		fold_str(out->s, strlen(out->s));
	return SRT_OK;
}

static int parse_rule(const cJSON *j, const char *base, struct rule *r,
		      struct srt_filter_error *err)
{
	static const char *const known[] = { "action", "methods", "host", "path", "headers",
					     "status", "reason", "sni", NULL };
	const cJSON *v;
	char path[128];
	int rc;

	if ((rc = jcfg_members(j, base, known, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "action");
	if (!(v = cJSON_GetObjectItemCaseSensitive(j, "action")))
		return jcfg_fail(err, path, "missing (allow, deny or next)");
	if ((rc = parse_action(v, path, &r->action, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "methods");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "methods")) &&
	    (rc = parse_methods(v, path, r, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "host");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "host")) &&
	    (rc = parse_glob(v, path, &r->host, 0, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "path");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "path")) &&
	    (rc = parse_glob(v, path, &r->path, 1, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "headers");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "headers")) &&
	    (rc = parse_headers(v, path, r, err)))
		return rc;
	jcfg_key(path, sizeof(path), base, "sni");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "sni"))) {
		if ((rc = parse_glob(v, path, &r->sni, 0, err)))
			return rc;
		if (r->n_methods || r->path.s || r->n_headers)
			return jcfg_fail(err, path, "a rule with sni judges connections: it cannot "
					 "also have methods, path or headers");
	}
	r->status = 403;
	jcfg_key(path, sizeof(path), base, "status");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "status"))) {
		if (r->action != ACT_DENY)
			return jcfg_fail(err, path, "only a deny rule has a status");
		if (!cJSON_IsNumber(v) || v->valuedouble != (double)v->valueint ||
		    v->valueint < 400 || v->valueint > 599)
			return jcfg_fail(err, path, "expected an integer from 400 to 599");
		r->status = v->valueint;
	}
	jcfg_key(path, sizeof(path), base, "reason");
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "reason"))) {
		if (r->action != ACT_DENY)
			return jcfg_fail(err, path, "only a deny rule has a reason");
		if (!cJSON_IsString(v))
			return jcfg_fail(err, path, "expected a string");
		if (!(r->reason = dup_str(v)))
			return SRT_E_NOMEM;
	}
	return SRT_OK;
}

static void rules_free(struct rules *rs)
{
	size_t i, k;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++) {
		struct rule *r = &rs->r[i];

		for (k = 0; k < r->n_methods; k++)
			free(r->methods[k]);
		for (k = 0; k < r->n_headers; k++) {
			free(r->headers[k].name);
			free(r->headers[k].glob.s);
		}
		free(r->methods);
		free(r->headers);
		free(r->host.s);
		free(r->sni.s);
		free(r->path.s);
		free(r->reason);
	}
	free(rs->r);
	free(rs);
}

static int parse(const cJSON *root, struct rules *rs, struct srt_filter_error *err)
{
	static const char *const known[] = { "rules", "default", NULL };
	const cJSON *list, *e, *d;
	char path[128];
	size_t i = 0;
	int rc;

	if ((rc = jcfg_members(root, "", known, err)))
		return rc;
	if ((d = cJSON_GetObjectItemCaseSensitive(root, "default"))) {
		if ((rc = parse_action(d, "default", &rs->dflt, err)))
			return rc;
	}
	list = cJSON_GetObjectItemCaseSensitive(root, "rules");
	if (!list)
		return jcfg_fail(err, "rules", "missing: an array of rules");
	if (!cJSON_IsArray(list))
		return jcfg_fail(err, "rules", "expected an array of rules");
	rs->r = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*rs->r));
	if (!rs->r)
		return SRT_E_NOMEM;
	cJSON_ArrayForEach(e, list) {
		jcfg_index(path, sizeof(path), "rules", i++);
		rs->n++;
		if ((rc = parse_rule(e, path, &rs->r[rs->n - 1], err)))
			return rc;
		if (rs->r[rs->n - 1].sni.s)
			rs->n_conn++;
		if (rs->n > 1 && rs->r[rs->n - 1].host.s && rs->r[rs->n - 2].host.s &&
		    !strcmp(rs->r[rs->n - 1].host.s, rs->r[rs->n - 2].host.s))
			rs->r[rs->n - 1].host_as_prev = 1;
	}
	return SRT_OK;
}

static int rules_create(const struct srt_filter_host *host, const char *config_json,
			void **state, struct srt_filter_error *err)
{
	struct rules *rs = calloc(1, sizeof(*rs));
	cJSON *root = NULL;
	int rc;

	(void)host;
	if (!rs)
		return SRT_E_NOMEM;
	rc = jcfg_parse(config_json, &root, err);
	if (!rc)
		rc = parse(root, rs, err);
	cJSON_Delete(root);
	if (rc) {
		if (rc == SRT_E_NOMEM && !err->message[0])
			jcfg_fail(err, "", "out of memory");
		rules_free(rs);
		return rc;
	}
	*state = rs;
	return SRT_OK;
}

static void rules_destroy(void *state)
{
	rules_free(state);
}

/* A glob of only '*' and '?' (no brackets, no backslash) against the
 * first n bytes of s, as fnmatch() without flags would match it (for
 * FNM_CASEFOLD both sides are folded beforehand): '*' any run of bytes,
 * '/' included. Linear backtracking to the
 * last star, so no pattern costs more than len(glob) * n. This runs for
 * every rule on every request, and fnmatch()'s locale handling costs a
 * multiple of it. */
static int simple_match(const char *g, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, mark = 0;

	while (i < n) {
		if (*g == '*') {
			star = ++g;
			mark = i;
		} else if (*g && (*g == '?' || *g == s[i])) {
			g++;
			i++;
		} else if (star) {
			g = star;
			i = ++mark;
		} else {
			return 0;
		}
	}
	while (*g == '*')
		g++;
	return *g == '\0';
}

/* Does glob g match the n bytes at s? A simple glob of a host or sni rule
 * is in lower case (parse_glob) and s must then be folded (struct
 * subject); the literal prefix is compared at once, the rest only when
 * it holds. */
static int glob_matches(const struct glob *g, const char *s, size_t n, int casefold)
{
	char buf[8192];

	if (g->simple) {
		if (g->literal)
			return n == g->lit && !memcmp(g->s, s, n);
		if (n < g->lit || memcmp(g->s, s, g->lit))
			return 0;
		return simple_match(g->s + g->lit, s + g->lit, n - g->lit);
	}
	if (n >= sizeof(buf))
		return 0; /* too long to compare: the rule does not match */
	memcpy(buf, s, n);
	buf[n] = '\0';
	return fnmatch(g->s, buf, casefold ? FNM_CASEFOLD : 0) == 0;
}

/* What the rules compare, measured once per request: the host, and the
 * path without its query. */
struct subject {
	const char *host, *path;
	size_t host_len, path_len;
};

/* *host: the result of r's host glob when the rule before had the same
 * one and compared it (rules come grouped by host), else -1; set here
 * when r compares it. */
static int rule_matches(const struct rule *r, const struct srt_filter_request *req,
			const struct subject *sb, int *host)
{
	size_t i;

	if (r->n_methods) {
		for (i = 0; i < r->n_methods; i++)
			if (!strcmp(r->methods[i], req->method))
				break;
		if (i == r->n_methods)
			return 0;
	}
	if (r->host.s) {
		if (*host < 0)
			*host = glob_matches(&r->host, sb->host, sb->host_len, 1);
		if (!*host)
			return 0;
	}
	if (r->path.s && !glob_matches(&r->path, sb->path, sb->path_len, 0))
		return 0;
	for (i = 0; i < r->n_headers; i++) {
		const char *v = req->headers->get(req->headers, r->headers[i].name);

		if (!v || !glob_matches(&r->headers[i].glob, v, strlen(v), 0))
			return 0;
	}
	return 1;
}

/* The n bytes at s in ASCII lower case, for the host and sni globs: in
 * small when they fit (host names do), else in a block the caller frees;
 * NULL out of memory. */
static char *folded(const char *s, size_t n, char *small, size_t cap)
{
	char *d = n < cap ? small : malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	fold_str(d, n);
	return d;
}

static enum srt_filter_verdict out_of_memory(struct srt_filter_call *call)
{
	snprintf(call->reason, sizeof(call->reason), "out of memory");
	return SRT_FILTER_ERROR;
}

static enum srt_filter_verdict verdict(enum action a, const struct rule *r, size_t idx,
				       struct srt_filter_call *call)
{
	if (a == ACT_ALLOW)
		return SRT_FILTER_ALLOW;
	if (a == ACT_NEXT)
		return SRT_FILTER_CONTINUE;
	call->status = r ? r->status : 403;
	if (r && r->reason)
		snprintf(call->reason, sizeof(call->reason), "%s", r->reason);
	else if (r)
		snprintf(call->reason, sizeof(call->reason), "refused by rule %zu", idx);
	else
		snprintf(call->reason, sizeof(call->reason), "no rule allows this request");
	return SRT_FILTER_DENY;
}

static enum srt_filter_verdict rules_head(void *state, struct srt_filter_request *req,
					  struct srt_filter_call *call)
{
	const struct rules *rs = state;
	size_t hl = strlen(req->host);
	char small[256], *host = folded(req->host, hl, small, sizeof(small));
	struct subject sb = { host, req->path, hl, strcspn(req->path, "?") };
	enum srt_filter_verdict v;
	int same = -1;
	size_t i;

	if (!host)
		return out_of_memory(call);
	for (i = 0; i < rs->n; i++) {
		if (!rs->r[i].host_as_prev)
			same = -1;
		if (!rs->r[i].sni.s && rule_matches(&rs->r[i], req, &sb, &same))
			break;
	}
	v = i < rs->n ? verdict(rs->r[i].action, &rs->r[i], i, call) : verdict(rs->dflt, NULL, 0, call);
	if (host != small)
		free(host);
	return v;
}

/* The connection rules only; none matching: no objection. */
static enum srt_filter_verdict rules_conn(void *state, const struct srt_filter_conn *conn,
					  struct srt_filter_call *call)
{
	const struct rules *rs = state;
	char small_sni[256], small_host[256], *sni, *host;
	enum srt_filter_verdict v;
	size_t i, sl, hl;

	if (!conn->sni || !rs->n_conn)
		return SRT_FILTER_CONTINUE;
	sl = strlen(conn->sni);
	hl = strlen(conn->host);
	sni = folded(conn->sni, sl, small_sni, sizeof(small_sni));
	host = folded(conn->host, hl, small_host, sizeof(small_host));
	if (!sni || !host) {
		v = out_of_memory(call);
		goto out;
	}
	for (i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];

		if (!r->sni.s || !glob_matches(&r->sni, sni, sl, 1))
			continue;
		if (r->host.s && !glob_matches(&r->host, host, hl, 1))
			continue;
		v = verdict(r->action, r, i, call);
		goto out;
	}
	v = SRT_FILTER_CONTINUE;
out:
	if (sni != small_sni)
		free(sni);
	if (host != small_host)
		free(host);
	return v;
}

const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("rules"),
	.create = rules_create,
	.destroy = rules_destroy,
	.connection = rules_conn,
	.request_head = rules_head,
};
