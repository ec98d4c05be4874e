/* Socket helpers shared by the network tests (test-proxy, test-bridge and
 * the fault-injection proxy host): loopback listeners, a pump-driven echo
 * server, a thread-per-connection server, whole-buffer send and receive,
 * the opening bytes of a SOCKS5 client and the client side of the proxy's
 * socket hand-over (proxies/wire.h). */
#ifndef SRT_TEST_NETKIT_H
#define SRT_TEST_NETKIT_H

#include <stdatomic.h>
#include <stddef.h>

/* Write text to path, created when missing (mode 0644), not truncated:
 * for /proc files and fresh files in a test's own directory. 0 or -1. */
int netkit_write_file(const char *path, const char *text);

/* Enter new namespaces (unshare(2) flags such as CLONE_NEWNET). Not as
 * root, a user namespace comes with them, mapping our uid and gid to root
 * in it, so the rest of the test may configure what it unshared. 0 or -1. */
int netkit_unshare(int flags);

/* Bring up the loopback interface of the current network namespace (a new
 * one starts with it down). 0 or -1. */
int netkit_lo_up(void);

/* A TCP listener on 127.0.0.1, port chosen by the kernel (written to
 * *port). Returns the descriptor or -1. */
int netkit_listen_tcp(int *port);

/* Thread body: serves the listener *(int *)arg forever, echoing every byte
 * back on each connection and answering EOF with FIN (half-close
 * honoured). */
void *netkit_echo_server(void *arg);

/* Accept connections on lfd forever (until the listener is closed), each
 * served by a detached thread running conn((void *)(intptr_t)fd). live, when
 * not NULL, is raised by one before each thread starts (conn lowers it when
 * done) and lowered again when the thread cannot start; such a connection
 * is closed. */
void netkit_serve_threads(int lfd, void *(*conn)(void *), atomic_int *live);

/* Send all n bytes (retrying on EINTR, never raising SIGPIPE). 0 or -1. */
int netkit_send_all(int fd, const void *p, size_t n);

/* Read until n bytes arrived, EOF or an error (EINTR retried). Returns the
 * bytes read, so a short count means the stream ended early. */
size_t netkit_recv_n(int fd, void *buf, size_t n);

/* The opening of a SOCKS5 client in one buffer: the greeting offering
 * user/password, the RFC 1929 login of user "srt" with password token, then
 * rl bytes of request. buf needs room for 9 + strlen(token) + rl bytes.
 * Returns the length written. */
size_t netkit_socks_open(char *buf, const char *token, const void *request, size_t rl);

/* A SOCKS5 CONNECT request to 127.0.0.1:port: 10 bytes written to buf. */
void netkit_socks_loopback(char *buf, int port);

/* A stream connection to the Unix socket at path, or -1. */
int netkit_unix_connect(const char *path);

/* A control connection of the socket hand-over: hello sent and the proxy's
 * one-byte answer checked (5 s timeout). The descriptor, or -1. */
int netkit_ctl_connect(const char *path);

/* Pass n descriptors (n <= 64) in one hand-over message on ctl. 0 or -1. */
int netkit_send_fds(int ctl, const int *fds, int n);

#endif
