/* linux-landlock's write supervisor: the layer that keeps the write roots
 * writable at every level while the protected names (mandatory.h, the
 * denyWrite and denyRead paths, the loaded settings files) stay unwritable
 * and uncreatable.
 *
 * Landlock can only grant: it cannot refuse one name in a directory where
 * it allows creation. So under linux-landlock the command gets no write
 * right of its own inside the write roots (Landlock keeps them read-only
 * to it), and every call that creates, replaces, removes or write-opens a
 * name stops on a seccomp user notification (seccomp.h,
 * srt__seccomp_install_supervisor). The supervisor, a process outside the
 * command's Landlock domain (the command cannot ptrace or signal it; if it
 * dies, the kernel fails every supervised call with ENOSYS), then:
 *  - reads the path from the caller's memory once, into its own copy, and
 *    checks with SECCOMP_IOCTL_NOTIF_ID_VALID that the caller still waits;
 *  - resolves the directory that holds the name through /proc/<tid>/cwd or
 *    /proc/<tid>/fd/<n> without magic links, takes its real path, and when
 *    that lies in a write root, re-opens it from the write root's own
 *    descriptor with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
 *    RESOLVE_NO_SYMLINKS and checks it is the same directory;
 *  - refuses (EACCES, one "deny <syscall> <path>" violation line) a name
 *    that is protected, an existing file that is a hard link of a protected
 *    file, the removal or renaming of a directory that holds a protected
 *    path, and a renamed directory that would bring a protected name into
 *    place; a final symbolic link is followed by the supervisor itself, hop
 *    by hop, each hop checked the same way;
 *  - otherwise performs the call itself on that directory descriptor (the
 *    name never leaves its own memory) and answers with the result, an
 *    opened file being handed over with SECCOMP_IOCTL_NOTIF_ADDFD and
 *    SECCOMP_ADDFD_FLAG_SEND.
 * Mode and time changes (the chmod and utimes families), which Landlock has
 * no right for, are supervised everywhere: the supervisor pins the object
 * (O_PATH), allows the change only when it lies in a write root on no
 * protected name and is no hard link of a protected file, and makes it on
 * its pinned descriptor; anything else is EACCES and a violation (chown
 * and the xattr calls are refused outright by linux-landlock's filter).
 * A call whose directory is not inside a write root (or cannot be resolved
 * this way: a magic link, a missing directory) is let through with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE. That is safe whatever the path names
 * by the time the kernel runs it, because Landlock gives the command no
 * write right in any write root: a continued call can only do what
 * Landlock allows anyway (the /dev set, a regular-file stdout).
 *
 * Sockets (network.allowUnixSockets): socket(AF_UNIX) is answered with a
 * stream or seqpacket socket the supervisor makes (datagram sockets can
 * send to any path with sendto, which is not supervised: refused), and
 * every connect is performed by the supervisor on the caller's socket
 * (pidfd_getfd) to the allowed path it holds, never to the caller's
 * string; any other address, abstract ones included, is refused.
 *
 * The plan srt hands the exec helper (a sealed memfd, NUL-terminated
 * records):
 *   "srt-supervisor-plan 1"
 *   "root DEV INO PATH"  a write root (checked to be that directory)
 *   "deny WHY\tPATH"     a protected path, and everything below it
 *   "pass PATH"          below it the kernel decides (CONTINUE): /dev, /proc,
 *                        /sys under a write root "/"
 *   "name WHY\tREL"      a protected name pattern ("/"-separated components,
 *                        matched case-insensitively at any position below a
 *                        root, however deep, but not below a node_modules
 *                        component: package content)
 *   "repo WHY\tREL"      a name inside a git directory (REL starts with
 *                        ".git/"), matched like "name" but only where that
 *                        .git directory exists and the command did not make
 *                        it (mkdir, or a rename to .git, during the run);
 *                        such a .git itself may not be renamed or replaced
 *   "unix PATH"          an allowed Unix socket path (absolute, real)
 *   "end" */
#ifndef SRT_LINUX_SUPERVISOR_H
#define SRT_LINUX_SUPERVISOR_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SRT_SUPER_PLAN_MAGIC "srt-supervisor-plan 1"
#define SRT_SUPER_PLAN_MAX (16u << 20)

struct srt__super;

/* Parse the plan (buf is modified) and open the write roots. A root that
 * is gone or is no longer the planned directory is left out (its calls are
 * continued, so Landlock refuses them). Returns 0, or -1 with err set. */
int srt__super_parse(char *buf, size_t len, struct srt__super **out, char *err, size_t errlen);

/* Read the plan from a memfd (at most SRT_SUPER_PLAN_MAX bytes). */
int srt__super_load(int fd, struct srt__super **out, char *err, size_t errlen);

void srt__super_free(struct srt__super *s);

/* Does the plan allow any Unix socket path (the filter then notifies
 * socket(AF_UNIX) and connect)? */
int srt__super_has_unix(const struct srt__super *s);

/* Can the supervisor perform any call for the command (a write root it
 * opened, or an allowed Unix socket path)? Such a call runs outside every
 * Landlock domain the command would add to itself, so the command must
 * then not be let add one (SRT_SECCOMP_NO_LANDLOCK_SELF). Without either,
 * every notification is continued or refused, never performed. */
int srt__super_acts(const struct srt__super *s);

/* The decision on an absolute, real path: NULL when it may be created,
 * written or removed; else the reason (the rule). With holds, a protected
 * path below path also refuses (removing or renaming path would move it). */
const char *srt__super_refused(const struct srt__super *s, const char *path, int holds);

/* Is path (absolute) under a "pass" record? */
int srt__super_passed(const struct srt__super *s, const char *path);

/* Answer notifications on listener until every process it filters is gone
 * or stop_fd (when >= 0: a pidfd of the command) becomes readable (0), or
 * the listener fails (-1). Violation lines go to events_fd when it is >= 0.
 * Signals interrupt the wait and are otherwise ignored here. */
int srt__super_serve(struct srt__super *s, int listener, int stop_fd, int events_fd);

/* ---- the Unix socket allow list -----------------------------------------
 * Shared by this supervisor and linux-bwrap's monitor (srt-linux-init),
 * both answering seccomp user notifications of socket(AF_UNIX) and
 * connect. Nothing here answers CONTINUE: the decision on a connect never
 * depends on bytes the caller can still change. */

/* socket(AF_UNIX, type, proto) for a caller: a stream or seqpacket socket
 * made here, close-on-exec (*fd, to hand over with
 * SECCOMP_IOCTL_NOTIF_ADDFD), or the errno to answer with (EPERM for any
 * other type: a datagram socket can sendto() any path unsupervised). */
int srt__unix_socket_for(int type, int proto, int *fd);

struct srt__unix_connect {
	pid_t pid;        /* the caller as the notification names it */
	long proc_pid;    /* the caller's number in the /proc we see */
	int listener;     /* the notification's listener and id: checked to */
	uint64_t id;      /* be still waiting after the address is read */
	int sockfd;       /* connect's arguments */
	uint64_t addr;
	uint64_t len;
	char *const *allowed; /* the allowed paths, absolute and real as srt */
	size_t n_allowed;     /* resolved them at start */
	int inet;         /* AF_INET/AF_INET6 sockets: connected here as asked
			   * (1) or refused (0) */
	char what[PATH_MAX]; /* out: what to report as refused, or "" */
};

/* connect(2) for a caller: its socket is taken with pidfd_getfd and the
 * connect performed here. A stream or seqpacket Unix socket is connected
 * to the allowed path its address names (the real directory plus the
 * name, compared with the list), spelled as the list holds it, never to the
 * caller's bytes; any other path, an abstract address, a datagram or
 * other-family socket is refused. Returns 0 (connected) or the errno to
 * answer with; uc->what says what to report when it is not empty. */
int srt__unix_connect_for(struct srt__unix_connect *uc);

#endif
