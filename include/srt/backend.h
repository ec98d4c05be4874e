/* srt: the backend module ABI.
 *
 * A backend is a libtool module exporting exactly one const data symbol,
 * `srt_backend_entry`, whose first member is struct srt_module_header. The
 * loader checks the header before it reads anything else: the magic, the ABI
 * major (equal to SRT_BACKEND_ABI_MAJOR), the ABI minor (<= ours) and the
 * size (the core never reads past it). On a mismatch it names the file and
 * both versions, closes the module and never calls into it.
 *
 * Rules for changing this file: never reorder the header. Adding a slot at
 * the end of struct srt_backend (or a field at the end of struct
 * srt_command) bumps the minor; changing or removing anything bumps the
 * major.
 *
 * The minor rule, as the core applies it: a module built for an older minor
 * of the same major loads. Its `size` (sizeof its own struct srt_backend)
 * is smaller than ours; it must still cover every mandatory slot (through
 * teardown, as at 1.0), or the module is refused as truncated. Every slot
 * after that is optional, and the core calls optional slots only through
 * one wrapper per slot that reads the slot only when it lies inside `size`
 * and is non-NULL, and returns SRT_E_UNSUPPORTED otherwise: a slot a module
 * was built without reads as absent, never as whatever follows the module's
 * struct in memory. This is checked by size, not by minor: diagnose was
 * appended while the minor was still 0, so a module declaring 1.0 may or
 * may not have it. struct srt_command is allocated and zeroed by the core,
 * so fields an older module does not know stay 0 (none) and it never reads
 * the ones added after it (1.1: orphan_fn and its arguments).
 *
 * History: 1.0 hdr .. teardown, then diagnose; 1.1 srt_command.orphan_*;
 * 1.2 srt_policy.allow_unix_sockets and protected_released (the policy is
 * the core's and zeroed, so a module of an older minor never reads them);
 * 1.3 srt_policy.allow_pty .. allow_mach_lookup (the macOS-only settings)
 * and SRT_CAP_NETRULES; 1.4 srt_policy.weaker_name_protection; 1.5 the
 * process slots spawn, wait_proc and end_proc; 1.6 srt_policy.masked_files
 * and SRT_CAP_MASKED_FILES; 1.7 srt_command.orphan_dir; 1.8
 * SRT_CAP_LOOPBACK_PROXY and srt_policy.proxy_port_lo .. proxy_port; 1.9
 * srt_policy.plan_only; 1.10 the slot early, srt_command.extra_child_fds,
 * early_pid and close_after_spawn; 1.11 srt_command.orphan_argv. */
#ifndef SRT_BACKEND_H
#define SRT_BACKEND_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <srt/error.h>
#include <srt/module.h>
#include <srt/policy.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SRT_BACKEND_ABI_MAJOR 1
#define SRT_BACKEND_ABI_MINOR 11

/* Capability bits (struct srt_backend.caps). */
#define SRT_CAP_FILESYSTEM (1u << 0) /* enforces filesystem rules */
#define SRT_CAP_NETNS      (1u << 1) /* gives the command an empty network namespace */
#define SRT_CAP_PROXY      (1u << 2) /* can bridge the proxies into the sandbox */
#define SRT_CAP_SECCOMP    (1u << 3) /* installs the syscall filters */
#define SRT_CAP_PIDNS      (1u << 4) /* private process tree and /proc */
#define SRT_CAP_NETRULES   (1u << 5) /* no namespace, but the sandbox's own rules refuse every
				      * network operation except the proxy's loopback ports
				      * (macOS Seatbelt) */
#define SRT_CAP_INTERCEPT  (1u << 6) /* ABI minor 4: answers DNS inside and hands every TCP
				      * connection to a non-loopback address to the proxy
				      * (struct srt_policy.intercept) */
#define SRT_CAP_MASKED_FILES (1u << 7) /* ABI minor 6: shows the masked copies of
					* struct srt_policy.masked_files at their paths */
#define SRT_CAP_LOOPBACK_PROXY (1u << 8) /* ABI minor 8: bridges nothing; the command
					  * reaches the proxy itself on a loopback TCP
					  * port of struct srt_policy.proxy_port_lo ..
					  * proxy_port_hi (Windows), where the core's
					  * proxy listens at 127.0.0.1:proxy_port and
					  * wants the run's token */

/* How far a command announced to a backend's guard (srt_command.guard_fd)
 * raises its OOM score (oom_score_adj) above srt's before exec, so that it
 * and everything it starts, the sandbox, come before the guard when the
 * kernel's OOM killer chooses. Killing srt frees little while the
 * command's tmpfs pages stay charged: the killer goes on choosing, and by
 * size alone the guard, a small program, came before the smaller of the
 * sandbox's processes and was killed with nothing undone. The killer adds
 * score/1000 of the memory (the memory cgroup's, else the machine's) to a
 * process's size: 200 puts the sandbox first unless the guard is larger
 * by a fifth of that memory (12.8 MB in a 64 MB cgroup; the guard is
 * about 1 MB, 9 MB built with the sanitizers). srt's own score, and that
 * of a program hosting libsrt, are left as they are. */
#define SRT_GUARD_OOM_RAISE 200

/* One wrapped command, produced by wrap() and owned by the core afterwards
 * (freed with srt_command_release()). */
struct srt_command {
	char **argv;        /* NULL-terminated, malloc'd strings; argv[0] absolute */
	int child_fds[8];   /* descriptors the child must inherit (CLOEXEC cleared) */
	int n_child_fds;
	pid_t signal_pid;   /* where forwarded signals go; 0 = the spawned process */
	void *priv;         /* backend's per-command state (freed by release()) */
	int events_fd;      /* > 2: the core reads violation lines from it
			     * ("deny <syscall> <path>", one per line) until EOF
			     * and attributes them to the command; else none.
			     * Owned by the backend (closed by release()). */
	int new_pgrp;       /* spawn the command in a process group of its own
			     * (its pgid = its pid), so a guard can kill it all */
	int guard_fd;       /* > 2: the spawned child writes "K<its pid>\0" on
			     * it before exec (see new_pgrp), and raises its
			     * OOM score by SRT_GUARD_OOM_RAISE; owned by the
			     * backend */
	/* ABI minor 1. Set by the core before wrap(): work that must still
	 * happen if srt dies before the command ends (SIGKILL), once every
	 * sandboxed process is gone (the git guard's sweep of the write
	 * roots). A backend whose guard outlives srt calls orphan_fn from
	 * that guard, only in that case (the core does the same work when it
	 * ends normally), keeping the descriptors it needs open; NULL: none. */
	void (*orphan_fn)(void *ctx);
	void *orphan_ctx;
	const int *orphan_fds;
	size_t n_orphan_fds;
	/* ABI minor 7. Set by the core before wrap(): the run's own
	 * temporary directory, which the core removes with everything in it
	 * when the sandbox ends, so nothing the command leaves there (a git
	 * repository with hooks) outlives the run. A backend whose guard
	 * outlives srt removes it from that guard if srt dies, once every
	 * sandboxed process is gone, and only while it is still the
	 * directory it was at wrap() (device and inode). The core leaves the
	 * directory out of orphan_fn's work only for a module of this minor
	 * or newer; NULL: none. */
	const char *orphan_dir;
	/* ABI minor 10: more descriptors the child must inherit, beyond
	 * child_fds' eight (a command started early holds every descriptor
	 * its plan may need). */
	int extra_child_fds[4];
	int n_extra_child_fds;
	/* ABI minor 10: set by the core once the command early() made is
	 * spawned (its pid), also when wrap() then fails and the core kills
	 * it; 0 otherwise. */
	pid_t early_pid;
	/* ABI minor 10, early() only: > 2, a descriptor of the child's that
	 * srt must not keep once the child has its copy: the core closes it
	 * as soon as the spawn is over (exec'd or failed), also when it could
	 * not spawn at all. The backend neither uses nor closes it after
	 * early() (linux-bwrap: the read end of bwrap's options socket, so
	 * that a bwrap gone before it read them makes the send fail instead
	 * of blocking). */
	int close_after_spawn;
	/* ABI minor 11. Set by the core beside orphan_fn when the same work
	 * exists as a program: a guard that is not a copy of srt runs
	 * orphan_argv (NULL-terminated, argv[0] absolute) where a copy would
	 * call orphan_fn, with orphan_fds[i] open as descriptor 3 + i, /dev/null
	 * as 0 to 2 and nothing else, and waits for it. NULL: orphan_fn alone. */
	char *const *orphan_argv;
};

/* One probed layer, for `srt doctor`: what was checked, whether it works,
 * what was seen, and the narrowest fix when it does not. */
typedef void (*srt_report_fn)(void *ctx, const char *layer, int works,
			      const char *detail, const char *fix);

struct srt_backend {
	struct srt_module_header hdr;
	uint32_t caps;

	/* Can this backend run here? On failure fill diag with the missing
	 * layer and the narrowest fix. Mandatory. */
	int (*probe)(const struct srt_policy *policy, struct srt_diag *diag);

	/* Compile the policy into a plan. *state is the backend's, opaque.
	 * The policy is borrowed until teardown(). Mandatory. */
	int (*prepare)(const struct srt_policy *policy, void **state,
		       struct srt_diag *diag);

	/* Turn argv (argv[0] absolute) into the command that runs it
	 * sandboxed. Mandatory. */
	int (*wrap)(void *state, const char *const *argv, struct srt_command *out,
		    struct srt_diag *diag);

	/* Called in the parent right after the wrapped command was spawned
	 * (pid); may set out->signal_pid. Optional. */
	int (*started)(void *state, struct srt_command *cmd, pid_t pid,
		       struct srt_diag *diag);

	/* Free what wrap() put in cmd->priv and close its descriptors.
	 * Called after every wrap(), also one that failed (cmd->priv then
	 * holds whatever wrap() had set up). NULL-safe on cmd->priv.
	 * Mandatory. */
	void (*release)(void *state, struct srt_command *cmd);

	/* Print the plan (e.g. the bwrap argv) for --explain. Optional. */
	int (*explain)(void *state, const struct srt_command *cmd, FILE *out);

	/* Undo everything prepare() did. NULL-safe. Mandatory. */
	void (*teardown)(void *state);

	/* Probe every layer this backend needs and report each one (srt
	 * doctor). Optional. */
	void (*diagnose)(srt_report_fn report, void *ctx);

	/* ABI minor 5: the command run through the module, with process
	 * handles instead of fork, exec and pids (Windows: a process handle
	 * and the job object that holds the command's whole tree). Optional,
	 * as a group: a module sets all three or none (the loader refuses a
	 * partial set). When they are set the core never starts cmd itself:
	 * it calls spawn(), then wait_proc() until the command has ended, then
	 * end_proc(); started() is not called and cmd->child_fds, new_pgrp,
	 * guard_fd and signal_pid are not used. */

	/* Start cmd->argv with the environment envp (NULL-terminated
	 * NAME=VALUE strings), inheriting srt's standard input, output and
	 * error. *proc: the module's handle for the run. Every process the
	 * command starts must end when srt ends, even if srt is killed. */
	int (*spawn)(void *state, struct srt_command *cmd, char *const *envp,
		     void **proc, struct srt_diag *diag);

	/* Block until the command has ended; *status: its exit code. */
	int (*wait_proc)(void *state, void *proc, int *status, struct srt_diag *diag);

	/* End every process of the run that is still alive and free proc.
	 * Called once after every successful spawn(); NULL-safe. */
	void (*end_proc)(void *state, void *proc);

	/* ABI minor 10: start the command before it is planned, so that the
	 * sandbox's own start-up (bwrap's exec and loading) runs beside the
	 * plan. Optional; never called for a plan that is only printed or
	 * by a module that sets spawn. Fills out as wrap() does (argv,
	 * child_fds, new_pgrp, guard_fd, priv) with a command that can run
	 * nothing until wrap() completes it: the core spawns out at once,
	 * then calls wrap() with the same out, which plans, hands the plan
	 * to the process already started and releases it. When wrap() fails
	 * the core kills that process before release(); when srt dies in
	 * between, the process must run nothing either. SRT_E_UNSUPPORTED
	 * (with nothing set up, out untouched): not for this policy, the
	 * core wraps and spawns as before. */
	int (*early)(void *state, const char *const *argv, struct srt_command *out,
		     struct srt_diag *diag);
};

#ifdef __cplusplus
}
#endif
#endif
