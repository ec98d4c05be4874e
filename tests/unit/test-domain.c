/* Domain patterns (the allowedDomains / deniedDomains entries of the
 * settings, as README.md describes them) and host canonicalisation (every
 * spelling of an address is compared as one canonical form, so "127.1" or
 * "0x7f.0.0.1" cannot slip past a rule for 127.0.0.1). TAP output. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/domain.h"
#include "tests/unit/tap.h"

static void accept(const char *e, enum srt__domain_list l, const char *lname)
{
	struct srt_diag d = { 0 };
	int rc = srt__domain_pattern_check(e, l, &d);

	ok(rc == SRT_OK, "%s accepts \"%s\"%s%s", lname, e, rc ? ": " : "", rc ? d.message : "");
}

static void refuse(const char *e, enum srt__domain_list l, const char *lname, const char *why)
{
	struct srt_diag d = { 0 };
	int rc = srt__domain_pattern_check(e, l, &d);

	ok(rc == SRT_E_INVAL && strstr(d.message, "Invalid domain pattern. Must be a valid domain") &&
	   strstr(d.message, why),
	   "%s refuses \"%s\" (%s): %s", lname, e, why, d.message);
}

/* accept() for each pattern of a list that ends with NULL. */
static void accept_each(enum srt__domain_list l, const char *lname, const char *const *e)
{
	for (; *e; e++)
		accept(*e, l, lname);
}

/* A refused pattern and a piece of the reason the message must give. */
struct refusal {
	const char *e, *why;
};

/* refuse() for each row of a table that ends with a NULL pattern. */
static void refuse_each(enum srt__domain_list l, const char *lname, const struct refusal *r)
{
	for (; r->e; r++)
		refuse(r->e, l, lname, r->why);
}

static void canon(const char *in, const char *want)
{
	char out[256] = "";
	int rc = srt__host_canonicalize(in, out, sizeof(out));

	ok(rc == SRT_OK && strcmp(out, want) == 0, "canonicalize \"%s\" -> \"%s\" (got rc %d \"%s\")",
	   in, want, rc, out);
}

static void canon_fails(const char *in)
{
	char out[256] = "";
	int rc = srt__host_canonicalize(in, out, sizeof(out));

	ok(rc != SRT_OK, "canonicalize refuses \"%s\" (rc %d, out \"%s\")", in, rc, out);
}

static void match(const char *host, int port, const char *pat, bool want)
{
	char c[256];
	bool got;

	if (srt__host_canonicalize(host, c, sizeof(c)) != SRT_OK)
		snprintf(c, sizeof(c), "%s", host);
	got = srt__domain_match(c, port, pat);
	ok(got == want, "\"%s\":%d %s \"%s\"", host, port, want ? "matches" : "does not match", pat);
}

static void split(const char *e, int rc_want, const char *host_want, int port_want)
{
	char h[256] = "";
	int port = -1;
	int rc = srt__domain_split_port(e, h, sizeof(h), &port);

	if (rc_want != SRT_OK)
		ok(rc == rc_want, "split \"%s\" fails (rc %d)", e, rc);
	else
		ok(rc == SRT_OK && strcmp(h, host_want) == 0 && port == port_want,
		   "split \"%s\" -> \"%s\" port %d (got rc %d \"%s\" %d)", e, host_want, port_want, rc,
		   h, port);
}

/* the settings' domain patterns and their messages */
static void case_patterns(void)
{
	struct srt_diag d = { 0 };

	/* allowedDomains accepts ... */
	accept_each(SRT_LIST_ALLOWED, "allowed", (const char *[]){
		"[::1]:443", "127.0.0.1", "a.b:65535", "*.a.b", "localhost", "localhost:3000",
		"example.com", "Example.COM", "[2001:db8::1]", "[2001:db8::1]:443",
		"[fe80::1%eth0]", "a.b:1", "*.a.b:443", "LOCALHOST", NULL,
	});
	/* ... and refuses */
	refuse_each(SRT_LIST_ALLOWED, "allowed", (const struct refusal[]){
		{ "evil.com:443.allowed.com", "port" },
		{ "a.b:0", "port" },
		{ "a.b:080", "port" },
		{ "a.b:65536", "port" },
		{ "a.b:", "port" },
		{ "*.com", "too broad" },
		{ "2001:db8::1", "without brackets" },
		{ "not-a-domain", "not a domain name" },
		{ "https://example.com", "URL" },
		{ "example.com/path", "URL" },
		{ "*", "too broad" },
		{ "*:22", "too broad" },
		{ "*.", "too broad" },
		{ "*example.com", "wildcard" },
		{ "a.*.example.com", "wildcard" },
		{ "*.*.example.com", "wildcard" },
		{ ".example.com", "\".\"" },
		{ "example.com.", "\".\"" },
		{ "*.a..b", "empty label" },
		{ "", "empty" },
		{ "exa mple.com", "space" },
		{ "[::1", "bracketed" },
		{ "[not-v6]", "bracketed" },
		{ "[::1]:0", "bracketed" },
		{ "[::1]x", "bracketed" },
		{ NULL },
	});
	/* deniedDomains: "*" and "*:port" only here */
	accept_each(SRT_LIST_DENIED, "denied", (const char *[]){
		"*", "*:22", "[2001:db8::1]", "evil.com", NULL,
	});
	refuse("*.com", SRT_LIST_DENIED, "denied", "too broad");
	refuse("*:0", SRT_LIST_DENIED, "denied", "port");
	/* list variants of the message */
	srt__domain_pattern_check("*.com", SRT_LIST_DENIED, &d);
	ok(strstr(d.message, "In deniedDomains a bare \"*\" (deny-all) is also accepted") != NULL,
	   "deniedDomains message variant");
	srt__domain_pattern_check("*.com", SRT_LIST_ALLOWED, &d);
	ok(strstr(d.message, "An optional \":port\" suffix (1-65535) restricts the entry to that port.") &&
	   !strstr(d.message, "deny-all"), "allowedDomains message variant");
	ok(strncmp(d.message, "\"*.com\" is too broad: Invalid domain pattern.", 45) == 0,
	   "message quotes the entry first: %s", d.message);
	/* plain list: no ports */
	accept("example.com", SRT_LIST_PLAIN, "plain");
	refuse("example.com:443", SRT_LIST_PLAIN, "plain", "port");
	refuse("*", SRT_LIST_PLAIN, "plain", "too broad");
	srt__domain_pattern_check("x", SRT_LIST_PLAIN, &d);
	ok(!strstr(d.message, ":port\" suffix (1-65535)"), "plain message has no port sentence");
}

/* an entry split into host and port */
static void case_split(void)
{
	char small[4];

	split("example.com:443", SRT_OK, "example.com", 443);
	split("example.com", SRT_OK, "example.com", 0);
	split("[::1]:443", SRT_OK, "::1", 443);
	split("[0:0::1]", SRT_OK, "::1", 0);
	split("[2001:DB8:0:0:0:0:0:1]:8080", SRT_OK, "2001:db8::1", 8080);
	split("[fe80::1%eth0]:22", SRT_OK, "fe80::1", 22);
	split("[::ffff:1.2.3.4]", SRT_OK, "1.2.3.4", 0);
	split("evil.com:443.allowed.com", SRT_OK, "evil.com:443.allowed.com", 0);
	split("a.b:080", SRT_OK, "a.b:080", 0);
	split("*:22", SRT_OK, "*", 22);
	split("[::1]:99999", SRT_E_INVAL, NULL, 0);
	split("[zz]", SRT_E_INVAL, NULL, 0);
	ok(srt__domain_split_port("example.com", small, sizeof(small), &(int){ 0 }) == SRT_E_LIMIT,
	   "split reports a too small buffer");
}

/* what counts as a host name (isValidHost) */
static void case_host_is_valid(void)
{
	ok(srt__host_is_valid("example.com"), "valid host example.com");
	ok(srt__host_is_valid("a_b-c.example"), "valid host with _ and -");
	ok(srt__host_is_valid("[::1]"), "valid host [::1]");
	ok(srt__host_is_valid("::1"), "valid host ::1");
	ok(srt__host_is_valid("127.0.0.1"), "valid host 127.0.0.1");
	ok(!srt__host_is_valid(""), "empty host invalid");
	ok(!srt__host_is_valid("[fe80::1%eth0]"), "zone id invalid");
	ok(!srt__host_is_valid("exa mple.com"), "space invalid");
	ok(!srt__host_is_valid("a/b"), "slash invalid");
	ok(!srt__host_is_valid("a@b"), "at-sign invalid");
	{
		char big[300];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		ok(!srt__host_is_valid(big), "host longer than 255 invalid");
	}
}

/* one canonical spelling of every host and address */
static void case_canonicalize(void)
{
	char small[4];

	canon("127.1", "127.0.0.1");
	canon("2130706433", "127.0.0.1");
	canon("0x7f.0.0.1", "127.0.0.1");
	canon("0177.0.0.1", "127.0.0.1");
	canon("0x7F000001", "127.0.0.1");
	canon("127.0.1", "127.0.0.1");
	canon("127.0.0.1.", "127.0.0.1");
	canon("0", "0.0.0.0");
	canon("4294967295", "255.255.255.255");
	canon("10.100.9.250", "10.100.9.250");
	canon("0xa.0x64.011.0372", "10.100.9.250");
	canon("1.2.65535", "1.2.255.255");
	{
		/* the dotted quad and its NUL must fit, or nothing is written */
		char q[16];

		memset(q, 'x', sizeof(q));
		ok(srt__host_canonicalize("4294967295", q, 15) == SRT_E_LIMIT && q[0] == 'x',
		   "canonicalize refuses a 15-byte buffer for 255.255.255.255");
		ok(srt__host_canonicalize("4294967295", q, 16) == SRT_OK &&
			   strcmp(q, "255.255.255.255") == 0,
		   "canonicalize fills a 16-byte buffer with 255.255.255.255");
	}
	canon("Api.Example.COM.", "api.example.com");
	canon("Api.Example.COM", "api.example.com");
	canon("::ffff:1.2.3.4", "1.2.3.4");
	canon("[::ffff:1.2.3.4]", "1.2.3.4");
	canon("[0:0::1]", "::1");
	canon("0:0:0:0:0:0:0:1", "::1");
	canon("[2001:DB8:0:0:1:0:0:1]", "2001:db8::1:0:0:1");
	canon("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");
	canon("[::]", "::");
	canon("[::1.2.3.4]", "::102:304");
	canon("localhost", "localhost");
	canon("under_score.example", "under_score.example");
	canon_fails("");
	canon_fails("256.0.0.1");
	canon_fails("1.2.3.4.5");
	canon_fails("1.2.3.256");
	canon_fails("4294967296");
	canon_fails("foo.0x10");
	canon_fails("1..2");
	canon_fails("089.0.0.1");
	canon_fails("[::1");
	canon_fails("[fe80::1%eth0]");
	canon_fails("exa mple.com");
	canon_fails("ex%41mple.com");
	canon_fails("b\xc3\xbc" "cher.de");
	canon_fails("a/b");
	canon_fails("a@b");
	canon_fails("1:2:3");
	canon_fails(".");
	canon_fails("a..b");
	canon_fails(".example.com");
	canon_fails("example.com..");
	canon_fails("127.0.0.1..");
	ok(srt__host_canonicalize("example.com", small, sizeof(small)) != SRT_OK,
	   "canonicalize reports a too small buffer");
}

/* a canonical host and port against a pattern */
static void case_match(void)
{
	match("example.com", 443, "example.com", true);
	match("EXAMPLE.com.", 443, "example.com", true);
	match("a.example.com", 443, "*.example.com", true);
	match("a.b.example.com", 443, "*.example.com", true);
	match("example.com", 443, "*.example.com", false);
	match("evilexample.com", 443, "*.example.com", false);
	match("example.com.evil.test", 443, "*.example.com", false);
	match("anything.test", 1, "*", true);
	match("127.0.0.1", 22, "*:22", true);
	match("127.0.0.1", 23, "*:22", false);
	match("example.com", 8443, "example.com:443", false);
	match("example.com", 443, "example.com:443", true);
	match("127.1", 80, "127.0.0.1", true);
	match("2130706433", 80, "127.0.0.1", true);
	match("0x7f.0.0.1", 80, "127.0.0.1", true);
	match("127.0.0.1", 80, "127.1", true);
	match("127.0.0.1", 80, "*.0.0.1", false);
	match("[0:0::1]", 443, "[::1]:443", true);
	match("::1", 444, "[::1]:443", false);
	match("::ffff:1.2.3.4", 80, "1.2.3.4", true);
	match("::ffff:1.2.3.4", 80, "[::ffff:1.2.3.4]", true);
	match("1.2.3.4", 80, "[::ffff:1.2.3.4]", true);
	match("::1", 80, "*.1", false);
	match("x.a.b", 443, "*.a.b:443", true);
	match("x.a.b", 80, "*.a.b:443", false);
	match("LOCALHOST", 3000, "localhost:3000", true);
	match("[::1]", 80, "[0::1]", true);
	ok(!srt__domain_match("", 80, "*"), "empty host never matches");
	/* a raw (uncanonical) spelling with extra dots matches no allow rule */
	ok(!srt__domain_match("a.example.com..", 443, "*.example.com"),
	   "\"a.example.com..\" does not match \"*.example.com\"");
}

/* Hosts already in canonical form skip the full parse: the answer must be
 * the one the full parse gives a spelling of the same host that cannot
 * take the short way (upper case, a trailing dot). */
static void case_canonical_fast(void)
{
	static const char *const hosts[] = {
		"localhost", "api.github.com", "a-b.c1", "x.1e", "127.0.0.1", "0.0.0.0",
		"255.255.255.255", "10.1.22.255", "1.2.3.example", "xn--bcher-kva.example",
	};
	static const char *const odd[] = {
		"01.2.3.4", "1.2.3", "256.1.1.1", "1.2.3.4.5", "foo.0x10", "0x7f.0.0.1", "a..b",
		"1.2.3.04", "foo.123",
	};
	char a[300], b[300], v[300];
	size_t i, k;
	int same = 1, rc1, rc2;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		snprintf(v, sizeof(v), "%s.", hosts[i]);
		for (k = 0; v[k]; k++)
			v[k] = (char)toupper((unsigned char)v[k]);
		rc1 = srt__host_canonicalize(hosts[i], a, sizeof(a));
		rc2 = srt__host_canonicalize(v, b, sizeof(b));
		if (rc1 != SRT_OK || rc2 != SRT_OK || strcmp(a, b) || strcmp(a, hosts[i])) {
			printf("# %s: %d %s / %s: %d %s\n", hosts[i], rc1, a, v, rc2, b);
			same = 0;
		}
	}
	ok(same, "a canonical name or dotted quad comes back unchanged, as the full parse gives it");
	same = 1;
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(v, sizeof(v), "%s.", odd[i]);
		rc1 = srt__host_canonicalize(odd[i], a, sizeof(a));
		rc2 = srt__host_canonicalize(v, b, sizeof(b));
		if (rc1 != rc2 || (rc1 == SRT_OK && strcmp(a, b))) {
			printf("# %s: %d %s / %s: %d %s\n", odd[i], rc1, a, v, rc2, b);
			same = 0;
		}
	}
	ok(same, "numbers that are not a canonical quad take the full parse (octal, short, hex)");
	ok(srt__host_canonicalize("01.2.3.4", a, sizeof(a)) == SRT_OK && !strcmp(a, "1.2.3.4") &&
	   srt__host_canonicalize("127.1", a, sizeof(a)) == SRT_OK && !strcmp(a, "127.0.0.1"),
	   "and are rewritten by it");
	ok(srt__host_canonicalize("127.0.0.1", a, 9) == SRT_E_LIMIT &&
	   srt__host_canonicalize("localhost", a, 9) == SRT_E_LIMIT,
	   "the short way keeps the output size check");
}

int main(void)
{
	TAP_RUN(case_patterns);
	TAP_RUN(case_split);
	TAP_RUN(case_host_is_valid);
	TAP_RUN(case_canonicalize);
	TAP_RUN(case_canonical_fast);
	TAP_RUN(case_match);
	return tap_done();
}
