/* Writing a whole buffer to a descriptor (fdio.h). */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "common/fdio.h"

int srt__write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
