/* The git repository guard: which configs pass, and which repositories a
 * "command" creates between snapshot and sweep are renamed aside. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../libsrt/gitguard.h"
#include "tap.h"

static char root[256];
static int nviol;
static char lastline[8192];
static char alllines[32768]; /* every line of a sweep, for order-free checks */

static void on_line(void *ctx, int is_violation, const char *line)
{
	(void)ctx;
	if (is_violation)
		nviol++;
	snprintf(lastline, sizeof(lastline), "%s", line);
	if (strlen(alllines) + strlen(line) + 2 < sizeof(alllines)) {
		strcat(alllines, line);
		strcat(alllines, "\n");
	}
}

/* a sweep whose lines alone are counted and kept */
static void sweep(struct srt_gitguard *g)
{
	nviol = 0;
	alllines[0] = '\0';
	srt__gitguard_sweep(g, on_line, NULL);
}

static int cfg_safe(const char *text)
{
	char why[256];

	return srt__gitguard_config_safe(text, strlen(text), why, sizeof(why));
}

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void mk(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (mkdir(p, 0755) != 0) {
		perror(p);
		exit(2);
	}
}

static int exists(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return lstat(p, &st) == 0;
}

static const char clone_config[] =
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	"\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://example.invalid/r.git\n"
	"\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n"
	"\tmerge = refs/heads/main\n";

int main(void)
{
	struct srt_policy pol;
	struct srt_rule rule;
	struct srt_gitguard *g = NULL;
	char *tmp;

	/* the config filter */
	ok(cfg_safe(clone_config), "what git clone writes is safe");
	ok(cfg_safe("# c\n; c\n\n[user]\n\tname = A B\n\temail = a@b\n[init] defaultBranch = main\n"),
	   "user.* and a key on the header line are safe");
	ok(cfg_safe("[CORE]\r\n\tBare = false\r\n"), "section and key names are case-insensitive; CRLF");
	ok(!cfg_safe("[core]\n\thooksPath = /tmp/h\n"), "core.hooksPath is refused");
	ok(!cfg_safe("[core]\n\tfsmonitor = ./x\n"), "core.fsmonitor is refused");
	ok(!cfg_safe("[core] sshCommand = x\n"), "core.sshCommand on the header line is refused");
	ok(!cfg_safe("[alias]\n\tst = !sh x\n"), "aliases are refused");
	ok(!cfg_safe("[include]\n\tpath = ../x\n"), "include is refused");
	ok(!cfg_safe("[includeIf \"gitdir:/\"]\n\tpath = x\n"), "includeIf is refused");
	ok(!cfg_safe("[filter \"a\"]\n\tclean = x\n"), "filter drivers are refused");
	ok(!cfg_safe("[remote \"o\"]\n\turl = ext::sh -c x\n"), "an ext:: remote is refused");
	ok(!cfg_safe("[remote \"o\"]\n\tuploadpack = x\n"), "remote.*.uploadpack is refused");
	ok(!cfg_safe("[core]\n\tbare = \\\nfalse\n"), "a continued value is refused");
	ok(!cfg_safe("bare = false\n"), "a key before any section is refused");
	ok(!cfg_safe("[core\n"), "a broken header is refused");
	ok(!cfg_safe("[core \"x]\n"), "an unterminated subsection is refused");
	ok(!cfg_safe("[core]\n\t= x\n"), "a line without a key is refused");
	ok(!cfg_safe("[core.x]\n\tpager = less\n"), "[section.sub] is read as its section");
	ok(!srt__gitguard_config_safe("[core]\n\0\tpager=x\n", 17, lastline, 64), "a NUL byte is refused");

	/* a write root, before and after a "command" */
	tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/srt-gitguard.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	/* present before: a repository with a real hook is the user's own */
	mk("old");
	mk("old/.git");
	mk("old/.git/hooks");
	put("old/.git/hooks/pre-commit", "#!/bin/sh\n");
	mk("deep");
	mk("keep"); /* a repository that already points elsewhere */
	mk("keep/.git");
	put("keep/.git/commondir", "../../old/.git\n");

	memset(&pol, 0, sizeof(pol));
	memset(&rule, 0, sizeof(rule));
	rule.path = root;
	pol.allow_write.v = &rule;
	pol.allow_write.n = 1;
	pol.cwd = root;
	pol.mandatory_deny_depth = 3;
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "snapshot of the write root");

	/* what the command does */
	mk(".git");
	mk(".git/hooks");
	put(".git/hooks/pre-commit", "touch PWNED\n");
	put(".git/config", clone_config);
	mk("clean");
	mk("clean/.git");
	mk("clean/.git/hooks");
	put("clean/.git/hooks/pre-commit.sample", "#\n");
	put("clean/.git/config", clone_config);
	mk("cfg");
	mk("cfg/.git");
	put("cfg/.git/config", "[core]\n\tfsmonitor = ./evil\n");
	mk("deep/x");
	mk("deep/x/.git");
	mk("deep/x/.git/hooks");
	put("deep/x/.git/hooks/post-checkout", "x\n");
	mk("gd");
	mk("gd/hooks");
	put("gd/hooks/pre-commit", "x\n");
	mk("wt");
	put("wt/.git", "gitdir: ../gd\n");
	mk("ln");
	{
		char p[512];
		snprintf(p, sizeof(p), "%s/ln/.git", root);
		if (symlink("../gd", p) != 0)
			perror("symlink");
	}
	put("old/.git/hooks/post-merge", "x\n"); /* a repository that existed */
	mk("cd");
	mk("cd/.git");
	put("cd/.git/commondir", "../../gd\n");
	put("old/.git/commondir", "../../gd\n"); /* an existing repository redirected */
	put("old/.git/config.worktree", "[core]\n\tfsmonitor = ./evil\n");
	put("keep/.git/commondir", "../../gd\n"); /* rewritten: the mounts' to protect */

	sweep(g);
	ok(!exists(".git") && exists(".git.srt-quarantine/hooks/pre-commit"),
	   "a new repository in the root with a hook is renamed aside");
	ok(exists("clean/.git") && !exists("clean/.git.srt-quarantine"),
	   "a clean git init/clone (sample hooks, plain config) is left alone");
	ok(!exists("cfg/.git") && exists("cfg/.git.srt-quarantine"), "a new repository with core.fsmonitor is renamed");
	ok(!exists("deep/x/.git") && exists("deep/x/.git.srt-quarantine"), "two levels down: renamed");
	ok(!exists("wt/.git") && exists("wt/.git.srt-quarantine"), "a .git file naming a directory with a hook is renamed");
	ok(!exists("ln/.git") && exists("ln/.git.srt-quarantine"), "a .git symbolic link is renamed");
	ok(!exists("cd/.git") && exists("cd/.git.srt-quarantine"), "a new repository with commondir is renamed");
	ok(exists("old/.git/hooks/pre-commit") && exists("old/.git"),
	   "a repository that existed before is kept (its hooks are the mounts' to protect)");
	ok(!exists("old/.git/commondir") && exists("old/.git/commondir.srt-quarantine") &&
	   !exists("old/.git/config.worktree") && exists("old/.git/config.worktree.srt-quarantine"),
	   "an existing repository's new commondir and config.worktree are renamed aside");
	ok(exists("keep/.git/commondir") && !exists("keep/.git/commondir.srt-quarantine"),
	   "a commondir the repository had before is left (mounted read-only during the run)");
	ok(nviol == 8, "one violation per renamed repository or redirect (%d)", nviol);
	ok(strstr(alllines, "deny git-repository ") && strstr(alllines, ".git.srt-quarantine") &&
	   strstr(alllines, "/old/.git/commondir: created inside the sandbox"),
	   "the violations name what was renamed and where it went");

	/* a second quarantine of the same name does not overwrite the first */
	g = NULL;
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "second snapshot");
	mk(".git");
	mk(".git/hooks");
	put(".git/hooks/pre-push", "x\n");
	srt__gitguard_sweep(g, on_line, NULL);
	ok(exists(".git.srt-quarantine/hooks/pre-commit") && exists(".git.srt-quarantine.1/hooks/pre-push"),
	   "an existing quarantine is kept; the next one gets a number");

	/* hiding from the check: a new .git, or the directory holding one,
	 * made unreadable (root reads them anyway) */
	if (geteuid() != 0) {
		char p[512];

		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "third snapshot");
		mk("h1");
		mk("h1/.git");
		mk("h1/.git/hooks");
		put("h1/.git/hooks/pre-commit", "x\n");
		snprintf(p, sizeof(p), "%s/h1/.git", root);
		chmod(p, 0);
		mk("h2");
		mk("h2/x");
		mk("h2/x/.git");
		mk("h2/x/.git/hooks");
		put("h2/x/.git/hooks/pre-commit", "x\n");
		snprintf(p, sizeof(p), "%s/h2", root);
		chmod(p, 0);
		sweep(g);
		ok(!exists("h1/.git") && exists("h1/.git.srt-quarantine"),
		   "a new .git the command made unreadable is renamed");
		ok(nviol == 2 && strstr(alllines, "/h2: unreadable"),
		   "a directory made unreadable is reported as not checked (%d violations)", nviol);
		chmod(p, 0755);
		snprintf(p, sizeof(p), "%s/h1/.git.srt-quarantine", root);
		chmod(p, 0755);

		/* a deepest-level directory left listable but not searchable,
		 * and the write root itself made unreadable */
		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "fourth snapshot");
		mk("h3");
		mk("h3/y");
		mk("h3/y/.git");
		mk("h3/y/.git/hooks");
		put("h3/y/.git/hooks/pre-commit", "x\n");
		snprintf(p, sizeof(p), "%s/h3/y", root);
		chmod(p, 0444);
		sweep(g);
		ok(nviol == 1 && strstr(alllines, "/h3/y: unreadable"),
		   "a directory that cannot be searched is reported as not checked (%d violations)", nviol);
		chmod(p, 0755);
		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "fifth snapshot");
		chmod(root, 0);
		sweep(g);
		chmod(root, 0755);
		ok(nviol == 1 && strstr(alllines, ": unreadable, so repositories in it were not checked"),
		   "a write root made unreadable is reported as not checked (%d violations)", nviol);
	} else {
		for (int i = 0; i < 7; i++)
			printf("ok %d # SKIP unreadable-directory cases: root reads every directory\n", ++tap_n);
	}

	/* bare repositories and links to repositories: what git on the host
	 * would take for a repository although no .git entry is new */
	{
		char p[512], l[512];

		/* before the run: the user's own bare repository with a hook,
		 * and the user's own link to a repository */
		mk("own.git");
		mk("own.git/objects");
		mk("own.git/refs");
		mk("own.git/hooks");
		put("own.git/HEAD", "ref: refs/heads/main\n");
		put("own.git/hooks/post-receive", "x\n");
		mk("a");
		mk("a/b");
		mk("a/b/c");
		mk("a/b/c/repo");
		mk("a/b/c/repo/.git");
		mk("a/b/c/repo/.git/hooks");
		put("a/b/c/repo/.git/hooks/pre-commit", "touch PWNED\n");
		snprintf(p, sizeof(p), "%s/a/b/c/repo", root);
		snprintf(l, sizeof(l), "%s/mine", root);
		if (symlink(p, l) != 0)
			perror("symlink");
		usleep(30000); /* past the coarse clock's tick */
		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "snapshot before bare repositories");
		/* the command: a bare repository planted in a plain directory,
		 * a clean bare clone, and a link to the deep repository */
		mk("src");
		mk("src/objects");
		mk("src/refs");
		put("src/HEAD", "ref: refs/heads/main\n");
		put("src/config", "[core]\n\tpager = touch PWNED; cat\n");
		mk("clone.git");
		mk("clone.git/objects");
		mk("clone.git/refs");
		put("clone.git/HEAD", "ref: refs/heads/main\n");
		put("clone.git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
		snprintf(l, sizeof(l), "%s/project", root);
		if (symlink(p, l) != 0)
			perror("symlink");
		sweep(g);
		ok(!exists("src/HEAD") && exists("src/HEAD.srt-quarantine") &&
		   strstr(alllines, "/src (a bare repository: "),
		   "a bare repository planted in a plain directory loses its HEAD, reported");
		ok(exists("clone.git/HEAD"), "a clean bare clone is left alone");
		ok(!exists("project") && exists("project.srt-quarantine") &&
		   exists("a/b/c/repo/.git/hooks/pre-commit"),
		   "a new link to a repository with a hook is renamed; the repository is not touched");
		ok(exists("mine") && exists("own.git/HEAD"),
		   "the user's own link and bare repository from before the run are left alone");
		ok(nviol == 2, "two violations (%d)", nviol);
		{
			char cmd[2048];

			snprintf(cmd, sizeof(cmd),
				 "cd '%s' && rm -rf src clone.git own.git a mine project.srt-quarantine", root);
			if (system(cmd) != 0)
				perror("rm");
		}
	}

	/* a command that fills the tree past the guard's bound: the check
	 * after it says what it could not look at */
	{
		char p[512];

		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "snapshot before filling");
		mk("fill");
		for (int i = 0; i < 50100; i++) {
			int fd;

			snprintf(p, sizeof(p), "%s/fill/f%d", root, i);
			fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		}
		sweep(g);
		ok(nviol >= 1 && strstr(alllines, "deny git-repository-check ") &&
		   strstr(alllines, "stopped after 50000 entries"),
		   "a check cut short after the command is reported as a violation (%d)", nviol);
		snprintf(p, sizeof(p), "rm -rf '%s/fill'", root);
		if (system(p) != 0)
			perror("rm fill");
	}

	/* nothing to guard without write roots */
	pol.allow_write.n = 0;
	g = (struct srt_gitguard *)1;
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g == NULL, "no write roots: no guard");
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", root);
	}
	return tap_done();
}
