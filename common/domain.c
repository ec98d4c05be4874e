/* Domain patterns and host canonicalisation (common/domain.h).
 *
 * Patterns come from the user's settings and are checked once; hosts come
 * from hostile clients (CONNECT targets, Host headers, SOCKS requests) and
 * are canonicalised before every match, so that "127.1", "0x7f.0.0.1" and
 * "[::ffff:127.0.0.1]" cannot slip past a rule written as "127.0.0.1". */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/domain.h"

#define PATTERN_MESSAGE \
	"Invalid domain pattern. Must be a valid domain (e.g., \"example.com\"), " \
	"a wildcard (e.g., \"*.example.com\"), or a bracketed IPv6 literal " \
	"(e.g., \"[::1]\", \"[2001:db8::1]:443\"). Overly broad patterns like " \
	"\"*.com\" or \"*\" are not allowed for security reasons."
#define PATTERN_ALLOWED_SUFFIX \
	" An optional \":port\" suffix (1-65535) restricts the entry to that port."
#define PATTERN_DENIED_SUFFIX \
	" In deniedDomains a bare \"*\" (deny-all) is also accepted, and an " \
	"optional \":port\" suffix (1-65535) restricts the entry to that port."

/* Longest host we handle: DNS names are at most 253 octets, IPv6 text
 * with a zone is well below this. Anything longer is refused. */
#define HOST_MAX 255

/* Port suffix as the reference accepts it: /^[1-9][0-9]{0,4}$/, <= 65535.
 * "0" and "080" are refused so "a.b:080" cannot mean two things. */
static int parse_port(const char *s)
{
	size_t i, len = strlen(s);
	int v = 0;

	if (len < 1 || len > 5 || s[0] < '1' || s[0] > '9')
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 65535 ? v : 0;
}

/* RFC 5952 text of an IPv6 address: lower-case hex, the longest run of two
 * or more zero groups compressed (the first one on a tie), no dotted quad,
 * so that every spelling of an address compares equal as a string. */
static void ipv6_format(const unsigned char a[16], char *out, size_t out_len)
{
	unsigned int g[8];
	int i, best = -1, best_len = 0, cur = -1, cur_len = 0;
	size_t o = 0;

	for (i = 0; i < 8; i++)
		g[i] = (unsigned int)a[2 * i] << 8 | a[2 * i + 1];
	for (i = 0; i < 8; i++) {
		if (g[i] == 0) {
			if (cur < 0) {
				cur = i;
				cur_len = 0;
			}
			cur_len++;
			if (cur_len > best_len) {
				best = cur;
				best_len = cur_len;
			}
		} else {
			cur = -1;
		}
	}
	if (best_len < 2)
		best = -1;
	out[0] = '\0';
	for (i = 0; i < 8 && o < out_len; i++) {
		int w;

		if (i == best) {
			w = snprintf(out + o, out_len - o, "::");
			i += best_len - 1;
		} else {
			w = snprintf(out + o, out_len - o, "%s%x",
				     (i > 0 && i != best + best_len) ? ":" : "", g[i]);
		}
		if (w < 0)
			return;
		o += (size_t)w;
	}
}

static bool ipv6_is_v4_mapped(const unsigned char a[16])
{
	static const unsigned char prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* Canonical text of the IPv6 literal s[0..len) (no brackets, no zone):
 * compressed, or the dotted quad for an IPv4-mapped address. */
static int ipv6_canonical(const char *s, size_t len, char *out, size_t out_len)
{
	char buf[64];
	unsigned char a[16];
	char text[48];
	int w;

	if (len == 0 || len >= sizeof(buf))
		return SRT_E_INVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1)
		return SRT_E_INVAL;
	if (ipv6_is_v4_mapped(a))
		w = snprintf(out, out_len, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
	else {
		ipv6_format(a, text, sizeof(text));
		w = snprintf(out, out_len, "%s", text);
	}
	if (w < 0 || (size_t)w >= out_len)
		return SRT_E_LIMIT;
	return SRT_OK;
}

int srt__domain_split_port(const char *entry, char *host_out, size_t host_len,
			   int *port)
{
	const char *close, *colon;
	size_t len, inner;
	int p = 0, rc;

	if (!entry || !host_out || host_len == 0 || !port)
		return SRT_E_INVAL;
	*port = 0;
	len = strlen(entry);
	if (entry[0] == '[') {
		close = strchr(entry, ']');
		if (!close)
			return SRT_E_INVAL;
		if (close[1] != '\0') {
			if (close[1] != ':' || !(p = parse_port(close + 2)))
				return SRT_E_INVAL;
		}
		/* A zone ("%eth0") is dropped, as the reference does: it
		 * names the sender's interface, not a different address. */
		inner = (size_t)(close - entry - 1);
		{
			const char *pct = memchr(entry + 1, '%', inner);

			if (pct)
				inner = (size_t)(pct - entry - 1);
		}
		rc = ipv6_canonical(entry + 1, inner, host_out, host_len);
		if (rc != SRT_OK)
			return rc;
		*port = p;
		return SRT_OK;
	}
	colon = strchr(entry, ':');
	if (colon && !strchr(colon + 1, ':') && (p = parse_port(colon + 1))) {
		len = (size_t)(colon - entry);
	} else {
		/* Not a host:port: the whole string is the host, so
		 * "evil.com:443.allowed.com" stays whole and fails later. */
		p = 0;
	}
	if (len >= host_len)
		return SRT_E_LIMIT;
	memcpy(host_out, entry, len);
	host_out[len] = '\0';
	*port = p;
	return SRT_OK;
}

static int pattern_fail(struct srt_diag *diag, const char *entry, const char *why,
			enum srt__domain_list list)
{
	char q[128];
	size_t i, o = 0;

	/* Quote the entry with anything unprintable escaped, truncated so the
	 * reference text always fits in the message. */
	for (i = 0; entry[i] && o + 8 < sizeof(q); i++) {
		unsigned char ch = (unsigned char)entry[i];

		if (ch == '"' || ch == '\\') {
			q[o++] = '\\';
			q[o++] = (char)ch;
		} else if (ch < 0x20 || ch == 0x7f) {
			o += (size_t)snprintf(q + o, sizeof(q) - o, "\\x%02x", ch);
		} else {
			q[o++] = (char)ch;
		}
	}
	if (entry[i])
		o += (size_t)snprintf(q + o, sizeof(q) - o, "...");
	q[o] = '\0';
	return srt_diag_set(diag, SRT_E_INVAL, "", "\"%s\" %s: %s%s", q, why, PATTERN_MESSAGE,
			    list == SRT_LIST_ALLOWED ? PATTERN_ALLOWED_SUFFIX :
			    list == SRT_LIST_DENIED ? PATTERN_DENIED_SUFFIX : "");
}

/* Whether a pattern's host part that did not come from brackets is
 * acceptable, by the reference tool's rules. Returns NULL when valid,
 * else the reason. */
static const char *host_pattern_problem(const char *host)
{
	const char *rest, *p;
	size_t len = strlen(host);
	int labels;

	if (len == 0)
		return "has an empty host";
	if (strstr(host, "://") || strchr(host, '/'))
		return "is a URL or a path, not a domain";
	if (strchr(host, ':'))
		return "has an invalid \":port\" suffix (1-65535, no leading zero)";
	if (strcmp(host, "*") == 0)
		return "is too broad";
	if (strncmp(host, "*.", 2) == 0) {
		rest = host + 2;
		if (strchr(rest, '*'))
			return "has a wildcard that is not a single leading \"*.\"";
		if (*rest == '\0')
			return "is too broad";
		if (rest[0] == '.' || rest[strlen(rest) - 1] == '.')
			return "starts or ends with \".\"";
		labels = 1;
		for (p = rest; *p; p++) {
			if (*p != '.')
				continue;
			if (p[1] == '.')
				return "has an empty label";
			labels++;
		}
		if (labels < 2)
			return "is too broad";
		return NULL;
	}
	if (strchr(host, '*'))
		return "has a wildcard that is not a single leading \"*.\"";
	if (strcasecmp(host, "localhost") == 0)
		return NULL;
	if (!strchr(host, '.'))
		return "is not a domain name (it has no \".\")";
	if (host[0] == '.' || host[len - 1] == '.')
		return "starts or ends with \".\"";
	return NULL;
}

int srt__domain_pattern_check(const char *entry, enum srt__domain_list list,
			      struct srt_diag *diag)
{
	char host[HOST_MAX + 1];
	const char *p, *why;
	int port, rc, colons = 0;

	if (!entry)
		return srt_diag_set(diag, SRT_E_INVAL, "", "missing domain pattern");
	if (*entry == '\0')
		return pattern_fail(diag, entry, "is empty", list);
	for (p = entry; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch <= 0x20 || ch == 0x7f)
			return pattern_fail(diag, entry, "contains a space or a control character", list);
		if (ch == ':')
			colons++;
	}
	if (colons >= 2 && entry[0] != '[')
		return pattern_fail(diag, entry,
				    "is an IPv6 address without brackets (write it as \"[addr]\" or \"[addr]:port\")",
				    list);
	rc = srt__domain_split_port(entry, host, sizeof(host), &port);
	if (rc == SRT_E_LIMIT)
		return pattern_fail(diag, entry, "is too long", list);
	if (rc != SRT_OK)
		return pattern_fail(diag, entry,
				    "is not a valid bracketed IPv6 literal (\"[addr]\" or \"[addr]:port\", port 1-65535)",
				    list);
	if (port && list == SRT_LIST_PLAIN)
		return pattern_fail(diag, entry, "has a \":port\" suffix, which this list does not take", list);
	if (entry[0] == '[')
		return SRT_OK;
	if (list == SRT_LIST_DENIED && strcmp(host, "*") == 0)
		return SRT_OK;
	why = host_pattern_problem(host);
	if (why)
		return pattern_fail(diag, entry, why, list);
	return SRT_OK;
}

bool srt__host_is_valid(const char *host)
{
	char buf[HOST_MAX + 1];
	unsigned char a[16];
	size_t len, i;

	if (!host)
		return false;
	len = strlen(host);
	if (len == 0 || len > HOST_MAX)
		return false;
	if (host[0] == '[' && len >= 2 && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	if (len == 0)
		return false;
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (strchr(buf, '%'))
		return false;
	if (inet_pton(AF_INET, buf, a) == 1 || inet_pton(AF_INET6, buf, a) == 1)
		return true;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

/* WHATWG "IPv4 number": decimal, 0x hex or leading-zero octal. Values past
 * 2^32 saturate so that the caller's range checks refuse them. */
static bool ipv4_number(const char *s, size_t len, uint64_t *out)
{
	unsigned int radix = 10;
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return false;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
		len -= 2;
	} else if (len >= 2 && s[0] == '0') {
		radix = 8;
		s++;
		len--;
	}
	for (i = 0; i < len; i++) {
		unsigned int d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return false;
		if (d >= radix)
			return false;
		if (v <= 0xffffffffULL)
			v = v * radix + d;
	}
	*out = v;
	return true;
}

/* The WHATWG "ends in a number" test: decides whether a host is parsed as
 * IPv4 at all, so that "foo.0x10" fails instead of passing as a name. */
static bool ends_in_number(const char *h)
{
	size_t len = strlen(h), start, i;
	uint64_t v;

	/* A trailing dot ends an empty last label, which is dropped. */
	if (len && h[len - 1] == '.')
		len--;
	start = len;
	while (start > 0 && h[start - 1] != '.')
		start--;
	if (start == len)
		return false;
	for (i = start; i < len; i++)
		if (h[i] < '0' || h[i] > '9')
			break;
	if (i == len)
		return true;
	return ipv4_number(h + start, len - start, &v);
}

static int ipv4_parse(const char *h, char *out, size_t out_len)
{
	uint64_t n[4], addr;
	size_t len = strlen(h), pos = 0, parts = 0, i;
	char quad[16]; /* "255.255.255.255" and its NUL */
	int w = 0;

	if (len && h[len - 1] == '.')
		len--;
	while (pos <= len) {
		const char *dot = memchr(h + pos, '.', len - pos);
		size_t end = dot ? (size_t)(dot - h) : len;

		if (parts == 4)
			return SRT_E_INVAL;
		if (!ipv4_number(h + pos, end - pos, &n[parts]))
			return SRT_E_INVAL;
		parts++;
		pos = end + 1;
	}
	for (i = 0; i + 1 < parts; i++)
		if (n[i] > 255)
			return SRT_E_INVAL;
	if (n[parts - 1] >= (1ULL << (8 * (5 - parts))))
		return SRT_E_INVAL;
	addr = n[parts - 1];
	for (i = 0; i + 1 < parts; i++)
		addr += n[i] << (8 * (3 - i));
	/* dotted quad by hand: the proxy canonicalises every request's host
	 * and every rule it is matched against, and snprintf was most of it */
	for (i = 0; i < 4; i++) {
		unsigned int b = (unsigned int)(addr >> (8 * (3 - i))) & 255;

		if (b >= 100)
			quad[w++] = (char)('0' + b / 100);
		if (b >= 10)
			quad[w++] = (char)('0' + b / 10 % 10);
		quad[w++] = (char)('0' + b % 10);
		quad[w++] = i < 3 ? '.' : '\0';
	}
	if ((size_t)w > out_len)
		return SRT_E_LIMIT;
	memcpy(out, quad, (size_t)w);
	return SRT_OK;
}

/* A dotted quad as the IPv4 parser writes it: four decimal labels of
 * 0-255 without leading zeros. */
static bool canonical_quad(const char *h, size_t len)
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t start = i;
		unsigned v = 0;

		while (i < len && h[i] >= '0' && h[i] <= '9' && i - start < 3)
			v = v * 10 + (unsigned)(h[i++] - '0');
		if (i == start || v > 255 || (h[start] == '0' && i - start > 1))
			return false;
		if (part < 3 && (i >= len || h[i++] != '.'))
			return false;
	}
	return i == len;
}

/* Is `h` already in its canonical form, so canonicalising it would copy it
 * unchanged? True for a lower-case DNS name of letters, digits, '-' and
 * '.' (no empty label, no trailing dot) whose last label is not a number
 * (not all digits, no "0x"), and for a canonical dotted quad: the names
 * nearly every request carries, which then skip the full parse. */
static bool already_canonical(const char *h, size_t len)
{
	size_t last = 0;
	bool digits_only = true;

	if (h[0] == '.' || h[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = h[i];

		if (ch == '.') {
			if (h[i + 1] == '.')
				return false;
			last = i + 1;
			digits_only = true;
		} else if ((ch >= 'a' && ch <= 'z') || ch == '-') {
			digits_only = false;
		} else if (ch < '0' || ch > '9') {
			return false;
		}
	}
	if (!digits_only && !(h[last] == '0' && h[last + 1] == 'x'))
		return true;
	return canonical_quad(h, len);
}

int srt__host_canonicalize(const char *host, char *out, size_t out_len)
{
	char buf[HOST_MAX + 1];
	size_t len, i;

	if (!host || !out || out_len == 0)
		return SRT_E_INVAL;
	len = strlen(host);
	if (len == 0 || len > HOST_MAX)
		return SRT_E_INVAL;
	if (already_canonical(host, len)) {
		if (len >= out_len)
			return SRT_E_LIMIT;
		memcpy(out, host, len + 1);
		return SRT_OK;
	}
	if (host[0] == '[') {
		if (len < 3 || host[len - 1] != ']')
			return SRT_E_INVAL;
		return ipv6_canonical(host + 1, len - 2, out, out_len);
	}
	if (strchr(host, ':'))
		return ipv6_canonical(host, len, out, out_len);
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)host[i];

		/* Forbidden domain code points of the URL standard, plus
		 * '%' (we do not percent-decode) and non-ASCII (no IDNA):
		 * refusing them fails closed. */
		if (ch <= 0x20 || ch >= 0x7f || strchr("#/:<>?@[\\]^|%", ch))
			return SRT_E_INVAL;
		buf[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : (char)ch;
	}
	buf[len] = '\0';
	if (ends_in_number(buf))
		return ipv4_parse(buf, out, out_len);
	if (buf[len - 1] == '.')
		buf[--len] = '\0';
	/* Empty labels ("a..b", ".a", "a.." after the one trailing dot) name
	 * nothing DNS can resolve; refusing them keeps "evil.com.." from
	 * dodging a rule for "evil.com". */
	if (len == 0 || buf[0] == '.' || buf[len - 1] == '.' || strstr(buf, ".."))
		return SRT_E_INVAL;
	if (len >= out_len)
		return SRT_E_LIMIT;
	memcpy(out, buf, len + 1);
	return SRT_OK;
}

static bool is_ip_literal(const char *h)
{
	unsigned char a[16];

	return strchr(h, ':') || inet_pton(AF_INET, h, a) == 1;
}

bool srt__domain_match(const char *canon_host, int port, const char *pattern)
{
	char phost[HOST_MAX + 1], pcanon[HOST_MAX + 1];
	size_t hl, bl;
	const char *base;
	int pport;

	if (!canon_host || !pattern || !*canon_host)
		return false;
	if (srt__domain_split_port(pattern, phost, sizeof(phost), &pport) != SRT_OK)
		return false;
	if (pport && pport != port)
		return false;
	if (strcmp(phost, "*") == 0)
		return true;
	if (strncmp(phost, "*.", 2) == 0) {
		/* Strict subdomains only, and never an address: "*.0.0.1"
		 * must not match 127.0.0.1. */
		base = phost + 2;
		if (is_ip_literal(canon_host))
			return false;
		hl = strlen(canon_host);
		bl = strlen(base);
		return bl > 0 && hl > bl + 1 && canon_host[hl - bl - 1] == '.' &&
		       strcasecmp(canon_host + hl - bl, base) == 0;
	}
	/* The pattern side is canonicalised too, so a rule spelled "127.1"
	 * or "Example.COM" means what it says (a deny rule can only get
	 * stronger this way). */
	if (srt__host_canonicalize(phost, pcanon, sizeof(pcanon)) == SRT_OK)
		return strcasecmp(canon_host, pcanon) == 0;
	return strcasecmp(canon_host, phost) == 0;
}
