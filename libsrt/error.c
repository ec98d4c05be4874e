/* One error type and the diagnostic it carries. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <srt/error.h>

const char *srt_strerror(int err)
{
	switch (err) {
	case SRT_OK: return "success";
	case SRT_E_NOMEM: return "out of memory";
	case SRT_E_INVAL: return "invalid argument";
	case SRT_E_SETTINGS: return "invalid settings";
	case SRT_E_IO: return "system call failed";
	case SRT_E_MODULE: return "module cannot be loaded";
	case SRT_E_UNSUPPORTED: return "not supported";
	case SRT_E_UNAVAILABLE: return "sandbox layer unavailable";
	case SRT_E_LIMIT: return "limit exceeded";
	case SRT_E_STATE: return "called in the wrong state";
	}
	return "unknown error";
}

int srt_diag_set(struct srt_diag *diag, int err, const char *key,
		 const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return err;
	snprintf(diag->key, sizeof(diag->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
	va_end(ap);
	return err;
}
