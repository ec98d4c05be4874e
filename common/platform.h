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

/* Make the socket layer ready for a call that does not start with
 * srt__os_socket (getaddrinfo before the first socket): nothing on POSIX
 * systems, Winsock's start-up (once per process) on Windows. 0, or -1
 * with errno. */
int srt__os_net_init(void);

/* A close-on-exec socket, non-blocking when asked; -1 with errno. */
int srt__os_socket(int domain, int type, int protocol, bool nonblock);

/* Close a socket, or any descriptor the proxy's loops wait on: close(2),
 * or closesocket on Windows, where a socket is no file descriptor (and
 * where those loops wait on sockets alone). 0, or -1 with errno. */
int srt__os_sock_close(int fd);

/* A connected pair of close-on-exec, non-blocking stream sockets
 * (socketpair(2); on Windows, which has none, two loopback TCP sockets
 * the call checks it connected to each other). 0, or -1 with errno. */
int srt__os_socketpair(int fds[2]);

/* A close-on-exec, non-blocking TCP socket bound to a (of len bytes) and
 * listening: its descriptor, or -1 with errno (EADDRINUSE when the port is
 * taken). POSIX sets SO_REUSEADDR, so a restart binds again while the old
 * connections linger; Windows sets SO_EXCLUSIVEADDRUSE instead, as its
 * SO_REUSEADDR would let another program bind the same port and take the
 * clients. */
int srt__os_listen(const struct sockaddr *a, socklen_t len, int backlog);

/* accept(2) of a close-on-exec, non-blocking socket; -1 with errno. */
int srt__os_accept(int lfd);

/* send(2) that never raises SIGPIPE and never blocks. */
ssize_t srt__os_send(int fd, const void *buf, size_t len);

/* recv(2) that never blocks; flags is 0 or MSG_PEEK. -1 with errno
 * (EAGAIN: nothing there yet). */
ssize_t srt__os_recv(int fd, void *buf, size_t len, int flags);

/* Start connecting a non-blocking socket: 0 when connected already, -1
 * with errno, EINPROGRESS while the connection is under way (Windows says
 * "would block" there; it is turned into EINPROGRESS). */
int srt__os_connect(int fd, const struct sockaddr *a, socklen_t len);

/* Is fd a socket (of any kind)? */
bool srt__os_is_socket(int fd);

/* Make a descriptor non-blocking: 0, or -1 with errno (Windows can do it
 * for sockets only: ENOSYS for anything else). */
int srt__os_set_nonblock(int fd);

/* Read and write, without blocking, a descriptor the proxy's loops wait
 * on: read(2) and write(2) on POSIX, where it may be a pipe or a socket;
 * recv and send on Windows, where the loops wait on sockets alone
 * (srt__os_pollable makes one of anything else). */
ssize_t srt__os_read(int fd, void *buf, size_t len);
ssize_t srt__os_write(int fd, const void *buf, size_t len);

/* Descriptors a caller hands srt (a decider's pipes, a lifeline) as ones
 * the proxy's loops can wait on: in_fd to read from, out_fd (-1: none) to
 * write to. On POSIX they are returned as they are (*in = in_fd, *out =
 * out_fd). On Windows, where poll watches sockets only, anything but a
 * socket is relayed through one end of a socket pair, by a thread per
 * direction copying between the descriptor and the other end: *in (and
 * *out, the same socket when both were relayed) is that end, non-blocking;
 * the end of file travels too (in_fd's end shuts the socket's sending
 * side; closing *in closes out_fd). From the call on, the descriptors
 * belong to srt either way: close *in and *out with srt__os_sock_close.
 * 0, or -1 with errno, in_fd and out_fd closed. */
int srt__os_pollable(int in_fd, int out_fd, int *in, int *out);

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

/* Have prepare run before every fork() of the process and parent and
 * child after it, in each (pthread_atfork): 0, or an errno value. Where
 * there is no fork (Windows) nothing is registered and 0 is returned. */
int srt__os_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

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

/* The kernel's OOM killer chooses by size plus a score (oom_score_adj,
 * -1000 to 1000; -1000: never). A process may raise its own score; only a
 * privileged one may lower it. Both calls are async-signal-safe (a child
 * between vfork and exec makes them) and fail with ENOSYS where the system
 * has no such score.
 * srt__os_oom_target: into *target, this process's score moved by `by`
 * (kept within -1000 to 1000): 0, or -1 with errno (also EPERM for a
 * score of -1000, which a move would make killable).
 * srt__os_oom_at_least: raise this process's score to min when it is
 * lower (everything it starts afterwards inherits it). srt__os_oom_at_most:
 * lower it to max when it is higher; the kernel lets a process without
 * CAP_SYS_RESOURCE go down only to the lowest score a privileged writer
 * gave it (0 where none did): then as near to max as that allows, and -1
 * with EACCES. 0, or -1 with errno. */
int srt__os_oom_target(int by, int *target);
int srt__os_oom_at_least(int min);
int srt__os_oom_at_most(int max);

/* Could a process of this user write in the directory dir, at any time:
 * it can now, or it owns dir (its owner may chmod it writable again
 * whenever, so a sandboxed run may have made it read-only only to hide
 * what it planted there)? POSIX systems only. */
bool srt__os_dir_ours_to_write(const char *dir);

#endif
