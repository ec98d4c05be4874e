/* srt(1): argument parsing and nothing else; a thin client of libsrt. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <srt/srt.h>

static const char usage_text[] =
	"usage: srt [options] [--] command [args...]\n"
	"       srt [options] -c 'shell command'\n"
	"\n"
	"Run a command with its filesystem and network access limited by a settings file.\n"
	"\n"
	"options (parsing stops at the first command word):\n"
	"  -c COMMAND          run COMMAND with the shell (bash, else sh), verbatim\n"
	"  -s, --settings PATH settings file (JSON, or YAML when it ends in .yaml/.yml);\n"
	"                      default ~/.srt-settings.json (built-in defaults if absent)\n"
	"  -d, --debug         print debug lines on stderr\n"
	"      --backend=NAME|PATH\n"
	"                      backend module by name (linux-bwrap) or absolute path\n"
	"      --explain, --dry-run\n"
	"                      print the effective policy and the backend's plan; run nothing\n"
	"  -V, --version       print the version\n"
	"  -h, --help          print this help\n"
	"\n"
	"exit status: the command's own, 128+N if it died of signal N, 1 for srt's own errors.\n";

struct cli {
	const char *command_string;
	const char *settings;
	const char *backend;
	int debug;
	int explain;
	char **words;
	int nwords;
};

static int die(const char *fmt, const char *arg)
	__attribute__((format(printf, 1, 0)));

static int die(const char *fmt, const char *arg)
{
	fputs("srt: ", stderr);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	fputc('\n', stderr);
	return 1;
}

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break; /* first command word: stop (POSIX '+' semantics) */
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("%s\n", srt_version());
			return 0;
		}
		if (!strcmp(a, "-d") || !strcmp(a, "--debug")) {
			c->debug = 1;
			continue;
		}
		if (!strcmp(a, "--explain") || !strcmp(a, "--dry-run")) {
			c->explain = 1;
			continue;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "-s") || !strcmp(a, "--settings") ||
		    !strcmp(a, "--backend")) {
			if (i + 1 >= argc)
				return die("option '%s' needs an argument (see srt --help)", a);
			val = argv[++i];
		} else if (!strncmp(a, "--settings=", 11)) {
			val = a + 11;
			a = "--settings";
		} else if (!strncmp(a, "--backend=", 10)) {
			val = a + 10;
			a = "--backend";
		} else if (!strncmp(a, "-c", 2) || !strncmp(a, "-s", 2)) {
			val = a + 2; /* -c'cmd', -sfile */
			a = a[1] == 'c' ? "-c" : "-s";
		} else {
			return die("unknown option '%s' (see srt --help; put the command after '--' if it starts with '-')", a);
		}
		if (!strcmp(a, "-c")) {
			c->command_string = val;
		} else if (!strcmp(a, "--backend")) {
			if (!*val)
				return die("%s: --backend needs a name or an absolute path", "");
			c->backend = val;
		} else {
			if (!*val)
				return die("%s: --settings needs a path", "");
			c->settings = val;
		}
	}
	c->words = argv + i;
	c->nwords = argc - i;
	return -1;
}

int main(int argc, char **argv)
{
	struct cli c;
	struct srt_options opt;
	struct srt_run_options ro;
	struct srt_diag diag;
	struct srt_sandbox *sb = NULL;
	const char *shell_argv[4];
	const char *const *run_argv;
	char *key = NULL;
	sigset_t set;
	int rc, status = 1;

	memset(&c, 0, sizeof(c));
	memset(&diag, 0, sizeof(diag));
	rc = parse_args(argc, argv, &c);
	if (rc >= 0)
		return rc;
	if (!c.command_string && c.nwords == 0)
		return die("%s", "no command given: use -c 'command' or put the command after the options (see srt --help)");
	if (c.command_string && c.nwords > 0)
		fprintf(stderr, "srt: warning: -c was given, so the words after the options are ignored\n");
	if (getenv("SRT_DEBUG") && *getenv("SRT_DEBUG"))
		c.debug = 1;

	/* Block the forwarded signals (and SIGCHLD) before any thread exists,
	 * so only the waiting thread ever takes them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&opt, 0, sizeof(opt));
	opt.backend = c.backend;
	opt.debug = c.debug;
	rc = srt_sandbox_new_from_file(&sb, c.settings, c.settings != NULL, &opt, &diag);
	if (rc) {
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		if (c.settings)
			fprintf(stderr, "srt: refusing to run with the built-in defaults, which would drop the rules --settings asked for\n");
		return 1;
	}
	rc = srt_sandbox_start(sb, &diag);
	if (rc) {
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		srt_sandbox_free(sb);
		return 1;
	}

	if (c.command_string) {
		shell_argv[0] = srt_default_shell();
		shell_argv[1] = "-c";
		shell_argv[2] = c.command_string;
		shell_argv[3] = NULL;
		run_argv = shell_argv;
	} else {
		run_argv = (const char *const *)c.words;
	}

	if (c.explain) {
		rc = srt_sandbox_explain(sb, run_argv, stdout, &diag);
		if (rc)
			fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		srt_sandbox_free(sb);
		return rc ? 1 : 0;
	}

	memset(&ro, 0, sizeof(ro));
	ro.forward_signals = 1;
	if (c.command_string)
		ro.command_id = c.command_string;
	else if (srt_quote_argv(run_argv, &key) == SRT_OK)
		ro.command_id = key;
	rc = srt_sandbox_run(sb, run_argv, &ro, &status, &diag);
	if (rc) {
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		status = 1;
	}
	free(key);
	srt_sandbox_free(sb);
	return status;
}
