/* backends/linux-common on its own: the $PATH search both Linux backends
 * use to find bwrap, a module's helper lookup, the sysctl reader, and the
 * protected names the mandatory-deny walker takes from common/protected.h
 * (the new kinds of entry, core.hooksPath, $HOME's names, releases and
 * hard links).
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

#include "backends/linux-common/mandatory.h"
#include "backends/linux-common/path-search.h"
#include "common/pathcat.h"
#include "common/protected.h"
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

static void case_protected_table(void)
{
	size_t i;
	int reasons = 1;

	for (i = 0; i < srt__protected_count; i++)
		if (!srt__protected_names[i].reason || strlen(srt__protected_names[i].reason) < 10)
			reasons = 0;
	ok(reasons && srt__protected_count >= 30, "every entry has a reason (%zu entries)",
	   srt__protected_count);
	ok(srt__protected_find(".envrc") && srt__protected_find("~/.ssh/authorized_keys") &&
	   srt__protected_find(".ssh/config") && !srt__protected_find(".nope"),
	   "find: names as listed, $HOME names with or without ~/, unknown is NULL");
	ok(srt__protected_match("/p/sub/.vscode/settings.json", NULL) == srt__protected_find(".vscode"),
	   "match: a file inside a protected directory");
	ok(srt__protected_match("/h/.config/autostart/x.desktop", "/h") ==
	   srt__protected_find("~/.config/autostart"), "match: below $HOME");
	ok(srt__protected_match("/p/src/main.c", "/h") == NULL, "match: an ordinary file is none");
}

/* The walk's reports, collected as "what|path" lines. */
struct seen {
	char buf[32768];
	size_t len;
};

static int seen_fn(void *ctx, const char *path, const char *what)
{
	struct seen *s = ctx;
	int n = snprintf(s->buf + s->len, sizeof(s->buf) - s->len, "W %s|%s\n", what, path);

	if (n > 0 && (size_t)n < sizeof(s->buf) - s->len)
		s->len += (size_t)n;
	return 0;
}

static int seen_read_fn(void *ctx, const char *path, const char *what)
{
	struct seen *s = ctx;
	int n = snprintf(s->buf + s->len, sizeof(s->buf) - s->len, "R %s|%s\n", what, path);

	if (n > 0 && (size_t)n < sizeof(s->buf) - s->len)
		s->len += (size_t)n;
	return 0;
}

static int has(const struct seen *s, const char *what, const char *rel)
{
	char line[PATH_MAX + 256];

	snprintf(line, sizeof(line), "%s|%s/%s\n", what, root, rel);
	return strstr(s->buf, line) != NULL;
}

static void case_protected_walk(void)
{
	struct srt__mandatory_opts o;
	struct seen *sn = calloc(1, sizeof(*sn));
	size_t budget = 100000;
	int trunc = 0;
	char w[PATH_MAX], h[PATH_MAX], cmd[PATH_MAX * 2];
	const char *rel[] = { ".npmrc", NULL };

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/w/sub/.claude' '%s/w/.git' '%s/w/.husky' '%s/h/.ssh'",
		 root, root, root, root);
	ok(system(cmd) == 0, "tree made");
	put("w/.git/config", "[core]\n\thooksPath = \"githooks\"\n", 0644);
	put("w/.git/HEAD", "ref: refs/heads/main\n", 0644);
	put("w/sub/.envrc", "x\n", 0644);
	put("w/.npmrc", "x\n", 0644);
	put("h/.bashrc", "x\n", 0644);
	snprintf(cmd, sizeof(cmd), "ln '%s/h/.bashrc' '%s/w/sub/rc'", root, root);
	ok(system(cmd) == 0, "a hard link to $HOME's .bashrc in the root");
	snprintf(w, sizeof(w), "%s/w", root);
	snprintf(h, sizeof(h), "%s/h", root);
	memset(&o, 0, sizeof(o));
	o.depth = 3;
	o.root_names = 1;
	o.home = h;
	o.read_fn = seen_read_fn;
	ok(srt__mandatory_scan(w, &o, &budget, &trunc, seen_fn, sn) == 0 && !trunc, "walk");
	ok(has(sn, "W .envrc", "w/sub/.envrc"), "a .envrc below the top");
	ok(has(sn, "W .husky", "w/.husky"), ".husky/");
	ok(has(sn, "W core.hooksPath", "w/githooks"), "the directory core.hooksPath names, relative to the work tree");
	ok(has(sn, "W .claude/settings.json", "w/sub/.claude/settings.json") &&
	   has(sn, "W .claude/hooks", "w/sub/.claude/hooks"), ".claude names in a nested .claude, even absent");
	ok(has(sn, "W .npmrc", "w/.npmrc") && has(sn, "W .bash_logout", "w/.bash_logout"),
	   "the top's names, present and absent");
	ok(has(sn, "W hard link to .bashrc", "w/sub/rc"), "a hard link to $HOME's .bashrc");
	ok(!strstr(sn->buf, "/h/.ssh/config"), "$HOME's names are not reported in a root that does not hold them");
	/* $HOME as the root, .npmrc released */
	memset(sn, 0, sizeof(*sn));
	budget = 100000;
	o.released = rel;
	ok(srt__mandatory_scan(h, &o, &budget, &trunc, seen_fn, sn) == 0, "walk of $HOME");
	ok(has(sn, "W ~/.ssh/authorized_keys", "h/.ssh/authorized_keys") &&
	   has(sn, "W ~/.config/systemd/user", "h/.config/systemd/user"), "$HOME's names, even absent");
	ok(!strstr(sn->buf, ".npmrc"), "a released name is never reported");
	free(sn);
}

/* srt__pathcat stands in for snprintf("%.*s%s%s%s%s") in the planners:
 * the same bytes and the same return value for every buffer size,
 * truncation included, since callers test the result against the size. */
static void case_pathcat(void)
{
	static const char *parts[][5] = {
		{ "/home/u", "/", ".bashrc", NULL, NULL },
		{ "/", NULL, NULL, NULL, NULL },
		{ "/root/x", "/", ".claude", "/", "settings.json" },
		{ "", "", "", "", "" },
		{ "origin", " (", "deny write", " ", "/a/b" },
	};
	size_t i, cap, bad = 0;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		for (cap = 0; cap < 40; cap++) {
			char a[40], b[40];
			const char *const *p = parts[i];
			size_t n;
			int m;

			memset(a, 'x', sizeof(a));
			memset(b, 'x', sizeof(b));
			n = srt__pathcat(a, cap, p[0], strlen(p[0]) > 3 ? strlen(p[0]) - 1 : strlen(p[0]),
					 p[1], p[2], p[3], p[4]);
			m = snprintf(b, cap, "%.*s%s%s%s%s",
				     (int)(strlen(p[0]) > 3 ? strlen(p[0]) - 1 : strlen(p[0])), p[0],
				     p[1] ? p[1] : "", p[2] ? p[2] : "", p[3] ? p[3] : "", p[4] ? p[4] : "");
			if (n != (size_t)m || memcmp(a, b, sizeof(a)) != 0) {
				printf("# case %zu, size %zu: %zu \"%.*s\" against snprintf's %d \"%.*s\"\n",
				       i, cap, n, (int)(cap ? cap - 1 : 0), a, m, (int)(cap ? cap - 1 : 0), b);
				bad++;
			}
		}
	ok(bad == 0, "srt__pathcat writes and returns what snprintf does, for every size 0..39 (%zu differ)",
	   bad);
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
	TAP_RUN(case_protected_table);
	TAP_RUN(case_protected_walk);
	TAP_RUN(case_pathcat);
	snprintf(d, sizeof(d), "rm -rf '%s'", root);
	if (system(d) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
