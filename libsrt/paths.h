/* Path spelling rules for settings entries (paths.c): "~", relative
 * paths, "//", "/./", "/../", trailing "/", globs and symbolic links. */
#ifndef SRT_LIBSRT_PATHS_H
#define SRT_LIBSRT_PATHS_H

#include <srt/error.h>

/* Normalise one settings path (no glob handling): "~" and "~/x" from
 * home, relative from cwd, "//" and "/./" and "/../" collapsed, trailing "/"
 * stripped, then realpath unless the resolution leaves the boundary. The
 * result is malloc'd. */
int srt__path_normalize(const char *path, const char *cwd, const char *home,
			char **out, struct srt_diag *diag);

/* Non-zero when p holds a glob character (* ? [ ]). */
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
