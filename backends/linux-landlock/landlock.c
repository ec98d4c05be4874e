/* linux-landlock: the policy enforced with Landlock plus seccomp, without
 * any namespace, for the hosts where linux-bwrap cannot start: containers
 * whose seccomp profile refuses user namespaces, Ubuntu's AppArmor
 * restriction of unprivileged user namespaces.
 *
 * srt compiles the policy into a rule plan here (plan.c); the exec helper
 * srt-landlock-exec, installed next to this module, replays the plan:
 *
 *   srt-landlock-exec --plan-fd N -- command [args...]
 *
 * The plan goes through an inherited memfd, never through argv, which any
 * process can read in /proc.
 *
 * What it does not give, compared with linux-bwrap (no SRT_CAP_NETNS,
 * SRT_CAP_PIDNS, SRT_CAP_PROXY): no private network (every socket family
 * but AF_UNIX is refused instead, so allowedDomains cannot work yet), no
 * private process tree (processes a command leaves behind may outlive srt),
 * and signals to the user's other processes are only scoped from ABI 6. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <srt/backend.h>

#include "backends/linux-common/backend-header.h"
#include "backends/linux-common/sibling.h"

#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/memfd.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-landlock/superplan.h"

#define HELPER_NAME "srt-landlock-exec"

struct ll_state {
	const struct srt_policy *pol;
	char helper[PATH_MAX];
	struct srt__ll_plan plan;
	int supervised;            /* the write supervisor runs (filesystem rules) */
	struct srt__ll_super super;
};

struct ll_cmd {
	int plan_fd;
	int super_fd;
	int events_rd, events_wr; /* the supervisor's violation lines */
};

static int find_helper(char *out, size_t outlen)
{
	extern const struct srt_backend srt_backend_entry;

	return srt__module_sibling(&srt_backend_entry, HELPER_NAME, out, outlen);
}

/* The Landlock ABI of this kernel, or a diagnosis of why there is none. */
static int probe_abi(int *abi, struct srt_diag *diag)
{
	int v = srt__ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v >= 1) {
		*abi = v;
		return SRT_OK;
	}
	if (errno == EOPNOTSUPP)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "landlock",
				    "landlock is built into this kernel but disabled: add \"landlock\" to the lsm= kernel boot parameter (see /sys/kernel/security/lsm), or use the linux-bwrap backend");
	if (errno == ENOSYS)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "landlock",
				    "landlock is not available: the kernel lacks it (needs Linux 5.13+ with CONFIG_SECURITY_LANDLOCK) or a container's seccomp profile blocks landlock_create_ruleset; use a newer kernel, allow the landlock_* system calls in the profile, or use the linux-bwrap backend");
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "landlock",
			    "landlock is not usable: landlock_create_ruleset: %s (a container's seccomp profile may block the landlock_* system calls: allow them, or use the linux-bwrap backend)",
			    strerror(errno));
}

static int probe_seccomp(struct srt_diag *diag)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "seccomp",
				    "seccomp is not available in this kernel (needs CONFIG_SECCOMP_FILTER): linux-landlock cannot refuse sockets, io_uring and namespaces without it");
	return SRT_OK;
}

static int ll_probe(const struct srt_policy *pol, struct srt_diag *diag)
{
	char helper[PATH_MAX];
	int abi = 0, rc;

	rc = probe_abi(&abi, diag);
	if (rc)
		return rc;
	rc = probe_seccomp(diag);
	if (rc)
		return rc;
	if (find_helper(helper, sizeof(helper)) != 0)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, HELPER_NAME,
				    "the sandbox helper " HELPER_NAME " is missing next to the linux-landlock module; reinstall srt");
	return srt__ll_plan_check(pol, abi, diag);
}

static void ll_diagnose(srt_report_fn report, void *ctx)
{
	struct srt_diag d;
	char detail[PATH_MAX + 64];
	int abi = 0;

	memset(&d, 0, sizeof(d));
	if (probe_abi(&abi, &d) == SRT_OK) {
		snprintf(detail, sizeof(detail), "Landlock ABI %d%s", abi,
			 abi >= 4 ? " (TCP connect/bind rules)" : " (no network rules: inet sockets refused by seccomp)");
		report(ctx, "Landlock", 1, detail, NULL);
	} else {
		report(ctx, "Landlock", 0, d.message,
		       "boot with Landlock in the lsm= list (e.g. lsm=landlock,lockdown,yama,...) on a kernel >= 5.13");
	}
	memset(&d, 0, sizeof(d));
	if (probe_seccomp(&d) == SRT_OK)
		report(ctx, "seccomp filters", 1, "available", NULL);
	else
		report(ctx, "seccomp filters", 0, d.message, "a kernel with CONFIG_SECCOMP_FILTER");
	if (find_helper(detail, sizeof(detail)) == 0)
		report(ctx, HELPER_NAME " helper", 1, detail, NULL);
	else
		report(ctx, HELPER_NAME " helper", 0, "not found next to the linux-landlock module",
		       "reinstall srt (make install)");
}

/* Landlock rules name the inodes that exist at start: a file that matches
 * a denyRead glob and appears during the run (made by the host, or renamed
 * into place) is an ordinary new file in a readable directory. Say so once,
 * at start, naming the first such glob. */
static void warn_late_globs(const struct srt_policy *pol)
{
	size_t i;

	if (pol->fs_disabled)
		return;
	for (i = 0; i < pol->deny_read.n; i++) {
		const struct srt_rule *r = &pol->deny_read.v[i];

		if (!(r->flags & SRT_RULE_GLOB))
			continue;
		fprintf(stderr, "srt: warning: linux-landlock: denyRead glob %s covers only the files "
				"that match it at start; one that appears during the run stays readable "
				"(linux-bwrap covers them as they appear)\n", r->path);
		return;
	}
}

static int ll_prepare(const struct srt_policy *pol, void **state, struct srt_diag *diag)
{
	struct ll_state *st;
	int abi = 0, rc;

	rc = probe_abi(&abi, diag);
	if (rc)
		return rc;
	st = calloc(1, sizeof(*st));
	if (!st)
		return SRT_E_NOMEM;
	st->pol = pol;
	if (find_helper(st->helper, sizeof(st->helper)) != 0) {
		free(st);
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, HELPER_NAME,
				    "the sandbox helper " HELPER_NAME " is missing next to the linux-landlock module; reinstall srt");
	}
	/* Directory write roots go to the write supervisor (superplan.h):
	 * the Landlock plan is built from the policy it leaves. */
	st->supervised = !pol->fs_disabled || (pol->allow_unix_sockets.n && !pol->allow_all_unix_sockets);
	/* the supervisor's plan and the Landlock plan walk the same roots
	 * and list $HOME's protected directories: once for both */
	srt__mandatory_memo_begin();
	if (st->supervised) {
		rc = srt__ll_plan_check(pol, abi, diag);
		if (!rc)
			rc = srt__ll_check_protected_mounts(pol, diag);
		if (!rc)
			rc = srt__ll_super_build(pol, &st->super, diag);
		if (rc) {
			srt__mandatory_memo_end();
			free(st);
			return rc;
		}
	}
	rc = srt__ll_plan_build(st->supervised ? &st->super.landlock_pol : pol, abi, NULL, &st->plan, diag);
	srt__mandatory_memo_end();
	if (rc) {
		srt__ll_super_release(&st->super);
		free(st);
		return rc;
	}
	/* allowUnixSockets: socket(AF_UNIX) and connect go to the supervisor,
	 * so the shared filter leaves its AF_UNIX rules out (their ERRNO
	 * would win over the notification); the helper refuses datagram
	 * socket pairs itself and will not run without the supervisor */
	if (st->super.n_unix)
		st->plan.seccomp_flags |= SRT_SECCOMP_UNIX_OBSERVED;
	if (pol->debug)
		fprintf(stderr, "[srt debug] linux-landlock: ABI %d, %zu rules, helper %s\n", abi,
			st->plan.n_rules, st->helper);
	for (size_t i = 0; i < st->plan.n_notes; i++)
		if (!strncmp(st->plan.notes[i], "warning: ", 9))
			fprintf(stderr, "srt: %s\n", st->plan.notes[i]);
	warn_late_globs(pol);
	*state = st;
	return SRT_OK;
}

static void free_argv(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static int ll_wrap(void *state, const char *const *argv, struct srt_command *out,
		   struct srt_diag *diag)
{
	struct ll_state *st = state;
	struct ll_cmd *lc;
	char *buf = NULL;
	char num[16];
	size_t len, n, i, k;
	char **v = NULL;
	int rc;

	lc = calloc(1, sizeof(*lc));
	if (!lc)
		return SRT_E_NOMEM;
	lc->plan_fd = lc->super_fd = lc->events_rd = lc->events_wr = -1;
	out->priv = lc;

	rc = srt__ll_plan_serialize(&st->plan, &buf, &len);
	if (rc == SRT_E_LIMIT)
		return srt_diag_set(diag, rc, "filesystem",
				    "linux-landlock: the rule plan is over %u bytes; narrow the filesystem rules",
				    SRT_LL_PLAN_MAX_BYTES);
	if (rc)
		return rc;
	rc = srt__sealed_memfd("srt-landlock-plan", buf, len, "linux-landlock", "the plan",
			       &lc->plan_fd, diag);
	if (rc)
		goto out;
	if (st->supervised) {
		int p[2];

		rc = srt__sealed_memfd("srt-supervisor-plan", st->super.buf, st->super.len,
				       "linux-landlock", "the supervisor plan", &lc->super_fd, diag);
		if (rc)
			goto out;
		if (pipe2(p, O_CLOEXEC) != 0) {
			rc = srt_diag_set(diag, SRT_E_IO, "", "linux-landlock: events pipe: %s", strerror(errno));
			goto out;
		}
		lc->events_rd = p[0];
		lc->events_wr = p[1];
	}

	for (n = 0; argv[n]; n++)
		;
	v = calloc(n + 9, sizeof(*v));
	if (!v) {
		rc = SRT_E_NOMEM;
		goto out;
	}
	snprintf(num, sizeof(num), "%d", lc->plan_fd);
	k = 0;
	v[k++] = strdup(st->helper);
	v[k++] = strdup("--plan-fd");
	v[k++] = strdup(num);
	if (st->supervised) {
		v[k++] = strdup("--super-fd");
		snprintf(num, sizeof(num), "%d", lc->super_fd);
		v[k++] = strdup(num);
		v[k++] = strdup("--events-fd");
		snprintf(num, sizeof(num), "%d", lc->events_wr);
		v[k++] = strdup(num);
	}
	v[k++] = strdup("--");
	rc = SRT_E_NOMEM;
	for (i = 0; i < k; i++)
		if (!v[i])
			goto out;
	for (i = 0; i < n; i++)
		if (!(v[k + i] = strdup(argv[i])))
			goto out;
	out->argv = v;
	v = NULL;
	out->n_child_fds = 0;
	out->child_fds[out->n_child_fds++] = lc->plan_fd;
	if (st->supervised) {
		out->child_fds[out->n_child_fds++] = lc->super_fd;
		out->child_fds[out->n_child_fds++] = lc->events_wr;
		out->events_fd = lc->events_rd;
	}
	rc = SRT_OK;
out:
	free_argv(v);
	free(buf);
	return rc;
}

static void ll_release(void *state, struct srt_command *cmd)
{
	struct ll_cmd *lc = cmd->priv;

	(void)state;
	free_argv(cmd->argv);
	cmd->argv = NULL;
	if (!lc)
		return;
	if (lc->plan_fd >= 0)
		close(lc->plan_fd);
	if (lc->super_fd >= 0)
		close(lc->super_fd);
	if (lc->events_wr >= 0)
		close(lc->events_wr);
	if (lc->events_rd >= 0)
		close(lc->events_rd);
	cmd->events_fd = -1;
	free(lc);
	cmd->priv = NULL;
}

/* Only the helper may hold the write end of the events pipe: EOF then
 * means the supervisor is gone. */
static int ll_started(void *state, struct srt_command *cmd, pid_t pid, struct srt_diag *diag)
{
	struct ll_cmd *lc = cmd->priv;

	(void)state;
	(void)pid;
	(void)diag;
	if (lc && lc->events_wr >= 0) {
		close(lc->events_wr);
		lc->events_wr = -1;
	}
	return SRT_OK;
}

static int ll_explain(void *state, const struct srt_command *cmd, FILE *out)
{
	struct ll_state *st = state;
	const struct srt__ll_plan *p = &st->plan;
	char names[512];
	size_t i;

	fprintf(out, "landlock: ABI %d; network: no namespace, every socket family but AF_UNIX refused by seccomp",
		p->abi);
	if (p->handled_net)
		fputs(", TCP connect and bind refused by Landlock", out);
	fputc('\n', out);
	if (p->scoped)
		fputs("landlock: abstract Unix sockets and signals scoped to the sandbox\n", out);
	fprintf(out, "seccomp: TIOCSTI/TIOCLINUX/TIOCSETD/TIOCEXCL refused; io_uring and System V IPC refused; "
		"set-id chmod and another process's prlimit refused; keyrings refused%s%s%s%s\n",
		(p->seccomp_flags & SRT_SECCOMP_ALLOW_UNIX) ? "" :
		(p->seccomp_flags & SRT_SECCOMP_UNIX_OBSERVED) ? "; socket(AF_UNIX) made by the supervisor (stream and seqpacket only), connect performed by it to the allowUnixSockets paths only" :
		"; socket(AF_UNIX/AF_VSOCK) refused",
		p->block_inet ? "; socket() of every other family refused" : "",
		p->block_meta ? "; chown refused, setxattr/removexattr EOPNOTSUPP, chmod to set-id or group/other-writable modes refused" : "",
		(p->seccomp_flags & SRT_SECCOMP_ALLOW_USERNS) ? "" :
		"; mount family, setns, new user/mount namespaces refused, clone3 ENOSYS");
	if (p->handled_fs) {
		srt__ll_access_names(p->handled_fs, names, sizeof(names));
		fprintf(out, "landlock: handled filesystem rights: %s (refused unless a rule grants them)\n", names);
	}
	for (i = 0; i < st->super.landlock_pol.allow_unix_sockets.n && st->super.n_unix; i++)
		fprintf(out, "supervisor: Unix socket %s may be connected to <- %s\n",
			st->super.landlock_pol.allow_unix_sockets.v[i].path,
			st->super.landlock_pol.allow_unix_sockets.v[i].origin);
	if (st->supervised)
		fprintf(out, "supervisor: %zu write roots kept read-only to the command by Landlock; every call that creates, removes, renames or write-opens a name in them is performed by the supervisor after checking it against %zu protected paths and %zu protected name patterns\n",
			st->super.n_roots, st->super.n_deny, st->super.n_names);
	if (st->supervised && (st->super.n_roots || st->super.n_unix))
		fputs("supervisor: landlock_restrict_self refused (EPERM): a Landlock domain the command added to itself would not hold for the calls the supervisor performs for it\n",
		      out);
	for (i = 0; i < p->n_notes; i++)
		fprintf(out, "plan: %s\n", p->notes[i]);
	for (i = 0; i < p->n_rules; i++) {
		const struct srt__ll_rule *r = &p->rules[i];
		srt__ll_access_names(r->access, names, sizeof(names));
		fprintf(out, "rule %s (%s) %s   <- %s\n", r->path, r->is_dir ? "tree" : "file", names, r->why);
	}
	fputs("helper argv:", out);
	for (i = 0; cmd->argv && cmd->argv[i]; i++)
		fprintf(out, " %s", cmd->argv[i]);
	fputc('\n', out);
	return SRT_OK;
}

static void ll_teardown(void *state)
{
	struct ll_state *st = state;

	if (!st)
		return;
	srt__ll_plan_release(&st->plan);
	srt__ll_super_release(&st->super);
	free(st);
}

const struct srt_backend srt_backend_entry = {
	.hdr = SRT__BACKEND_HEADER("linux-landlock"),
	.caps = SRT_CAP_FILESYSTEM | SRT_CAP_SECCOMP,
	.probe = ll_probe,
	.prepare = ll_prepare,
	.wrap = ll_wrap,
	.started = ll_started,
	.release = ll_release,
	.explain = ll_explain,
	.teardown = ll_teardown,
	.diagnose = ll_diagnose,
};
