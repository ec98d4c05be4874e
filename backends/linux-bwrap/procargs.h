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

#endif
