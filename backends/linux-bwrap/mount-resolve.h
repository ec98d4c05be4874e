/* linux-bwrap: resolving a rule's path on the host the way the mount plan
 * needs it, component by component with lstat(), saying where it stops. */
#ifndef SRT_BWRAP_MOUNT_RESOLVE_H
#define SRT_BWRAP_MOUNT_RESOLVE_H

#include <stddef.h>

#include "common/strv.h"

/* What a resolved path is: missing (some component does not exist), a
 * directory, or anything else. */
enum { T_MISSING, T_DIR, T_OTHER };

/* Resolve an absolute path component by component with lstat(), following
 * links (at most 40). out (PATH_MAX bytes) gets the resolved spelling.
 * *type is T_MISSING when a component does not exist; then *missing_at is
 * the length of the existing prefix. A non-directory met before the last
 * component yields ENOTDIR with out = that non-directory; a directory that
 * cannot be searched yields EACCES with out = that directory. link_dirs
 * (optional) gets the directory holding each link followed. Returns 0 or
 * an errno. */
int srt__mount_resolve(const char *in, char *out, int *type, size_t *missing_at,
		       struct srt__strv *link_dirs);

/* Between begin and end, srt__mount_resolve() remembers the directories it
 * found (per thread) and does not lstat them again: one plan's
 * resolutions share them. Outside, every call looks at every component. */
void srt__mount_resolve_memo_begin(void);
void srt__mount_resolve_memo_end(void);

#endif
