/* linux-landlock: the seccomp filter that stands in for the empty network
 * namespace linux-bwrap gives: without a namespace, refusing to create
 * sockets is the only way to keep the command off the network. */
#ifndef SRT_LANDLOCK_NETFILTER_H
#define SRT_LANDLOCK_NETFILTER_H

#include <stddef.h>

/* Load a filter that refuses socket() and socketpair() of every family but
 * AF_UNIX, and the io_uring system calls, with EPERM (whether AF_UNIX itself is allowed is the shared
 * filter's business, backends/linux-bwrap/init/seccomp.c). Other
 * architectures are killed. The caller has set PR_SET_NO_NEW_PRIVS. On
 * failure returns a negative errno, names the failed step in step, and
 * nothing is loaded. */
int srt__ll_seccomp_net(char *step, size_t steplen);

#endif
