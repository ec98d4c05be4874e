/* The watcher of replaced names (backends/linux-bwrap/init/watch.h): what
 * the mount plan hands it, how the helper parses it, and the pure rules
 * it applies (which directories it covers, which events in the moment
 * before a cover count as a write). The watcher itself, racing the host,
 * is tested end to end by tests/escape/0901-h1-replaced.sh and
 * 0906-h6-globs.sh. */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "backends/linux-bwrap/init/opts.h"
#include "backends/linux-bwrap/init/watch.h"
#include "backends/linux-bwrap/mounts.h"
#include "common/protected.h"

static char T[256];

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", T, rel);
	return buf[k];
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(P(rel), "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rule(struct srt_rules *r, const char *path, unsigned flags)
{
	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n].path = strdup(path);
	r->v[r->n].flags = flags;
	r->v[r->n].origin = strdup("test");
	r->n++;
}

static void rules_free(struct srt_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].path);
		free(r->v[i].origin);
	}
	free(r->v);
}

static int has(const struct srt__strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

static void test_protected_dirs(void)
{
	ok(srt__watch_protected_dir(".vscode"), ".vscode is covered as it appears");
	ok(srt__watch_protected_dir(".Claude"), ".claude in any case");
	ok(srt__watch_protected_dir(".idea"), ".idea");
	ok(!srt__watch_protected_dir("vscode") && !srt__watch_protected_dir(".vscode2") &&
	   !srt__watch_protected_dir("src"), "other names are not");
}

static void test_window_write(void)
{
	ok(srt__watch_window_write(IN_MODIFY), "a write in the moment before the cover counts");
	ok(srt__watch_window_write(IN_MOVED_TO) && srt__watch_window_write(IN_CREATE),
	   "a second replacement counts");
	ok(srt__watch_window_write(IN_DELETE) && srt__watch_window_write(IN_MOVED_FROM),
	   "a removal or a rename away counts");
	ok(srt__watch_window_write(IN_CLOSE_WRITE),
	   "a close after opening for writing counts (a write through a mapping queues no IN_MODIFY)");
	ok(srt__watch_window_write(IN_Q_OVERFLOW), "lost events count");
	ok(!srt__watch_window_write(IN_OPEN) && !srt__watch_window_write(IN_ATTRIB) &&
	   !srt__watch_window_write(0), "an open (the watcher's own read) or a mode change does not");
}

/* A file made during the run and renamed over a protected name: written
 * by someone besides its maker when more than one open was counted by its
 * name, or its inode watch saw an open its maker's does not explain. */
static void test_written_by_other(void)
{
	ok(!srt__watch_written_by_other(1, 0, 0), "the host tool's own create and open: not written");
	ok(!srt__watch_written_by_other(1, 1, 1),
	   "its own open seen by the inode watch too (it came after the watch): not written");
	ok(!srt__watch_written_by_other(0, 0, 1), "no open counted at all: not written");
	ok(srt__watch_written_by_other(2, 0, 0), "a second open by its name: written");
	ok(srt__watch_written_by_other(1, 1, 0),
	   "an open by another name (a hard link) after the watch: written");
	ok(srt__watch_written_by_other(1, 2, 1), "its own open and another on the inode watch: written");
}

/* Which names arriving during the run the watcher handles as protected:
 * every file and directory name of the table, "dir/name" entries only in
 * a directory called dir, never a released one. */
static void test_protected_entries(void)
{
	const char *rel[] = { ".envrc", ".claude/settings.local.json", NULL };
	const struct srt__protected *e;

	e = srt__watch_protected_entry("sub", ".mcp.json", NULL);
	ok(e && !strcmp(e->name, ".mcp.json") && e->kind == SRT__PROT_FILE, ".mcp.json is a protected file");
	ok(srt__watch_protected_entry("sub", ".ENVRC", NULL) != NULL, ".envrc in any case");
	ok(srt__watch_protected_entry("sub", ".envrc", rel) == NULL, "a released .envrc is not");
	e = srt__watch_protected_entry("sub", ".husky", NULL);
	ok(e && e->kind == SRT__PROT_DIR, ".husky is a protected directory");
	e = srt__watch_protected_entry(".claude", "settings.json", rel);
	ok(e && !strcmp(e->name, ".claude/settings.json"), ".claude/settings.json inside .claude");
	ok(srt__watch_protected_entry("sub", "settings.json", NULL) == NULL,
	   "settings.json elsewhere is not");
	ok(srt__watch_protected_entry(".claude", "settings.local.json", rel) == NULL,
	   "a released .claude/settings.local.json is not");
	ok(srt__watch_protected_entry("sub", "config", NULL) == NULL &&
	   srt__watch_protected_entry(".git", "config", NULL) == NULL,
	   "a repository's config is the repository guard's");
	ok(srt__watch_protected_entry("sub", "Makefile", NULL) == NULL, "other names are not");
	ok(!srt__watch_claude_released(NULL) && srt__watch_claude_released(rel),
	   "a released name inside .claude is seen");
}

static void test_opts(void)
{
	char *argv[] = { "srt-linux-init", "--watch-deny", "/a/.env", "--watch-keep", "/a/.git/config",
			 "--watch-glob", "/a/s/*.pem", "--watch-tree", "/a", "--watch-depth", "2",
			 "--watch-release", ".envrc", "--", "true", NULL };
	char *bad_depth[] = { "srt-linux-init", "--watch-depth", "0", "--", "true", NULL };
	char *relative[] = { "srt-linux-init", "--watch-keep", "a/.bashrc", "--", "true", NULL };
	char *unknown[] = { "srt-linux-init", "--watch-all", "/a", "--", "true", NULL };
	struct srt__init_opts o;

	ok(srt__init_parse_opts(15, argv, &o) == 0, "the watcher's options parse");
	ok(o.n_watch_deny == 1 && !strcmp(o.watch_deny[0], "/a/.env") && o.n_watch_keep == 1 &&
	   o.n_watch_glob == 1 && o.n_watch_tree == 1 && o.watch_depth == 2 &&
	   o.n_watch_release == 1 && !strcmp(o.watch_release[0], ".envrc"), "each where it belongs");
	ok(srt__watch_wanted(&o), "and they ask for the watcher");
	/* the helper keeps its options for its whole life; the test frees them */
	free(o.watch_deny);
	free(o.watch_keep);
	free(o.watch_glob);
	free(o.watch_tree);
	free(o.watch_release);
	memset(&o, 0, sizeof(o));
	ok(!srt__watch_wanted(&o), "no option, no watcher");
	ok(srt__init_parse_opts(5, bad_depth, &o) != 0, "--watch-depth 0 is refused");
	ok(srt__init_parse_opts(5, relative, &o) != 0, "a relative path is refused");
	ok(srt__init_parse_opts(5, unknown, &o) != 0, "an unknown --watch- option is refused");
}

/* What the plan hands the watcher: every denied file, every read-only file
 * in a writable directory, the roots and depth of the mandatory scan. */
static void test_plan_lists(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	struct srt_diag d;
	char cmd[PATH_MAX + 32];

	snprintf(T, sizeof(T), "/tmp/srt-test-watch.XXXXXX");
	if (!mkdtemp(T)) {
		ok(0, "mkdtemp");
		return;
	}
	mkdir(P("proj"), 0755);
	mkdir(P("proj/.git"), 0755);
	mkdir(P("ro"), 0755);
	put("proj/.git/config", "[core]\n");
	put("proj/.env", "SECRET\n");
	put("proj/kept", "x\n");
	put("ro/secret", "x\n");
	memset(&pol, 0, sizeof(pol));
	pol.cwd = strdup(P("proj"));
	pol.mandatory_deny_depth = 4;
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_read, P("proj/.env"), 0);
	rule(&pol.deny_read, P("ro/secret"), 0);
	rule(&pol.deny_write, P("proj/kept"), 0);
	memset(&d, 0, sizeof(d));
	ok(srt__bwrap_plan_mounts(&pol, &pl, &d) == 0, "plan: %s", d.message);
	ok(has(&pl.watch_keep, P("proj/.git/config")), ".git/config in a write root is kept covered");
	ok(has(&pl.watch_keep, P("proj/kept")), "a denyWrite file in a write root is kept covered");
	ok(has(&pl.watch_deny, P("proj/.env")), "a denied file in a write root is kept denied");
	ok(has(&pl.watch_deny, P("ro/secret")), "a denied file outside the write roots too");
	ok(!has(&pl.watch_keep, P("ro/secret")) && !has(&pl.watch_deny, P("proj/.git/config")),
	   "each in one list only");
	ok(has(&pl.watch_trees, P("proj")) && pl.watch_depth == 3,
	   "the working directory is watched down to depth-1 levels (%d)", pl.watch_depth);
	srt__bwrap_plan_cleanup(&pl.created);
	srt__bwrap_plan_release(&pl);
	free(pol.cwd);
	rules_free(&pol.allow_write);
	rules_free(&pol.deny_read);
	rules_free(&pol.deny_write);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", T);
}

/* The probe the watcher makes after a cover: a writer still holding the
 * file open is seen, and once it is gone the file counts as free. */
static void test_open_for_write(void)
{
	int r, wfd, rc;
	void *map;

	snprintf(T, sizeof(T), "/tmp/srt-test-watch.XXXXXX");
	if (!mkdtemp(T)) {
		ok(0, "mkdtemp");
		return;
	}
	put("lease", "x");
	r = open(P("lease"), O_RDONLY | O_CLOEXEC);
	ok(r >= 0 && srt__watch_open_for_write(r) == 0, "nobody writing: free");
	wfd = open(P("lease"), O_WRONLY | O_APPEND | O_CLOEXEC);
	ok(wfd >= 0 && srt__watch_open_for_write(r) == 1, "a descriptor open for writing: seen");
	close(wfd);
	ok(srt__watch_open_for_write(r) == 0, "closed again: free");
	wfd = open(P("lease"), O_RDWR | O_CLOEXEC);
	map = wfd >= 0 ? mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, wfd, 0) : MAP_FAILED;
	if (wfd >= 0)
		close(wfd);
	rc = srt__watch_open_for_write(r);
	ok(map != MAP_FAILED && rc == 1, "a writable mapping whose descriptor is closed: seen");
	if (map != MAP_FAILED)
		munmap(map, 1);
	ok(srt__watch_open_for_write(r) == 0, "unmapped: free");
	/* the probe leaves no lease behind: an open for writing does not wait */
	wfd = open(P("lease"), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ok(wfd >= 0, "no lease left behind");
	if (wfd >= 0)
		close(wfd);
	if (r >= 0)
		close(r);
	unlink(P("lease"));
	rmdir(T);
}

/* The probe against a process that keeps opening the file for writing:
 * an open that comes while the probe holds its lease breaks it, and the
 * kernel signals the holder (SIGIO, whose default action ends it). The
 * watcher was ended so, mid-run, by a command writing a replaced file in
 * a loop. Here the case's process is the prober: it must live through a
 * second of such races (without the fix, one lands within a few tenths
 * of a second on an idle machine). */
static void test_open_for_write_raced(void)
{
	int r, n = 0, busy = 0, other = 0;
	pid_t writer;
	double end;

	snprintf(T, sizeof(T), "/tmp/srt-test-watch.XXXXXX");
	if (!mkdtemp(T)) {
		ok(0, "mkdtemp");
		return;
	}
	put("raced", "x");
	r = open(P("raced"), O_RDONLY | O_CLOEXEC);
	writer = fork();
	if (writer == 0) {
		double stop = tap_now() + 10;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (tap_now() < stop) {
			int w = open(P("raced"), O_WRONLY | O_CLOEXEC);

			if (w >= 0)
				close(w);
		}
		_exit(0);
	}
	end = tap_now() + 1;
	while (r >= 0 && writer > 0 && tap_now() < end) {
		int v = srt__watch_open_for_write(r);

		n++;
		if (v == 1)
			busy++;
		else if (v != 0)
			other++;
	}
	if (writer > 0) {
		kill(writer, SIGKILL);
		waitpid(writer, NULL, 0);
	}
	ok(r >= 0 && writer > 0 && n > 0 && other == 0,
	   "a writer opening the file during the probes: the prober lives (%d probes, %d saw it open)", n, busy);
	if (r >= 0)
		close(r);
	unlink(P("raced"));
	rmdir(T);
}

int main(void)
{
	TAP_RUN(test_protected_dirs);
	TAP_RUN(test_window_write);
	TAP_RUN(test_written_by_other);
	TAP_RUN(test_protected_entries);
	TAP_RUN(test_opts);
	TAP_RUN(test_plan_lists);
	TAP_RUN(test_open_for_write);
	TAP_RUN(test_open_for_write_raced);
	return tap_done();
}
