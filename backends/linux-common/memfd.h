/* Handing a plan or a policy to a helper in a sealed memfd: never in argv,
 * which any process can read in /proc, and sealed so the helper reads
 * exactly what was planned. */
#ifndef SRT_BACKENDS_MEMFD_H
#define SRT_BACKENDS_MEMFD_H

#include <stddef.h>

#include <srt/error.h>

/* A close-on-exec memfd named `name` holding the `len` bytes of buf,
 * sealed against shrinking, growing, writing and further seals. SRT_OK with
 * the descriptor in *out (the caller's to close); otherwise SRT_E_IO with
 * "<who>: memfd for|write|seal <what>: <error>" in diag and nothing left
 * open. */
int srt__sealed_memfd(const char *name, const char *buf, size_t len, const char *who,
		      const char *what, int *out, struct srt_diag *diag);

/* The same into fd, a memfd made earlier with MFD_ALLOW_SEALING and empty
 * (made before its content was known, so that a process started then
 * could inherit it): SRT_OK, or SRT_E_IO with diag set as above; fd is
 * left open either way. */
int srt__memfd_seal_into(int fd, const char *buf, size_t len, const char *who,
			 const char *what, struct srt_diag *diag);

#endif
