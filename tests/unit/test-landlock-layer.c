/* The Landlock layer of linux-bwrap (backends/linux-bwrap/layer.c) and the
 * shared replay (backends/linux-common/landlock-replay.c), outside bwrap:
 *  - the control: a process that owns its user and mount namespaces can
 *    remove the tmpfs that masks a denied directory and read the secret
 *    (mounts alone do not hold against it);
 *  - with the layer replayed, the same process cannot unmount the mask,
 *    and even with no mask at all Landlock refuses the secret while the
 *    rest of the policy (reads, the write root) works;
 *  - srt-landlock-exec's mode refuses the layer's "here" records.
 * Each case runs in its own forked process. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux-bwrap/layer.h"
#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/landlock-replay.h"
#include "tests/unit/tap.h"

static char top[64], secret_dir[128], secret[160], other[160], root[128], outside[128];

static int write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	chmod(path, mode);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* 1: the file's first line is the secret; 0: it is not; -errno: no read */
static int reads_secret(void)
{
	char buf[64] = "";
	int fd = open(secret, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && !strncmp(buf, "SECRET", 6);
}

static int own_namespaces_with_mask(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	return mount("none", secret_dir, "tmpfs", 0, NULL);
}

static int replay(int fd, unsigned flags, char *why, size_t whylen)
{
	struct srt__ll_replay p;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	srt__ll_replay_init(&p);
	rc = srt__ll_replay_read(&p, fd, &buf, &len);
	if (!rc)
		rc = srt__ll_replay_build(&p, buf, len, flags);
	if (!rc && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		rc = -1;
	if (!rc)
		rc = srt__ll_replay_restrict(&p);
	if (rc && why)
		snprintf(why, whylen, "%s: %s", p.step, p.why);
	srt__ll_replay_release(&p);
	free(buf);
	return rc;
}

static int run_child(int (*fn)(int), int arg)
{
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* exit 0: the mask hid the secret, umount worked, the secret was read */
static int control_attack(int unused)
{
	(void)unused;
	if (own_namespaces_with_mask() != 0)
		return 10;
	if (reads_secret() != -ENOENT)
		return 11;
	if (umount2(secret_dir, 0) != 0)
		return 12;
	return reads_secret() == 1 ? 0 : 13;
}

/* exit 0: under the layer umount is refused and the secret stays hidden */
static int layered_attack(int fd)
{
	if (own_namespaces_with_mask() != 0)
		return 10;
	if (replay(fd, SRT_LL_REPLAY_HERE, NULL, 0) != 0)
		return 11;
	if (umount2(secret_dir, MNT_DETACH) == 0 || errno != EPERM)
		return 12;
	if (mount("none", secret_dir, "tmpfs", 0, NULL) == 0 || errno != EPERM)
		return 13;
	return reads_secret() == 1 ? 14 : 0;
}

/* exit 0: no mask at all, Landlock alone refuses the secret and keeps
 * the rest of the policy working */
static int layer_alone(int fd)
{
	char path[256];
	int wfd;

	if (replay(fd, SRT_LL_REPLAY_HERE, NULL, 0) != 0)
		return 10;
	if (reads_secret() != -EACCES)
		return 11;
	wfd = open(other, O_RDONLY | O_CLOEXEC);
	if (wfd < 0)
		return 12;
	close(wfd);
	snprintf(path, sizeof(path), "%s/new", root);
	if (write_text(path, "made", 0644) != 0)
		return 13;
	snprintf(path, sizeof(path), "%s/new", outside);
	if (write_text(path, "no", 0644) == 0 || errno != EACCES)
		return 14;
	/* directories stay listable, the denied one included (the mounts
	 * show an empty tmpfs there) */
	wfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (wfd < 0)
		return 15;
	close(wfd);
	return 0;
}

/* exit 0: the plan with "here" records is refused without the flag */
static int exec_mode_refuses_here(int fd)
{
	char why[600] = "";

	if (replay(fd, 0, why, sizeof(why)) == 0)
		return 10;
	return strstr(why, "unknown record \"here\"") ? 0 : 11;
}

/* the layer planned for a policy with a denied directory, then each
 * attack on it in its own child (run_child) */
static void case_layer(void)
{
	struct srt_rule deny = { secret_dir, 0, "filesystem.denyRead[0]" };
	struct srt_rule allow = { root, 0, "filesystem.allowWrite[0]" };
	struct srt_policy pol;
	struct srt__ll_layer layer;
	struct srt_diag diag;
	int rc, userns;

	memset(&pol, 0, sizeof(pol));
	memset(&diag, 0, sizeof(diag));
	pol.cwd = root;
	pol.deny_read.v = &deny;
	pol.deny_read.n = 1;
	pol.allow_write.v = &allow;
	pol.allow_write.n = 1;
	pol.mandatory_deny_depth = 3;
	pol.allow_nested_userns = 1;
	rc = srt__bwrap_ll_layer(&pol, &layer, -1, &diag);
	ok(rc == 0, "the layer plans (%s)", rc ? diag.message : "ok");

	if (srt__ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 3) {
		ok(layer.fd < 0 && contains(layer.reason, "Landlock"),
		   "no usable Landlock: not applied, with the reason (%s)", layer.reason);
		printf("ok 3 # SKIP the kernel offers no Landlock ABI 3\n");
		tap_n++;
		goto out;
	}
	ok(layer.fd >= 0 && layer.n_rules > 0, "the layer is applied: %zu rules (%s)", layer.n_rules,
	   layer.fd >= 0 ? "sealed memfd" : layer.reason);
	if (layer.fd < 0)
		goto out;
	ok(fcntl(layer.fd, F_GET_SEALS) == (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE),
	   "the plan's memfd is sealed");

	userns = run_child(control_attack, 0);
	if (userns == 10) {
		printf("ok %d # SKIP no user namespaces here\n", ++tap_n);
		printf("ok %d # SKIP no user namespaces here\n", ++tap_n);
	} else {
		ok(userns == 0, "control: without the layer the mask is removed and the secret read (%d)",
		   userns);
		rc = run_child(layered_attack, layer.fd);
		ok(rc == 0, "with the layer: umount and mount refused (EPERM), the secret stays hidden (%d)",
		   rc);
	}
	rc = run_child(layer_alone, layer.fd);
	ok(rc == 0, "with no mask at all Landlock refuses the secret; reads, the write root, "
	   "listing work; writes elsewhere refused (%d)", rc);
	rc = run_child(exec_mode_refuses_here, layer.fd);
	ok(rc == 0, "srt-landlock-exec's mode refuses the layer's \"here\" records (%d)", rc);

	/* the planner's refusal: a denied file with a second hard link runs
	 * without the layer (the mounts enforce it), and says why */
	{
		struct srt_rule hl = { other, 0, "filesystem.denyRead[0]" };
		struct srt_policy p2 = pol;
		struct srt__ll_layer l2;
		char link_path[256];

		snprintf(link_path, sizeof(link_path), "%s/other-link", outside);
		p2.deny_read.v = &hl;
		if (link(other, link_path) != 0) {
			printf("ok %d # SKIP link: %s\n", ++tap_n, strerror(errno));
		} else {
			memset(&diag, 0, sizeof(diag));
			rc = srt__bwrap_ll_layer(&p2, &l2, -1, &diag);
			ok(rc == 0 && l2.fd < 0 && contains(l2.reason, "hard links"),
			   "a rule Landlock cannot express: not applied, not refused (%s)", l2.reason);
			srt__bwrap_ll_layer_release(&l2);
		}
	}
out:
	srt__bwrap_ll_layer_release(&layer);
}

/* A write root named through a symbolic link in a writable directory (one
 * a sandboxed run could have planted, or flips while srt plans) gets no
 * grant at the link's target: the mounts leave such a rule out, and the
 * layer used to grant the target anyway, so a link flipped while bwrap
 * bound the root left a writable door outside (0920 #78 in CI). */
static void case_planted_write_root(void)
{
	char link_path[256], real[PATH_MAX], *buf = NULL;
	struct srt_rule allow[2] = { { root, 0, "filesystem.allowWrite[0]" },
				     { link_path, 0, "filesystem.allowWrite[1]" } };
	struct srt_policy pol;
	struct srt__ll_layer layer;
	struct srt_diag diag;
	struct stat st;
	int rc;

	snprintf(link_path, sizeof(link_path), "%s/out", root);
	if (symlink(outside, link_path) != 0) {
		printf("ok %d # SKIP symlink: %s\n", ++tap_n, strerror(errno));
		return;
	}
	memset(&pol, 0, sizeof(pol));
	memset(&diag, 0, sizeof(diag));
	pol.cwd = root;
	pol.allow_write.v = allow;
	pol.allow_write.n = 2;
	pol.mandatory_deny_depth = 3;
	ok(srt__ll_allow_real(&pol, link_path, real, NULL) == 1,
	   "a write root through a link in a write root is not a place to grant");
	ok(srt__ll_allow_real(&pol, root, real, NULL) == 0 && !strcmp(real, root),
	   "a write root without links is (%s)", real);
	{
		struct stat want, got;

		ok(srt__ll_allow_real(&pol, root, real, &got) == 0 && stat(root, &want) == 0 &&
			   got.st_dev == want.st_dev && got.st_ino == want.st_ino && S_ISDIR(got.st_mode),
		   "and its status is the directory's own");
	}
	rc = srt__bwrap_ll_layer(&pol, &layer, -1, &diag);
	if (rc == 0 && layer.fd < 0) {
		printf("ok %d # SKIP no layer here: %s\n", ++tap_n, layer.reason);
		goto out;
	}
	if (rc == 0 && fstat(layer.fd, &st) == 0 && (buf = calloc(1, (size_t)st.st_size + 1)) &&
	    pread(layer.fd, buf, (size_t)st.st_size, 0) == st.st_size) {
		char needle[300];

		/* records end with a NUL: a rule's last field is its path */
		snprintf(needle, sizeof(needle), " %s", outside);
		ok(!memmem(buf, (size_t)st.st_size, needle, strlen(needle) + 1),
		   "the layer grants nothing at the link's target %s", outside);
	} else {
		ok(0, "the layer plans and can be read (%s)", rc ? diag.message : strerror(errno));
	}
out:
	free(buf);
	srt__bwrap_ll_layer_release(&layer);
	unlink(link_path);
}

/* A link in a directory this user owns but has made read-only is one a
 * sandboxed run could have planted all the same: its owner may chmod the
 * directory back whenever, so a run that could write there plants the
 * link and drops the write bit to hide it (red team). The check used to
 * ask only whether the directory was writable now. As root the directory
 * is given to nobody, and the check runs as nobody. */
static void case_readonly_own_dir(void)
{
	char d[] = "/tmp/srt-llro-XXXXXX", t[] = "/tmp/srt-llrt-XXXXXX", lp[300];
	int st = 0;
	pid_t pid;

	if (!mkdtemp(d) || !mkdtemp(t)) {
		printf("ok %d # SKIP mkdtemp: %s\n", ++tap_n, strerror(errno));
		return;
	}
	snprintf(lp, sizeof(lp), "%s/out", d);
	if (chmod(t, 0755) != 0 || symlink(t, lp) != 0 ||
	    (geteuid() == 0 && (chown(d, 65534, 65534) != 0 || lchown(lp, 65534, 65534) != 0)) ||
	    chmod(d, 0555) != 0) {
		printf("ok %d # SKIP setting up: %s\n", ++tap_n, strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		struct srt_rule allow[1] = { { lp, 0, "filesystem.allowWrite[0]" } };
		struct srt_policy pol;
		char real[PATH_MAX];
		int k;

		if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		if (access(d, W_OK) == 0)
			_exit(4); /* the case needs a directory not writable now */
		memset(&pol, 0, sizeof(pol));
		pol.cwd = "/";
		pol.allow_write.v = allow;
		pol.allow_write.n = 1;
		k = srt__ll_allow_real(&pol, lp, real, NULL);
		_exit(k == 1 ? 0 : 11 + k); /* 10: unresolved, 11: granted */
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "a write root through a link in a read-only directory of this user's is not a place to "
	   "grant (status %d; 11: granted)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
out:
	chmod(d, 0700);
	unlink(lp);
	rmdir(d);
	rmdir(t);
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/srt-ll-layer.XXXXXX");
	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	chmod(top, 0755);
	snprintf(secret_dir, sizeof(secret_dir), "%s/home-secret", top);
	snprintf(secret, sizeof(secret), "%s/id", secret_dir);
	snprintf(other, sizeof(other), "%s/other", top);
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(outside, sizeof(outside), "%s/outside", top);
	/* world-readable: in a namespace that maps nobody only the sandbox
	 * may be what refuses */
	if (mkdir(secret_dir, 0755) || mkdir(root, 0755) || mkdir(outside, 0777) ||
	    chmod(outside, 0777) || write_text(secret, "SECRET\n", 0644) ||
	    write_text(other, "other\n", 0644)) {
		printf("Bail out! set up %s: %s\n", top, strerror(errno));
		return 1;
	}

	TAP_RUN(case_layer);
	TAP_RUN(case_planted_write_root);
	TAP_RUN(case_readonly_own_dir);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", top);
	}
	return tap_done();
}
