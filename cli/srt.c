/* srt(1): argument parsing and nothing else; a thin client of libsrt. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include <srt/srt.h>

#include "direct.h"
#include "platform.h"
#include "proxy.h"

static const char usage_text[] =
	"usage: srt [options] [--] command [args...]\n"
	"       srt [options] -c 'shell command'\n"
	"       srt doctor [--json] [--backend=NAME|PATH]\n"
	"       srt proxy (--listen-fd N | --listen HOST:PORT) (--decider-fd N | ...)\n"
	"       srt help [doctor|proxy]\n"
	"\n"
	"Run a command with its filesystem and network access limited by a settings file.\n"
	"\n"
	"options (parsing stops at the first command word; short options group:\n"
	"-dc 'cmd' is -d -c 'cmd'):\n"
	"  -c COMMAND          run COMMAND with the shell (bash, else sh), verbatim;\n"
	"                      a plain `program args` line runs without a shell\n"
	"  -s, --settings PATH settings file (JSON, or YAML when it ends in .yaml/.yml);\n"
	"                      default ~/.srt-settings.json (built-in defaults if absent)\n"
	"  -d, --debug         print debug lines on stderr\n"
	"      --backend=NAME|PATH\n"
	"                      backend module by name (linux-bwrap) or absolute path\n"
	"      --control-fd N  read settings updates (one JSON object per line) from fd N;\n"
	"                      the network lists change live for the running command\n"
	"      --violations-log FILE, --violations-fd N\n"
	"                      write every denied action as one JSON object per line\n"
	"  -q, --quiet         no summary of denied actions on stderr after the command\n"
	"      --explain, --dry-run\n"
	"                      print the effective policy and the backend's plan; run nothing\n"
	"  -V, --version       print the version\n"
	"  -h, --help          print this help\n"
	"\n"
	"exit status: the command's own, 128+N if it died of signal N, 1 for srt's own errors.\n";

static const char doctor_usage_text[] =
	"usage: srt doctor [--json] [--backend=NAME|PATH]\n"
	"\n"
	"Probe every backend (or only the one named) and every layer it needs: print\n"
	"what works here and the narrowest fix for what does not.\n"
	"\n"
	"  --json              one JSON document instead of text\n"
	"  --backend=NAME|PATH only this backend module\n"
	"\n"
	"exit status: 0 when a backend can run here, 1 otherwise.\n";

struct cli {
	const char *command_string;
	const char *settings;
	const char *backend;
	int debug;
	int explain;
	int quiet;
	int control_fd;
	int violations_fd;
	const char *violations_log;
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

/* The value of an option that takes one: the rest of the word when the
 * option letter does not end it ("-cCMD", "-dcCMD"), else the next word
 * ("-c CMD", "-dc CMD"), as getopt and the reference's parser take them.
 * NULL when there is none. */
static const char *option_value(const char *rest, int argc, char **argv, int *i)
{
	if (*rest)
		return rest;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int set_value(struct cli *c, char opt, const char *val)
{
	if (opt == 'c') {
		c->command_string = val;
		return -1;
	}
	if (!*val)
		return die("--settings needs a path, not an empty string%s", "");
	c->settings = val;
	return -1;
}

/* One word of short options: flags may be grouped ("-dq"), and an option
 * that takes a value ends the group, the value being the rest of the word
 * or the next word ("-dc 'cmd'", "-ds file"). Returns -1 to continue, or
 * an exit code. */
static int parse_short(int argc, char **argv, int *i, struct cli *c)
{
	const char *a = argv[*i];
	const char *p;

	for (p = a + 1; *p; p++) {
		switch (*p) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("%s\n", srt_version());
			return 0;
		case 'd':
			c->debug = 1;
			break;
		case 'q':
			c->quiet = 1;
			break;
		case 'c':
		case 's': {
			const char *val = option_value(p + 1, argc, argv, i);

			if (!val) {
				fprintf(stderr, "srt: option '-%c'%s%s%s needs an argument (see srt --help)\n",
					*p, p == a + 1 ? "" : " (in '", p == a + 1 ? "" : a, p == a + 1 ? "" : "')");
				return 1;
			}
			return set_value(c, *p, val);
		}
		default:
			if (p == a + 1)
				return die("unknown option '%s' (see srt --help; put the command after '--' if it starts with '-')", a);
			fprintf(stderr, "srt: unknown option '-%c' in '%s' (see srt --help; put the command after '--' if it starts with '-')\n",
				*p, a);
			return 1;
		}
	}
	return -1;
}

/* Returns -1 to continue, or an exit code. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		int rc;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break; /* first command word: stop (POSIX '+' semantics) */
		if (a[1] != '-') {
			rc = parse_short(argc, argv, &i, c);
			if (rc >= 0)
				return rc;
			continue;
		}
		if (!strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("%s\n", srt_version());
			return 0;
		}
		if (!strcmp(a, "--debug")) {
			c->debug = 1;
			continue;
		}
		if (!strcmp(a, "--explain") || !strcmp(a, "--dry-run")) {
			c->explain = 1;
			continue;
		}
		if (!strcmp(a, "--quiet")) {
			c->quiet = 1;
			continue;
		}
		if (!strncmp(a, "--control-fd", 12) || !strncmp(a, "--violations-fd", 15) ||
		    !strncmp(a, "--violations-log", 16)) {
			const char *eq = strchr(a, '=');
			char name[32];
			size_t nl = eq ? (size_t)(eq - a) : strlen(a);
			if (nl >= sizeof(name) || (strncmp(a, "--control-fd", nl) && strncmp(a, "--violations-fd", nl) &&
						   strncmp(a, "--violations-log", nl)))
				return die("unknown option '%s' (see srt --help)", a);
			memcpy(name, a, nl);
			name[nl] = '\0';
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return die("option '%s' needs an argument (see srt --help)", a);
			if (!strcmp(name, "--violations-log")) {
				if (!*val)
					return die("%s", "--violations-log needs a file name");
				c->violations_log = val;
			} else {
				char *end;
				long fd;
				errno = 0;
				fd = strtol(val, &end, 10);
				if (!*val || *end || errno || fd < 3 || fd > 65535) {
					fprintf(stderr, "srt: %s: '%s' is not a file descriptor >= 3 (0-2 are stdin, stdout and stderr)\n",
						name, val);
					return 1;
				}
				if (!strcmp(name, "--control-fd"))
					c->control_fd = (int)fd;
				else
					c->violations_fd = (int)fd;
			}
			continue;
		}
		if (!strcmp(a, "--settings") || !strcmp(a, "--backend")) {
			if (i + 1 >= argc)
				return die("option '%s' needs an argument (see srt --help)", a);
			val = argv[++i];
		} else if (!strncmp(a, "--settings=", 11)) {
			val = a + 11;
			a = "--settings";
		} else if (!strncmp(a, "--backend=", 10)) {
			val = a + 10;
			a = "--backend";
		} else {
			return die("unknown option '%s' (see srt --help; put the command after '--' if it starts with '-')", a);
		}
		if (!strcmp(a, "--backend")) {
			if (!*val)
				return die("--backend needs a name or an absolute path, not an empty string%s", "");
			c->backend = val;
			continue;
		}
		rc = set_value(c, 's', val);
		if (rc >= 0)
			return rc;
	}
	c->words = argv + i;
	c->nwords = argc - i;
	return -1;
}

/* ---- violations: JSON lines while running, a summary afterwards ---- */

static int violations_out = -1;
/* The records are written without ever blocking srt for long: a reader
 * that stops reading costs one wait of a second, then records are dropped
 * (counted, said at the end) until it reads again. */
static int violations_sock;      /* a socket: send(MSG_DONTWAIT) */
static int violations_poll;      /* the caller's blocking descriptor: poll, small writes */
static int violations_stalled;   /* the last wait timed out */
static int violations_torn;      /* a record was cut: start the next on a new line */
static unsigned long violations_dropped;
static char *protect; /* the violations log, write-denied in the sandbox */

static void violations_write(const char *rec, size_t n)
{
	size_t off = 0;

	while (off < n) {
		const char *buf = violations_torn ? "\n" : rec + off;
		size_t len = violations_torn ? 1 : n - off;
		ssize_t w;

		if (violations_poll) {
			/* a blocking descriptor we could not reopen: write only
			 * what poll says fits (a pipe page; a few tty bytes) */
			struct pollfd p = { .fd = violations_out, .events = POLLOUT };

			if (len > 512)
				len = 512;
			if (poll(&p, 1, violations_stalled ? 0 : 1000) != 1 || !(p.revents & POLLOUT)) {
				violations_stalled = 1;
				break;
			}
		}
		w = violations_sock ? srt__cli_send(violations_out, buf, len)
				    : write(violations_out, buf, len);
		if (w > 0) {
			if (violations_torn)
				violations_torn = 0;
			else
				off += (size_t)w;
			violations_stalled = 0;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !violations_stalled) {
			struct pollfd p = { .fd = violations_out, .events = POLLOUT };

			if (poll(&p, 1, 1000) == 1)
				continue;
			violations_stalled = 1;
		}
		break;
	}
	if (off < n) {
		/* the rest of this record is dropped; a cut one ends here */
		if (off > 0)
			violations_torn = 1;
		violations_dropped++;
	}
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes
 * there are not one (a stray continuation, an overlong form, a surrogate,
 * a cut sequence). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* A JSON string: a command's text and key are the caller's bytes, which
 * need not be UTF-8; each byte that does not start a valid sequence
 * becomes U+FFFD, so every record parses as strict JSON. */
static void json_str(char *out, size_t outlen, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (outlen < 3)
		return;
	out[o++] = '"';
	while (*p && o + 8 < outlen) {
		unsigned char ch = *p;
		size_t n;

		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = (char)ch;
			p++;
		} else if (ch < 0x20) {
			o += (size_t)snprintf(out + o, outlen - o, "\\u%04x", ch);
			p++;
		} else if (ch < 0x80) {
			out[o++] = (char)ch;
			p++;
		} else if ((n = utf8_len(p)) != 0) {
			if (o + n + 8 >= outlen)
				break;
			memcpy(out + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(out + o, "\\ufffd", 6);
			o += 6;
			p++;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
}

static void on_violation(void *ctx, const struct srt_violation *v)
{
	char line[4096], cmd[1200], key[1200];
	int n;

	(void)ctx;
	if (violations_out < 0)
		return;
	json_str(line, sizeof(line) - 200, v->line);
	json_str(cmd, sizeof(cmd), v->command ? v->command : "");
	json_str(key, sizeof(key), v->key ? v->key : "");
	{
		char rec[8192];
		n = snprintf(rec, sizeof(rec), "{\"time\":%lld,\"line\":%s,\"command\":%s,\"key\":%s}\n",
			     v->time_ms, line, cmd, key);
		if (n > 0 && (size_t)n < sizeof(rec))
			violations_write(rec, (size_t)n);
	}
}

/* After the summary: the setting that would allow what was denied, when
 * one narrow setting would (a package manager's cache), each said once. */
#define ADVICE_MAX 8

static void print_advice(struct srt_sandbox *sb, const struct srt_violation *v, size_t n)
{
	static char said[ADVICE_MAX][512];
	size_t nsaid = 0, i, k;
	char buf[512];

	for (i = 0; i < n && nsaid < ADVICE_MAX; i++) {
		if (!srt_sandbox_violation_advice(sb, v[i].line, buf, sizeof(buf)))
			continue;
		for (k = 0; k < nsaid && strcmp(said[k], buf); k++)
			;
		if (k < nsaid)
			continue;
		memcpy(said[nsaid++], buf, sizeof(buf));
		fprintf(stderr, "srt: hint: %s\n", buf);
	}
}

static void print_summary(struct srt_sandbox *sb)
{
	struct srt_violation *v = NULL;
	size_t n = 0, i;

	if (srt_sandbox_violations(sb, NULL, &v, &n) != SRT_OK || n == 0) {
		srt_violations_free(v, n);
		return;
	}
	{
		unsigned long total = srt_sandbox_violation_total(sb);

		if (total > n)
			/* the store keeps the last ones: say how many there were */
			fprintf(stderr, "srt: the sandbox denied %lu actions; the last %zu:\n", total, n);
		else
			fprintf(stderr, "srt: the sandbox denied %zu action%s:\n", n, n == 1 ? "" : "s");
	}
	for (i = 0; i < n; i++)
		fprintf(stderr, "srt:   %s\n", v[i].line);
	print_advice(sb, v, n);
	srt_violations_free(v, n);
}

/* ---- --control-fd: live settings updates, one JSON document a line ---- */

struct control {
	struct srt_sandbox *sb;
	int fd;
	int lines;
	int failed_early;
};

#define CONTROL_MAX_LINE (1024 * 1024)

static void control_line(struct control *ct, char *line, size_t len)
{
	struct srt_diag d;
	size_t i;

	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'); i++)
		;
	if (i == len)
		return; /* blank lines are ignored */
	memset(&d, 0, sizeof(d));
	if (srt_sandbox_update_settings(ct->sb, line, len, &d) != SRT_OK)
		fprintf(stderr, "srt: invalid settings on control fd %d ignored, previous settings still in force: %s\n",
			ct->fd, d.message);
	ct->lines++;
}

static void *control_main(void *arg)
{
	struct control *ct = arg;
	static char buf[CONTROL_MAX_LINE + 1];
	size_t have = 0;
	int skipping = 0;

	for (;;) {
		ssize_t n = read(ct->fd, buf + have, CONTROL_MAX_LINE - have);
		char *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (ct->lines == 0) {
				fprintf(stderr, "srt: control fd %d failed before delivering an update: %s; refusing to run the command without the control channel it asks for\n",
					ct->fd, strerror(errno));
				ct->failed_early = 1;
				kill(getpid(), SIGTERM);
			} else {
				fprintf(stderr, "srt: error reading control fd %d: %s; no further updates will be applied\n",
					ct->fd, strerror(errno));
			}
			break;
		}
		if (n == 0) {
			if (have && !skipping)
				control_line(ct, buf, have);
			break;
		}
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t l = (size_t)(nl - buf);
			if (!skipping) {
				int old;
				pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
				control_line(ct, buf, l);
				pthread_setcancelstate(old, NULL);
			}
			skipping = 0;
			memmove(buf, nl + 1, have - l - 1);
			have -= l + 1;
		}
		if (have == CONTROL_MAX_LINE) {
			fprintf(stderr, "srt: control fd %d: a line longer than %d bytes was ignored\n",
				ct->fd, CONTROL_MAX_LINE);
			have = 0;
			skipping = 1;
		}
	}
	return NULL;
}

static int control_fd_usable(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "srt: --control-fd %d is not usable: %s; refusing to run the command without the control channel it asks for\n",
			fd, strerror(errno));
		return 0;
	}
	if ((fl & O_ACCMODE) == O_WRONLY) {
		fprintf(stderr, "srt: --control-fd %d is open for writing only; give srt a readable end\n", fd);
		return 0;
	}
	/* the descriptor must not leak into the sandbox */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return 1;
}

/* The caller's terminal as it was before the command: the command may
 * change its modes or suspend its output (tcflow TCOOFF), and neither
 * should outlive the run, as TIOCEXCL and TIOCSETD, which the sandbox
 * refuses, would. Put back only while srt is in the terminal's foreground
 * process group (a background srt would be stopped by SIGTTOU). The
 * window size is left alone: the terminal itself changes it when the
 * user resizes the window during the run. */
struct tty_state {
	int fd;
	struct termios t;
};

static void tty_save(struct tty_state *s)
{
	s->fd = -1;
	for (int fd = 0; fd < 3; fd++) {
		if (isatty(fd) && tcgetattr(fd, &s->t) == 0) {
			s->fd = fd;
			return;
		}
	}
}

static void tty_restore(const struct tty_state *s)
{
	struct termios now;

	if (s->fd < 0 || tcgetpgrp(s->fd) != getpgrp())
		return;
	tcflow(s->fd, TCOON); /* first: a suspended output never drains */
	if (tcgetattr(s->fd, &now) == 0 && memcmp(&now, &s->t, sizeof(now)) != 0)
		tcsetattr(s->fd, TCSANOW, &s->t);
}

int main(int argc, char **argv)
{
	struct cli c;
	struct srt_options opt;
	struct srt_run_options ro;
	struct tty_state tty;
	struct srt_diag diag;
	struct srt_sandbox *sb = NULL;
	const char *shell_argv[4];
	const char *const *run_argv;
	char *key = NULL;
	char **direct = NULL;
	sigset_t set;
	int rc, status = 1;

	memset(&c, 0, sizeof(c));
	memset(&diag, 0, sizeof(diag));
	if (argc >= 2 && !strcmp(argv[1], "help")) {
		/* `srt -- help` runs a program called help */
		if (argc == 2) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (argc > 3)
			return die("help: %s", "one subcommand at most (srt help [doctor|proxy])");
		if (!strcmp(argv[2], "doctor")) {
			fputs(doctor_usage_text, stdout);
			return 0;
		}
		if (!strcmp(argv[2], "proxy")) {
			char *h[] = { argv[2], (char *)"--help", NULL };
			return srt_cli_proxy(2, h);
		}
		return die("help: no help for '%s' (srt help [doctor|proxy])", argv[2]);
	}
	if (argc >= 2 && !strcmp(argv[1], "proxy"))
		return srt_cli_proxy(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "doctor")) {
		const char *backend = NULL;
		int json = 0, i;
		for (i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
				fputs(doctor_usage_text, stdout);
				return 0;
			}
			if (!strcmp(argv[i], "--json"))
				json = 1;
			else if (!strncmp(argv[i], "--backend=", 10) && argv[i][10])
				backend = argv[i] + 10;
			else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
				backend = argv[++i];
			else
				return die("doctor: unknown argument '%s' (srt doctor [--json] [--backend=NAME|PATH])", argv[i]);
		}
		return srt_doctor(backend, stdout, json);
	}
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
	/* A shell starts background jobs with SIGINT and SIGQUIT ignored, and an
	 * ignored signal is discarded even while blocked; srt takes them all
	 * (they stay blocked and are forwarded to the command). */
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);

	if (c.control_fd && !control_fd_usable(c.control_fd))
		return 1;
	if (c.violations_log && c.violations_fd) {
		fprintf(stderr, "srt: --violations-log and --violations-fd: give one of them\n");
		return 1;
	}
	if (c.violations_log) {
		struct stat st;

		/* non-blocking: a FIFO without a reader is an error (ENXIO), not
		 * a hang with the signals already blocked */
		violations_out = open(c.violations_log,
				      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
		if (violations_out < 0) {
			fprintf(stderr, "srt: --violations-log \"%s\": %s%s\n", c.violations_log, strerror(errno),
				errno == ENXIO ? " (a FIFO with no reader)" :
				errno == ELOOP ? " (a symbolic link: give the file itself)" : "");
			return 1;
		}
		/* a log in a write root: the command must not forge or cut it,
		 * nor through another name of the same file */
		if (fstat(violations_out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (st.st_nlink > 1) {
				fprintf(stderr, "srt: --violations-log \"%s\" has %lu hard links: the command could write it through another; give a file with one link\n",
					c.violations_log, (unsigned long)st.st_nlink);
				return 1;
			}
			protect = realpath(c.violations_log, NULL);
			if (!protect) {
				fprintf(stderr, "srt: --violations-log \"%s\": cannot resolve its path to protect it: %s\n",
					c.violations_log, strerror(errno));
				return 1;
			}
		}
	} else if (c.violations_fd) {
		struct stat st;

		if (fcntl(c.violations_fd, F_GETFL) < 0 || fstat(c.violations_fd, &st) != 0) {
			fprintf(stderr, "srt: --violations-fd %d is not open: %s\n", c.violations_fd, strerror(errno));
			return 1;
		}
		violations_out = c.violations_fd;
		fcntl(violations_out, F_SETFD, FD_CLOEXEC);
		if (S_ISSOCK(st.st_mode)) {
			violations_sock = 1;
		} else if (!S_ISREG(st.st_mode)) {
			/* a pipe or a terminal: our own non-blocking open of it, so
			 * the caller's descriptor keeps its flags; where that is
			 * not allowed (another user's pipe) or the reader is gone,
			 * the caller's descriptor with a poll before each write */
			int fd;

			fd = srt__cli_reopen_fd(c.violations_fd, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0)
				violations_out = fd;
			else
				violations_poll = 1;
		}
	}

	memset(&opt, 0, sizeof(opt));
	opt.backend = c.backend;
	opt.debug = c.debug;
	opt.live_updates = c.control_fd != 0;
	opt.plan_only = c.explain;
	opt.protect_file = protect;
	rc = srt_sandbox_new_from_file(&sb, c.settings, c.settings != NULL, &opt, &diag);
	if (rc) {
		/* one line: a file's message already says srt refuses to run
		 * without the rules it holds */
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		return 1;
	}
	rc = srt_sandbox_start(sb, &diag);
	if (rc) {
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		srt_sandbox_free(sb);
		return 1;
	}
	/* orphans of the command become ours, to be ended with it */
	if ((rc = srt__cli_become_reaper()) != 0) {
		fprintf(stderr, "srt: cannot become the reaper of the command's processes (%s); refusing to run a command whose daemons could outlive srt\n",
			strerror(rc));
		srt_sandbox_free(sb);
		return 1;
	}

	if (c.command_string && (direct = srt__cli_direct_argv(c.command_string))) {
		if (c.debug)
			fprintf(stderr, "[srt debug] -c: a simple command, run without a shell\n");
		run_argv = (const char *const *)direct;
	} else if (c.command_string) {
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
		srt__cli_direct_free(direct);
		srt_sandbox_free(sb);
		return rc ? 1 : 0;
	}

	srt_sandbox_on_violation(sb, on_violation, NULL);
	memset(&ro, 0, sizeof(ro));
	ro.forward_signals = 1;
	ro.null_fd = c.control_fd;
	ro.end_orphans = 1; /* this process is the subreaper and has no other child */
	if (c.command_string)
		ro.command_id = c.command_string;
	else if (srt_quote_argv(run_argv, &key) == SRT_OK)
		ro.command_id = key;
	tty_save(&tty);
	if (c.control_fd) {
		static struct control ct;
		pthread_t th;
		sigset_t all, old;
		ct.sb = sb;
		ct.fd = c.control_fd;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&th, NULL, control_main, &ct) != 0) {
			fprintf(stderr, "srt: cannot start the control fd reader; refusing to run without the control channel\n");
			srt_sandbox_free(sb);
			return 1;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		rc = srt_sandbox_run(sb, run_argv, &ro, &status, &diag);
		/* stop the reader before the sandbox it updates goes away */
		pthread_cancel(th);
		pthread_join(th, NULL);
		if (ct.failed_early)
			status = 1;
	} else {
		rc = srt_sandbox_run(sb, run_argv, &ro, &status, &diag);
	}
	tty_restore(&tty);
	if (rc) {
		fprintf(stderr, "srt: %s\n", diag.message[0] ? diag.message : srt_strerror(rc));
		status = 1;
	} else if (!c.quiet) {
		/* every violation of this sandbox: it ran this one command,
		 * and a proxy denial is attributed to whatever key the client
		 * put in its proxy user name, which the command chooses */
		print_summary(sb);
	}
	if (violations_dropped)
		fprintf(stderr, "srt: %lu violation record(s) were not written to %s: its reader was not reading\n",
			violations_dropped, c.violations_log ? c.violations_log : "--violations-fd");
	free(key);
	srt__cli_direct_free(direct);
	srt_sandbox_free(sb);
	return status;
}
