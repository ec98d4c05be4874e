/* Helpers shared by the Linux backend modules (compiled into each module,
 * so either builds on its own). */
#ifndef SRT_BACKENDS_SIBLING_H
#define SRT_BACKENDS_SIBLING_H

#include <stddef.h>

/* The absolute path of program `name` installed beside the module that
 * contains `symbol` (<dir>/<name>), or in the libtool build tree one level
 * up (<dir>/../<name>, the module being in .libs/). Derived only from the
 * module's own location, never from the environment. 0 on success. */
int srt__module_sibling(const void *symbol, const char *name, char *out, size_t outlen);

/* The first integer in a small file such as a sysctl, or -1. */
long srt__read_long_file(const char *path);

#endif
