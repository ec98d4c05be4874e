/* A sandbox's request filters (filters.c). */
#ifndef SRT_LIBSRT_FILTERS_H
#define SRT_LIBSRT_FILTERS_H

#include <srt/srt.h>

#include "settings.h"

/* Load and create network.filters' plugins in order into sb->filters: on
 * failure one line naming network.filters[N] (or its config key path) and
 * the plugin. */
int srt__sandbox_load_filters(struct srt_sandbox *sb, struct srt_diag *diag);
/* Add the library callback (srt_sandbox_set_request_filter) to the chain,
 * creating it when no plugin did. */
int srt__sandbox_add_request_callback(struct srt_sandbox *sb, struct srt_diag *diag);
/* After the proxy started: refuse to go on when there are filters the
 * proxy did not attach to (it would not run them). */
int srt__sandbox_check_filters_run(struct srt_sandbox *sb, struct srt_diag *diag);
/* Do a and b list the same filters with the same configuration? */
int srt__filters_same(const struct srt__settings *a, const struct srt__settings *b);
/* Destroy the chain, then unload the modules. NULL-safe fields. */
void srt__sandbox_free_filters(struct srt_sandbox *sb);

#endif
