/* Reading /proc/self/mountinfo: what both Linux backends' checks of other
 * mounts of a denied path (a bind mount or an overlay showing it at a
 * second path) share. */
#ifndef SRT_LINUX_COMMON_MOUNTINFO_H
#define SRT_LINUX_COMMON_MOUNTINFO_H

/* Undo mountinfo's escapes in place: it writes space, tab, newline and
 * backslash in a path or an option as \ooo (octal). */
void srt__mountinfo_unescape(char *s);

#include <limits.h>
#include <stddef.h>

/* For an overlay mount's line (changed in place): the layer directories
 * its options name, NULL-terminated, lower ones (lowerdir, lowerdir+,
 * datadir+) first, *n_lower of them, then its upperdir (where writes
 * land), each resolved (realpath) when it names a directory here. A layer
 * named by a relative path (from its mounter's working directory: Docker's
 * image layers when the options are long, `cd ~ && mount ... lowerdir=.ssh`)
 * cannot be placed and is kept as written, not starting with '/': such an
 * overlay may show anything, which the callers must treat as such (red
 * team: one with lowerdir "h", $HOME, read ~/.ssh). *layers is NULL for
 * another mount. 0, or -1 out of memory. Free with
 * srt__mountinfo_layers_free. */
int srt__mountinfo_overlay(char *line, char ***layers, size_t *n_lower);
void srt__mountinfo_layers_free(char **layers);

/* The absolute path as the mount table names it: resolved as realpath
 * does (links followed, "//", "." and ".." gone), but a link whose target
 * does not exist yet is followed too (the command may make the target)
 * and a name that does not exist is kept, with what follows it, so a name
 * below a link (~/.config a link into a dotfiles directory) is compared
 * with the mounts' paths and the write roots where it is, or will be.
 * Where the kernel would stop at a name ("..", or more names, below a name
 * that does not exist; more names below a file), the answer is that name:
 * whoever makes or replaces it decides where the path goes. 0, or -1 (not
 * absolute, a loop of links, or longer than cap). */
int srt__mountinfo_resolve(const char *path, char *out, size_t cap);
/* The same, calling link_fn (when not NULL) with the path of each link
 * it follows, in order, before following it (also when the chain then
 * loops); a nonzero return from link_fn stops it and is returned. */
int srt__mountinfo_resolve_links(const char *path, char *out, size_t cap,
				 int (*link_fn)(void *ctx, const char *link), void *ctx);
/* 1: from now on the resolutions above (and srt__realpath_memo, and
 * linux-bwrap's srt__mount_resolve) take a directory seen by an earlier one
 * as it was (one plan's, a few milliseconds apart); a second 1 keeps what
 * is known; 0: they forget it and look again. Called by
 * srt__mandatory_memo_begin/_end and around linux-bwrap's mount plan. */
void srt__mountinfo_dirs_memo(int on);
/* Is path a real directory (no link) that a resolution of this plan found,
 * while the memo is on? And remember one (a copy that cannot be made only
 * means the next resolution looks again). */
int srt__plan_dir_known(const char *path);
void srt__plan_dir_remember(const char *path);
/* realpath(3), or while that memo is on, the answer an earlier call of the
 * same plan got for path (only a path that resolved is kept). 0 or -1. */
int srt__realpath_memo(const char *path, char out[PATH_MAX]);

#endif
