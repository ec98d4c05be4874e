/* srt: one error type for the library, the backends and the proxies. */
#ifndef SRT_ERROR_H
#define SRT_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 is success; every failure is negative. */
enum srt_err {
	SRT_OK = 0,
	SRT_E_NOMEM = -1,        /* allocation failed */
	SRT_E_INVAL = -2,        /* bad argument or bad input (settings, CLI) */
	SRT_E_SETTINGS = -3,     /* settings file missing, unreadable or invalid */
	SRT_E_IO = -4,           /* a system call failed (see diag->saved_errno) */
	SRT_E_MODULE = -5,       /* a module could not be loaded or is incompatible */
	SRT_E_UNSUPPORTED = -6,  /* optional slot absent, or feature not supported yet */
	SRT_E_UNAVAILABLE = -7,  /* a sandbox layer cannot be set up on this host */
	SRT_E_LIMIT = -8,        /* a size or count limit was exceeded */
	SRT_E_STATE = -9,        /* called in the wrong state */
};

/* Detail for the user; every field optional. Fill with srt_diag_set(). */
struct srt_diag {
	char message[1024];  /* one lower-case line, no trailing newline */
	char key[256];       /* the settings key path or file concerned, or "" */
	int saved_errno;     /* errno at the failure, or 0 */
};

/* Static text for an error code; never NULL. */
const char *srt_strerror(int err);

/* printf-style: fill diag (may be NULL) and return err, so callers can
 * write `return srt_diag_set(d, SRT_E_INVAL, "x", "bad %s", y);`. */
int srt_diag_set(struct srt_diag *diag, int err, const char *key,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
