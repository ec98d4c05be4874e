/* Domain patterns (§2.8) and host canonicalisation (§7.7).
 * Pure functions shared by the settings validator and the proxies. */
#ifndef SRT_DOMAIN_H
#define SRT_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <srt/error.h>

enum srt__domain_list {
	SRT_LIST_ALLOWED, /* allowedDomains, mitm/tls domain lists */
	SRT_LIST_DENIED,  /* deniedDomains: also accepts "*" and "*:port" */
	SRT_LIST_PLAIN,   /* domain pattern without a ":port" suffix */
};

/* Validate one entry. On failure fills diag->message with the reference's
 * message text (§2.8, list variant) and returns SRT_E_INVAL. */
int srt__domain_pattern_check(const char *entry, enum srt__domain_list list,
			      struct srt_diag *diag);

/* Split "host:port", "[v6]:port", "[v6]". host_out gets the host part
 * (IPv6 bare, canonical); *port is 0 when the entry has no port. */
int srt__domain_split_port(const char *entry, char *host_out, size_t host_len,
			   int *port);

/* isValidHost of §7.7. */
bool srt__host_is_valid(const char *host);

/* canonicalizeHost of §7.7: lower-case, IPv4 shorthand/hex/octal to dotted
 * quad, IPv6 compressed (no brackets), IPv4-mapped IPv6 to IPv4, one
 * trailing dot stripped. Returns SRT_E_INVAL when it cannot be parsed. */
int srt__host_canonicalize(const char *host, char *out, size_t out_len);

/* matchesDomainPatternWithPort: host must already be canonical. */
bool srt__domain_match(const char *canon_host, int port, const char *pattern);

#endif
