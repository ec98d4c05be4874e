/* linux-bwrap: the filesystem mount plan, from the policy to bwrap words.
 *
 * The plan is made in steps, one file each: the rules become nodes of a
 * model (mount-rules.c, resolved by mount-resolve.c, the model and its
 * precedence in mount-model.c), deny paths that do not exist yet get
 * placeholders (mount-placeholders.c), and the nodes become mounts
 * (mount-words.c). After the run, protected links are put back
 * (mount-links.c).
 *
 * Limits (best effort, noted here rather than hidden):
 *  - bwrap resolves mount destinations again when it runs. Paths are
 *    inspected with lstat() component by component here; a concurrent
 *    sandbox that swaps a component for a link between planning and bwrap
 *    could move a mount. Mounts of the /dev/null and read-only kinds stay
 *    read-only wherever they land.
 *  - A deny rule that names a symbolic link inside a writable directory is
 *    enforced at the link's target: bwrap's mounts follow the link. Where
 *    the helper takes files (hide_max > 0, the mount API), it also mounts a
 *    read-only copy on the link itself (plan->pinned_links, --pin-link), so the
 *    command cannot replace the name while it runs. Without that, the
 *    command can replace the link by a file of its own, which is live on
 *    the host until the run ends (it never reaches the protected target);
 *    in both cases the link is put back after the run (plan->links,
 *    srt__bwrap_plan_restore_links) and a replacement moved aside.
 *  - Glob read rules are expanded when the plan is made; files created
 *    later are covered by the helper's watcher (init/watch.h) as they
 *    appear, as are covered files the host replaces during the run
 *    (plan->watch_deny, plan->watch_keep). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/linux-common/sibling.h"
#include "mount-model.h"
#include "mount-placeholders.h"
#include "mount-rules.h"
#include "mount-words.h"
#include "mounts.h"

#define WALK_BUDGET 200000
size_t srt__bwrap_walk_budget = WALK_BUDGET;

/* Weak: programs that build this file without backends/common (unit tests
 * of other areas) simply have no helper to keep reachable. */
#pragma weak srt__module_sibling

int srt__bwrap_plan_mounts(const struct srt_policy *pol, struct srt__mount_plan *plan,
			   struct srt_diag *diag)
{
	return srt__bwrap_plan_mounts_ex(pol, plan, NULL, NULL, 0, diag);
}

int srt__bwrap_plan_mounts_ex(const struct srt_policy *pol, struct srt__mount_plan *plan,
			      srt__plan_create_fn announce, void *announce_ctx, size_t hide_max,
			      struct srt_diag *diag)
{
	struct srt__mount_ctx c;
	size_t i;
	int rc;

	memset(plan, 0, sizeof(*plan));
	memset(&c, 0, sizeof(c));
	c.announce = announce;
	c.announce_ctx = announce_ctx;
	c.pol = pol;
	c.plan = plan;
	c.diag = diag;
	c.budget = WALK_BUDGET;
	c.hide_max = hide_max;
	srt__mount_resolve_memo_begin(); /* the rules share their directories */

	if (pol->fs_disabled) {
		rc = srt__mount_push3(&c, "--bind", "/", "/");
		if (!rc)
			rc = srt__mount_note(&c, "filesystem.disabled: the whole filesystem is writable, "
				  "no rules, no mandatory denies");
		goto out;
	}

	/* Where a sandboxed command may have planted links: every allowWrite
	 * spelling and what it resolves to. */
	for (i = 0; i < pol->allow_write.n; i++) {
		char res[PATH_MAX];
		size_t ma;
		int type, err;

		if (pol->allow_write.v[i].flags & SRT_RULE_GLOB)
			continue;
		if (srt__strv_push(&c.wroots, pol->allow_write.v[i].path)) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
		err = srt__mount_resolve(pol->allow_write.v[i].path, res, &type, &ma, NULL);
		if (!err && srt__strv_push(&c.wroots, res)) {
			rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
	}

	rc = srt__mount_add_rules(&c, &pol->allow_write, K_AW);
	if (!rc)
		rc = srt__mount_add_rules(&c, &pol->deny_write, K_DW);
	if (!rc)
		rc = srt__mount_add_rules(&c, &pol->deny_read, K_DR);
	if (!rc)
		rc = srt__mount_add_rules(&c, &pol->allow_read, K_AR);
	if (!rc && pol->proxy_dir && pol->plan_only)
		/* a plan only printed names the directory without making it */
		rc = srt__mount_note(&c, "srt proxy directory %s: made by each run, readable under any denyRead",
				     pol->proxy_dir);
	else if (!rc && pol->proxy_dir)
		/* the proxy sockets must stay reachable under any denyRead */
		rc = srt__mount_add_rule(&c, pol->proxy_dir, K_AR, "srt proxy directory", 1);
	if (!rc) {
		/* so must the helper bwrap runs first (a broad denyRead hiding
		 * it would make every command fail) */
		char helper[PATH_MAX];

		if (srt__module_sibling &&
		    srt__module_sibling((const void *)srt__bwrap_plan_mounts, "srt-linux-init",
					helper, sizeof(helper)) == 0)
			rc = srt__mount_add_rule(&c, helper, K_AR, "srt sandbox helper", 1);
	}
	if (rc)
		goto out;
	{
		long r = srt__mount_lookup(&c, "/", 1);

		c.root_rw = r >= 0 && (c.v[r].kinds & K_AW) && !(c.v[r].kinds & K_DW);
	}
	if (pol->tmpdir && !srt__mount_state_of(&c, pol->tmpdir).w)
		rc = srt__mount_note(&c, "TMPDIR %s is covered by a deny rule and is not writable",
			  pol->tmpdir);
	if (!rc)
		rc = srt__mount_add_mandatory(&c);
	if (!rc)
		rc = srt__mount_check_links(&c);
	if (!rc)
		rc = srt__mount_check_mounts(&c);
	if (!rc)
		rc = srt__mount_plan_placeholders(&c);
	if (!rc)
		rc = srt__mount_emit(&c);
out:
	srt__mount_resolve_memo_end();
	for (i = 0; i < c.n; i++) {
		free(c.v[i].path);
		free(c.v[i].origin);
	}
	free(c.v);
	free(c.tab);
	srt__strv_release(&c.wroots);
	if (rc) {
		srt__bwrap_plan_cleanup(&plan->created);
		srt__bwrap_plan_release(plan);
	}
	return rc;
}

void srt__bwrap_plan_release(struct srt__mount_plan *plan)
{
	if (!plan)
		return;
	srt__strv_release(&plan->words);
	srt__strv_release(&plan->created);
	srt__strv_release(&plan->notes);
	srt__strv_release(&plan->hidden);
	srt__strv_release(&plan->links);
	srt__strv_release(&plan->pinned_links);
	srt__strv_release(&plan->watch_deny);
	srt__strv_release(&plan->watch_keep);
	srt__strv_release(&plan->missing_denied);
	srt__strv_release(&plan->watch_trees);
	while (plan->n_lock_fds > 0)
		close(plan->lock_fds[--plan->n_lock_fds]);
	free(plan->lock_fds);
	plan->lock_fds = NULL;
}
