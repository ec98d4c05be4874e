/* Proxy glue between the sandbox and proxies/ (proxy-glue.c). */
#ifndef SRT_LIBSRT_PROXY_GLUE_H
#define SRT_LIBSRT_PROXY_GLUE_H

#include "sandbox.h"

/* Start the proxy in a fresh 0700 directory under TMPDIR and write its
 * socket, directory and ports into sb->policy, for the backend to bridge.
 * Also notes TMPDIR in sb->sweep_base for the sweep below. */
int srt__sandbox_start_proxy(struct srt_sandbox *sb, struct srt_diag *diag);

/* Remove the proxy directories under base that belonged to a srt that is
 * gone (killed with SIGKILL). Never fails; leaves anything unexpected. */
void srt__sandbox_sweep_proxy_dirs(const char *base);

#endif
