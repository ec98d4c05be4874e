/* Violation store: sanitising, attribution by key prefix, ignoreViolations,
 * the bounded ring, and the exact stderr annotation format. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libsrt/violations.h"
#include "tap.h"

static void sanitize_cases(void)
{
	char a[] = "  deny <openat> /etc/x\n\tmore\x7f  ";
	char b[] = "a\xe2\x80\x8b\xe2\x80\x8e" "b";   /* ZWSP + LRM */
	char c[] = "x\xc2\x85y\xef\xbb\xbfz";          /* NEL (C1) and BOM */
	char d[] = "bad\xff" "byte";

	srt__violation_sanitize(a);
	ok(!strcmp(a, "deny openat /etc/x more"), "controls collapse, <> removed, trimmed: [%s]", a);
	srt__violation_sanitize(b);
	ok(!strcmp(b, "a b"), "zero-width and bidi runs become one space: [%s]", b);
	srt__violation_sanitize(c);
	ok(!strcmp(c, "x y z"), "C1 and BOM become spaces: [%s]", c);
	srt__violation_sanitize(d);
	ok(!strcmp(d, "bad byte"), "invalid UTF-8 does not pass through: [%s]", d);
}

static void ignore_cases(void)
{
	struct srt__settings s;
	struct srt__ignore_rule rules[2];

	memset(&s, 0, sizeof(s));
	memset(rules, 0, sizeof(rules));
	rules[0].command_pattern = "*";
	srt__strv_push(&rules[0].lines, "/dev/tty");
	rules[1].command_pattern = "npm";
	srt__strv_push(&rules[1].lines, "registry.npmjs.org");
	s.ignore_violations = rules;
	s.n_ignore_violations = 2;
	ok(srt__violation_ignored(&s, "deny openat /dev/tty", "ls"), "'*' rule ignores for any command");
	ok(srt__violation_ignored(&s, "deny network-outbound registry.npmjs.org:443 (x)", "npm install"),
	   "command substring rule ignores a matching line");
	ok(!srt__violation_ignored(&s, "deny network-outbound registry.npmjs.org:443 (x)", "curl x"),
	   "the same line for another command is kept");
	ok(!srt__violation_ignored(&s, "deny openat /etc/passwd", "npm"), "an unlisted line is kept");
	srt__strv_release(&rules[0].lines);
	srt__strv_release(&rules[1].lines);
}

static int heard;
static void listener(void *ctx, const struct srt_violation *v)
{
	(void)ctx;
	if (v && v->line)
		heard++;
}

static void store_cases(void)
{
	struct srt__vstore *vs;
	struct srt_violation *v;
	size_t n;
	char key_a[160], key_b[160];
	int i;

	ok(srt__vstore_new(&vs) == 0, "store created");
	srt__vstore_listen(vs, listener, NULL);
	/* two keys that differ only after 100 characters are the same command */
	memset(key_a, 'k', 120);
	key_a[120] = 0;
	memcpy(key_b, key_a, 121);
	key_b[110] = 'Z';
	srt__vstore_register(vs, key_a, "the command text");
	ok(srt__vstore_add(vs, key_a, "deny network-outbound a.test:443 (host is not on the allow list)") == 1,
	   "event recorded");
	ok(srt__vstore_add(vs, "other", "deny openat /x") == 1, "event for another key");
	ok(srt__vstore_get(vs, key_b, &v, &n) == 0 && n == 1, "lookup by key compares the first 100 chars");
	ok(n == 1 && !strcmp(v[0].command, "the command text"), "registered command text reported");
	srt_violations_free(v, n);
	ok(heard == 2, "listener heard every event");

	for (i = 0; i < 250; i++)
		srt__vstore_add(vs, "flood", "deny openat /flood");
	ok(srt__vstore_total(vs) == 252, "total counts every event");
	ok(srt__vstore_get(vs, NULL, &v, &n) == 0 && n == SRT_VSTORE_KEEP, "ring keeps the last %d", SRT_VSTORE_KEEP);
	srt_violations_free(v, n);
	srt__vstore_free(vs);
}

int main(void)
{
	TAP_RUN(sanitize_cases);
	TAP_RUN(ignore_cases);
	TAP_RUN(store_cases);
	return tap_done();
}
