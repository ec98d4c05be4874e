/* The resolved-address guard and the decision order of the network rules. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/rules.h"
#include "proxies/guard.h"
#include "proxies/route.h"
#include "tests/unit/tap.h"

static struct srt__net_rules *rules(const char *const *allowed, const char *const *denied,
			       const char *const *reasons, bool strict,
			       const char *const *denied_addrs)
{
	struct srt__net_config s;
	struct srt__net_rules *r = NULL;
	struct srt__net_reason kv[8];
	size_t n = 0;

	memset(&s, 0, sizeof(s));
	for (; allowed && *allowed; allowed++)
		srt__strv_push(&s.allowed_domains, *allowed);
	for (; denied && *denied; denied++)
		srt__strv_push(&s.denied_domains, *denied);
	for (; denied_addrs && *denied_addrs; denied_addrs++)
		srt__strv_push(&s.denied_resolved_addresses, *denied_addrs);
	for (; reasons && reasons[0] && n < 8; reasons += 2, n++) {
		kv[n].domain = reasons[0];
		kv[n].reason = reasons[1];
	}
	s.denied_domain_reasons = kv;
	s.n_denied_domain_reasons = n;
	s.strict_allowlist = strict;
	if (srt__net_rules_new(&r, &s, NULL) != 0)
		r = NULL;
	srt__strv_release(&s.allowed_domains);
	srt__strv_release(&s.denied_domains);
	srt__strv_release(&s.denied_resolved_addresses);
	return r;
}

static unsigned check(const struct srt__net_rules *r, const char *host, int port, const char *addr)
{
	struct srt__ip ip;

	if (srt__ip_parse(addr, &ip) < 0)
		return 0xdead;
	return srt__guard_check(r, host, port, &ip, NULL, 0,
				srt__net_rules_named(r, host, port, NULL, 0));
}

/* One address that example.com:443 resolved to for check_all(): the
 * address, the classes check() must return and the case's name. */
struct guard_case {
	const char *addr;
	unsigned want;
	const char *what;
};

/* One TAP line per case of a table that ends with a NULL address. */
static void check_all(const struct srt__net_rules *r, const struct guard_case *c)
{
	for (; c->addr; c++)
		ok(check(r, "example.com", 443, c->addr) == c->want, "%s", c->what);
}

static void test_guard(void)
{
	const char *allowed[] = { "example.com", "127.0.0.1:8080", "localhost", NULL };
	const char *denied[] = { "10.9.9.9", NULL };
	const char *daddrs[] = { "192.168.50.0/24", "::ffff:10.1.0.0/112", NULL };
	const char *metadata[] = { "100.100.100.200", "168.63.129.16", "192.0.0.192",
		"fd00:ec2::254", "fd20:ce::254", "fd00:c1::a9fe:a9fe", "fd00:42::42",
		"fd00:a9fe:a9fe::1", "fd00:100::100:200", NULL };
	struct srt__net_rules *r = rules(allowed, denied, NULL, false, daddrs);
	struct srt__ip ip, v4[SRT_IP_MAX_EMBEDDED], own[1];
	char reason[256];
	bool all_metadata = true;
	size_t i;

	ok(r != NULL, "rules built");
	check_all(r, (const struct guard_case[]){
		{ "93.184.216.34", 0, "public address allowed" },
		{ "127.0.0.1", SRT_GUARD_LOOPBACK, "loopback refused" },
		{ "127.1.2.3", SRT_GUARD_LOOPBACK, "127/8 refused" },
		{ "::1", SRT_GUARD_LOOPBACK, "::1 refused" },
		{ "::ffff:127.0.0.1", SRT_GUARD_LOOPBACK, "IPv4-mapped loopback refused" },
		{ "::ffff:0:127.0.0.1", SRT_GUARD_LOOPBACK, "IPv4-translated loopback refused" },
		{ "::127.0.0.1", SRT_GUARD_LOOPBACK, "IPv4-compatible loopback refused" },
		{ "64:ff9b::a9fe:a9fe", SRT_GUARD_LINK_LOCAL, "NAT64 of 169.254.169.254 refused" },
		{ "2002:a9fe:a9fe::1", SRT_GUARD_LINK_LOCAL, "6to4 of 169.254.169.254 refused" },
		{ "169.254.169.254", SRT_GUARD_LINK_LOCAL, "169.254.169.254 refused" },
		{ "fe80::1", SRT_GUARD_LINK_LOCAL, "fe80::/10 refused" },
		{ "0.0.0.0", SRT_GUARD_UNSPECIFIED, "0.0.0.0 refused" },
		{ "::", SRT_GUARD_UNSPECIFIED, ":: refused" },
		{ "224.0.0.1", SRT_GUARD_MULTICAST, "multicast refused" },
		{ "ff02::1", SRT_GUARD_MULTICAST, "ff00::/8 refused" },
		{ "255.255.255.255", SRT_GUARD_BROADCAST, "broadcast refused" },
		{ NULL },
	});
	for (i = 0; metadata[i]; i++)
		all_metadata = all_metadata &&
			       check(r, "example.com", 443, metadata[i]) == SRT_GUARD_METADATA;
	ok(all_metadata, "cloud metadata list refused");
	check_all(r, (const struct guard_case[]){
		{ "10.9.9.9", SRT_GUARD_DENYLISTED, "deny-listed literal" },
		{ "::ffff:10.9.9.9", SRT_GUARD_DENYLISTED,
		  "deny-listed literal behind a mapped address" },
		{ "192.168.50.7", SRT_GUARD_LISTED, "deniedResolvedAddresses range" },
		{ "10.1.2.3", SRT_GUARD_LISTED,
		  "mapped deniedResolvedAddresses range became IPv4" },
		{ "192.168.51.7", 0, "private ranges not denied by default" },
		{ NULL },
	});
	ok(check(r, "x.example.com", 8080, "127.0.0.1") == 0,
	   "an allowed IP literal (with its port) passes");
	ok(check(r, "x.example.com", 8081, "127.0.0.1") == SRT_GUARD_LOOPBACK,
	   "the literal's port is respected");
	ok(check(r, "localhost", 3000, "127.0.0.1") == 0 && check(r, "localhost", 3000, "::1") == 0,
	   "localhost may reach loopback");
	ok(check(r, "localhost", 3000, "93.184.216.34") == SRT_GUARD_NON_LOOPBACK,
	   "localhost must be loopback");
	ok(check(r, "a.localhost", 3000, "10.0.0.1") == SRT_GUARD_NON_LOOPBACK,
	   "*.localhost must be loopback");
	srt__ip_parse("198.51.100.7", &own[0]);
	srt__ip_parse("198.51.100.7", &ip);
	ok(srt__guard_check(r, "example.com", 443, &ip, own, 1, true) == SRT_GUARD_OWN,
	   "this host's address refused");
	srt__ip_parse("::ffff:198.51.100.7", &ip);
	ok(srt__guard_check(r, "example.com", 443, &ip, own, 1, true) == SRT_GUARD_OWN,
	   "this host's address behind a mapped address refused");
	srt__guard_reason(SRT_GUARD_LOOPBACK | SRT_GUARD_LINK_LOCAL, reason, sizeof(reason));
	ok(!strcmp(reason, "resolved to a loopback address / a link-local address"),
	   "reason lists classes in order: %s", reason);
	srt__ip_parse("::ffff:1.2.3.4", &ip);
	ok(srt__ip_embedded_v4(&ip, v4) == 1 && v4[0].family == AF_INET && v4[0].a[3] == 4,
	   "unwrap mapped");
	srt__ip_parse("::1", &ip);
	ok(srt__ip_embedded_v4(&ip, v4) == 0, "::1 is not IPv4-compatible");
	srt__ip_parse("fe80::5efe:a00:1", &ip);
	ok(srt__ip_embedded_v4(&ip, v4) == 1 && v4[0].a[0] == 10 && v4[0].a[3] == 1,
	   "unwrap ISATAP behind a link-local prefix");
	srt__ip_parse("2002:c000:201::200:5efe:a00:1", &ip);
	ok(srt__ip_embedded_v4(&ip, v4) == 2 && v4[0].a[0] == 192 && v4[1].a[0] == 10,
	   "6to4 prefix and ISATAP identifier: both unwrapped");
	srt__ip_parse("2001:0:4136:e378:8000:63bf:3fff:fdd2", &ip);
	ok(srt__ip_embedded_v4(&ip, v4) == 2 && v4[0].a[0] == 65 && v4[0].a[3] == 120 &&
	   v4[1].a[0] == 192 && v4[1].a[3] == 45, "Teredo carries its server and its (inverted) client");
	ok(srt__guard_check(NULL, "example.com", 443, &ip, NULL, 0, true) != 0, "no rules: refused");
	srt__net_rules_free(r);
}

static void test_decide(void)
{
	const char *allowed[] = { "*.example.com", "api.test:443", "127.0.0.1", "[::1]:8080", NULL };
	const char *denied[] = { "bad.example.com", "*:22", "evil.test", NULL };
	const char *reasons[] = { "*:22", "SSH is blocked here", NULL, NULL };
	struct srt__net_rules *r = rules(allowed, denied, reasons, false, NULL);
	char why[256];

	ok(srt__net_rules_decide(r, "a.example.com", 443, NULL, 0, why, sizeof(why)), "wildcard subdomain");
	ok(!srt__net_rules_decide(r, "example.com", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "host is not on the allow list"), "wildcard does not match the apex");
	ok(!srt__net_rules_decide(r, "example.com.evil.test", 443, NULL, 0, why, sizeof(why)),
	   "suffix trick refused");
	ok(!srt__net_rules_decide(r, "evilexample.com", 443, NULL, 0, why, sizeof(why)),
	   "label boundary respected");
	ok(!srt__net_rules_decide(r, "bad.example.com", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "host is on the deny list"), "deny wins over allow");
	ok(!srt__net_rules_decide(r, "a.example.com", 22, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "SSH is blocked here"), "deniedDomainReasons used");
	ok(srt__net_rules_decide(r, "api.test", 443, NULL, 0, why, sizeof(why)), "port-scoped allow");
	ok(!srt__net_rules_decide(r, "api.test", 8443, NULL, 0, why, sizeof(why)), "other port refused");
	ok(srt__net_rules_decide(r, "127.1", 80, NULL, 0, why, sizeof(why)),
	   "127.1 canonicalised to 127.0.0.1");
	ok(srt__net_rules_decide(r, "0x7f.1", 80, NULL, 0, why, sizeof(why)),
	   "0x7f.1 canonicalised to 127.0.0.1");
	ok(srt__net_rules_decide(r, "::ffff:127.0.0.1", 80, NULL, 0, why, sizeof(why)),
	   "::ffff:127.0.0.1 canonicalised to 127.0.0.1");
	ok(srt__net_rules_decide(r, "0:0::1", 8080, NULL, 0, why, sizeof(why)) &&
	   !srt__net_rules_decide(r, "::1", 8081, NULL, 0, why, sizeof(why)), "IPv6 literal with port");
	ok(srt__net_rules_decide(r, "A.EXAMPLE.COM.", 443, NULL, 0, why, sizeof(why)),
	   "case and trailing dot");
	ok(!srt__net_rules_decide(r, "a b", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "malformed host"), "malformed host");
	ok(!srt__net_rules_decide(r, ".bad.example.com", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "malformed host") &&
	   !srt__net_rules_decide(r, "bad..example.com", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "malformed host") &&
	   !srt__net_rules_decide(r, "a..example.com", 443, NULL, 0, why, sizeof(why)),
	   "empty labels refused as malformed, not matched raw against the allowed wildcard");
	ok(!srt__net_rules_decide(r, "fe80::1%eth0", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "malformed host"), "zone id refused");
	ok(!srt__net_rules_decide(NULL, "a.example.com", 443, NULL, 0, why, sizeof(why)) &&
	   !strcmp(why, "sandbox policy unavailable"), "no rules");
	{
		char *cmd[] = { (char *)"extra.test", (char *)"bad.example.com" };
		ok(srt__net_rules_decide(r, "extra.test", 443, cmd, 2, why, sizeof(why)),
		   "per-command list grants its domains");
		ok(!srt__net_rules_decide(r, "bad.example.com", 443, cmd, 2, why, sizeof(why)),
		   "deniedDomains still wins over a per-command list");
	}
	ok(srt__net_rules_denied(r, "evil.test", 443, why, sizeof(why)) &&
	   !srt__net_rules_denied(r, "other.test", 443, why, sizeof(why)),
	   "deny-only probe (SOCKS without auth)");
	srt__net_rules_free(r);
	{
		char *cmd[] = { (char *)"extra.test" };
		r = rules(allowed, denied, NULL, true, NULL);
		ok(!srt__net_rules_decide(r, "extra.test", 443, cmd, 1, why, sizeof(why)) &&
		   !strcmp(why, "host is not on the allow list"),
		   "strictAllowlist: per-command lists are not consulted");
		srt__net_rules_free(r);
	}
	{
		const char *all[] = { "*", NULL };
		r = rules(allowed, all, NULL, false, NULL);
		ok(!srt__net_rules_decide(r, "a.example.com", 443, NULL, 0, why, sizeof(why)),
		   "deniedDomains * denies everything");
		srt__net_rules_free(r);
	}
	{
		const char *bad[] = { "not-an-address", NULL };
		struct srt__net_config s;
		memset(&s, 0, sizeof(s));
		srt__strv_push(&s.denied_resolved_addresses, bad[0]);
		ok(srt__net_rules_new(&r, &s, NULL) != 0, "invalid deniedResolvedAddresses fails closed");
		srt__strv_release(&s.denied_resolved_addresses);
	}
}

static void test_routes(void)
{
	struct srt__upstream up;
	char *np[] = { (char *)".corp.example", (char *)"intranet.test:8080",
		       (char *)"10.0.0.0/8", (char *)"*.wild.example", (char *)"192.0.2.7" };

	ok(srt__upstream_parse("http://us%40er:p%3Aw@proxy.corp:3128", &up) == 0 &&
	   !strcmp(up.host, "proxy.corp") && up.port == 3128 &&
	   !strcmp(up.auth, "Basic dXNAZXI6cDp3"), "parent url with percent-encoded credentials");
	ok(srt__upstream_parse("127.0.0.1:8888", &up) == 0 && up.port == 8888 && !up.auth[0],
	   "schemeless parent url");
	ok(srt__upstream_parse("http://[::1]", &up) == 0 && !strcmp(up.host, "::1") && up.port == 80,
	   "IPv6 parent, default port");
	ok(srt__upstream_parse("https://proxy:443", &up) == -2, "https parent reported");
	ok(srt__upstream_parse("socks5://proxy:1080", &up) == -1 &&
	   srt__upstream_parse("http://proxy:0", &up) == -1 &&
	   srt__upstream_parse("http://a b:1", &up) == -1, "invalid parent urls");
	ok(srt__no_proxy_match(np, 5, "corp.example") && srt__no_proxy_match(np, 5, "a.corp.example"),
	   "NO_PROXY .x matches x and its subdomains");
	ok(srt__no_proxy_match(np, 5, "intranet.test") && srt__no_proxy_match(np, 5, "b.intranet.test"),
	   "NO_PROXY x matches x and *.x, port ignored");
	ok(srt__no_proxy_match(np, 5, "10.1.2.3") && srt__no_proxy_match(np, 5, "192.0.2.7") &&
	   !srt__no_proxy_match(np, 5, "192.0.2.8"), "NO_PROXY CIDR and exact IP");
	ok(srt__no_proxy_match(np, 5, "a.wild.example") && !srt__no_proxy_match(np, 5, "evilcorp.example"),
	   "NO_PROXY wildcard and label boundary");
	ok(srt__no_proxy_match(NULL, 0, "localhost") && srt__no_proxy_match(NULL, 0, "127.0.0.9") &&
	   srt__no_proxy_match(NULL, 0, "::1") && !srt__no_proxy_match(NULL, 0, "example.com"),
	   "loopback always bypasses the parent");
}

static struct srt__net_rules *rules_mode(const char *const *allowed, enum srt__private_mode m)
{
	struct srt__net_config s;
	struct srt__net_rules *r = NULL;

	memset(&s, 0, sizeof(s));
	for (; allowed && *allowed; allowed++)
		srt__strv_push(&s.allowed_domains, *allowed);
	s.private_addresses = m;
	if (srt__net_rules_new(&r, &s, NULL) != 0)
		r = NULL;
	srt__strv_release(&s.allowed_domains);
	return r;
}

/* privateAddresses: the private ranges, for a name a wildcard allowed, an
 * exactly named one, an allowed literal, and a per-command list. */
static void test_private(void)
{
	const char *allowed[] = { "*.corp.test", "db.corp.test", "10.1.2.3", NULL };
	static const char *const priv[] = { "10.0.0.1", "172.16.0.1", "172.31.255.254",
		"192.168.1.1", "100.64.0.1", "100.127.255.254", "fc00::1", "fdff::1",
		"::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:c0a8:101::1", NULL };
	static const char *const pub[] = { "172.32.0.1", "100.128.0.1", "11.0.0.1",
		"fe00::1", "93.184.216.34", NULL };
	struct srt__net_rules *r = rules_mode(allowed, SRT_PRIVATE_REFUSE_WILDCARDS);
	struct srt__net_rules *deny = rules_mode(allowed, SRT_PRIVATE_REFUSE);
	struct srt__net_rules *allow = rules_mode(allowed, SRT_PRIVATE_ALLOW);
	char *cmd[] = { (char *)"app.corp.test" };
	char reason[256];
	bool all = true;
	struct srt__ip ip;

	ok(r && deny && allow, "rules built");
	for (size_t i = 0; priv[i]; i++)
		all = all && check(r, "x.corp.test", 443, priv[i]) == SRT_GUARD_PRIVATE;
	ok(all, "a wildcard-allowed name is refused every private range and spelling");
	all = true;
	for (size_t i = 0; pub[i]; i++)
		all = all && check(r, "x.corp.test", 443, pub[i]) == 0;
	ok(all, "the neighbours of the private ranges are not private");
	ok(check(r, "db.corp.test", 443, "10.0.0.1") == 0,
	   "an exactly named host keeps its private address");
	ok(check(r, "10.1.2.3", 443, "10.1.2.3") == 0, "an allowed literal is dialled");
	ok(check(r, "x.corp.test", 443, "100.100.100.200") == SRT_GUARD_METADATA &&
	   check(r, "db.corp.test", 443, "100.100.100.200") == SRT_GUARD_METADATA,
	   "metadata inside 100.64/10 stays metadata, named or not");
	srt__ip_parse("10.0.0.1", &ip);
	ok(srt__guard_check(r, "app.corp.test", 443, &ip, NULL, 0,
			    srt__net_rules_named(r, "app.corp.test", 443, cmd, 1)) == 0,
	   "a name on the command's own list counts as named");
	ok(check(deny, "db.corp.test", 443, "10.0.0.1") == SRT_GUARD_PRIVATE &&
	   check(deny, "10.1.2.3", 443, "10.1.2.3") == SRT_GUARD_PRIVATE &&
	   check(deny, "x.corp.test", 443, "fd00::5") == SRT_GUARD_PRIVATE,
	   "refuse: named hosts and literals are refused too");
	ok(check(deny, "x.corp.test", 443, "93.184.216.34") == 0, "refuse: public still dialled");
	ok(check(allow, "x.corp.test", 443, "10.0.0.1") == 0 &&
	   check(allow, "x.corp.test", 443, "fc00::1") == 0,
	   "allow: a wildcard-allowed name reaches the private ranges");
	ok(check(allow, "x.corp.test", 443, "127.0.0.1") == SRT_GUARD_LOOPBACK &&
	   check(allow, "x.corp.test", 443, "169.254.169.254") == SRT_GUARD_LINK_LOCAL,
	   "allow: loopback and link-local still refused");
	srt__guard_reason(SRT_GUARD_PRIVATE, reason, sizeof(reason));
	ok(!strcmp(reason, "resolved to a private address"), "reason names the class: %s", reason);
	srt__net_rules_free(r);
	srt__net_rules_free(deny);
	srt__net_rules_free(allow);
}

/* Every spelling that reaches a private, loopback, link-local or other
 * refused address, for a name a wildcard allowed (x.corp.test) and for an
 * exactly named one (db.corp.test), which keeps the private ranges only. */
static void test_spellings(void)
{
	static const struct {
		const char *addr;
		unsigned wild, named;
		const char *what;
	} t[] = {
		{ "fec0::1", SRT_GUARD_PRIVATE, 0, "site-local fec0::/10" },
		{ "feff::1", SRT_GUARD_PRIVATE, 0, "site-local, top of the range" },
		{ "2001:0:4136:e378:8000:63bf:80ff:fffe", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK,
		  "Teredo whose client is 127.0.0.1" },
		{ "2001:0:4136:e378:8000:63bf:f5ff:fffe", SRT_GUARD_PRIVATE, 0,
		  "Teredo whose client is 10.0.0.1" },
		{ "2001:0:4136:e378:8000:63bf:5601:5601", SRT_GUARD_LINK_LOCAL, SRT_GUARD_LINK_LOCAL,
		  "Teredo whose client is 169.254.169.254" },
		{ "2001:0:7f00:1:8000:63bf:3fff:fdd2", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK,
		  "Teredo whose server is 127.0.0.1" },
		{ "2001:0:4136:e378:8000:63bf:3fff:fdd2", 0, 0, "Teredo between public addresses" },
		{ "64:ff9b:1::a00:1", SRT_GUARD_PRIVATE, 0, "local-use NAT64 (/96) of 10.0.0.1" },
		{ "64:ff9b:1::7f00:1", SRT_GUARD_PRIVATE, SRT_GUARD_LOOPBACK,
		  "local-use NAT64 (/96) of 127.0.0.1" },
		{ "64:ff9b:1:a9fe:a9:fe00::", SRT_GUARD_PRIVATE, SRT_GUARD_LINK_LOCAL,
		  "local-use NAT64 (/48) of 169.254.169.254" },
		{ "64:ff9b:1:7f:0:1::", SRT_GUARD_PRIVATE, SRT_GUARD_LOOPBACK,
		  "local-use NAT64 (/56) of 127.0.0.1" },
		{ "64:ff9b:1:0:7f:0:100::", SRT_GUARD_PRIVATE, SRT_GUARD_LOOPBACK,
		  "local-use NAT64 (/64) of 127.0.0.1" },
		{ "64:ff9b:1:808:8:800::", SRT_GUARD_PRIVATE, 0, "local-use NAT64 (/48) of 8.8.8.8" },
		{ "64:ff9b::7f00:1", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK, "NAT64 of 127.0.0.1" },
		{ "64:ff9b::a00:1", SRT_GUARD_PRIVATE, 0, "NAT64 of 10.0.0.1" },
		{ "64:ff9b::808:808", 0, 0, "NAT64 of 8.8.8.8" },
		{ "2002:7f00:1::1", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK, "6to4 of 127.0.0.1" },
		{ "2002:a00:1::1", SRT_GUARD_PRIVATE, 0, "6to4 of 10.0.0.1" },
		{ "2002:808:808::1", 0, 0, "6to4 of 8.8.8.8" },
		{ "2001:db8::5efe:7f00:1", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK,
		  "ISATAP (::0:5efe) of 127.0.0.1" },
		{ "2001:db8::200:5efe:a00:1", SRT_GUARD_PRIVATE, 0, "ISATAP (::200:5efe) of 10.0.0.1" },
		{ "2001:db8:1:2:100:5efe:c0a8:101", SRT_GUARD_PRIVATE, 0,
		  "ISATAP (group bit set) of 192.168.1.1" },
		{ "2001:db8::300:5efe:a9fe:a9fe", SRT_GUARD_LINK_LOCAL, SRT_GUARD_LINK_LOCAL,
		  "ISATAP (::300:5efe) of 169.254.169.254" },
		{ "2002:808:808:1:200:5efe:7f00:1", SRT_GUARD_LOOPBACK, SRT_GUARD_LOOPBACK,
		  "ISATAP of 127.0.0.1 behind a public 6to4 prefix" },
		{ "2001:db8::200:5efe:808:808", 0, 0, "ISATAP of 8.8.8.8" },
		{ "2001:db8::400:5efe:7f00:1", 0, 0, "not ISATAP: a bit past u/g set" },
		{ "::ffff:169.254.169.254", SRT_GUARD_LINK_LOCAL, SRT_GUARD_LINK_LOCAL,
		  "mapped 169.254.169.254" },
		{ "::ffff:0:10.0.0.1", SRT_GUARD_PRIVATE, 0, "translated 10.0.0.1" },
		{ "::10.0.0.1", SRT_GUARD_PRIVATE, 0, "compatible 10.0.0.1" },
		{ "::ffff:0.0.0.0", SRT_GUARD_UNSPECIFIED, SRT_GUARD_UNSPECIFIED, "mapped 0.0.0.0" },
		{ "::", SRT_GUARD_UNSPECIFIED, SRT_GUARD_UNSPECIFIED, "::/128" },
		{ "0.1.2.3", SRT_GUARD_UNSPECIFIED, SRT_GUARD_UNSPECIFIED, "0.0.0.0/8" },
		{ "169.254.1.1", SRT_GUARD_LINK_LOCAL, SRT_GUARD_LINK_LOCAL, "169.254/16" },
		{ "192.0.0.8", SRT_GUARD_PRIVATE, 0, "192.0.0.0/24" },
		{ "192.0.0.192", SRT_GUARD_METADATA, SRT_GUARD_METADATA, "metadata inside 192.0.0.0/24" },
		{ "198.18.0.1", SRT_GUARD_PRIVATE, 0, "198.18/15" },
		{ "198.19.255.254", SRT_GUARD_PRIVATE, 0, "198.18/15, top" },
		{ "198.20.0.1", 0, 0, "198.20.0.1 is past 198.18/15" },
		{ "240.0.0.1", SRT_GUARD_PRIVATE, 0, "240/4" },
		{ "255.255.255.254", SRT_GUARD_PRIVATE, 0, "240/4, top" },
		{ "::ffff:240.0.0.1", SRT_GUARD_PRIVATE, 0, "mapped 240/4" },
		{ "255.255.255.255", SRT_GUARD_BROADCAST, SRT_GUARD_BROADCAST, "broadcast" },
		{ "2001:2::1", SRT_GUARD_PRIVATE, 0, "IPv6 benchmarking 2001:2::/48" },
		{ "239.1.1.1", SRT_GUARD_MULTICAST, SRT_GUARD_MULTICAST, "multicast" },
		{ "::ffff:224.0.0.1", SRT_GUARD_MULTICAST, SRT_GUARD_MULTICAST, "mapped multicast" },
		{ "ff05::2", SRT_GUARD_MULTICAST, SRT_GUARD_MULTICAST, "IPv6 multicast" },
	};
	const char *allowed[] = { "*.corp.test", "db.corp.test", NULL };
	struct srt__net_rules *r = rules_mode(allowed, SRT_PRIVATE_REFUSE_WILDCARDS);

	ok(r != NULL, "rules built");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned w = check(r, "x.corp.test", 443, t[i].addr);
		unsigned n = check(r, "db.corp.test", 443, t[i].addr);

		ok(w == t[i].wild && n == t[i].named, "%s (%s): wildcard %#x, named %#x", t[i].what,
		   t[i].addr, w, n);
	}
	srt__net_rules_free(r);
}

int main(void)
{
	TAP_RUN(test_routes);
	TAP_RUN(test_guard);
	TAP_RUN(test_decide);
	TAP_RUN(test_private);
	TAP_RUN(test_spellings);
	return tap_done();
}
