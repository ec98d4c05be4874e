/* The Windows path spelling of common/winpath.c, natively: a path on the
 * current drive becomes the core's rooted path, one on another drive or a
 * share is refused with ENOSYS (srt.exe reads it "not supported on
 * Windows" and names the path). TAP output. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/winpath.h"
#include "tests/unit/tap.h"

static void spells(const char *in, char drive, const char *want)
{
	char out[64];
	int rc = srt__winpath_to_core(in, drive, out, sizeof(out));

	ok(rc == 0 && !strcmp(out, want), "\"%s\" on drive %c is \"%s\" (%s)", in, drive, want,
	   rc ? strerror(errno) : out);
}

static void refuses(const char *in, char drive, int e)
{
	char out[64] = "untouched";
	int rc;

	errno = 0;
	rc = srt__winpath_to_core(in, drive, out, sizeof(out));
	ok(rc == -1 && errno == e, "\"%s\" on drive %c is refused (%s)", in, drive, strerror(errno));
}

static void case_current_drive(void)
{
	spells("C:\\x\\y", 'C', "/x/y");
	spells("C:/x/y", 'C', "/x/y");
	spells("c:\\x\\y", 'C', "/x/y");
	spells("C:\\x\\y", 'c', "/x/y");
	spells("Z:\\tmp\\srt-win-test.1\\bad.json", 'Z', "/tmp/srt-win-test.1/bad.json");
	spells("C:\\", 'C', "/");
	spells("C:/", 'C', "/");
	spells("C:\\x/y\\z", 'C', "/x/y/z");
}

static void case_without_drive(void)
{
	spells("\\x\\y", 'C', "/x/y");
	spells("/x/y", 'C', "/x/y");
	spells("x\\y", 'C', "x/y");
	spells("settings.json", 'D', "settings.json");
	spells("~/x", 'C', "~/x");
}

static void case_refused(void)
{
	refuses("D:\\x\\y", 'C', ENOSYS);
	refuses("D:/x", 'C', ENOSYS);
	refuses("C:x", 'C', ENOSYS);     /* drive-relative */
	refuses("C:", 'C', ENOSYS);
	refuses("\\\\server\\share\\x", 'C', ENOSYS);
	refuses("//server/share/x", 'C', ENOSYS);
	refuses("\\\\?\\C:\\x", 'C', ENOSYS);
	refuses("\\\\.\\pipe\\x", 'C', ENOSYS);
	refuses("C:\\x", '?', ENOSYS); /* no current drive known */
	refuses("", 'C', EINVAL);
}

static void case_bounds(void)
{
	char out[6];

	ok(srt__winpath_to_core("C:\\abcd", 'C', out, sizeof(out)) == 0 && !strcmp(out, "/abcd"),
	   "a result that fills the buffer exactly fits");
	errno = 0;
	ok(srt__winpath_to_core("C:\\abcde", 'C', out, sizeof(out)) == -1 && errno == ENAMETOOLONG,
	   "one byte more is refused (ENAMETOOLONG), never cut");
}

/* The other way (srt__winpath_from_core): the path of a program the
 * command's own programs run, srt-connect.exe in GIT_SSH_COMMAND. */
static void case_from_core(void)
{
	char out[64], small[9];
	static const char *const bad[] = { "srt/x.exe", "//server/share/x.exe", "/a\\b.exe", "" };
	size_t i;

	ok(srt__winpath_from_core("/Program Files/srt/srt-connect.exe", 'C', out, sizeof(out)) == 0 &&
	   !strcmp(out, "C:/Program Files/srt/srt-connect.exe"),
	   "the core's /x on drive C is C:/x, forward slashes kept (%s)", out);
	ok(srt__winpath_to_core(out, 'C', out, sizeof(out)) == 0 &&
	   !strcmp(out, "/Program Files/srt/srt-connect.exe"), "and spelled back it is the same path");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ok(srt__winpath_from_core(bad[i], 'C', out, sizeof(out)) == -1 && errno == EINVAL,
		   "\"%s\" has no drive path (EINVAL)", bad[i]);
	}
	errno = 0;
	ok(srt__winpath_from_core("/x", '?', out, sizeof(out)) == -1 && errno == EINVAL,
	   "no drive letter: refused");
	ok(srt__winpath_from_core("/abcde", 'Z', small, sizeof(small)) == 0 && !strcmp(small, "Z:/abcde"),
	   "a result that fills the buffer exactly fits");
	errno = 0;
	ok(srt__winpath_from_core("/abcdef", 'Z', small, sizeof(small)) == -1 && errno == ENAMETOOLONG,
	   "one byte more is refused (ENAMETOOLONG), never cut");
}

int main(void)
{
	TAP_RUN(case_current_drive);
	TAP_RUN(case_without_drive);
	TAP_RUN(case_refused);
	TAP_RUN(case_bounds);
	TAP_RUN(case_from_core);
	return tap_done();
}
