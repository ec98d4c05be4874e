/* Domain patterns (the entries of allowedDomains, deniedDomains and the
 * other host lists: "example.com", "*.example.com", "host:port", "[v6]")
 * and host canonicalisation. Pure functions shared by the settings
 * validator and the proxies, with the same accept/refuse answers and
 * messages as the reference tool, so settings written for it mean the same
 * here. */
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

/* Validate one entry. On failure fills diag->message with the reason and
 * the text the reference tool prints for that list (which patterns it
 * accepts) and returns SRT_E_INVAL. */
int srt__domain_pattern_check(const char *entry, enum srt__domain_list list,
			      struct srt_diag *diag);

/* Split "host:port", "[v6]:port", "[v6]". host_out gets the host part
 * (IPv6 bare, canonical); *port is 0 when the entry has no port. */
int srt__domain_split_port(const char *entry, char *host_out, size_t host_len,
			   int *port);

/* Whether host is a name or address a client may ask for: an IPv4 or IPv6
 * literal (brackets allowed, no zone id), or a name of letters, digits,
 * '.', '_' and '-' only, at most the longest DNS name. */
bool srt__host_is_valid(const char *host);

/* The one spelling every match compares: lower-case, IPv4 shorthand/hex/octal to dotted
 * quad, IPv6 compressed (no brackets), IPv4-mapped IPv6 to IPv4, one
 * trailing dot stripped. Returns SRT_E_INVAL when it cannot be parsed. */
int srt__host_canonicalize(const char *host, char *out, size_t out_len);

/* Whether canon_host:port matches pattern ("*.x" matches subdomains
 * only, a pattern without a port matches any port); canon_host must come
 * from srt__host_canonicalize. */
bool srt__domain_match(const char *canon_host, int port, const char *pattern);

#endif
