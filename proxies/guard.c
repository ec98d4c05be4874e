/* Resolved-address guard. Every answer is judged on its own and also on
 * the IPv4 address embedded in it, because a NAT64, 6to4, Teredo, ISATAP
 * or mapped spelling reaches the same IPv4 host. */
#include "config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/domain.h"
#include "proxies/guard.h"

int srt__ip_parse(const char *s, struct srt__ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, ip->a) == 1) {
		ip->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip->a) == 1) {
		ip->family = AF_INET6;
		return 0;
	}
	return -1;
}

void srt__ip_format(const struct srt__ip *ip, char *out, size_t cap)
{
	if (!inet_ntop(ip->family, ip->a, out, (socklen_t)cap) && cap)
		out[0] = '\0';
}

bool srt__ip_equal(const struct srt__ip *a, const struct srt__ip *b)
{
	return a->family == b->family &&
	       memcmp(a->a, b->a, a->family == AF_INET ? 4 : 16) == 0;
}

static bool zeros(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

bool srt__ip_is_mapped(const struct srt__ip *ip)
{
	return ip->family == AF_INET6 && zeros(ip->a, 10) && ip->a[10] == 0xff && ip->a[11] == 0xff;
}

static size_t put_v4(struct srt__ip *out, size_t n, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(&out[n], 0, sizeof(out[n]));
	out[n].family = AF_INET;
	out[n].a[0] = a;
	out[n].a[1] = b;
	out[n].a[2] = c;
	out[n].a[3] = d;
	return n + 1;
}

/* 64:ff9b:1::/48 is a NAT64 prefix for local use: the network chooses
 * its length (/48, /56, /64 or /96), so the IPv4 address may sit at any
 * of the four places the translation format defines. Every place whose
 * other bits are zero (as the format demands) is a candidate; 0.0.0.0/8
 * is no destination a translator reaches, so it is not one. */
static size_t local_nat64(const uint8_t *a, struct srt__ip *out)
{
	size_t n = 0;

	if (a[8] != 0)
		return 0; /* bits 64-71 are zero in every format */
	if (zeros(a + 11, 5) && a[6])
		n = put_v4(out, n, a[6], a[7], a[9], a[10]); /* /48 */
	if (zeros(a + 12, 4) && a[7])
		n = put_v4(out, n, a[7], a[9], a[10], a[11]); /* /56 */
	if (zeros(a + 13, 3) && a[9])
		n = put_v4(out, n, a[9], a[10], a[11], a[12]); /* /64 */
	if (a[12])
		n = put_v4(out, n, a[12], a[13], a[14], a[15]); /* /96 */
	return n;
}

/* ISATAP: any 64-bit prefix, then the interface identifier
 * [0-3]00:5efe:a.b.c.d (its first byte holds the universal/local and
 * individual/group bits, 0200:5efe when the IPv4 address is global). The
 * prefix can be anything, a 6to4 or link-local one included, so the
 * identifier is looked at whatever the prefix said. */
static bool isatap(const uint8_t *a)
{
	return (a[8] & ~0x03) == 0 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe;
}

/* The forms told by their prefix. Only local-use NAT64 can fill all
 * SRT_IP_MAX_EMBEDDED places, and it does so only with zeros in bytes
 * 11-15, which no ISATAP identifier has: an ISATAP address always finds
 * a free place. */
static size_t prefixed_v4(const uint8_t *a, struct srt__ip *out)
{
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
	static const uint8_t nat64_local[6] = { 0, 0x64, 0xff, 0x9b, 0, 1 };

	if ((zeros(a, 10) && a[10] == 0xff && a[11] == 0xff) ||     /* ::ffff:a.b.c.d */
	    (zeros(a, 8) && a[8] == 0xff && a[9] == 0xff && a[10] == 0 && a[11] == 0) || /* ::ffff:0:a.b.c.d */
	    (zeros(a, 12) && !(zeros(a + 12, 3) && a[15] <= 1)) ||  /* ::a.b.c.d, not :: or ::1 */
	    memcmp(a, nat64, 12) == 0)                              /* 64:ff9b::a.b.c.d */
		return put_v4(out, 0, a[12], a[13], a[14], a[15]);
	if (memcmp(a, nat64_local, 6) == 0)
		return local_nat64(a, out);
	if (a[0] == 0x20 && a[1] == 0x02) /* 6to4 2002:AABB:CCDD::/48 */
		return put_v4(out, 0, a[2], a[3], a[4], a[5]);
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0) {
		/* Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC: the server
		 * and the client, whose address is stored inverted */
		size_t n = put_v4(out, 0, a[4], a[5], a[6], a[7]);
		return put_v4(out, n, (uint8_t)~a[12], (uint8_t)~a[13], (uint8_t)~a[14], (uint8_t)~a[15]);
	}
	return 0;
}

size_t srt__ip_embedded_v4(const struct srt__ip *ip, struct srt__ip out[SRT_IP_MAX_EMBEDDED])
{
	const uint8_t *a = ip->a;
	size_t n;

	if (ip->family != AF_INET6)
		return 0;
	n = prefixed_v4(a, out);
	/* an ISATAP identifier behind any prefix (a 6to4 one too): the
	 * tunnel's IPv4 end; the same address twice (a Teredo client
	 * whose inverted bytes spell it) is harmless */
	if (isatap(a) && n < SRT_IP_MAX_EMBEDDED)
		n = put_v4(out, n, a[12], a[13], a[14], a[15]);
	return n;
}

int srt__cidr_parse(const char *s, struct srt__cidr *c)
{
	char buf[128];
	const char *slash = strchr(s, '/');
	size_t hl = slash ? (size_t)(slash - s) : strlen(s);
	struct srt__ip ip;
	char *pct;
	int max;

	if (hl == 0 || hl >= sizeof(buf))
		return -1;
	memcpy(buf, s, hl);
	buf[hl] = '\0';
	if ((pct = strchr(buf, '%')))
		*pct = '\0'; /* zone dropped */
	if (srt__ip_parse(buf, &ip) < 0)
		return -1;
	max = ip.family == AF_INET ? 32 : 128;
	c->prefix = max;
	if (slash) {
		const char *p = slash + 1;
		size_t n = strlen(p);
		int v = 0;
		if (n == 0 || n > 3)
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (p[i] < '0' || p[i] > '9')
				return -1;
			v = v * 10 + (p[i] - '0');
		}
		if (v > max)
			return -1;
		c->prefix = v;
	}
	c->family = ip.family;
	memcpy(c->a, ip.a, 16);
	if (ip.family == AF_INET6 && zeros(ip.a, 10) && ip.a[10] == 0xff &&
	    ip.a[11] == 0xff) {
		if (c->prefix < 96)
			return -1;
		c->family = AF_INET;
		memmove(c->a, ip.a + 12, 4);
		memset(c->a + 4, 0, 12);
		c->prefix -= 96;
	}
	return 0;
}

bool srt__cidr_contains(const struct srt__cidr *c, const struct srt__ip *ip)
{
	int full = c->prefix / 8, rem = c->prefix % 8;

	if (c->family != ip->family)
		return false;
	if (memcmp(c->a, ip->a, (size_t)full) != 0)
		return false;
	if (rem) {
		uint8_t mask = (uint8_t)(0xff << (8 - rem));
		if ((c->a[full] & mask) != (ip->a[full] & mask))
			return false;
	}
	return true;
}

static bool in_range(const struct srt__ip *ip, const char *cidr)
{
	struct srt__cidr c;

	return srt__cidr_parse(cidr, &c) == 0 && srt__cidr_contains(&c, ip);
}

/* Does `ip` equal the IP literal of one of the patterns (port-aware)? */
static bool literal_listed(char *const *list, size_t n, const struct srt__ip *ip,
			   int port)
{
	for (size_t i = 0; i < n; i++) {
		char host[300], canon[300];
		struct srt__ip lit, v4[SRT_IP_MAX_EMBEDDED];
		int pport = 0;

		if (srt__domain_split_port(list[i], host, sizeof(host), &pport) < 0)
			continue;
		if (pport && pport != port)
			continue;
		if (srt__host_canonicalize(host, canon, sizeof(canon)) < 0 ||
		    srt__ip_parse(canon, &lit) < 0)
			continue;
		if (srt__ip_is_mapped(&lit) && srt__ip_embedded_v4(&lit, v4))
			lit = v4[0];
		if (srt__ip_equal(&lit, ip))
			return true;
	}
	return false;
}

static bool is_loopback(const struct srt__ip *ip)
{
	return in_range(ip, "127.0.0.0/8") || in_range(ip, "::1/128");
}

bool srt__ip_is_private(const struct srt__ip *ip)
{
	/* RFC 1918, shared (carrier-grade NAT), the IETF protocol block,
	 * benchmarking, reserved 240/4 (Linux routes it as unicast), unique
	 * local, site-local (deprecated, still routed where configured),
	 * local-use NAT64 and IPv6 benchmarking: none of them is reachable
	 * from the internet, so a name pointing there points into a private
	 * network */
	static const char *const ranges[] = {
		"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
		"192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4",
		"fc00::/7", "fec0::/10", "64:ff9b:1::/48", "2001:2::/48", NULL,
	};

	for (size_t i = 0; ranges[i]; i++)
		if (in_range(ip, ranges[i]))
			return true;
	return false;
}

/* The address or an IPv4 one inside it is private. */
static bool any_private(const struct srt__ip *ip)
{
	struct srt__ip v4[SRT_IP_MAX_EMBEDDED];
	size_t n = srt__ip_embedded_v4(ip, v4);

	if (srt__ip_is_private(ip))
		return true;
	for (size_t i = 0; i < n; i++)
		if (srt__ip_is_private(&v4[i]))
			return true;
	return false;
}

/* Whether privateAddresses keeps this name off the private ranges. */
static bool private_refused(const struct srt__net_rules *r, bool named)
{
	switch (r->private_mode) {
	case SRT_PRIVATE_ALLOW:
		return false;
	case SRT_PRIVATE_REFUSE:
		return true;
	case SRT_PRIVATE_REFUSE_WILDCARDS:
	default:
		return !named;
	}
}

/* Rules 4-11 for one form of the address. The private ranges come last:
 * a metadata address inside them (100.100.100.200, fd00:ec2::254) or
 * this host's own private address is refused whatever privateAddresses
 * says. */
static unsigned classify(const struct srt__net_rules *r, const struct srt__ip *ip,
			 const struct srt__ip *local, size_t nlocal, bool private_off)
{
	static const char *const metadata[] = {
		"100.100.100.200", "168.63.129.16", "192.0.0.192", "fd00:ec2::/32",
		"fd20:ce::254", "fd00:c1::a9fe:a9fe", "fd00:42::42", "fd00:a9fe:a9fe::1",
		"fd00:100::100:200", NULL,
	};

	if (is_loopback(ip))
		return SRT_GUARD_LOOPBACK;
	if (in_range(ip, "0.0.0.0/8") || in_range(ip, "::/128"))
		return SRT_GUARD_UNSPECIFIED;
	if (in_range(ip, "169.254.0.0/16") || in_range(ip, "fe80::/10"))
		return SRT_GUARD_LINK_LOCAL;
	if (in_range(ip, "224.0.0.0/4") || in_range(ip, "ff00::/8"))
		return SRT_GUARD_MULTICAST;
	if (in_range(ip, "255.255.255.255/32"))
		return SRT_GUARD_BROADCAST;
	for (size_t i = 0; metadata[i]; i++)
		if (in_range(ip, metadata[i]))
			return SRT_GUARD_METADATA;
	for (size_t i = 0; r && i < r->n_denied_addrs; i++)
		if (srt__cidr_contains(&r->denied_addrs[i], ip))
			return SRT_GUARD_LISTED;
	for (size_t i = 0; i < nlocal; i++)
		if (srt__ip_equal(&local[i], ip))
			return SRT_GUARD_OWN;
	if (private_off && srt__ip_is_private(ip))
		return SRT_GUARD_PRIVATE;
	return 0;
}

static bool is_localhost_name(const char *h)
{
	size_t n = strlen(h);

	if (n && h[n - 1] == '.')
		n--;
	if (n == 9 && strncasecmp(h, "localhost", 9) == 0)
		return true;
	return n > 10 && strncasecmp(h + n - 10, ".localhost", 10) == 0;
}

unsigned srt__guard_check(const struct srt__net_rules *r, const char *host, int port,
			  const struct srt__ip *a, const struct srt__ip *local,
			  size_t nlocal, bool named)
{
	struct srt__ip v4[SRT_IP_MAX_EMBEDDED];
	size_t n = srt__ip_embedded_v4(a, v4);
	bool mapped = srt__ip_is_mapped(a);
	unsigned c;
	bool private_off;

	if (!r)
		return SRT_GUARD_DENYLISTED;
	private_off = private_refused(r, named);
	if (literal_listed(r->denied, r->n_denied, a, port))
		return SRT_GUARD_DENYLISTED;
	for (size_t i = 0; i < n; i++)
		if (literal_listed(r->denied, r->n_denied, &v4[i], port))
			return SRT_GUARD_DENYLISTED;
	/* an allowed literal: the user named this exact address (a mapped
	 * spelling is the same socket address; NAT64, 6to4 and Teredo are
	 * not) */
	if (literal_listed(r->allowed, r->n_allowed, a, port) ||
	    (mapped && literal_listed(r->allowed, r->n_allowed, &v4[0], port)))
		return r->private_mode == SRT_PRIVATE_REFUSE && any_private(a) ?
		       SRT_GUARD_PRIVATE : 0;
	if (is_localhost_name(host))
		return is_loopback(a) || (mapped && is_loopback(&v4[0])) ? 0 :
		       SRT_GUARD_NON_LOOPBACK;
	/* the address itself, then every IPv4 address it carries: the
	 * first form that is refused decides */
	c = classify(r, a, local, nlocal, private_off);
	for (size_t i = 0; !c && i < n; i++)
		c = classify(r, &v4[i], local, nlocal, private_off);
	return c;
}

void srt__guard_reason(unsigned classes, char *out, size_t cap)
{
	static const char *const names[] = {
		"a deny-listed address", "a non-loopback address", "a loopback address",
		"an unspecified address", "a link-local address", "a multicast address",
		"the broadcast address", "a cloud metadata address", "a listed address",
		"one of this host's addresses", "a private address",
	};
	size_t o;
	bool first = true;

	o = (size_t)snprintf(out, cap, "resolved to ");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(classes & (1u << i)) || o >= cap)
			continue;
		o += (size_t)snprintf(out + o, cap - o, "%s%s", first ? "" : " / ", names[i]);
		first = false;
	}
}

int srt__guard_local_addrs(struct srt__ip **out, size_t *n)
{
	struct ifaddrs *ifa = NULL, *i;
	struct srt__ip *v = NULL;
	size_t cnt = 0, k = 0;

	*out = NULL;
	*n = 0;
	if (getifaddrs(&ifa) < 0)
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && (i->ifa_addr->sa_family == AF_INET ||
				    i->ifa_addr->sa_family == AF_INET6))
			cnt++;
	v = calloc(cnt ? cnt : 1, sizeof(*v));
	if (!v) {
		freeifaddrs(ifa);
		return -1;
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			v[k].family = AF_INET;
			memcpy(v[k].a, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
			k++;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			v[k].family = AF_INET6;
			memcpy(v[k].a, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, 16);
			k++;
		}
	}
	freeifaddrs(ifa);
	*out = v;
	*n = k;
	return 0;
}
