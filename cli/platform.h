/* srt(1)'s seam to the OS: platform-linux.c uses Linux's calls,
 * platform-posix.c POSIX alone; configure picks one (--with-platform).
 * cli/ may include only the public API, so it has its own. */
#ifndef SRT_CLI_PLATFORM_H
#define SRT_CLI_PLATFORM_H

#include <stddef.h>
#include <sys/types.h>

/* Make this process the reaper of its descendants' orphans. 0, or an
 * errno (ENOSYS where the system has no such request). */
int srt__cli_become_reaper(void);

/* Open the file behind descriptor fd anew with flags (its own open file,
 * so the caller's descriptor keeps its flags); -1 with errno where the
 * system cannot. */
int srt__cli_reopen_fd(int fd, int flags);

/* Can "--listen-fd N" name N: an open descriptor; on Windows also a
 * socket handle (Winsock's sockets are handles, not C library
 * descriptors: a parent hands srt.exe an inherited listener by its
 * handle value). Whether it listens is checked when the proxy starts. */
int srt__cli_listen_fd_open(int fd);

/* send(2) that neither blocks nor raises SIGPIPE. */
ssize_t srt__cli_send(int fd, const void *buf, size_t len);

#endif
