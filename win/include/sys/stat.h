/* win/include: the C library's <sys/stat.h>, plus what POSIX has and
 * Windows lacks (see README). */
#ifndef SRT_WIN_SYS_STAT_H
#define SRT_WIN_SYS_STAT_H
#include_next <sys/stat.h>
#include <io.h>
#include <direct.h>
#include "srt-win-types.h"

#ifndef S_IFLNK
#define S_IFLNK 0xA000
#endif
#ifndef S_IFSOCK
#define S_IFSOCK 0xC000
#endif
#ifndef S_ISLNK
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)
#endif
#ifndef S_IRWXG
#define S_IRWXG 0070
#define S_IRGRP 0040
#define S_IWGRP 0020
#define S_IXGRP 0010
#define S_IRWXO 0007
#define S_IROTH 0004
#define S_IWOTH 0002
#define S_IXOTH 0001
#endif
#ifndef S_ISUID
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000
#endif
/* a reparse point is refused (ENOSYS), anything else is stat'd */
int lstat(const char *path, struct stat *st);
/* only AT_FDCWD: Windows has no directory descriptors (ENOSYS) */
int fstatat(int dfd, const char *path, struct stat *st, int flags);
int mkdirat(int dfd, const char *path, mode_t mode);
int fchmod(int fd, mode_t mode);
/* POSIX's mkdir with a mode: a directory the caller's ACL inherits */
int srt__win_mkdir(const char *path, mode_t mode);
#define mkdir srt__win_mkdir
#endif
