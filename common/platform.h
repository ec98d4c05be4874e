/* The seam between srt's portable code and the OS, for what libsrt, the
 * proxy and the backends share. platform-linux.c implements it with
 * Linux's calls, platform-posix.c with POSIX alone (what other systems
 * build, and what configure --with-platform=posix builds on Linux so the
 * fallbacks are compiled and tested here). No other file of libsrt,
 * proxies/, cli/ or common/ calls a Linux-only interface
 * (tests/integration/0004-layering.sh checks it). */
#ifndef SRT_COMMON_PLATFORM_H
#define SRT_COMMON_PLATFORM_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>

/* len random bytes from the kernel's generator: 0, or an errno. */
int srt__os_random(void *buf, size_t len);

/* Rename from to to (both below dfd), never over an existing name: 0, or
 * an errno (EEXIST when to exists). */
int srt__os_rename_noreplace(int dfd, const char *from, const char *to);

/* A pipe whose ends are close-on-exec, and non-blocking when asked. */
int srt__os_pipe(int fds[2], bool nonblock);

/* A close-on-exec socket, non-blocking when asked; -1 with errno. */
int srt__os_socket(int domain, int type, int protocol, bool nonblock);

/* Close a socket: close(2), or closesocket on Windows, where a socket is
 * no file descriptor. 0, or -1 with errno. */
int srt__os_sock_close(int fd);

/* A connected pair of close-on-exec, non-blocking stream sockets
 * (socketpair(2); on Windows, which has none, two loopback TCP sockets
 * the call checks it connected to each other). 0, or -1 with errno. */
int srt__os_socketpair(int fds[2]);

/* accept(2) of a close-on-exec, non-blocking socket; -1 with errno. */
int srt__os_accept(int lfd);

/* send(2) that never raises SIGPIPE and never blocks. */
ssize_t srt__os_send(int fd, const void *buf, size_t len);

/* recvmsg(2), never blocking, any descriptors received close-on-exec. */
ssize_t srt__os_recvmsg(int fd, struct msghdr *m);

/* Is fd a connected-or-connecting TCP socket over IPv4 or IPv6 (not a
 * listener)? */
bool srt__os_is_tcp_stream(int fd);

/* A descriptor that becomes readable when a signal of set arrives; the
 * caller has set blocked in every thread. -1 with errno. */
int srt__os_signal_fd(const sigset_t *set);
/* The signal that made fd readable, or -1. */
int srt__os_signal_read(int fd);

/* Clear len bytes in a way the compiler keeps (secrets). */
void srt__os_wipe(void *p, size_t len);

/* The last c in the n bytes at s, or NULL. */
void *srt__os_memrchr(const void *s, int c, size_t n);

/* A path the user wrote (--settings, a settings entry), spelled the
 * core's way into out (cap bytes): on POSIX systems unchanged; on Windows
 * "C:\x\y" or "C:/x/y" on the current drive is "/x/y", and a path on
 * another drive or a share is refused (common/winpath.h). 0, or -1 with
 * errno (ENOSYS: no spelling on this platform; ENAMETOOLONG). */
int srt__os_path_spell(const char *in, char *out, size_t cap);

#endif
