/* linux-landlock: the seccomp filter for what Landlock cannot see (see
 * netfilter.h; here, in the helpers' shared library, because the build's
 * table of programs, seccomp-gen, builds it too).
 *
 * Sockets: an allow-list, not a list of network families. AF_INET and
 * AF_INET6 are the obvious ones, but AF_SMC, AF_TIPC, AF_RDS and friends
 * reach other hosts too, and netlink would show (and, with privileges,
 * change) the host's interfaces. The family is compared on its low 32
 * bits, as the kernel reads it.
 *
 * System calls newer than our libseccomp are filtered by their number in
 * the kernel's unified table (403 and up, the same on every architecture
 * srt__seccomp_resolve knows); elsewhere an unknown name is an error: fail
 * closed. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <seccomp.h>

#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/netfilter.h"

struct call {
	const char *name;
	int unified_nr; /* -1: an older system call libseccomp always knows */
};

static const struct call uring_calls[] = {
	{ "io_uring_setup", 425 }, { "io_uring_enter", 426 }, { "io_uring_register", 427 },
};

/* System V IPC: without an IPC namespace the command would share the
 * host's message queues, semaphores and shared memory of its user (of
 * every user, for root), and Landlock does not see them. An id can be
 * guessed without *get, so every call is refused. ("ipc" is the i386
 * multiplexer: absent here, or another architecture, which is killed.) */
static const struct call sysv_calls[] = {
	{ "shmget", -1 }, { "shmat", -1 }, { "shmctl", -1 }, { "shmdt", -1 },
	{ "msgget", -1 }, { "msgsnd", -1 }, { "msgrcv", -1 }, { "msgctl", -1 },
	{ "semget", -1 }, { "semop", -1 }, { "semtimedop", -1 }, { "semctl", -1 },
	{ "ipc", -1 },
};

static const struct call chown_calls[] = {
	{ "chown", -1 }, { "fchown", -1 }, { "lchown", -1 }, { "fchownat", -1 },
	{ "chown32", -1 }, { "fchown32", -1 }, { "lchown32", -1 },
};

static const struct call xattr_calls[] = {
	{ "setxattr", -1 }, { "lsetxattr", -1 }, { "fsetxattr", -1 },
	{ "removexattr", -1 }, { "lremovexattr", -1 }, { "fremovexattr", -1 },
	{ "setxattrat", 463 }, { "removexattrat", 466 },
};

/* The mode argument of each chmod call. */
static const struct {
	const char *name;
	int unified_nr;
	unsigned mode_arg;
} chmod_calls[] = {
	{ "chmod", -1, 1 }, { "fchmod", -1, 1 }, { "fchmodat", -1, 2 }, { "fchmodat2", 452, 2 },
};

/* Mode bits chmod may not set: set-id bits (a set-uid-root copy of an
 * existing binary made by a uid-0 command would outlive the sandbox) and
 * group/other write (someone else could then edit the user's files). */
static const unsigned chmod_forbidden[] = { S_ISUID, S_ISGID, S_IWGRP, S_IWOTH };

static int resolve(const char *name, int unified_nr, int *nr, char *step, size_t steplen)
{
	int rc = srt__seccomp_resolve(name, unified_nr, nr);

	if (rc < 0)
		snprintf(step, steplen, "resolve syscall '%s'", name);
	return rc;
}

static int add_chmod(scmp_filter_ctx ctx, char *step, size_t steplen)
{
	size_t i, j;
	int nr, rc;

	for (i = 0; i < sizeof(chmod_calls) / sizeof(chmod_calls[0]); i++) {
		rc = resolve(chmod_calls[i].name, chmod_calls[i].unified_nr, &nr, step, steplen);
		if (rc < 0)
			return rc;
		if (nr < 0)
			continue;
		for (j = 0; j < sizeof(chmod_forbidden) / sizeof(chmod_forbidden[0]); j++) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
					      SCMP_CMP32(chmod_calls[i].mode_arg, SCMP_CMP_MASKED_EQ,
							 chmod_forbidden[j], chmod_forbidden[j]));
			if (rc < 0) {
				snprintf(step, steplen, "rule '%s' mode", chmod_calls[i].name);
				return rc;
			}
		}
	}
	return 0;
}

static int add_calls(scmp_filter_ctx ctx, uint32_t action, const struct call *v, size_t n,
		     char *step, size_t steplen)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		int nr;

		rc = resolve(v[i].name, v[i].unified_nr, &nr, step, steplen);
		if (rc < 0)
			return rc;
		if (nr < 0)
			continue; /* not a system call of this architecture */
		rc = seccomp_rule_add(ctx, action, nr, 0);
		if (rc < 0) {
			snprintf(step, steplen, "rule '%s'", v[i].name);
			return rc;
		}
	}
	return 0;
}

/* The filter for flags, built (not loaded): 0 with *out the caller's, or
 * -errno with step saying where. */
static int build(unsigned flags, scmp_filter_ctx *out, char *step, size_t steplen)
{
	scmp_filter_ctx ctx;
	int rc;

	*out = NULL;
	ctx = srt__seccomp_filter_new(&rc, step, steplen);
	if (!ctx)
		return rc;
	/* srt__seccomp_filter_new sets rc only on failure: without the
	 * INET rules the datagram loop below read it unset, and the build
	 * of flags 0x4 and 0x6 failed, or not, by chance (CI: seccomp-gen
	 * left them out, and test-seccomp said so) */
	rc = 0;
	if (flags & SRT_LL_SECCOMP_INET) {
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
	}
	if (flags & SRT_LL_SECCOMP_DGRAM_PAIR) {
		int type;

		for (type = 0; type <= 0xf && rc >= 0; type++) {
			if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
				continue;
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 2,
					      SCMP_CMP64(0, SCMP_CMP_MASKED_EQ, 0xffffffffULL, AF_UNIX),
					      SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, (uint64_t)type));
		}
		if (rc < 0) {
			snprintf(step, steplen, "rule 'socketpair AF_UNIX SOCK_DGRAM'");
			goto out;
		}
	}
	rc = add_calls(ctx, SCMP_ACT_ERRNO(EPERM), uring_calls,
		       sizeof(uring_calls) / sizeof(uring_calls[0]), step, steplen);
	if (rc < 0)
		goto out;
	rc = add_calls(ctx, SCMP_ACT_ERRNO(EPERM), sysv_calls,
		       sizeof(sysv_calls) / sizeof(sysv_calls[0]), step, steplen);
	if (rc < 0)
		goto out;
	if (flags & SRT_LL_SECCOMP_META) {
		rc = add_calls(ctx, SCMP_ACT_ERRNO(EPERM), chown_calls,
			       sizeof(chown_calls) / sizeof(chown_calls[0]), step, steplen);
		if (rc < 0)
			goto out;
		rc = add_calls(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), xattr_calls,
			       sizeof(xattr_calls) / sizeof(xattr_calls[0]), step, steplen);
		if (rc < 0)
			goto out;
		rc = add_chmod(ctx, step, steplen);
		if (rc < 0)
			goto out;
	}
	*out = ctx;
	return 0;
out:
	seccomp_release(ctx);
	return rc;
}

int srt__ll_seccomp_build_program(unsigned flags, struct sock_filter **prog, uint32_t *n, char *step,
				  size_t steplen)
{
	scmp_filter_ctx ctx;
	int rc;

	*prog = NULL;
	*n = 0;
	if (flags >= SRT_SECCOMP_LL_NET_COMBINATIONS)
		return -EINVAL;
	rc = build(flags, &ctx, step, steplen);
	return rc < 0 ? rc : srt__seccomp_ctx_program(ctx, prog, n, step, steplen);
}

int srt__ll_seccomp_install(unsigned flags, char *step, size_t steplen)
{
	const struct srt__seccomp_program *built = srt__seccomp_program_built(SRT_SECCOMP_KIND_LL_NET, flags);
	scmp_filter_ctx ctx;
	int rc;

	if (built)
		return srt__seccomp_load_built(built, step, steplen);
	rc = build(flags, &ctx, step, steplen);
	if (rc < 0)
		return rc;
	rc = seccomp_load(ctx);
	if (rc < 0)
		snprintf(step, steplen, "seccomp_load");
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
