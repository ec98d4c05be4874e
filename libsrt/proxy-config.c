/* Fills the proxy's view of the settings (struct srt__net_config) from
 * struct srt__settings. The view borrows the settings' strings and
 * vectors; only the array of deny reasons is allocated here, because the
 * settings hold them in a type of their own. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/platform.h"
#include "proxy-config.h"

/* network.privateAddresses; the validator admitted only these spellings. */
static enum srt__private_mode private_mode(const char *v)
{
	if (v && strcmp(v, "refuse") == 0)
		return SRT_PRIVATE_REFUSE;
	if (v && strcmp(v, "allow") == 0)
		return SRT_PRIVATE_ALLOW;
	return SRT_PRIVATE_REFUSE_WILDCARDS;
}

/* On success *reasons is the array to free once the proxy has copied c
 * (NULL after a failure, so it can be freed either way). */
static int net_config_fill(struct srt__net_config *c, struct srt__net_reason **reasons,
			   const struct srt__settings *s, struct srt__filter_chain *filters,
			   struct srt_diag *diag)
{
	size_t n;
	struct srt__net_reason *r;

	*reasons = NULL;
	if (!s)
		return srt_diag_set(diag, SRT_E_INVAL, "", "proxy: missing settings");
	n = s->n_denied_domain_reasons;
	r = calloc(n ? n : 1, sizeof(*r));
	if (!r)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "out of memory copying the network rules");
	for (size_t i = 0; i < n; i++) {
		r[i].domain = s->denied_domain_reasons[i].key;
		r[i].reason = s->denied_domain_reasons[i].value;
	}
	memset(c, 0, sizeof(*c));
	c->allowed_domains = s->allowed_domains;
	c->denied_domains = s->denied_domains;
	c->denied_domain_reasons = r;
	c->n_denied_domain_reasons = n;
	c->strict_allowlist = s->strict_allowlist;
	c->denied_resolved_addresses = s->denied_resolved_addresses;
	c->private_addresses = private_mode(s->private_addresses);
	c->http_proxy_port = s->http_proxy_port;
	c->socks_proxy_port = s->socks_proxy_port;
	c->strip_response_headers = s->strip_response_headers;
	c->refuse_opaque_tunnels = s->refuse_opaque_tunnels;
	c->require_host_match = s->require_host_match;
	/* the settings check admits only these three spellings; absent is "refuse" */
	c->ambiguous_target = !s->ambiguous_request_target ? SRT_TARGET_REFUSE :
			      !strcmp(s->ambiguous_request_target, "asSpelled") ? SRT_TARGET_AS_SPELLED :
			      !strcmp(s->ambiguous_request_target, "normalize") ? SRT_TARGET_NORMALIZE :
									    SRT_TARGET_REFUSE;
	if (s->has_parent_proxy) {
		c->parent_http = s->parent_http;
		c->parent_https = s->parent_https;
		c->parent_no_proxy = s->parent_no_proxy;
	}
	if (s->has_mitm_proxy) {
		c->mitm_socket_path = s->mitm_socket_path;
		c->mitm_domains = s->mitm_domains;
	}
	c->filters = filters;
	if (s->has_tls_terminate) {
		c->tls_exclude_domains = s->tls_exclude_domains;
		c->tls_max_tunnels = s->tls_max_tunnels;
		c->tls_handshake_ms = s->tls_handshake_timeout_ms;
	}
	*reasons = r;
	return SRT_OK;
}

int srt__proxy_new_from_settings(struct srt__proxy **out, const struct srt__proxy_config *cfg,
				 const struct srt__settings *s, struct srt__filter_chain *filters,
				 struct srt_diag *diag)
{
	struct srt__proxy_config with_net;
	struct srt__net_config net;
	struct srt__net_reason *reasons;
	int err;

	if (!cfg)
		return srt__proxy_new(out, NULL, diag); /* refuses it with its own message */
	err = net_config_fill(&net, &reasons, s, filters, diag);
	if (!err) {
		with_net = *cfg;
		with_net.net = &net;
		err = srt__proxy_new(out, &with_net, diag);
	} else if (!cfg->socket_path && cfg->tcp_listener >= 0) {
		srt__os_sock_close(cfg->tcp_listener); /* the proxy's from the call on */
	}
	free(reasons);
	return err;
}

int srt__proxy_update_from_settings(struct srt__proxy *p, const struct srt__settings *s,
				    struct srt__filter_chain *filters, struct srt_diag *diag)
{
	struct srt__net_config net;
	struct srt__net_reason *reasons;
	int err = net_config_fill(&net, &reasons, s, filters, diag);

	if (!err)
		err = srt__proxy_update(p, &net, diag);
	free(reasons);
	return err;
}
