/* win/include: the C library's <fcntl.h>, plus the POSIX open flags and
 * the descriptor calls Windows lacks (see README). */
#ifndef SRT_WIN_FCNTL_H
#define SRT_WIN_FCNTL_H
#include_next <fcntl.h>
#include <io.h>
#include <sys/types.h>

/* not inherited by children: Windows' own flag */
#define O_CLOEXEC _O_NOINHERIT
/* srt__win_open refuses these where Windows cannot honour them: a
 * reparse point opened with O_NOFOLLOW (ELOOP), a directory (ENOSYS: the
 * C library opens no directories) */
#define O_NOFOLLOW 0x01000000
#define O_DIRECTORY 0x02000000
#define O_PATH 0x04000000
/* a file opens non-blocking as it is; only srt__win_open sees it */
#define O_NONBLOCK 0x08000000
#define O_NOCTTY 0
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define FD_CLOEXEC 1
int srt__win_open(const char *path, int flags, ...);
#define open srt__win_open
int openat(int dfd, const char *path, int flags, ...);
int fcntl(int fd, int cmd, ...);
#endif
