/* linux-bwrap: the mount model as bwrap words.
 *
 * Mounts. Nodes (rule paths) are visited shallow first; a node gets a mount
 * only when its state differs from what the nearest mount above it already
 * gives, so a deeper rule is always emitted after a shallower one and every
 * deeper deny is re-applied under a re-opened allow:
 *   readable+writable  --bind P P
 *   read-only          --ro-bind P P
 *   denied directory   --perms 0000|0755 --tmpfs P ... --remount-ro P
 *   denied file        --ro-bind /dev/null P   (bwrap binds it nodev, so
 *                       opening it fails with EACCES, for reads and writes)
 * bwrap's --remount-ro also remounts every mount below P read-only, so the
 * mount points a re-open needs inside a denied directory are made first
 * (--dir, or the final read-only file mount), then P is made read-only,
 * then the re-opens are mounted on top.
 *
 * Renames. Each existing directory between a protected mount and the
 * writable mount above it is "pinned" with --ro-bind D D before that
 * writable mount is made. The pin is buried (the writable bind covers it)
 * but D stays a mount point in this namespace, so rename(2) and rmdir(2) of
 * D fail with EBUSY: a protected file cannot be moved away from its rule by
 * renaming a parent. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount-words.h"

static int cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct srt__mount_node *v = arg;
	const struct srt__mount_node *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* qsort order for path strings: shallow first, then by name */
static int cmp_paths(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t dx = srt__mount_depth_of(x), dy = srt__mount_depth_of(y);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x, y);
}

static long mounted_ancestor(const struct srt__mount_ctx *c, const char *p)
{
	size_t len = strlen(p);

	for (;;) {
		long k;

		while (len > 0 && p[len - 1] != '/')
			len--;
		if (len <= 1)
			return -1; /* the parent is "/" */
		len--;
		k = srt__mount_lookup(c, p, len);
		if (k >= 0 && c->v[k].mount != M_NONE)
			return k;
	}
}

static const char *mkind_name(int m)
{
	switch (m) {
	case M_RW: return "read-write";
	case M_RO: return "read-only";
	case M_TMPFS: return "hidden directory (empty, read-only)";
	case M_NULL: return "hidden file (EACCES)";
	case M_PH_FILE: return "placeholder file (EACCES)";
	case M_PH_DIR: return "placeholder directory (empty, read-only)";
	}
	return "unchanged";
}

static int emit_mount(struct srt__mount_ctx *c, struct srt__mount_node *nd)
{
	switch (nd->mount) {
	case M_RW:
		return srt__mount_push3(c, "--bind", nd->path, nd->path);
	case M_RO:
	case M_PH_DIR:
		return srt__mount_push3(c, "--ro-bind", nd->path, nd->path);
	case M_NULL:
	case M_PH_FILE:
		return srt__mount_push3(c, "--ro-bind", "/dev/null", nd->path);
	}
	return SRT_OK;
}


/* The directories above path, deepest first, down to (not including) the
 * first top bytes of it (the writable mount above), each pushed to pins;
 * /proc, /dev and /sys are the sandbox's own and end the climb. */
static int pin_ancestors(struct srt__strv *pins, const char *path, size_t top)
{
	char d[PATH_MAX];
	size_t len;

	snprintf(d, sizeof(d), "%s", path);
	len = strlen(d);
	for (;;) {
		while (len > 0 && d[len - 1] != '/')
			len--;
		if (len <= 1)
			return SRT_OK;
		len--;
		if (len <= top)
			return SRT_OK;
		d[len] = '\0';
		if (srt__mount_covers("/proc", d) || srt__mount_covers("/dev", d) || srt__mount_covers("/sys", d))
			return SRT_OK;
		if (srt__strv_push(pins, d))
			return SRT_E_NOMEM;
	}
}

/* The covered names the helper's watcher must keep covered when the host
 * replaces them: every denied file and directory (the host may replace one
 * anywhere: a directory moved away takes its cover with it, and whatever
 * the host puts at the name next would be bare), and every read-only file
 * in a writable directory. Not what lies in a hidden directory (the
 * sandbox's own tmpfs). */
static int list_watched(struct srt__mount_ctx *c, const size_t *order, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct srt__mount_node *nd = &c->v[order[i]];
		int inh = nd->parent >= 0 ? c->v[nd->parent].mount : M_NONE;
		struct srt__mount_state s;
		char dir[PATH_MAX];
		const char *slash;

		if (inh == M_TMPFS)
			continue;
		if (nd->type == T_DIR) {
			if (nd->mount == M_TMPFS && srt__strv_push(&c->plan->watch_deny, nd->path))
				return SRT_E_NOMEM;
			continue;
		}
		if (nd->mount != M_NULL && nd->mount != M_PH_FILE && nd->mount != M_RO)
			continue;
		s = srt__mount_state_of(c, nd->path);
		if (!s.r) {
			if (srt__strv_push(&c->plan->watch_deny, nd->path))
				return SRT_E_NOMEM;
			continue;
		}
		slash = strrchr(nd->path, '/');
		if (!slash || slash == nd->path || (size_t)(slash - nd->path) >= sizeof(dir))
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - nd->path), nd->path);
		if (srt__mount_state_of(c, dir).w && srt__strv_push(&c->plan->watch_keep, nd->path))
			return SRT_E_NOMEM;
	}
	/* a denied path missing at the start that no hidden directory holds:
	 * a host tool may make it during the run (the first ssh-keygen makes
	 * ~/.ssh), and nothing else would cover it */
	for (i = 0; i < c->n; i++) {
		const struct srt__mount_node *nd = &c->v[i];
		long a;

		if (nd->type != T_MISSING || !(nd->kinds & K_DR) || srt__mount_state_of(c, nd->path).r)
			continue;
		a = mounted_ancestor(c, nd->path);
		if (a >= 0 && c->v[a].mount != M_RW && c->v[a].mount != M_RO && c->v[a].mount != M_PH_DIR)
			continue;
		if (srt__strv_push(&c->plan->watch_deny, nd->path) ||
		    srt__strv_push(&c->plan->missing_denied, nd->path))
			return SRT_E_NOMEM;
	}
	return SRT_OK;
}

int srt__mount_emit(struct srt__mount_ctx *c)
{
	const int root_kind = c->root_rw ? M_RW : M_RO;
	struct srt__strv pins = { 0 }, covers_w = { 0 };
	size_t *order = NULL, i, j, n = 0;
	int rc = SRT_OK;

	order = calloc(c->n + 1, sizeof(*order));
	if (!order)
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	for (i = 0; i < c->n; i++)
		if (!c->v[i].skip && c->v[i].type != T_MISSING && strcmp(c->v[i].path, "/") != 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_nodes, c->v);

	/* decide */
	for (i = 0; i < n; i++) {
		struct srt__mount_node *nd = &c->v[order[i]];
		long a = mounted_ancestor(c, nd->path);
		int inh = a >= 0 ? c->v[a].mount : root_kind, want;

		if (nd->forced) {
			want = nd->forced;
			/* a placeholder directory made for a denied path: the
			 * host may fill it during the run (ssh-keygen finds
			 * ~/.ssh there), so it is hidden like an existing
			 * denied directory, never bound read-only onto itself */
			if (want == M_PH_DIR && !srt__mount_state_of(c, nd->path).r)
				want = M_TMPFS;
		} else {
			struct srt__mount_state s = srt__mount_state_of(c, nd->path);

			want = !s.r ? (nd->type == T_DIR ? M_TMPFS : M_NULL) : s.w ? M_RW : M_RO;
			if ((nd->kinds & K_AW) && s.r && !s.w && !(nd->kinds & K_DW) &&
			    srt__mount_note(c, "%s: inside a denyWrite rule, which wins: read-only",
				 nd->origin ? nd->origin : nd->path)) {
				rc = SRT_E_NOMEM;
				goto out;
			}
		}
		if (inh == M_NULL || inh == M_PH_FILE || inh == M_PH_DIR)
			continue;
		if (inh == M_TMPFS && (want == M_TMPFS || want == M_NULL))
			continue;
		if (inh == want && (want == M_RW || want == M_RO))
			continue;
		nd->mount = want;
		nd->parent = a;
		if (a >= 0)
			c->v[a].has_kids = 1;
	}

	if (list_watched(c, order, n)) {
		rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}

	/* pins: existing directories between a protecting mount and the
	 * writable mount above it */
	for (i = 0; i < n && !rc; i++) {
		struct srt__mount_node *nd = &c->v[order[i]];
		const char *top = nd->parent >= 0 ? c->v[nd->parent].path : "/";
		int inh = nd->parent >= 0 ? c->v[nd->parent].mount : root_kind;
		char d[PATH_MAX];
		size_t tlen = strcmp(top, "/") == 0 ? 0 : strlen(top);

		if (nd->mount == M_NONE || nd->mount == M_RW || inh != M_RW)
			continue;
		rc = pin_ancestors(&pins, nd->path, tlen);
		if (!rc && nd->parent < 0 && c->root_rw) {
			/* "/" itself is writable: bury the pins under a top-level cover */
			const char *s2 = strchr(nd->path + 1, '/');

			if (s2) {
				snprintf(d, sizeof(d), "%.*s", (int)(s2 - nd->path), nd->path);
				if (!srt__mount_covers("/proc", d) && !srt__mount_covers("/dev", d) &&
				    !srt__mount_covers("/sys", d))
					rc = srt__strv_push(&covers_w, d) ? SRT_E_NOMEM : SRT_OK;
			}
		}
	}
	/* and the directories between a protected symbolic link and the
	 * write root it lies in: renaming one away and putting a link to a
	 * directory of the command's in its place would change what the
	 * link's name reaches without touching the link */
	for (i = 0; !rc && i + 1 < c->plan->links.n; i += 2) {
		const char *lp = c->plan->links.v[i];
		size_t best = 0, k;

		for (k = 0; k < c->wroots.n; k++) {
			size_t l = strlen(c->wroots.v[k]);

			if (srt__mount_covers(c->wroots.v[k], lp) && l > best && strcmp(c->wroots.v[k], lp) != 0)
				best = l;
		}
		if (best)
			rc = pin_ancestors(&pins, lp, best);
	}
	if (rc) {
		rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		goto out;
	}

	rc = srt__mount_push3(c, c->root_rw ? "--bind" : "--ro-bind", "/", "/");
	if (!rc)
		rc = srt__mount_note(c, "/ %s", c->root_rw ? "read-write (allowWrite \"/\")" :
			  "read-only (writes only where allowWrite says)");
	/* shallow first, duplicates dropped */
	if (pins.n) /* qsort wants a non-NULL base even for no elements */
		qsort(pins.v, pins.n, sizeof(*pins.v), cmp_paths);
	for (i = 0; i < pins.n && !rc; i++) {
		if (i > 0 && strcmp(pins.v[i - 1], pins.v[i]) == 0)
			continue;
		rc = srt__mount_push3(c, "--ro-bind", pins.v[i], pins.v[i]);
		if (!rc)
			rc = srt__mount_note(c, "%s pinned (rename and rmdir fail with EBUSY)", pins.v[i]);
	}
	if (covers_w.n)
		qsort(covers_w.v, covers_w.n, sizeof(*covers_w.v), cmp_paths);
	for (i = 0; i < covers_w.n && !rc; i++)
		if (i == 0 || strcmp(covers_w.v[i - 1], covers_w.v[i]) != 0)
			rc = srt__mount_push3(c, "--bind", covers_w.v[i], covers_w.v[i]);

	for (i = 0; i < n && !rc; i++) {
		struct srt__mount_node *nd = &c->v[order[i]];

		if (nd->mount == M_NONE || nd->done)
			continue;
		rc = srt__mount_note(c, "%s %s: %s", nd->path, mkind_name(nd->mount),
			  nd->origin ? nd->origin : "");
		if (rc)
			break;
		if ((nd->mount == M_NULL || nd->mount == M_PH_FILE) &&
		    c->plan->hidden.n < c->hide_max) {
			/* a leaf outside any hidden directory (those are the
			 * kids below, mounted before their --remount-ro) */
			if (srt__strv_push(&c->plan->hidden, nd->path))
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			continue;
		}
		if (nd->mount != M_TMPFS) {
			rc = emit_mount(c, nd);
			continue;
		}
		rc = srt__mount_push3(c, "--perms", nd->has_kids ? "0755" : "0000", NULL);
		if (!rc)
			rc = srt__mount_push3(c, "--tmpfs", nd->path, NULL);
		/* mount points for what is re-opened inside, before it turns
		 * read-only (bwrap's --remount-ro also covers what is below) */
		for (j = i + 1; j < n && !rc; j++) {
			struct srt__mount_node *kid = &c->v[order[j]];

			if (kid->mount == M_NONE || kid->parent != (long)order[i])
				continue;
			if (kid->type == T_DIR) {
				rc = srt__mount_push3(c, "--dir", kid->path, NULL);
			} else if (kid->mount == M_RW) {
				rc = srt__mount_push3(c, "--ro-bind", kid->path, kid->path);
			} else {
				rc = srt__mount_note(c, "%s %s: %s", kid->path, mkind_name(kid->mount),
					  kid->origin ? kid->origin : "");
				if (!rc)
					rc = emit_mount(c, kid);
				kid->done = 1;
			}
		}
		if (!rc)
			rc = srt__mount_push3(c, "--remount-ro", nd->path, NULL);
	}
out:
	free(order);
	srt__strv_release(&pins);
	srt__strv_release(&covers_w);
	return rc;
}
