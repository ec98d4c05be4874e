/* macos-seatbelt: the policy enforced by Seatbelt, the macOS kernel
 * sandbox, through /usr/bin/sandbox-exec:
 *
 *   /usr/bin/sandbox-exec -p PROFILE command [args...]
 *
 * The profile (profile.c) is written from the policy in prepare()'s state
 * at wrap() time, with a tag naming this run, which the violation monitor
 * (`log stream`, Darwin only) finds its lines by.
 *
 * The module builds on every system, so `srt --backend=macos-seatbelt
 * --explain` prints the profile anywhere. Only macOS can run it: on any
 * other system probe() refuses, naming the backend and what it needs, and
 * nothing is run.
 *
 * What it does not give, compared with linux-bwrap: no private process
 * tree (SRT_CAP_PIDNS) and no network namespace; the profile's deny
 * default refuses every network operation instead (SRT_CAP_NETRULES). It
 * cannot bridge the proxy yet (no SRT_CAP_PROXY): srt's proxy listens on a
 * Unix socket, and the profile can only open loopback TCP ports to the
 * command, so network.allowedDomains is refused by the core. The profile
 * writer already emits the rules for the proxy's ports when the policy
 * has a proxy. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <srt/backend.h>

#include "backends/macos-seatbelt/logline.h"
#include "backends/macos-seatbelt/profile.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"
#define SUFFIX_LEN 16 /* "_" + 9 characters + "_SBX" + NUL, rounded up */

struct sb_state {
	const struct srt_policy *pol;
	char suffix[SUFFIX_LEN]; /* this run's tag suffix: the monitor's filter */
};

struct sb_cmd {
	char *profile;     /* a copy of the profile argument, for explain() */
	pid_t monitor;     /* the log reader, or 0 */
	int events_rd;     /* its lines for the core, or -1 */
	int life_wr;       /* held by the command: the monitor stops at its EOF */
};

/* Nine characters of [a-z0-9], from /dev/urandom: the tag must not be
 * guessable by the command (it could print lines that end with it). */
static int make_suffix(char *out, struct srt_diag *diag)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[9];
	size_t i, got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && got < sizeof(r)) {
		ssize_t n = read(fd, r + got, sizeof(r) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (got < sizeof(r))
		return srt_diag_set(diag, SRT_E_IO, "macos-seatbelt",
				    "macos-seatbelt: cannot read /dev/urandom for the run's log tag");
	out[0] = '_';
	for (i = 0; i < sizeof(r); i++)
		out[1 + i] = set[r[i] % (sizeof(set) - 1)];
	memcpy(out + 1 + sizeof(r), "_SBX", 5);
	return SRT_OK;
}

static int sb_probe(const struct srt_policy *pol, struct srt_diag *diag)
{
#ifdef __APPLE__
	if (access(SANDBOX_EXEC, X_OK) != 0)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "macos-seatbelt",
				    "macos-seatbelt: %s is missing or not executable (%s); it ships with macOS, so this system is damaged or not macOS",
				    SANDBOX_EXEC, strerror(errno));
	(void)pol;
	return SRT_OK;
#else
	(void)pol;
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "macos-seatbelt",
			    "macos-seatbelt needs macOS: it runs commands under %s (Seatbelt), which this system does not have; here it can only print its profile (srt --backend=macos-seatbelt --explain). Use linux-bwrap or linux-landlock to run commands",
			    SANDBOX_EXEC);
#endif
}

static int sb_prepare(const struct srt_policy *pol, void **state, struct srt_diag *diag)
{
	struct sb_state *st;
	int rc;

#ifdef __APPLE__
	/* The profile would open the proxy's loopback ports, but srt's proxy
	 * listens on a Unix socket only: whatever else listens on those ports
	 * would get the command's traffic. Not reached while the module does
	 * not declare SRT_CAP_PROXY (the core then starts no proxy). */
	if (pol->proxy_dir)
		return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.allowedDomains",
				    "macos-seatbelt cannot serve network.allowedDomains yet: srt's proxy has no loopback TCP listener; nothing was run");
#endif
	st = calloc(1, sizeof(*st));
	if (!st)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	rc = make_suffix(st->suffix, diag);
	if (rc) {
		free(st);
		return rc;
	}
	st->pol = pol;
	*state = st;
	return SRT_OK;
}

#define IPV4_FLAG "-Djava.net.preferIPv4Stack=true"

/* JAVA_TOOL_OPTIONS=... when the command may reach loopback (the proxy's
 * ports, allowLocalBinding), else NULL (*failed on no memory). Seatbelt's
 * "localhost" matches 127.0.0.1 and ::1 but not ::ffff:127.0.0.1, the
 * address a JVM's default dual-stack socket connects from: the flag makes
 * Java use IPv4 sockets. The inherited options are kept. */
static char *java_tool_options(const struct srt_policy *pol, int *failed)
{
	const char *inh = getenv("JAVA_TOOL_OPTIONS");
	size_t n;
	char *s;

	if (!pol->allow_local_binding && !pol->proxy_dir)
		return NULL;
	if (!inh)
		inh = "";
	n = strlen("JAVA_TOOL_OPTIONS=") + strlen(inh) + 1 + strlen(IPV4_FLAG) + 1;
	s = malloc(n);
	if (!s) {
		*failed = 1;
		return NULL;
	}
	if (strstr(inh, IPV4_FLAG))
		snprintf(s, n, "JAVA_TOOL_OPTIONS=%s", inh);
	else
		snprintf(s, n, "JAVA_TOOL_OPTIONS=%s%s%s", inh, *inh ? " " : "", IPV4_FLAG);
	return s;
}

/* The command's words joined by spaces: the key the log tag carries. */
static void command_key(const char *const *argv, char *out, size_t outlen)
{
	size_t o = 0, i;

	out[0] = '\0';
	for (i = 0; argv[i] && o + 1 < outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%s%s", i ? " " : "", argv[i]);
}

#ifdef __APPLE__
/* The monitor: `log stream` for this run's tag, each denial as one line
 * on out, until the command's end closes life (and a short drain for the
 * lines log delivers late). */
static void monitor_main(const char *suffix, int life, int out)
{
	char pred[128], buf[8192], ev[1200];
	int lp[2];
	pid_t log;
	size_t have = 0;
	time_t stop = 0;

	snprintf(pred, sizeof(pred), "(eventMessage ENDSWITH \"%s\")", suffix);
	if (pipe(lp))
		_exit(1);
	log = fork();
	if (log == 0) {
		dup2(lp[1], 1);
		close(lp[0]);
		close(lp[1]);
		execl("/usr/bin/log", "log", "stream", "--predicate", pred, "--style", "compact",
		      (char *)NULL);
		_exit(127);
	}
	close(lp[1]);
	fcntl(lp[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		fd_set rd;
		struct timeval tv = { 0, 100000 };
		ssize_t n;
		char *nl;

		FD_ZERO(&rd);
		FD_SET(lp[0], &rd);
		if (!stop)
			FD_SET(life, &rd);
		if (select((lp[0] > life ? lp[0] : life) + 1, &rd, NULL, NULL, &tv) < 0 && errno != EINTR)
			break;
		if (!stop && FD_ISSET(life, &rd) && read(life, buf, 1) <= 0)
			stop = time(NULL) + 1;
		if (stop && time(NULL) > stop)
			break;
		n = read(lp[0], buf + have, sizeof(buf) - 1 - have);
		if (n == 0)
			break;
		if (n < 0)
			continue;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t l = (size_t)(nl - buf);

			*nl = '\0';
			if (srt__sb_log_line(buf, ev, sizeof(ev) - 1)) {
				strcat(ev, "\n");
				(void)!write(out, ev, strlen(ev));
			}
			memmove(buf, nl + 1, have - l - 1);
			have -= l + 1;
		}
		if (have == sizeof(buf) - 1)
			have = 0; /* an over-long line: dropped */
	}
	kill(log, SIGTERM);
	waitpid(log, NULL, 0);
	_exit(0);
}

static int start_monitor(struct sb_state *st, struct sb_cmd *c, struct srt_command *out,
			 struct srt_diag *diag)
{
	int ev[2], life[2];

	if (pipe(ev))
		return srt_diag_set(diag, SRT_E_IO, "macos-seatbelt", "pipe: %s", strerror(errno));
	if (pipe(life)) {
		close(ev[0]);
		close(ev[1]);
		return srt_diag_set(diag, SRT_E_IO, "macos-seatbelt", "pipe: %s", strerror(errno));
	}
	c->monitor = fork();
	if (c->monitor == 0) {
		close(ev[0]);
		close(life[1]);
		monitor_main(st->suffix, life[0], ev[1]);
	}
	close(ev[1]);
	close(life[0]);
	fcntl(ev[0], F_SETFD, FD_CLOEXEC);
	if (c->monitor < 0) {
		c->monitor = 0;
		close(ev[0]);
		close(life[1]);
		return srt_diag_set(diag, SRT_E_IO, "macos-seatbelt", "fork: %s", strerror(errno));
	}
	c->events_rd = ev[0];
	c->life_wr = life[1];
	out->events_fd = ev[0];
	out->child_fds[out->n_child_fds++] = life[1];
	return SRT_OK;
}
#endif

static int sb_wrap(void *state, const char *const *argv, struct srt_command *out,
		   struct srt_diag *diag)
{
	struct sb_state *st = state;
	struct sb_cmd *c;
	char key[128], tag[256], *java;
	size_t n, i, o = 0;
	int rc, failed = 0;

	for (n = 0; argv[n]; n++)
		;
	c = calloc(1, sizeof(*c));
	if (!c)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	c->events_rd = c->life_wr = -1;
	out->priv = c;
	command_key(argv, key, sizeof(key));
	srt__sb_log_tag(key, st->suffix, tag, sizeof(tag));
	rc = srt__sb_profile(st->pol, tag, &c->profile, diag);
	if (rc)
		return rc;
	java = java_tool_options(st->pol, &failed);
	out->argv = calloc(n + 6, sizeof(char *));
	if (!out->argv || failed) {
		free(java);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	}
	if (java) {
		out->argv[o++] = strdup("/usr/bin/env");
		out->argv[o++] = java;
	}
	out->argv[o++] = strdup(SANDBOX_EXEC);
	out->argv[o++] = strdup("-p");
	out->argv[o++] = strdup(c->profile);
	for (i = 0; i < n; i++)
		out->argv[o++] = strdup(argv[i]);
	for (i = 0; i < o; i++)
		if (!out->argv[i])
			return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	out->events_fd = -1;
#ifdef __APPLE__
	rc = start_monitor(st, c, out, diag);
	if (rc)
		return rc;
#endif
	return SRT_OK;
}

static void sb_release(void *state, struct srt_command *cmd)
{
	struct sb_cmd *c = cmd->priv;
	size_t i;

	(void)state;
	for (i = 0; cmd->argv && cmd->argv[i]; i++)
		free(cmd->argv[i]);
	free(cmd->argv);
	cmd->argv = NULL;
	if (!c)
		return;
	if (c->life_wr >= 0)
		close(c->life_wr);
	if (c->monitor > 0) {
		kill(c->monitor, SIGTERM);
		waitpid(c->monitor, NULL, 0);
	}
	if (c->events_rd >= 0)
		close(c->events_rd);
	free(c->profile);
	free(c);
	cmd->priv = NULL;
}

static int sb_explain(void *state, const struct srt_command *cmd, FILE *out)
{
	const struct sb_cmd *c = cmd->priv;
	size_t i;

	(void)state;
	fputs("macos-seatbelt: runs", out);
	for (i = 0; cmd->argv[i]; i++)
		fprintf(out, " %s", i && !strcmp(cmd->argv[i - 1], "-p") ? "PROFILE" : cmd->argv[i]);
	fputs("\nPROFILE (Seatbelt: the last matching rule decides):\n", out);
	fputs(c->profile, out);
	return SRT_OK;
}

static void sb_teardown(void *state)
{
	free(state);
}

const struct srt_backend srt_backend_entry = {
	.hdr = {
		.magic = SRT_BACKEND_MAGIC,
		.abi_major = SRT_BACKEND_ABI_MAJOR,
		.abi_minor = SRT_BACKEND_ABI_MINOR,
		.size = sizeof(struct srt_backend),
		.name = "macos-seatbelt",
	},
	.caps = SRT_CAP_FILESYSTEM | SRT_CAP_NETRULES,
	.probe = sb_probe,
	.prepare = sb_prepare,
	.wrap = sb_wrap,
	.release = sb_release,
	.explain = sb_explain,
	.teardown = sb_teardown,
};
