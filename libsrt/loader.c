/* Module loader (libltdl): backends and request filters, one header check.
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
#include "platform.h"

#ifndef SRT_BACKENDDIR
#define SRT_BACKENDDIR "/usr/local/lib/srt/backends"
#endif
#ifndef SRT_TLSDIR
#define SRT_TLSDIR "/usr/local/lib/srt/tls"
#endif
#ifndef SRT_FILTERDIR
#define SRT_FILTERDIR "/usr/local/lib/srt/filters"
#endif

/* One kind of module: where its names are looked up, what it exports, and
 * which header it must carry. */
struct kind {
	const char *what;    /* "backend", "filter" */
	const char *key;     /* what the user spelled it in, for messages */
	const char *symbol;  /* the one exported data symbol */
	const char *env;     /* the directory override of the test harness */
	const char *dflt;    /* the installed directory */
	int dash_as_underscore; /* libtool names of backends use '_' */
	const struct srt__module_abi *abi;
};

const struct srt__module_abi srt__backend_abi = {
	"backend", SRT_BACKEND_MAGIC, SRT_BACKEND_ABI_MAJOR, SRT_BACKEND_ABI_MINOR,
	SRT__BACKEND_MIN_SIZE,
};
const struct srt__module_abi srt__filter_abi = {
	"filter", SRT_FILTER_MAGIC, SRT_FILTER_ABI_MAJOR, SRT_FILTER_ABI_MINOR,
	SRT__FILTER_MIN_SIZE,
};

static const struct kind backend_kind = {
	"backend", "--backend", "srt_backend_entry", "SRT_BACKEND_DIR", SRT_BACKENDDIR, 1,
	&srt__backend_abi,
};

static const struct kind filter_kind = {
	"filter", "network.filters", "srt_filter_entry", "SRT_FILTER_DIR", SRT_FILTERDIR, 0,
	&srt__filter_abi,
};

const struct srt__module_abi srt__tls_abi = {
	"TLS", SRT__TLS_MAGIC, SRT__TLS_ABI_MAJOR, SRT__TLS_ABI_MINOR,
	sizeof(struct srt__tls_module),
};

static const struct kind tls_kind = {
	"TLS", "network.tlsTerminate", "srt_tls_entry", "SRT_TLS_DIR", SRT_TLSDIR, 0,
	&srt__tls_abi,
};

static const char *kind_dir(const struct kind *k)
{
	/* The test harness (Makefile.am's AM_TESTS_ENVIRONMENT) points the
	 * uninstalled srt at the build tree's modules, so `make check` never
	 * tests a copy installed under the prefix, nor fails before `make
	 * install`. One absolute directory, not a search path; ignored in a
	 * set-uid or set-gid process (secure_getenv). Whoever sets srt's
	 * environment can already choose any module with --backend=/path or
	 * LD_PRELOAD, so this gives the caller nothing new. */
	const char *d = srt__plat_secure_getenv(k->env);

	return d && srt__plat_path_absolute(d) ? d : srt__plat_module_dir(k->dflt);
}

static int kind_dir_check(const struct kind *k, struct srt_diag *diag)
{
	const char *d = kind_dir(k);
	struct stat st;

	/* The installed directory is the packager's; a directory named by
	 * the environment must be one nobody but its user (or root) could
	 * have filled, since every module in it runs inside srt (a program
	 * embedding libsrt may inherit the variable from whoever started
	 * it). */
	if (!strcmp(d, srt__plat_module_dir(k->dflt)))
		return SRT_OK;
	if (stat(d, &st) < 0)
		return srt_diag_set(diag, SRT_E_MODULE, k->env,
				    "module directory \"%s\" (%s): %s", d, k->env, strerror(errno));
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return srt_diag_set(diag, SRT_E_MODULE, k->env,
				    "module directory \"%s\" (%s) must be a directory owned by you or root "
				    "that nobody else can write (owner %u, mode %03o): no module is loaded from it",
				    d, k->env, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	return SRT_OK;
}

const char *srt__backend_dir(void)
{
	return kind_dir(&backend_kind);
}

int srt__backend_dir_check(struct srt_diag *diag)
{
	return kind_dir_check(&backend_kind, diag);
}

const char *srt__filter_dir(void)
{
	return kind_dir(&filter_kind);
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

/* The one header check of every module kind. The minor rule: a module of
 * an older minor of the same major declares a shorter struct; it must hold
 * what abi->min_size says (the mandatory slots), and the core reads each
 * optional slot only when it lies inside h->size. */
int srt__module_check_header(const struct srt_module_header *h, const char *path,
			     const struct srt__module_abi *abi, struct srt_diag *diag)
{
	if (h->magic != abi->magic)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" is not an srt %s module (magic 0x%08x, wanted 0x%08x)",
				    path, abi->what, (unsigned)h->magic, (unsigned)abi->magic);
	if (h->abi_major != abi->major)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" was built for ABI %u.%u, this srt needs ABI %u.x (<= %u.%u); rebuild the module",
				    path, h->abi_major, h->abi_minor, abi->major, abi->major,
				    abi->minor);
	if (h->abi_minor > abi->minor)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" needs ABI %u.%u, newer than this srt's %u.%u; upgrade srt",
				    path, h->abi_major, h->abi_minor, abi->major, abi->minor);
	if (h->size < abi->min_size)
		return srt_diag_set(diag, SRT_E_MODULE, path,
				    "module \"%s\" (ABI %u.%u) declares %u bytes, ABI %u.%u needs at least %zu; the module is truncated or corrupt",
				    path, h->abi_major, h->abi_minor, (unsigned)h->size,
				    h->abi_major, h->abi_minor, abi->min_size);
	if (!h->name || !*h->name)
		return srt_diag_set(diag, SRT_E_MODULE, path, "module \"%s\" has no name", path);
	return SRT_OK;
}

/* Open the module `spec` of kind k (an absolute path, or a plain name in
 * the kind's directory) and check its header: *entry is its exported
 * struct. */
static int module_open(const struct kind *k, const char *spec, struct srt__module **out,
		       const void **entry, struct srt_diag *diag)
{
	struct srt__module *m = NULL;
	const struct srt_module_header *h;
	struct stat st;
	int rc;

	if (!spec || !*spec)
		return srt_diag_set(diag, SRT_E_INVAL, k->key, "empty %s name", k->what);
	rc = ltdl_init_once(diag);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m)
		return SRT_E_NOMEM;

	if (srt__plat_path_absolute(spec)) {
		if (snprintf(m->path, sizeof(m->path), "%s", spec) >= (int)sizeof(m->path)) {
			rc = srt_diag_set(diag, SRT_E_INVAL, k->key, "%s path too long", k->what);
			goto out;
		}
	} else if (name_is_plain(spec)) {
		const char *dir = kind_dir(k);
		char *p;

		rc = kind_dir_check(k, diag);
		if (rc)
			goto out;
		if (snprintf(m->path, sizeof(m->path), "%s/%s%s", dir, spec,
			     srt__plat_module_ext) >= (int)sizeof(m->path)) {
			rc = srt_diag_set(diag, SRT_E_INVAL, k->key, "%s path too long", k->what);
			goto out;
		}
		for (p = m->path + strlen(dir) + 1; k->dash_as_underscore && *p; p++)
			if (*p == '-')
				*p = '_';
	} else {
		rc = srt_diag_set(diag, SRT_E_INVAL, k->key,
				  "%s \"%s\" is neither a name (letters, digits, '-') nor an absolute path",
				  k->what, spec);
		goto out;
	}

	if (stat(m->path, &st) != 0) {
		int e = errno;
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path, "%s module \"%s\": %s%s",
				  k->what, m->path, strerror(e),
				  e == ENOENT ? " (is srt installed?)" : "");
		if (diag)
			diag->saved_errno = e;
		goto out;
	}
	m->handle = lt_dlopen(m->path);
	if (!m->handle) {
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path, "cannot load %s module \"%s\": %s",
				  k->what, m->path, lt_dlerror());
		goto out;
	}
	h = lt_dlsym(m->handle, k->symbol);
	if (!h) {
		rc = srt_diag_set(diag, SRT_E_MODULE, m->path,
				  "module \"%s\" does not export %s", m->path, k->symbol);
		goto out;
	}
	rc = srt__module_check_header(h, m->path, k->abi, diag);
	if (rc)
		goto out;
	*out = m;
	*entry = h;
	return SRT_OK;
out:
	srt__module_free(m);
	return rc;
}

static int refuse_empty_slot(struct srt__module *m, struct srt_diag *diag)
{
	int rc = srt_diag_set(diag, SRT_E_MODULE, m->path,
			      "module \"%s\" leaves a mandatory slot empty", m->path);

	srt__module_free(m);
	return rc;
}

/* A module that runs commands itself must also wait for them and end
 * them: with only part of the set, the core could start a command it can
 * neither wait for nor end. */
static int refuse_partial_spawn(struct srt__module *m, struct srt_diag *diag)
{
	int rc = srt_diag_set(diag, SRT_E_MODULE, m->path,
			      "module \"%s\" sets only some of spawn, wait_proc and end_proc", m->path);

	srt__module_free(m);
	return rc;
}

int srt__module_load_backend(const char *spec, struct srt__module **out,
			     const struct srt_backend **vt, struct srt_diag *diag)
{
	const struct srt_backend *be;
	struct srt__module *m;
	const void *entry;
	int rc;

	rc = module_open(&backend_kind, spec, &m, &entry, diag);
	if (rc)
		return rc;
	be = entry;
	if (!be->probe || !be->prepare || !be->wrap || !be->release || !be->teardown)
		return refuse_empty_slot(m, diag);
	if ((SRT__BACKEND_HAS(be, spawn) || SRT__BACKEND_HAS(be, wait_proc) ||
	     SRT__BACKEND_HAS(be, end_proc)) && !srt__backend_spawns(be))
		return refuse_partial_spawn(m, diag);
	*out = m;
	*vt = be;
	return SRT_OK;
}

int srt__module_load_filter(const char *spec, struct srt__module **out,
			    const struct srt_filter **vt, struct srt_diag *diag)
{
	const struct srt_filter *f;
	struct srt__module *m;
	const void *entry;
	int rc;

	rc = module_open(&filter_kind, spec, &m, &entry, diag);
	if (rc)
		return rc;
	f = entry;
	if (!f->create || !f->destroy)
		return refuse_empty_slot(m, diag);
	*out = m;
	*vt = f;
	return SRT_OK;
}

int srt__module_load_tls(struct srt__module **out, const struct srt__tls_module **vt,
			 struct srt_diag *diag)
{
	const struct srt__tls_module *t;
	struct srt__module *m;
	const void *entry;
	int rc;

	rc = module_open(&tls_kind, "mbedtls", &m, &entry, diag);
	if (rc)
		return rc;
	t = entry;
	if (!t->ctx_new || !t->ctx_free || !t->ca_pem || !t->server_new || !t->client_new ||
	    !t->handshake)
		return refuse_empty_slot(m, diag);
	*out = m;
	*vt = t;
	return SRT_OK;
}

const char *srt__module_path(const struct srt__module *m)
{
	return m->path;
}

void *srt__module_symbol(const struct srt__module *m, const char *name)
{
	return m && m->handle ? lt_dlsym(m->handle, name) : NULL;
}

void srt__module_free(struct srt__module *m)
{
	if (!m)
		return;
	if (m->handle)
		lt_dlclose(m->handle);
	free(m);
}
