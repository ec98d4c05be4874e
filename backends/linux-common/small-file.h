/* Reading a small kernel file (/proc, /proc/sys) into a buffer in one
 * read(2). Header-only because both the backend modules (libsrtlinux) and
 * the static in-sandbox helpers (libsrtlinuxexec) need it and neither
 * library links the other. */
#ifndef SRT_BACKENDS_SMALL_FILE_H
#define SRT_BACKENDS_SMALL_FILE_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/* Up to cap - 1 bytes of `path` into buf, NUL-terminated when any were
 * read: the byte count, 0 for an empty file, -1 when it cannot be opened
 * or read. */
static inline ssize_t srt__read_small_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n > 0)
		buf[n] = '\0';
	return n;
}

#endif
