/* The worker's seccomp filter, built with libseccomp for the architecture
 * we are running on (what it refuses and why: SECURITY.md).
 *
 * One program with default ALLOW:
 *  - any other architecture (a 32-bit compat entry on a 64-bit kernel) and,
 *    on x86_64, any syscall number with the x32 bit: KILL_PROCESS. libseccomp
 *    emits the x32 test itself whenever the filter holds x86_64 without x32;
 *    it routes those numbers to the bad-architecture action set here.
 *  - ioctl(TIOCSTI / TIOCLINUX): EPERM, always (CVE-2017-5226 class); and
 *    TIOCSETD (a line discipline: the terminal's input and output sent
 *    elsewhere, and bug-prone kernel code opened to the command) and
 *    TIOCEXCL (the user's terminal made exclusive: after srt exits, sudo,
 *    ssh and gpg prompts cannot open /dev/tty), which outlive the run.
 *  - chmod, fchmod, fchmodat, fchmodat2 setting S_ISUID or S_ISGID: EPERM,
 *    always. nosuid and no_new_privs hold inside only: a set-uid copy of a
 *    shell left in a write root (set-uid root for a root caller) would
 *    outlive the sandbox for every local user. The same for a file created
 *    with such a mode (creat, open/openat with O_CREAT, mknod/mknodat): an
 *    empty set-uid file keeps its bit when a root program on the host later
 *    writes it. openat2, whose mode and flags are in memory seccomp cannot
 *    read: ENOSYS (callers fall back to openat, as on kernels before 5.6).
 *  - prlimit64 setting another process's limits (pid != 0 with a new
 *    limit; reading them stays allowed): EPERM, always. Its
 *    permission check is a uid match that Landlock's scoping does not
 *    cover: RLIMIT_CPU or RLIMIT_NOFILE set on a process outside the
 *    command's tree (linux-landlock has no pid namespace), or on the
 *    helper, kills it or starves it of descriptors.
 *  - keyctl, add_key, request_key: EPERM, always.
 *  - unless allowAllUnixSockets: socket(AF_UNIX / AF_VSOCK), io_uring_* and
 *    socketpair(AF_UNIX) of any type but stream and seqpacket: EPERM. A
 *    stream or seqpacket pair reaches nothing outside (its ends are
 *    connected to each other for good), but a datagram end can sendto() or
 *    connect() any pathname socket on the host (syslog, journald,
 *    $NOTIFY_SOCKET): the same reach as socket(AF_UNIX, SOCK_DGRAM).
 *  - unless allowNestedUserNamespaces: the mount family and setns: EPERM;
 *    clone/unshare asking for a new user or mount namespace: EPERM; clone3:
 *    ENOSYS, because its flags live in memory seccomp cannot read and libc
 *    falls back to clone on ENOSYS.
 *
 * The observe filter (srt__seccomp_install_observer) is a second program,
 * loaded first, whose only non-ALLOW action is USER_NOTIF: file syscalls
 * go on unchanged once the supervisor has looked at them; socket(AF_UNIX /
 * AF_VSOCK) and io_uring_* are refused by the supervisor with EPERM, and
 * by the kernel with ENOSYS if the supervisor is gone. ERRNO takes
 * precedence over USER_NOTIF across filters, so with the observer the
 * enforcement filter leaves those rules out (SRT_SECCOMP_UNIX_OBSERVED).
 * With network.allowUnixSockets the observe filter also notifies every
 * connect (SRT_OBSERVE_CONNECT), and the supervisor makes the stream and
 * seqpacket Unix sockets and performs each connect itself (supervisor.h).
 *
 * Arguments the kernel reads as 32-bit (socket's domain, ioctl's command)
 * are compared on their low 32 bits only: a caller can put anything in the
 * high half and the kernel ignores it, so an exact 64-bit compare would be
 * bypassed by setting a high bit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/filter.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <seccomp.h>

#include "backends/linux-common/seccomp.h"
#include "common/fdio.h"
#include "backends/linux-common/small-file.h"

#ifndef TIOCEXCL
#define TIOCEXCL 0x540C
#endif
#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif
#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#endif
/* The reference's unshare rule also tests this bit (CLONE_PARENT_SETTID,
 * which unshare rejects anyway); kept so our filter is never narrower. */
#define UNSHARE_EXTRA_BIT 0x00100000

/* s390 passes clone's flags in the second argument. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* Syscalls numbered 403 and up share one number on every architecture
 * below (the kernel's unified table). When libseccomp is older than the
 * kernel and does not know such a name, we can still filter it by number
 * there; elsewhere an unknown name is refused (fail closed). */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || \
	defined(__riscv) || defined(__powerpc__) || defined(__s390__) || defined(__loongarch__)
#define HAVE_UNIFIED_NUMBERS 1
#else
#define HAVE_UNIFIED_NUMBERS 0
#endif

#define LOW32 0xffffffffULL

/* O_TMPFILE's own bit (O_TMPFILE is it plus O_DIRECTORY; the kernel
 * wants both) */
#define TMPFILE_BIT ((unsigned)(O_TMPFILE & ~O_DIRECTORY))

struct named_syscall {
	const char *name;
	int unified_nr; /* number in the unified table, or -1 (older syscall) */
};

static const struct named_syscall io_uring_calls[] = {
	{ "io_uring_setup", 425 },
	{ "io_uring_enter", 426 },
	{ "io_uring_register", 427 },
};

static const struct named_syscall mount_calls[] = {
	{ "mount", -1 },
	{ "umount", -1 },   /* the legacy one: absent on x86_64/aarch64 */
	{ "umount2", -1 },
	{ "pivot_root", -1 },
	{ "setns", -1 },
	{ "open_tree", 428 },
	{ "move_mount", 429 },
	{ "fsopen", 430 },
	{ "fsconfig", 431 },
	{ "fsmount", 432 },
	{ "fspick", 433 },
	{ "mount_setattr", 442 },
	{ "open_tree_attr", 467 },
};

int srt__seccomp_resolve(const char *name, int unified_nr, int *nr)
{
	int n = seccomp_syscall_resolve_name(name);

	if (n == __NR_SCMP_ERROR) {
		if (!HAVE_UNIFIED_NUMBERS || unified_nr < 0)
			return -ENOSYS;
		n = unified_nr;
	}
	/* libseccomp names syscalls of other architectures with negative
	 * pseudo numbers: this kernel cannot have them */
	*nr = n;
	return 0;
}

static int resolve(const struct named_syscall *s, int *nr)
{
	return srt__seccomp_resolve(s->name, s->unified_nr, nr);
}

static int add_all(scmp_filter_ctx ctx, uint32_t action, const struct named_syscall *v,
		   size_t n, char *step, size_t steplen)
{
	size_t i;
	int rc, nr;

	for (i = 0; i < n; i++) {
		rc = resolve(&v[i], &nr);
		if (rc < 0) {
			snprintf(step, steplen, "resolve syscall '%s'", v[i].name);
			return rc;
		}
		if (nr < 0)
			continue;
		rc = seccomp_rule_add(ctx, action, nr, 0);
		if (rc < 0) {
			snprintf(step, steplen, "rule '%s'", v[i].name);
			return rc;
		}
	}
	return 0;
}

static int add_masked(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg,
		      uint64_t mask, uint64_t value, const char *what, char *step,
		      size_t steplen)
{
	int rc = seccomp_rule_add(ctx, action, nr, 1, SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, mask, value));

	if (rc < 0)
		snprintf(step, steplen, "rule '%s'", what);
	return rc;
}

/* socketpair(AF_UNIX, type) for every type but SOCK_STREAM and
 * SOCK_SEQPACKET: AF_UNIX turns SOCK_RAW into SOCK_DGRAM, and other types
 * fail anyway. The type's low four bits are the socket type
 * (SOCK_TYPE_MASK), the rest SOCK_NONBLOCK and SOCK_CLOEXEC; both
 * arguments are ints to the kernel. */
static int add_dgram_pair(scmp_filter_ctx ctx, uint32_t action, int nr, char *step, size_t steplen)
{
	uint64_t type;
	int rc = 0;

	for (type = 0; type <= 0xf && rc >= 0; type++) {
		if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
			continue;
		rc = seccomp_rule_add(ctx, action, nr, 2, SCMP_CMP64(0, SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX),
				      SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, type));
	}
	if (rc < 0)
		snprintf(step, steplen, "rule 'socketpair AF_UNIX SOCK_DGRAM'");
	return rc;
}

/* Calls that set a mode: the mode argument, and the flags argument that
 * must hold O_CREAT or O_TMPFILE's own bit for the call to create a file
 * (an O_TMPFILE file gets its name later with linkat), or -1 when every
 * call sets the mode (chmod family, creat, mknod). */
static const struct {
	struct named_syscall s;
	int mode_arg, flags_arg;
} mode_calls[] = {
	{ { "chmod", -1 }, 1, -1 },
	{ { "fchmod", -1 }, 1, -1 },
	{ { "fchmodat", -1 }, 2, -1 },
	{ { "fchmodat2", 452 }, 2, -1 },
	{ { "creat", -1 }, 1, -1 },
	{ { "mknod", -1 }, 1, -1 },
	{ { "mknodat", -1 }, 2, -1 },
	{ { "open", -1 }, 2, 1 },
	{ { "openat", -1 }, 3, 2 },
};

/* A set-id bit in the mode of any of mode_calls: action. Arguments are
 * compared on their low 32 bits (the kernel reads an umode_t and an int). */
static int add_setid_modes(scmp_filter_ctx ctx, uint32_t action, char *step, size_t steplen)
{
	static const unsigned bits[] = { S_ISUID, S_ISGID };
	static const unsigned creating[] = { O_CREAT, TMPFILE_BIT };
	size_t i, b, f;
	int rc, nr;

	for (i = 0; i < sizeof(mode_calls) / sizeof(mode_calls[0]); i++) {
		unsigned m = (unsigned)mode_calls[i].mode_arg;
		int fa = mode_calls[i].flags_arg;

		rc = resolve(&mode_calls[i].s, &nr);
		if (rc < 0) {
			snprintf(step, steplen, "resolve syscall '%s'", mode_calls[i].s.name);
			return rc;
		}
		if (nr < 0)
			continue;
		for (b = 0; b < 2; b++) {
			for (f = 0; f < (fa < 0 ? 1 : 2); f++) {
				if (fa < 0)
					rc = seccomp_rule_add(ctx, action, nr, 1,
							      SCMP_CMP32(m, SCMP_CMP_MASKED_EQ, bits[b], bits[b]));
				else
					rc = seccomp_rule_add(ctx, action, nr, 2,
							      SCMP_CMP32((unsigned)fa, SCMP_CMP_MASKED_EQ,
									 creating[f], creating[f]),
							      SCMP_CMP32(m, SCMP_CMP_MASKED_EQ, bits[b], bits[b]));
				if (rc < 0) {
					snprintf(step, steplen, "rule '%s' set-id mode", mode_calls[i].s.name);
					return rc;
				}
			}
		}
	}
	return 0;
}

static const struct named_syscall keyring_calls[] = {
	{ "keyctl", -1 },
	{ "add_key", -1 },
	{ "request_key", -1 },
};

/* "Seccomp_filters:" of /proc/self/status, or -1 when unknown (old
 * kernels do not report it). */
static int filter_count(void)
{
	char buf[4096];
	const char *k;

	if (srt__read_small_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	k = strstr(buf, "Seccomp_filters:");
	if (!k)
		return -1;
	return (int)strtol(k + 16, NULL, 10);
}

void *srt__seccomp_filter_new(int *err, char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
	int rc;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(step, steplen, "seccomp_init");
		*err = -ENOMEM;
		return NULL;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		/* libseccomp asks the kernel whether it can kill a whole
		 * process; no answer means no usable seccomp here */
		snprintf(step, steplen, "kill-process action for other architectures (is seccomp available?)");
		seccomp_release(ctx);
		*err = rc;
		return NULL;
	}
	return ctx;
}

/* The enforcement filter for flags, built (not loaded): 0 with *out the
 * caller's to release, or -errno with step saying where. */
static int build_enforce(unsigned flags, scmp_filter_ctx *out, char *step, size_t steplen)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx;
	int rc;

	*out = NULL;
	ctx = srt__seccomp_filter_new(&rc, step, steplen);
	if (!ctx)
		return rc;
	/* seccomp_init filters for the native architecture only; be sure */
	rc = seccomp_arch_exist(ctx, seccomp_arch_native());
	if (rc < 0) {
		snprintf(step, steplen, "native architecture");
		goto out;
	}

	{
		static const struct {
			unsigned long cmd;
			const char *what;
		} tty_ioctls[] = {
			{ TIOCSTI, "ioctl TIOCSTI" },
			{ TIOCLINUX, "ioctl TIOCLINUX" },
			{ TIOCSETD, "ioctl TIOCSETD" },
			{ TIOCEXCL, "ioctl TIOCEXCL" },
		};
		size_t k;

		for (k = 0; k < sizeof(tty_ioctls) / sizeof(tty_ioctls[0]); k++) {
			rc = add_masked(ctx, eperm, SCMP_SYS(ioctl), 1, LOW32, tty_ioctls[k].cmd,
					tty_ioctls[k].what, step, steplen);
			if (rc < 0)
				goto out;
		}
	}
	rc = add_setid_modes(ctx, eperm, step, steplen);
	if (rc < 0)
		goto out;
	{
		static const struct named_syscall openat2 = { "openat2", 437 };
		int nr;

		rc = resolve(&openat2, &nr);
		if (rc < 0) {
			snprintf(step, steplen, "resolve syscall 'openat2'");
			goto out;
		}
		if (nr >= 0 && (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0)) < 0) {
			snprintf(step, steplen, "rule 'openat2'");
			goto out;
		}
	}
	/* setting another process's limits (pid_t: low 32 bits; 0 is the
	 * caller); reading them (no new limit) stays allowed */
	rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(prlimit64), 2, SCMP_A0_32(SCMP_CMP_NE, 0),
			      SCMP_A2_64(SCMP_CMP_NE, 0));
	if (rc < 0) {
		snprintf(step, steplen, "rule 'prlimit64 other process'");
		goto out;
	}

	/* The kernel keyrings are shared with the caller's session (its
	 * session keyring holds secrets such as Kerberos tickets or ecryptfs
	 * keys): no keyring access from the sandbox. */
	rc = add_all(ctx, eperm, keyring_calls, sizeof(keyring_calls) / sizeof(keyring_calls[0]),
		     step, steplen);
	if (rc < 0)
		goto out;

	if (!(flags & (SRT_SECCOMP_ALLOW_UNIX | SRT_SECCOMP_UNIX_OBSERVED))) {
		rc = add_masked(ctx, eperm, SCMP_SYS(socket), 0, LOW32, AF_UNIX, "socket AF_UNIX", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(socket), 0, LOW32, AF_VSOCK, "socket AF_VSOCK", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_all(ctx, eperm, io_uring_calls, sizeof(io_uring_calls) / sizeof(io_uring_calls[0]),
			     step, steplen);
		if (rc < 0)
			goto out;
		rc = add_dgram_pair(ctx, eperm, SCMP_SYS(socketpair), step, steplen);
		if (rc < 0)
			goto out;
	}

	if (flags & SRT_SECCOMP_NO_LANDLOCK_SELF) {
		static const struct named_syscall restrict_self = { "landlock_restrict_self", 446 };

		rc = add_all(ctx, eperm, &restrict_self, 1, step, steplen);
		if (rc < 0)
			goto out;
	}

	if (!(flags & SRT_SECCOMP_ALLOW_USERNS)) {
		static const struct named_syscall clone3 = { "clone3", 435 };
		/* a new user or mount namespace: any of these flag bits set */
		static const struct {
			int nr;
			unsigned arg;
			uint64_t bit;
			const char *what;
		} ns_flags[] = {
			{ SCMP_SYS(clone), CLONE_FLAGS_ARG, CLONE_NEWUSER, "clone CLONE_NEWUSER" },
			{ SCMP_SYS(clone), CLONE_FLAGS_ARG, CLONE_NEWNS, "clone CLONE_NEWNS" },
			{ SCMP_SYS(unshare), 0, CLONE_NEWUSER, "unshare CLONE_NEWUSER" },
			{ SCMP_SYS(unshare), 0, CLONE_NEWNS, "unshare CLONE_NEWNS" },
			{ SCMP_SYS(unshare), 0, UNSHARE_EXTRA_BIT, "unshare 0x100000" },
		};
		int nr;

		rc = add_all(ctx, eperm, mount_calls, sizeof(mount_calls) / sizeof(mount_calls[0]),
			     step, steplen);
		if (rc < 0)
			goto out;
		for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
			rc = add_masked(ctx, eperm, ns_flags[i].nr, ns_flags[i].arg, ns_flags[i].bit,
					ns_flags[i].bit, ns_flags[i].what, step, steplen);
			if (rc < 0)
				goto out;
		}
		rc = resolve(&clone3, &nr);
		if (rc < 0) {
			snprintf(step, steplen, "resolve syscall 'clone3'");
			goto out;
		}
		if (nr >= 0) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
			if (rc < 0) {
				snprintf(step, steplen, "rule 'clone3'");
				goto out;
			}
		}
	}

	*out = ctx;
	return 0;
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : -EINVAL;
}

static int load_prog(const struct sock_filter *prog, uint32_t n, const char *what, int *listener,
		     char *step, size_t steplen);
static int build_supervisor(unsigned flags, scmp_filter_ctx *out, char *step, size_t steplen);

int srt__seccomp_install(unsigned flags, char *step, size_t steplen)
{
	const struct srt__seccomp_program *built =
		srt__seccomp_program_built(SRT_SECCOMP_KIND_ENFORCE, flags);
	scmp_filter_ctx ctx;
	int rc, before;

	if (built)
		return load_prog(built->prog, built->n, NULL, NULL, step, steplen);
	rc = build_enforce(flags, &ctx, step, steplen);
	if (rc < 0)
		return rc;
	before = filter_count();
	rc = seccomp_load(ctx);
	if (rc < 0) {
		snprintf(step, steplen, "seccomp_load");
	} else if (before >= 0 && filter_count() != before + 1) {
		/* the kernel's own count, not libseccomp's word: an interposed
		 * library (LD_PRELOAD into a dynamic helper) cannot fake it */
		snprintf(step, steplen, "seccomp_load (the filter count did not go up: the filter is not in place)");
		rc = -EPERM;
	}
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}

/* ---- the observe filter ------------------------------------------------ */

#define AT_NONE { -1, -1 }
/* The syscalls the monitor observes: those that create, write, rename,
 * remove or change files, plus reads and the refusals */
const struct srt__observed_syscall srt__observed_syscalls[] = {
	{ "openat", -1, SRT_OBS_OPEN, 2, { { 0, 1 }, AT_NONE } },
	{ "open", -1, SRT_OBS_OPEN, 1, { { -1, 0 }, AT_NONE } },
	{ "creat", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "unlinkat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "mkdirat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "mknodat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "symlinkat", -1, SRT_OBS_WRITE, -1, { { 1, 2 }, AT_NONE } },
	{ "linkat", -1, SRT_OBS_WRITE, -1, { { 2, 3 }, AT_NONE } },
	{ "renameat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, { 2, 3 } } },
	{ "renameat2", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, { 2, 3 } } },
	{ "fchmodat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "fchmodat2", 452, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "fchownat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "utimensat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "truncate", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	/* legacy calls (x86_64 and other older tables) */
	{ "unlink", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "rmdir", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "rename", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, { -1, 1 } } },
	{ "link", -1, SRT_OBS_WRITE, -1, { { -1, 1 }, AT_NONE } },
	{ "symlink", -1, SRT_OBS_WRITE, -1, { { -1, 1 }, AT_NONE } },
	{ "mkdir", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "mknod", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "chmod", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "chown", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "lchown", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "utime", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "utimes", -1, SRT_OBS_WRITE, -1, { { -1, 0 }, AT_NONE } },
	{ "futimesat", -1, SRT_OBS_WRITE, -1, { { 0, 1 }, AT_NONE } },
	{ "socket", -1, SRT_OBS_SOCKET, -1, { AT_NONE, AT_NONE } },
	{ "socketpair", -1, SRT_OBS_SOCKETPAIR, -1, { AT_NONE, AT_NONE } },
	{ "connect", -1, SRT_OBS_CONNECT, -1, { AT_NONE, AT_NONE } },
	{ "io_uring_setup", 425, SRT_OBS_IOURING, -1, { AT_NONE, AT_NONE } },
	{ "io_uring_enter", 426, SRT_OBS_IOURING, -1, { AT_NONE, AT_NONE } },
	{ "io_uring_register", 427, SRT_OBS_IOURING, -1, { AT_NONE, AT_NONE } },
};
const size_t srt__n_observed_syscalls =
	sizeof(srt__observed_syscalls) / sizeof(srt__observed_syscalls[0]);

int srt__seccomp_observed_nr(const struct srt__observed_syscall *s)
{
	struct named_syscall ns = { s->name, s->unified_nr };
	int nr = -1;

	if (resolve(&ns, &nr) < 0 || nr < 0)
		return -1;
	return nr;
}

#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif

int srt__seccomp_notify_supported(char *step, size_t steplen)
{
	struct seccomp_notif_sizes sz;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0) {
		int err = errno;
		snprintf(step, steplen, "seccomp(SECCOMP_GET_NOTIF_SIZES)");
		return -err;
	}
	/* SECCOMP_USER_NOTIF_FLAG_CONTINUE came with Linux 5.5, before
	 * SECCOMP_FILTER_FLAG_TSYNC_ESRCH (5.7): a kernel that knows the flag
	 * checks the (missing) program next and says EFAULT; an older one
	 * says EINVAL. Without CONTINUE the observer could not let a file
	 * syscall go on, so it must not run. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC_ESRCH, NULL) == 0 ||
	    errno != EFAULT) {
		snprintf(step, steplen, "kernel without SECCOMP_USER_NOTIF_FLAG_CONTINUE (Linux < 5.5)");
		return -ENOSYS;
	}
	return 0;
}

/* Notify on syscall nr when (low 32 bits of) arg has any of bits set. */
static int notify_any_bit(scmp_filter_ctx ctx, int nr, unsigned arg, uint32_t bits,
			  const char *name, char *step, size_t steplen)
{
	uint32_t b;
	int rc;

	for (b = 1; b; b <<= 1) {
		if (!(bits & b))
			continue;
		rc = add_masked(ctx, SCMP_ACT_NOTIFY, nr, arg, b, b, name, step, steplen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Load ctx and take the listener of its SCMP_ACT_NOTIFY rules: 0 with
 * *listener >= 0, or -errno with a reason in step. *listener is -2 once
 * the filter is loaded without a usable listener: that cannot be undone,
 * every notified call would block, so the caller must not run the
 * command. Releases ctx in every case. */
static int load_with_listener(scmp_filter_ctx ctx, const char *what, int *listener, char *step,
			      size_t steplen)
{
	int rc, fd;

	rc = seccomp_load(ctx);
	if (rc < 0) {
		snprintf(step, steplen, "load the %s filter", what);
		seccomp_release(ctx);
		return rc;
	}
	fd = seccomp_notify_fd(ctx);
	*listener = -2; /* from here on the filter is in place */
	if (fd < 0) {
		snprintf(step, steplen, "listener of the %s filter", what);
		seccomp_release(ctx);
		return -EIO;
	}
	/* Our own close-on-exec copy; libseccomp's descriptor is closed
	 * below whether or not seccomp_release() does it: the command must
	 * never hold a listener (it could answer its own refusals). */
	*listener = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (*listener < 0) {
		*listener = -2;
		rc = -errno;
		snprintf(step, steplen, "listener of the %s filter", what);
	} else {
		rc = 0;
	}
	seccomp_release(ctx);
	if (fcntl(fd, F_GETFD) >= 0)
		close(fd);
	return rc;
}

/* The observe filter for observe, built (not loaded): as build_enforce. */
static int build_observer(unsigned observe, scmp_filter_ctx *out, char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc;

	*out = NULL;
	ctx = srt__seccomp_filter_new(&rc, step, steplen);
	if (!ctx)
		return rc;
	for (i = 0; i < srt__n_observed_syscalls; i++) {
		const struct srt__observed_syscall *s = &srt__observed_syscalls[i];
		struct named_syscall ns = { s->name, s->unified_nr };
		int nr;

		if (s->kind == SRT_OBS_CONNECT) {
			if ((observe & (SRT_OBSERVE_UNIX | SRT_OBSERVE_CONNECT)) !=
			    (SRT_OBSERVE_UNIX | SRT_OBSERVE_CONNECT))
				continue;
		} else if (SRT_OBS_REFUSED(s->kind) && !(observe & SRT_OBSERVE_UNIX)) {
			continue;
		} else if (!SRT_OBS_REFUSED(s->kind) && !(observe & (SRT_OBSERVE_WRITES | SRT_OBSERVE_READS))) {
			continue;
		}
		rc = resolve(&ns, &nr);
		if (rc < 0) {
			snprintf(step, steplen, "resolve syscall '%s'", s->name);
			goto out;
		}
		if (nr < 0)
			continue;
		if (s->kind == SRT_OBS_SOCKET) {
			rc = add_masked(ctx, SCMP_ACT_NOTIFY, nr, 0, LOW32, AF_UNIX, "notify socket AF_UNIX",
					step, steplen);
			if (rc >= 0)
				rc = add_masked(ctx, SCMP_ACT_NOTIFY, nr, 0, LOW32, AF_VSOCK,
						"notify socket AF_VSOCK", step, steplen);
		} else if (s->kind == SRT_OBS_SOCKETPAIR) {
			rc = add_dgram_pair(ctx, SCMP_ACT_NOTIFY, nr, step, steplen);
		} else if (s->kind == SRT_OBS_OPEN && !(observe & SRT_OBSERVE_READS)) {
			rc = notify_any_bit(ctx, nr, (unsigned)s->flags_arg, SRT_OPEN_WRITE_FLAGS,
					    s->name, step, steplen);
		} else if (s->kind == SRT_OBS_WRITE && !(observe & SRT_OBSERVE_WRITES)) {
			continue;
		} else {
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
			if (rc < 0)
				snprintf(step, steplen, "notify rule '%s'", s->name);
		}
		if (rc < 0)
			goto out;
	}
	*out = ctx;
	return 0;
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : -EINVAL;
}

int srt__seccomp_install_observer(unsigned observe, int *listener, char *step, size_t steplen)
{
	const struct srt__seccomp_program *built;
	scmp_filter_ctx ctx;
	int rc;

	*listener = -1;
	rc = srt__seccomp_notify_supported(step, steplen);
	if (rc < 0)
		return rc;
	built = srt__seccomp_program_built(SRT_SECCOMP_KIND_OBSERVE, observe);
	if (built)
		return load_prog(built->prog, built->n, "observe", listener, step, steplen);
	rc = build_observer(observe, &ctx, step, steplen);
	if (rc < 0)
		return rc;
	return load_with_listener(ctx, "observe", listener, step, steplen);
}

/* ---- filters built ahead, in another process ---------------------------- */

/* What srt__seccomp_export writes: this header, then the observe program
 * (n_obs instructions, none when observe is 0), then the enforcement
 * program (n_enf). */
struct exported {
	uint32_t magic, observe, flags, n_obs, n_enf;
};
#define EXPORT_MAGIC 0x73726362u /* "srcb" */
/* both programs together stay far below a pipe's 64 KiB */
#define EXPORT_MAX_INSNS 4096

/* ctx's BPF program (libseccomp's own export of what seccomp_load would
 * load) in a new buffer of *n instructions: 0, or -errno. */
static int export_prog(scmp_filter_ctx ctx, struct sock_filter **prog, uint32_t *n)
{
	struct stat st;
	int fd = memfd_create("srt-seccomp", MFD_CLOEXEC), rc;

	*prog = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc >= 0 && fstat(fd, &st) != 0)
		rc = -errno;
	if (rc >= 0 && (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
			st.st_size > (off_t)(EXPORT_MAX_INSNS * sizeof(struct sock_filter))))
		rc = -EINVAL;
	if (rc >= 0 && !(*prog = malloc((size_t)st.st_size)))
		rc = -ENOMEM;
	if (rc >= 0 && pread(fd, *prog, (size_t)st.st_size, 0) != (ssize_t)st.st_size)
		rc = -EIO;
	close(fd);
	if (rc < 0) {
		free(*prog);
		*prog = NULL;
		return rc < 0 ? rc : -EIO;
	}
	*n = (uint32_t)(st.st_size / (off_t)sizeof(struct sock_filter));
	return 0;
}

int srt__seccomp_export(unsigned observe, unsigned flags, int fd, char *step, size_t steplen)
{
	struct exported h = { EXPORT_MAGIC, observe, flags, 0, 0 };
	struct sock_filter *obs = NULL, *enf = NULL;
	scmp_filter_ctx ctx;
	int rc = 0;

	if (observe) {
		rc = build_observer(observe, &ctx, step, steplen);
		if (rc >= 0) {
			rc = export_prog(ctx, &obs, &h.n_obs);
			seccomp_release(ctx);
		}
	}
	if (rc >= 0) {
		rc = build_enforce(flags, &ctx, step, steplen);
		if (rc >= 0) {
			rc = export_prog(ctx, &enf, &h.n_enf);
			seccomp_release(ctx);
		}
	}
	if (rc >= 0 && h.n_obs + h.n_enf > EXPORT_MAX_INSNS)
		rc = -E2BIG;
	if (rc >= 0 && (srt__write_full(fd, &h, sizeof(h)) != 0 ||
			(h.n_obs && srt__write_full(fd, obs, h.n_obs * sizeof(*obs)) != 0) ||
			srt__write_full(fd, enf, h.n_enf * sizeof(*enf)) != 0))
		rc = -EIO;
	if (rc < 0 && !step[0])
		snprintf(step, steplen, "export the filters");
	free(obs);
	free(enf);
	return rc;
}

static int read_all(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t r = read(fd, c, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		c += r;
		len -= (size_t)r;
	}
	return 0;
}

int srt__seccomp_read_prebuilt(int fd, struct srt__seccomp_prebuilt *p)
{
	struct exported h;

	memset(p, 0, sizeof(*p));
	if (read_all(fd, &h, sizeof(h)) != 0 || h.magic != EXPORT_MAGIC || h.n_enf == 0 ||
	    h.n_obs > EXPORT_MAX_INSNS || h.n_enf > EXPORT_MAX_INSNS - h.n_obs ||
	    (h.observe != 0) != (h.n_obs != 0))
		return -EIO;
	p->obs = h.n_obs ? malloc(h.n_obs * sizeof(*p->obs)) : NULL;
	p->enf = malloc(h.n_enf * sizeof(*p->enf));
	if ((h.n_obs && !p->obs) || !p->enf ||
	    (h.n_obs && read_all(fd, p->obs, h.n_obs * sizeof(*p->obs)) != 0) ||
	    read_all(fd, p->enf, h.n_enf * sizeof(*p->enf)) != 0) {
		free(p->obs);
		free(p->enf);
		memset(p, 0, sizeof(*p));
		return -EIO;
	}
	p->observe = h.observe;
	p->flags = h.flags;
	p->n_obs = h.n_obs;
	p->n_enf = h.n_enf;
	return 0;
}

void srt__seccomp_prebuilt_free(struct srt__seccomp_prebuilt *p)
{
	free(p->obs);
	free(p->enf);
	memset(p, 0, sizeof(*p));
}

/* Load prog as seccomp_load would (no_new_privs first, then the filter,
 * with a listener when listener is not NULL), checked against the
 * kernel's own filter count. */
static int load_prog(const struct sock_filter *prog, uint32_t n, const char *what, int *listener,
		     char *step, size_t steplen)
{
	/* the kernel copies the program and never writes it */
	struct sock_fprog fp = { (unsigned short)n, (struct sock_filter *)prog };
	int before, rc;

	if (n == 0 || n > 0xffff) {
		snprintf(step, steplen, "a filter built ahead has no program");
		return -EINVAL;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		snprintf(step, steplen, "prctl(PR_SET_NO_NEW_PRIVS)");
		return -errno;
	}
	/* the observe filter's listener is proof enough; counting after it
	 * would be an observed open, answered by the monitor */
	before = listener ? -1 : filter_count();
	rc = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &fp);
	if (rc < 0) {
		rc = -errno;
		if (listener)
			snprintf(step, steplen, "load the %s filter", what);
		else
			snprintf(step, steplen, "seccomp_load");
		return rc;
	}
	if (listener) {
		/* the kernel's listener is close-on-exec already; said again,
		 * as the command must never hold it */
		*listener = rc;
		if (fcntl(rc, F_SETFD, FD_CLOEXEC) != 0) {
			*listener = -2; /* the filter is in place */
			snprintf(step, steplen, "listener of the %s filter", what);
			return -errno;
		}
	}
	if (before >= 0 && filter_count() != before + 1) {
		snprintf(step, steplen, "seccomp_load (the filter count did not go up: the filter is not in place)");
		return -EPERM;
	}
	return 0;
}

int srt__seccomp_load_observer_prebuilt(const struct srt__seccomp_prebuilt *p, int *listener, char *step,
					size_t steplen)
{
	int rc;

	*listener = -1;
	rc = srt__seccomp_notify_supported(step, steplen);
	if (rc < 0)
		return rc;
	return load_prog(p->obs, p->n_obs, "observe", listener, step, steplen);
}

int srt__seccomp_load_prebuilt(const struct srt__seccomp_prebuilt *p, char *step, size_t steplen)
{
	return load_prog(p->enf, p->n_enf, NULL, NULL, step, steplen);
}

int srt__seccomp_build_program(int kind, unsigned bits, struct sock_filter **prog, uint32_t *n,
			       char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
	int rc;

	*prog = NULL;
	*n = 0;
	if (kind == SRT_SECCOMP_KIND_ENFORCE && bits < SRT_SECCOMP_ENFORCE_COMBINATIONS)
		rc = build_enforce(bits, &ctx, step, steplen);
	else if (kind == SRT_SECCOMP_KIND_OBSERVE && bits && bits < SRT_SECCOMP_OBSERVE_COMBINATIONS)
		rc = build_observer(bits, &ctx, step, steplen);
	else if (kind == SRT_SECCOMP_KIND_SUPERVISOR && bits < SRT_SECCOMP_SUPERVISOR_COMBINATIONS)
		rc = build_supervisor(bits, &ctx, step, steplen);
	else
		return -EINVAL;
	if (rc < 0)
		return rc;
	return srt__seccomp_ctx_program(ctx, prog, n, step, steplen);
}

int srt__seccomp_ctx_program(void *ctx, struct sock_filter **prog, uint32_t *n, char *step,
			     size_t steplen)
{
	int rc = export_prog(ctx, prog, n);

	seccomp_release(ctx);
	if (rc < 0)
		snprintf(step, steplen, "export the filter");
	return rc;
}

int srt__seccomp_load_built(const struct srt__seccomp_program *p, char *step, size_t steplen)
{
	return load_prog(p->prog, p->n, NULL, NULL, step, steplen);
}

#ifdef SRT_SECCOMP_TABLES
/* seccomp-tables.c, written by seccomp-gen at build time */
extern const struct srt__seccomp_program srt__seccomp_programs[];
extern const size_t srt__n_seccomp_programs;

const struct srt__seccomp_program *srt__seccomp_program_built(int kind, unsigned bits)
{
	size_t i;

	for (i = 0; i < srt__n_seccomp_programs; i++)
		if (srt__seccomp_programs[i].kind == kind && srt__seccomp_programs[i].bits == bits)
			return &srt__seccomp_programs[i];
	return NULL;
}
#else
/* built without the tables (seccomp-gen itself, a cross-compiled build):
 * libseccomp builds every filter at run time */
const struct srt__seccomp_program *srt__seccomp_program_built(int kind, unsigned bits)
{
	(void)kind;
	(void)bits;
	return NULL;
}
#endif

/* ---- the supervisor's filter (linux-landlock write roots) --------------- */

#define NO -1
/* Every call that creates, replaces, removes or write-opens a name, and
 * the mode and time changes, which Landlock has no right for (a chmod +x
 * of a git hook runs code on the host). Not here, and why: openat2
 * (ENOSYS from the enforcement filter), chown and xattrs (refused outright
 * by linux-landlock's own filter). bind is here because a pathname socket
 * is a new name: in a write root the supervisor makes it. A call with a
 * path of NULL (utimensat, futimesat) or flags naming AT_EMPTY_PATH acts
 * on its descriptor: dfd is then that descriptor. */
const struct srt__supervised_syscall srt__supervised_syscalls[] = {
	{ "openat", -1, SRT_SUP_OPEN, 0, 1, NO, NO, 2, 3, 0 },
	{ "open", -1, SRT_SUP_OPEN, NO, 0, NO, NO, 1, 2, 0 },
	{ "creat", -1, SRT_SUP_OPEN, NO, 0, NO, NO, NO, 1, O_CREAT | O_WRONLY | O_TRUNC },
	{ "mkdirat", -1, SRT_SUP_MKDIR, 0, 1, NO, NO, NO, 2, 0 },
	{ "mkdir", -1, SRT_SUP_MKDIR, NO, 0, NO, NO, NO, 1, 0 },
	{ "mknodat", -1, SRT_SUP_MKNOD, 0, 1, NO, NO, NO, 2, 0 },
	{ "mknod", -1, SRT_SUP_MKNOD, NO, 0, NO, NO, NO, 1, 0 },
	{ "unlinkat", -1, SRT_SUP_UNLINK, 0, 1, NO, NO, 2, NO, 0 },
	{ "unlink", -1, SRT_SUP_UNLINK, NO, 0, NO, NO, NO, NO, 0 },
	{ "rmdir", -1, SRT_SUP_UNLINK, NO, 0, NO, NO, NO, NO, AT_REMOVEDIR },
	{ "renameat2", -1, SRT_SUP_RENAME, 0, 1, 2, 3, 4, NO, 0 },
	{ "renameat", -1, SRT_SUP_RENAME, 0, 1, 2, 3, NO, NO, 0 },
	{ "rename", -1, SRT_SUP_RENAME, NO, 0, NO, 1, NO, NO, 0 },
	{ "linkat", -1, SRT_SUP_LINK, 0, 1, 2, 3, 4, NO, 0 },
	{ "link", -1, SRT_SUP_LINK, NO, 0, NO, 1, NO, NO, 0 },
	{ "symlinkat", -1, SRT_SUP_SYMLINK, 1, 2, NO, 0, NO, NO, 0 },
	{ "symlink", -1, SRT_SUP_SYMLINK, NO, 1, NO, 0, NO, NO, 0 },
	{ "truncate", -1, SRT_SUP_TRUNCATE, NO, 0, NO, NO, NO, 1, 0 },
	{ "socket", -1, SRT_SUP_SOCKET, NO, NO, NO, NO, NO, NO, 0 },
	{ "connect", -1, SRT_SUP_CONNECT, NO, NO, NO, NO, NO, NO, 0 },
	{ "bind", -1, SRT_SUP_BIND, NO, NO, NO, NO, NO, NO, 0 },
	{ "chmod", -1, SRT_SUP_CHMOD, NO, 0, NO, NO, NO, 1, 0 },
	{ "fchmod", -1, SRT_SUP_CHMOD, 0, NO, NO, NO, NO, 1, 0 },
	{ "fchmodat", -1, SRT_SUP_CHMOD, 0, 1, NO, NO, NO, 2, 0 },
	{ "fchmodat2", 452, SRT_SUP_CHMOD, 0, 1, NO, NO, 3, 2, 0 },
	{ "utimensat", -1, SRT_SUP_UTIMES, 0, 1, NO, NO, 3, 2, SRT_SUP_TIMESPEC },
	{ "futimesat", -1, SRT_SUP_UTIMES, 0, 1, NO, NO, NO, 2, SRT_SUP_TIMEVAL },
	{ "utimes", -1, SRT_SUP_UTIMES, NO, 0, NO, NO, NO, 1, SRT_SUP_TIMEVAL },
	{ "utime", -1, SRT_SUP_UTIMES, NO, 0, NO, NO, NO, 1, SRT_SUP_UTIMBUF },
#if SRT_SUP_HAVE_TIME64
	{ "utimensat_time64", 412, SRT_SUP_UTIMES, 0, 1, NO, NO, 3, 2, SRT_SUP_TIMESPEC64 },
#endif
};
#undef NO
const size_t srt__n_supervised_syscalls =
	sizeof(srt__supervised_syscalls) / sizeof(srt__supervised_syscalls[0]);

int srt__seccomp_supervised_nr(const struct srt__supervised_syscall *s)
{
	struct named_syscall ns = { s->name, s->unified_nr };
	int nr = -1;

	if (resolve(&ns, &nr) < 0 || nr < 0)
		return -1;
	return nr;
}

static int add_supervised(scmp_filter_ctx ctx, const struct srt__supervised_syscall *s,
			  unsigned flags, char *step, size_t steplen)
{
	struct named_syscall ns = { s->name, s->unified_nr };
	int nr, rc;

	if ((s->op == SRT_SUP_SOCKET || s->op == SRT_SUP_CONNECT) && !(flags & SRT_SUPER_UNIX))
		return 0;
	if ((s->op == SRT_SUP_CHMOD || s->op == SRT_SUP_UTIMES) && !(flags & SRT_SUPER_META))
		return 0;
	rc = resolve(&ns, &nr);
	if (rc < 0) {
		snprintf(step, steplen, "resolve syscall '%s'", s->name);
		return rc;
	}
	if (nr < 0)
		return 0;
	if (s->op == SRT_SUP_OPEN && s->flags >= 0)
		return notify_any_bit(ctx, nr, (unsigned)s->flags, SRT_OPEN_WRITE_FLAGS, s->name,
				      step, steplen);
	if (s->op == SRT_SUP_SOCKET)
		return add_masked(ctx, SCMP_ACT_NOTIFY, nr, 0, LOW32, AF_UNIX, "notify socket AF_UNIX",
				  step, steplen);
	rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	if (rc < 0)
		snprintf(step, steplen, "notify rule '%s'", s->name);
	return rc;
}

/* The supervisor's filter for flags, built (not loaded): as build_enforce. */
static int build_supervisor(unsigned flags, scmp_filter_ctx *out, char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc;

	*out = NULL;
	ctx = srt__seccomp_filter_new(&rc, step, steplen);
	if (!ctx)
		return rc;
	for (i = 0; i < srt__n_supervised_syscalls; i++) {
		rc = add_supervised(ctx, &srt__supervised_syscalls[i], flags, step, steplen);
		if (rc < 0) {
			seccomp_release(ctx);
			return rc;
		}
	}
	*out = ctx;
	return 0;
}

int srt__seccomp_install_supervisor(unsigned flags, int *listener, char *step, size_t steplen)
{
	const struct srt__seccomp_program *built =
		srt__seccomp_program_built(SRT_SECCOMP_KIND_SUPERVISOR, flags);
	scmp_filter_ctx ctx;
	int rc;

	*listener = -1;
	rc = srt__seccomp_notify_supported(step, steplen);
	if (rc < 0)
		return rc;
	if (built)
		return load_prog(built->prog, built->n, "supervisor", listener, step, steplen);
	rc = build_supervisor(flags, &ctx, step, steplen);
	if (rc < 0)
		return rc;
	return load_with_listener(ctx, "supervisor", listener, step, steplen);
}
