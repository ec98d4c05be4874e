/* linux-bwrap: the filesystem part of the plan, a pure function of the policy.
 *
 * Produces the bwrap mount words (from "--ro-bind / /" up to and including
 * the mandatory write denies, with the precedence described in mounts.c)
 * and the list of host paths the plan had to create
 * (placeholders for deny paths that do not exist yet) so the core can remove
 * them when the run ends. The plan's interface; mounts.c says which
 * mount-*.c file does which step. */
#ifndef SRT_BWRAP_MOUNTS_H
#define SRT_BWRAP_MOUNTS_H

#include <stddef.h>
#include <stdio.h>
#include <srt/error.h>
#include <srt/policy.h>

#include "common/strv.h"


struct srt__mount_plan {
	struct srt__strv words;        /* bwrap arguments, e.g. "--ro-bind" "/" "/" */
	struct srt__strv created;      /* host paths created for the run, deepest last */
	struct srt__strv notes;        /* one line per decision, for --explain/--debug */
	/* Added by the filesystem area: one descriptor per placeholder in
	 * `created`, each holding a shared POSIX lock for the life of the plan,
	 * so the cleanup of a concurrent run (or its guard) leaves placeholders
	 * this run still mounts alone. Closed by srt__bwrap_plan_release(). */
	int *lock_fds;
	size_t n_lock_fds;
	/* Files to cover with a read-only /dev/null that the plan left to
	 * srt-linux-init (--hide-file) instead of bwrap, when asked: each is
	 * a leaf (no mount goes below a file, and none after it above), so
	 * mounting it after all of bwrap's words is the same tree. bwrap
	 * rereads its whole mount table for every bind; the helper does
	 * not. */
	struct srt__strv hidden;
	/* Denied paths that are symbolic links inside a write root: the
	 * target is protected, but the link's own name is no mount point and
	 * the command can replace it. Pairs (path, target), checked and
	 * restored after the run (srt__bwrap_plan_restore_links). */
	struct srt__strv links;
	/* The same links' paths (parent directories resolved) when the
	 * helper takes files (hide_max > 0): it mounts a read-only copy on
	 * each link itself (--pin-link), so the name cannot be replaced while
	 * the command runs; the restore above stays as a second line. */
	struct srt__strv pinned_links;
	/* Covered files whose cover the kernel drops when the host replaces
	 * them (rename over, remove and create), for the helper's watcher
	 * (init/watch.h) to cover again: watch_deny the denied ones (covered
	 * with /dev/null), watch_keep the write-protected ones in a writable
	 * directory (a read-only bind of themselves). Files inside a hidden
	 * directory are the sandbox's own and are not listed. */
	struct srt__strv watch_deny;
	struct srt__strv watch_keep;
	/* The denied paths that do not exist at the start and got no
	 * placeholder (outside the write roots nothing can be made): no mount
	 * hides them, so the violation monitor refuses reads below them and
	 * the watcher (from their parent) covers what the host makes there.
	 * Also in watch_deny. */
	struct srt__strv missing_denied;
	/* The write roots the mandatory denies were looked for in (not the
	 * default ones, such as the temporary directory), and how many levels
	 * of directories below each the watcher watches for a protected
	 * directory (.vscode, .claude, ...) made during the run. */
	struct srt__strv watch_trees;
	int watch_depth;
};

/* Called with each host path just before the plan creates it, so a guard
 * that outlives srt can remove it even if srt dies in between. */
typedef void (*srt__plan_create_fn)(void *ctx, const char *path);

/* Compute the mount words for pol. Walks the write roots for mandatory
 * denies (bounded by pol->mandatory_deny_search_depth, skipping
 * node_modules). May create placeholder files/dirs (recorded in
 * plan->created). On failure nothing is left created and diag names the
 * rule ("filesystem.denyWrite[0]: ...") that could not be enforced. */
int srt__bwrap_plan_mounts(const struct srt_policy *pol, struct srt__mount_plan *plan,
			   struct srt_diag *diag);
/* The same, announcing each path before it is created (announce may be
 * NULL), and leaving up to hide_max hidden files (denyRead files and
 * placeholder files, outside a hidden directory) to the helper in
 * plan->hidden rather than in plan->words. */
int srt__bwrap_plan_mounts_ex(const struct srt_policy *pol, struct srt__mount_plan *plan,
			      srt__plan_create_fn announce, void *ctx, size_t hide_max,
			      struct srt_diag *diag);
/* Directory entries the mandatory deny scan may visit in each write root
 * (default 200,000); a scan that stops there fails the plan. Unit tests
 * lower it. */
extern size_t srt__bwrap_walk_budget;

/* Free the plan; does not touch the host (see srt__bwrap_plan_cleanup). */
void srt__bwrap_plan_release(struct srt__mount_plan *plan);
/* Remove what the plan created, deepest first, each only if it is still an
 * empty regular file or an empty directory and no other live run holds its
 * lock (placeholders are shared by concurrent runs in one directory; the
 * last one out removes them). Safe to call twice. */
void srt__bwrap_plan_cleanup(const struct srt__strv *created);

/* After the run, with no sandboxed process left: each link of plan->links
 * that is gone or was replaced is put back (a replacement is first renamed
 * aside to "<name>.srt-quarantine[.N]"), and each is said on report as a
 * "srt: deny ..." line. Returns how many were restored. */
size_t srt__bwrap_plan_restore_links(const struct srt__strv *links, FILE *report);

#endif
