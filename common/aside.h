/* Renaming something a sandboxed command left aside, never over anything.
 * Shared by the repository guard (libsrt) and the linux-bwrap backend's
 * restore of protected links, compiled into each, so either builds on its
 * own. */
#ifndef SRT_BACKENDS_ASIDE_H
#define SRT_BACKENDS_ASIDE_H

#include <limits.h>

/* Rename name (below dfd) to "<name>.srt-quarantine", or when that is
 * taken (the command can make names in advance) to
 * "<name>.srt-quarantine.<random>", the name shortened as needed to fit
 * NAME_MAX; never over an existing name. 0, or an errno; to holds the new
 * name. */
int srt__rename_aside(int dfd, const char *name, char to[NAME_MAX + 1]);

#endif
