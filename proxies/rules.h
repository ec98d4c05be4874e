/* The proxy's network rules (a private copy of the settings' lists) and the
 * decision on canonical hosts: deniedDomains first, then allowedDomains,
 * then (unless strictAllowlist) the command's own list. */
#ifndef SRT_PROXY_RULES_H
#define SRT_PROXY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <srt/error.h>

#include "proxies/net-config.h"
#include "proxies/route.h"

struct srt__cidr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t a[16];
	int prefix;
};

struct srt__net_rules {
	char **allowed;
	size_t n_allowed;
	char **denied;
	size_t n_denied;
	char **reason_keys;
	char **reason_values;
	size_t n_reasons;
	bool strict;
	struct srt__cidr *denied_addrs; /* deniedResolvedAddresses */
	size_t n_denied_addrs;
	enum srt__private_mode private_mode; /* privateAddresses */
	bool refuse_opaque;      /* refuseOpaqueTunnels: no TLS termination here, so every tunnel */
	bool require_host_match; /* requireHostMatch: HTTP/1.1 without Host is refused */
	enum srt__target_mode ambiguous_target; /* ambiguousRequestTarget */
	char **strip;            /* stripResponseHeaders */
	size_t n_strip;
	struct srt__routes routes; /* mitmProxy, parentProxy */
	int ext_http_port;        /* httpProxyPort: HTTP goes raw to 127.0.0.1:port */
	int ext_socks_port;       /* socksProxyPort: SOCKS goes raw to 127.0.0.1:port */
};

/* Copy the network lists of s. Returns SRT_OK or SRT_E_NOMEM/SRT_E_INVAL
 * (an unparsable deniedResolvedAddresses entry: fail closed). */
int srt__net_rules_new(struct srt__net_rules **out, const struct srt__net_config *s,
		   struct srt_diag *diag);
void srt__net_rules_free(struct srt__net_rules *r);

/* The lists' verdict: ASK when the host is on neither list, strictAllowlist
 * is off and the command's own list does not name it (the reason then says
 * "host is not on the allow list", the denial when nobody can be asked). */
enum srt__verdict { SRT__VERDICT_DENY, SRT__VERDICT_ALLOW, SRT__VERDICT_ASK };
enum srt__verdict srt__net_rules_judge(const struct srt__net_rules *r, const char *host, int port,
				       char *const *cmd_allowed, size_t n_cmd, char *reason,
				       size_t cap);

/* The decision for host (as requested) and port (ASK denies). Returns true to allow; on deny
 * writes the violation reason. `cmd_allowed` is the per-command list of
 * the connection's attribution (may be NULL): consulted after
 * strictAllowlist, as the reference does. A NULL rules pointer denies
 * ("sandbox policy unavailable"). */
bool srt__net_rules_decide(const struct srt__net_rules *r, const char *host, int port,
			char *const *cmd_allowed, size_t n_cmd, char *reason, size_t cap);

/* Whether an entry that names host exactly (not a wildcard) allows it:
 * allowedDomains, then (unless strictAllowlist) the command's own list.
 * The guard keeps the private ranges for such names. */
bool srt__net_rules_named(const struct srt__net_rules *r, const char *host, int port,
			  char *const *cmd_allowed, size_t n_cmd);

/* deniedDomains only (the unauthenticated SOCKS probe of an ssh
 * ProxyCommand, answered with the in-band refusal). Returns
 * true and the reason when the host is deny-listed. */
bool srt__net_rules_denied(const struct srt__net_rules *r, const char *host, int port,
			char *reason, size_t cap);

/* Canonical form of host for matching and dialling; falls back to the host
 * lower-cased when it cannot be canonicalised (as the reference does). */
void srt__net_canon(const char *host, char *out, size_t cap);

#endif
