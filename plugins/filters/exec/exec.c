/* The `exec` request filter: a long-running program decides each request,
 * so filters can be written in any language. Configuration:
 *
 *   {"plugin": "exec", "config": {"command": ["python3", "/path/decider.py"],
 *                                 "bodyMax": 65536, "plaintextHeaderSet": false}}
 *
 * `command` (mandatory) is the program and its arguments, started once
 * with the filter, its standard input and output one end of a socket
 * pair speaking the decider protocol v1 (length-prefixed JSON frames: see
 * proxies/decider.h), its standard error srt's. `bodyMax` (optional, 1 to
 * 16 MiB, default 16 MiB) bounds the request-body bytes the filter
 * collects when the decider answers need_body (the decider's own max
 * bounds it too; a longer body is sent cut). `plaintextHeaderSet`
 * (optional, default false) lets an allow's setHeaders and cred apply to
 * plain-HTTP requests; otherwise such an allow is refused 403
 * (plaintext_header_set), so no secret goes out in clear text unasked.
 * removeHeaders always applies. The filter starts only once the program sent
 * its hello (within 30 s): a program that cannot start or does not speak
 * the protocol is a configuration error, not a sandbox running unfiltered.
 * Afterwards a program that dies, stalls past 5 s per verdict or breaks
 * the protocol fails its requests closed (503).
 *
 * Every plain request (and every request inside a terminated tunnel) is
 * put to the decider as a req frame; an opaque tunnel (CONNECT, SOCKS5),
 * which carries no request the proxy can read, is put to it once, before
 * anything is dialled, as a req frame with method "CONNECT", its target's
 * host and port, the TLS hello's server name ("sni") when there is one,
 * and path "host:port" (see proxies/decider-filter.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <srt/filter.h>

#include "proxies/decider-filter.h"

#define HELLO_MS 30000

static int fail(struct srt_filter_error *err, const char *path, const char *msg)
{
	snprintf(err->path, sizeof(err->path), "%s", path);
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return SRT_E_INVAL;
}

/* argv from config.command: a non-empty array of non-empty strings. */
static int take_command(const cJSON *cfg, char ***argv, struct srt_filter_error *err)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(cfg, "command");
	int n, i;

	if (!cmd)
		return fail(err, "command", "missing: the decider program and its arguments, "
			    "e.g. [\"python3\", \"/path/decider.py\"]");
	n = cJSON_IsArray(cmd) ? cJSON_GetArraySize(cmd) : 0;
	if (n < 1)
		return fail(err, "command", "must be a non-empty array of strings");
	*argv = calloc((size_t)n + 1, sizeof(char *));
	if (!*argv)
		return fail(err, "command", "out of memory");
	for (i = 0; i < n; i++) {
		const cJSON *a = cJSON_GetArrayItem(cmd, i);
		char path[32];
		if (!cJSON_IsString(a) || !a->valuestring[0]) {
			snprintf(path, sizeof(path), "command[%d]", i);
			return fail(err, path, "must be a non-empty string");
		}
		(*argv)[i] = a->valuestring;
	}
	return SRT_OK;
}

static int parse_config(const cJSON *cfg, char ***argv, size_t *body_max, bool *plain_set,
			struct srt_filter_error *err)
{
	const cJSON *it;

	if (!cJSON_IsObject(cfg))
		return fail(err, "", "must be an object with \"command\"");
	cJSON_ArrayForEach(it, cfg) {
		if (strcmp(it->string, "command") && strcmp(it->string, "bodyMax") &&
		    strcmp(it->string, "plaintextHeaderSet"))
			return fail(err, it->string, "unknown key (the exec filter takes command, "
				    "bodyMax and plaintextHeaderSet)");
	}
	it = cJSON_GetObjectItemCaseSensitive(cfg, "plaintextHeaderSet");
	*plain_set = false;
	if (it) {
		if (!cJSON_IsBool(it))
			return fail(err, "plaintextHeaderSet", "must be true or false");
		*plain_set = cJSON_IsTrue(it);
	}
	it = cJSON_GetObjectItemCaseSensitive(cfg, "bodyMax");
	*body_max = 0;
	if (it) {
		if (!cJSON_IsNumber(it) || it->valuedouble != (double)(long long)it->valuedouble ||
		    it->valuedouble < 1 || it->valuedouble > SRT_FILTER_BODY_MAX)
			return fail(err, "bodyMax", "must be an integer from 1 to 16777216");
		*body_max = (size_t)it->valuedouble;
	}
	return take_command(cfg, argv, err);
}

/* The program on one end of a socket pair as its stdin and stdout. */
static int spawn(char **argv, pid_t *pid, int *fd, struct srt_filter_error *err)
{
	int sv[2];
	char msg[256];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return fail(err, "command", "cannot make the decider's socket pair");
	*pid = fork();
	if (*pid < 0) {
		snprintf(msg, sizeof(msg), "cannot start %s: %s", argv[0], strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return fail(err, "command", msg);
	}
	if (*pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "srt: exec filter: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	*fd = sv[0];
	return SRT_OK;
}

static int exec_create(const struct srt_filter_host *host, const char *config_json,
		       void **state, struct srt_filter_error *err)
{
	cJSON *cfg = config_json ? cJSON_Parse(config_json) : NULL;
	struct srt__dfilter_config dc;
	struct srt__dfilter *f = NULL;
	char **argv = NULL, why[200];
	size_t body_max = 0;
	bool plain_set = false;
	pid_t pid = 0;
	int fd = -1, rc;

	rc = parse_config(cfg, &argv, &body_max, &plain_set, err);
	if (rc == SRT_OK)
		rc = spawn(argv, &pid, &fd, err);
	if (rc != SRT_OK)
		goto out;
	memset(&dc, 0, sizeof(dc));
	dc.in_fd = dc.out_fd = fd;
	dc.child = pid;
	dc.body_max = body_max;
	dc.plaintext_header_set = plain_set;
	dc.narrow_by_hello = true;
	dc.host = host;
	rc = srt__dfilter_start(&dc, &f, why, sizeof(why));
	if (rc != SRT_OK) {
		fail(err, "command", why);
		goto out;
	}
	rc = srt__dfilter_wait_hello(f, HELLO_MS, NULL, NULL, why, sizeof(why));
	if (rc != SRT_OK) {
		fail(err, "command", why);
		srt__dfilter_destroy(f);
		goto out;
	}
	*state = f;
out:
	free(argv);
	cJSON_Delete(cfg);
	return rc;
}

const struct srt_filter srt_filter_entry = {
	.hdr = SRT_FILTER_HEADER("exec"),
	.create = exec_create,
	.destroy = srt__dfilter_destroy,
	.connection = srt__dfilter_connection,
	.request_head = srt__dfilter_request_head,
	.request_body = srt__dfilter_request_body,
	.finish = srt__dfilter_finish,
	.cancel = srt__dfilter_cancel,
	.completed = srt__dfilter_completed,
};
