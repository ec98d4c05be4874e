/* linux-bwrap: placeholders for deny paths that do not exist yet. */
#ifndef SRT_BWRAP_MOUNT_PLACEHOLDERS_H
#define SRT_BWRAP_MOUNT_PLACEHOLDERS_H

#include "mount-model.h"

/* Open a resolved directory without following any link on the way, so a
 * component swapped for a link since it was inspected is refused. A
 * descriptor, or -1 with errno set. */
int srt__mount_open_dir_nofollow(const char *dir);
/* Give every deny node whose path is missing in a writable directory a
 * placeholder (or share a concurrent run's), as a forced node of the
 * model; marks the nodes it covers skip. */
int srt__mount_plan_placeholders(struct srt__mount_ctx *c);

#endif
