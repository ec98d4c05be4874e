/* srt-linux-init's violation monitor: the supervisor side of the seccomp
 * user-notification observer: the syscalls a command makes against the
 * policy are reported to srt as violation lines, without changing what
 * the command sees.
 *
 * srt hands the helper two descriptors: a sealed memfd with the monitor
 * policy (--monitor-policy-fd) and the write end of a pipe whose read end
 * srt reads violation lines from (--events-fd). The worker loads the
 * observe filter (seccomp.c) with a new listener and passes the listener
 * to the outer helper, which runs srt__monitor_handle() for each
 * notification:
 *  - with SRT_MONITOR_READS, a read or O_PATH open, a link or a rename
 *    whose path, resolved here as the caller would resolve it, reaches a
 *    denied ('h') path is refused (EACCES, or ENOENT when nothing is at the
 *    name) and reported: a host's rename over a denied file drops its cover
 *    until the watcher mounts it again, and the kernel alone would let the
 *    command read the new file in that moment. Any other such call is
 *    performed here, on what the resolution reached, and never continued
 *    (the kernel would read the path again, which another thread of the
 *    command can rewrite in between): an opened file is handed over with
 *    SECCOMP_IOCTL_NOTIF_ADDFD (Linux >= 5.9; srt__monitor_attach answers
 *    -EOPNOTSUPP without it). An O_PATH open, which reads nothing and which
 *    ADDFD cannot hand over, goes on to the kernel once judged: a read
 *    through it reopens /proc/self/fd/N, judged by the file's own path;
 *  - other file syscalls always go on unchanged (the reply is
 *    SECCOMP_USER_NOTIF_FLAG_CONTINUE); the path is read, classified and
 *    "deny <syscall> <path>" written when the policy refuses that access;
 *  - socket(AF_UNIX/AF_VSOCK), io_uring_*: the reply is always EPERM (this
 *    is the enforcement when the monitor is up) and the refusal reported;
 *  - with allowed Unix socket paths ('u' records): socket(AF_UNIX) of a
 *    stream or seqpacket type is answered with a socket the monitor makes
 *    (SECCOMP_IOCTL_NOTIF_ADDFD), and every connect is performed by the
 *    monitor on the caller's socket (pidfd_getfd): a Unix socket only to an
 *    allowed path as srt resolved it, an AF_INET/AF_INET6 socket to the
 *    address the caller gave (the sandbox's own network namespace), any
 *    other refused (linux-common/supervisor.h, srt__unix_connect_for).
 *
 * Policy memfd format (written by procargs.c, srt__bwrap_monitor_policy):
 * NUL-terminated records, the first "srt-monitor-policy 1", the second
 * "f<digit>" with the SRT_MONITOR_* flags, then one record per mount in the
 * order bwrap makes them: a state letter and an absolute path. The state of
 * a path is that of the LAST record at the path or above it (a later mount
 * hides everything mounted below its destination before it):
 *   'w' read-write, 'r' read-only, 'h' hidden (reads and writes refused),
 *   'p' placeholder of a missing denied path (writes refused; a read of a
 *       path that does not exist is not reported),
 *   'x' the sandbox's own /dev or /proc (never reported).
 * Records 'u' with an absolute path are not mounts: each is a Unix socket
 * path the command may connect to (network.allowUnixSockets), the real
 * directory plus the socket's name, at most 107 bytes; the flags record
 * then has SRT_MONITOR_UNIX_PATHS. */
#ifndef SRT_INIT_MONITOR_H
#define SRT_INIT_MONITOR_H

#include <stddef.h>

#define SRT_MONITOR_MAGIC "srt-monitor-policy 1"

enum srt__monitor_flag {
	SRT_MONITOR_WRITES = 1u << 0, /* observe write-intent file syscalls */
	SRT_MONITOR_READS = 1u << 1,  /* observe read opens (some path is hidden) */
	SRT_MONITOR_UNIX_PATHS = 1u << 2, /* 'u' records: observe every connect */
};

/* Events written at once at most (a burst), then SRT_MONITOR_RATE a
 * second; past that they are dropped, and a note says so (at most one a
 * minute). Equal lines are written once per command. */
#define SRT_MONITOR_MAX_EVENTS 1000
#define SRT_MONITOR_RATE 20

struct srt__monitor;

/* Read and check the policy from fd (a memfd sealed against writes; at
 * most 16 MiB). events_fd is the pipe to write lines on (made
 * non-blocking here). Returns 0, or -1 with a reason in err. */
int srt__monitor_load(int policy_fd, int events_fd, int debug, struct srt__monitor **out,
		      char *err, size_t errlen);
/* Same, from a buffer (unit tests); events_fd may be -1. */
int srt__monitor_parse(const char *buf, size_t len, int events_fd, int debug,
		       struct srt__monitor **out, char *err, size_t errlen);
void srt__monitor_free(struct srt__monitor *m);

/* SRT_MONITOR_* flags of the policy. */
unsigned srt__monitor_flags(const struct srt__monitor *m);

/* The allowed Unix socket paths ('u' records); *n their number. */
char *const *srt__monitor_unix_paths(const struct srt__monitor *m, size_t *n);

/* Is this access refused by the policy? path is absolute and normalised.
 * Returns 1 when a write (write != 0) or read of path is denied. */
int srt__monitor_denied(const struct srt__monitor *m, const char *path, int write);

/* Normalise base + "/" + rel (rel alone when absolute) lexically: no ".",
 * "..", "//" or trailing "/". Returns the length, or -1 when it does not
 * fit in outlen. */
int srt__monitor_join(const char *base, const char *rel, char *out, size_t outlen);

/* Every process of the command keeps the root it starts with: none can
 * make a user namespace (without allowNestedUserNamespaces), and without
 * one nothing it runs may chroot or pivot_root. The monitor then opens that
 * root once and resolves every path in it, instead of opening the caller's
 * /proc/<pid>/root at each call. Not for a command that may make user
 * namespaces: a process of it can chroot into a directory of its own. */
void srt__monitor_one_root(struct srt__monitor *m);

/* Make the calls the monitor performs for the command (the last open,
 * create, link or rename of each) under the Landlock ruleset the command
 * runs under: a thread restricted with it makes them. Before
 * srt__monitor_attach; ruleset stays the caller's. 0 or an errno (the
 * monitor must not run then: it would make them outside the layer). */
int srt__monitor_confine(struct srt__monitor *m, int ruleset);
/* Make the listener ready (sizes, wake-up flags). Returns 0 or -errno. */
int srt__monitor_attach(struct srt__monitor *m, int listener);
/* Receive one notification on the attached listener, answer it, report
 * it. Returns 0, or -1 when the listener is unusable or nobody uses the
 * filter any more (close it). Never
 * blocks for long: reads are bounded, the events pipe is non-blocking. */
int srt__monitor_handle(struct srt__monitor *m);
/* Write the pending "events dropped" note, waiting at most timeout_ms for
 * room in the pipe. Called when the command has ended. */
void srt__monitor_finish(struct srt__monitor *m, int timeout_ms);

/* Format and record one event (exposed for unit tests): dedups, applies
 * the rate limit, escapes control characters. Returns 1 when written. */
int srt__monitor_event(struct srt__monitor *m, const char *syscall, const char *what);

#endif
