/* linux-bwrap: the Landlock layer under the mounts (see layer.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/memfd.h"
#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/mountinfo.h"
#include "layer.h"

static int under(const char *path, const char *root)
{
	size_t l = strlen(root);

	if (!strcmp(root, "/"))
		return 1;
	return !strncmp(path, root, l) && (path[l] == '/' || path[l] == '\0');
}

/* Is root writable under the mounts? A denyWrite (or a loaded settings
 * file) at or above it wins over it (for writes a deny always wins); the
 * denies below it are
 * the mounts' to enforce. */
static int root_writable(const struct srt_policy *pol, const char *root)
{
	size_t i;

	for (i = 0; i < pol->deny_write.n; i++) {
		char real[PATH_MAX];

		if (srt__realpath_memo(pol->deny_write.v[i].path, real) == 0 && under(root, real))
			return 0;
	}
	return 1;
}

/* A rule on the host object at path (real path) whose status is st (NULL:
 * looked up here), dev/ino checked when the worker replays it. */
static int host_rule(struct srt__ll_buf *b, const char *path, const struct stat *known,
		     uint64_t dir_access, uint64_t file_access, uint64_t handled, size_t *n)
{
	struct stat st;
	uint64_t access;

	if (known)
		st = *known;
	else if (lstat(path, &st) != 0)
		return SRT_OK; /* gone: nothing to grant */
	if (S_ISLNK(st.st_mode))
		return SRT_OK;
	access = (S_ISDIR(st.st_mode) ? dir_access : file_access) & handled;
	if (!access)
		return SRT_OK;
	(*n)++;
	return srt__ll_rec(b, "rule %" PRIx64 " %" PRIu64 " %" PRIu64 " %s", access, (uint64_t)st.st_dev,
		    (uint64_t)st.st_ino, path);
}

/* The layer's own records, appended to the planner's before "end". */
static int extra_records(const struct srt_policy *pol, const struct srt__ll_plan *plan,
			 struct srt__ll_buf *b, size_t *n)
{
	static const char *const pseudo[] = { "/dev", "/proc", "/sys" };
	uint64_t h = plan->handled_fs;
	uint64_t dev_rights = SRT_LL_READ_RIGHTS | SRT_LL_WRITE_RIGHTS;
	size_t i, j;
	int rc;

	/* every directory listable, as under the mounts */
	rc = host_rule(b, "/", NULL, LANDLOCK_ACCESS_FS_READ_DIR, 0, h, n);
	for (i = 0; !rc && i < pol->allow_write.n; i++) {
		const struct srt_rule *x = &pol->allow_write.v[i];
		char real[PATH_MAX];
		struct stat st;
		int skip = 0;

		/* never through a link a sandboxed run could plant or flip
		 * (as the mounts and the planner's grants), and on the object
		 * that was checked */
		if ((x->flags & SRT_RULE_GLOB) || srt__ll_allow_real(pol, x->path, real, &st) != 0)
			continue;
		/* a root over or in a pseudo filesystem keeps the planner's
		 * split: /dev, /proc and /sys are never write roots */
		for (j = 0; j < sizeof(pseudo) / sizeof(pseudo[0]); j++)
			if (under(pseudo[j], real) || under(real, pseudo[j]))
				skip = 1;
		if (skip || !root_writable(pol, real))
			continue;
		rc = host_rule(b, real, &st, SRT_LL_READ_RIGHTS | SRT_LL_WRITE_RIGHTS,
			       SRT_LL_READ_FILE_RIGHTS | SRT_LL_WRITE_FILE_RIGHTS, h, n);
	}
	/* the masked copies of credential files, read-only, at the files'
	 * paths: the inode the command opens there is the copy's (the
	 * planner's rules name the host file's, which the copy covers) */
	for (i = 0; !rc && i < pol->n_masked_files; i++) {
		struct stat st;
		uint64_t access = SRT_LL_READ_FILE_RIGHTS & h;

		if (lstat(pol->masked_files[i].source, &st) != 0 || !S_ISREG(st.st_mode) || !access)
			continue;
		(*n)++;
		rc = srt__ll_rec(b, "rule %" PRIx64 " %" PRIu64 " %" PRIu64 " %s", access,
				 (uint64_t)st.st_dev, (uint64_t)st.st_ino, pol->masked_files[i].path);
	}
	if (rc)
		return rc;
	/* bwrap's /dev (tmpfs with the --dev set bound in, devpts, shm):
	 * what the mounts allow there; no device can be made in it */
	dev_rights &= ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	rc = srt__ll_rec(b, "here %" PRIx64 " /dev", dev_rights & h);
	/* the helper's /proc: reads, and writes of files (/proc/self/uid_map
	 * for a nested user namespace, oom_score_adj); its sysctls are
	 * read-only mounts */
	if (!rc)
		rc = srt__ll_rec(b, "here %" PRIx64 " /proc",
			  (uint64_t)(SRT_LL_READ_RIGHTS | SRT_LL_WRITE_FILE_RIGHTS) & h);
	*n += 2;
	return rc;
}

int srt__bwrap_ll_layer(const struct srt_policy *pol, struct srt__ll_layer *layer, int into,
			struct srt_diag *diag)
{
	struct srt_policy lp;
	struct srt__ll_plan plan;
	struct srt_diag pd;
	struct srt__ll_buf b = { 0 };
	char *buf = NULL;
	size_t len = 0, extra = 0;
	int abi, rc;

	memset(layer, 0, sizeof(*layer));
	memset(&plan, 0, sizeof(plan));
	memset(&pd, 0, sizeof(pd));
	layer->fd = -1;
	if (pol->fs_disabled) {
		snprintf(layer->reason, sizeof(layer->reason),
			 "filesystem.disabled: no filesystem rule to layer");
		return SRT_OK;
	}
	abi = srt__ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		snprintf(layer->reason, sizeof(layer->reason), "the kernel offers no Landlock (%s)",
			 errno == EOPNOTSUPP ? "disabled: not in the lsm= boot parameter" : strerror(errno));
		return SRT_OK;
	}
	layer->abi = abi;
	/* The planner's refusals about the network do not concern the layer:
	 * linux-bwrap's network namespace and proxy bridge are the network
	 * layer, and the layer handles filesystem rights only. */
	lp = *pol;
	lp.proxy_socket = NULL;
	lp.allow_all_unix_sockets = 0;
	{
		/* bwrap's --dev gives the sandbox a devpts of its own */
		struct srt__ll_plan_limits lim = { 0, 0, 1 };

		rc = srt__ll_plan_build(&lp, abi, &lim, &plan, &pd);
	}
	if (rc == SRT_E_NOMEM)
		return srt_diag_set(diag, rc, "", "landlock layer: out of memory");
	/* a system call that failed (out of descriptors, an unreadable
	 * mount table) says nothing of the policy: the run stops instead of
	 * going on without the layer a retry would have */
	if (rc == SRT_E_IO)
		return srt_diag_set(diag, rc, pd.key,
				    "landlock layer: %.500s; the run stops rather than go without the layer",
				    pd.message[0] ? pd.message : "a system call failed");
	if (rc) {
		snprintf(layer->reason, sizeof(layer->reason), "%.590s",
			 pd.message[0] ? pd.message : "the planner refused the policy");
		layer->refused = 1;
		return SRT_OK;
	}
	plan.handled_net = 0;
	plan.scoped = 0;
	plan.seccomp_flags = 0;
	plan.block_inet = 0;
	plan.block_meta = 0;
	rc = srt__ll_plan_serialize(&plan, &buf, &len);
	/* the planner's records end with "end": ours go before it */
	if (!rc && (len < 4 || memcmp(buf + len - 4, "end", 4) != 0)) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "", "landlock layer: the plan does not end with \"end\"");
		goto out;
	}
	if (!rc) {
		b.p = buf;
		b.len = len - 4;
		b.cap = len;
		buf = NULL;
		rc = extra_records(pol, &plan, &b, &extra);
	}
	if (!rc)
		rc = srt__ll_rec(&b, "end");
	if (rc == SRT_E_LIMIT) {
		snprintf(layer->reason, sizeof(layer->reason),
			 "the rule plan is over %u bytes", SRT_LL_PLAN_MAX_BYTES);
		layer->refused = 1;
		rc = SRT_OK;
		goto out;
	}
	if (rc)
		goto out;
	if (into >= 0) {
		rc = srt__memfd_seal_into(into, b.p, b.len, "landlock layer", "the plan", diag);
		if (!rc)
			layer->fd = into;
	} else {
		rc = srt__sealed_memfd("srt-landlock-layer", b.p, b.len, "landlock layer", "the plan",
				       &layer->fd, diag);
	}
	if (!rc)
		layer->n_rules = plan.n_rules + extra;
out:
	free(buf);
	free(b.p);
	srt__ll_plan_release(&plan);
	return rc;
}

void srt__bwrap_ll_layer_release(struct srt__ll_layer *layer)
{
	if (layer->fd >= 0)
		close(layer->fd);
	layer->fd = -1;
}

void srt__bwrap_ll_layer_explain(const struct srt__ll_layer *layer, int plan_only, FILE *out)
{
	if (layer->fd < 0) {
		fprintf(out, "landlock layer: not applied: %s (the mounts enforce the policy alone)\n",
			layer->reason);
		return;
	}
	fprintf(out, "landlock layer: applied: %zu rules, Landlock ABI %d, filesystem rights only; "
		"the command cannot mount, unmount or move mounts\n",
		layer->n_rules, layer->abi);
	if (plan_only)
		fputs("landlock layer: a run adds the rules of what it makes before the command starts "
		      "(its own TMPDIR)\n", out);
	fputs("landlock layer: every directory stays listable; file contents, execute and writes follow "
	      "the policy; inside the write roots the denies are the mounts' alone (Landlock cannot "
	      "refuse one name where it lets the command create entries), and Landlock keeps those "
	      "mounts in place\n", out);
}
