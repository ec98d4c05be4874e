/* The worker's seccomp filter, built with libseccomp for the architecture
 * we are running on (anchor-inventory §4.9, SPEC §5).
 *
 * One program with default ALLOW:
 *  - any other architecture (a 32-bit compat entry on a 64-bit kernel) and,
 *    on x86_64, any syscall number with the x32 bit: KILL_PROCESS. libseccomp
 *    emits the x32 test itself whenever the filter holds x86_64 without x32;
 *    it routes those numbers to the bad-architecture action set here.
 *  - ioctl(TIOCSTI / TIOCLINUX): EPERM, always (CVE-2017-5226 class).
 *  - unless allowAllUnixSockets: socket(AF_UNIX / AF_VSOCK) and io_uring_*:
 *    EPERM. socketpair stays allowed (it reaches nothing outside).
 *  - unless allowNestedUserNamespaces: the mount family and setns: EPERM;
 *    clone/unshare asking for a new user or mount namespace: EPERM; clone3:
 *    ENOSYS, because its flags live in memory seccomp cannot read and libc
 *    falls back to clone on ENOSYS.
 *
 * Arguments the kernel reads as 32-bit (socket's domain, ioctl's command)
 * are compared on their low 32 bits only: a caller can put anything in the
 * high half and the kernel ignores it, so an exact 64-bit compare would be
 * bypassed by setting a high bit. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <seccomp.h>

#include "backends/linux-bwrap/init/seccomp.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
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

/* The number to filter for name, 0 with *nr < 0 when this architecture has
 * no such syscall, or -ENOSYS when we cannot tell. */
static int resolve(const struct named_syscall *s, int *nr)
{
	int n = seccomp_syscall_resolve_name(s->name);

	if (n == __NR_SCMP_ERROR) {
		if (!HAVE_UNIFIED_NUMBERS || s->unified_nr < 0)
			return -ENOSYS;
		n = s->unified_nr;
	}
	/* libseccomp names syscalls of other architectures with negative
	 * pseudo numbers: this kernel cannot have them */
	*nr = n;
	return 0;
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

int srt__seccomp_install(unsigned flags, char *step, size_t steplen)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx;
	int rc;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(step, steplen, "seccomp_init");
		return -ENOMEM;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		/* libseccomp asks the kernel whether it can kill a whole
		 * process; no answer means no usable seccomp here */
		snprintf(step, steplen, "kill-process action for other architectures (is seccomp available?)");
		goto out;
	}
	/* seccomp_init filters for the native architecture only; be sure */
	rc = seccomp_arch_exist(ctx, seccomp_arch_native());
	if (rc < 0) {
		snprintf(step, steplen, "native architecture");
		goto out;
	}

	rc = add_masked(ctx, eperm, SCMP_SYS(ioctl), 1, LOW32, TIOCSTI, "ioctl TIOCSTI", step, steplen);
	if (rc < 0)
		goto out;
	rc = add_masked(ctx, eperm, SCMP_SYS(ioctl), 1, LOW32, TIOCLINUX, "ioctl TIOCLINUX", step, steplen);
	if (rc < 0)
		goto out;

	if (!(flags & SRT_SECCOMP_ALLOW_UNIX)) {
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
	}

	if (!(flags & SRT_SECCOMP_ALLOW_USERNS)) {
		static const struct named_syscall clone3 = { "clone3", 435 };
		int nr;

		rc = add_all(ctx, eperm, mount_calls, sizeof(mount_calls) / sizeof(mount_calls[0]),
			     step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(clone), CLONE_FLAGS_ARG, CLONE_NEWUSER, CLONE_NEWUSER,
				"clone CLONE_NEWUSER", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(clone), CLONE_FLAGS_ARG, CLONE_NEWNS, CLONE_NEWNS,
				"clone CLONE_NEWNS", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(unshare), 0, CLONE_NEWUSER, CLONE_NEWUSER,
				"unshare CLONE_NEWUSER", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(unshare), 0, CLONE_NEWNS, CLONE_NEWNS,
				"unshare CLONE_NEWNS", step, steplen);
		if (rc < 0)
			goto out;
		rc = add_masked(ctx, eperm, SCMP_SYS(unshare), 0, UNSHARE_EXTRA_BIT, UNSHARE_EXTRA_BIT,
				"unshare 0x100000", step, steplen);
		if (rc < 0)
			goto out;
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

	rc = seccomp_load(ctx);
	if (rc < 0)
		snprintf(step, steplen, "seccomp_load");
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
