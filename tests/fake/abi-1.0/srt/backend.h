/* A frozen copy of include/srt/backend.h as it was at ABI 1.0 (commit
 * f409239), before any slot was appended to struct srt_backend. The loader
 * test builds a module against it to check that a module built for an older
 * minor still loads and that the slots it lacks read as absent. Never update
 * it. */
/* srt: the backend module ABI.
 *
 * A backend is a libtool module exporting exactly one const data symbol,
 * `srt_backend_entry`, whose first member is struct srt_module_header. The
 * loader checks the header before it reads anything else: the magic, the ABI
 * major (equal to SRT_BACKEND_ABI_MAJOR), the ABI minor (<= ours) and the
 * size (the core never reads past it).
 *
 * Rules for changing this file: never reorder the header. Adding a slot at
 * the end of struct srt_backend bumps the minor; changing or removing
 * anything bumps the major. */
#ifndef SRT_BACKEND_H
#define SRT_BACKEND_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <srt/error.h>
#include <srt/policy.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SRT_BACKEND_MAGIC 0x42545253u /* "SRTB" little-endian */
#define SRT_FILTER_MAGIC 0x46545253u  /* "SRTF" */
#define SRT_BACKEND_ABI_MAJOR 1
#define SRT_BACKEND_ABI_MINOR 0

struct srt_module_header {
	uint32_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t size;    /* sizeof the whole exported struct */
	const char *name; /* short name, e.g. "linux-bwrap" */
};

/* Capability bits (struct srt_backend.caps). */
#define SRT_CAP_FILESYSTEM (1u << 0) /* enforces filesystem rules */
#define SRT_CAP_NETNS      (1u << 1) /* gives the command an empty network namespace */
#define SRT_CAP_PROXY      (1u << 2) /* can bridge the proxies into the sandbox */
#define SRT_CAP_SECCOMP    (1u << 3) /* installs the syscall filters */
#define SRT_CAP_PIDNS      (1u << 4) /* private process tree and /proc */

/* One wrapped command, produced by wrap() and owned by the core afterwards
 * (freed with srt_command_release()). */
struct srt_command {
	char **argv;        /* NULL-terminated, malloc'd strings; argv[0] absolute */
	int child_fds[8];   /* descriptors the child must inherit (CLOEXEC cleared) */
	int n_child_fds;
	pid_t signal_pid;   /* where forwarded signals go; 0 = the spawned process */
	void *priv;         /* backend's per-command state (freed by release()) */
};

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
	 * NULL-safe on cmd->priv. Mandatory. */
	void (*release)(void *state, struct srt_command *cmd);

	/* Print the plan (e.g. the bwrap argv) for --explain. Optional. */
	int (*explain)(void *state, const struct srt_command *cmd, FILE *out);

	/* Undo everything prepare() did. NULL-safe. Mandatory. */
	void (*teardown)(void *state);
};

#ifdef __cplusplus
}
#endif
#endif
