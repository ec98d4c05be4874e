/* Settings -> policy: every path expanded ("~", relative, trailing slash,
 * realpath rules of anchor-inventory §2.5), default write paths (§4.6) and
 * the loaded settings files (write-denied) added. */
#ifndef SRT_LIBSRT_POLICY_H
#define SRT_LIBSRT_POLICY_H

#include <srt/policy.h>
#include "settings.h"

struct srt__policy_env {
	const char *cwd;    /* NULL: getcwd() */
	const char *home;   /* NULL: $HOME */
	const char *tmpdir; /* NULL: $CLAUDE_CODE_TMPDIR, $CLAUDE_TMPDIR, /tmp/claude */
	const char *const *settings_files; /* loaded files, NULL-terminated */
	/* the loaded file as it was named (absolute, links not resolved), or
	 * NULL: links along that name are write-denied too */
	const char *settings_named;
	/* a file of the caller's to write-deny (srt_options.protect_file) */
	const char *protect_file;
	int debug;
};

/* Build pol (caller's memory) from s. Creates tmpdir (0700 when created
 * by us) so the TMPDIR handed to the command exists. On failure pol is
 * released and diag names the entry ("filesystem.allowWrite[1]") and why. */
int srt__policy_build(struct srt_policy *pol, const struct srt__settings *s,
		      const struct srt__policy_env *env, struct srt_diag *diag);
void srt__policy_release(struct srt_policy *pol);

/* Normalise one path as §2.5 does (no glob handling): "~" and "~/x" from
 * home, relative from cwd, "//" and "/./" and "/../" collapsed, trailing "/"
 * stripped, then realpath unless the resolution leaves the boundary. The
 * result is malloc'd. */
int srt__path_normalize(const char *path, const char *cwd, const char *home,
			char **out, struct srt_diag *diag);

/* Added by the filesystem area. */
/* Non-zero when p holds a glob character of §4.14 (* ? [ ]). */
int srt__path_is_glob(const char *p);
/* Does the absolute path lead through a symbolic link a sandboxed command
 * could have planted (one in a directory this user can write or owns)? 1 also for
 * a path that is not absolute or too long; 0 when no component is such a
 * link (a missing component ends the look). */
int srt__path_via_writable_link(const char *path);
/* The lexical part of srt__path_normalize ("~", relative, "//", "/./",
 * "/../", trailing "/"), without touching the filesystem. */
int srt__path_lexical(const char *path, const char *cwd, const char *home,
		      char **out, struct srt_diag *diag);

#endif
