/* win/include: the C library's <unistd.h>, plus the POSIX process and
 * file calls Windows lacks, declared so srt's portable files compile;
 * common/posix-windows.c implements each (see README). */
#ifndef SRT_WIN_UNISTD_H
#define SRT_WIN_UNISTD_H
#include_next <unistd.h>
#include <io.h>
#include <direct.h>
#include <process.h>
#include <sys/types.h>
#include "srt-win-types.h"

/* no processes without CreateProcess: fail with ENOSYS */
/* int: the C library's pid_t is 64 bits wide, the compiler's built-in
 * fork an int */
int fork(void);
int vfork(void);
pid_t getppid(void);
pid_t getpgrp(void);
int setpgid(pid_t pid, pid_t pgid);
pid_t setsid(void);
/* the C library keeps no owner on Windows: 0 (see README) */
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);
/* a pipe whose ends no child inherits */
int srt__win_pipe(int fds[2]);
#define pipe srt__win_pipe
/* a reparse point (Windows' link) is refused with ENOSYS, any other
 * name is no link (EINVAL) */
ssize_t readlink(const char *path, char *buf, size_t len);
int symlink(const char *target, const char *path);
int link(const char *from, const char *to);
int fsync(int fd);
/* only AT_FDCWD: Windows has no directory descriptors (ENOSYS) */
int unlinkat(int dfd, const char *path, int flags);
long sysconf(int name);
/* the current directory as the core spells paths on Windows: rooted on
 * the current drive, "/" between names ("Z:\\a\\b" -> "/a/b"); see
 * README */
char *srt__win_getcwd(char *buf, size_t len);
#define getcwd srt__win_getcwd
#ifndef _SC_OPEN_MAX
#define _SC_OPEN_MAX 4
#endif
#ifndef _SC_NPROCESSORS_ONLN
#define _SC_NPROCESSORS_ONLN 84
#endif
#endif
