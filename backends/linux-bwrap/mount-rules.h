/* linux-bwrap: turning the policy's rules into nodes of the mount model. */
#ifndef SRT_BWRAP_MOUNT_RULES_H
#define SRT_BWRAP_MOUNT_RULES_H

#include <srt/policy.h>

#include "mount-model.h"

/* Add one rule of kind (K_DR, K_AR, K_AW, K_DW) at path, resolved on the
 * host; origin names it in notes and errors; dflt: a default of the
 * settings, not the user's. Paths that cannot or need not be mounted are
 * noted and skipped; a deny that cannot be enforced fails. */
int srt__mount_add_rule(struct srt__mount_ctx *c, const char *path, unsigned kind,
			const char *origin, int dflt);
/* Add every rule of rules as kind, expanding globs (read rules only). */
int srt__mount_add_rules(struct srt__mount_ctx *c, const struct srt_rules *rules, unsigned kind);
/* The mandatory write denies (srt__mandatory_scan) in the working
 * directory, $HOME and every writable root; fails when a scan stops at
 * its bound. */
int srt__mount_add_mandatory(struct srt__mount_ctx *c);
/* After the mandatory walk: every name (hard link) of a file the command
 * must not read (denyRead, a masked credentials file) is one the plan
 * hides or one srt found under an allowRead path; a file with names srt
 * did not find fails the plan, naming the file and the fix. */
int srt__mount_check_links(struct srt__mount_ctx *c);
/* After it: no denied path or masked file is shown at a readable path by
 * another mount of its filesystem (a bind mount); else the plan fails,
 * naming both paths and the fix. */
int srt__mount_check_mounts(struct srt__mount_ctx *c);

#endif
