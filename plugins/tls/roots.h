/* The operating system's own store of trusted roots, for a host whose
 * roots are not a file: Linux keeps them in a PEM bundle that tls.c reads
 * itself (roots-posix.c adds nothing), Windows in its certificate store
 * (roots-windows.c). One file per platform; the module links one. */
#ifndef SRT_PLUGIN_TLS_ROOTS_H
#define SRT_PLUGIN_TLS_ROOTS_H

#include <stddef.h>

/* Called once per root certificate (DER, borrowed for the call); a
 * certificate add refuses is skipped. */
typedef void (*srt__tls_root_add)(void *arg, const unsigned char *der, size_t len);

/* Hand every root of the system's store to add: 0, or -1 when the store
 * cannot be opened. */
int srt__tls_os_roots(srt__tls_root_add add, void *arg);

#endif
