/* The resolved-address guard: which addresses a hostname may be dialled
 * at, so DNS rebinding and alternate spellings cannot reach loopback,
 * link-local, metadata or this host's addresses. */
#ifndef SRT_PROXY_GUARD_H
#define SRT_PROXY_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "proxies/rules.h"

struct srt__ip {
	int family; /* AF_INET or AF_INET6 */
	uint8_t a[16];
};

/* A bare IPv4 dotted quad or IPv6 literal (a zone is refused). */
int srt__ip_parse(const char *s, struct srt__ip *ip);
void srt__ip_format(const struct srt__ip *ip, char *out, size_t cap);
bool srt__ip_equal(const struct srt__ip *a, const struct srt__ip *b);
/* ::ffff:a.b.c.d: the same socket address as a.b.c.d. */
bool srt__ip_is_mapped(const struct srt__ip *ip);

/* The IPv4 addresses an IPv6 one carries, the ones a packet to it may end
 * up at: mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, compatible
 * ::/96 (not :: or ::1), NAT64 64:ff9b::/96, local-use NAT64
 * 64:ff9b:1::/48 (every place its prefix length allows), 6to4 2002::/16,
 * Teredo 2001::/32 (server and client). Returns how many were put in out
 * (the mapped form's is out[0]). */
#define SRT_IP_MAX_EMBEDDED 4
size_t srt__ip_embedded_v4(const struct srt__ip *ip, struct srt__ip out[SRT_IP_MAX_EMBEDDED]);

/* addr[/prefix]; IPv4-mapped IPv6 ranges with prefix >= 96 become IPv4. */
int srt__cidr_parse(const char *s, struct srt__cidr *c);
bool srt__cidr_contains(const struct srt__cidr *c, const struct srt__ip *ip);

/* Classes, in the fixed priority order of the reason text. */
enum {
	SRT_GUARD_DENYLISTED = 1u << 0,
	SRT_GUARD_NON_LOOPBACK = 1u << 1,
	SRT_GUARD_LOOPBACK = 1u << 2,
	SRT_GUARD_UNSPECIFIED = 1u << 3,
	SRT_GUARD_LINK_LOCAL = 1u << 4,
	SRT_GUARD_MULTICAST = 1u << 5,
	SRT_GUARD_BROADCAST = 1u << 6,
	SRT_GUARD_METADATA = 1u << 7,
	SRT_GUARD_LISTED = 1u << 8,
	SRT_GUARD_OWN = 1u << 9,
	SRT_GUARD_PRIVATE = 1u << 10,
};

/* The address as given lies in a range no internet host has: 10/8,
 * 172.16/12, 192.168/16, 100.64/10, 192.0.0/24, 198.18/15, 240/4, fc00::/7,
 * fec0::/10, 64:ff9b:1::/48, 2001:2::/48. */
bool srt__ip_is_private(const struct srt__ip *ip);

/* 0 when `a` (an answer for hostname `host`, canonical, dialled on port)
 * may be dialled, else the class that refuses it. `local` is this host's
 * interface addresses. `named`: an entry naming host exactly allowed it
 * (srt__net_rules_named), so the private ranges stay reachable unless
 * privateAddresses is "refuse". */
unsigned srt__guard_check(const struct srt__net_rules *r, const char *host, int port,
			  const struct srt__ip *a, const struct srt__ip *local,
			  size_t nlocal, bool named);

/* "resolved to <class> / <class>" for a union of classes. */
void srt__guard_reason(unsigned classes, char *out, size_t cap);

/* This host's interface addresses (getifaddrs). *out is malloc'd. */
int srt__guard_local_addrs(struct srt__ip **out, size_t *n);

#endif
