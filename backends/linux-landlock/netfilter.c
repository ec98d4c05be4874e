/* linux-landlock: refuse every socket family but AF_UNIX (see netfilter.h).
 *
 * An allow-list, not a list of network families: AF_INET and AF_INET6 are
 * the obvious ones, but AF_SMC, AF_TIPC, AF_RDS and friends reach other
 * hosts too, and netlink would show (and, with privileges, change) the
 * host's interfaces. The family is compared on its low 32 bits, as the
 * kernel reads it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include <seccomp.h>

#include "backends/linux-landlock/netfilter.h"

int srt__ll_seccomp_net(char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
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
	rc = seccomp_load(ctx);
	if (rc < 0)
		snprintf(step, steplen, "seccomp_load");
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
