/* libFuzzer harness: domain patterns and host canonicalisation
 * (common/domain.h). Input: "host\npattern\nport", the last two optional.
 * Hosts come from hostile clients and are canonicalised before every
 * match, so besides memory safety this checks the properties the filter
 * relies on:
 *  - canonical output is NUL-terminated inside the buffer, fits exactly
 *    (strlen + 1 bytes succeed, strlen bytes give SRT_E_LIMIT);
 *  - canonicalising a canonical host gives the same text (idempotent),
 *    with no upper-case letters;
 *  - a valid host's canonical form is valid too;
 *  - a pattern the settings would accept, with no wildcard and no port,
 *    matches its own canonical host on every port;
 *  - "*." never matches an address, a pattern's port is honoured, and
 *    matching ignores the pattern's case. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"
#include "common/domain.h"

#define CANON_CAP 300

/* The canonical form into a heap buffer of exactly `cap` bytes, so any
 * write past it is caught. Returns the code; *out gets a copy on success. */
static int canon_exact(const char *host, size_t cap, char *copy, size_t copy_cap)
{
	char *buf = malloc(cap);
	int rc;

	if (!buf)
		abort();
	memset(buf, 0x5a, cap);
	rc = srt__host_canonicalize(host, buf, cap);
	if (rc == SRT_OK) {
		FUZZ_CHECK(fuzz_terminated(buf, cap),
			   "canonical form of \"%s\" not terminated in %zu bytes", host, cap);
		if (copy)
			snprintf(copy, copy_cap, "%s", buf);
	}
	free(buf);
	return rc;
}

static bool is_address(const char *h)
{
	unsigned char a[16];

	return strchr(h, ':') || inet_pton(AF_INET, h, a) == 1;
}

static void check_pattern(const char *p)
{
	static const enum srt__domain_list lists[] = {
		SRT_LIST_ALLOWED, SRT_LIST_DENIED, SRT_LIST_PLAIN,
	};
	struct srt_diag d;
	int rc[3];

	for (size_t i = 0; i < 3; i++) {
		memset(&d, 0x5a, sizeof(d));
		rc[i] = srt__domain_pattern_check(p, lists[i], &d);
		FUZZ_CHECK(rc[i] == SRT_OK || rc[i] == SRT_E_INVAL,
			   "pattern check of \"%s\" returned %d", p, rc[i]);
		if (rc[i] != SRT_OK)
			FUZZ_CHECK(fuzz_terminated(d.message, sizeof(d.message)) &&
				   d.message[0], "pattern diag for \"%s\" empty or unterminated", p);
	}
	/* allowedDomains is the strictest list that takes ports; the plain
	 * list takes a subset of it, deniedDomains a superset */
	if (rc[2] == SRT_OK)
		FUZZ_CHECK(rc[0] == SRT_OK, "\"%s\" is a valid plain pattern but not allowed", p);
	if (rc[0] == SRT_OK)
		FUZZ_CHECK(rc[1] == SRT_OK, "\"%s\" is a valid allowed pattern but not denied", p);
}

static void check_split(const char *s)
{
	char host[CANON_CAP];
	int port = -1, rc;

	memset(host, 0x5a, sizeof(host));
	rc = srt__domain_split_port(s, host, sizeof(host), &port);
	if (rc != SRT_OK)
		return;
	FUZZ_CHECK(fuzz_terminated(host, sizeof(host)), "split host of \"%s\" unterminated", s);
	FUZZ_CHECK(port >= 0 && port <= 65535, "split port of \"%s\" is %d", s, port);
	/* the same split into a buffer of exactly the right size */
	{
		size_t need = strlen(host) + 1;
		char *exact = malloc(need);
		int port2 = -1;

		if (!exact)
			abort();
		FUZZ_CHECK(srt__domain_split_port(s, exact, need, &port2) == SRT_OK &&
			   strcmp(exact, host) == 0 && port2 == port,
			   "split of \"%s\" differs with a %zu-byte buffer", s, need);
		free(exact);
	}
}

static void check_host(const char *h)
{
	char c1[CANON_CAP], c2[CANON_CAP];
	bool valid = srt__host_is_valid(h);
	size_t len;
	int rc;

	rc = canon_exact(h, CANON_CAP, c1, sizeof(c1));
	if (rc != SRT_OK) {
		FUZZ_CHECK(rc < 0, "canonicalize(\"%s\") returned %d", h, rc);
		return;
	}
	len = strlen(c1);
	FUZZ_CHECK(len > 0, "canonical form of \"%s\" is empty", h);
	for (size_t i = 0; i < len; i++)
		FUZZ_CHECK(!isupper((unsigned char)c1[i]),
			   "canonical form \"%s\" of \"%s\" has upper case", c1, h);
	FUZZ_CHECK(canon_exact(h, len + 1, NULL, 0) == SRT_OK,
		   "canonical form of \"%s\" does not fit in strlen+1 bytes", h);
	FUZZ_CHECK(canon_exact(h, len, NULL, 0) != SRT_OK,
		   "canonical form of \"%s\" claimed to fit in strlen bytes", h);
	rc = canon_exact(c1, CANON_CAP, c2, sizeof(c2));
	FUZZ_CHECK(rc == SRT_OK && strcmp(c1, c2) == 0,
		   "not idempotent: \"%s\" -> \"%s\" -> rc %d \"%s\"", h, c1, rc,
		   rc == SRT_OK ? c2 : "");
	if (valid)
		FUZZ_CHECK(srt__host_is_valid(c1),
			   "valid host \"%s\" canonicalises to invalid \"%s\"", h, c1);
}

static void check_match(const char *host, const char *pattern, int port)
{
	char canon[CANON_CAP], phost[CANON_CAP], *upper;
	struct srt_diag d;
	int pport = 0;
	bool m;

	if (srt__host_canonicalize(host, canon, sizeof(canon)) != SRT_OK)
		return;
	m = srt__domain_match(canon, port, pattern);
	upper = strdup(pattern);
	if (!upper)
		abort();
	for (char *q = upper; *q; q++)
		*q = (char)toupper((unsigned char)*q);
	FUZZ_CHECK(srt__domain_match(canon, port, upper) == m,
		   "match(\"%s\", %d, \"%s\") changes with the pattern's case", canon, port,
		   pattern);
	free(upper);
	if (srt__domain_split_port(pattern, phost, sizeof(phost), &pport) == SRT_OK) {
		if (pport && pport != port)
			FUZZ_CHECK(!m, "\"%s\" matched \"%s\" on port %d", canon, pattern, port);
		if (strncmp(phost, "*.", 2) == 0 && is_address(canon))
			FUZZ_CHECK(!m, "wildcard \"%s\" matched the address \"%s\"", pattern, canon);
	}
	if (strcmp(pattern, "*") == 0)
		FUZZ_CHECK(m, "\"*\" did not match \"%s\"", canon);
	/* an exact pattern matches its own host, whatever the port */
	if (srt__domain_pattern_check(host, SRT_LIST_PLAIN, &d) == SRT_OK &&
	    !strchr(host, '*'))
		FUZZ_CHECK(srt__domain_match(canon, port, host),
			   "pattern \"%s\" does not match its canonical host \"%s\"", host, canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *host, *pattern = NULL, *portstr = NULL, *nl;
	int port = 443;

	/* embedded NULs end the text, as for any C string from the wire */
	host = text;
	nl = strchr(host, '\n');
	if (nl) {
		*nl = '\0';
		pattern = nl + 1;
		nl = strchr(pattern, '\n');
		if (nl) {
			*nl = '\0';
			portstr = nl + 1;
			port = atoi(portstr) & 0xffff;
		}
	}
	check_pattern(host);
	check_split(host);
	check_host(host);
	check_match(host, host, port);
	if (pattern) {
		check_pattern(pattern);
		check_split(pattern);
		check_host(pattern);
		check_match(host, pattern, port);
		check_match(pattern, pattern, port);
	}
	free(text);
	return 0;
}
