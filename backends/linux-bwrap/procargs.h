/* linux-bwrap: the process/namespace part of the bwrap argv and the
 * in-sandbox helper's command line. Owned together with the helper
 * (init/), because the two must agree on capabilities and namespaces. */
#ifndef SRT_BWRAP_PROCARGS_H
#define SRT_BWRAP_PROCARGS_H

#include <srt/error.h>
#include <srt/policy.h>
#include "mounts.h"

/* Append the words that follow the mounts: "--dev /dev", "--unshare-pid",
 * user namespace and capability flags, "--as-pid-1", "--proc /proc" (or the
 * weaker bind), ... Does not append "--". */
int srt__bwrap_process_args(const struct srt_policy *pol, struct srt_words *w,
			    struct srt_diag *diag);

/* Append "--", the helper path and its options, "--", then argv. */
int srt__bwrap_helper_args(const struct srt_policy *pol, const char *helper_path,
			   const char *const *argv, struct srt_words *w,
			   struct srt_diag *diag);

/* The same, plus "--status-fd status_fd" when status_fd >= 0: the write
 * end of a pipe the child inherits. The helper writes "S" on it once every
 * layer is in place (just before exec), or "E<one line>\n" when a layer
 * failed (that line then is not printed by the helper: report it, exit 1).
 * EOF with neither means bwrap or the helper died first. */
int srt__bwrap_helper_args_status(const struct srt_policy *pol, const char *helper_path,
				  int status_fd, const char *const *argv,
				  struct srt_words *w, struct srt_diag *diag);

#endif
