/* Writing a whole buffer to a descriptor, the one loop every writer of a
 * memfd, a private file or a pipe in the tree uses. */
#ifndef SRT_COMMON_FDIO_H
#define SRT_COMMON_FDIO_H

#include <stddef.h>

/* Write all len bytes of buf to fd, retrying after EINTR and after a
 * partial write. 0 when every byte is written; -1 with errno set
 * otherwise (EIO when write(2) wrote nothing and gave no error, so a
 * caller never spins on a descriptor that accepts no more). */
int srt__write_full(int fd, const void *buf, size_t len);

#endif
