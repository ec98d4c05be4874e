/* linux-landlock: refuse every socket family but AF_UNIX (see netfilter.h).
 *
 * An allow-list, not a list of network families: AF_INET and AF_INET6 are
 * the obvious ones, but AF_SMC, AF_TIPC, AF_RDS and friends reach other
 * hosts too, and netlink would show (and, with privileges, change) the
 * host's interfaces. The family is compared on its low 32 bits, as the
 * kernel reads it.
 *
 * io_uring is refused here too, whatever allowAllUnixSockets says (the
 * shared filter lifts its io_uring rule with that setting): since 5.19
 * IORING_OP_SOCKET creates sockets without the socket() system call. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include <seccomp.h>

#include "backends/linux-landlock/netfilter.h"

int srt__ll_seccomp_net(char *step, size_t steplen)
{
	static const char *const uring[] = { "io_uring_setup", "io_uring_enter", "io_uring_register" };
	scmp_filter_ctx ctx;
	size_t i;
	int rc;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(step, steplen, "seccomp_init");
		return -ENOMEM;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		snprintf(step, steplen, "bad-architecture action");
		goto out;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
			      SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
	if (rc < 0) {
		snprintf(step, steplen, "rule 'socket non-AF_UNIX'");
		goto out;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
			      SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
	if (rc < 0) {
		snprintf(step, steplen, "rule 'socketpair non-AF_UNIX'");
		goto out;
	}
	for (i = 0; i < sizeof(uring) / sizeof(uring[0]); i++) {
		int nr = seccomp_syscall_resolve_name(uring[i]);
		if (nr == __NR_SCMP_ERROR) {
			/* libseccomp older than the kernel: refuse to guess */
			snprintf(step, steplen, "resolve syscall '%s'", uring[i]);
			rc = -ENOSYS;
			goto out;
		}
		if (nr < 0)
			continue; /* not on this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (rc < 0) {
			snprintf(step, steplen, "rule '%s'", uring[i]);
			goto out;
		}
	}
	rc = seccomp_load(ctx);
	if (rc < 0)
		snprintf(step, steplen, "seccomp_load");
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
