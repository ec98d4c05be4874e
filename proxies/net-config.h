/* What the proxy reads of the user's settings: the network lists and the
 * options it decides and routes by, and nothing else. The core fills it
 * from its parsed settings (libsrt/proxy-config.c); the tests fill it by
 * hand. The proxy never sees the core's settings struct.
 *
 * Nothing here is owned: every pointer, and every vector's array, is
 * borrowed for the duration of the call that takes the struct
 * (srt__proxy_new, srt__proxy_update, srt__net_rules_new), which copies
 * what it keeps. Never release a vector through this struct. */
#ifndef SRT_PROXY_NET_CONFIG_H
#define SRT_PROXY_NET_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strv.h"

struct srt__filter_chain;

/* The message a deniedDomains entry gives when it refuses a host. */
struct srt__net_reason {
	const char *domain; /* the deniedDomains entry, as written */
	const char *reason;
};

/* network.privateAddresses: when a resolved name may reach the private
 * ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7). A wildcard
 * entry names hosts nobody has looked at one by one, so by default only
 * those are kept off the private network. */
enum srt__private_mode {
	SRT_PRIVATE_REFUSE_WILDCARDS = 0, /* refused for names only a wildcard allowed */
	SRT_PRIVATE_REFUSE,               /* refused for every name and literal */
	SRT_PRIVATE_ALLOW,                /* dialled like any other address */
};

/* network.ambiguousRequestTarget: a request-target whose path names one
 * path as spelled and another once dot segments ("." "..", also spelled
 * with %2e), leading slashes and "\" are resolved, as a server or a
 * filter may read it either way. */
enum srt__target_mode {
	SRT_TARGET_REFUSE = 0,   /* 400, nothing forwarded (the default) */
	SRT_TARGET_AS_SPELLED,   /* forwarded unchanged */
	SRT_TARGET_NORMALIZE,    /* forwarded, and judged, in the normalised form */
};

struct srt__net_config {
	struct srt__strv allowed_domains;
	struct srt__strv denied_domains;
	const struct srt__net_reason *denied_domain_reasons;
	size_t n_denied_domain_reasons;
	bool strict_allowlist;
	/* address ranges a resolved name must not reach ("10.0.0.0/8") */
	struct srt__strv denied_resolved_addresses;
	enum srt__private_mode private_addresses;
	int http_proxy_port;  /* external HTTP proxy on 127.0.0.1; 0 = none */
	int socks_proxy_port; /* external SOCKS proxy on 127.0.0.1; 0 = none */
	struct srt__strv strip_response_headers;
	bool refuse_opaque_tunnels;
	bool require_host_match;
	enum srt__target_mode ambiguous_target;
	/* the parent proxy's URLs and NO_PROXY list; NULL falls back on the
	 * environment of srt itself */
	const char *parent_http;
	const char *parent_https;
	const char *parent_no_proxy;
	/* the mitmProxy Unix socket (NULL: none) and the domains sent to it */
	const char *mitm_socket_path;
	struct srt__strv mitm_domains;
	/* The request filters (proxies/filter-chain.h), run after the domain
	 * lists on every connection and request they allow; NULL: none. The
	 * one exception to "borrowed for the call": the chain is the core's
	 * and outlives the proxy, which keeps this pointer, watches
	 * srt__filter_chain_fd() and never frees it. */
	struct srt__filter_chain *filters;
	/* network.tlsTerminate (used when the proxy was given a TLS module):
	 * the domains tunnelled opaquely, the most terminated tunnels at
	 * once, and the handshake's time limit; read when the proxy is made */
	struct srt__strv tls_exclude_domains;
	int tls_max_tunnels;
	int tls_handshake_ms;
};

#endif
