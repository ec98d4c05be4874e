/* Unit tests: the linux-bwrap mount plan (mounts.c, mandatory.c, glob.c).
 *
 * Each case builds a policy by hand over a fresh temporary tree, checks the
 * words, and, where bwrap can run here, runs a command under exactly those
 * mounts (in a child process) and checks the host afterwards. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "backends/linux-common/glob.h"
#include "backends/linux-common/mandatory.h"
#include "backends/linux-bwrap/mount-resolve.h"
#include "backends/linux-bwrap/mounts.h"
#include "tap.h"

static char T[PATH_MAX]; /* the current case's temporary tree */
static int have_bwrap;

static void skip_n(int n)
{
	while (n-- > 0)
		ok(1, "# SKIP bwrap cannot run here");
}

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 8;
	if (!rel || !*rel)
		snprintf(buf[i], sizeof(buf[i]), "%s", T);
	else
		snprintf(buf[i], sizeof(buf[i]), "%s/%.60s", T, rel);
	return buf[i];
}

static void mkdirs(const char *rel)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", P(rel));
	if (system(cmd) != 0)
		abort();
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(P(rel), "w");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static int exists(const char *rel)
{
	struct stat st;

	return lstat(P(rel), &st) == 0;
}

static char *slurp(const char *rel)
{
	static char buf[4096];
	FILE *f = fopen(P(rel), "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void fresh_tree(void)
{
	char tmpl[] = "/tmp/srt-mounts.XXXXXX";

	if (!mkdtemp(tmpl))
		abort();
	chmod(tmpl, 0755);
	snprintf(T, sizeof(T), "%s", tmpl);
}

static void drop_tree(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", T);
}

static void rule(struct srt_rules *r, const char *path, unsigned flags)
{
	char origin[64];

	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	snprintf(origin, sizeof(origin), "test[%zu]", r->n);
	r->v[r->n].path = strdup(path);
	r->v[r->n].flags = flags;
	r->v[r->n].origin = strdup(origin);
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
	r->v = NULL;
	r->n = 0;
}

static void pol_init(struct srt_policy *pol)
{
	memset(pol, 0, sizeof(*pol));
	pol->cwd = strdup(P("proj"));
	pol->mandatory_deny_depth = 3;
}

static void pol_free(struct srt_policy *pol)
{
	free(pol->cwd);
	rules_free(&pol->deny_read);
	rules_free(&pol->allow_read);
	rules_free(&pol->allow_write);
	rules_free(&pol->deny_write);
}

/* Index of the word triple (a, b, c) in the plan, or -1. */
static long find3(const struct srt__mount_plan *pl, const char *a, const char *b, const char *c)
{
	size_t i;

	for (i = 0; i + 2 < pl->words.n || (i + 1 < pl->words.n && !c); i++)
		if (strcmp(pl->words.v[i], a) == 0 && strcmp(pl->words.v[i + 1], b) == 0 &&
		    (!c || strcmp(pl->words.v[i + 2], c) == 0))
			return (long)i;
	return -1;
}

static long find_path(const struct srt__mount_plan *pl, const char *opt, const char *path)
{
	return find3(pl, opt, path, strcmp(opt, "--tmpfs") && strcmp(opt, "--remount-ro") &&
				      strcmp(opt, "--dir") ? path : NULL);
}

static int has_note(const struct srt__mount_plan *pl, const char *needle)
{
	size_t i;

	for (i = 0; i < pl->notes.n; i++)
		if (contains(pl->notes.v[i], needle))
			return 1;
	return 0;
}

static void dump(const struct srt__mount_plan *pl)
{
	size_t i;

	printf("#");
	for (i = 0; i < pl->words.n; i++)
		printf(" %s", pl->words.v[i]);
	printf("\n");
}

/* Run sh -c cmd under the plan's mounts; returns the exit status, 125 when
 * bwrap could not run. */
static int run_in(const struct srt__mount_plan *pl, const char *cmd)
{
	char **argv;
	size_t i, n = 0;
	pid_t pid;
	int st;

	argv = calloc(pl->words.n + 20, sizeof(*argv));
	argv[n++] = "bwrap";
	for (i = 0; i < pl->words.n; i++)
		argv[n++] = pl->words.v[i];
	argv[n++] = "--dev";
	argv[n++] = "/dev";
	argv[n++] = "--proc";
	argv[n++] = "/proc";
	argv[n++] = "--unshare-user";
	argv[n++] = "--unshare-pid";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--chdir";
	argv[n++] = (char *)P("proj");
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0 && !getenv("TEST_VERBOSE")) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		alarm(20);
		execvp("bwrap", argv);
		_exit(125);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Undo a plan: the placeholders it created, its memory, and the policy. */
static void plan_done(struct srt__mount_plan *pl, struct srt_policy *pol)
{
	srt__bwrap_plan_cleanup(&pl->created);
	srt__bwrap_plan_release(pl);
	pol_free(pol);
}

static int plan_ok(const struct srt_policy *pol, struct srt__mount_plan *pl)
{
	struct srt_diag d;
	int rc;

	memset(&d, 0, sizeof(d));
	rc = srt__bwrap_plan_mounts(pol, pl, &d);
	if (rc)
		printf("# plan failed: %d %s\n", rc, d.message);
	return rc == 0;
}

static void test_basic_writes(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj");
	mkdirs("outside");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.allow_write, P("nonexistent"), 0);
	rule(&pol.allow_write, "/dev/shm", 0);
	ok(plan_ok(&pol, &pl), "plan for allowWrite [proj]");
	ok(find3(&pl, "--ro-bind", "/", "/") == 0, "starts with --ro-bind / /");
	ok(find_path(&pl, "--bind", P("proj")) > 0, "allowWrite root bound read-write");
	ok(find_path(&pl, "--bind", P("nonexistent")) < 0, "nonexistent allowWrite skipped");
	ok(find_path(&pl, "--bind", "/dev/shm") < 0, "/dev entries skipped");
	if (have_bwrap) {
		int rc = run_in(&pl, "echo in > inside.txt && ! echo out > ../outside/x.txt");

		ok(rc == 0, "write inside succeeds, outside fails (rc %d)", rc);
		ok(strcmp(slurp("proj/inside.txt"), "in\n") == 0, "write inside landed on the host");
		ok(!exists("outside/x.txt"), "nothing written outside on the host");
	} else {
		skip_n(3);
	}
	plan_done(&pl, &pol);
	drop_tree();
}

static void test_denied_dir_and_file(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	long t, r;

	fresh_tree();
	mkdirs("proj/secrets");
	put("proj/secrets/key", "SECRET\n");
	put("proj/.env", "TOKEN\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_read, P("proj/secrets"), 0);
	rule(&pol.deny_read, P("proj/.env"), 0);
	ok(plan_ok(&pol, &pl), "plan: denyRead dir and file inside a write root");
	t = find_path(&pl, "--tmpfs", P("proj/secrets"));
	r = find_path(&pl, "--remount-ro", P("proj/secrets"));
	ok(t > find_path(&pl, "--bind", P("proj")) && r > t,
	   "denied dir: tmpfs after the write bind, then remount-ro");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("proj/.env")) > 0, "denied file masked");
	if (have_bwrap) {
		ok(run_in(&pl, "cat secrets/key") != 0, "denied dir: read fails");
		ok(run_in(&pl, "echo x > secrets/new") != 0, "denied dir: write fails (not a writable tmpfs)");
		ok(run_in(&pl, "cat .env") != 0, "denied file: read fails");
		ok(run_in(&pl, "echo x > .env") != 0, "denied file: write fails");
		ok(!exists("proj/secrets/new") && strcmp(slurp("proj/.env"), "TOKEN\n") == 0,
		   "host unchanged");
	} else {
		skip_n(5);
	}
	plan_done(&pl, &pol);
	drop_tree();
}

/* Rules listed in two orders must give the same words (most specific last). */
static void test_overlap_order(void)
{
	struct srt_policy a, b;
	struct srt__mount_plan pa, pb;
	size_t i;
	int same;

	fresh_tree();
	mkdirs("proj/a/b/c/d");
	put("proj/a/b/c/d/f", "x\n");
	put("proj/a/b/hidden", "H\n");
	put("proj/a/b/c/open", "O\n");
	pol_init(&a);
	pol_init(&b);
	rule(&a.allow_write, P("proj/a"), 0);
	rule(&a.deny_read, P("proj/a/b"), 0);
	rule(&a.allow_read, P("proj/a/b/c"), 0);
	rule(&a.deny_write, P("proj/a/b/c/d"), 0);
	rule(&b.deny_write, P("proj/a/b/c/d"), 0);
	rule(&b.allow_read, P("proj/a/b/c"), 0);
	rule(&b.deny_read, P("proj/a/b"), 0);
	rule(&b.allow_write, P("proj/a"), 0);
	ok(plan_ok(&a, &pa), "plan for one order");
	srt__bwrap_plan_cleanup(&pa.created);
	ok(plan_ok(&b, &pb), "plan for the reverse order");
	same = pa.words.n == pb.words.n;
	for (i = 0; same && i < pa.words.n; i++)
		same = strcmp(pa.words.v[i], pb.words.v[i]) == 0;
	ok(same, "same words whatever the order of the rules");
	if (!same) {
		dump(&pa);
		dump(&pb);
	}
	ok(find_path(&pa, "--bind", P("proj/a")) < find_path(&pa, "--tmpfs", P("proj/a/b")) &&
	   find_path(&pa, "--tmpfs", P("proj/a/b")) < find_path(&pa, "--bind", P("proj/a/b/c")) &&
	   find_path(&pa, "--bind", P("proj/a/b/c")) < find_path(&pa, "--ro-bind", P("proj/a/b/c/d")),
	   "deeper rules come after shallower ones");
	if (have_bwrap) {
		ok(run_in(&pb, "cat a/b/hidden") != 0, "denyRead region hidden");
		ok(run_in(&pb, "cat a/b/c/open && echo w > a/b/c/new") == 0,
		   "allowRead re-opens inside it (writable: inside the allowWrite root)");
		ok(run_in(&pb, "echo w > a/b/c/d/f") != 0, "denyWrite below the re-open still holds");
		ok(run_in(&pb, "echo w > a/b/new") != 0, "denied region not writable");
		ok(strcmp(slurp("proj/a/b/c/new"), "w\n") == 0 && strcmp(slurp("proj/a/b/c/d/f"), "x\n") == 0 &&
		   !exists("proj/a/b/new"), "host state as the rules say");
	} else {
		skip_n(5);
	}
	srt__bwrap_plan_cleanup(&pb.created);
	srt__bwrap_plan_release(&pa);
	srt__bwrap_plan_release(&pb);
	pol_free(&a);
	pol_free(&b);
	drop_tree();
}

/* a-e/srt#193: a single-file deny inside an allowRead directory. */
static void test_file_deny_in_allowread(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj/sub");
	put("proj/secret.txt", "S\n");
	pol_init(&pol);
	rule(&pol.deny_read, P("proj"), 0);
	rule(&pol.allow_read, P("proj"), 0);
	rule(&pol.deny_read, P("proj/secret.txt"), 0);
	ok(plan_ok(&pol, &pl), "plan: denyRead file inside allowRead dir");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("proj/secret.txt")) > 0, "file masked");
	if (have_bwrap)
		ok(run_in(&pl, "cat secret.txt || cat sub/../secret.txt") != 0, "both spellings blocked");
	else
		ok(1, "# SKIP bwrap cannot run here");
	srt__bwrap_plan_release(&pl);
	pol_free(&pol);
	drop_tree();
}

static void test_placeholders(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	size_t i;
	int found_file = 0, found_dir = 0;

	fresh_tree();
	mkdirs("proj");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_read, P("proj/credentials.json"), 0);
	rule(&pol.deny_write, P("proj/gen/x/a"), 0);
	rule(&pol.deny_write, P("proj/gen/x/b"), 0);
	rule(&pol.deny_write, P("outside/never"), 0);
	ok(plan_ok(&pol, &pl), "plan with denies on missing paths");
	for (i = 0; i < pl.created.n; i++) {
		if (strcmp(pl.created.v[i], P("proj/credentials.json")) == 0)
			found_file = 1;
		if (strcmp(pl.created.v[i], P("proj/gen")) == 0)
			found_dir = 1;
	}
	ok(found_file && exists("proj/credentials.json"), "file placeholder created and recorded");
	ok(found_dir && exists("proj/gen") && !exists("proj/gen/x"),
	   "one directory placeholder at the first missing component");
	ok(!exists("outside/never") && !exists("outside"), "no placeholder where nothing is writable");
	if (have_bwrap) {
		ok(run_in(&pl, "echo hi > credentials.json") != 0, "create of the denied path fails");
		ok(run_in(&pl, "cat credentials.json") != 0, "read of it fails");
		ok(run_in(&pl, "mkdir -p gen/x && echo x > gen/x/a") != 0, "deeper deny holds");
	} else {
		skip_n(3);
	}
	srt__bwrap_plan_cleanup(&pl.created);
	ok(!exists("proj/credentials.json") && !exists("proj/gen"), "cleanup removes the placeholders");
	srt__bwrap_plan_cleanup(&pl.created);
	ok(1, "cleanup is safe to call twice");
	/* a placeholder that got content is kept */
	put("proj/credentials.json", "kept\n");
	srt__bwrap_plan_cleanup(&pl.created);
	ok(exists("proj/credentials.json"), "cleanup leaves a non-empty file alone");
	srt__bwrap_plan_release(&pl);
	pol_free(&pol);
	drop_tree();
}

struct found {
	char list[64][PATH_MAX];
	int n;
};

static int collect(void *ctx, const char *path, const char *what)
{
	struct found *f = ctx;

	(void)what;
	if (f->n < 64)
		snprintf(f->list[f->n++], PATH_MAX, "%s", path);
	return 0;
}

static int in_found(const struct found *f, const char *path)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->list[i], path) == 0)
			return 1;
	return 0;
}

static void test_mandatory_walker(void)
{
	struct srt__mandatory_opts o = { .depth = 3 };
	struct found f;
	size_t budget = 100000;
	int trunc = 0;

	fresh_tree();
	mkdirs("r/a/b/c");
	mkdirs("r/node_modules/x");
	mkdirs("r/a/.vscode");
	mkdirs("r/a/b/.vscode");
	mkdirs("r/a/.git");
	mkdirs("r/a/.claude/commands");
	put("r/.bashrc", "");
	put("r/a/b/.bashrc", "");
	put("r/a/b/c/.bashrc", "");
	put("r/node_modules/.bashrc", "");
	put("r/node_modules/x/.zshrc", "");
	put("r/a/.MCP.json", "");
	if (symlink("/etc", P("r/a/link")) != 0)
		abort();
	memset(&f, 0, sizeof(f));
	ok(srt__mandatory_scan(P("r"), &o, &budget, &trunc, collect, &f) == 0 && !trunc,
	   "walker runs");
	ok(in_found(&f, P("r/.bashrc")) && in_found(&f, P("r/a/b/.bashrc")),
	   "files found with their directory at depth <= 2");
	ok(!in_found(&f, P("r/a/b/c/.bashrc")), "file at directory depth 3 not found (depth rule)");
	ok(!in_found(&f, P("r/node_modules/.bashrc")) && !in_found(&f, P("r/node_modules/x/.zshrc")),
	   "node_modules skipped");
	ok(in_found(&f, P("r/a/.vscode")) && !in_found(&f, P("r/a/b/.vscode")),
	   "dangerous dir one level shallower than files");
	ok(in_found(&f, P("r/a/.git/hooks")) && in_found(&f, P("r/a/.git/config")),
	   "nested repo: hooks and config");
	/* Claude Code reads these from any .claude directory it runs in:
	 * held even absent in every one the walk finds */
	ok(in_found(&f, P("r/a/.claude/commands")) && in_found(&f, P("r/a/.claude/agents")) &&
	   in_found(&f, P("r/a/.claude/settings.json")) && in_found(&f, P("r/a/.claude/hooks")),
	   ".claude/commands found, the absent .claude names reported too");
	ok(in_found(&f, P("r/a/.MCP.json")), "names match case-insensitively");
	o.root_names = 1;
	o.allow_git_config = 1;
	memset(&f, 0, sizeof(f));
	srt__mandatory_scan(P("r/a"), &o, &budget, &trunc, collect, &f);
	ok(in_found(&f, P("r/a/.gitconfig")) && in_found(&f, P("r/a/.claude/agents")) &&
	   in_found(&f, P("r/a/.idea")), "root names reported even when absent");
	ok(in_found(&f, P("r/a/.git/hooks")) && !in_found(&f, P("r/a/.git/config")),
	   "allowGitConfig keeps hooks, drops config");
	budget = 3;
	trunc = 0;
	memset(&f, 0, sizeof(f));
	o.root_names = 0;
	srt__mandatory_scan(P("r"), &o, &budget, &trunc, collect, &f);
	ok(trunc, "entry budget stops the walk and says so");
	drop_tree();
}

/* The memo of one run's plans: a second scan of the same root with the
 * same options replays the first (the file deleted in between is still
 * reported, with the same share of the budget taken); other options, a
 * budget too small for the recorded walk, and any scan after the end walk
 * the tree again. */
/* Inside .git: every submodule's git directory (names with slashes,
 * nested submodules) gets its hooks and config protected, an existing
 * commondir (the repository's own, a worktree's, a submodule's) is
 * protected, an absent one is not (an empty placeholder breaks git: the
 * repository guard handles a new one). */
static void test_mandatory_gitdirs(void)
{
	struct srt__mandatory_opts o = { .depth = 3 };
	struct found f;
	size_t budget = 100000;
	int trunc = 0;

	fresh_tree();
	mkdirs("g/.git/hooks");
	put("g/.git/config", "");
	mkdirs("g/.git/modules/sub/hooks");
	put("g/.git/modules/sub/HEAD", "");
	put("g/.git/modules/sub/config", "");
	mkdirs("g/.git/modules/lib/deep/modules/inner");
	put("g/.git/modules/lib/deep/HEAD", "");
	put("g/.git/modules/lib/deep/config", "");
	put("g/.git/modules/lib/deep/commondir", "");
	put("g/.git/modules/lib/deep/modules/inner/HEAD", "");
	mkdirs("g/.git/worktrees/wt");
	put("g/.git/worktrees/wt/HEAD", "");
	put("g/.git/worktrees/wt/commondir", "");
	mkdirs("g/a/.git/modules/s2");
	put("g/a/.git/modules/s2/HEAD", "");
	put("g/a/.git/commondir", "");
	memset(&f, 0, sizeof(f));
	ok(srt__mandatory_scan(P("g"), &o, &budget, &trunc, collect, &f) == 0 && !trunc,
	   "gitdirs: the walker runs");
	ok(in_found(&f, P("g/.git/modules/sub/hooks")) && in_found(&f, P("g/.git/modules/sub/config")),
	   "gitdirs: a submodule's hooks and config");
	ok(in_found(&f, P("g/.git/modules/lib/deep/hooks")) &&
	   in_found(&f, P("g/.git/modules/lib/deep/config")) &&
	   in_found(&f, P("g/.git/modules/lib/deep/commondir")),
	   "gitdirs: a submodule named with a slash, its commondir too");
	ok(in_found(&f, P("g/.git/modules/lib/deep/modules/inner/hooks")) &&
	   !in_found(&f, P("g/.git/modules/lib/deep/modules/inner/config")),
	   "gitdirs: a nested submodule's hooks; its absent config is not reported");
	ok(!in_found(&f, P("g/.git/modules/lib/hooks")), "gitdirs: a name step without HEAD is not a git dir");
	ok(in_found(&f, P("g/.git/worktrees/wt/commondir")) && !in_found(&f, P("g/.git/worktrees/wt/hooks")),
	   "gitdirs: a worktree's commondir only");
	ok(!in_found(&f, P("g/.git/commondir")), "gitdirs: an absent commondir gets no placeholder");
	ok(in_found(&f, P("g/a/.git/commondir")) && in_found(&f, P("g/a/.git/modules/s2/hooks")),
	   "gitdirs: a nested repository's commondir and submodules");
	drop_tree();

	/* a git directory named by a .git file, a bare repository, and
	 * config.worktree */
	fresh_tree();
	mkdirs("h/proj");
	mkdirs("h/store/proj.git/hooks");
	put("h/store/proj.git/HEAD", "");
	put("h/store/proj.git/config", "");
	put("h/store/proj.git/config.worktree", "");
	put("h/proj/.git", "gitdir: ../store/proj.git\n");
	mkdirs("h/bare.git/objects");
	mkdirs("h/bare.git/refs");
	mkdirs("h/bare.git/hooks");
	put("h/bare.git/HEAD", "ref: refs/heads/main\n");
	put("h/bare.git/config", "");
	mkdirs("h/wtc/.git/worktrees/w1");
	put("h/wtc/.git/config.worktree", "");
	put("h/wtc/.git/worktrees/w1/HEAD", "");
	put("h/wtc/.git/worktrees/w1/config.worktree", "");
	memset(&f, 0, sizeof(f));
	budget = 100000;
	trunc = 0;
	ok(srt__mandatory_scan(P("h"), &o, &budget, &trunc, collect, &f) == 0 && !trunc,
	   "gitdirs: the second walker runs");
	ok(in_found(&f, P("h/store/proj.git/hooks")) && in_found(&f, P("h/store/proj.git/config")) &&
	   in_found(&f, P("h/store/proj.git/config.worktree")),
	   "gitdirs: the git directory a .git file names: hooks, config, config.worktree");
	ok(in_found(&f, P("h/bare.git/hooks")) && in_found(&f, P("h/bare.git/config")),
	   "gitdirs: a bare repository's hooks and config");
	ok(in_found(&f, P("h/wtc/.git/config.worktree")) &&
	   in_found(&f, P("h/wtc/.git/worktrees/w1/config.worktree")),
	   "gitdirs: config.worktree of the repository and of a linked worktree");
	drop_tree();
}

static void test_mandatory_memo(void)
{
	struct srt__mandatory_opts o = { .depth = 3 };
	struct found f;
	size_t budget = 100000, b1, b2;
	int trunc = 0;

	fresh_tree();
	mkdirs("m/a/b");
	put("m/a/.bashrc", "");
	put("m/a/b/x", "");
	srt__mandatory_memo_begin();
	memset(&f, 0, sizeof(f));
	ok(srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f) == 0 && !trunc &&
	   in_found(&f, P("m/a/.bashrc")), "memo: the first scan walks");
	b1 = 100000 - budget;
	unlink(P("m/a/.bashrc"));
	memset(&f, 0, sizeof(f));
	budget = 100000;
	srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
	b2 = 100000 - budget;
	ok(in_found(&f, P("m/a/.bashrc")) && b1 == b2 && b1 > 0,
	   "memo: the same scan again is replayed, same budget taken (%zu, %zu)", b1, b2);
	o.root_names = 1;
	memset(&f, 0, sizeof(f));
	srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
	ok(!in_found(&f, P("m/a/.bashrc")) && in_found(&f, P("m/.bashrc")),
	   "memo: other options walk again");
	o.root_names = 0;
	memset(&f, 0, sizeof(f));
	budget = b1 - 1;
	trunc = 0;
	srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
	ok(!in_found(&f, P("m/a/.bashrc")), "memo: a budget below the recorded walk walks again");
	{
		/* the Landlock layer plans with a copy of the policy and its
		 * own $HOME buffer, gone before the mount plan asks: the same
		 * rule lists and the same $HOME text are the same options */
		struct srt_policy pol, copy, other;
		struct srt_rule dr = { 0 };
		char home1[64], home2[64];

		memset(&pol, 0, sizeof(pol));
		dr.path = (char *)"/nonexistent-denied";
		pol.deny_read.v = &dr;
		pol.deny_read.n = 1;
		copy = pol;
		other = pol;
		other.deny_read.n = 0;
		snprintf(home1, sizeof(home1), "/home/memo-test");
		snprintf(home2, sizeof(home2), "/home/memo-test");
		put("m/a/.bashrc", "");
		o.pol = &copy;
		o.home = home1;
		memset(&f, 0, sizeof(f));
		budget = 100000;
		srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
		ok(in_found(&f, P("m/a/.bashrc")), "memo: a scan with a policy walks");
		unlink(P("m/a/.bashrc"));
		memset(&copy, 0x5a, sizeof(copy));
		memset(home1, 'x', sizeof(home1) - 1);
		o.pol = &pol;
		o.home = home2;
		memset(&f, 0, sizeof(f));
		budget = 100000;
		srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
		ok(in_found(&f, P("m/a/.bashrc")),
		   "memo: another copy of the same policy and $HOME, the first one's memory gone: replayed");
		o.pol = &other;
		memset(&f, 0, sizeof(f));
		budget = 100000;
		srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
		ok(!in_found(&f, P("m/a/.bashrc")), "memo: other denyRead rules walk again");
		o.pol = &pol;
		snprintf(home2, sizeof(home2), "/home/other");
		memset(&f, 0, sizeof(f));
		budget = 100000;
		srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
		ok(!in_found(&f, P("m/a/.bashrc")), "memo: another $HOME walks again");
		o.pol = NULL;
		o.home = NULL;
	}
	srt__mandatory_memo_end();
	memset(&f, 0, sizeof(f));
	budget = 100000;
	srt__mandatory_scan(P("m"), &o, &budget, &trunc, collect, &f);
	ok(!in_found(&f, P("m/a/.bashrc")), "memo: after the end every scan walks");
	drop_tree();
}

static void test_mandatory_in_roots(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj/sub/.git/hooks");
	mkdirs("home/work");
	put("home/.bashrc", "orig\n");
	put("proj/.gitconfig", "g\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.allow_write, P("home"), 0);
	ok(plan_ok(&pol, &pl), "plan with two write roots");
	ok(find_path(&pl, "--ro-bind", P("home/.bashrc")) > 0, "mandatory deny in the second write root");
	ok(find_path(&pl, "--ro-bind", P("proj/.gitconfig")) > 0, "mandatory deny in cwd");
	ok(find_path(&pl, "--ro-bind", P("proj/sub/.git/hooks")) > 0, "nested .git/hooks at depth 1");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("proj/.bashrc")) > 0 ||
	   find3(&pl, "--ro-bind", "/dev/null", P("home/.zshrc")) > 0, "absent rc files get placeholders");
	if (have_bwrap) {
		ok(run_in(&pl, "echo x >> ../home/.bashrc") != 0, "~/.bashrc-style write fails");
		ok(run_in(&pl, "echo x > sub/.git/hooks/pre-commit") != 0, "nested hook write fails");
		ok(run_in(&pl, "echo x > ../home/.zshrc") != 0, "creating an absent rc file fails");
		ok(strcmp(slurp("home/.bashrc"), "orig\n") == 0 && !exists("proj/sub/.git/hooks/pre-commit"),
		   "host unchanged");
	} else {
		skip_n(4);
	}
	srt__bwrap_plan_cleanup(&pl.created);
	ok(!exists("home/.zshrc") && !exists("proj/.bashrc") && !exists("proj/.claude"),
	   "placeholders removed");
	srt__bwrap_plan_release(&pl);
	pol_free(&pol);
	drop_tree();
}

/* A write root with more entries than the scan may visit: an earlier run
 * could have made them, to push a repository past the bound. The plan
 * fails, naming the setting, and leaves nothing created; with the bound
 * above the tree's size the same plan protects the deep hooks. */
static void test_mandatory_bound(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	struct srt_diag d;
	char rel[64];
	int rc;

	fresh_tree();
	for (int i = 0; i < 60; i++) {
		snprintf(rel, sizeof(rel), "proj/d%02d/e", i);
		mkdirs(rel);
	}
	mkdirs("proj/zz/.git/hooks");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	srt__bwrap_walk_budget = 50;
	memset(&d, 0, sizeof(d));
	rc = srt__bwrap_plan_mounts(&pol, &pl, &d);
	ok(rc != 0 && !strcmp(d.key, "mandatoryDenySearchDepth") && contains(d.message, "stopped after 50 entries"),
	   "a scan cut short by its bound fails the plan (%s)", d.message);
	ok(!exists("proj/.bashrc") && !exists("proj/.claude"), "the failed plan left nothing created");
	srt__bwrap_walk_budget = 200000;
	ok(plan_ok(&pol, &pl), "control: with the default bound the plan succeeds");
	ok(find_path(&pl, "--ro-bind", P("proj/zz/.git/hooks")) > 0, "and protects the hooks past the small bound");
	plan_done(&pl, &pol);
	drop_tree();
}

static void test_pins(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	long pin, wb;

	fresh_tree();
	mkdirs("proj/d1/d2");
	put("proj/d1/d2/f", "keep\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_write, P("proj/d1/d2/f"), 0);
	ok(plan_ok(&pol, &pl), "plan: denyWrite deep inside a write root");
	pin = find_path(&pl, "--ro-bind", P("proj/d1"));
	wb = find_path(&pl, "--bind", P("proj"));
	ok(pin > 0 && pin < wb && find_path(&pl, "--ro-bind", P("proj/d1/d2")) < wb,
	   "ancestors pinned before the write bind");
	if (have_bwrap) {
		ok(run_in(&pl, "mv d1 moved") != 0, "rename of an ancestor fails");
		ok(run_in(&pl, "mv d1/d2/f g") != 0, "rename of the file fails");
		ok(run_in(&pl, "echo new > d1/other && cat d1/d2/f") == 0, "siblings stay writable");
		ok(exists("proj/d1/d2/f") && !exists("proj/moved"), "host tree unchanged");
	} else {
		skip_n(4);
	}
	plan_done(&pl, &pol);
	drop_tree();
}

static void test_symlinks(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj");
	mkdirs("real");
	mkdirs("outside");
	put("real/secret", "S\n");
	put("proj/target.txt", "T\n");
	if (symlink(P("real/secret"), P("proj/link")) != 0 ||
	    symlink(P("proj/target.txt"), P("proj/cfg")) != 0 ||
	    symlink(P("outside"), P("proj/out")) != 0)
		abort();
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.allow_write, P("proj/out"), 0);
	rule(&pol.deny_read, P("proj/link"), 0);
	rule(&pol.deny_write, P("proj/cfg"), 0);
	ok(plan_ok(&pol, &pl), "plan with symlinked rules");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("real/secret")) > 0, "denyRead enforced at the link's target");
	ok(find_path(&pl, "--ro-bind", P("proj/target.txt")) > 0, "denyWrite enforced at the target");
	{
		int cfg = 0, lnk = 0;

		for (size_t i = 0; i + 1 < pl.links.n; i += 2) {
			cfg |= !strcmp(pl.links.v[i], P("proj/cfg")) &&
			       !strcmp(pl.links.v[i + 1], P("proj/target.txt"));
			lnk |= !strcmp(pl.links.v[i], P("proj/link")) &&
			       !strcmp(pl.links.v[i + 1], P("real/secret"));
		}
		ok(has_note(&pl, "the link is put back after the run if the command replaces it") &&
		   pl.links.n == 4 && cfg && lnk,
		   "each denied link's own name is recorded with its target, to be put back");
	}
	ok(pl.pinned_links.n == 0, "no helper to take files: no pins, the restore alone");
	{
		/* the restore, for a run without pins: a replaced link comes back
		 * and the replacement is moved aside */
		FILE *rep = tmpfile();
		char buf[256] = "";

		unlink(P("proj/cfg"));
		put("proj/cfg", "REPLACED\n");
		ok(srt__bwrap_plan_restore_links(&pl.links, rep) == 1 &&
		   readlink(P("proj/cfg"), buf, sizeof(buf) - 1) > 0 &&
		   !strcmp(buf, P("proj/target.txt")) &&
		   !strcmp(slurp("proj/cfg.srt-quarantine"), "REPLACED\n"),
		   "after the run a replaced link is put back, the replacement moved aside");
		if (rep)
			fclose(rep);
		unlink(P("proj/cfg.srt-quarantine"));
	}
	{
		struct srt__mount_plan hp;
		struct srt_diag d;
		int cfg = 0, lnk = 0;

		memset(&d, 0, sizeof(d));
		ok(srt__bwrap_plan_mounts_ex(&pol, &hp, NULL, NULL, 1000, &d) == 0,
		   "the same rules with the helper taking files (%s)", d.message);
		for (size_t i = 0; i < hp.pinned_links.n; i++) {
			cfg |= !strcmp(hp.pinned_links.v[i], P("proj/cfg"));
			lnk |= !strcmp(hp.pinned_links.v[i], P("proj/link"));
		}
		ok(hp.pinned_links.n == 2 && cfg && lnk && hp.links.n == 4 &&
		   has_note(&hp, "and the link itself gets a read-only mount (helper)"),
		   "each denied link is also pinned by the helper, the restore kept as a second line");
		srt__bwrap_plan_cleanup(&hp.created);
		srt__bwrap_plan_release(&hp);
	}
	ok(find_path(&pl, "--bind", P("outside")) < 0,
	   "allowWrite through a link inside a write root is not followed");
	if (have_bwrap) {
		ok(run_in(&pl, "cat link") != 0 && run_in(&pl, "cat ../real/secret") != 0,
		   "denied target unreadable by either name");
		ok(run_in(&pl, "echo x > out/new") != 0, "planted link gives no write access");
		ok(run_in(&pl, "ln -s ../real/secret l2 && cat l2") != 0, "new link to the target is no way round");
		ok(!exists("outside/new") && strcmp(slurp("proj/target.txt"), "T\n") == 0, "host unchanged");
	} else {
		skip_n(4);
	}
	plan_done(&pl, &pol);
	drop_tree();
}

static void test_globs(void)
{
	struct srt__glob *g;
	struct srt_policy pol;
	struct srt__mount_plan pl;

	srt__glob_compile("/a/**/*.pem", &g);
	ok(srt__glob_match(g, "/a/k.pem") && srt__glob_match(g, "/a/b/c/k.pem") &&
	   !srt__glob_match(g, "/a/k.pub"), "** and * match as glob.h says");
	srt__glob_free(g);
	srt__glob_compile("/a/?[0-9]x[]", &g);
	ok(srt__glob_match(g, "/a/b7x[]") && !srt__glob_match(g, "/a/b/x[]"),
	   "? and [set]; an empty [] is literal");
	srt__glob_free(g);
	srt__glob_compile("/a/[z-a]", &g);
	ok(srt__glob_match(g, "/a/[z-a]"), "a backwards range is literal text");
	srt__glob_free(g);
	srt__glob_compile("/*a*a*a*a*a*a*a*a*a*a*b", &g);
	ok(!srt__glob_match(g, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	   "pathological pattern answers quickly");
	srt__glob_free(g);

	fresh_tree();
	mkdirs("proj/keys");
	put("proj/keys/a.pem", "K\n");
	put("proj/keys/a.pub", "P\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	{
		char pat[PATH_MAX];

		snprintf(pat, sizeof(pat), "%s/keys/*.pem", P("proj"));
		rule(&pol.deny_read, pat, SRT_RULE_GLOB);
	}
	ok(plan_ok(&pol, &pl), "plan with a denyRead glob");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("proj/keys/a.pem")) > 0 &&
	   find3(&pl, "--ro-bind", "/dev/null", P("proj/keys/a.pub")) < 0, "glob expanded to matches only");
	if (have_bwrap)
		ok(run_in(&pl, "cat keys/a.pem") != 0 && run_in(&pl, "cat keys/a.pub") == 0 &&
		   run_in(&pl, "mv keys keys2") != 0, "match unreadable, others readable, parent pinned");
	else
		ok(1, "# SKIP bwrap cannot run here");
	plan_done(&pl, &pol);

	/* a deny glob follows linked directories (and survives a loop) */
	mkdirs("ext");
	put("ext/x.pem", "X\n");
	if (symlink(P("ext"), P("proj/vendor")) != 0 || symlink(P("proj"), P("proj/loop")) != 0)
		abort();
	pol_init(&pol);
	{
		char pat[PATH_MAX];

		snprintf(pat, sizeof(pat), "%s/**/*.pem", P("proj"));
		rule(&pol.deny_read, pat, SRT_RULE_GLOB);
	}
	ok(plan_ok(&pol, &pl), "plan: denyRead glob over a linked directory and a loop");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("ext/x.pem")) > 0,
	   "a match behind a linked directory is masked where it really is");
	plan_done(&pl, &pol);

	/* deeper than the walk goes (64 directories): where it stops, the
	 * directory is denied whole, never passed over (review finding) */
	{
		char rel[400] = "proj/deep", pat[2 * PATH_MAX], cmd[2 * PATH_MAX];
		size_t l = strlen(rel);
		FILE *f;

		for (int i = 0; i < 70; i++, l += 2)
			memcpy(rel + l, "/d", 3);
		/* P() keeps 60 characters of a relative path: spelled out here */
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", T, rel);
		snprintf(pat, sizeof(pat), "%s/%s/x.pem", T, rel);
		if (system(cmd) != 0 || !(f = fopen(pat, "w")))
			abort();
		fputs("DEEP\n", f);
		fclose(f);
		pol_init(&pol);
		rule(&pol.allow_write, P("proj"), 0);
		snprintf(pat, sizeof(pat), "%s/deep/**/*.pem", P("proj"));
		rule(&pol.deny_read, pat, SRT_RULE_GLOB);
		ok(plan_ok(&pol, &pl), "plan: denyRead glob over a tree deeper than the walk");
		snprintf(cmd, sizeof(cmd), "cat %s/x.pem", rel + 5);
		if (have_bwrap)
			ok(run_in(&pl, cmd) != 0, "the file past the walk's depth is not readable");
		else
			ok(1, "# SKIP bwrap cannot run here");
		plan_done(&pl, &pol);
	}
	pol_init(&pol);
	rule(&pol.deny_read, "/*/x", SRT_RULE_GLOB);
	{
		struct srt_diag d;

		memset(&d, 0, sizeof(d));
		ok(srt__bwrap_plan_mounts(&pol, &pl, &d) != 0 && contains(d.message, "test[0]"),
		   "a glob at / is refused, naming the entry: %s", d.message);
	}
	pol_free(&pol);
	drop_tree();
}

static void test_file_on_the_way(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj");
	put("proj/.git", "gitdir: /elsewhere\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_write, P("proj/.git/hooks"), 0);
	ok(plan_ok(&pol, &pl), "plan: deny below a regular file");
	ok(find_path(&pl, "--ro-bind", P("proj/.git")) > 0, "the file on the way is held read-only");
	if (have_bwrap)
		ok(run_in(&pl, "rm -f .git") != 0 && run_in(&pl, "echo x > .git") != 0,
		   "it cannot be replaced");
	else
		ok(1, "# SKIP bwrap cannot run here");
	plan_done(&pl, &pol);
	drop_tree();
}

static void test_disabled(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj");
	pol_init(&pol);
	pol.fs_disabled = 1;
	ok(plan_ok(&pol, &pl) && pl.words.n == 3 && find3(&pl, "--bind", "/", "/") == 0 &&
	   pl.created.n == 0, "filesystem.disabled: --bind / / and nothing else");
	srt__bwrap_plan_release(&pl);
	pol_free(&pol);
	drop_tree();
}

/* The deepest level of the walk holds only files that count, so the walker
 * looks its few dangerous names up in each such directory instead of
 * listing it. That is what keeps a 100k-file tree cheap, and it is checked
 * here by what the walk visits (its budget: one unit per directory entry
 * listed or name looked up), which does not depend on the machine's load.
 * The time itself is a benchmark (bench/run's mandatory-deny walk). */
static void test_walker_visits(void)
{
	struct srt__mandatory_opts o = { .depth = 3, .root_names = 1 };
	struct found f;
	size_t budget = 300000, used;
	int trunc = 0, i, j;
	char rel[64];

	fresh_tree();
	/* 100 dirs x 10 subdirs x 100 files = 100k files at depth 3 */
	for (i = 0; i < 100; i++)
		for (j = 0; j < 10; j++) {
			int k;

			snprintf(rel, sizeof(rel), "r/d%d/e%d", i, j);
			mkdirs(rel);
			for (k = 0; k < 100; k++) {
				int fd;

				snprintf(rel, sizeof(rel), "r/d%d/e%d/f%d", i, j, k);
				fd = open(P(rel), O_CREAT | O_WRONLY, 0644);
				if (fd >= 0)
					close(fd);
			}
		}
	/* one dangerous name at the deepest level, found by the lookup */
	snprintf(rel, sizeof(rel), "r/d7/e3/.bashrc");
	close(open(P(rel), O_CREAT | O_WRONLY, 0644));
	memset(&f, 0, sizeof(f));
	ok(srt__mandatory_scan(P("r"), &o, &budget, &trunc, collect, &f) == 0 && !trunc,
	   "the walk of 100k files finishes within its budget");
	used = 300000 - budget;
	printf("# the walk visited %zu entries and names for 1,111 directories and 100,000 files\n", used);
	/* listing the 1,000 leaf directories alone would visit 100,000 */
	ok(used < 50000, "the walker looks names up in the leaf directories instead of listing them (%zu visits)",
	   used);
	snprintf(rel, sizeof(rel), "r/d7/e3/.bashrc");
	ok(in_found(&f, P(rel)), "a dangerous name at the deepest level is found by the lookup");
	drop_tree();
}


/* For writes a denyWrite wins even over a deeper allowWrite. */
static void test_write_deny_wins(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj/w/sub");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_write, P("proj/w"), 0);
	rule(&pol.allow_write, P("proj/w/sub"), 0);
	ok(plan_ok(&pol, &pl), "plan: allowWrite inside denyWrite");
	ok(find_path(&pl, "--bind", P("proj/w/sub")) < 0 && find_path(&pl, "--ro-bind", P("proj/w")) > 0,
	   "the deny covers the deeper allow");
	ok(has_note(&pl, "inside a denyWrite rule"), "and the plan says so");
	if (have_bwrap)
		ok(run_in(&pl, "echo x > w/sub/f") != 0 && !exists("proj/w/sub/f"), "write fails");
	else
		skip_n(1);
	plan_done(&pl, &pol);
	drop_tree();
}

/* allowWrite "/": pins must be buried under a cover of their top-level
 * directory. Only as a user who cannot write "/" (no placeholders there). */
static void test_root_writable(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	char top[PATH_MAX];
	long pin, cover;

	fresh_tree();
	mkdirs("proj/d1/d2");
	put("proj/d1/d2/f", "keep\n");
	pol_init(&pol);
	rule(&pol.allow_write, "/", 0);
	rule(&pol.deny_write, P("proj/d1/d2/f"), 0);
	ok(plan_ok(&pol, &pl) && find3(&pl, "--bind", "/", "/") == 0, "plan: allowWrite / binds / read-write");
	snprintf(top, sizeof(top), "/%.*s", (int)strcspn(T + 1, "/"), T + 1);
	pin = find_path(&pl, "--ro-bind", P("proj/d1"));
	cover = find_path(&pl, "--bind", top);
	ok(pin > 0 && cover > pin, "pins buried under a cover of %s", top);
	if (have_bwrap)
		ok(run_in(&pl, "mv d1 moved") != 0 && run_in(&pl, "echo x > d1/d2/f") != 0 &&
		   exists("proj/d1/d2/f"), "rename and write of the protected file fail");
	else
		skip_n(1);
	plan_done(&pl, &pol);
	drop_tree();
}

/* A directory this user cannot search but owns: the deny covers all of it
 * (the command could chmod it open otherwise). */
static void test_unsearchable(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;

	fresh_tree();
	mkdirs("proj/locked");
	put("proj/locked/secret", "S\n");
	chmod(P("proj/locked"), 0);
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_read, P("proj/locked/secret"), 0);
	ok(plan_ok(&pol, &pl), "plan: denyRead below an unsearchable directory of ours");
	ok(find_path(&pl, "--tmpfs", P("proj/locked")) > 0, "the whole directory is hidden");
	plan_done(&pl, &pol);
	chmod(P("proj/locked"), 0755);
	drop_tree();
}

static int has_word(const struct srt__strv *w, const char *s)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->v[i], s) == 0)
			return 1;
	return 0;
}

/* Two runs in one directory share placeholders; the first one to finish
 * must not pull them from under the other (cc#89514). */
/* The plan can leave denied and placeholder files to srt-linux-init
 * (--hide-file): bwrap's words are those of the plain plan with exactly
 * those files' /dev/null binds taken out, in the same order; never a file
 * below a hidden directory (bwrap must mount it before the directory turns
 * read-only); at most hide_max of them. */
static void test_helper_hides(void)
{
	struct srt_policy pol;
	struct srt__mount_plan a, b;
	struct srt_diag d;
	size_t i, j, k, moved = 0;
	int same = 1, under_tmpfs = 0, rc;

	fresh_tree();
	mkdirs("proj/secrets/open");
	put("proj/secrets/open/x", "X\n");
	put("proj/secrets/k", "K\n");
	put("proj/.env", "T\n");
	put("proj/key.pem", "P\n");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_read, P("proj/secrets"), 0);
	rule(&pol.allow_read, P("proj/secrets/open"), 0);
	rule(&pol.deny_read, P("proj/.env"), 0);
	rule(&pol.deny_read, P("proj/key.pem"), 0);
	rule(&pol.deny_write, P("proj/secrets/absent"), 0);
	ok(plan_ok(&pol, &a), "plain plan");
	/* the placeholders again from scratch for the second plan */
	srt__bwrap_plan_cleanup(&a.created);
	memset(&d, 0, sizeof(d));
	rc = srt__bwrap_plan_mounts_ex(&pol, &b, NULL, NULL, 1000, &d);
	ok(rc == 0 && b.hidden.n >= 3, "plan with the helper hiding files: %zu of them (%s)",
	   b.hidden.n, d.message);
	ok(rc == 0 && a.created.n == b.created.n && a.hidden.n == 0 &&
	   find3(&b, "--ro-bind", "/dev/null", P("proj/.env")) < 0,
	   "the denied file is no longer a bwrap word; the same placeholders made");
	/* walk a's words, skipping the binds b left to the helper */
	for (i = 0, j = 0; rc == 0 && i < a.words.n && same;) {
		int hidden = 0;

		if (i + 2 < a.words.n && !strcmp(a.words.v[i], "--ro-bind") &&
		    !strcmp(a.words.v[i + 1], "/dev/null"))
			for (k = 0; k < b.hidden.n; k++)
				if (!strcmp(b.hidden.v[k], a.words.v[i + 2]))
					hidden = 1;
		if (hidden) {
			moved++;
			i += 3;
			continue;
		}
		same = j < b.words.n && !strcmp(a.words.v[i], b.words.v[j]);
		i++;
		j++;
	}
	ok(rc == 0 && same && j == b.words.n && moved == b.hidden.n,
	   "the same words but for the %zu moved binds", moved);
	if (!same) {
		dump(&a);
		dump(&b);
	}
	for (i = 0; rc == 0 && i + 1 < b.words.n; i++)
		if (!strcmp(b.words.v[i], "--tmpfs"))
			for (k = 0; k < b.hidden.n; k++)
				if (!strncmp(b.hidden.v[k], b.words.v[i + 1], strlen(b.words.v[i + 1])) &&
				    b.hidden.v[k][strlen(b.words.v[i + 1])] == '/')
					under_tmpfs = 1;
	ok(rc == 0 && !under_tmpfs, "no hidden file lies below a hidden directory");
	if (rc == 0) {
		srt__bwrap_plan_cleanup(&b.created);
		srt__bwrap_plan_release(&b);
	}
	memset(&d, 0, sizeof(d));
	rc = srt__bwrap_plan_mounts_ex(&pol, &b, NULL, NULL, 2, &d);
	ok(rc == 0 && b.hidden.n == 2 && b.words.n == a.words.n - 3 * 2,
	   "hide_max 2: two files to the helper, the rest stay bwrap words");
	if (rc == 0) {
		srt__bwrap_plan_cleanup(&b.created);
		srt__bwrap_plan_release(&b);
	}
	srt__bwrap_plan_release(&a);
	pol_free(&pol);
	drop_tree();
}

static void test_concurrent_runs(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	int to_child[2], to_parent[2], st = 0;
	char b = 0;
	pid_t pid;

	fresh_tree();
	mkdirs("proj");
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_write, P("proj/credentials.json"), 0);
	rule(&pol.deny_write, P("proj/gen/x/a"), 0);
	if (pipe(to_child) || pipe(to_parent))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct srt__mount_plan cp;
		int good;

		if (!plan_ok(&pol, &cp))
			_exit(2);
		if (write(to_parent[1], "p", 1) != 1 || read(to_child[0], &b, 1) != 1)
			_exit(3);
		srt__bwrap_plan_cleanup(&cp.created);
		srt__bwrap_plan_release(&cp);
		/* the other run still holds them: they must still be there */
		good = exists("proj/credentials.json") && exists("proj/gen");
		_exit(good ? 0 : 1);
	}
	ok(read(to_parent[0], &b, 1) == 1 && exists("proj/credentials.json"),
	   "first run planned its placeholders");
	ok(plan_ok(&pol, &pl) && has_word(&pl.created, P("proj/credentials.json")) &&
	   has_word(&pl.created, P("proj/gen")), "second run shares them");
	ok(find3(&pl, "--ro-bind", "/dev/null", P("proj/credentials.json")) > 0 &&
	   find_path(&pl, "--ro-bind", P("proj/gen")) > 0, "and mounts them the same way");
	if (write(to_child[1], "g", 1) != 1)
		abort();
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the first run's cleanup leaves placeholders the second still uses");
	srt__bwrap_plan_cleanup(&pl.created);
	srt__bwrap_plan_release(&pl);
	ok(!exists("proj/credentials.json") && !exists("proj/gen") && !exists("proj/.bashrc"),
	   "the last run out removes them");
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	pol_free(&pol);
	drop_tree();
}

/* A directory on a placeholder's path swapped for a link since it was made
 * (a concurrent run's command can do that in its write root, pkg -> $HOME)
 * must not carry the removal to the user's own empty file of that name:
 * the cleanup reaches each placeholder's directory without following a
 * link (red team on eaa5a83: it unlinked home/.zshrc). */
static void test_cleanup_swapped_parent(void)
{
	struct srt__strv created = { 0 };

	fresh_tree();
	mkdirs("proj/pkg");
	mkdirs("home/.vscode");
	put("proj/pkg/.zshrc", "");
	put("home/.zshrc", "");
	if (srt__strv_push(&created, P("proj/pkg/.vscode")) || srt__strv_push(&created, P("proj/pkg/.zshrc")))
		abort();
	mkdirs("proj/pkg/.vscode");
	if (rename(P("proj/pkg"), P("proj/pkg.old")) != 0 || symlink(P("home"), P("proj/pkg")) != 0)
		abort();
	srt__bwrap_plan_cleanup(&created);
	ok(exists("home/.zshrc") && exists("home/.vscode"),
	   "cleanup through a directory swapped for a link removes nothing there");
	srt__bwrap_plan_cleanup(&created);
	unlink(P("proj/pkg"));
	if (rename(P("proj/pkg.old"), P("proj/pkg")) != 0)
		abort();
	srt__bwrap_plan_cleanup(&created);
	ok(!exists("proj/pkg/.zshrc") && !exists("proj/pkg/.vscode"),
	   "and removes the placeholders once the path leads to them again");
	srt__strv_release(&created);
	drop_tree();
}

/* Another run's placeholder file is one of a single name: a mark put on an
 * inode through a second name in a command's write root must not make the
 * user's own name a placeholder to remove (red team on eaa5a83). */
static void test_adopt_one_name_only(void)
{
	struct srt_policy pol;
	struct srt__mount_plan pl;
	int marked;

	fresh_tree();
	mkdirs("proj");
	put("proj/cred", "");
	put("proj/cred2", "");
	marked = setxattr(P("proj/cred"), "user.srt.placeholder", "1", 1, 0) == 0 &&
		 setxattr(P("proj/cred2"), "user.srt.placeholder", "1", 1, 0) == 0;
	if (!marked) {
		printf("ok %d # SKIP no user attributes on %s\n", ++tap_n, T);
		drop_tree();
		return;
	}
	if (link(P("proj/cred2"), P("proj/cred2-link")) != 0)
		abort();
	pol_init(&pol);
	rule(&pol.allow_write, P("proj"), 0);
	rule(&pol.deny_write, P("proj/cred"), 0);
	rule(&pol.deny_write, P("proj/cred2"), 0);
	ok(plan_ok(&pol, &pl) && has_word(&pl.created, P("proj/cred")) &&
		   !has_word(&pl.created, P("proj/cred2")),
	   "a marked empty file is taken over, one with a second name is not");
	srt__bwrap_plan_cleanup(&pl.created);
	srt__bwrap_plan_release(&pl);
	ok(!exists("proj/cred") && exists("proj/cred2") && exists("proj/cred2-link"),
	   "and only the one taken over is removed");
	pol_free(&pol);
	drop_tree();
}

static int probe_bwrap(void);

/* Run a case that needs a user other than root (root writes "/" and
 * searches any directory). As root: in a child that became "nobody", so
 * the case runs in every pass rather than only when the suite is run
 * unprivileged (which runs no unit test). The child prints its own TAP
 * lines, numbered on from ours, and hands back its counters by a pipe;
 * a child that dies or exits non-zero (a sanitizer report) is a failure. */

static void as_unprivileged(void (*fn)(void), int n, const char *what)
{
	int p[2], st = 0, cn = -1, cf = 1;
	char buf[64];
	ssize_t got;
	pid_t pid;

	if (geteuid() != 0) {
		fn();
		return;
	}
	if (pipe(p) != 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(p[0]);
		tap_fail = 0;
		if (chdir("/") != 0 || setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0 || geteuid() == 0) {
			while (n-- > 0)
				ok(1, "# SKIP %s: cannot become an unprivileged user", what);
		} else {
			/* a credential change clears it; LeakSanitizer reads
			 * /proc/self at exit */
			prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
			/* bwrap may run for root only (no unprivileged user
			 * namespaces): a sandbox check must then skip, not
			 * pass on bwrap's failure */
			have_bwrap = probe_bwrap();
			fn();
		}
		fflush(stdout);
		snprintf(buf, sizeof(buf), "%d %d\n", tap_n, tap_fail);
		if (write(p[1], buf, strlen(buf)) < 0)
			_exit(1);
		exit(0);
	}
	close(p[1]);
	got = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	waitpid(pid, &st, 0);
	if (got > 0) {
		buf[got] = '\0';
		if (sscanf(buf, "%d %d", &cn, &cf) != 2)
			cn = -1;
	}
	if (cn < tap_n) {
		ok(0, "%s: the unprivileged child reported nothing (status %#x)", what, st);
		return;
	}
	tap_n = cn;
	if (cf)
		tap_fail = 1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ok(0, "%s: the unprivileged child failed (status %#x)", what, st);
}

static int probe_bwrap(void)
{
	struct srt__mount_plan pl;
	int rc;

	memset(&pl, 0, sizeof(pl));
	fresh_tree();
	mkdirs("proj");
	srt__strv_push(&pl.words, "--ro-bind");
	srt__strv_push(&pl.words, "/");
	srt__strv_push(&pl.words, "/");
	rc = run_in(&pl, "true");
	srt__bwrap_plan_release(&pl);
	drop_tree();
	return rc == 0;
}

/* the cases run as an unprivileged user when this program runs as root */
static void case_root_writable(void)
{
	as_unprivileged(test_root_writable, 3, "allowWrite /");
}

static void case_unsearchable(void)
{
	as_unprivileged(test_unsearchable, 2, "unsearchable directory");
}

/* The directories one plan resolved are not looked at again within it, and
 * only those: a path missing before is looked at again, and once the plan
 * ends a directory replaced by a link is followed, never taken for the
 * directory it was. */
static void test_resolve_memo(void)
{
	struct srt__strv links = { 0 };
	char out[PATH_MAX];
	const char *tail = "/elsewhere/x";
	size_t ma = 0, ol;
	int type = -1, err;

	fresh_tree();
	mkdirs("a/d");
	mkdirs("elsewhere");
	srt__mount_resolve_memo_begin();
	err = srt__mount_resolve(P("a/d/f"), out, &type, &ma, NULL);
	ok(err == 0 && type == T_MISSING, "a missing name below a directory is missing");
	mkdirs("a/d/f");
	err = srt__mount_resolve(P("a/d/f"), out, &type, &ma, NULL);
	ok(err == 0 && type == T_DIR, "within the plan, a path missing before is looked at again");
	srt__mount_resolve_memo_end();
	if (rename(P("a/d"), P("a/d.old")) != 0 || symlink(P("elsewhere"), P("a/d")) != 0)
		abort();
	err = srt__mount_resolve(P("a/d/x"), out, &type, &ma, &links);
	ol = strlen(out);
	ok(err == 0 && links.n >= 1 && ol > strlen(tail) && !strcmp(out + ol - strlen(tail), tail),
	   "after the plan, a directory replaced by a link is followed (%s)", out);
	srt__strv_release(&links);
	drop_tree();
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	have_bwrap = probe_bwrap();
	if (!have_bwrap)
		printf("# bwrap cannot run here: sandbox checks are skipped\n");
	TAP_RUN(test_basic_writes);
	TAP_RUN(test_denied_dir_and_file);
	TAP_RUN(test_overlap_order);
	TAP_RUN(test_file_deny_in_allowread);
	TAP_RUN(test_placeholders);
	TAP_RUN(test_mandatory_walker);
	TAP_RUN(test_mandatory_gitdirs);
	TAP_RUN(test_mandatory_memo);
	TAP_RUN(test_mandatory_in_roots);
	TAP_RUN(test_mandatory_bound);
	TAP_RUN(test_pins);
	TAP_RUN(test_symlinks);
	TAP_RUN(test_resolve_memo);
	TAP_RUN(test_globs);
	TAP_RUN(test_file_on_the_way);
	TAP_RUN(test_disabled);
	TAP_RUN(test_write_deny_wins);
	tap_case(case_root_writable, "test_root_writable (unprivileged)");
	tap_case(case_unsearchable, "test_unsearchable (unprivileged)");
	TAP_RUN(test_concurrent_runs);
	TAP_RUN(test_cleanup_swapped_parent);
	TAP_RUN(test_adopt_one_name_only);
	TAP_RUN(test_helper_hides);
	TAP_RUN(test_walker_visits);
	return tap_done();
}
