/* The shipped request filters (plugins/filters/): each built module is
 * loaded from the build tree by absolute path, as network.filters loads
 * it, and driven through the chain with synthetic requests. */
#include "config.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libsrt/loader.h"
#include "proxies/filter-chain.h"
#include "tap.h"

static char dir[4096];

struct loaded {
	struct srt__module *m[4];
	size_t n;
	struct srt__filter_chain *ch;
	struct srt_filter_error err;
	int rc;
};

/* A chain of (plugin, config) pairs, NULL-terminated; l->rc is the first
 * failure (l->err says where). */
static void build(struct loaded *l, const char *const *spec)
{
	struct srt_diag d;
	char path[4200];
	size_t i;

	memset(l, 0, sizeof(*l));
	srt__filter_chain_new(200, NULL, NULL, &l->ch);
	for (i = 0; spec[i]; i += 2) {
		const struct srt_filter *vt;

		snprintf(path, sizeof(path), "%s/%s.so", dir, spec[i]);
		l->rc = srt__module_load_filter(path, &l->m[l->n], &vt, &d);
		if (l->rc) {
			snprintf(l->err.message, sizeof(l->err.message), "%.200s", d.message);
			return;
		}
		l->n++;
		l->rc = srt__filter_chain_add(l->ch, vt, spec[i], spec[i + 1], &l->err);
		if (l->rc)
			return;
	}
}

static void unload(struct loaded *l)
{
	size_t i;

	srt__filter_chain_free(l->ch);
	for (i = 0; i < l->n; i++)
		srt__module_free(l->m[i]);
}

struct req {
	struct srt_filter_conn conn;
	struct srt_filter_request r;
	struct srt__fheaders fh;
	struct srt__filter_txn *t;
	struct srt__filter_outcome o;
	enum srt__filter_step step;
	char url[512];
};

static void on_done(void *ctx, struct srt__filter_txn *t, enum srt__filter_step s,
		    const struct srt__filter_outcome *o)
{
	(void)ctx;
	(void)t;
	(void)s;
	(void)o;
}

/* Send "METHOD host path" with optional headers "Name: value" (NULL-ended). */
static enum srt__filter_step send_req(struct loaded *l, struct req *q, const char *method,
				      const char *host, const char *path, long long clen,
				      const char *const *hdrs)
{
	size_t i;

	memset(q, 0, sizeof(*q));
	q->conn = (struct srt_filter_conn){ sizeof(q->conn), host, 80, NULL, "http",
					    "cmd-1234", 1 };
	snprintf(q->url, sizeof(q->url), "http://%s%s", host, path);
	srt__fheaders_init(&q->fh, 16384);
	srt__fheaders_add(&q->fh, "Host", 4, host, strlen(host));
	for (i = 0; hdrs && hdrs[i]; i++) {
		const char *c = strchr(hdrs[i], ':');

		srt__fheaders_add(&q->fh, hdrs[i], (size_t)(c - hdrs[i]), c + 2, strlen(c + 2));
	}
	q->r = (struct srt_filter_request){ sizeof(q->r), &q->conn, method, q->url, host, 80,
					    path, clen, &q->fh.api, 1 };
	q->t = srt__filter_txn_new(l->ch, &q->conn);
	q->step = srt__filter_txn_request_head(q->t, &q->r, on_done, NULL, &q->o);
	return q->step;
}

static void done_req(struct req *q, int status, uint64_t up, uint64_t down)
{
	struct srt_filter_summary s = { .size = sizeof(s), .status = status, .bytes_up = up,
					.bytes_down = down };

	srt__filter_txn_finish(q->t, &s);
	srt__fheaders_release(&q->fh);
}

/* verdict of one request: 0 allowed, else the status */
static int verdict(struct loaded *l, const char *method, const char *host, const char *path)
{
	struct req q;
	int v;

	send_req(l, &q, method, host, path, -1, NULL);
	v = q.step != SRT__FILTER_DECIDED ? -1 : q.o.verdict == SRT_FILTER_ALLOW ? 0 : q.o.status;
	done_req(&q, 200, 0, 0);
	return v;
}

/* ---------------------------------------------------------------- rules */

static const char rules_cfg[] =
	"{\"rules\":["
	"{\"action\":\"deny\",\"methods\":[\"TRACE\",\"TRACK\"],\"status\":405},"
	"{\"action\":\"allow\",\"host\":\"api.github.com\",\"methods\":[\"GET\",\"HEAD\"]},"
	"{\"action\":\"deny\",\"host\":\"API.GitHub.com\",\"reason\":\"read-only API\"},"
	"{\"action\":\"next\",\"methods\":[\"POST\"],\"path\":\"/me/repo.git/git-receive-pack\"},"
	"{\"action\":\"deny\",\"methods\":[\"POST\"],\"path\":\"*/git-receive-pack\","
	"\"reason\":\"git push is not allowed\"},"
	"{\"action\":\"deny\",\"headers\":{\"User-Agent\":\"evil*\"},\"status\":451}"
	"]}";

static void test_rules(void)
{
	static const char *const spec[] = { "rules", rules_cfg, NULL };
	static const char *const ua[] = { "User-Agent: evilbot/1", NULL };
	struct loaded l;
	struct req q;

	build(&l, spec);
	ok(l.rc == SRT_OK, "rules loads with its config (%s)", l.err.message);
	ok(verdict(&l, "GET", "api.github.com", "/repos/x") == 0 &&
	   verdict(&l, "HEAD", "api.github.com", "/") == 0, "GET and HEAD to api.github.com pass");
	send_req(&l, &q, "POST", "api.github.com", "/repos/x/issues", 10, NULL);
	ok(q.o.verdict == SRT_FILTER_DENY && q.o.status == 403 &&
	   !strcmp(q.o.reason, "read-only API") && !strcmp(q.o.filter, "rules"),
	   "POST to api.github.com refused 403 with the rule's reason, named rules");
	done_req(&q, 403, 0, 0);
	ok(verdict(&l, "TRACE", "example.com", "/") == 405 &&
	   verdict(&l, "TRACK", "api.github.com", "/") == 405,
	   "TRACE and TRACK refused everywhere (the first matching rule wins)");
	ok(verdict(&l, "POST", "github.com", "/me/repo.git/git-receive-pack") == 0,
	   "a push to the named repository passes");
	ok(verdict(&l, "POST", "github.com", "/other/repo.git/git-receive-pack") == 403 &&
	   verdict(&l, "POST", "github.com", "/other/repo.git/git-receive-pack?x=1") == 403,
	   "a push anywhere else is refused, query or not");
	ok(verdict(&l, "GET", "github.com", "/other/repo.git/info/refs?service=git-receive-pack") == 0,
	   "the ref advertisement (a GET) is not a push");
	ok(verdict(&l, "POST", "github.com", "/other/repo.git/git-upload-pack") == 0,
	   "a fetch (git-upload-pack) passes");
	send_req(&l, &q, "GET", "example.com", "/", -1, ua);
	ok(q.o.verdict == SRT_FILTER_DENY && q.o.status == 451, "a header glob matches");
	done_req(&q, 451, 0, 0);
	unload(&l);
}

/* Globs of only '*' and '?' take the rules filter's own matcher, others
 * fnmatch(): both must answer as fnmatch() would, and a path longer than
 * any buffer still meets a deny rule. */
static void test_rules_globs(void)
{
	static const char cfg[] =
		"{\"rules\":["
		"{\"action\":\"deny\",\"path\":\"/a*b*c?d\",\"status\":418},"
		"{\"action\":\"deny\",\"host\":\"*.EVIL.example\",\"status\":419},"
		"{\"action\":\"deny\",\"path\":\"/v[0-9]/*\",\"status\":420},"
		"{\"action\":\"deny\",\"path\":\"*/secret\",\"status\":421}"
		"]}";
	static const char *const spec[] = { "rules", cfg, NULL };
	static char longpath[20000];
	struct loaded l;

	build(&l, spec);
	ok(l.rc == SRT_OK, "rules with globs loads (%s)", l.err.message);
	ok(verdict(&l, "GET", "h.example", "/abbcxd") == 418 &&
	   verdict(&l, "GET", "h.example", "/a/b/c/d?q") == 418 &&
	   verdict(&l, "GET", "h.example", "/abcd") == 0 &&
	   verdict(&l, "GET", "h.example", "/abcxdx") == 0,
	   "'*' crosses '/', '?' is one byte, the whole path must match");
	ok(verdict(&l, "GET", "a.b.evil.example", "/") == 419 &&
	   verdict(&l, "GET", "evil.example", "/") == 0, "host globs ignore case");
	ok(verdict(&l, "GET", "h.example", "/v2/x") == 420 &&
	   verdict(&l, "GET", "h.example", "/vx/x") == 0, "a bracket glob still works (fnmatch)");
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	memcpy(longpath + sizeof(longpath) - 8, "/secret", 8);
	ok(verdict(&l, "GET", "h.example", longpath) == 421,
	   "a path of 20000 bytes still meets the deny rule");
	unload(&l);
}

static void rules_error(const char *cfg, const char *path, const char *what)
{
	const char *spec[] = { "rules", cfg, NULL };
	struct loaded l;

	build(&l, spec);
	ok(l.rc != SRT_OK && !strcmp(l.err.path, path),
	   "%s: refused at \"%s\" (%s: %s)", what, path, l.err.path, l.err.message);
	unload(&l);
}

static void test_rules_config(void)
{
	rules_error("{\"rules\":[{\"action\":\"deny\"},{\"action\":\"deny\",\"methods\":[\"G T\"]}]}",
		    "rules[1].methods[0]", "a bad method");
	rules_error("{\"rules\":[{\"action\":\"deny\",\"hots\":\"x\"}]}", "rules[0].hots",
		    "an unknown key");
	rules_error("{\"rules\":[{\"action\":\"deny\",\"status\":302}]}", "rules[0].status",
		    "a status outside 400-599");
	rules_error("{\"rules\":[{\"action\":\"maybe\"}]}", "rules[0].action", "an unknown action");
	rules_error("{\"rules\":[{\"action\":\"allow\",\"reason\":\"x\"}]}", "rules[0].reason",
		    "a reason on an allow rule");
	rules_error("{\"rules\":[{\"action\":\"deny\",\"path\":\"x\"}]}", "rules[0].path",
		    "a path glob not starting with / or *");
	rules_error("{}", "rules", "no rules");
	rules_error("[1]", "", "not an object");
	rules_error("{\"rules\":[], \"default\":\"nope\"}", "default", "a bad default");
}

static void test_rules_default(void)
{
	static const char *const spec[] = {
		"rules", "{\"rules\":[{\"action\":\"allow\",\"host\":\"*.example.com\"}],"
			 "\"default\":\"deny\"}", NULL };
	struct loaded l;

	build(&l, spec);
	ok(verdict(&l, "GET", "a.example.com", "/") == 0 && verdict(&l, "GET", "b.test", "/") == 403,
	   "default deny refuses what no rule allows");
	unload(&l);
}

/* The verdict of one connection hook: 0 allowed (or no objection), else
 * the status. */
static int conn_verdict(struct loaded *l, const char *host, const char *sni, const char *scheme)
{
	struct srt_filter_conn c = { sizeof(c), host, 443, sni, scheme, NULL, 7 };
	struct srt_filter_summary s = { .size = sizeof(s) };
	struct srt__filter_outcome o;
	struct srt__filter_txn *t = srt__filter_txn_new(l->ch, &c);
	enum srt__filter_step step;
	int v;

	memset(&o, 0, sizeof(o));
	step = srt__filter_txn_connection(t, on_done, NULL, &o);
	v = step != SRT__FILTER_DECIDED ? -1 : o.verdict == SRT_FILTER_ALLOW ? 0 : o.status;
	srt__filter_txn_finish(t, &s);
	return v;
}

/* Rules with `sni` judge connections by the ClientHello's server name; the
 * request rules and `default` never apply to a connection. */
static void test_rules_sni(void)
{
	static const char *const spec[] = {
		"rules", "{\"rules\":["
			 "{\"action\":\"deny\",\"sni\":\"*.internal.example\",\"status\":451,"
			 "\"reason\":\"no internal hosts\"},"
			 "{\"action\":\"deny\",\"sni\":\"*\",\"host\":\"10.*\"},"
			 "{\"action\":\"allow\",\"host\":\"*.internal.example\",\"methods\":[\"GET\"]}],"
			 "\"default\":\"deny\"}", NULL };
	struct loaded l;

	build(&l, spec);
	ok(l.rc == SRT_OK, "rules with sni loads (%s)", l.err.message);
	if (l.rc) {
		unload(&l);
		return;
	}
	ok(conn_verdict(&l, "db.internal.example", "db.internal.example", "connect") == 451 &&
	   conn_verdict(&l, "db.internal.example", "DB.Internal.Example", "https") == 451,
	   "a connection whose server name matches the sni glob is denied with the rule's status");
	ok(conn_verdict(&l, "10.0.0.1", "a.test", "connect") == 403 &&
	   conn_verdict(&l, "192.0.2.1", "a.test", "connect") == 0,
	   "sni and host together: both must match");
	ok(conn_verdict(&l, "db.internal.example", NULL, "connect") == 0 &&
	   conn_verdict(&l, "b.test", "b.test", "connect") == 0,
	   "no server name, or none of the sni rules matching: no objection (default is for requests)");
	ok(verdict(&l, "GET", "db.internal.example", "/") == 0 && verdict(&l, "GET", "b.test", "/") == 403,
	   "requests skip the sni rules and meet the others and default");
	unload(&l);
	rules_error("{\"rules\":[{\"action\":\"deny\",\"methods\":[\"GET\"],\"sni\":\"x\"}]}",
		    "rules[0].sni", "sni with methods");
	rules_error("{\"rules\":[{\"action\":\"deny\",\"sni\":\"\"}]}", "rules[0].sni",
		    "an empty sni glob");
}

/* ---------------------------------------------------------------- audit */

static char *read_file(const char *p)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(p, O_RDONLY);

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_audit(void)
{
	char tmp[] = "/tmp/srt-audit.XXXXXX", file[200], cfg[300], *text, *nl = NULL;
	const char *spec[] = { "rules", "{\"rules\":[{\"action\":\"deny\",\"methods\":[\"DELETE\"]}]}",
			       "audit", cfg, NULL };
	cJSON *a = NULL, *b = NULL;
	struct loaded l;
	struct req q;

	if (!mkdtemp(tmp)) {
		ok(0, "temporary directory");
		return;
	}
	snprintf(file, sizeof(file), "%s/audit.jsonl", tmp);
	snprintf(cfg, sizeof(cfg), "{\"path\":\"%s\"}", file);
	build(&l, spec);
	ok(l.rc == SRT_OK, "rules then audit load (%s)", l.err.message);
	send_req(&l, &q, "GET", "example.com", "/x?token=secret", -1, NULL);
	done_req(&q, 200, 12, 3456);
	send_req(&l, &q, "DELETE", "example.com", "/y", -1, NULL);
	done_req(&q, 403, 0, 0);
	text = read_file(file);
	ok(text && (nl = strchr(text, '\n')) && strchr(nl + 1, '\n') &&
	   !strchr(strchr(nl + 1, '\n') + 1, '\n'), "one line per request");
	if (text && nl) {
		*nl = '\0';
		a = cJSON_Parse(text);
		b = cJSON_Parse(nl + 1);
	}
	ok(a && b, "each line is a JSON object");
	ok(a && !strcmp(cJSON_GetObjectItem(a, "url")->valuestring, "http://example.com/x?REDACTED") &&
	   !strstr(text, "secret"), "the query is redacted by default");
	ok(a && !strcmp(cJSON_GetObjectItem(a, "verdict")->valuestring, "allow") &&
	   cJSON_IsNull(cJSON_GetObjectItem(a, "filter")) &&
	   cJSON_GetObjectItem(a, "status")->valueint == 200 &&
	   cJSON_GetObjectItem(a, "bytesUp")->valueint == 12 &&
	   cJSON_GetObjectItem(a, "bytesDown")->valueint == 3456 &&
	   !strcmp(cJSON_GetObjectItem(a, "command")->valuestring, "cmd-1234") &&
	   !strcmp(cJSON_GetObjectItem(a, "method")->valuestring, "GET") &&
	   cJSON_IsNumber(cJSON_GetObjectItem(a, "durationMs")) &&
	   strlen(cJSON_GetObjectItem(a, "time")->valuestring) == 24,
	   "time, command, method, verdict, status, bytes each way and duration are recorded");
	ok(b && !strcmp(cJSON_GetObjectItem(b, "verdict")->valuestring, "deny") &&
	   !strcmp(cJSON_GetObjectItem(b, "filter")->valuestring, "rules") &&
	   cJSON_GetObjectItem(b, "reason"),
	   "a request an earlier filter denied is recorded with the filter that decided");
	cJSON_Delete(a);
	cJSON_Delete(b);
	unload(&l);
	unlink(file);
	rmdir(tmp);
}

static void test_audit_fd_and_failure(void)
{
	char cfg[100];
	const char *spec[] = { "audit", cfg, NULL };
	const char *both[] = { "audit", "{\"path\":\"/tmp/x\",\"fd\":1}", NULL };
	const char *keep[] = { "audit", cfg, NULL };
	int p[2], full, n;
	char buf[4096];
	struct loaded l;
	struct req q;

	if (pipe(p) < 0)
		return;
	snprintf(cfg, sizeof(cfg), "{\"fd\":%d,\"redactQuery\":false}", p[1]);
	build(&l, keep);
	send_req(&l, &q, "GET", "example.com", "/q?a=b", -1, NULL);
	done_req(&q, 200, 0, 0);
	n = (int)read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "\"url\":\"http://example.com/q?a=b\""),
	   "to a descriptor, with the query kept when asked: %s", buf);
	unload(&l);
	close(p[0]);
	close(p[1]);

	build(&l, both);
	ok(l.rc != SRT_OK && contains(l.err.message, "exactly one"),
	   "path and fd together are refused (%s)", l.err.message);
	unload(&l);

	full = open("/dev/full", O_WRONLY);
	if (full < 0) {
		ok(1, "# SKIP no /dev/full");
		return;
	}
	snprintf(cfg, sizeof(cfg), "{\"fd\":%d}", full);
	build(&l, spec);
	ok(verdict(&l, "GET", "example.com", "/") == 0, "the first request goes, its record fails");
	ok(verdict(&l, "GET", "example.com", "/") == 502,
	   "once a record is lost every later request is refused (fail closed)");
	unload(&l);
	close(full);
}

/* ---------------------------------------------------------------- body-limit */

static const char bl_cfg[] =
	"{\"default\":10,\"hosts\":[{\"host\":\"up.example.com\",\"max\":100},"
	"{\"host\":\"*.none.test\",\"max\":0}]}";

static void test_body_limit(void)
{
	static const char *const spec[] = { "body-limit", bl_cfg, NULL };
	static const char *const chunked[] = { "Transfer-Encoding: chunked", NULL };
	struct loaded l;
	struct req q;

	build(&l, spec);
	ok(l.rc == SRT_OK, "body-limit loads (%s)", l.err.message);
	send_req(&l, &q, "POST", "example.com", "/", 11, NULL);
	ok(q.o.verdict == SRT_FILTER_DENY && q.o.status == 413 && contains(q.o.reason, "10 bytes"),
	   "a declared length past the default cap: 413 from the head (%s)", q.o.reason);
	done_req(&q, 413, 0, 0);
	send_req(&l, &q, "POST", "example.com", "/", 10, NULL);
	ok(q.step == SRT__FILTER_DECIDED && q.o.verdict == SRT_FILTER_ALLOW, "at the cap: allowed");
	done_req(&q, 200, 10, 0);
	send_req(&l, &q, "POST", "UP.example.com", "/", 100, NULL);
	ok(q.o.verdict == SRT_FILTER_ALLOW, "a host's own cap applies (any case)");
	done_req(&q, 200, 0, 0);

	ok(send_req(&l, &q, "POST", "example.com", "/", -1, chunked) == SRT__FILTER_BODY,
	   "a chunked body is asked for");
	ok(srt__filter_txn_body(q.t, "123456", 6, 0, on_done, NULL, &q.o) == SRT__FILTER_BODY &&
	   srt__filter_txn_body(q.t, "789012", 6, 0, on_done, NULL, &q.o) == SRT__FILTER_DECIDED &&
	   q.o.verdict == SRT_FILTER_DENY && q.o.status == 413,
	   "a chunked body passing the cap: 413");
	done_req(&q, 413, 0, 0);
	send_req(&l, &q, "POST", "example.com", "/", -1, chunked);
	ok(srt__filter_txn_body(q.t, "1234567890", 10, 1, on_done, NULL, &q.o) ==
	   SRT__FILTER_DECIDED && q.o.verdict == SRT_FILTER_ALLOW,
	   "a chunked body within the cap goes");
	done_req(&q, 200, 0, 0);
	send_req(&l, &q, "POST", "a.none.test", "/", -1, chunked);
	ok(srt__filter_txn_body(q.t, "x", 1, 1, on_done, NULL, &q.o) == SRT__FILTER_DECIDED &&
	   q.o.status == 413, "a cap of 0 refuses a one-byte chunked body");
	done_req(&q, 413, 0, 0);
	send_req(&l, &q, "GET", "example.com", "/", -1, NULL);
	ok(q.step == SRT__FILTER_DECIDED && q.o.verdict == SRT_FILTER_ALLOW,
	   "a request without a body is not held");
	done_req(&q, 200, 0, 0);
	unload(&l);
}

static void test_body_limit_config(void)
{
	static const char *const a[] = { "body-limit", "{\"hosts\":[{\"host\":\"x\",\"max\":-1}]}",
					 NULL };
	static const char *const b[] = { "body-limit", "{}", NULL };
	struct loaded l;

	build(&l, a);
	ok(l.rc != SRT_OK && !strcmp(l.err.path, "hosts[0].max"), "a negative cap is refused at %s",
	   l.err.path);
	unload(&l);
	build(&l, b);
	ok(l.rc != SRT_OK && contains(l.err.message, "default"), "an empty config is refused (%s)",
	   l.err.message);
	unload(&l);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(dir, sizeof(dir), "%s/tests/modules/filters", b ? b : ".");
	TAP_RUN(test_rules);
	TAP_RUN(test_rules_globs);
	TAP_RUN(test_rules_config);
	TAP_RUN(test_rules_default);
	TAP_RUN(test_rules_sni);
	TAP_RUN(test_audit);
	TAP_RUN(test_audit_fd_and_failure);
	TAP_RUN(test_body_limit);
	TAP_RUN(test_body_limit_config);
	return tap_done();
}
