/* The package managers' caches filesystem.allowCaches can open for writing
 * (caches.c): where each tool keeps its cache under HOME, how srt checks
 * such a directory before it becomes a write root, and the advice the
 * summary gives when a write there was refused. */
#ifndef SRT_LIBSRT_CACHES_H
#define SRT_LIBSRT_CACHES_H

#include <stddef.h>
#include <srt/error.h>

#include "common/strv.h"

#define SRT_CACHE_MAX_DIRS 2

/* The names filesystem.allowCaches accepts, for messages: "npm, pip, ..." */
extern const char srt__cache_names[];

/* 1 when name is a cache srt knows. */
int srt__cache_known(const char *name);

struct srt__cache_dir {
	char *path;       /* absolute, lexical ("//", "/./", "/../" collapsed) */
	const char *from; /* the environment variable it came from, or NULL */
};

/* The directories of cache `name` for HOME `home` (absolute) and srt's
 * environment (the tool in the sandbox sees the same variables, so it
 * uses the same directory). *n gets the count (0 when an unknown name).
 * A variable that is set but not absolute is an error naming it. */
int srt__cache_dirs(const char *name, const char *home,
		    struct srt__cache_dir out[SRT_CACHE_MAX_DIRS], size_t *n,
		    struct srt_diag *diag);
void srt__cache_dirs_release(struct srt__cache_dir *d, size_t n);

/* Check one cache directory before it becomes a write root, and create
 * what is missing of it: it must lie strictly inside HOME (resolved), in
 * no credential or configuration tree there (~/.ssh, ~/.config, ~/.local,
 * a .git, ...), and no component below HOME may be a symbolic link or
 * other than a directory (a link is never followed: it could lead
 * anywhere, the rest of HOME included). Missing components are created
 * (0700) only inside directories this user owns, and only when `create`
 * (without it the checks run and nothing is made). `origin` names the
 * settings entry in messages. *out: the directory under the resolved
 * HOME, malloc'd. */
int srt__cache_open(const char *name, const struct srt__cache_dir *d, const char *home,
		    const char *origin, int create, char **out, struct srt_diag *diag);

/* Advice for a refused access to `path` (absolute): when it is in the
 * directory of a cache not in `enabled`, or on the way to one inside
 * HOME (a refused mkdir of ~/.cache before ~/.cache/pip), one line naming
 * the filesystem.allowCaches entry that would open it (the same line for
 * every path of one cache, so a summary can say it once). Returns 1 and
 * fills buf, or 0. */
int srt__cache_advice(const char *path, const char *home, const struct srt__strv *enabled,
		      char *buf, size_t len);

#endif
