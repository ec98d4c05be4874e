/* The sandbox object shared by the files that make up its lifecycle
 * (manager.c), backend choice, proxy glue, child environment, explain and
 * violation report. Private to libsrt. */
#ifndef SRT_LIBSRT_SANDBOX_H
#define SRT_LIBSRT_SANDBOX_H

#include <stdint.h>
#include <pthread.h>
#include <sys/resource.h>

#include <srt/srt.h>
#include <srt/backend.h>

#include "settings.h"

struct srt__module;
struct srt__proxy;
struct srt__filter_chain;
struct srt__ask;
struct srt__tls_module;
struct srt__tls_ctx;
struct srt__vstore;

struct srt_sandbox {
	char *backend_spec;
	char *cwd;
	int debug;
	int live_updates;
	int plan_only; /* srt_options.plan_only: explain, never run */
	char *cannot_run; /* plan_only: why the chosen backend cannot run here, or NULL */
	srt_log_fn log;
	void *log_ctx;

	/* proxy thread only: the denial rate limit */
	uint64_t px_tokens_milli, px_last_ns, px_note_ns;
	unsigned long px_dropped;

	struct srt__settings settings;
	char *settings_path; /* the file loaded, or NULL */
	char *settings_named; /* the same as it was named, made absolute */
	char *protect_file;   /* srt_options.protect_file */
	int have_policy;
	struct srt_policy policy;

	struct srt__module *module;
	const struct srt_backend *be;
	void *bstate;

	struct srt__proxy *proxy;
	/* the request filters: network.filters' modules (loaded at creation)
	 * and the caller's callback, lent to the proxy */
	struct srt__filter_chain *filters;
	struct srt__module **filter_modules;
	size_t n_filter_modules;
	srt_request_filter_fn request_filter;
	void *request_filter_ctx;
	/* the application's ask callback's broker (proxies/ask.h), or NULL;
	 * lent to the proxy, freed after it */
	struct srt__ask *ask;
	/* network.tlsTerminate: the module, its context, and the directory
	 * holding ca.crt and trust-bundle.crt (libsrt/tls-setup.c) */
	/* credentials: what the command's environment gets instead of the
	 * masked variables ("NAME=sentinel") and the names it loses
	 * (libsrt/credentials.c) */
	struct srt__strv cred_env;
	struct srt__strv cred_unset;
	/* credentials.files in mask mode: each file's real path, the masked
	 * content the command sees there and the entry's name; the copies
	 * go to cred_mask_dir (inside proxy_dir) once the backend is known */
	struct srt__strv cred_mask_path, cred_mask_data, cred_mask_origin;
	char *cred_mask_dir;
	struct srt__module *tls_module;
	const struct srt__tls_module *tls;
	struct srt__tls_ctx *tls_ctx;
	char *tls_dir, *tls_bundle;
	char *proxy_dir;
	int proxy_dir_fd; /* proxy_dir held (common/rmtree.h), or -1 */
	char *sweep_base; /* where stale proxy directories are swept, once, or NULL */
	int swept; /* srt__sandbox_sweep ran */
	char token[33];
	int started;
	pid_t owner; /* the process that started it: a copy made by fork owns
		      * nothing the start made (srt_sandbox_free) */

	struct srt__vstore *violations;
	struct rlimit nofile; /* the caller's open-files limit, restored for commands */
	pthread_mutex_t update_lock; /* serialises srt_sandbox_update_settings */
};

/* Is this a copy of a started sandbox made by fork (this process is not
 * the one that started it)? The proxy and what it serves stay that
 * process's (srt_sandbox_free, srt_sandbox_update_settings). */
int srt__sandbox_is_copy(const struct srt_sandbox *sb);

/* Once per sandbox, after its first command is spawned: remove what
 * killed srts left, the proxy directories in TMPDIR and the run
 * directories beside this run's (common/rmtree.h). */
void srt__sandbox_sweep(struct srt_sandbox *sb);

/* One line for the caller: through srt_options.log when set, else stderr
 * ("srt: warning: ..."); is_debug lines only under --debug. */
void srt__sandbox_log(struct srt_sandbox *sb, int is_debug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
