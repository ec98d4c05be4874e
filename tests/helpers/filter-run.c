/* filter-run: runs a command in a sandbox whose library request filter
 * (srt_sandbox_set_request_filter, the public C API only) decides by the
 * request's path:
 *   filter-run SETTINGS [--] ARGV...
 *   /deny...   DENY 451 "the library filter says no"
 *   /later...  PENDING, completed ALLOW from another thread 200 ms later
 *   /fail...   ERROR "the library filter failed"
 *   /garbage.. a value that is no verdict (counts as an error)
 *   /edit...   sets the header X-Added: lib, then CONTINUE
 *   anything else: CONTINUE
 * Each call is printed as "filtered METHOD URL host=HOST port=PORT" on
 * stdout; after the command the sandbox's violations follow as
 * "violation: LINE". FILTER_BACKEND sets the backend. Exits with the
 * command's status, or 1 when the sandbox cannot be set up. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <srt/filter.h>
#include <srt/srt.h>

static void *complete_later(void *arg)
{
	struct srt_filter_call *call = arg;

	usleep(200 * 1000);
	call->complete(call, SRT_FILTER_ALLOW);
	return NULL;
}

static enum srt_filter_verdict on_request(void *ctx, struct srt_filter_request *req,
					  struct srt_filter_call *call)
{
	const char *p = req->path;
	pthread_t t;

	(void)ctx;
	printf("filtered %s %s host=%s port=%u\n", req->method, req->url, req->host,
	       (unsigned)req->port);
	fflush(stdout);
	if (!strncmp(p, "/deny", 5)) {
		call->status = 451;
		snprintf(call->reason, sizeof(call->reason), "the library filter says no");
		return SRT_FILTER_DENY;
	}
	if (!strncmp(p, "/later", 6)) {
		if (pthread_create(&t, NULL, complete_later, call) != 0)
			return SRT_FILTER_ERROR;
		pthread_detach(t);
		return SRT_FILTER_PENDING;
	}
	if (!strncmp(p, "/fail", 5)) {
		snprintf(call->reason, sizeof(call->reason), "the library filter failed");
		return SRT_FILTER_ERROR;
	}
	if (!strncmp(p, "/garbage", 8))
		return (enum srt_filter_verdict)77;
	if (!strncmp(p, "/edit", 5) &&
	    req->headers->set(req->headers, "X-Added", "lib") != SRT_OK)
		return SRT_FILTER_ERROR;
	return SRT_FILTER_CONTINUE;
}

int main(int argc, char **argv)
{
	struct srt_options opt;
	struct srt_run_options ro;
	struct srt_violation *v = NULL;
	struct srt_sandbox *sb;
	struct srt_diag d;
	int argi = 2, status = 1, rc;
	size_t n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: filter-run SETTINGS [--] ARGV...\n");
		return 2;
	}
	if (!strcmp(argv[argi], "--"))
		argi++;
	memset(&opt, 0, sizeof(opt));
	memset(&ro, 0, sizeof(ro));
	memset(&d, 0, sizeof(d));
	opt.backend = getenv("FILTER_BACKEND");
	ro.command_id = "filter-run";
	if (srt_sandbox_new_from_file(&sb, argv[1], 1, &opt, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		return 1;
	}
	rc = srt_sandbox_set_request_filter(sb, on_request, NULL);
	if (rc || srt_sandbox_start(sb, &d)) {
		fprintf(stderr, "srt: %s\n", rc ? srt_strerror(rc) : d.message);
		srt_sandbox_free(sb);
		return 1;
	}
	if (srt_sandbox_set_request_filter(sb, on_request, NULL) != SRT_E_STATE)
		printf("set_request_filter after start was not refused\n");
	fflush(stdout);
	if (srt_sandbox_run(sb, (const char *const *)argv + argi, &ro, &status, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		status = 1;
	}
	if (srt_sandbox_violations(sb, "filter-run", &v, &n) == SRT_OK) {
		for (size_t i = 0; i < n; i++)
			printf("violation: %s\n", v[i].line);
		srt_violations_free(v, n);
	}
	srt_sandbox_free(sb);
	return status;
}
