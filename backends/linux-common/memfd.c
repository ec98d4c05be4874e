/* Sealed memfds for the plans and policies the backends hand to their
 * helpers (memfd.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/linux-common/memfd.h"
#include "common/fdio.h"

int srt__memfd_seal_into(int fd, const char *buf, size_t len, const char *who,
			 const char *what, struct srt_diag *diag)
{
	if (srt__write_full(fd, buf, len))
		return srt_diag_set(diag, SRT_E_IO, "", "%s: write %s: %s", who, what, strerror(errno));
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		return srt_diag_set(diag, SRT_E_IO, "", "%s: seal %s: %s", who, what, strerror(errno));
	return SRT_OK;
}

int srt__sealed_memfd(const char *name, const char *buf, size_t len, const char *who,
		      const char *what, int *out, struct srt_diag *diag)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING), rc;

	if (fd < 0)
		return srt_diag_set(diag, SRT_E_IO, "", "%s: memfd for %s: %s", who, what,
				    strerror(errno));
	rc = srt__memfd_seal_into(fd, buf, len, who, what, diag);
	if (rc) {
		close(fd);
		return rc;
	}
	*out = fd;
	return SRT_OK;
}
