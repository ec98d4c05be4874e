/* ask-run: runs a command in a sandbox whose ask callback answers from a
 * script given on the command line, through the public API only:
 *   ask-run SETTINGS ANSWERS [--] ARGV...
 * ANSWERS is a comma-separated list of HOST:PORT=ACTION, ACTION one of
 *   allow            answered inside the callback
 *   later            allowed from another thread 300 ms later
 *   slow             allowed from another thread 4 s later
 *   remember         allowed and remembered
 *   deny[:REASON]    denied (with the reason, as given)
 *   fail             the callback returns an error
 *   silent           never answered (the timeout denies)
 * A question about a host not in ANSWERS is denied. Each question is
 * printed as "asked HOST:PORT" on stdout as it arrives; after the command
 * the sandbox's violations follow as "violation: LINE". ASK_TIMEOUT_MS sets
 * the callback's timeout, ASK_BACKEND the backend. Exits with the command's status, or 1 when the
 * sandbox cannot be set up. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <srt/srt.h>

static struct srt_sandbox *sb;
static const char *answers;

struct later {
	unsigned long long ticket;
	unsigned ms;
};

static void *answer_later(void *arg)
{
	struct later *l = arg;

	usleep(l->ms * 1000);
	if (srt_ask_answer(sb, l->ticket, SRT_ASK_ALLOW, NULL, 0) != SRT_OK)
		printf("late answer refused\n");
	fflush(stdout);
	free(l);
	return NULL;
}

static int answer_async(unsigned long long ticket, unsigned ms)
{
	struct later *l = malloc(sizeof(*l));
	pthread_t t;

	if (!l)
		return -1;
	l->ticket = ticket;
	l->ms = ms;
	if (pthread_create(&t, NULL, answer_later, l) != 0) {
		free(l);
		return -1;
	}
	pthread_detach(t);
	return 0;
}

/* The ACTION for host:port in ANSWERS, copied into act, or "" */
static void lookup(const char *host, int port, char *act, size_t cap)
{
	char key[300];
	const char *p = answers;
	size_t kl;

	snprintf(key, sizeof(key), "%s:%d=", host, port);
	kl = strlen(key);
	act[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl)) {
			snprintf(act, cap, "%.*s", (int)(n - kl), p + kl);
			return;
		}
		p = end ? end + 1 : NULL;
	}
}

static int on_ask(void *ctx, const struct srt_ask_request *req)
{
	char act[300];

	(void)ctx;
	printf("asked %s:%d\n", req->host, req->port);
	fflush(stdout);
	lookup(req->host, req->port, act, sizeof(act));
	if (!strcmp(act, "allow"))
		return srt_ask_answer(sb, req->ticket, SRT_ASK_ALLOW, NULL, 0);
	if (!strcmp(act, "remember"))
		return srt_ask_answer(sb, req->ticket, SRT_ASK_ALLOW, NULL, SRT_ASK_REMEMBER);
	if (!strcmp(act, "later"))
		return answer_async(req->ticket, 300);
	if (!strcmp(act, "slow"))
		return answer_async(req->ticket, 4000);
	if (!strcmp(act, "fail"))
		return -1;
	if (!strcmp(act, "silent"))
		return 0;
	if (!strncmp(act, "deny:", 5))
		return srt_ask_answer(sb, req->ticket, SRT_ASK_DENY, act + 5, 0);
	return srt_ask_answer(sb, req->ticket, SRT_ASK_DENY, NULL, 0);
}

int main(int argc, char **argv)
{
	struct srt_options opt;
	struct srt_run_options ro;
	struct srt_violation *v = NULL;
	struct srt_diag d;
	const char *t = getenv("ASK_TIMEOUT_MS");
	int argi = 3, status = 1, rc;
	size_t n = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: ask-run SETTINGS ANSWERS [--] ARGV...\n");
		return 2;
	}
	if (!strcmp(argv[argi], "--"))
		argi++;
	answers = argv[2];
	memset(&opt, 0, sizeof(opt));
	memset(&ro, 0, sizeof(ro));
	memset(&d, 0, sizeof(d));
	opt.backend = getenv("ASK_BACKEND");
	ro.command_id = "ask-run";
	if (srt_sandbox_new_from_file(&sb, argv[1], 1, &opt, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		return 1;
	}
	rc = srt_sandbox_set_ask(sb, on_ask, NULL, t ? (unsigned)atoi(t) : 0);
	if (rc || srt_sandbox_start(sb, &d)) {
		fprintf(stderr, "srt: %s\n", rc ? srt_strerror(rc) : d.message);
		srt_sandbox_free(sb);
		return 1;
	}
	if (srt_sandbox_set_ask(sb, on_ask, NULL, 0) != SRT_E_STATE)
		printf("set_ask after start was not refused\n");
	fflush(stdout);
	if (srt_sandbox_run(sb, (const char *const *)argv + argi, &ro, &status, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		status = 1;
	}
	if (srt_sandbox_violations(sb, "ask-run", &v, &n) == SRT_OK) {
		for (size_t i = 0; i < n; i++)
			printf("violation: %s\n", v[i].line);
		srt_violations_free(v, n);
	}
	fflush(stdout);
	srt_sandbox_free(sb);
	return status;
}
