/* Linux backends: the fixed header that leads each module's entry symbol
 * (srt_backend_entry), filled the same way by every backend. The loader
 * reads it before it calls anything: magic, this build's ABI version and the
 * size of the vtable, then the backend's name. */
#ifndef SRT_LINUX_BACKEND_HEADER_H
#define SRT_LINUX_BACKEND_HEADER_H

#include <srt/backend.h>

#define SRT__BACKEND_HEADER(backend_name)                \
	{                                                \
		.magic = SRT_BACKEND_MAGIC,              \
		.abi_major = SRT_BACKEND_ABI_MAJOR,      \
		.abi_minor = SRT_BACKEND_ABI_MINOR,      \
		.size = sizeof(struct srt_backend),      \
		.name = (backend_name),                  \
	}

#endif
