/* backends/linux-common on its own: the $PATH search both Linux backends
 * use to find bwrap, a module's helper lookup, and the sysctl reader.
 * (The mandatory-deny walker, globs, the Landlock planner and the seccomp
 * filters have their own programs: test-mounts, test-landlock,
 * test-seccomp.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/path-search.h"
#include "backends/linux-common/sibling.h"
#include "tap.h"

static char root[] = "/tmp/srt-linux-common.XXXXXX";

static void put(const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		perror(p);
		exit(1);
	}
	close(fd);
	chmod(p, mode);
}

static int refuse_first_dir(const char *path, const void *arg)
{
	return strncmp(path, (const char *)arg, strlen((const char *)arg)) != 0;
}

static void case_path_search(void)
{
	char out[PATH_MAX], want[PATH_MAX], path[3 * PATH_MAX];

	/* a/prog is not executable, b/prog is, c/prog is too */
	put("a/prog", "#!/bin/sh\n", 0644);
	put("b/prog", "#!/bin/sh\n", 0755);
	put("c/prog", "#!/bin/sh\n", 0755);
	snprintf(path, sizeof(path), "%s/a:%s/b:%s/c", root, root, root);
	setenv("PATH", path, 1);
	snprintf(want, sizeof(want), "%s/b/prog", root);
	ok(srt__path_search("prog", NULL, NULL, out, sizeof(out)) == 0 && !strcmp(out, want),
	   "the first executable entry wins, a non-executable one is passed over (%s)", out);

	snprintf(want, sizeof(want), "%s/b/", root);
	ok(srt__path_search("prog", refuse_first_dir, want, out, sizeof(out)) == 0 &&
	   strstr(out, "/c/prog") != NULL, "an entry the caller refuses is passed over (%s)", out);

	/* relative entries are never searched, even when they hold the name */
	if (chdir(root) == 0) {
		put("prog", "#!/bin/sh\n", 0755);
		setenv("PATH", ".::a:b", 1);
		ok(srt__path_search("prog", NULL, NULL, out, sizeof(out)) == -1,
		   "\".\", \"\" and relative entries are skipped (a planted ./prog is not found)");
	}

	snprintf(path, sizeof(path), "%s/b", root);
	setenv("PATH", path, 1);
	ok(srt__path_search("prog", NULL, NULL, out, 8) == -1,
	   "a result longer than the buffer is not returned cut short");

	unsetenv("PATH");
	ok(srt__path_search("sh", NULL, NULL, out, sizeof(out)) == 0 && out[0] == '/',
	   "with PATH unset, the standard directories are searched (%s)", out);
	setenv("PATH", "", 1);
	ok(srt__path_search("no-such-program-srt", NULL, NULL, out, sizeof(out)) == -1,
	   "a name found nowhere is -1");
}

static void case_sibling(void)
{
	char out[PATH_MAX], self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		ok(1, "# SKIP /proc/self/exe unreadable: %s", strerror(errno));
		return;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	/* this program is itself a sibling of the symbol's object */
	ok(srt__module_sibling((const void *)case_sibling, slash + 1, out, sizeof(out)) == 0 &&
	   !strcmp(out, self), "a program beside the object holding the symbol is found (%s)", out);
	ok(srt__module_sibling((const void *)case_sibling, "no-such-helper-srt", out, sizeof(out)) == -1,
	   "a helper that is not there is -1");
	ok(srt__module_sibling((const void *)case_sibling, slash + 1, out, 4) == -1,
	   "a path longer than the buffer is -1, never cut short");
}

static void case_read_long(void)
{
	char p[PATH_MAX];

	put("n", "42\n", 0644);
	snprintf(p, sizeof(p), "%s/n", root);
	ok(srt__read_long_file(p) == 42, "a number is read");
	put("e", "", 0644);
	snprintf(p, sizeof(p), "%s/e", root);
	ok(srt__read_long_file(p) == -1, "an empty file is -1");
	snprintf(p, sizeof(p), "%s/missing", root);
	ok(srt__read_long_file(p) == -1, "a missing file is -1");
}

int main(void)
{
	char d[PATH_MAX];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(root))
		return 1;
	snprintf(d, sizeof(d), "%s/a", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/b", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/c", root);
	mkdir(d, 0755);
	TAP_RUN(case_path_search);
	TAP_RUN(case_sibling);
	TAP_RUN(case_read_long);
	snprintf(d, sizeof(d), "rm -rf '%s'", root);
	if (system(d) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
