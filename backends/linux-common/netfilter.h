/* linux-landlock: the seccomp filter for what Landlock cannot see, in
 * addition to linux-bwrap's shared filter (backends/linux-bwrap/init/
 * seccomp.c):
 *  - sockets: without a network namespace, refusing to create them is the
 *    only way to keep the command off the network;
 *  - io_uring, always: IORING_OP_SOCKET makes sockets without socket(2);
 *  - System V IPC, always: there is no IPC namespace to keep the host's
 *    queues, semaphores and shared memory out of reach;
 *  - file ownership and extended attributes: Landlock before ABI 13 has no
 *    right for metadata, so chown(2) and setxattr(2) (POSIX ACLs among
 *    them) would reach files outside the write roots. */
#ifndef SRT_LANDLOCK_NETFILTER_H
#define SRT_LANDLOCK_NETFILTER_H

#include <stddef.h>
#include <stdint.h>

enum srt__ll_seccomp_flags {
	/* socket()/socketpair() of every family but AF_UNIX: EPERM */
	SRT_LL_SECCOMP_INET = 1u << 0,
	/* chown family: EPERM; setxattr/removexattr family: EOPNOTSUPP, which
	 * copying tools take as "no xattrs here"; chmod setting S_ISUID,
	 * S_ISGID, S_IWGRP or S_IWOTH: EPERM */
	SRT_LL_SECCOMP_META = 1u << 1,
	/* socketpair(AF_UNIX) of any type but stream and seqpacket: EPERM
	 * (a datagram end can sendto() any socket path). Set when the shared
	 * filter leaves its AF_UNIX rules to the write supervisor. */
	SRT_LL_SECCOMP_DGRAM_PAIR = 1u << 2,
};

/* Load the filter for flags (io_uring and System V IPC are refused
 * whatever the flags).
 * Other architectures are killed. The caller has set PR_SET_NO_NEW_PRIVS.
 * On failure returns a negative errno, names the failed step in step, and
 * nothing is loaded. */
int srt__ll_seccomp_install(unsigned flags, char *step, size_t steplen);

/* The program srt__ll_seccomp_install loads for flags when srt was built
 * without it (libseccomp's, built now): 0 with *prog (the caller's to
 * free) of *n instructions, or -errno with step saying where. seccomp-gen
 * compiles it into the helpers for every combination of the flags. */
struct sock_filter;
int srt__ll_seccomp_build_program(unsigned flags, struct sock_filter **prog, uint32_t *n, char *step,
				  size_t steplen);

#endif
