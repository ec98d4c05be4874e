/* The unit-test runner in tap.h proves itself: this program runs its own
 * demo mode (TAP_DEMO=1 in the environment) as a child, where one case
 * segfaults, two hang (one past its own timeout, one past the default that
 * TAP_TIMEOUT sets), one exits non-zero and one fails a check, and checks
 * that the parent reported each of them, went on to the next case, and
 * kept one numbering across the processes. TAP output. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/tap.h"

/* ---- demo mode: the cases the runner must survive ----------------------- */

static void demo_passes(void)
{
	ok(1, "first");
	ok(1, "second");
}

static void demo_segfaults(void)
{
	ok(1, "before the crash");
	/* the default action, not a sanitizer's handler that would exit */
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	ok(1, "never printed");
}

static void demo_hangs(void)
{
	for (;;)
		pause();
}

static void demo_exits(void)
{
	exit(3);
}

static void demo_fails(void)
{
	ok(0, "a failed check");
}

static void demo_resets(void)
{
	/* a case's own subprocess bookkeeping may clear the flag: the
	 * failure of an earlier case must stay counted */
	tap_fail = 0;
	ok(1, "after the reset");
}

/* only a failed check, then a case that clears the flag: still a failure */
static int demo_reset_only(void)
{
	tap_case(demo_fails, "fails");
	tap_case(demo_resets, "resets");
	return tap_done();
}

static int demo(void)
{
	TAP_RUN(demo_passes);
	tap_case(demo_segfaults, "segfaults");
	tap_case_timeout(demo_hangs, "hangs past its own timeout", 1);
	tap_case(demo_hangs, "hangs past the default");
	tap_case(demo_exits, "exits");
	tap_case(demo_fails, "fails");
	tap_case(demo_resets, "resets");
	tap_case(demo_passes, "last");
	return tap_done();
}

/* ---- the checks: the demo's output, read by the parent ------------------ */

static char out[8192], reset_out[1024];
static int demo_status = -1, reset_status = -1;

/* Run this program in a demo mode; its output goes to buf. */
static int run_demo(const char *mode, char *buf, size_t size)
{
	char self[4096], cmd[4200];
	ssize_t len;
	FILE *p;
	size_t n;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0 || (size_t)len >= sizeof(self) - 1) {
		printf("Bail out! cannot find this program\n");
		exit(1);
	}
	self[len] = '\0';
	snprintf(cmd, sizeof(cmd), "TAP_DEMO=%s TAP_TIMEOUT=1 TAP_TIMEOUT_MULTIPLIER= '%s' 2>&1", mode, self);
	p = popen(cmd, "r");
	if (!p) {
		printf("Bail out! cannot run the demo\n");
		exit(1);
	}
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	return pclose(p);
}

static void check_lines(void)
{
	static const char *const want[] = {
		"ok 1 - first\n",
		"ok 2 - second\n",
		"ok 3 - before the crash\n",
		"not ok 4 - segfaults: killed by signal 11 (",
		"not ok 5 - hangs past its own timeout: timed out after 1 s\n",
		"not ok 6 - hangs past the default: timed out after 1 s\n",
		"not ok 7 - exits: exited with status 3\n",
		"not ok 8 - a failed check\n",
		"ok 9 - after the reset\n",
		"ok 10 - first\n",
		"ok 11 - second\n",
		"1..11\n",
	};
	const char *at = out;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *hit = strstr(at, want[i]);

		ok(hit != NULL, "the demo printed \"%.*s\" in order", (int)strcspn(want[i], "\n"), want[i]);
		if (hit)
			at = hit + strlen(want[i]);
	}
	ok(!strstr(out, "never printed"), "nothing after the crash in the crashed case");
}

static void check_status(void)
{
	ok(demo_status != -1 && WIFEXITED(demo_status) && WEXITSTATUS(demo_status) == 1,
	   "the demo fails as a whole (status %#x), though its last case passed", demo_status);
	ok(reset_status != -1 && WIFEXITED(reset_status) && WEXITSTATUS(reset_status) == 1 &&
	   contains(reset_out, "not ok 1 - a failed check") && contains(reset_out, "ok 2 - after the reset"),
	   "a case that clears tap_fail does not hide an earlier case's failure (status %#x)", reset_status);
}

static void check_shared_counter(void)
{
	int before = tap_n, after;

	ok(1, "a check in a case");
	after = tap_n;
	ok(after == before + 1, "the counter moves in the case's process");
}

static void check_parent_sees_counter(void)
{
	int at_start = tap_n, at_end;

	tap_case(check_shared_counter, "nested case");
	at_end = tap_n;
	ok(at_end == at_start + 2, "the parent sees the child's checks (%d after %d)", at_end, at_start);
}

int main(void)
{
	const char *mode = getenv("TAP_DEMO");

	if (mode)
		return strcmp(mode, "reset") ? demo() : demo_reset_only();
	/* before any case: the checks below read these in their children */
	demo_status = run_demo("all", out, sizeof(out));
	reset_status = run_demo("reset", reset_out, sizeof(reset_out));
	printf("# the demo printed:\n");
	for (const char *line = out; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
		printf("#   %.*s\n", (int)strcspn(line, "\n"), line);
	TAP_RUN(check_lines);
	TAP_RUN(check_status);
	TAP_RUN(check_parent_sees_counter);
	return tap_done();
}
