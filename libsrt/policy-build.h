/* Settings -> policy (policy-build.c): every path expanded (paths.h),
 * the default write paths added, and the loaded settings files
 * write-denied. */
#ifndef SRT_LIBSRT_POLICY_BUILD_H
#define SRT_LIBSRT_POLICY_BUILD_H

#include <srt/policy.h>
#include "settings.h"

struct srt__policy_env {
	const char *cwd;    /* NULL: getcwd() */
	const char *home;   /* NULL: $HOME */
	/* NULL: $CLAUDE_CODE_TMPDIR, $CLAUDE_TMPDIR, else a directory of
	 * this run's own below /tmp/claude (or /tmp/claude-UID) */
	const char *tmpdir;
	const char *const *settings_files; /* loaded files, NULL-terminated */
	/* the loaded file as it was named (absolute, links not resolved), or
	 * NULL: links along that name are write-denied too */
	const char *settings_named;
	/* a file of the caller's to write-deny (srt_options.protect_file) */
	const char *protect_file;
	int debug;
	/* the plan is only printed: the run's own TMPDIR is named, not made */
	int plan_only;
};

/* Build pol (caller's memory) from s. Creates tmpdir (0700 when created
 * by us) so the TMPDIR handed to the command exists; the default one is
 * this run's own and srt__policy_release() removes it with everything in
 * it. On failure pol is
 * released and diag names the entry ("filesystem.allowWrite[1]") and why. */
int srt__policy_build(struct srt_policy *pol, const struct srt__settings *s,
		      const struct srt__policy_env *env, struct srt_diag *diag);
void srt__policy_release(struct srt_policy *pol);

/* Is pol->tmpdir the run's own directory that srt__policy_release(pol)
 * removes with everything in it (not one named by CLAUDE_CODE_TMPDIR, nor
 * another policy's, nor, in a process forked after the build, the one of
 * the process that made it)? pol must not have been moved since the
 * build. */
int srt__policy_own_tmpdir(const struct srt_policy *pol);

/* Remove the run directories srts killed before their end left beside
 * pol's (common/rmtree.h), when pol's is one this process made. */
void srt__policy_sweep_run_dirs(const struct srt_policy *pol);

/* Add one absolute path to pol->deny_read after the build (a file the
 * backend cannot show as srt wants it is denied instead). */
int srt__policy_deny_read_path(struct srt_policy *pol, const char *path, const char *origin,
				struct srt_diag *diag);

#endif
