/* The Windows build's check of credentials extract patterns
 * (libsrt/extract-pcre2.c), natively: PCRE2 with the credentials module's
 * own compile options, so a pattern the module would refuse is refused
 * when the settings are read, and one it accepts is accepted. TAP output. */
#include "config.h"

#include <string.h>

#include "libsrt/extract.h"
#include "tests/unit/tap.h"

static void accepts(const char *pattern, size_t want, const char *why)
{
	char err[200] = "";
	size_t groups = 99;
	int rc = srt__extract_compile(pattern, &groups, err, sizeof(err));

	ok(rc == 0 && groups == want, "\"%s\" compiles with %zu group(s): %s (%s)", pattern, want, why,
	   rc ? err : "ok");
}

static void refuses(const char *pattern, const char *says)
{
	char err[200] = "";
	size_t groups = 99;
	int rc = srt__extract_compile(pattern, &groups, err, sizeof(err));

	ok(rc == -1 && groups == 99 && strstr(err, says), "\"%s\" is refused: %s", pattern, err);
}

static void case_accepted(void)
{
	accepts("token:\\s*(\\S+)", 1, "the README's example");
	accepts("token:.*", 0, "no group (the caller refuses it)");
	accepts("(?:bearer|token) (\\w+)", 1, "a non-capturing group is not counted (POSIX has none)");
	accepts("\\u0041=(x)", 1, "JavaScript's \\u escape, as the module compiles (PCRE2_ALT_BSUX)");
	accepts("(a)(b(c))", 3, "nested groups");
	accepts("\xc3\xa9t\xc3\xa9: (\\S+)", 1, "UTF-8 in the pattern");
}

static void case_refused(void)
{
	refuses("(abc", "missing closing parenthesis at offset 4");
	refuses("a{2,1}(x)", "out of order");
	refuses("\xff(x)", "UTF-8 error");
	refuses("(?<n>a)(?<n>b)", "two named subpatterns have the same name");
}

/* a short buffer gets a cut but terminated message */
static void case_bounds(void)
{
	char err[8];
	size_t groups = 0;

	memset(err, 'x', sizeof(err));
	ok(srt__extract_compile("(", &groups, err, sizeof(err)) == -1 && memchr(err, '\0', sizeof(err)),
	   "a message longer than the buffer is cut and terminated (\"%s\")", err);
}

int main(void)
{
	TAP_RUN(case_accepted);
	TAP_RUN(case_refused);
	TAP_RUN(case_bounds);
	return tap_done();
}
