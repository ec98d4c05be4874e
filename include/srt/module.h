/* srt: the header every loadable module starts with.
 *
 * Two kinds of module share it: backends (include/srt/backend.h, exported
 * as `srt_backend_entry`) and request filters (include/srt/filter.h,
 * exported as `srt_filter_entry`). Each kind has its own magic and its own
 * ABI major and minor; the loader checks the header with one function for
 * both kinds before it reads anything else of the module: the magic, the
 * major (equal to the core's), the minor (at most the core's) and the size
 * (at least what the module's minor needs; the core never reads past it).
 *
 * Never reorder or resize this struct: every module ever built starts with
 * it. */
#ifndef SRT_MODULE_H
#define SRT_MODULE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SRT_BACKEND_MAGIC 0x42545253u /* "SRTB" little-endian */
#define SRT_FILTER_MAGIC 0x46545253u  /* "SRTF" */

struct srt_module_header {
	uint32_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t size;    /* sizeof the whole exported struct */
	const char *name; /* short name, e.g. "linux-bwrap", "rules" */
};

#ifdef __cplusplus
}
#endif
#endif
