/* The socket hand-over protocol between the in-sandbox bridge
 * (backends/linux-bwrap/init/bridge.c) and the proxy, on the proxy's Unix
 * socket. Both sides include this header and nothing else of each other.
 *
 * A client of the Unix socket whose first byte is SRT_PASS_HELLO is a
 * control connection: the proxy answers SRT_PASS_HELLO, then every message
 * on it is one byte carrying up to SRT_PASS_MAX_FDS accepted TCP sockets
 * (SCM_RIGHTS), each served as a client of its own (still
 * token-authenticated). */
#ifndef SRT_PROXY_WIRE_H
#define SRT_PROXY_WIRE_H

#define SRT_PASS_HELLO '\0'
#define SRT_PASS_MAX_FDS 8
/* control connections open at once (the bridge needs one; the rest is
 * room for its reconnects): more are closed at their hello */
#define SRT_PASS_MAX_CTL 4

#endif
