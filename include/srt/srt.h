/* srt: the sandbox runtime library.
 *
 * A sandbox is created from settings (a file, JSON text or YAML text),
 * started (backend prepared, proxy started on a thread the library owns),
 * then used to run or wrap commands, and freed. Several sandboxes may live
 * in one process; each has its own proxy. Functions on one sandbox are not
 * thread-safe unless noted. */
#ifndef SRT_SRT_H
#define SRT_SRT_H

#include <stdio.h>
#include <sys/types.h>
#include <srt/error.h>
#include <srt/filter.h>
#include <srt/ask.h>

#ifdef __cplusplus
extern "C" {
#endif

struct srt_sandbox;

/* Where warnings and debug lines go; NULL: stderr. Called from any thread. */
typedef void (*srt_log_fn)(void *ctx, int is_debug, const char *line);

struct srt_options {
	const char *backend; /* name or absolute path of a backend; NULL: the default */
	const char *cwd;     /* working directory of commands; NULL: getcwd() */
	int debug;           /* emit debug lines */
	int live_updates;    /* settings may change while running (start the proxy
			      * even when nothing is allowed yet) */
	srt_log_fn log;
	void *log_ctx;
	/* a file of the caller's the command must not write (a violations log
	 * in a write root), or NULL; write-denied like the settings file */
	const char *protect_file;
	/* start only to print the plan (srt_sandbox_explain): a backend named
	 * in `backend` that cannot run on this machine (macos-seatbelt on
	 * Linux) is still prepared, nothing a run makes is made (the run's
	 * TMPDIR, the proxy's socket, placeholders in the project: the plan
	 * names them), and srt_sandbox_run and srt_sandbox_wrap refuse */
	int plan_only;
};

/* One denied action, recorded for the command it is attributed to.
 * Strings are UTF-8. */
struct srt_violation {
	const char *line;    /* e.g. "deny network-outbound evil.com:443 (host is on the deny list)" */
	const char *command; /* the command's text, or NULL */
	const char *key;     /* the attribution key (command id), or NULL */
	long long time_ms;   /* wall clock, milliseconds since the epoch */
};

/* Called for every recorded violation, from the thread that produced it
 * (the proxy thread or the monitor), with the sandbox's violation store
 * locked. The event is borrowed for the call; the listener must not call
 * back into the sandbox, create or free a sandbox, nor fork: a fork in
 * any thread first waits for every store to be unlocked, so that a child
 * forked meanwhile gets whole stores and free locks. */
typedef void (*srt_violation_fn)(void *ctx, const struct srt_violation *v);

enum srt_settings_format {
	SRT_SETTINGS_JSON = 0,
	SRT_SETTINGS_YAML = 1,
};

/* The library's version string, e.g. "0.1.0". */
const char *srt_version(void);

/* Create a sandbox from a settings file. `explicit_path`: the user named
 * the file (a missing file is an error); otherwise a missing file means the
 * built-in defaults. path NULL: ~/.srt-settings.json, not explicit. */
int srt_sandbox_new_from_file(struct srt_sandbox **out, const char *path,
			      int explicit_path, const struct srt_options *opt,
			      struct srt_diag *diag);

/* Create a sandbox from settings text. */
int srt_sandbox_new_from_text(struct srt_sandbox **out, const char *text,
			      size_t len, enum srt_settings_format fmt,
			      const struct srt_options *opt, struct srt_diag *diag);

/* Load the backend, check it can run here, start the proxy, compile the
 * policy. Fails closed: on error nothing is running. */
int srt_sandbox_start(struct srt_sandbox *sb, struct srt_diag *diag);

/* Print the effective policy and the backend's plan for argv. Runs nothing. */
int srt_sandbox_explain(struct srt_sandbox *sb, const char *const *argv,
			FILE *out, struct srt_diag *diag);

struct srt_run_options {
	const char *command_id; /* attribution key (default: the command text) */
	const char *command_text; /* text for ignoreViolations and reports
				   * (default: the command) */
	int forward_signals;    /* forward INT TERM HUP QUIT USR1 USR2; the caller
				 * must have blocked them and SIGCHLD in every
				 * thread (else the end of the command may be
				 * noticed up to a second late) */
	int null_fd;            /* >= 3: the child sees /dev/null at this fd */
	int end_orphans;        /* the caller is a child subreaper
				 * (PR_SET_CHILD_SUBREAPER) with no child of its
				 * own: with a backend that has no pid namespace,
				 * every process the command left (now the
				 * caller's child) is killed once it has ended,
				 * before the post-run checks */
};

/* Run argv (argv[0] is looked up on PATH when not absolute) in the sandbox
 * and wait for it. *status: the command's exit code, or 128+N when it died
 * of signal N. */
int srt_sandbox_run(struct srt_sandbox *sb, const char *const *argv,
		    const struct srt_run_options *ro, int *status,
		    struct srt_diag *diag);

/* Wrap mode: srt builds the sandboxed command and the caller spawns it
 * itself (its own pseudo-terminal, pipes, streaming), then reports the pid
 * (srt_command_started) and the end (srt_command_finished); srt does the
 * rest: the violations of the command are attributed to its key, the git
 * guard sweeps, the backend cleans up. The command is sandboxed exactly as
 * one srt_sandbox_run spawns.
 *
 * How to spawn it: in the child, between fork and exec, call
 * srt_wrapped_child_setup (async-signal-safe: it clears close-on-exec on
 * fds, makes the child lead a process group unless it already leads one,
 * and restores the open-files limit);
 * chdir to cwd; execve argv[0] with argv and envp (or /bin/sh -c
 * shell_command). A spawner that cannot run code in the child (Python's
 * subprocess, posix_spawn) passes fds at the same numbers, starts a new
 * process group, and srt_command_started does the rest from the parent.
 * A pseudo-terminal is the command's stdio, not its controlling terminal:
 * do not make it the child's controlling terminal (forkpty, login_tty).
 * The sandbox runs the command in a session of its own anyway (so it
 * cannot push input into the caller's terminal), and linux-bwrap was seen
 * to fail to set up the sandbox of a process holding a controlling
 * terminal when run unprivileged. Then, in the parent, srt_command_started(pid) at once:
 * it waits until the sandbox is up and kills the command (SIGKILL; the
 * caller still reaps it) when it cannot confirm it. After the caller
 * reaped the pid: srt_command_finished, which frees the handle (also
 * valid when the spawn failed and srt_command_started was never called).
 *
 * Several wrapped commands may be alive at once; calls on one sandbox are
 * still not thread-safe (serialise them). */
struct srt_wrapped {
	char *const *argv;         /* argv[0] absolute */
	char *const *envp;         /* the whole environment of the command */
	const char *shell_command; /* argv and envp as one POSIX shell line
				    * ("exec /usr/bin/env -i NAME=VALUE... ARGV..."),
				    * for callers that spawn /bin/sh -c */
	const int *fds;            /* descriptors the child inherits, each at
				    * the same number */
	int n_fds;
	const char *cwd;           /* the directory to spawn in */
	int new_pgrp;              /* the command must lead a process group */
	const char *key;           /* the command's key in the violation store */
};

struct srt_wrap_options {
	const char *command_id;   /* attribution key (default: the command text) */
	const char *command_text; /* text for ignoreViolations and reports
				   * (default: the key) */
	/* Per-command overrides, JSON text (the reference's customConfig):
	 * filesystem.allowWrite, denyWrite, denyRead, allowRead each replace
	 * the sandbox's list when present; a present "filesystem" object makes
	 * its "disabled" (default false) win; allowNestedUserNamespaces
	 * replaces the sandbox's; network.allowedDomains and allowPty are
	 * validated (the network is always restricted, and the proxy filters
	 * with the sandbox's lists; allowPty is macOS only). Any other key is
	 * an error naming it. NULL: none. */
	const char *custom_config;
};

/* Build argv into a command the caller spawns. *out on success. */
int srt_sandbox_wrap(struct srt_sandbox *sb, const char *const *argv,
		     const struct srt_wrap_options *wo, struct srt_wrapped **out,
		     struct srt_diag *diag);

/* The string form: `command` run by `shell -c` (shell: an absolute path,
 * NULL: srt_default_shell()); the key and text default to `command`. */
int srt_sandbox_wrap_shell(struct srt_sandbox *sb, const char *command, const char *shell,
			   const struct srt_wrap_options *wo, struct srt_wrapped **out,
			   struct srt_diag *diag);

/* In the child, between fork and exec. 0, or -1 with errno. */
int srt_wrapped_child_setup(const struct srt_wrapped *w);

/* In the parent, right after the spawn. Waits until the sandbox is set up;
 * on failure the command has been killed and diag says why. */
int srt_command_started(struct srt_wrapped *w, pid_t pid, struct srt_diag *diag);

/* Where to send signals meant for the command (the process inside the
 * sandbox when the backend has one, else the spawned pid). */
int srt_command_signal_pid(const struct srt_wrapped *w);

/* After the caller reaped the command: reads its last violations, cleans
 * up, frees w. status: its exit status (for the debug log). NULL-safe. */
void srt_command_finished(struct srt_wrapped *w, int status);

/* Per-command network allow list (the reference's
 * registerCommandNetworkLists): hosts matching `allowed` (domain patterns)
 * are allowed for commands run with this command_id, in addition to the
 * settings; allowed NULL or empty removes the list. The id travels in the
 * proxy username (first 100 characters) and must be at least 22
 * characters long. The attribution is chosen by the client, so this widens
 * the policy for anything the sandbox runs that knows the id. Thread-safe. */
int srt_sandbox_set_command_domains(struct srt_sandbox *sb, const char *command_id,
				    const char *const *allowed, struct srt_diag *diag);

/* The shell that runs shell strings: /bin/bash when present, else /bin/sh
 * (the reference runs commands with bash). */
const char *srt_default_shell(void);

/* Install (or with fn NULL remove) the violation listener. Thread-safe. */
void srt_sandbox_on_violation(struct srt_sandbox *sb, srt_violation_fn fn, void *ctx);

/* Copies of the recorded violations for key (NULL: every one), oldest
 * first; at most the last 100 are kept. Free with srt_violations_free().
 * Thread-safe. */
int srt_sandbox_violations(struct srt_sandbox *sb, const char *key,
			   struct srt_violation **out, size_t *n);
void srt_violations_free(struct srt_violation *v, size_t n);

/* How many violations the sandbox has recorded in all (those above kept or
 * not). Thread-safe. */
unsigned long srt_sandbox_violation_total(struct srt_sandbox *sb);

/* Advice on a recorded violation line, when one narrow setting would
 * allow what it describes: today a refused write in a package manager's
 * cache (or on the way to one inside HOME) names the
 * filesystem.allowCaches entry that opens that cache. Writes one line
 * (no newline) into buf and returns 1; returns 0 when there is none.
 * Thread-safe. */
int srt_sandbox_violation_advice(struct srt_sandbox *sb, const char *line,
				 char *buf, size_t len);

/* The command's stderr with its violations appended: stderr_text
 * unchanged when key has no violation, else
 * stderr_text + "\n<sandbox_violations>\n" + one line per event +
 * "</sandbox_violations>". *out is malloc'd. Thread-safe. */
int srt_sandbox_annotate_stderr(struct srt_sandbox *sb, const char *key,
				const char *stderr_text, char **out);

/* Replace the live settings with a complete settings object (JSON text):
 * the network lists and ignoreViolations change for running commands; the
 * filesystem rules of running commands do not. An invalid object changes
 * nothing and fills diag. Thread-safe. In a process forked after
 * srt_sandbox_start, SRT_E_STATE: the proxy runs in the process that
 * started the sandbox, which changes the rules for both (the same for
 * srt_sandbox_set_command_domains); that process also records the proxy's
 * violations of the forked process's commands. */
int srt_sandbox_update_settings(struct srt_sandbox *sb, const char *json, size_t len,
				struct srt_diag *diag);

/* Probe every backend (or only `backend`, a name or absolute path) and
 * every layer it needs; print what works and the fix for what does not,
 * as text or JSON. Returns 0 when a backend can run here, 1 otherwise. */
int srt_doctor(const char *backend, FILE *out, int json);

/* Stop the proxy, undo everything start did, free. NULL-safe. */
/* Install (fn non-NULL) or remove a request filter of the caller's: it is
 * asked about every request head the domain lists and the network.filters
 * plugins let through, after them, with the verdicts and the contract of a
 * filter module's request-head hook (include/srt/filter.h): CONTINUE or
 * ALLOW lets the request go ahead, DENY refuses it with call->status and
 * call->reason, PENDING completes later through call->complete() from any
 * thread, ERROR and anything else refuse it (fail closed). Called on the
 * proxy's thread; it must not call back into the sandbox. Before
 * srt_sandbox_start() only: SRT_E_STATE afterwards. */
int srt_sandbox_set_request_filter(struct srt_sandbox *sb, srt_request_filter_fn fn,
				   void *ctx);

void srt_sandbox_free(struct srt_sandbox *sb);

/* Quote argv into one string a POSIX shell splits back into argv: a
 * non-empty word made only of [A-Za-z0-9_./:@+,=-] and not starting with
 * "=" stays bare, any other is single-quoted with ' spelled '"'"'. The
 * result is the command's key in the violation store when no command id is
 * given. *out is malloc'd. */
int srt_quote_argv(const char *const *argv, char **out);

/* `srt proxy`: the filtering proxy alone, without a sandbox, for other
 * sandboxes and containers. An external decider (protocol v1:
 * length-prefixed JSON frames) gives the domain lists in its hello and a
 * verdict for every request. Nothing is accepted before its hello. */
struct srt_proxy_options {
	int listen_fd;              /* an inherited listening TCP socket, or -1 */
	const char *listen;         /* else "host:port" to bind ("[v6]:port") */
	int decider_in, decider_out; /* the decider's descriptors (the same one
				     * for a socket); owned from the call on */
	int lifeline_fd;            /* stop when it ends or fails; -1: none */
	int ca_fd;                  /* a TLS-termination CA (PEM); -1: none */
	int debug;
	const char *const *strip_response_headers; /* names removed from responses */
	size_t nstrip_response_headers;
	int plaintext_header_set;   /* apply a decider's setHeaders and cred to
				     * plain-HTTP requests (else refused 403) */
};

/* Serve until SIGTERM or SIGINT (blocked here and taken through a
 * signalfd), the lifeline's end or the decider's death; prints
 * "srt proxy: serving <addr:port|fd N>" on stderr once serving. why gets
 * the reason it stopped, starting with "start failed" when it never
 * served. Returns 0 after serving, 1 when it could not start. The caller
 * ignores SIGPIPE. */
int srt_proxy_serve(const struct srt_proxy_options *o, char *why, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
