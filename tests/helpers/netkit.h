/* Socket helpers shared by the network tests (test-proxy, test-bridge and
 * the fault-injection proxy host): loopback listeners, a pump-driven echo
 * server, whole-buffer send and receive, and the client side of the
 * proxy's socket hand-over (proxies/wire.h). */
#ifndef SRT_TEST_NETKIT_H
#define SRT_TEST_NETKIT_H

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

/* Send all n bytes (retrying on EINTR, never raising SIGPIPE). 0 or -1. */
int netkit_send_all(int fd, const void *p, size_t n);

/* Read until n bytes arrived, EOF or an error (EINTR retried). Returns the
 * bytes read, so a short count means the stream ended early. */
size_t netkit_recv_n(int fd, void *buf, size_t n);

/* A stream connection to the Unix socket at path, or -1. */
int netkit_unix_connect(const char *path);

/* A control connection of the socket hand-over: hello sent and the proxy's
 * one-byte answer checked (5 s timeout). The descriptor, or -1. */
int netkit_ctl_connect(const char *path);

/* Pass n descriptors (n <= 64) in one hand-over message on ctl. 0 or -1. */
int netkit_send_fds(int ctl, const int *fds, int n);

#endif
