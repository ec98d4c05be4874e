/* srt-connect, ssh's ProxyCommand through the sandbox's proxy: connect.c
 * (portable) reads the proxy's address from the environment and opens the
 * CONNECT tunnel; the relay between ssh's pipes and the tunnel is per
 * system: connect-relay-posix.c waits on both with poll,
 * connect-relay-windows.c (win/build.sh) copies each direction on its own
 * thread, as Windows has no call that waits on a pipe and a socket. */
#ifndef SRT_PROXY_CONNECT_H
#define SRT_PROXY_CONNECT_H

#include <stddef.h>

/* Send all len bytes of buf on the blocking socket sock (no SIGPIPE):
 * 0, or -1 when the connection failed. */
int srt__connect_send(int sock, const void *buf, size_t len);

/* Copy standard input to sock and sock to standard output until the
 * tunnel ends. At the end of standard input the socket's sending side is
 * shut and the other direction goes on; the end of the tunnel ends the
 * relay. The process's exit status: 0 when the proxy closed the tunnel,
 * 1 when reading the tunnel, writing it or writing standard output
 * failed. */
int srt__connect_relay(int sock);

#endif
