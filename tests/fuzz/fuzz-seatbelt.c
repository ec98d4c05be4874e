/* libFuzzer harness: the macos-seatbelt backend's readers of hostile text
 * (backends/macos-seatbelt/logline.h, sbpl.h). Input: one line as `log
 * stream` would print it (the target of a denial is a path the sandboxed
 * command chose), and the same bytes as a settings glob. Checks:
 *  - an event line is NUL-terminated inside the buffer, starts "deny ",
 *    holds no control byte (it becomes one line for the core);
 *  - a glob without "[" or "]" compiles to a regex that matches the name
 *    it spells when it has no "*" or "?" either, and its deny form matches
 *    everything below that name;
 *  - an SBPL string literal of the bytes has its quotes balanced: the
 *    profile's syntax cannot be broken out of by a path. */
#include "config.h"

#include <regex.h>

#include "fuzz.h"
#include "backends/macos-seatbelt/logline.h"
#include "backends/macos-seatbelt/sbpl.h"

static void check_log(const char *line)
{
	char out[64];
	size_t i;

	memset(out, 0x5a, sizeof(out));
	if (!srt__sb_log_line(line, out, sizeof(out)))
		return;
	FUZZ_CHECK(memchr(out, '\0', sizeof(out)) != NULL, "event not terminated");
	FUZZ_CHECK(!strncmp(out, "deny ", 5), "event \"%s\" does not start with deny", out);
	for (i = 0; out[i]; i++)
		FUZZ_CHECK((unsigned char)out[i] >= 0x20 && out[i] != 0x7f, "control byte in event");
}

static void check_glob(const char *g)
{
	char *re, *deny, below[1100];
	int literal = !strpbrk(g, "*?"), m;

	if (strpbrk(g, "[]") || strlen(g) > 1000)
		return;
	re = srt__sb_glob_regex(g);
	deny = srt__sb_glob_deny_regex(g);
	FUZZ_CHECK(re && deny, "no regex");
	m = srt__sb_regex_match(re, g);
	FUZZ_CHECK(m >= 0, "regex %s of \"%s\" does not compile", re, g);
	if (literal && !strchr(g, '\n')) {
		FUZZ_CHECK(m == 1, "regex %s does not match its own name \"%s\"", re, g);
		snprintf(below, sizeof(below), "%s/x", g);
		FUZZ_CHECK(srt__sb_regex_match(deny, below) == 1, "deny regex %s misses %s", deny, below);
	}
	free(re);
	free(deny);
}

static void check_quote(const char *s)
{
	struct srt__sb_buf b = { 0 };
	const char *p;
	int quotes = 0;

	srt__sb_quote(&b, s);
	FUZZ_CHECK(!b.failed, "quote failed");
	for (p = b.s; *p; p++) {
		if (*p == '\\') {
			FUZZ_CHECK(p[1] != '\0', "dangling escape");
			p++;
			continue;
		}
		FUZZ_CHECK((unsigned char)*p >= 0x20, "raw control byte in a string literal");
		quotes += *p == '"';
	}
	FUZZ_CHECK(quotes == 2, "%d unescaped quotes", quotes);
	srt__sb_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);

	check_log(s);
	check_glob(s);
	check_quote(s);
	free(s);
	return 0;
}
