/* Module loader (libltdl).
 *
 * Modules are loaded by absolute path only: either a path the user gave with
 * --backend=/path/x.so or the directory fixed at configure time. No search
 * path (LD_LIBRARY_PATH, LTDL_LIBRARY_PATH) takes part, so an attacker who
 * controls the environment cannot substitute a module by name. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <ltdl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend-call.h"
#include "loader.h"

#ifndef SRT_BACKENDDIR
#define SRT_BACKENDDIR "/usr/local/lib/srt/backends"
#endif

const char *srt__backend_dir(void)
{
	/* The test harness (Makefile.am's AM_TESTS_ENVIRONMENT) points the
	 * uninstalled srt at the build tree's modules, so `make check` never
	 * tests a copy installed under the prefix, nor fails before `make
	 * install`. One absolute directory, not a search path; ignored in a
	 * set-uid or set-gid process (secure_getenv). Whoever sets srt's
	 * environment can already choose any module with --backend=/path or
	 * LD_PRELOAD, so this gives the caller nothing new. */
	const char *d = secure_getenv("SRT_BACKEND_DIR");

	return d && d[0] == '/' ? d : SRT_BACKENDDIR;
}

int srt__backend_dir_check(struct srt_diag *diag)
{
	const char *d = srt__backend_dir();
	struct stat st;

	/* The installed directory is the packager's; a directory named by
	 * the environment must be one nobody but its user (or root) could
	 * have filled, since every module in it runs inside srt (a program
	 * embedding libsrt may inherit the variable from whoever started
	 * it). */
	if (!strcmp(d, SRT_BACKENDDIR))
		return SRT_OK;
	if (stat(d, &st) < 0)
		return srt_diag_set(diag, SRT_E_MODULE, "SRT_BACKEND_DIR",
				    "module directory \"%s\" (SRT_BACKEND_DIR): %s", d, strerror(errno));
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return srt_diag_set(diag, SRT_E_MODULE, "SRT_BACKEND_DIR",
				    "module directory \"%s\" (SRT_BACKEND_DIR) must be a directory owned by you or root "
				    "that nobody else can write (owner %u, mode %03o): no module is loaded from it",
				    d, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	return SRT_OK;
}

struct srt__module {
	lt_dlhandle handle;
	char path[PATH_MAX];
};

static pthread_mutex_t ltdl_lock = PTHREAD_MUTEX_INITIALIZER;
static int ltdl_ready;

static int ltdl_init_once(struct srt_diag *diag)
{
	int rc = SRT_OK;

	pthread_mutex_lock(&ltdl_lock);
	if (!ltdl_ready) {
		if (lt_dlinit() != 0)
			rc = srt_diag_set(diag, SRT_E_MODULE, "",
					  "cannot initialise libltdl: %s", lt_dlerror());
		else
			ltdl_ready = 1;
	}
	pthread_mutex_unlock(&ltdl_lock);
	return rc;
}

static int name_is_plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

int srt__module_check_header(const struct srt_module_header *h, const char *path,
			     uint32_t want_magic, size_t min_size,
			     struct srt_diag *diag)
{
	if (h->magic != want_magic)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" is not an srt %s module (magic 0x%08x, wanted 0x%08x)",
				    path, want_magic == SRT_BACKEND_MAGIC ? "backend" : "filter",
				    (unsigned)h->magic, (unsigned)want_magic);
	if (h->abi_major != SRT_BACKEND_ABI_MAJOR)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" was built for ABI %u.%u, this srt needs ABI %u.x (<= %u.%u); rebuild the module",
				    path, h->abi_major, h->abi_minor, SRT_BACKEND_ABI_MAJOR,
				    SRT_BACKEND_ABI_MAJOR, SRT_BACKEND_ABI_MINOR);
	if (h->abi_minor > SRT_BACKEND_ABI_MINOR)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" needs ABI %u.%u, newer than this srt's %u.%u; upgrade srt",
				    path, h->abi_major, h->abi_minor, SRT_BACKEND_ABI_MAJOR,
				    SRT_BACKEND_ABI_MINOR);
	if (h->size < min_size)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" (ABI %u.%u) declares %u bytes, ABI %u.%u needs at least %zu; the module is truncated or corrupt",
				    path, h->abi_major, h->abi_minor, (unsigned)h->size,
				    h->abi_major, h->abi_minor, min_size);
	if (!h->name || !*h->name)
		return srt_diag_set(diag, SRT_E_MODULE, path, "module \"%s\" has no name", path);
	return SRT_OK;
}

int srt__module_load_backend(const char *spec, struct srt__module **out,
			     const struct srt_backend **vt, struct srt_diag *diag)
{
	struct srt__module *m = NULL;
	const struct srt_backend *be;
	struct stat st;
	int rc;

	if (!spec || !*spec)
		return srt_diag_set(diag, SRT_E_INVAL, "--backend", "empty backend name");
	rc = ltdl_init_once(diag);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m)
		return SRT_E_NOMEM;

	if (spec[0] == '/') {
		if (snprintf(m->path, sizeof(m->path), "%s", spec) >= (int)sizeof(m->path)) {
			rc = srt_diag_set(diag, SRT_E_INVAL, "--backend", "backend path too long");
			goto out;
		}
	} else if (name_is_plain(spec)) {
		const char *dir = srt__backend_dir();
		char *p;

		rc = srt__backend_dir_check(diag);
		if (rc)
			goto out;
		if (snprintf(m->path, sizeof(m->path), "%s/%s.so", dir, spec) >= (int)sizeof(m->path)) {
			rc = srt_diag_set(diag, SRT_E_INVAL, "--backend", "backend path too long");
			goto out;
		}
		/* libtool module names use '_' where the backend name has '-' */
		for (p = m->path + strlen(dir) + 1; *p; p++)
			if (*p == '-')
				*p = '_';
	} else {
		rc = srt_diag_set(diag, SRT_E_INVAL, "--backend",
				  "backend \"%s\" is neither a name (letters, digits, '-') nor an absolute path",
				  spec);
		goto out;
	}

	if (stat(m->path, &st) != 0) {
		int e = errno;
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path, "backend module \"%s\": %s%s",
				  m->path, strerror(e),
				  e == ENOENT ? " (is srt installed?)" : "");
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	m->handle = lt_dlopen(m->path);
	if (!m->handle) {
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path, "cannot load backend module \"%s\": %s",
				  m->path, lt_dlerror());
		goto out;
	}
	be = lt_dlsym(m->handle, "srt_backend_entry");
	if (!be) {
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path,
				  "module \"%s\" does not export srt_backend_entry", m->path);
		goto out;
	}
	/* A module of an older minor declares a shorter struct: it must hold
	 * the mandatory slots; the optional ones past its size read as absent
	 * (backend-call.c). */
	rc = srt__module_check_header(&be->hdr, m->path, SRT_BACKEND_MAGIC,
				      SRT__BACKEND_MIN_SIZE, diag);
	if (rc)
		goto out;
	if (!be->probe || !be->prepare || !be->wrap || !be->release || !be->teardown) {
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path,
				  "module \"%s\" leaves a mandatory slot empty", m->path);
		goto out;
	}
	*out = m;
	*vt = be;
	return SRT_OK;
out:
	srt__module_free(m);
	return rc;
}

const char *srt__module_path(const struct srt__module *m)
{
	return m->path;
}

void srt__module_free(struct srt__module *m)
{
	if (!m)
		return;
	if (m->handle)
		lt_dlclose(m->handle);
	free(m);
}
