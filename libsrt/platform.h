/* The core's seam to the OS for processes and files: platform-linux.c
 * implements it with Linux's calls (/proc, prctl, close_range, O_PATH,
 * statx), platform-posix.c with POSIX alone; configure picks one
 * (--with-platform). What the proxy and the backends share is in
 * common/platform.h. */
#ifndef SRT_LIBSRT_PLATFORM_H
#define SRT_LIBSRT_PLATFORM_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* In a child between vfork and exec (async-signal-safe): be killed when
 * srt dies. 0, or -1 when the kernel refused; a no-op (0) where the
 * system has no such request: there srt ends the command itself. */
int srt__plat_die_with_parent(void);

/* In a child before exec (async-signal-safe): mark every descriptor from
 * lowfd up close-on-exec. 0 or -1. */
int srt__plat_cloexec_from(int lowfd);

/* execvp with an environment. */
int srt__plat_execvpe(const char *file, char *const argv[], char *const envp[]);

/* sigtimedwait(2): the signal of set taken, or -1 (EAGAIN at the timeout). */
int srt__plat_sigtimedwait(const sigset_t *set, const struct timespec *ts);

/* The pids of this process's children, up to cap, or -1 when the system
 * cannot tell (then nothing may be concluded about them). */
ssize_t srt__plat_children(pid_t *out, size_t cap);

/* A directory descriptor that only names the directory (O_PATH where the
 * system has it, else read-only), close-on-exec; -1 with errno. */
int srt__plat_open_dir_ref(const char *path);

/* The path of the directory open at fd, or "" when the system cannot
 * tell. */
void srt__plat_fd_path(int fd, char out[PATH_MAX]);

/* What a program srt runs later outside the sandbox must not be reachable
 * from: the run's write roots (their paths and descriptors) and the
 * files write rules name (device and inode). */
struct srt__plat_trust {
	const char *const *root_paths;
	const int *root_fds;
	size_t n_roots;
	const dev_t *file_devs;
	const ino_t *file_inos;
	size_t n_files;
};

/* A copy, in a sealed memfd that may be run, of the program dir/name,
 * made now, when it is one srt trusts as its own code: dir named without
 * a link; dir and every directory above it root's or this user's and
 * closed to others (or sticky), none of them a write root of t by
 * identity or a directory bound from elsewhere (a write root's
 * subdirectory could be one); name there a regular executable, not a
 * link, not a mount, with one link, named by none of t's files, root's or
 * this user's and closed to writes by group and others. A descriptor, or
 * -1 (not such a program; a system without sealed memfds). */
int srt__plat_trusted_program_copy(const char *dir, const char *name, const struct srt__plat_trust *t);

/* len bytes of buf in a sealed memfd named name (a descriptor), or -1
 * (out of memory; a system without them). */
int srt__plat_sealed_data(const char *name, const void *buf, size_t len);

/* A path that names the descriptor fdnum of the process that opens it
 * (/proc/self/fd/N), for exec: 0, or -1 where there is none. */
int srt__plat_fd_exec_path(char *out, size_t cap, int fdnum);

/* Where name in the directory open at dirfd is, whatever the directory's
 * path (dir) leads to by then: /proc/self/fd/N/name on Linux; elsewhere
 * dir/name, which a rename of the directory can redirect. 0, or -1 when
 * out is too small. */
int srt__plat_path_in_dir(char *out, size_t cap, int dirfd, const char *dir, const char *name);

/* A file's times (not following a last link): born (zero where the
 * filesystem keeps no birth time), changed (ctime), modified (mtime). */
struct srt__ftimes {
	struct timespec born, changed, modified;
};
int srt__plat_file_times(int dfd, const char *name, struct srt__ftimes *t);

/* The ctime of a stat result. */
struct stat;
struct timespec srt__plat_stat_ctime(const struct stat *st);

/* Now, on the clock file times are compared with (coarse where cheaper). */
void srt__plat_file_clock(struct timespec *now);

/* An environment variable, ignored in a set-uid or set-gid process. */
const char *srt__plat_secure_getenv(const char *name);

/* How a loadable module's file name ends (".so"; ".dll" on Windows). */
extern const char srt__plat_module_ext[];

/* Does p name a file from the root ("/..."; "C:\..." or "C:/..." on
 * Windows), never from the current directory? */
int srt__plat_path_absolute(const char *p);

/* How a program's file name ends ("" on POSIX systems, ".exe" on
 * Windows): the helpers installed beside the backend modules. */
extern const char srt__plat_program_ext[];

/* The path of a program the core found (spelled the core's way: realpath)
 * as the command's own programs must write it to run it (ssh's
 * ProxyCommand): unchanged on POSIX systems; on Windows "/x/y.exe" is
 * "C:/x/y.exe", the current drive named (common/winpath.h). Into out
 * (cap bytes): 0, or -1 with errno. */
int srt__plat_program_spell(const char *path, char *out, size_t cap);

/* The directory modules of a kind are installed in: the one configure
 * fixed (configured); on Windows, where srt may be installed anywhere,
 * the directory of the libsrt DLL itself. */
const char *srt__plat_module_dir(const char *configured);

#endif
