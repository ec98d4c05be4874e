/* audit: one JSON object per request (and per opaque connection), one line
 * each, appended to a file or written to a descriptor srt inherited:
 *
 *   {"path": "audit.jsonl"}            created 0600 if missing, appended to
 *   {"fd": 3}                          a descriptor open in srt
 *   {"redactQuery": false}             keep query strings (default: "?..."
 *                                      replaced by "?REDACTED")
 *
 * Fields: time (UTC, ISO 8601 with milliseconds), command (the command id
 * or null), method, url, verdict ("allow" or "deny"), filter (the one that
 * decided, or null), status, reason (deny only), bytesUp, bytesDown,
 * durationMs. A record that cannot be written makes every later request
 * fail (closed) with the reason. The file is written by srt, outside the sandbox: put it
 * where the sandboxed command cannot write if it must not be altered. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <srt/filter.h>

#include "plugins/filters/common/jcfg.h"

struct audit {
	int fd;
	int own_fd;
	int redact;
	const struct srt_filter_host *host;
	int warned;
	int broken; /* a record could not be written: refuse what follows */
};

static int audit_create(const struct srt_filter_host *host, const char *config_json,
			void **state, struct srt_filter_error *err)
{
	static const char *const known[] = { "path", "fd", "redactQuery", NULL };
	struct audit *a;
	const cJSON *p, *f, *r;
	cJSON *root;
	int rc;

	if ((rc = jcfg_parse(config_json, &root, err)))
		return rc;
	if ((rc = jcfg_members(root, "", known, err)))
		goto out;
	p = cJSON_GetObjectItemCaseSensitive(root, "path");
	f = cJSON_GetObjectItemCaseSensitive(root, "fd");
	r = cJSON_GetObjectItemCaseSensitive(root, "redactQuery");
	if (!p == !f) {
		rc = jcfg_fail(err, "", "needs exactly one of \"path\" and \"fd\"");
		goto out;
	}
	if (p && (!cJSON_IsString(p) || !*p->valuestring)) {
		rc = jcfg_fail(err, "path", "expected a file name");
		goto out;
	}
	if (f && (!cJSON_IsNumber(f) || f->valuedouble != (double)f->valueint || f->valueint < 1)) {
		rc = jcfg_fail(err, "fd", "expected a descriptor number above 0");
		goto out;
	}
	if (r && !cJSON_IsBool(r)) {
		rc = jcfg_fail(err, "redactQuery", "expected true or false");
		goto out;
	}
	if (!(a = calloc(1, sizeof(*a)))) {
		rc = SRT_E_NOMEM;
		goto out;
	}
	a->host = host;
	a->redact = !r || cJSON_IsTrue(r);
	if (p) {
		a->fd = open(p->valuestring, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
			     0600);
		a->own_fd = 1;
		if (a->fd < 0) {
			rc = jcfg_fail(err, "path", "cannot open \"%s\": %s", p->valuestring,
				       strerror(errno));
			free(a);
			goto out;
		}
	} else {
		a->fd = f->valueint;
		if (fcntl(a->fd, F_GETFL) < 0 || !(fcntl(a->fd, F_GETFL) & (O_WRONLY | O_RDWR))) {
			rc = jcfg_fail(err, "fd", "descriptor %d is not open for writing", a->fd);
			free(a);
			goto out;
		}
	}
	*state = a;
out:
	cJSON_Delete(root);
	return rc;
}

static void audit_destroy(void *state)
{
	struct audit *a = state;

	if (!a)
		return;
	if (a->own_fd)
		close(a->fd);
	free(a);
}

static void iso_time(char *buf, size_t n, long long ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
		     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ms % 1000) >= (int)n)
		buf[n - 1] = '\0';
}

/* The URL with its query replaced by "REDACTED" when asked. */
static char *url_of(const struct audit *a, const struct srt_filter_conn *conn,
		    const struct srt_filter_request *req)
{
	const char *q;
	char *s;

	if (!req) {
		if (asprintf(&s, "%s:%u", conn->host ? conn->host : "", (unsigned)conn->port) < 0)
			return NULL;
		return s;
	}
	q = strchr(req->url, '?');
	if (!a->redact || !q)
		return strdup(req->url);
	if (asprintf(&s, "%.*s?REDACTED", (int)(q - req->url), req->url) < 0)
		return NULL;
	return s;
}

static void write_all(struct audit *a, const char *s, size_t n)
{
	ssize_t w;

	/* one write per record: O_APPEND keeps concurrent writers' lines whole */
	while (n) {
		w = write(a->fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			a->broken = 1;
			if (!a->warned++)
				a->host->log(a->host, 0, "cannot write the audit record; later ones may be lost too");
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

static void audit_finish(void *state, const struct srt_filter_conn *conn,
			 const struct srt_filter_request *req,
			 const struct srt_filter_summary *s, void **data)
{
	struct audit *a = state;
	cJSON *o = cJSON_CreateObject();
	char when[40], *url = url_of(a, conn, req), *line = NULL;

	(void)data;
	if (!o || !url)
		goto out;
	iso_time(when, sizeof(when), s->start_ms);
	cJSON_AddStringToObject(o, "time", when);
	if (conn->command_id)
		cJSON_AddStringToObject(o, "command", conn->command_id);
	else
		cJSON_AddNullToObject(o, "command");
	cJSON_AddStringToObject(o, "method", req ? req->method : "CONNECT");
	cJSON_AddStringToObject(o, "url", url);
	cJSON_AddStringToObject(o, "verdict", s->verdict == SRT_FILTER_ALLOW ? "allow" : "deny");
	if (s->decided_by)
		cJSON_AddStringToObject(o, "filter", s->decided_by);
	else
		cJSON_AddNullToObject(o, "filter");
	cJSON_AddNumberToObject(o, "status", s->status);
	if (s->verdict != SRT_FILTER_ALLOW && s->reason)
		cJSON_AddStringToObject(o, "reason", s->reason);
	cJSON_AddNumberToObject(o, "bytesUp", (double)s->bytes_up);
	cJSON_AddNumberToObject(o, "bytesDown", (double)s->bytes_down);
	cJSON_AddNumberToObject(o, "durationMs", (double)s->duration_ms);
	line = cJSON_PrintUnformatted(o);
	if (line) {
		size_t n = strlen(line);
		char *l = realloc(line, n + 2);

		if (l) {
			line = l;
			line[n] = '\n';
			line[n + 1] = '\0';
			write_all(a, line, n + 1);
		}
	}
out:
	if (!o || !url || !line) {
		a->broken = 1;
		if (!a->warned++)
			a->host->log(a->host, 0, "out of memory: an audit record was lost");
	}
	free(line);
	free(url);
	cJSON_Delete(o);
}

/* An audit that lost a record fails closed: nothing more goes out
 * unrecorded. */
static enum srt_filter_verdict audit_check(const struct audit *a, struct srt_filter_call *call)
{
	if (!a->broken)
		return SRT_FILTER_CONTINUE;
	snprintf(call->reason, sizeof(call->reason), "the audit log cannot be written");
	return SRT_FILTER_ERROR;
}

static enum srt_filter_verdict audit_conn(void *state, const struct srt_filter_conn *conn,
					  struct srt_filter_call *call)
{
	(void)conn;
	return audit_check(state, call);
}

static enum srt_filter_verdict audit_head(void *state, struct srt_filter_request *req,
					  struct srt_filter_call *call)
{
	(void)req;
	return audit_check(state, call);
}

const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("audit"),
	.create = audit_create,
	.destroy = audit_destroy,
	.connection = audit_conn,
	.request_head = audit_head,
	.finish = audit_finish,
};
