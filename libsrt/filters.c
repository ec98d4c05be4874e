/* The request filters of a sandbox: network.filters' modules loaded and
 * created when the sandbox is created (a plugin that cannot be loaded or
 * refuses its configuration fails the creation with one line naming the
 * entry), the library's callback added at start, and the chain lent to the
 * proxy (proxies/filter-chain.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "credentials.h"
#include "filters.h"
#include "loader.h"
#include "proxies/filter-chain.h"
#include "sandbox.h"

static void chain_log(void *ctx, int is_debug, const char *line)
{
	srt__sandbox_log(ctx, is_debug, "%s", line);
}

static int ensure_chain(struct srt_sandbox *sb, struct srt_diag *diag)
{
	int rc;

	if (sb->filters)
		return SRT_OK;
	rc = srt__filter_chain_new(0, chain_log, sb, &sb->filters);
	if (rc)
		return srt_diag_set(diag, rc, "network.filters",
				    "cannot set up the request filters: %s", srt_strerror(rc));
	return SRT_OK;
}

static int load_one(struct srt_sandbox *sb, size_t i, struct srt_diag *diag)
{
	const struct srt__filter_spec *f = &sb->settings.filters[i];
	const struct srt_filter *vt;
	struct srt_filter_error err;
	struct srt__module *m = NULL;
	struct srt_diag ld;
	char key[300];
	int rc;

	memset(&ld, 0, sizeof(ld));
	snprintf(key, sizeof(key), "network.filters[%zu]", i);
	rc = srt__module_load_filter(f->plugin, &m, &vt, &ld);
	if (rc)
		return srt_diag_set(diag, rc, key, "%s: request filter \"%s\" cannot be loaded: %s",
				    key, f->plugin, ld.message);
	sb->filter_modules[sb->n_filter_modules++] = m;
	rc = srt__filter_chain_add(sb->filters, vt, f->plugin, f->config_json, &err);
	if (rc) {
		snprintf(key, sizeof(key), "network.filters[%zu].config%s%s", i,
			 err.path[0] && err.path[0] != '[' ? "." : "", err.path);
		return srt_diag_set(diag, rc, key, "%s: request filter \"%s\": %s", key, f->plugin,
				    err.message);
	}
	return SRT_OK;
}

int srt__sandbox_load_filters(struct srt_sandbox *sb, struct srt_diag *diag)
{
	size_t i;
	int rc;

	if (!sb->settings.n_filters && !sb->settings.has_credentials)
		return SRT_OK;
	/* one more for the credentials module */
	sb->filter_modules = calloc(sb->settings.n_filters + 1, sizeof(*sb->filter_modules));
	if (!sb->filter_modules)
		return srt_diag_set(diag, SRT_E_NOMEM, "network.filters", "out of memory");
	if ((rc = ensure_chain(sb, diag)))
		return rc;
	/* first in the chain: it must see every request whichever filter
	 * decides, and it only edits (never decides but to refuse) */
	if ((rc = srt__sandbox_load_credentials(sb, diag)))
		return rc;
	for (i = 0; i < sb->settings.n_filters; i++)
		if ((rc = load_one(sb, i, diag)))
			return rc;
	return SRT_OK;
}

int srt__sandbox_add_request_callback(struct srt_sandbox *sb, struct srt_diag *diag)
{
	int rc;

	if (!sb->request_filter)
		return SRT_OK;
	if ((rc = ensure_chain(sb, diag)))
		return rc;
	srt__filter_chain_set_callback(sb->filters, sb->request_filter, sb->request_filter_ctx);
	return SRT_OK;
}

int srt__sandbox_check_filters_run(struct srt_sandbox *sb, struct srt_diag *diag)
{
	if (!srt__filter_chain_count(sb->filters) || !sb->proxy)
		return SRT_OK;
	if (srt__filter_chain_attached(sb->filters))
		return SRT_OK;
	/* never run with the filters loaded but nobody asking them */
	return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.filters",
			    "network.filters: the proxy of this srt build does not run request filters; "
			    "remove network.filters (and the request-filter callback) or use an srt whose proxy does");
}

int srt__filters_same(const struct srt__settings *a, const struct srt__settings *b)
{
	size_t i;

	if (a->n_filters != b->n_filters)
		return 0;
	for (i = 0; i < a->n_filters; i++) {
		const struct srt__filter_spec *x = &a->filters[i], *y = &b->filters[i];

		if (strcmp(x->plugin, y->plugin))
			return 0;
		if (!x->config_json != !y->config_json ||
		    (x->config_json && strcmp(x->config_json, y->config_json)))
			return 0;
	}
	return 1;
}

void srt__sandbox_free_filters(struct srt_sandbox *sb)
{
	size_t i;

	/* the states first: their code lives in the modules */
	srt__filter_chain_free(sb->filters);
	sb->filters = NULL;
	for (i = 0; i < sb->n_filter_modules; i++)
		srt__module_free(sb->filter_modules[i]);
	free(sb->filter_modules);
	sb->filter_modules = NULL;
	sb->n_filter_modules = 0;
}
