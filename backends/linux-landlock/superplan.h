/* linux-landlock: the plan of the write supervisor (format and design in
 * backends/linux-common/supervisor.h), and the policy the Landlock plan is
 * then built from.
 *
 * With the supervisor, the command has no write right of its own in a
 * directory write root: Landlock keeps those read-only to it, and the
 * supervisor performs each creating, removing, renaming or write-opening
 * call there after checking the name. So the Landlock plan is built from a
 * copy of the policy whose directory write roots moved to the readable
 * list (a write root that is a file keeps its Landlock grant: nothing can
 * be created through it), and the protected names, which the planner used
 * to keep read-only by splitting the write roots, go to the supervisor. */
#ifndef SRT_LANDLOCK_SUPERPLAN_H
#define SRT_LANDLOCK_SUPERPLAN_H

#include <stddef.h>
#include <srt/error.h>
#include <srt/policy.h>

struct srt__ll_super {
	struct srt_policy landlock_pol; /* what the Landlock planner gets */
	struct srt_rule *allow_read;    /* its arrays (strings borrowed) */
	struct srt_rule *allow_write;
	char *buf;                      /* the supervisor plan */
	size_t len;
	size_t n_roots, n_deny, n_names, n_unix;
};

/* Build both from pol. On failure diag names the rule that could not be
 * planned and nothing is left allocated. */
int srt__ll_super_build(const struct srt_policy *pol, struct srt__ll_super *out,
			struct srt_diag *diag);
void srt__ll_super_release(struct srt__ll_super *sp);

#endif
