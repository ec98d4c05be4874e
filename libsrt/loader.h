/* Module loader: backends and request filters by absolute path only,
 * header checked before use by one function for both kinds. */
#ifndef SRT_LOADER_H
#define SRT_LOADER_H

#include <stddef.h>
#include <srt/backend.h>
#include <srt/filter.h>

#include "proxies/tls.h"

/* The smallest struct srt_filter the core accepts: the header and the
 * mandatory slots (create, destroy), as at filter ABI 1.0. */
#define SRT__FILTER_MIN_SIZE \
	(offsetof(struct srt_filter, destroy) + sizeof(((struct srt_filter *)0)->destroy))

/* What a module kind's header must say. */
struct srt__module_abi {
	const char *what;  /* "backend", "filter": for messages */
	uint32_t magic;
	unsigned major, minor;
	size_t min_size;   /* the mandatory slots' end */
};
extern const struct srt__module_abi srt__backend_abi;
extern const struct srt__module_abi srt__filter_abi;
extern const struct srt__module_abi srt__tls_abi;

struct srt__module;

/* Load the backend named `spec`: an absolute path to a .so, or a name
 * ("linux-bwrap") looked up as <SRT_BACKENDDIR>/<name with '-' -> '_'>.so.
 * Never searches a path an attacker could set. Checks magic, ABI major,
 * ABI minor and size before anything else is read, and refuses a mismatch
 * naming the file and both versions. */
int srt__module_load_backend(const char *spec, struct srt__module **out,
			     const struct srt_backend **vt, struct srt_diag *diag);
/* The absolute path the module was loaded from. */
const char *srt__module_path(const struct srt__module *m);
/* The directory plain backend names are looked up in: $SRT_BACKEND_DIR
 * when it is an absolute path (the test harness), else SRT_BACKENDDIR. */
const char *srt__backend_dir(void);
/* SRT_OK when srt__backend_dir() may be trusted: the installed directory,
 * or an SRT_BACKEND_DIR that is a directory owned by the caller or root and
 * not writable by group or others; else SRT_E_MODULE with the reason. */
int srt__backend_dir_check(struct srt_diag *diag);
/* Load the request filter named `spec`: an absolute path, or a name
 * ("rules") looked up as <filterdir>/<name>.so (filterdir: SRT_FILTERDIR,
 * or $SRT_FILTER_DIR under the same rules as SRT_BACKEND_DIR). The same
 * header check as backends, with the filter magic and ABI; create and
 * destroy must be set. */
int srt__module_load_filter(const char *spec, struct srt__module **out,
			    const struct srt_filter **vt, struct srt_diag *diag);
/* The directory plain filter names are looked up in. */
const char *srt__filter_dir(void);
/* Load the TLS termination module (<tlsdir>/mbedtls.so; tlsdir:
 * SRT_TLSDIR, or $SRT_TLS_DIR under the same rules as SRT_BACKEND_DIR),
 * with its own magic and ABI checked like every module's. */
int srt__module_load_tls(struct srt__module **out, const struct srt__tls_module **vt,
			 struct srt_diag *diag);
/* A further symbol a loaded module exports (an internal interface such as
 * the credentials module's masking, common/credmask.h), or NULL. */
void *srt__module_symbol(const struct srt__module *m, const char *name);
/* Unload; NULL-safe. */
void srt__module_free(struct srt__module *m);

/* Check a header against what this core accepts for one kind of module:
 * magic, major equal, minor at most ours, size at least the mandatory
 * slots'. Exposed for tests. */
int srt__module_check_header(const struct srt_module_header *h, const char *path,
			     const struct srt__module_abi *abi, struct srt_diag *diag);

#endif
