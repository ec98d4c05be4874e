/* The worker's seccomp filter (backends/linux-common/seccomp.c): each
 * case forks, installs the filter exactly as the worker does (no_new_privs,
 * then srt__seccomp_install), makes one raw syscall and reports its errno.
 *
 * Arguments are chosen so the kernel itself would answer something other
 * than EPERM (a bad fd gives EBADF, a missing target ENOENT, ...): an EPERM
 * can only come from the filter. Control cases run the same syscall with
 * no filter to show the harness tells the two apart. Children first enter
 * a new user+mount namespace where they can (so mount-family calls would
 * succeed or fail for a reason other than missing privilege). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>

#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/netfilter.h"
#include "tests/unit/tap.h"

#define HI_NOISE ((unsigned long)(UINT64_C(1) << 32))

/* load the filter through srt__seccomp_export and srt__seccomp_load_prebuilt
 * instead of srt__seccomp_install: every case runs both ways */
static int use_export;

#define NO_FILTER (-1)
#define DEFAULT 0
#define ALLOW_UNIX SRT_SECCOMP_ALLOW_UNIX
#define ALLOW_USERNS SRT_SECCOMP_ALLOW_USERNS
#define ALLOW_BOTH (SRT_SECCOMP_ALLOW_UNIX | SRT_SECCOMP_ALLOW_USERNS)

/* Result of one case: the errno (0 = success), or the signal that killed
 * the child (sig != 0), or a setup failure (setup != 0). */
struct result {
	int err, sig, setup;
};

static long wrap_clone(unsigned long flags)
{
	long pid;
#if defined(__s390__) || defined(__s390x__)
	pid = syscall(SYS_clone, 0, flags | SIGCHLD);
#else
	pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
#endif
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long do_socket_unix(void) { return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0); }
static long do_socket_unix_hi(void)
{
	return syscall(SYS_socket, (unsigned long)AF_UNIX | HI_NOISE, SOCK_STREAM, 0);
}
static long do_socket_unix_dgram(void) { return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0); }
static long do_socket_vsock(void) { return syscall(SYS_socket, AF_VSOCK, SOCK_STREAM, 0); }
static long do_socket_inet(void) { return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0); }
static long do_socketpair(void)
{
	int sv[2];
	return syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv);
}
static long do_socketpair_seqpacket(void)
{
	int sv[2];
	return syscall(SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}
static long do_socketpair_dgram(void)
{
	int sv[2];
	return syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv);
}
static long do_socketpair_dgram_hi(void)
{
	int sv[2];
	return syscall(SYS_socketpair, (unsigned long)AF_UNIX | HI_NOISE,
		       (unsigned long)SOCK_DGRAM | HI_NOISE, 0, sv);
}
static long do_socketpair_raw(void)
{
	int sv[2];
	return syscall(SYS_socketpair, AF_UNIX, SOCK_RAW, 0, sv);
}
static long do_uring_setup(void)
{
	unsigned char params[120];
	memset(params, 0, sizeof(params));
	/* entries 0 is EINVAL for the kernel */
	return syscall(425, 0, params);
}
static long do_uring_enter(void) { return syscall(426, -1, 0, 0, 0, NULL, 0); }
static long do_uring_register(void) { return syscall(427, -1, 0, NULL, 0); }
static long do_unshare_user(void) { return syscall(SYS_unshare, CLONE_NEWUSER); }
static long do_unshare_ns(void) { return syscall(SYS_unshare, CLONE_NEWNS); }
static long do_unshare_extra(void) { return syscall(SYS_unshare, 0x00100000); }
static long do_unshare_none(void) { return syscall(SYS_unshare, 0); }
static long do_clone_user(void) { return wrap_clone(CLONE_NEWUSER); }
static long do_clone_ns(void) { return wrap_clone(CLONE_NEWNS); }
static long do_clone_plain(void) { return wrap_clone(0); }
static long do_clone3(void)
{
	uint64_t args[11];
	long pid;

	memset(args, 0, sizeof(args));
	args[4] = SIGCHLD;
	pid = syscall(435, args, 88);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}
static long do_mount(void)
{
	return syscall(SYS_mount, "none", "/nonexistent/srt-test", "tmpfs", 0, NULL);
}
static long do_umount2(void) { return syscall(SYS_umount2, "/nonexistent/srt-test", 0); }
static long do_pivot_root(void)
{
	return syscall(SYS_pivot_root, "/nonexistent/srt-a", "/nonexistent/srt-b");
}
static long do_setns(void) { return syscall(SYS_setns, -1, 0); }
static long do_open_tree(void) { return syscall(428, AT_FDCWD, "/nonexistent/srt-test", 0); }
static long do_move_mount(void) { return syscall(429, -1, "", -1, "", 0); }
static long do_fsopen(void) { return syscall(430, "srt-no-such-fs", 0); }
static long do_fsconfig(void) { return syscall(431, -1, 0, NULL, NULL, 0); }
static long do_fsmount(void) { return syscall(432, -1, 0, 0); }
static long do_fspick(void) { return syscall(433, -1, "", 0); }
static long do_mount_setattr(void) { return syscall(442, -1, "", 0, NULL, 0); }
static long do_open_tree_attr(void) { return syscall(467, -1, "srt-test", 0, NULL, 0); }
static long do_tiocsti(void)
{
	char c = '#';
	return syscall(SYS_ioctl, -1, TIOCSTI, &c);
}
static long do_tiocsti_hi(void)
{
	char c = '#';
	return syscall(SYS_ioctl, -1, (unsigned long)TIOCSTI | HI_NOISE, &c);
}
static long do_tioclinux(void)
{
	char sub = 12;
	return syscall(SYS_ioctl, -1, TIOCLINUX, &sub);
}
static long do_tcgets(void)
{
	char buf[64];
	return syscall(SYS_ioctl, -1, 0x5401 /* TCGETS */, buf);
}
#if defined(__x86_64__)
static long do_x32(void) { return syscall(0x40000000 | SYS_getpid); }
/* An i386 getpid through int 0x80: another architecture for seccomp. */
static long do_int80(void)
{
	long ret = 20; /* __NR_getpid on i386 */
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}
#endif

/* Enter a user+mount namespace with our own ids mapped where the host
 * allows it; root already has the privilege and only needs the mount ns.
 * Best effort: without it the mount-family cases still hold, they are just
 * less telling. */
static void become_privileged(void)
{
	char buf[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int fd;

	if (uid == 0) {
		if (unshare(CLONE_NEWNS) == 0)
			mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		return;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return;
	fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "deny", 4) < 0)
			return;
		close(fd);
	}
	snprintf(buf, sizeof(buf), "%u %u 1", (unsigned)uid, (unsigned)uid);
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, buf, strlen(buf)) < 0)
			return;
		close(fd);
	}
	snprintf(buf, sizeof(buf), "%u %u 1", (unsigned)gid, (unsigned)gid);
	fd = open("/proc/self/gid_map", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, buf, strlen(buf)) < 0)
			return;
		close(fd);
	}
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static struct result run(int flags, long (*fn)(void))
{
	struct result r = { 0, 0, 0 };
	int p[2], st, msg[2] = { 0, 0 };
	pid_t pid;

	if (pipe(p) != 0) {
		r.setup = errno;
		return r;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		r.setup = errno;
		return r;
	}
	if (pid == 0) {
		char step[128];
		long rc;

		close(p[0]);
		alarm(10);
		become_privileged();
		if (flags != NO_FILTER) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
				msg[1] = errno;
				goto report;
			}
			if (use_export) {
				/* built ahead and handed over, as the outer
				 * helper does for the worker */
				struct srt__seccomp_prebuilt pb;
				int e[2];

				step[0] = 0;
				if (pipe(e) != 0 || srt__seccomp_export(0, (unsigned)flags, e[1], step, sizeof(step)) != 0 ||
				    srt__seccomp_read_prebuilt(e[0], &pb) != 0 || pb.flags != (unsigned)flags ||
				    pb.n_obs != 0) {
					fprintf(stderr, "# export failed at %s\n", step);
					msg[1] = EIO;
					goto report;
				}
				rc = srt__seccomp_load_prebuilt(&pb, step, sizeof(step));
			} else {
				rc = srt__seccomp_install((unsigned)flags, step, sizeof(step));
			}
			if (rc < 0) {
				fprintf(stderr, "# install failed at %s\n", step);
				msg[1] = (int)-rc;
				goto report;
			}
		}
		errno = 0;
		rc = fn();
		msg[0] = rc < 0 ? errno : 0;
report:
		if (write(p[1], msg, sizeof(msg)) < 0)
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		msg[0] = -1;
	close(p[0]);
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		r.sig = WTERMSIG(st);
	r.err = msg[0];
	r.setup = msg[1];
	return r;
}

static void expect(const char *what, int flags, long (*fn)(void), int want)
{
	struct result r = run(flags, fn);

	ok(!r.sig && !r.setup && r.err == want, "%s: %s (got %s%s, signal %d)", what,
	   want ? strerror(want) : "allowed", r.setup ? "setup failure: " : "",
	   r.setup ? strerror(r.setup) : (r.err ? strerror(r.err) : "success"), r.sig);
}

/* The filter must not be what answered: anything but want_not. */
static void expect_not(const char *what, int flags, long (*fn)(void), int want_not)
{
	struct result r = run(flags, fn);

	ok(!r.sig && !r.setup && r.err != want_not, "%s: not %s (got %s, signal %d)", what,
	   strerror(want_not), r.err ? strerror(r.err) : "success", r.sig);
}

static void expect_signal(const char *what, int flags, long (*fn)(void), int sig)
{
	struct result r = run(flags, fn);

	ok(r.sig == sig, "%s: killed by signal %d (got signal %d, %s)", what, sig, r.sig,
	   r.err ? strerror(r.err) : "success");
}

static void case_controls(void)
{
	/* controls: without the filter the kernel answers differently */
	expect("control: socket(AF_UNIX) without filter", NO_FILTER, do_socket_unix, 0);
	expect("control: socketpair(AF_UNIX, DGRAM) without filter", NO_FILTER, do_socketpair_dgram, 0);
	expect("control: ioctl(-1, TIOCSTI) without filter", NO_FILTER, do_tiocsti, EBADF);
	expect("control: setns(-1) without filter", NO_FILTER, do_setns, EBADF);
	expect("control: io_uring_enter(-1) without filter", NO_FILTER, do_uring_enter, EBADF);
	expect("control: unshare(0x100000) without filter", NO_FILTER, do_unshare_extra, EINVAL);
	expect("control: clone3 without filter", NO_FILTER, do_clone3, 0);
}

static void case_default_unix_sockets(void)
{
	/* default filter: unix sockets */
	expect("socket(AF_UNIX, STREAM)", DEFAULT, do_socket_unix, EPERM);
	expect("socket(AF_UNIX, DGRAM)", DEFAULT, do_socket_unix_dgram, EPERM);
	expect("socket(AF_UNIX | high bits): compared on 32 bits", DEFAULT, do_socket_unix_hi, EPERM);
	expect("socket(AF_VSOCK)", DEFAULT, do_socket_vsock, EPERM);
	expect("socket(AF_INET) still works", DEFAULT, do_socket_inet, 0);
	expect("socketpair(AF_UNIX) still works", DEFAULT, do_socketpair, 0);
	expect("socketpair(AF_UNIX, SEQPACKET) still works", DEFAULT, do_socketpair_seqpacket, 0);
	expect("socketpair(AF_UNIX, DGRAM): a datagram end reaches host paths", DEFAULT,
	       do_socketpair_dgram, EPERM);
	expect("socketpair(AF_UNIX | high bits, DGRAM | high bits)", DEFAULT, do_socketpair_dgram_hi, EPERM);
	expect("socketpair(AF_UNIX, RAW): AF_UNIX makes it a datagram pair", DEFAULT, do_socketpair_raw, EPERM);
	expect("io_uring_setup", DEFAULT, do_uring_setup, EPERM);
	expect("io_uring_enter", DEFAULT, do_uring_enter, EPERM);
	expect("io_uring_register", DEFAULT, do_uring_register, EPERM);
}

static void case_default_namespaces(void)
{
	static const struct {
		const char *name;
		long (*fn)(void);
	} mount_family[] = {
		{ "mount", do_mount },
		{ "umount2", do_umount2 },
		{ "pivot_root", do_pivot_root },
		{ "setns", do_setns },
		{ "open_tree", do_open_tree },
		{ "move_mount", do_move_mount },
		{ "fsopen", do_fsopen },
		{ "fsconfig", do_fsconfig },
		{ "fsmount", do_fsmount },
		{ "fspick", do_fspick },
		{ "mount_setattr", do_mount_setattr },
		{ "open_tree_attr", do_open_tree_attr },
	};
	size_t i;

	/* default filter: namespaces and mounts */
	for (i = 0; i < sizeof(mount_family) / sizeof(mount_family[0]); i++)
		expect(mount_family[i].name, DEFAULT, mount_family[i].fn, EPERM);
	expect("unshare(CLONE_NEWUSER)", DEFAULT, do_unshare_user, EPERM);
	expect("unshare(CLONE_NEWNS)", DEFAULT, do_unshare_ns, EPERM);
	expect("unshare(0x100000) as the reference", DEFAULT, do_unshare_extra, EPERM);
	expect("unshare(0) still works", DEFAULT, do_unshare_none, 0);
	expect("clone(CLONE_NEWUSER)", DEFAULT, do_clone_user, EPERM);
	expect("clone(CLONE_NEWNS)", DEFAULT, do_clone_ns, EPERM);
	expect("plain clone (fork) still works", DEFAULT, do_clone_plain, 0);
	expect("clone3: ENOSYS so libc falls back to clone", DEFAULT, do_clone3, ENOSYS);
}

static void case_default_terminal(void)
{
	/* default filter: terminal injection */
	expect("ioctl(TIOCSTI)", DEFAULT, do_tiocsti, EPERM);
	expect("ioctl(TIOCSTI | high bits): compared on 32 bits", DEFAULT, do_tiocsti_hi, EPERM);
	expect("ioctl(TIOCLINUX)", DEFAULT, do_tioclinux, EPERM);
	expect("other ioctls reach the kernel", DEFAULT, do_tcgets, EBADF);
}

static void case_other_abis(void)
{
#if defined(__x86_64__)
	expect_signal("x32 syscall number: process killed", DEFAULT, do_x32, SIGSYS);
	{
		struct result c = run(NO_FILTER, do_int80);
		if (c.sig || c.setup || c.err) {
			printf("ok %d # SKIP no i386 syscall entry on this kernel\n", ++tap_n);
		} else {
			expect_signal("i386 syscall (int 0x80): process killed", DEFAULT, do_int80, SIGSYS);
		}
	}
#else
	printf("ok %d # SKIP x32/i386 checks are x86_64 only\n", ++tap_n);
	printf("ok %d # SKIP x32/i386 checks are x86_64 only\n", ++tap_n);
#endif
}

static void case_allow_unix(void)
{
	/* allowAllUnixSockets: the socket and io_uring rules are gone, the
	 * others stay */
	expect("allowAllUnixSockets: socket(AF_UNIX) works", ALLOW_UNIX, do_socket_unix, 0);
	expect("allowAllUnixSockets: socketpair(AF_UNIX, DGRAM) works", ALLOW_UNIX, do_socketpair_dgram, 0);
	expect_not("allowAllUnixSockets: io_uring_enter reaches the kernel", ALLOW_UNIX,
		   do_uring_enter, EPERM);
	expect("allowAllUnixSockets: setns still filtered", ALLOW_UNIX, do_setns, EPERM);
	expect("allowAllUnixSockets: TIOCSTI still filtered", ALLOW_UNIX, do_tiocsti, EPERM);
}

static void case_allow_userns(void)
{
	/* allowNestedUserNamespaces: the namespace rules are gone */
	expect("allowNestedUserNamespaces: setns reaches the kernel", ALLOW_USERNS, do_setns, EBADF);
	expect("allowNestedUserNamespaces: unshare(0x100000) reaches the kernel", ALLOW_USERNS,
	       do_unshare_extra, EINVAL);
	expect("allowNestedUserNamespaces: clone3 works", ALLOW_USERNS, do_clone3, 0);
	expect("allowNestedUserNamespaces: socket(AF_UNIX) still filtered", ALLOW_USERNS,
	       do_socket_unix, EPERM);
	expect("both allowed: TIOCSTI still filtered", ALLOW_BOTH, do_tiocsti, EPERM);
	expect("both allowed: socket(AF_UNIX) works", ALLOW_BOTH, do_socket_unix, 0);
}

/* The observe filter built ahead: its program comes back whole, and loads
 * with a listener in a child. */
static void case_export_observer(void)
{
	struct srt__seccomp_prebuilt pb;
	char step[128] = "";
	int e[2], st = 0, lfd = -1;
	pid_t pid;

	if (srt__seccomp_notify_supported(step, sizeof(step)) != 0) {
		for (int i = 0; i < 2; i++) {
			tap_n++;
			printf("ok %d # SKIP no user notifications on this kernel\n", tap_n);
		}
		return;
	}
	ok(pipe(e) == 0 && srt__seccomp_export(SRT_OBSERVE_WRITES | SRT_OBSERVE_UNIX, SRT_SECCOMP_UNIX_OBSERVED,
					       e[1], step, sizeof(step)) == 0 &&
		   srt__seccomp_read_prebuilt(e[0], &pb) == 0 && pb.n_obs > 0 && pb.n_enf > 0 &&
		   pb.observe == (SRT_OBSERVE_WRITES | SRT_OBSERVE_UNIX) && pb.flags == SRT_SECCOMP_UNIX_OBSERVED,
	   "observe and enforcement programs built ahead come back whole (%s)", step);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    srt__seccomp_load_observer_prebuilt(&pb, &lfd, step, sizeof(step)) != 0 || lfd < 0 ||
		    !(fcntl(lfd, F_GETFD) & FD_CLOEXEC) || srt__seccomp_load_prebuilt(&pb, step, sizeof(step)) != 0)
			_exit(1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the observe program loads with a close-on-exec listener, "
	   "then the enforcement program");
	srt__seccomp_prebuilt_free(&pb);
}

/* Every program compiled into the helpers (seccomp-tables.c, written by
 * seccomp-gen at build time) is the one libseccomp builds now for the same
 * flags, instruction for instruction, and none is missing: the cases above
 * load the compiled ones (srt__seccomp_install uses them), so what they
 * prove holds for what libseccomp would have built too. */
static void case_built_programs(void)
{
	static const struct {
		int kind;
		const char *what;
		unsigned first, end;
	} kinds[] = {
		{ SRT_SECCOMP_KIND_ENFORCE, "enforcement", 0, SRT_SECCOMP_ENFORCE_COMBINATIONS },
		{ SRT_SECCOMP_KIND_OBSERVE, "observe", 1, SRT_SECCOMP_OBSERVE_COMBINATIONS },
		{ SRT_SECCOMP_KIND_SUPERVISOR, "write supervisor", 0, SRT_SECCOMP_SUPERVISOR_COMBINATIONS },
		{ SRT_SECCOMP_KIND_LL_NET, "linux-landlock network", 0, SRT_SECCOMP_LL_NET_COMBINATIONS },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (unsigned bits = kinds[k].first; bits < kinds[k].end; bits++) {
			const struct srt__seccomp_program *b = srt__seccomp_program_built(kinds[k].kind, bits);
			struct sock_filter *prog = NULL;
			uint32_t n = 0;
			char step[128] = "";
			int rc = kinds[k].kind == SRT_SECCOMP_KIND_LL_NET ?
					 srt__ll_seccomp_build_program(bits, &prog, &n, step, sizeof(step)) :
					 srt__seccomp_build_program(kinds[k].kind, bits, &prog, &n, step, sizeof(step));

			ok(rc == 0 && b && b->n == n && memcmp(b->prog, prog, n * sizeof(*prog)) == 0,
			   "%s filter, flags %#x: the program built with srt (%u instructions) is libseccomp's "
			   "(%u, rc %d %s)",
			   kinds[k].what, bits, b ? (unsigned)b->n : 0, (unsigned)n, rc, step);
			free(prog);
		}
	}
	ok(!srt__seccomp_program_built(SRT_SECCOMP_KIND_OBSERVE, 0) &&
		   !srt__seccomp_program_built(SRT_SECCOMP_KIND_ENFORCE, SRT_SECCOMP_ENFORCE_COMBINATIONS) &&
		   !srt__seccomp_program_built(SRT_SECCOMP_KIND_SUPERVISOR, SRT_SECCOMP_SUPERVISOR_COMBINATIONS) &&
		   !srt__seccomp_program_built(SRT_SECCOMP_KIND_LL_NET, SRT_SECCOMP_LL_NET_COMBINATIONS),
	   "no program for flags outside the combinations");
}

int main(void)
{
	TAP_RUN(case_built_programs);
	for (use_export = 0; use_export < 2; use_export++) {
		TAP_RUN(case_controls);
		TAP_RUN(case_default_unix_sockets);
		TAP_RUN(case_default_namespaces);
		TAP_RUN(case_default_terminal);
		TAP_RUN(case_other_abis);
		TAP_RUN(case_allow_unix);
		TAP_RUN(case_allow_userns);
	}
	TAP_RUN(case_export_observer);
	return tap_done();
}
