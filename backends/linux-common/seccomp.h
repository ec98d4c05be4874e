/* The seccomp filter the in-sandbox worker installs before exec. Built by
 * libseccomp for the architecture srt was built for, once per flag
 * combination when srt is built (see "filters built when srt was built"
 * below), else at run time; a separate file so tests/unit/test-seccomp.c
 * installs exactly what the worker installs. */
#ifndef SRT_INIT_SECCOMP_H
#define SRT_INIT_SECCOMP_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* Numbers the filter refuses that older libc headers may not name; the
 * tests that probe the filter use the same ones. */
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef TIOCSETD
#define TIOCSETD 0x5423
#endif

enum srt__seccomp_flags {
	/* network.allowAllUnixSockets: no AF_UNIX/AF_VSOCK/io_uring rules */
	SRT_SECCOMP_ALLOW_UNIX = 1u << 0,
	/* allowNestedUserNamespaces: no mount-family/namespace rules */
	SRT_SECCOMP_ALLOW_USERNS = 1u << 1,
	/* the observe filter refuses AF_UNIX/AF_VSOCK/io_uring (through its
	 * supervisor): leave those rules out, or their ERRNO action would take
	 * precedence over the notification and hide the refusal */
	SRT_SECCOMP_UNIX_OBSERVED = 1u << 2,
	/* something outside any Landlock domain the command would add makes
	 * calls for it (linux-bwrap's violation monitor with denyRead,
	 * linux-landlock's write supervisor with a write root or a Unix
	 * socket path): landlock_restrict_self is refused (EPERM) rather
	 * than seem to restrict what it would not */
	SRT_SECCOMP_NO_LANDLOCK_SELF = 1u << 3,
};

/* A new libseccomp filter (a scmp_filter_ctx) with default ALLOW that kills
 * the whole process for a syscall made through another architecture (a
 * 32-bit compat entry on a 64-bit kernel): the start of every filter srt
 * loads. The caller owns it (seccomp_release). On failure returns NULL,
 * writes the failed step into step and a negative errno into *err. */
void *srt__seccomp_filter_new(int *err, char *step, size_t steplen);

/* The number to filter for the syscall name on this architecture
 * (libseccomp's answer, else unified_nr, its number in the table shared by
 * the common architectures for syscalls 403 and up, when not -1): 0 with
 * *nr < 0 when this architecture has no such syscall, or -ENOSYS when we
 * cannot tell (*nr untouched). */
int srt__seccomp_resolve(const char *name, int unified_nr, int *nr);

/* Build the filter for flags and load it into the calling thread. The
 * caller must already have set PR_SET_NO_NEW_PRIVS (or hold
 * CAP_SYS_ADMIN). On failure returns a negative errno and writes the failed
 * step ("seccomp_load", "rule socket", ...) into step; nothing is loaded. */
int srt__seccomp_install(unsigned flags, char *step, size_t steplen);

/* The violation monitor's observe filter: it reports, never refuses. */
enum srt__observe_flags {
	SRT_OBSERVE_WRITES = 1u << 0, /* write-intent file syscalls: notify */
	SRT_OBSERVE_READS = 1u << 1,  /* also every open/openat for reading */
	SRT_OBSERVE_UNIX = 1u << 2,   /* socket(AF_UNIX/AF_VSOCK), io_uring_*,
				       * socketpair(AF_UNIX, SOCK_DGRAM): notify;
				       * the supervisor refuses them */
	SRT_OBSERVE_CONNECT = 1u << 3, /* with SRT_OBSERVE_UNIX: every connect,
					* performed by the supervisor
					* (network.allowUnixSockets) */
};

enum srt__observed_kind {
	SRT_OBS_OPEN = 1, /* open/openat: flags_arg tells read from write */
	SRT_OBS_WRITE,    /* always a write of its path operands */
	SRT_OBS_SOCKET,
	SRT_OBS_IOURING,
	SRT_OBS_SOCKETPAIR, /* AF_UNIX SOCK_DGRAM only */
	SRT_OBS_CONNECT,    /* only with SRT_OBSERVE_CONNECT; never continued */
};

/* Kinds the supervisor refuses (EPERM) rather than lets through. */
#define SRT_OBS_REFUSED(kind) \
	((kind) == SRT_OBS_SOCKET || (kind) == SRT_OBS_IOURING || (kind) == SRT_OBS_SOCKETPAIR)

struct srt__observed_syscall {
	const char *name;
	int unified_nr;         /* see resolve() in seccomp.c, or -1 */
	unsigned char kind;     /* enum srt__observed_kind */
	signed char flags_arg;  /* SRT_OBS_OPEN: the open flags (openat2 is not
				 * observed: the enforcement filter refuses it) */
	signed char at[2][2];   /* the (dirfd arg or -1 for the cwd, path arg)
				 * operands the call creates or changes; path
				 * arg -1 = no such operand */
};

extern const struct srt__observed_syscall srt__observed_syscalls[];
extern const size_t srt__n_observed_syscalls;

/* The open flags that mean write intent (O_TMPFILE needs O_WRONLY or
 * O_RDWR, so it is covered). From <fcntl.h>: they differ by architecture. */
#define SRT_OPEN_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* This architecture's number for s, or -1 when it has no such syscall. */
int srt__seccomp_observed_nr(const struct srt__observed_syscall *s);

/* Can this kernel run the observer (user notifications with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux >= 5.5)? 0 or -errno. */
int srt__seccomp_notify_supported(char *step, size_t steplen);

/* Load the observe filter for the observe flags into the calling thread
 * and return its listener in *listener (close-on-exec). Nothing from the
 * enforcement filter is in it: load that one afterwards, with
 * SRT_SECCOMP_UNIX_OBSERVED when observe has SRT_OBSERVE_UNIX. On failure
 * returns a negative errno (step says where); nothing is loaded when
 * *listener is -1, while -2 means the filter is in place but its listener
 * was lost (every observed call would fail: do not run the command). Every
 * notification blocks the caller until someone answers on the listener:
 * hand it to the supervisor before anything else runs. */
int srt__seccomp_install_observer(unsigned observe, int *listener, char *step, size_t steplen);

/* ---- filters built ahead ------------------------------------------------
 * Building a filter with libseccomp takes longer than loading it. A
 * process that is not the one to load them can build the observe filter
 * (observe, 0 for none) and the enforcement filter (flags) ahead and write
 * their BPF programs, as libseccomp would load them, to fd (a pipe, which
 * they fit in whole); the loading process reads them and loads each as
 * the install functions above would, once it has checked that observe
 * and flags are what it would have built itself (else it builds its own).
 * 0 or -errno (step says where). */
int srt__seccomp_export(unsigned observe, unsigned flags, int fd, char *step, size_t steplen);

struct sock_filter;
struct srt__seccomp_prebuilt {
	unsigned observe, flags;
	struct sock_filter *obs, *enf;
	uint32_t n_obs, n_enf;
};

/* Read what srt__seccomp_export wrote: 0, or -EIO (nothing usable: EOF,
 * a short or malformed message). */
int srt__seccomp_read_prebuilt(int fd, struct srt__seccomp_prebuilt *p);
void srt__seccomp_prebuilt_free(struct srt__seccomp_prebuilt *p);

/* srt__seccomp_install_observer with p's observe program (p->observe
 * must be the observe flags the caller wants); the same results. */
int srt__seccomp_load_observer_prebuilt(const struct srt__seccomp_prebuilt *p, int *listener, char *step,
					size_t steplen);

/* srt__seccomp_install with p's enforcement program (p->flags must be the
 * flags the caller wants); the same results. */
int srt__seccomp_load_prebuilt(const struct srt__seccomp_prebuilt *p, char *step, size_t steplen);

/* ---- filters built when srt was built ------------------------------------
 * The programs depend only on the flags and on the libseccomp linked in, so
 * the build runs libseccomp once for every combination (seccomp-gen.c) and
 * compiles the results into the helpers (seccomp-tables.c, made by the
 * build); srt__seccomp_install, srt__seccomp_install_observer,
 * srt__seccomp_install_supervisor and linux-landlock's
 * srt__ll_seccomp_install load the program found there and run libseccomp
 * only for one that is not (a cross-compiled build has none). Building a
 * filter took the helpers 0.2 to 1.8 ms per filter, two per run under
 * linux-bwrap and three under linux-landlock, on a 2-CPU virtual machine
 * where page faults are dear; loading one takes 0.2 ms.
 * tests/unit/test-seccomp.c checks each table program against what
 * libseccomp builds at run time. */
enum srt__seccomp_kind {
	SRT_SECCOMP_KIND_ENFORCE = 1, /* bits: enum srt__seccomp_flags */
	SRT_SECCOMP_KIND_OBSERVE,     /* bits: enum srt__observe_flags, not 0 */
	SRT_SECCOMP_KIND_SUPERVISOR,  /* bits: SRT_SUPER_* (linux-landlock's
				       * write supervisor, below) */
	SRT_SECCOMP_KIND_LL_NET,      /* bits: enum srt__ll_seccomp_flags
				       * (backends/linux-common/netfilter.h),
				       * built there: srt__ll_seccomp_build_program */
};
/* how many combinations of its bits each kind has (the bits of every
 * combination are below it) */
#define SRT_SECCOMP_ENFORCE_COMBINATIONS 16u
#define SRT_SECCOMP_OBSERVE_COMBINATIONS 16u
#define SRT_SECCOMP_SUPERVISOR_COMBINATIONS 4u
#define SRT_SECCOMP_LL_NET_COMBINATIONS 8u

struct srt__seccomp_program {
	unsigned char kind, bits;
	unsigned short n; /* instructions */
	const struct sock_filter *prog;
};

/* The program of kind for bits as libseccomp builds it for this
 * architecture: 0 with *prog (the caller's to free) of *n instructions,
 * or -errno with step saying where. */
int srt__seccomp_build_program(int kind, unsigned bits, struct sock_filter **prog, uint32_t *n,
			       char *step, size_t steplen);

/* The program of kind for bits built with srt, or NULL. */
const struct srt__seccomp_program *srt__seccomp_program_built(int kind, unsigned bits);

/* ctx's program (a scmp_filter_ctx) as seccomp_load would load it, and
 * ctx released: 0 with *prog (the caller's to free) of *n instructions,
 * or -errno with step saying where. */
int srt__seccomp_ctx_program(void *ctx, struct sock_filter **prog, uint32_t *n, char *step,
			     size_t steplen);

/* Load p (a program without a listener) as seccomp_load would: no new
 * privileges first, and the kernel's filter count checked after. */
int srt__seccomp_load_built(const struct srt__seccomp_program *p, char *step, size_t steplen);

/* ---- linux-landlock's write supervisor (supervisor.h) --------------------
 * A third program, loaded last, whose only non-ALLOW action is USER_NOTIF:
 * the calls that create, replace, remove or write-open a name, answered by
 * the supervisor, which performs them itself (never CONTINUE inside a write
 * root). ERRNO rules of the other filters keep precedence (openat2: ENOSYS;
 * a set-id mode: EPERM). */
enum srt__super_op {
	SRT_SUP_OPEN = 1, /* open, openat, creat: flags tell whether to notify */
	SRT_SUP_MKDIR,
	SRT_SUP_MKNOD,
	SRT_SUP_UNLINK,   /* unlink, rmdir, unlinkat */
	SRT_SUP_RENAME,
	SRT_SUP_LINK,
	SRT_SUP_SYMLINK,
	SRT_SUP_TRUNCATE,
	SRT_SUP_SOCKET,   /* socket(AF_UNIX): only with SRT_SUPER_UNIX */
	SRT_SUP_CONNECT,  /* connect: only with SRT_SUPER_UNIX */
	SRT_SUP_BIND,     /* bind: a socket file made in a write root */
	SRT_SUP_CHMOD,    /* chmod family: fixed_flags 0 */
	SRT_SUP_UTIMES,   /* utimes family: fixed_flags says how times are
			   * spelled (SRT_SUP_TIMESPEC, ...) */
};

/* The times argument of the utimes family, in the kernel's layout for the
 * call (never libc's, whose time_t may be 64-bit on a 32-bit ABI):
 * TIMESPEC, TIMEVAL and UTIMBUF are made of the native word
 * (__kernel_long_t), TIMESPEC64 of 64-bit fields (utimensat_time64). */
enum { SRT_SUP_TIMESPEC, SRT_SUP_TIMEVAL, SRT_SUP_UTIMBUF, SRT_SUP_TIMESPEC64 };

/* The 32-bit ABIs whose kernel has the *_time64 calls (utimensat_time64,
 * the one of them that changes a file; Linux 5.1): there libc calls it in
 * place of utimensat, so the supervisor judges it too. On a 64-bit ABI
 * (x32 included) the call does not exist; a 64-bit process that enters
 * the kernel through its 32-bit or x32 door is killed by the enforcement
 * filter before any notification (a foreign architecture or the x32 bit:
 * srt__seccomp_filter_new). */
#if (defined(__i386__) || defined(__arm__) || (defined(__mips__) && _MIPS_SIM == _ABIO32) || \
     (defined(__powerpc__) && !defined(__powerpc64__)) || (defined(__riscv) && __riscv_xlen == 32) || \
     (defined(__s390__) && !defined(__s390x__)))
#define SRT_SUP_HAVE_TIME64 1
#else
#define SRT_SUP_HAVE_TIME64 0
#endif

struct srt__supervised_syscall {
	const char *name;
	int unified_nr;       /* see srt__seccomp_resolve, or -1 */
	unsigned char op;     /* enum srt__super_op */
	signed char dfd, path;   /* the operand: dirfd argument (-1: the cwd)
				  * and path argument; symlink: the link */
	signed char dfd2, path2; /* rename/link: the new name; symlink: path2
				  * is the target string (no dirfd) */
	signed char flags;       /* flags argument, or -1: fixed_flags */
	signed char mode;        /* mode argument (truncate: the length; utimes:
				  * the times), or -1 */
	int fixed_flags;
};

extern const struct srt__supervised_syscall srt__supervised_syscalls[];
extern const size_t srt__n_supervised_syscalls;

/* Flags of srt__seccomp_install_supervisor. */
#define SRT_SUPER_UNIX 1u /* socket(AF_UNIX) and every connect: notify */
#define SRT_SUPER_META 2u /* the chmod and utimes families: notify (the
			   * filesystem rules are on) */

/* This architecture's number for s, or -1. */
int srt__seccomp_supervised_nr(const struct srt__supervised_syscall *s);

/* Load the supervisor's filter into the calling thread; its listener in
 * *listener (close-on-exec), with the same -1/-2 contract as
 * srt__seccomp_install_observer. Needs SECCOMP_IOCTL_NOTIF_ADDFD with
 * SECCOMP_ADDFD_FLAG_SEND (Linux 5.14): checked first. */
int srt__seccomp_install_supervisor(unsigned flags, int *listener, char *step, size_t steplen);

#endif
