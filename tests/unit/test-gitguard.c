/* The git repository guard: which configs pass, and which repositories a
 * "command" creates between snapshot and sweep are renamed aside. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
static void sweep(struct srt__gitguard *g)
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

/* A repository at rel (which must exist) with a pre-commit hook
 * holding text: rel/.git/hooks/pre-commit. */
static void plant_hook(const char *rel, const char *text)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/.git", rel);
	mk(p);
	snprintf(p, sizeof(p), "%s/.git/hooks", rel);
	mk(p);
	snprintf(p, sizeof(p), "%s/.git/hooks/pre-commit", rel);
	put(p, text);
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

/* The write root's policy: set up in main() before the cases, which each
 * take a snapshot of it and read what the earlier cases left on disk. */
static struct srt_policy pol;
static struct srt_rule rule;

static void case_config_filter(void)
{
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
}

static void case_first_sweep(void)
{
	struct srt__gitguard *g = NULL;

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
}

static void case_second_quarantine(void)
{
	struct srt__gitguard *g = NULL;

	/* a second quarantine of the same name does not overwrite the first */
	g = NULL;
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "second snapshot");
	mk(".git");
	mk(".git/hooks");
	put(".git/hooks/pre-push", "x\n");
	srt__gitguard_sweep(g, on_line, NULL);
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "test -e '%s'/.git.srt-quarantine.*/hooks/pre-push", root);
		ok(exists(".git.srt-quarantine/hooks/pre-commit") && system(cmd) == 0,
		   "an existing quarantine is kept; the next one gets a random suffix");
	}
}

static void case_unreadable(void)
{
	struct srt__gitguard *g = NULL;

	/* hiding from the check: a new .git, or the directory holding one,
	 * made unreadable (root reads them anyway) */
	if (geteuid() != 0) {
		char p[512];

		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "third snapshot");
		mk("h1");
		plant_hook("h1", "x\n");
		snprintf(p, sizeof(p), "%s/h1/.git", root);
		chmod(p, 0);
		mk("h2");
		mk("h2/x");
		plant_hook("h2/x", "x\n");
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
		/* what the earlier cases made is from before this snapshot,
		 * also for the coarse clock file times come from */
		usleep(30000);
		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "fourth snapshot");
		mk("h3");
		mk("h3/y");
		plant_hook("h3/y", "x\n");
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
}

static void case_descriptors(void)
{
	struct srt__gitguard *g = NULL;

	/* srt short of descriptors (a command that could lower srt's
	 * RLIMIT_NOFILE, or a huge tree): a directory the sweep cannot open
	 * is reported, never taken for one without repositories. Two
	 * snapshots of the same state; the first is swept with one descriptor
	 * left, the second (the control) normally. */
	{
		struct srt__gitguard *g2 = NULL;
		struct rlimit rl, low;
		int fds[4096], nfd = 0, fd;

		usleep(30000);
		g = NULL;
		ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g &&
		   srt__gitguard_snapshot(&pol, &g2, on_line, NULL) == SRT_OK && g2,
		   "two snapshots for the descriptor case");
		mk("h4");
		plant_hook("h4", "x\n");
		/* a soft limit the array can fill */
		getrlimit(RLIMIT_NOFILE, &rl);
		low = rl;
		if (low.rlim_cur > 1024)
			low.rlim_cur = 1024;
		setrlimit(RLIMIT_NOFILE, &low);
		while (nfd < (int)(sizeof(fds) / sizeof(fds[0])) && (fd = dup(0)) >= 0)
			fds[nfd++] = fd;
		if (nfd > 0 && nfd < (int)(sizeof(fds) / sizeof(fds[0]))) {
			close(fds[--nfd]); /* one left: the root opens, nothing below it */
			sweep(g);
			while (nfd > 0)
				close(fds[--nfd]);
			setrlimit(RLIMIT_NOFILE, &rl);
			ok(nviol >= 1 && strstr(alllines, "could not be read (Too many open files), so repositories in it were not checked") &&
			   exists("h4/.git"),
			   "a directory the sweep cannot open (EMFILE) is reported as not checked (%d violations)", nviol);
		} else {
			while (nfd > 0)
				close(fds[--nfd]);
			setrlimit(RLIMIT_NOFILE, &rl);
			printf("ok %d # SKIP descriptor case: RLIMIT_NOFILE is above %zu here\n", ++tap_n,
			       sizeof(fds) / sizeof(fds[0]));
		}
		sweep(g2);
		ok(!exists("h4/.git") && exists("h4/.git.srt-quarantine") && !strstr(alllines, "could not be read"),
		   "control: with descriptors the same repository is renamed aside");
	}
}

static void case_bare_and_links(void)
{
	struct srt__gitguard *g = NULL;

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
		plant_hook("a/b/c/repo", "touch PWNED\n");
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
}

static void case_red_team(void)
{
	struct srt__gitguard *g = NULL;

	/* the ways past the guard a red-team run found after the first fixes */
	{
		char a[600], b[600], cmd[1400];
		char longname[240];
		struct srt_policy p2;
		struct srt_rule r2[2];

		/* a write root of its own, later swapped for a link to a
		 * victim's tree: the sweep must look at the directory it
		 * snapshotted, never at the victim's repositories */
		mk("swap");
		mk("victim");
		mk("victim/app");
		plant_hook("victim/app", "user's own\n");
		memset(&p2, 0, sizeof(p2));
		memset(r2, 0, sizeof(r2));
		r2[0].path = root;
		snprintf(a, sizeof(a), "%s/swap", root);
		r2[1].path = a;
		p2.allow_write.v = r2;
		p2.allow_write.n = 2;
		p2.cwd = root;
		p2.mandatory_deny_depth = 3;
		mk("gd2"); /* a gitdir with a hook, for .git files below */
		mk("gd2/hooks");
		put("gd2/hooks/pre-commit", "x\n");
		put("gd2/HEAD", "ref: refs/heads/main\n");
		mk("known");
		put("known/.git", "gitdir: ../gd2\n"); /* the user's own worktree */
		usleep(30000);
		g = NULL;
		ok(srt__gitguard_snapshot(&p2, &g, on_line, NULL) == SRT_OK && g, "snapshot with a second root");
		snprintf(b, sizeof(b), "%s/swap.old", root);
		if (rename(a, b) != 0 || symlink("victim", a) != 0)
			perror("swap");
		/* a hard link of the known .git file, somewhere new */
		mk("copy");
		snprintf(a, sizeof(a), "%s/known/.git", root);
		snprintf(b, sizeof(b), "%s/copy/.git", root);
		if (link(a, b) != 0)
			perror("link");
		/* "gitdir:" with two spaces: git reads " sp", srt must too */
		mk("two");
		mk("two/ sp");
		mk("two/ sp/hooks");
		put("two/ sp/hooks/post-checkout", "x\n");
		mk("two/sp");
		put("two/.git", "gitdir:  sp\n");
		/* a link into a subdirectory of a repository with a hook */
		mk("store"); /* deeper than the guard walks */
		mk("store/a");
		mk("store/a/b");
		mk("store/a/b/r");
		plant_hook("store/a/b/r", "x\n");
		mk("store/a/b/r/sub");
		snprintf(a, sizeof(a), "%s/into", root);
		if (symlink("store/a/b/r/sub", a) != 0)
			perror("symlink into");
		/* a long link name: the quarantine name must still fit */
		memset(longname, 'L', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		snprintf(a, sizeof(a), "%s/%s", root, longname);
		if (symlink("store/a/b/r", a) != 0)
			perror("symlink long");
		/* a bare repository whose HEAD is a link and objects a link */
		mk("bare2");
		mk("bare2/realobj");
		mk("bare2/refs");
		put("bare2/config", "[core]\n\tsshCommand = touch PWNED\n");
		snprintf(a, sizeof(a), "%s/bare2/HEAD", root);
		if (symlink("refs/heads/main", a) != 0)
			perror("symlink HEAD");
		snprintf(a, sizeof(a), "%s/bare2/objects", root);
		if (symlink("realobj", a) != 0)
			perror("symlink objects");
		/* a .git file naming a directory outside the write roots */
		mk("out");
		snprintf(b, sizeof(b), "%s-outside", root);
		snprintf(cmd, sizeof(cmd), "%s/hooks", b);
		if (mkdir(b, 0755) != 0 || mkdir(cmd, 0755) != 0)
			perror("mkdir outside");
		snprintf(cmd, sizeof(cmd), "%s/hooks/secret-name", b);
		fclose(fopen(cmd, "w"));
		snprintf(cmd, sizeof(cmd), "gitdir: %s\n", b);
		put("out/.git", cmd);
		sweep(g);
		ok(exists("victim/app/.git") && !exists("victim/app/.git.srt-quarantine"),
		   "a write root swapped for a link: the victim's repository is not touched");
		ok(!exists("copy/.git") && exists("copy/.git.srt-quarantine"),
		   "a hard link of a known .git file, elsewhere, is judged as new (renamed)");
		ok(!exists("two/.git"), "\"gitdir:  sp\" is read as git reads it (\" sp\"), and judged");
		ok(!exists("into") && exists("store/a/b/r/.git/hooks/pre-commit"),
		   "a link into a subdirectory of a repository with a hook is renamed; the repository is left");
		ok(!exists(longname), "a link with a long name is renamed too (the quarantine name fits)");
		ok(!exists("bare2/HEAD") && strstr(alllines, "/bare2 (a bare repository: "),
		   "a bare repository made of links (HEAD, objects) loses its HEAD");
		ok(!exists("out/.git") && strstr(alllines, "outside the write roots") &&
		   !strstr(alllines, "secret-name"),
		   "a .git file naming a directory outside the roots is renamed, saying nothing of it");
		snprintf(cmd, sizeof(cmd), "rm -rf '%s-outside'", root);
		if (system(cmd) != 0)
			perror("rm outside");
		snprintf(cmd, sizeof(cmd),
			 "cd '%s' && rm -rf swap swap.old victim gd2 known copy two store into bare2 out L*",
			 root);
		if (system(cmd) != 0)
			perror("rm");
		(void)r2;
	}
}

static void case_fill(void)
{
	struct srt__gitguard *g = NULL;

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
}

/* Which roots the guard must still sweep if srt dies: none when the only
 * root is the directory removed instead (the run's own TMPDIR). */
/* A memfd holding len bytes of text, for the state the program refuses. */
static int state_of(const void *text, size_t len)
{
	int fd = memfd_create("test-state", MFD_CLOEXEC);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("memfd");
		exit(2);
	}
	return fd;
}

/* The sweep as a program: the state srt__gitguard_orphan_program writes
 * for srt-gitguard-sweep, read back as the program reads it, sweeps what
 * a snapshot would have; a state that is not one is refused. */
static void case_program_state(void)
{
	struct srt__gitguard *g = NULL, *copy;
	char dir[300], prog[400], buf[65536];
	char *const *argv = NULL;
	const int *fds = NULL;
	int mine[2], bad;
	size_t n;
	ssize_t len;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s-helpers.XXXXXX", root);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	setenv("SRT_HELPER_DIR", dir, 1);
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "snapshot for the program");
	ok(srt__gitguard_orphan_program(g, &argv) == -1 && argv == NULL,
	   "no srt-gitguard-sweep in SRT_HELPER_DIR: no program (the guard forks srt instead)");
	ok(srt__gitguard_fds(g, &fds) == 1, "without the program: the write root's descriptor alone");
	snprintf(prog, sizeof(prog), "%s/srt-gitguard-sweep", dir);
	f = fopen(prog, "w");
	if (!f || fputs("#!/bin/sh\nexit 0\n", f) < 0 || fclose(f) != 0 || chmod(prog, 0755) != 0) {
		perror(prog);
		exit(2);
	}
	/* one the command could have put or changed is not run */
	chmod(prog, 0775);
	ok(srt__gitguard_orphan_program(g, &argv) == -1, "a program its group may write is refused");
	chmod(prog, 0755);
	chmod(dir, 0777);
	ok(srt__gitguard_orphan_program(g, &argv) == -1, "a program in a directory anyone may write is refused");
	chmod(dir, 0700);
	{
		char other[500], link_dir[500];

		/* a link at the name, even to a program that would pass */
		snprintf(other, sizeof(other), "%s/real-sweep", dir);
		ok(rename(prog, other) == 0 && symlink("real-sweep", prog) == 0 &&
		   srt__gitguard_orphan_program(g, &argv) == -1, "a symbolic link at the program's name is refused");
		unlink(prog);
		/* a second link to the file: it may be written by another name */
		ok(link(other, prog) == 0 && srt__gitguard_orphan_program(g, &argv) == -1,
		   "a program with a second hard link is refused");
		unlink(prog);
		ok(rename(other, prog) == 0, "the program back");
		/* a directory named through a link */
		snprintf(link_dir, sizeof(link_dir), "%s-link", dir);
		ok(symlink(dir, link_dir) == 0 && setenv("SRT_HELPER_DIR", link_dir, 1) == 0 &&
		   srt__gitguard_orphan_program(g, &argv) == -1, "a directory named through a symbolic link is refused");
		unlink(link_dir);
		setenv("SRT_HELPER_DIR", dir, 1);
		/* a FIFO at the name: refused at once, never waited on */
		ok(rename(prog, other) == 0 && mkfifo(prog, 0755) == 0 && srt__gitguard_orphan_program(g, &argv) == -1,
		   "a FIFO at the program's name is refused without blocking");
		unlink(prog);
		ok(rename(other, prog) == 0, "the program back again");
	}
	{
		/* a chain of directories longer than the walk goes up: refused,
		 * not taken for one whose top was seen */
		char deep[1200], cmd[3000];
		size_t l = (size_t)snprintf(deep, sizeof(deep), "%s/deep", dir);

		for (int k = 0; k < 260 && l + 3 < sizeof(deep); k++)
			l += (size_t)snprintf(deep + l, sizeof(deep) - l, "/d");
		if ((size_t)snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp -p '%s' '%s/'", deep, prog, deep) >=
		    sizeof(cmd))
			cmd[0] = '\0';
		setenv("SRT_HELPER_DIR", deep, 1);
		ok(cmd[0] && system(cmd) == 0 && srt__gitguard_orphan_program(g, &argv) == -1,
		   "a program 260 directories below another is refused (the walk up stops at 256)");
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/deep'", dir);
		if (system(cmd) != 0)
			perror(cmd);
		setenv("SRT_HELPER_DIR", dir, 1);
	}
	{
		/* the program itself named by a write rule */
		struct srt__gitguard *g2 = NULL;
		struct srt_policy p2 = pol;
		struct srt_rule r2[2];

		memset(r2, 0, sizeof(r2));
		r2[0] = rule;
		r2[1].path = prog;
		p2.allow_write.v = r2;
		p2.allow_write.n = 2;
		ok(srt__gitguard_snapshot(&p2, &g2, on_line, NULL) == SRT_OK && g2 &&
		   srt__gitguard_orphan_program(g2, &argv) == -1, "a program a write rule names is refused");
		srt__gitguard_free(g2);
	}
	if (geteuid() == 0) {
		ok(chown(prog, 65534, 65534) == 0 && srt__gitguard_orphan_program(g, &argv) == -1,
		   "a program another user owns is refused");
		ok(chown(prog, 0, 0) == 0, "back to root's");
	} else {
		for (int k = 0; k < 2; k++) {
			tap_n++;
			printf("ok %d # SKIP a program another user owns: only root can give one away\n", tap_n);
		}
	}
	{
		char inroot[600], cmd[1400];

		snprintf(inroot, sizeof(inroot), "%s/helpers", root);
		mkdir(inroot, 0755);
		snprintf(cmd, sizeof(cmd), "cp -p '%s' '%s/'", prog, inroot);
		setenv("SRT_HELPER_DIR", inroot, 1);
		ok(system(cmd) == 0 && srt__gitguard_orphan_program(g, &argv) == -1,
		   "a program in a write root that this user may write is refused");
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", inroot);
		if (system(cmd) != 0)
			perror(cmd);
		setenv("SRT_HELPER_DIR", dir, 1);
	}
	ok(srt__gitguard_orphan_program(g, &argv) == 0 && argv && !strcmp(argv[0], "/proc/self/fd/5") &&
	   !strcmp(argv[1], "--roots") && !strcmp(argv[2], "1") && argv[3] == NULL,
	   "the program found: /proc/self/fd/5 --roots 1 (%s)", argv ? argv[0] : "none");
	n = fds ? srt__gitguard_fds(g, &fds) : 0;
	ok(n == 3, "its descriptors: the write root, the state, the program (%zu)", n);
	ok(n == 3 && (fcntl(fds[1], F_GET_SEALS) & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) ==
			     (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
	   "the state is a sealed memfd");
	{
		char got[64] = "";
		ssize_t r = n == 3 ? pread(fds[2], got, sizeof(got) - 1, 0) : -1;

		ok(r > 0 && !strncmp(got, "#!/bin/sh\nexit 0\n", (size_t)r) &&
		   (fcntl(fds[2], F_GET_SEALS) & F_SEAL_WRITE),
		   "the program's descriptor is a sealed copy of the file found");
		/* the file rewritten after the start: the copy is what runs */
		f = fopen(prog, "w");
		if (f) {
			fputs("#!/bin/sh\ntouch PWNED\n", f);
			fclose(f);
		}
		r = n == 3 ? pread(fds[2], got, sizeof(got) - 1, 0) : -1;
		ok(r > 0 && !strncmp(got, "#!/bin/sh\nexit 0\n", (size_t)r),
		   "the file rewritten during the run: the copy holds what was taken at the start");
	}

	/* what the command does after the snapshot */
	mk("prog");
	plant_hook("prog", "touch PWNED\n");
	len = n == 3 ? pread(fds[1], buf, sizeof(buf), 0) : -1;
	mine[0] = n == 3 ? dup(fds[0]) : -1;
	copy = mine[0] >= 0 ? srt__gitguard_import(fds[1], mine, 1) : NULL;
	ok(copy != NULL, "the state read back");
	if (copy)
		sweep(copy);
	ok(!exists("prog/.git") && exists("prog/.git.srt-quarantine/hooks/pre-commit") && nviol == 1,
	   "its sweep renames aside the repository made since the snapshot, and only that (%d)", nviol);
	ok(exists("old/.git/hooks/pre-commit") && exists("clean/.git"),
	   "the repositories the snapshot saw are left alone");

	/* states that are not one: the copy refuses them */
	mine[0] = dup(fds[0]);
	mine[1] = dup(fds[0]);
	ok(len > 40 && srt__gitguard_import(fds[1], mine, 2) == NULL, "a root count other than the state's");
	bad = state_of(buf, len > 0 ? (size_t)len - 1 : 0);
	ok(srt__gitguard_import(bad, mine, 1) == NULL, "a state cut short by one byte");
	close(bad);
	buf[0] ^= 1;
	bad = state_of(buf, len > 0 ? (size_t)len : 0);
	ok(srt__gitguard_import(bad, mine, 1) == NULL, "another magic (another build's state)");
	close(bad);
	buf[0] ^= 1;
	bad = state_of(buf, 0);
	ok(srt__gitguard_import(bad, mine, 1) == NULL, "an empty state");
	close(bad);
	close(mine[0]);
	close(mine[1]);
	srt__gitguard_free(g);
	unlink(prog);
	rmdir(dir);
	unsetenv("SRT_HELPER_DIR");
}

static void case_orphan_work(void)
{
	struct srt__gitguard *g = NULL;
	struct srt_policy p2;
	struct srt_rule r2[2];
	char sub[512];

	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g, "snapshot for the orphan work");
	ok(srt__gitguard_orphan_work(g, root) == 0, "the removed directory as the only root: no orphan work");
	ok(srt__gitguard_orphan_work(g, NULL) == 1, "nothing removed: the root is orphan work");
	ok(srt__gitguard_orphan_work(g, "/nonexistent-removed") == 1,
	   "another directory removed: the root is still orphan work");
	srt__gitguard_free(g);
	/* a root below the removed directory is its own root */
	snprintf(sub, sizeof(sub), "%s/orphan-sub", root);
	mkdir(sub, 0700);
	memset(&p2, 0, sizeof(p2));
	memset(r2, 0, sizeof(r2));
	r2[0].path = root;
	r2[1].path = sub;
	p2.allow_write.v = r2;
	p2.allow_write.n = 2;
	p2.mandatory_deny_depth = 3;
	g = NULL;
	ok(srt__gitguard_snapshot(&p2, &g, on_line, NULL) == SRT_OK && g, "snapshot with a root below");
	ok(srt__gitguard_orphan_work(g, root) == 1, "a second root (even below the removed one) is orphan work");
	srt__gitguard_free(g);
	rmdir(sub);
}

static void case_no_write_roots(void)
{
	struct srt__gitguard *g = NULL;

	/* nothing to guard without write roots */
	pol.allow_write.n = 0;
	g = (struct srt__gitguard *)1;
	ok(srt__gitguard_snapshot(&pol, &g, on_line, NULL) == SRT_OK && g == NULL, "no write roots: no guard");
}

int main(void)
{
	char *tmp;

	TAP_RUN(case_config_filter);

	/* a write root, before and after a "command" */
	tmp = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/srt-gitguard.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	/* present before: a repository with a real hook is the user's own */
	mk("old");
	plant_hook("old", "#!/bin/sh\n");
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
	TAP_RUN(case_first_sweep);
	TAP_RUN(case_second_quarantine);
	TAP_RUN(case_unreadable);
	TAP_RUN(case_descriptors);
	TAP_RUN(case_bare_and_links);
	TAP_RUN(case_red_team);
	TAP_RUN(case_fill);
	TAP_RUN(case_orphan_work);
	TAP_RUN(case_program_state);
	TAP_RUN(case_no_write_roots);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", root);
	}
	return tap_done();
}
