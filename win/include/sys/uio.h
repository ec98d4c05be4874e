/* win/include: struct iovec, the type only (see win/include/README). */
#ifndef SRT_WIN_SYS_UIO_H
#define SRT_WIN_SYS_UIO_H
#include <stddef.h>

struct iovec {
	void *iov_base;
	size_t iov_len;
};
#endif
