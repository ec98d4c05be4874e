/* Where an allowed connection goes, once the rules allowed it: through
 * the mitmProxy Unix socket for its domains, through the parent proxy
 * unless NO_PROXY bypasses it, else direct (with the address guard). */
#ifndef SRT_PROXY_ROUTE_H
#define SRT_PROXY_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <srt/error.h>
#include "proxies/net-config.h"

enum srt__route { SRT_ROUTE_DIRECT, SRT_ROUTE_MITM, SRT_ROUTE_PARENT };

struct srt__upstream {
	bool set;
	bool is_unix;
	char host[256]; /* TCP proxy host (brackets removed) */
	int port;
	char path[108]; /* Unix socket path */
	char auth[512]; /* "Basic <b64>" or "" */
};

struct srt__routes {
	struct srt__upstream parent_http;  /* plain HTTP */
	struct srt__upstream parent_https; /* CONNECT and SOCKS */
	char **no_proxy;
	size_t n_no_proxy;
	struct srt__upstream mitm;
	char **mitm_domains;
	size_t n_mitm_domains;
};

/* Build the routes from the settings and, for the parent proxy, the
 * environment of srt itself (parentProxy.http ?? $HTTP_PROXY ??
 * $http_proxy, ...). An https:// parent named in the settings is refused
 * (no TLS to a parent here): SRT_E_UNSUPPORTED. Invalid or https URLs from
 * the environment are ignored, as the reference does. */
int srt__routes_init(struct srt__routes *rt, const struct srt__net_config *s,
		     struct srt_diag *diag);
void srt__routes_release(struct srt__routes *rt);

/* Parse "http://[user:pass@]host[:port]" (or schemeless host:port). Returns
 * 0, -1 when invalid, -2 for https://. */
int srt__upstream_parse(const char *url, struct srt__upstream *up);

/* NO_PROXY matching for canonical host (port ignored): loopback names
 * always match, "*" matches all, an address range matches the IP
 * literals in it, and a name ("x", ".x" or "*.x") matches x and its
 * subdomains. */
bool srt__no_proxy_match(char *const *list, size_t n, const char *canon);

/* The route for canon:port; *via is filled for MITM and PARENT. */
enum srt__route srt__route_for(const struct srt__routes *rt, const char *canon, int port,
			      bool plain_http, struct srt__upstream *via);

#endif
