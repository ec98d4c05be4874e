/* The proxy started and updated from the core's settings: the one place
 * that translates struct srt__settings into the proxy's own view of them
 * (struct srt__net_config, proxies/net-config.h), so proxies/ never reads
 * the core's private settings. */
#ifndef SRT_PROXY_CONFIG_H
#define SRT_PROXY_CONFIG_H

#include <srt/error.h>

#include "settings.h"
#include "proxies/proxy.h"

/* srt__proxy_new with cfg->net taken from s (cfg->net is ignored). Both
 * are borrowed for the call only; `filters` (NULL: none) is lent for the
 * proxy's life (net-config.h). */
int srt__proxy_new_from_settings(struct srt__proxy **out, const struct srt__proxy_config *cfg,
				 const struct srt__settings *s, struct srt__filter_chain *filters,
				 struct srt_diag *diag);

/* srt__proxy_update from s: the network lists replaced live, the same
 * filters kept. On failure the proxy keeps its previous rules. */
int srt__proxy_update_from_settings(struct srt__proxy *p, const struct srt__settings *s,
				    struct srt__filter_chain *filters, struct srt_diag *diag);

#endif
