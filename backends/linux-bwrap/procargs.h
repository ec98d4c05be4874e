/* linux-bwrap: the process/namespace part of the bwrap argv and the
 * in-sandbox helper's command line. Owned together with the helper
 * (init/), because the two must agree on capabilities and namespaces. */
#ifndef SRT_BWRAP_PROCARGS_H
#define SRT_BWRAP_PROCARGS_H

#include <srt/error.h>
#include <srt/policy.h>
#include "mounts.h"

/* Can srt-linux-init make the sandbox's /dev and /proc itself
 * (--make-dev-proc) instead of bwrap? mount_api: the kernel has
 * open_tree, mount_setattr and move_mount; bwrap: the program srt runs,
 * whose setuid bit decides which capabilities it keeps. */
int srt__bwrap_helper_makes_dev(const struct srt_policy *pol, const char *bwrap, int mount_api);

/* Append the words that follow the mounts: "--dev /dev", "--unshare-pid",
 * user namespace and capability flags, "--proc /proc" (or the
 * weaker bind), ... Does not append "--". With helper_makes_dev (which
 * srt__bwrap_helper_makes_dev must allow) no --dev and no --proc: the
 * helper, given make_dev_proc, makes both. */
int srt__bwrap_process_args(const struct srt_policy *pol, const char *bwrap, int helper_makes_dev,
			    struct srt__strv *w, struct srt_diag *diag);

/* Append "--", the helper path and its options, "--", then argv. */
int srt__bwrap_helper_args(const struct srt_policy *pol, const char *helper_path,
			   const char *const *argv, struct srt__strv *w,
			   struct srt_diag *diag);

/* The same, plus "--status-fd status_fd" when status_fd >= 0: the write
 * end of a pipe the child inherits. The helper writes "S" on it once every
 * layer is in place (just before exec), or "E<one line>\n" when a layer
 * failed (that line then is not printed by the helper: report it, exit 1).
 * EOF with neither means bwrap or the helper died first. */
int srt__bwrap_helper_args_status(const struct srt_policy *pol, const char *helper_path,
				  int status_fd, const char *const *argv,
				  struct srt__strv *w, struct srt_diag *diag);

/* The descriptors srt-linux-init inherits (each -1 when not used):
 * status_fd as above; events_fd, the write end of the pipe the violation
 * monitor writes "deny <syscall> <path>" lines on; policy_fd, a sealed
 * memfd with the monitor policy (srt__bwrap_monitor_policy). events_fd and
 * policy_fd go together. landlock_fd, a sealed memfd with the Landlock
 * layer's plan (layer.h), passed as --landlock-plan-fd. hidden, when not
 * NULL, the files the mount plan left to the helper (mounts.h), each
 * passed as --hide-file. make_dev_proc: pass --make-dev-proc (bwrap was
 * given no --dev and no --proc). */
struct srt__helper_fds {
	int status_fd;
	int events_fd;
	int policy_fd;
	int landlock_fd;
	const struct srt__strv *hidden;
	int make_dev_proc;
	const struct srt__strv *pinned_links; /* --pin-link paths (may be NULL) */
	/* the watcher of replaced names (init/watch.h), each may be NULL:
	 * --watch-deny, --watch-keep, --watch-glob, --watch-tree paths, and
	 * --watch-depth when there are trees */
	const struct srt__strv *watch_deny, *watch_keep, *watch_globs, *watch_trees;
	int watch_depth;
	/* the proxy's token for intercepted connections (a memfd), or -1:
	 * --intercept is passed only with it */
	int intercept_token_fd;
	/* oom_min_set: --oom-score-min oom_min, the OOM score the helper
	 * raises itself to before it starts anything (SRT_GUARD_OOM_RAISE
	 * above srt's: spawners that cannot run code in the child leave bwrap
	 * at srt's score, and the sandbox must still come before the guard) */
	int oom_min_set, oom_min;
};

/* srt__bwrap_helper_args_status with every descriptor of fds. */
int srt__bwrap_helper_args_fds(const struct srt_policy *pol, const char *helper_path,
			       const struct srt__helper_fds *fds, const char *const *argv,
			       struct srt__strv *w, struct srt_diag *diag);

/* The violation monitor's policy (format in init/monitor.h) from the mount
 * words of the plan (plan->words) and the placeholders it made
 * (plan->created): each mount becomes a record with the access it leaves,
 * in bwrap's order, followed by the proxy directory bind and the
 * sandbox's own /dev and /proc. So the monitor reports exactly what the
 * mounts refuse: the denyRead/denyWrite rules, the mandatory denies, the
 * write roots, after the plan's precedence and link resolution. A mount
 * word it does not know turns the file monitor off (flags 0), never into a
 * wrong report. The files a plan left to the helper (hidden, may be NULL)
 * are mounted after every mount word, and recorded so, as are the links it
 * pins (pinned_links, may be NULL: read-only) and the denied paths missing
 * at the start that nothing hides (missing, may be NULL: hidden, whatever
 * the host makes there). *out is malloc'd,
 * *len includes the final NUL; *flags are the flags it holds (1:
 * writes observed, 2: reads observed, 4: allowed Unix socket paths, each
 * a 'u' record; a path the mounts hide is refused with a message). */
int srt__bwrap_monitor_policy(const struct srt_policy *pol, const struct srt__strv *mount_words,
			      const struct srt__strv *hidden, const struct srt__strv *pinned_links,
			      const struct srt__strv *missing, const struct srt__strv *created,
			      char **out, size_t *len, unsigned *flags, struct srt_diag *diag);

#endif
