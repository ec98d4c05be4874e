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
#include <srt/error.h>
#include <srt/filter.h>

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
 * (the proxy thread or the monitor). The event is borrowed for the call;
 * the listener must not call back into the sandbox. */
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
 * nothing and fills diag. Thread-safe. */
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

#ifdef __cplusplus
}
#endif
#endif
