/* linux-bwrap: placeholders for deny paths that do not exist yet. */
#ifndef SRT_BWRAP_MOUNT_PLACEHOLDERS_H
#define SRT_BWRAP_MOUNT_PLACEHOLDERS_H

#include "guard-main.h"
#include "mount-model.h"

/* Give every deny node whose path is missing in a writable directory a
 * placeholder (or share a concurrent run's), as a forced node of the
 * model; marks the nodes it covers skip. */
int srt__mount_plan_placeholders(struct srt__mount_ctx *c);

#endif
