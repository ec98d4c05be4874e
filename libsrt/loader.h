/* Module loader: backends by absolute path only, header checked before use. */
#ifndef SRT_LOADER_H
#define SRT_LOADER_H

#include <srt/backend.h>

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
/* Unload; NULL-safe. */
void srt__module_free(struct srt__module *m);

/* Check a header against what this core accepts; exposed for tests. */
int srt__module_check_header(const struct srt_module_header *h, const char *path,
			     uint32_t want_magic, size_t min_size,
			     struct srt_diag *diag);

#endif
