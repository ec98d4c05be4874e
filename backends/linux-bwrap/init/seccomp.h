/* The seccomp filter the in-sandbox worker installs before exec (SPEC §5,
 * anchor-inventory §4.9). Built at run time by libseccomp for the running
 * architecture; a separate file so tests/unit/test-seccomp.c installs
 * exactly what the worker installs. */
#ifndef SRT_INIT_SECCOMP_H
#define SRT_INIT_SECCOMP_H

#include <stddef.h>

enum srt_seccomp_flags {
	/* network.allowAllUnixSockets: no AF_UNIX/AF_VSOCK/io_uring rules */
	SRT_SECCOMP_ALLOW_UNIX = 1u << 0,
	/* allowNestedUserNamespaces: no mount-family/namespace rules */
	SRT_SECCOMP_ALLOW_USERNS = 1u << 1,
};

/* Build the filter for flags and load it into the calling thread. The
 * caller must already have set PR_SET_NO_NEW_PRIVS (or hold
 * CAP_SYS_ADMIN). On failure returns a negative errno and writes the failed
 * step ("seccomp_load", "rule socket", ...) into step; nothing is loaded. */
int srt__seccomp_install(unsigned flags, char *step, size_t steplen);

#endif
