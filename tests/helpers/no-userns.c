/* no-userns: run argv the way Docker's default seccomp profile would, as
 * far as srt cares: no new user namespace (clone/unshare with
 * CLONE_NEWUSER fail with EPERM, clone3 with ENOSYS so libc falls back to
 * clone). Used to check that linux-landlock still enforces the policy where
 * linux-bwrap cannot start.
 *
 *   no-userns command [args...] */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <seccomp.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int rc, no_landlock = 0;

	/* --no-landlock: also a kernel without Landlock (ENOSYS), as in an
	 * older container host */
	if (argc >= 2 && !strcmp(argv[1], "--no-landlock")) {
		no_landlock = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: no-userns [--no-landlock] command [args...]\n");
		return 125;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "no-userns: seccomp_init failed\n");
		return 125;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
			      SCMP_A0_32(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				      SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (rc == 0 && no_landlock)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_create_ruleset), 0);
	if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		rc = -errno;
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		fprintf(stderr, "no-userns: cannot install the filter: %s\n", strerror(-rc));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no-userns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
