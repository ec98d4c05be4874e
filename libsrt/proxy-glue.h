/* Proxy glue between the sandbox and proxies/ (proxy-glue.c). */
#ifndef SRT_LIBSRT_PROXY_GLUE_H
#define SRT_LIBSRT_PROXY_GLUE_H

#include "sandbox.h"

/* Start the proxy in a fresh 0700 directory under TMPDIR and write its
 * socket, directory and ports into sb->policy, for the backend to bridge.
 * Also notes TMPDIR in sb->sweep_base for the sweep below. For a backend
 * with SRT_CAP_LOOPBACK_PROXY: no directory and no socket; the proxy
 * listens on the first free port of sb->policy.proxy_port_lo .. hi at
 * 127.0.0.1 (none free: the run is refused) and wants the token. */
int srt__sandbox_start_proxy(struct srt_sandbox *sb, struct srt_diag *diag);

/* For a backend the command reaches the proxy through on loopback TCP
 * (SRT_CAP_LOOPBACK_PROXY): the port range of windows.proxyPortRange
 * (default 60080-60089) into sb->policy, for the backend's network rules,
 * whether the proxy runs or not. Nothing for any other backend. */
void srt__sandbox_proxy_ports(struct srt_sandbox *sb);

/* Remove the proxy directories under base that belonged to a srt that is
 * gone (killed with SIGKILL). Never fails; leaves anything unexpected. */
void srt__sandbox_sweep_proxy_dirs(const char *base);

#endif
