/* A TLS module of another ABI major (win/test.sh): the loader must
 * refuse it by its header, naming the file and both versions, and never
 * call a slot. Its slots are all NULL, so a loader that called one would
 * crash the run instead of refusing it. */
#include "proxies/tls.h"

const struct srt__tls_module srt_tls_entry = {
	.hdr = {
		.magic = SRT__TLS_MAGIC,
		.abi_major = SRT__TLS_ABI_MAJOR + 98,
		.abi_minor = 0,
		.size = sizeof(struct srt__tls_module),
		.name = "tls-bad",
	},
};
