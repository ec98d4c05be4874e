/* linux-bwrap: the policy enforced by bubblewrap (mount namespace, empty
 * network namespace, pid namespace) plus the in-sandbox helper
 * srt-linux-init (nested namespaces, seccomp, signal forwarding).
 *
 * The argv is assembled from three pure parts: the mount words (mounts.c),
 * the process words (procargs.c) and the helper words. Secrets never go
 * into the argv: the core passes the child environment through execve.
 * What must be undone if srt is killed mid-run is left to the cleanup
 * guard (guard.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <srt/backend.h>

#include "backends/linux-common/backend-header.h"
#include "backends/linux-common/path-search.h"
#include "backends/linux-common/sibling.h"
#include "common/fdio.h"
#include "common/platform.h"
#include "layer.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/memfd.h"
#include "find.h"
#include "guard.h"
#include "mounts.h"
#include "procargs.h"
#include "state.h"
#include "userns.h"

/* Above this many words or bytes the mount words go through --args FD:
 * the kernel limits one argument list (ARG_MAX) and bwrap accepts at most
 * 9000 arguments on the command line. */
#define ARGV_INLINE_WORDS 2000
#define ARGV_INLINE_BYTES (64 * 1024)
#define MAX_ARGS_FILE_WORDS 200000
/* bwrap refuses more arguments than this, counted over its command line
 * (less its own name) and every --args file, the command's arguments
 * included ("Exceeded maximum number of arguments") */
#define BWRAP_MAX_ARGS 9000
/* Files the helper covers on its command line; a plan with more leaves
 * the rest to bwrap (through --args when large). */
#define HELPER_HIDE_MAX 128

struct bwrap_cmd {
	struct srt__mount_plan plan;
	int info_rd, info_wr; /* --info-fd pipe */
	int status_rd, status_wr; /* the helper's --status-fd pipe */
	pid_t pgrp;           /* bwrap's process group, known to the guard */
	int args_fd;          /* --args memfd, or -1 */
	int events_rd, events_wr; /* the violation monitor's pipe */
	int policy_fd;        /* the monitor's sealed policy memfd, or -1 */
	int icept_fd;         /* interception: the proxy's token for the helper, or -1 */
	int resolv_fd;        /* interception: the sandbox's /etc/resolv.conf, or -1 */
	struct srt__ll_layer layer; /* the Landlock layer (layer.h) */
	int counted;          /* in srt__bwrap_state.running */
	/* Started before its plan (bw_early): bwrap reads its options from
	 * a socket (--args) and the helper its own from a memfd sealed once
	 * they are in it (--options-fd); descriptors made for a part of the
	 * plan that turned out to need none are closed by the helper at
	 * once (--close-fd) and by srt after the start. */
	int early;
	int plan_rd, plan_wr; /* bwrap's --args socket, until the plan is in it */
	int opts_fd;          /* the helper's options memfd */
	int layer_fd;         /* the memfd made for the Landlock layer, until the layer holds it */
	int unused[3];        /* made early, needed by no part of the plan */
	int n_unused;
};

static int push_fd_words(struct srt__strv *w, const char *opt, int fd);
static void early_close(struct bwrap_cmd *bc);

/* A memfd holding data, at offset 0; -1 with errno. */
static int data_memfd(const char *name, const char *data)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (srt__write_full(fd, data, strlen(data))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Interception's two memfds: the proxy's token for the helper, and the
 * sandbox's /etc/resolv.conf. */
static int intercept_fds(struct bwrap_cmd *bc, const struct srt_policy *pol, struct srt_diag *diag)
{
	bc->icept_fd = data_memfd("srt-intercept-token", pol->proxy_token ? pol->proxy_token : "");
	bc->resolv_fd = data_memfd("srt-resolv-conf", "nameserver 127.0.0.53\noptions edns0\n");
	if (bc->icept_fd < 0 || bc->resolv_fd < 0)
		return srt_diag_set(diag, SRT_E_IO, "network.intercept",
				    "bwrap: memfd for the interception: %s", strerror(errno));
	return SRT_OK;
}

/* Interception: the sandbox's resolver is the helper's answerer on
 * 127.0.0.53 (written over the file /etc/resolv.conf names, a link's
 * target included, as bwrap follows the link when it mounts), and the
 * helper gets the proxy's token in a memfd, never on a command line. */
static int intercept_words(struct bwrap_cmd *bc, const struct srt_policy *pol,
			   struct srt__strv *w, struct srt_diag *diag)
{
	char real[PATH_MAX];
	const char *dest = "/etc/resolv.conf";

	int rc;

	if (bc->icept_fd < 0 && (rc = intercept_fds(bc, pol, diag)))
		return rc;
	if (realpath(dest, real) && real[0] == '/')
		dest = real;
	if (push_fd_words(w, "--ro-bind-data", bc->resolv_fd) || srt__strv_push(w, dest))
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
	return SRT_OK;
}

/* credentials.files in mask mode: each copy bound read-only over the
 * file's real path, after the filesystem plan so it covers the file
 * whatever rule reached it; then srt's directory of copies is covered
 * by an empty read-only tmpfs (bwrap resolves the sources outside the
 * new root, so the binds before it still find them). */
static int masked_words(const struct srt_policy *pol, struct srt__strv *w)
{
	size_t i;

	if (!pol->n_masked_files || !pol->masked_dir)
		return SRT_OK;
	for (i = 0; i < pol->n_masked_files; i++)
		if (srt__strv_push(w, "--ro-bind") || srt__strv_push(w, pol->masked_files[i].source) ||
		    srt__strv_push(w, pol->masked_files[i].path))
			return SRT_E_NOMEM;
	if (srt__strv_push(w, "--perms") || srt__strv_push(w, "0500") ||
	    srt__strv_push(w, "--tmpfs") || srt__strv_push(w, pol->masked_dir) ||
	    srt__strv_push(w, "--remount-ro") || srt__strv_push(w, pol->masked_dir))
		return SRT_E_NOMEM;
	return SRT_OK;
}

static int bw_probe(const struct srt_policy *pol, struct srt_diag *diag)
{
	char path[PATH_MAX];
	int err = 0;

	if (pol->bwrap_path) {
		if (access(pol->bwrap_path, X_OK) != 0)
			return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrapPath",
					    "bubblewrap: bwrapPath \"%s\" is not executable (%s)",
					    pol->bwrap_path, strerror(errno));
		if (!srt__bwrap_trusted_program(pol->bwrap_path, pol))
			return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrapPath",
					    "bubblewrap: bwrapPath \"%s\" could be replaced by a sandboxed command (it is writable by others or lies in a write root); install bwrap outside the allowed write paths",
					    pol->bwrap_path);
	} else if (srt__bwrap_find_on_path("bwrap", pol, path, sizeof(path)) != 0) {
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrap",
				    "bubblewrap (bwrap) is not installed (or only in a directory a sandboxed command could write): install the Debian package 'bubblewrap', or set bwrapPath in the settings");
	}
	if (srt__bwrap_find_helper(path, sizeof(path)) != 0)
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
				    "the sandbox helper srt-linux-init is missing next to the linux-bwrap module; reinstall srt");
	if (srt__bwrap_userns_needs_trial() && !srt__bwrap_userns_works(&err))
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "user namespaces",
				    "user namespaces cannot be created here (%s): %s",
				    strerror(err), srt__bwrap_userns_diagnosis());
	return SRT_OK;
}

static void bw_diagnose(srt_report_fn report, void *ctx)
{
	char path[PATH_MAX], detail[PATH_MAX + 512], line[256];
	long v;
	int err = 0, have_bwrap;
	FILE *f;

	have_bwrap = srt__bwrap_find_on_path("bwrap", NULL, path, sizeof(path)) == 0;
	if (have_bwrap) {
		char cmd[PATH_MAX + 32];
		snprintf(cmd, sizeof(cmd), "'%s' --version 2>&1", path);
		line[0] = '\0';
		f = popen(cmd, "r");
		if (f) {
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			pclose(f);
		}
		line[strcspn(line, "\n")] = '\0';
		snprintf(detail, sizeof(detail), "%s (%s)", path, line[0] ? line : "version unknown");
		report(ctx, "bubblewrap", 1, detail, NULL);
	} else {
		report(ctx, "bubblewrap", 0, "bwrap not found on PATH",
		       "install the Debian package 'bubblewrap' (or set bwrapPath)");
	}

	if (srt__bwrap_find_helper(path, sizeof(path)) == 0)
		report(ctx, "srt-linux-init helper", 1, path, NULL);
	else
		report(ctx, "srt-linux-init helper", 0, "not found next to the linux-bwrap module",
		       "reinstall srt (make install)");

	v = srt__read_long_file("/proc/sys/user/max_user_namespaces");
	snprintf(detail, sizeof(detail), "user.max_user_namespaces=%ld", v);
	report(ctx, "user namespace limit", v != 0, detail,
	       v == 0 ? "sysctl user.max_user_namespaces=15000" : NULL);
	v = srt__read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	if (v >= 0) {
		snprintf(detail, sizeof(detail), "kernel.apparmor_restrict_unprivileged_userns=%ld", v);
		report(ctx, "AppArmor userns restriction", v == 0 || getuid() == 0, detail,
		       v == 1 ? "add an AppArmor profile allowing userns for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0 (or use --backend=linux-landlock)" : NULL);
	} else {
		report(ctx, "AppArmor userns restriction", 1, "sysctl absent (no restriction)", NULL);
	}
	if (srt__bwrap_userns_works(&err)) {
		report(ctx, "user namespaces", 1, "unshare(CLONE_NEWUSER) works", NULL);
	} else {
		snprintf(detail, sizeof(detail), "unshare(CLONE_NEWUSER) failed: %s", strerror(err));
		report(ctx, "user namespaces", 0, detail, srt__bwrap_userns_diagnosis());
	}

	/* Seccomp mode of this process: 2 means a filter is already installed,
	 * as in a container with a seccomp profile. */
	line[0] = '\0';
	f = fopen("/proc/self/status", "re");
	if (f) {
		char l[256];
		while (fgets(l, sizeof(l), f))
			if (!strncmp(l, "Seccomp:", 8)) {
				snprintf(line, sizeof(line), "%s", l + 8 + strspn(l + 8, " \t"));
				line[strcspn(line, "\n")] = '\0';
			}
		fclose(f);
	}
	snprintf(detail, sizeof(detail), "this process's seccomp mode: %s%s", line[0] ? line : "unknown",
		 !strcmp(line, "2") ? " (already filtered: a container profile may refuse namespaces)" : "");
	report(ctx, "inherited seccomp filter", 1, detail, NULL);
	{
		struct seccomp_notif_sizes sz;
		int ok = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0;
		snprintf(detail, sizeof(detail), ok ? "SECCOMP_GET_NOTIF_SIZES works" : "unavailable: %s",
			 strerror(errno));
		report(ctx, "seccomp user notification", ok, detail,
		       ok ? NULL : "a kernel >= 5.5 is needed for the violation monitor");
	}
}

static int bw_prepare(const struct srt_policy *pol, void **state, struct srt_diag *diag)
{
	struct srt__bwrap_state *st = calloc(1, sizeof(*st));

	if (!st)
		return SRT_E_NOMEM;
	st->pol = pol;
	st->guard_fd = -1;
	st->guard_rd = -1;
	st->guard_ready = -1;
	st->owner = getpid();
	if (pol->bwrap_path)
		snprintf(st->bwrap, sizeof(st->bwrap), "%s", pol->bwrap_path);
	else if (srt__bwrap_find_on_path("bwrap", pol, st->bwrap, sizeof(st->bwrap)) != 0) {
		free(st);
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrap",
				    "bubblewrap (bwrap) is not installed: install the Debian package 'bubblewrap'");
	}
	if (srt__bwrap_find_helper(st->helper, sizeof(st->helper)) != 0) {
		free(st);
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
				    "the sandbox helper srt-linux-init is missing next to the linux-bwrap module; reinstall srt");
	}
	*state = st;
	return SRT_OK;
}

static char *join_words(char **v, size_t n, size_t *len)
{
	size_t total = 0, i, o = 0;
	char *buf;

	for (i = 0; i < n; i++)
		total += strlen(v[i]) + 1;
	buf = malloc(total ? total : 1);
	if (!buf)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t l = strlen(v[i]) + 1;
		memcpy(buf + o, v[i], l);
		o += l;
	}
	*len = total;
	return buf;
}

static int push_fd_words(struct srt__strv *w, const char *opt, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	if (srt__strv_push(w, opt) || srt__strv_push(w, num))
		return SRT_E_NOMEM;
	return SRT_OK;
}

/* Can srt-linux-init cover files itself (open_tree, mount_setattr and
 * move_mount, Linux 5.12)? Asked with a size the kernel refuses before it
 * looks at anything else: EINVAL means the call is there and no seccomp
 * filter around srt refuses it (EBADF would say the same). Otherwise bwrap mounts every file, as
 * before. */
static int helper_can_hide(void)
{
#if defined(SYS_mount_setattr) && defined(SYS_open_tree) && defined(SYS_move_mount)
	static int known = -1;

	if (known < 0)
		known = syscall(SYS_mount_setattr, -1, "", 0, NULL, (size_t)0) < 0 &&
			(errno == EINVAL || errno == EBADF);
	return known;
#else
	return 0;
#endif
}

/* Does the plan have names the helper's watcher must keep covered, on a
 * kernel without the mount interface the watcher covers them with (Linux
 * before 5.12)? Then the run is refused, unless the user accepted the
 * weaker protection (filesystem.enableWeakerNameProtection). */
static int watch_possible(const struct srt_policy *pol, const struct srt__mount_plan *plan,
			  struct srt_diag *diag)
{
	size_t i;
	int globs = 0;

	if (helper_can_hide() || pol->fs_disabled)
		return SRT_OK;
	for (i = 0; i < pol->deny_read.n; i++)
		globs |= !!(pol->deny_read.v[i].flags & SRT_RULE_GLOB);
	if (!plan->watch_deny.n && !plan->watch_keep.n && !plan->watch_trees.n && !globs)
		return SRT_OK;
	if (pol->weaker_name_protection) {
		fprintf(stderr, "srt: warning: files the host replaces during the run lose their "
			"protection in this sandbox (this kernel has no mount_setattr, Linux 5.12; "
			"filesystem.enableWeakerNameProtection)\n");
		return SRT_OK;
	}
	return srt_diag_set(diag, SRT_E_UNSUPPORTED, "filesystem.enableWeakerNameProtection",
			    "linux-bwrap: the watcher that keeps protected and denied files covered when "
			    "the host replaces them needs mount_setattr (Linux 5.12 or later); upgrade "
			    "the kernel, or set filesystem.enableWeakerNameProtection to run without it");
}

/* The violation monitor: a pipe whose write end goes to the helper and
 * whose read end the core reads "deny <syscall> <path>" lines from, and
 * the classification policy in a sealed memfd (never in argv, which
 * /proc shows to everyone). Nothing to observe (filesystem.disabled with
 * allowAllUnixSockets): no monitor. */
static int monitor_setup(const struct srt_policy *pol, struct bwrap_cmd *bc, struct srt_diag *diag)
{
	char *buf = NULL;
	size_t len = 0;
	unsigned flags = 0;
	int p[2], rc;

	rc = srt__bwrap_monitor_policy(pol, &bc->plan.words, &bc->plan.hidden, &bc->plan.pinned_links,
				       &bc->plan.missing_denied, &bc->plan.created,
				       &buf, &len, &flags, diag);
	if (rc)
		return rc;
	for (size_t i = 0; (flags & 4) && i < pol->allow_unix_sockets.n; i++) {
		char note[PATH_MAX + 256];

		snprintf(note, sizeof(note),
			 "Unix socket %s may be connected to <- %s (the violation monitor makes the socket and performs every connect)",
			 pol->allow_unix_sockets.v[i].path, pol->allow_unix_sockets.v[i].origin);
		if (srt__strv_push(&bc->plan.notes, note)) {
			free(buf);
			return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap: out of memory");
		}
	}
	if (pol->allow_all_unix_sockets && flags == 0) {
		free(buf);
		if (bc->early) {
			/* made before the plan said there is nothing to observe */
			bc->unused[bc->n_unused++] = bc->events_wr;
			bc->unused[bc->n_unused++] = bc->policy_fd;
			close(bc->events_rd);
			bc->events_rd = bc->events_wr = bc->policy_fd = -1;
		}
		return SRT_OK;
	}
	if (bc->early) {
		rc = srt__memfd_seal_into(bc->policy_fd, buf, len, "bwrap", "the monitor policy", diag);
		goto out;
	}
	rc = srt__sealed_memfd("srt-monitor-policy", buf, len, "bwrap", "the monitor policy",
			       &bc->policy_fd, diag);
	if (rc)
		goto out;
	if (pipe2(p, O_CLOEXEC) != 0) {
		rc = srt_diag_set(diag, SRT_E_IO, "", "bwrap: events pipe: %s", strerror(errno));
		goto out;
	}
	bc->events_rd = p[0];
	bc->events_wr = p[1];
out:
	free(buf);
	return rc;
}

/* A command's state, with the cleanup guard in place and told what it
 * must remove if srt dies (the run's TMPDIR, the proxy's directory). With
 * early, only the guard's pipe: the guard itself is started by bw_wrap,
 * after the command, which announces itself in that pipe. */
static int cmd_begin(struct srt__bwrap_state *st, struct srt_command *out, struct bwrap_cmd **bcp,
		     int early, struct srt_diag *diag)
{
	const struct srt_policy *pol = st->pol;
	struct bwrap_cmd *bc;
	int rc;

	bc = calloc(1, sizeof(*bc));
	if (!bc)
		return SRT_E_NOMEM;
	bc->info_rd = bc->info_wr = bc->args_fd = -1;
	bc->status_rd = bc->status_wr = -1;
	bc->events_rd = bc->events_wr = bc->policy_fd = -1;
	bc->icept_fd = bc->resolv_fd = -1;
	bc->plan_rd = bc->plan_wr = bc->opts_fd = bc->layer_fd = -1;
	bc->layer.fd = -1;
	out->priv = bc;
	*bcp = bc;
	out->events_fd = -1;
	out->guard_fd = -1;
	out->new_pgrp = 1;

	/* the guard first, told of each placeholder before it exists, so a
	 * srt killed while planning leaves nothing behind. A plan that is
	 * only printed makes no placeholders and runs nothing: no guard. */
	srt__bwrap_guard_adopt(st);
	if (!pol->plan_only) {
		rc = early ? srt__bwrap_guard_open(st, out, diag) : srt__bwrap_guard_start(st, out, diag);
		if (rc)
			return rc;
		st->guard_used = 1;
	}
	st->running++; /* until bw_release */
	bc->counted = 1;
	out->guard_fd = st->guard_fd;
	if (out->orphan_dir && !pol->plan_only) {
		/* the run's own TMPDIR: the guard removes it if srt dies,
		 * while it is still this directory */
		struct stat ts;
		char rec[PATH_MAX + 64];

		if (lstat(out->orphan_dir, &ts) != 0 || !S_ISDIR(ts.st_mode))
			return srt_diag_set(diag, SRT_E_IO, out->orphan_dir,
					    "cleanup guard: the run's temporary directory \"%s\" is gone",
					    out->orphan_dir);
		if ((size_t)snprintf(rec, sizeof(rec), "%llu:%llu:%s", (unsigned long long)ts.st_dev,
				     (unsigned long long)ts.st_ino, out->orphan_dir) >= sizeof(rec))
			return srt_diag_set(diag, SRT_E_LIMIT, out->orphan_dir,
					    "cleanup guard: the run's temporary directory's name is too long");
		rc = srt__bwrap_guard_send(st, 'T', rec, diag);
		if (rc)
			return rc;
	}
	if (pol->proxy_dir && !st->proxy_dir_sent && !st->proxy_dir_foreign && !pol->plan_only) {
		rc = srt__bwrap_guard_send(st, 'D', pol->proxy_dir, diag);
		if (rc)
			return rc;
		st->proxy_dir_sent = 1;
	}
	return SRT_OK;
}

/* bwrap's --info-fd pipe, and the socket the helper reports its start on. */
static int make_channels(struct bwrap_cmd *bc, struct srt_diag *diag)
{
	int p[2], one = 1;

	if (pipe2(p, O_CLOEXEC) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: info pipe: %s", strerror(errno));
	bc->info_rd = p[0];
	bc->info_wr = p[1];
	/* a socket, so the helper's first byte carries its pid (SO_PASSCRED) */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: status socket: %s", strerror(errno));
	bc->status_rd = p[0];
	bc->status_wr = p[1];
	if (setsockopt(bc->status_rd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: status socket credentials: %s",
				    strerror(errno));
	return SRT_OK;
}

static int hand_over(const struct srt__bwrap_state *st, struct bwrap_cmd *bc,
		     const struct srt__strv *w, size_t helper_at, const char *const *argv,
		     struct srt_diag *diag);

/* What bwrap will count against BWRAP_MAX_ARGS, refused here with the
 * reason rather than by bwrap once started. Started early, bwrap's own
 * command line is "--args N -- HELPER --options-fd M -- ARGV" and the
 * socket carries w's words before the helper; otherwise w is its command
 * line, with the mount words in an --args memfd when they were moved
 * there. */
static int check_arg_count(const struct bwrap_cmd *bc, const struct srt__strv *w, size_t helper_at,
			   const char *const *argv, struct srt_diag *diag)
{
	size_t argc = 0, total;

	while (argv[argc])
		argc++;
	if (bc->early)
		total = 7 + argc + (helper_at > 0 ? helper_at - 1 : 0);
	else
		total = w->n - 1 + (bc->args_fd >= 0 ? bc->plan.words.n : 0);
	if (total <= BWRAP_MAX_ARGS)
		return SRT_OK;
	return srt_diag_set(diag, SRT_E_LIMIT, argc > BWRAP_MAX_ARGS / 2 ? "command" : "filesystem",
			    "bubblewrap accepts at most %d arguments, and this sandbox needs %zu "
			    "(%zu of them the command's); pass the command fewer arguments, or narrow the filesystem rules",
			    BWRAP_MAX_ARGS, total, argc);
}

static int bw_wrap(void *state, const char *const *argv, struct srt_command *out,
		   struct srt_diag *diag)
{
	struct srt__bwrap_state *st = state;
	const struct srt_policy *pol = st->pol;
	struct bwrap_cmd *bc = out->priv; /* set: bw_early began this command */
	struct srt__strv w = { 0 };
	size_t i, mount_bytes = 0, helper_at;
	int rc, own_dev;

	if (!bc) {
		rc = cmd_begin(st, out, &bc, 0, diag);
		if (rc)
			return rc;
	} else if ((rc = srt__bwrap_guard_launch(st, out, diag))) {
		/* started early: its guard starts now, before anything is
		 * planned, as it does for any command */
		return rc;
	}
	/* before the mount plan: the planner opens and closes directories,
	 * and closing any descriptor of a placeholder would drop the POSIX
	 * lock the plan keeps on it for concurrent runs. The placeholders it
	 * then makes are denies, which the layer's plan never grants outside
	 * a write root (inside one the mounts enforce them). */
	srt__mandatory_memo_begin(); /* the two plans walk the same roots */
	rc = srt__bwrap_ll_layer(pol, &bc->layer, bc->layer_fd, diag);
	if (rc) {
		srt__mandatory_memo_end();
		return rc;
	}
	if (bc->layer_fd >= 0) {
		if (bc->layer.fd != bc->layer_fd)
			bc->unused[bc->n_unused++] = bc->layer_fd;
		bc->layer_fd = -1; /* the layer's now, or unused */
	}
	if (pol->debug && bc->layer.fd >= 0)
		fprintf(stderr, "[srt debug] landlock layer: applied, %zu rules, ABI %d\n",
			bc->layer.n_rules, bc->layer.abi);
	else if (pol->debug)
		fprintf(stderr, "[srt debug] landlock layer: not applied: %s\n", bc->layer.reason);
	else if (bc->layer.refused)
		/* a layer this kernel has but this policy lost: the mounts
		 * alone do not cover what appears during the run */
		fprintf(stderr, "srt: warning: landlock layer not applied, the mounts enforce the policy alone: %s\n",
			bc->layer.reason);
	rc = srt__bwrap_plan_mounts_ex(pol, &bc->plan, pol->plan_only ? NULL : srt__bwrap_guard_announce, st,
				       helper_can_hide() ? HELPER_HIDE_MAX : 0, diag);
	srt__mandatory_memo_end();
	if (rc)
		return rc;
	if (!pol->plan_only && (rc = srt__bwrap_guard_check(st, diag)))
		return rc;

	if (!bc->early && (rc = make_channels(bc, diag)))
		return rc;

	rc = monitor_setup(pol, bc, diag);
	if (rc)
		return rc;

	rc = SRT_E_NOMEM;
	if (srt__strv_push(&w, st->bwrap) || srt__strv_push(&w, "--new-session") ||
	    srt__strv_push(&w, "--die-with-parent") || srt__strv_push(&w, "--unshare-net"))
		goto fail;

	for (i = 0; i < bc->plan.words.n; i++)
		mount_bytes += strlen(bc->plan.words.v[i]) + 1;
	if (bc->plan.words.n > MAX_ARGS_FILE_WORDS) {
		rc = srt_diag_set(diag, SRT_E_LIMIT, "filesystem",
				  "the mount plan has %zu words (limit %d); narrow the filesystem rules",
				  bc->plan.words.n, MAX_ARGS_FILE_WORDS);
		goto fail;
	}
	/* started early, bwrap reads every option from its --args socket */
	if (!bc->early && (bc->plan.words.n > ARGV_INLINE_WORDS || mount_bytes > ARGV_INLINE_BYTES)) {
		size_t len;
		char *buf;

		buf = join_words(bc->plan.words.v, bc->plan.words.n, &len);
		if (!buf)
			goto fail;
		bc->args_fd = memfd_create("srt-bwrap-args", MFD_CLOEXEC);
		if (bc->args_fd < 0) {
			free(buf);
			rc = srt_diag_set(diag, SRT_E_IO, "", "bwrap: memfd for --args: %s", strerror(errno));
			goto fail;
		}
		if (srt__write_full(bc->args_fd, buf, len)) {
			free(buf);
			rc = srt_diag_set(diag, SRT_E_IO, "", "bwrap: write --args: %s", strerror(errno));
			goto fail;
		}
		free(buf);
		lseek(bc->args_fd, 0, SEEK_SET);
		if (push_fd_words(&w, "--args", bc->args_fd))
			goto fail;
	} else {
		for (i = 0; i < bc->plan.words.n; i++)
			if (srt__strv_push(&w, bc->plan.words.v[i]))
				goto fail;
	}
	if (pol->proxy_dir) {
		/* the proxy's private directory, so the bridge can reach it;
		 * read-only: connecting needs no write access to the mount,
		 * and the command must not replace the socket even where no
		 * Landlock layer stands behind the mounts */
		if (srt__strv_push(&w, "--ro-bind") || srt__strv_push(&w, pol->proxy_dir) ||
		    srt__strv_push(&w, pol->proxy_dir))
			goto fail;
	}
	if (masked_words(pol, &w))
		goto fail;
	if (pol->intercept && pol->proxy_socket) {
		rc = intercept_words(bc, pol, &w, diag);
		if (rc)
			goto fail;
		rc = SRT_E_NOMEM;
	}
	own_dev = srt__bwrap_helper_makes_dev(pol, st->bwrap, helper_can_hide());
	rc = srt__bwrap_process_args(pol, st->bwrap, own_dev, &w, diag);
	if (rc)
		goto fail;
	rc = SRT_E_NOMEM;
	if (push_fd_words(&w, "--info-fd", bc->info_wr))
		goto fail;
	{
		struct srt__helper_fds fds = { bc->status_wr, bc->events_wr, bc->policy_fd,
					      bc->layer.fd, &bc->plan.hidden, own_dev,
					      &bc->plan.pinned_links, NULL, NULL, NULL, NULL, 0,
					      bc->icept_fd, 0, 0 };
		struct srt__strv globs = { 0 };

		/* the watcher mounts with the same kernel interface the
		 * helper hides files with; without it, protected names the
		 * host replaces during the run would lose their cover */
		rc = watch_possible(pol, &bc->plan, diag);
		if (rc)
			goto fail;
		if (helper_can_hide() && !pol->fs_disabled) {
			for (i = 0; i < pol->deny_read.n; i++)
				if ((pol->deny_read.v[i].flags & SRT_RULE_GLOB) &&
				    srt__strv_push(&globs, pol->deny_read.v[i].path)) {
					srt__strv_release(&globs);
					rc = srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory");
					goto fail;
				}
			fds.watch_deny = &bc->plan.watch_deny;
			fds.watch_keep = &bc->plan.watch_keep;
			fds.watch_globs = &globs;
			fds.watch_trees = &bc->plan.watch_trees;
			fds.watch_depth = bc->plan.watch_depth;
		}
		/* the sandbox before the guard for the OOM killer, whoever
		 * spawns bwrap (procargs.h) */
		if (srt__os_oom_target(SRT_GUARD_OOM_RAISE, &fds.oom_min) == 0)
			fds.oom_min_set = 1;
		helper_at = w.n;
		rc = srt__bwrap_helper_args_fds(pol, st->helper, &fds, argv, &w, diag);
		srt__strv_release(&globs);
	}
	if (rc)
		goto fail;

	rc = check_arg_count(bc, &w, helper_at, argv, diag);
	if (rc)
		goto fail;
	for (i = 0; i < bc->plan.notes.n; i++)
		if (!strncmp(bc->plan.notes.v[i], "warning: ", 9))
			fprintf(stderr, "srt: %s\n", bc->plan.notes.v[i]);
	if (pol->debug) {
		fprintf(stderr, "[srt debug] bwrap argv%s:", bc->early ? " (options through --args)" : "");
		for (i = 0; i < w.n; i++)
			fprintf(stderr, " %s", w.v[i]);
		fputc('\n', stderr);
	}
	if (bc->early) {
		out->events_fd = bc->events_rd;
		rc = hand_over(st, bc, &w, helper_at, argv, diag);
		srt__strv_release(&w);
		return rc;
	}
	out->argv = w.v; /* ownership moves to the command */
	out->n_child_fds = 0;
	out->child_fds[out->n_child_fds++] = bc->info_wr;
	out->child_fds[out->n_child_fds++] = bc->status_wr;
	if (bc->args_fd >= 0)
		out->child_fds[out->n_child_fds++] = bc->args_fd;
	if (bc->events_wr >= 0) {
		out->child_fds[out->n_child_fds++] = bc->events_wr;
		out->child_fds[out->n_child_fds++] = bc->policy_fd;
		out->events_fd = bc->events_rd;
	}
	if (bc->layer.fd >= 0)
		out->child_fds[out->n_child_fds++] = bc->layer.fd;
	if (bc->icept_fd >= 0) {
		out->child_fds[out->n_child_fds++] = bc->icept_fd;
		out->child_fds[out->n_child_fds++] = bc->resolv_fd;
	}
	return SRT_OK;
fail:
	srt__strv_release(&w);
	return rc;
}

/* bwrap ended before it made the sandbox: why, as far as srt can tell. */
static int bwrap_ended(const struct srt__bwrap_state *st, struct srt_diag *diag)
{
	int uerr = 0;

	/* guess at namespaces only when they are what fails here */
	if (!srt__bwrap_userns_works(&uerr))
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrap",
				    "bubblewrap could not create the sandbox; %s", srt__bwrap_userns_diagnosis());
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "bwrap",
			    "bubblewrap (%s) ended before it created the sandbox, although user namespaces work here; see its message above, or check bwrapPath",
			    st->bwrap);
}

/* Every byte of buf to a socket whose reader may be gone: common/fdio.h's
 * srt__write_full, but with send(MSG_NOSIGNAL), so a reader gone is EPIPE
 * and never SIGPIPE, which a library's host may not ignore. 0, or -1 with
 * errno (EIO when send sent nothing and said no error). */
static int send_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The plan, into the command bw_early started. w is the argv wrap() would
 * have started: bwrap, its options, "--", the helper, its options, "--",
 * argv. bwrap's options go into its --args socket; then the helper's,
 * with a --close-fd for each descriptor made early that no part of the
 * plan needs, into its memfd, sealed; then the socket is closed, the end
 * of file bwrap waits for. The helper runs nothing from a memfd that is not
 * sealed, so a srt that dies anywhere on the way leaves a bwrap that
 * starts nothing (the spawn's die-with-parent ends it first anyway). */
static int hand_over(const struct srt__bwrap_state *st, struct bwrap_cmd *bc,
		     const struct srt__strv *w, size_t helper_at, const char *const *argv,
		     struct srt_diag *diag)
{
	struct srt__strv ho = { 0 };
	size_t argc = 0, opts_end, i, len;
	char *buf;
	int rc;

	while (argv[argc])
		argc++;
	if (helper_at < 1 || helper_at + 3 + argc > w->n)
		goto bad;
	opts_end = w->n - argc - 1;
	if (strcmp(w->v[helper_at], "--") || strcmp(w->v[opts_end], "--"))
		goto bad;
	for (i = 0; i < argc; i++)
		if (strcmp(w->v[opts_end + 1 + i], argv[i]))
			goto bad;
	for (i = helper_at + 2; i < opts_end; i++)
		if (!strcmp(w->v[i], "--"))
			goto bad;
	buf = join_words(w->v + 1, helper_at - 1, &len);
	if (!buf)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap: out of memory");
	rc = send_full(bc->plan_wr, buf, len);
	free(buf);
	if (rc && (errno == EPIPE || errno == ECONNRESET))
		return bwrap_ended(st, diag);
	if (rc)
		return srt_diag_set(diag, SRT_E_IO, "bwrap", "bwrap: cannot hand bubblewrap its options: %s",
				    strerror(errno));
	for (i = helper_at + 2; i < opts_end; i++)
		if (srt__strv_push(&ho, w->v[i]))
			goto nomem;
	for (i = 0; i < (size_t)bc->n_unused; i++)
		if (push_fd_words(&ho, "--close-fd", bc->unused[i]))
			goto nomem;
	buf = join_words(ho.v, ho.n, &len);
	srt__strv_release(&ho);
	if (!buf)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap: out of memory");
	rc = srt__memfd_seal_into(bc->opts_fd, buf, len, "bwrap", "the helper's options", diag);
	free(buf);
	if (rc)
		return rc;
	/* the end of file bwrap waits for, also when a process the caller
	 * forked meanwhile (a library's host) holds a copy of this end */
	shutdown(bc->plan_wr, SHUT_WR);
	close(bc->plan_wr);
	bc->plan_wr = -1;
	return SRT_OK;
nomem:
	srt__strv_release(&ho);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap: out of memory");
bad:
	return srt_diag_set(diag, SRT_E_INVAL, "", "bwrap: internal error: the planned argv has no helper part to hand over");
}

/* A memfd the helper will read once srt has filled and sealed it. */
static int early_memfd(const char *name, int *fd, struct srt_diag *diag)
{
	*fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*fd < 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: memfd %s: %s", name, strerror(errno));
	return SRT_OK;
}

/* The command started before its plan (the backend's early slot):
 * bwrap --args SOCKET -- srt-linux-init --options-fd MEMFD -- argv, with
 * every descriptor a plan can hand the helper made now, empty. Nothing
 * runs until bw_wrap has planned and handed the plan over (hand_over).
 * Interception's two memfds, whose content does not depend on the plan,
 * are made full and go in srt_command.extra_child_fds. */
static int bw_early(void *state, const char *const *argv, struct srt_command *out,
		    struct srt_diag *diag)
{
	struct srt__bwrap_state *st = state;
	const struct srt_policy *pol = st->pol;
	struct srt__strv w = { 0 };
	struct bwrap_cmd *bc;
	size_t i;
	int p[2], rc;

	if (pol->plan_only || !argv || !argv[0])
		return SRT_E_UNSUPPORTED;
	rc = cmd_begin(st, out, &bc, 1, diag);
	if (rc)
		return rc;
	bc->early = 1;
	if ((rc = make_channels(bc, diag)))
		return rc;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: options socket: %s", strerror(errno));
	bc->plan_rd = p[0];
	bc->plan_wr = p[1];
	if (pipe2(p, O_CLOEXEC) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "bwrap: events pipe: %s", strerror(errno));
	bc->events_rd = p[0];
	bc->events_wr = p[1];
	if ((rc = early_memfd("srt-helper-options", &bc->opts_fd, diag)) ||
	    (rc = early_memfd("srt-monitor-policy", &bc->policy_fd, diag)) ||
	    (!pol->fs_disabled && (rc = early_memfd("srt-landlock-layer", &bc->layer_fd, diag))))
		return rc;
	if (pol->intercept && pol->proxy_socket && (rc = intercept_fds(bc, pol, diag)))
		return rc;
	if (srt__strv_push(&w, st->bwrap) || push_fd_words(&w, "--args", bc->plan_rd) ||
	    srt__strv_push(&w, "--") || srt__strv_push(&w, st->helper) ||
	    push_fd_words(&w, "--options-fd", bc->opts_fd) || srt__strv_push(&w, "--"))
		goto nomem;
	for (i = 0; argv[i]; i++)
		if (srt__strv_push(&w, argv[i]))
			goto nomem;
	out->argv = w.v; /* ownership moves to the command */
	out->n_child_fds = 0;
	out->child_fds[out->n_child_fds++] = bc->info_wr;
	out->child_fds[out->n_child_fds++] = bc->status_wr;
	out->child_fds[out->n_child_fds++] = bc->plan_rd;
	out->child_fds[out->n_child_fds++] = bc->opts_fd;
	out->child_fds[out->n_child_fds++] = bc->events_wr;
	out->child_fds[out->n_child_fds++] = bc->policy_fd;
	if (bc->layer_fd >= 0)
		out->child_fds[out->n_child_fds++] = bc->layer_fd;
	if (bc->icept_fd >= 0) {
		out->extra_child_fds[out->n_extra_child_fds++] = bc->icept_fd;
		out->extra_child_fds[out->n_extra_child_fds++] = bc->resolv_fd;
	}
	/* srt's copy of bwrap's end goes once bwrap has its own: a bwrap
	 * that ends before it reads then fails the send with EPIPE */
	out->close_after_spawn = bc->plan_rd;
	bc->plan_rd = -1;
	return SRT_OK;
nomem:
	srt__strv_release(&w);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap: out of memory");
}

/* bwrap writes {"child-pid": N} on --info-fd once the sandbox exists; EOF
 * before that means bwrap failed to set it up. Then the helper reports on
 * its status socket (read_status): srt reports a failed layer and exits 1
 * instead of passing a helper exit code off as the command's. */
static int read_child_pid(int fd, pid_t *out)
{
	char buf[512];
	size_t have = 0;
	const char *k;

	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		k = strstr(buf, "\"child-pid\"");
		if (k) {
			const char *c = strchr(k + 11, ':');
			if (c) {
				char *end;
				long v = strtol(c + 1, &end, 10);
				if (end != c + 1 && *end && v > 0) {
					*out = (pid_t)v;
					return 0;
				}
			}
		}
		if (have >= sizeof(buf) - 1)
			return -1;
	}
}

/* The helper's status socket: "P" from the outer helper, whose credentials
 * (SO_PASSCRED) give its pid in our namespace, the one forwarded signals go
 * to; then "S" from the worker once every layer is in place, or "E<line>"
 * from whichever step failed. 1: started; 0: a failure, said in err; -1:
 * the helper ended without a word. */
static int read_status(int fd, pid_t *helper, char *err, size_t errlen)
{
	size_t elen = 0;
	int in_error = 0;

	err[0] = '\0';
	for (;;) {
		char buf[512];
		union {
			struct cmsghdr h;
			char space[CMSG_SPACE(sizeof(struct ucred))];
		} ctl;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh;
		struct cmsghdr *c;
		const struct ucred *cred = NULL;
		ssize_t n, i;

		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.space;
		mh.msg_controllen = sizeof(ctl.space);
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return in_error && elen ? 0 : -1;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred)))
				cred = (const struct ucred *)(const void *)CMSG_DATA(c);
		for (i = 0; i < n; i++) {
			if (in_error) {
				if (buf[i] == '\n')
					return 0;
				if (elen + 1 < errlen) {
					err[elen++] = buf[i];
					err[elen] = '\0';
				}
			} else if (buf[i] == 'P' && cred && cred->pid > 0) {
				*helper = cred->pid;
			} else if (buf[i] == 'S' && *helper > 0) {
				return 1;
			} else if (buf[i] == 'E') {
				in_error = 1;
			} else {
				snprintf(err, errlen, "the sandbox helper sent an unexpected status; nothing was run");
				return 0;
			}
		}
	}
}

static int bw_started(void *state, struct srt_command *cmd, pid_t pid,
		      struct srt_diag *diag)
{
	struct bwrap_cmd *bc = cmd->priv;
	char err[600];
	pid_t reaper = 0;

	/* bwrap runs in a process group of its own (cmd->new_pgrp) that the
	 * spawned child announced to the guard before exec (cmd->guard_fd):
	 * if srt is killed from then on, the guard kills that group */
	bc->pgrp = pid;
	if (bc->info_wr >= 0) {
		close(bc->info_wr);
		bc->info_wr = -1;
	}
	if (bc->status_wr >= 0) {
		close(bc->status_wr);
		bc->status_wr = -1;
	}
	/* only the helper may hold the write end: EOF then means it is gone */
	if (bc->events_wr >= 0) {
		close(bc->events_wr);
		bc->events_wr = -1;
	}
	if (bc->policy_fd >= 0) {
		close(bc->policy_fd);
		bc->policy_fd = -1;
	}
	if (bc->icept_fd >= 0) {
		close(bc->icept_fd);
		bc->icept_fd = -1;
	}
	if (bc->resolv_fd >= 0) {
		close(bc->resolv_fd);
		bc->resolv_fd = -1;
	}
	/* --explain ran before this: the helper holds the plan now */
	srt__bwrap_ll_layer_release(&bc->layer);
	early_close(bc);
	/* bwrap's reaper: only a sign that bwrap set the sandbox up */
	if (read_child_pid(bc->info_rd, &reaper) != 0)
		return bwrap_ended(state, diag);
	{
		/* the guard waits for this one to be gone before it sweeps */
		char num[24];
		snprintf(num, sizeof(num), "%ld", (long)reaper);
		srt__bwrap_guard_send(state, 'R', num, NULL);
	}
	switch (read_status(bc->status_rd, &cmd->signal_pid, err, sizeof(err))) {
	case 1:
		return SRT_OK;
	case 0:
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init", "%s", err);
	default:
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "srt-linux-init",
				    "the sandbox helper ended before the command started (see the message above); nothing was run");
	}
}

/* The descriptors only an early start makes: bwrap and the helper hold
 * theirs once the command started, srt needs none of them after that. */
static void early_close(struct bwrap_cmd *bc)
{
	int *fds[] = { &bc->plan_rd, &bc->plan_wr, &bc->opts_fd, &bc->layer_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	for (i = 0; i < (size_t)bc->n_unused; i++)
		close(bc->unused[i]);
	bc->n_unused = 0;
}

static void bw_release(void *state, struct srt_command *cmd)
{
	struct bwrap_cmd *bc = cmd->priv;
	struct srt__bwrap_state *st = state;
	size_t i;

	if (bc && bc->counted) {
		st->running--;
		bc->counted = 0;
	}
	if (st->running == 0 && (st->guard_rd >= 0 || st->guard_gone)) {
		/* a guard pipe whose guard never started (the run failed
		 * before its plan) or ended before it was in place: its
		 * records are this run's, never the next one's, and the next
		 * run starts a guard of its own */
		if (st->guard_rd >= 0)
			close(st->guard_rd);
		close(st->guard_fd);
		st->guard_rd = st->guard_fd = -1;
		st->guard_gone = 0;
		st->guard_used = 0;
		st->proxy_dir_sent = 0;
	}

	if (cmd->argv) {
		for (i = 0; cmd->argv[i]; i++)
			free(cmd->argv[i]);
		free(cmd->argv);
		cmd->argv = NULL;
	}
	if (!bc)
		return;
	if (bc->info_rd >= 0)
		close(bc->info_rd);
	if (bc->info_wr >= 0)
		close(bc->info_wr);
	if (bc->status_rd >= 0)
		close(bc->status_rd);
	if (bc->status_wr >= 0)
		close(bc->status_wr);
	if (bc->args_fd >= 0)
		close(bc->args_fd);
	if (bc->events_rd >= 0)
		close(bc->events_rd);
	if (bc->events_wr >= 0)
		close(bc->events_wr);
	if (bc->policy_fd >= 0)
		close(bc->policy_fd);
	if (bc->icept_fd >= 0)
		close(bc->icept_fd);
	if (bc->resolv_fd >= 0)
		close(bc->resolv_fd);
	srt__bwrap_ll_layer_release(&bc->layer);
	early_close(bc);
	cmd->events_fd = -1;
	/* a command started early announced itself to the guard at its
	 * spawn, also when its plan then failed and it was killed */
	if (bc->pgrp <= 0 && bc->early && cmd->early_pid > 0)
		bc->pgrp = cmd->early_pid;
	if (bc->pgrp > 0) {
		char num[24];
		snprintf(num, sizeof(num), "%ld", (long)bc->pgrp);
		srt__bwrap_guard_send(state, 'k', num, NULL);
	}
	/* the sandbox is gone: links it replaced go back before anything on
	 * the host follows them */
	srt__bwrap_plan_restore_links(&bc->plan.links, stderr);
	srt__bwrap_plan_cleanup(&bc->plan.created);
	srt__bwrap_plan_release(&bc->plan);
	free(bc);
	cmd->priv = NULL;
}

static void print_word(FILE *out, const char *s)
{
	const char *p;
	int plain = *s != '\0';

	for (p = s; *p && plain; p++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@+,-=", *p))
			plain = 0;
	if (plain) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\"'\"'", out);
		else
			fputc(*p, out);
	}
	fputc('\'', out);
}

static int bw_explain(void *state, const struct srt_command *cmd, FILE *out)
{
	const struct srt__bwrap_state *st = state;
	struct bwrap_cmd *bc = cmd->priv;
	size_t i;

	for (i = 0; i < bc->plan.notes.n; i++)
		fprintf(out, "plan: %s\n", bc->plan.notes.v[i]);
	srt__bwrap_ll_layer_explain(&bc->layer, st->pol->plan_only, out);
	fputs("bwrap argv:", out);
	for (i = 0; cmd->argv[i]; i++) {
		fputc(' ', out);
		print_word(out, cmd->argv[i]);
		if (!strcmp(cmd->argv[i], "--args") && bc->args_fd >= 0) {
			size_t j;
			fputs(" (", out);
			for (j = 0; j < bc->plan.words.n; j++) {
				if (j)
					fputc(' ', out);
				print_word(out, bc->plan.words.v[j]);
			}
			fputs(")", out);
		}
	}
	fputc('\n', out);
	return SRT_OK;
}

static void bw_teardown(void *state)
{
	struct srt__bwrap_state *st = state;

	if (!st)
		return;
	srt__bwrap_guard_adopt(st); /* a copy made by fork ends no guard of the other's */
	if (st->guard_rd >= 0) { /* a guard that was never started: no Q */
		close(st->guard_rd);
		st->guard_rd = -1;
		st->guard_gone = 1; /* no Q into a pipe without a reader (SIGPIPE) */
	}
	if (st->guard_fd >= 0) {
		srt__bwrap_guard_send(st, 'Q', NULL, NULL);
		close(st->guard_fd); /* EOF after Q: the guard just exits */
	}
	srt__bwrap_guard_check(st, NULL);
	free(st);
}

const struct srt_backend srt_backend_entry = {
	.hdr = SRT__BACKEND_HEADER("linux-bwrap"),
	.caps = SRT_CAP_FILESYSTEM | SRT_CAP_NETNS | SRT_CAP_PROXY | SRT_CAP_SECCOMP | SRT_CAP_PIDNS |
		SRT_CAP_MASKED_FILES |
		SRT_CAP_INTERCEPT,
	.probe = bw_probe,
	.prepare = bw_prepare,
	.wrap = bw_wrap,
	.started = bw_started,
	.release = bw_release,
	.explain = bw_explain,
	.teardown = bw_teardown,
	.diagnose = bw_diagnose,
	.early = bw_early,
};
