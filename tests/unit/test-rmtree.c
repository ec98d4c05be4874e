/* common/rmtree-posix.c: removing a run's directory with what a command
 * left there (a chain deeper than the walk's descriptors, directories
 * closed to their owner, links), the sweep's budget, and which directories
 * the sweep takes for a killed run's (marked, unheld, old enough). TAP
 * output; every case works in a directory of its own below $TMPDIR or
 * /tmp. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rmtree.h"
#include "tests/unit/tap.h"

static char top[256];

static void make_top(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/srt-test-rmtree.XXXXXX", t && t[0] == '/' ? t : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		exit(1);
	}
}

static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void touch_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

static void case_deep_and_closed(void)
{
	char path[512], link_target[512];
	struct stat st;
	int fd, i;

	make_top();
	snprintf(path, sizeof(path), "%s/run", top);
	mkdir(path, 0700);
	/* a chain of 600 directories, a file at its end */
	fd = open(path, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 600 && fd >= 0; i++) {
		int next;

		mkdirat(fd, "d", 0700);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	ok(fd >= 0, "a chain of 600 directories is made");
	if (fd >= 0) {
		touch_at(fd, "leaf");
		close(fd);
	}
	/* a directory closed to its owner, with a file inside */
	snprintf(link_target, sizeof(link_target), "%s/run/closed", top);
	mkdir(link_target, 0700);
	fd = open(link_target, O_RDONLY | O_DIRECTORY);
	touch_at(fd, "f");
	close(fd);
	chmod(link_target, 0);
	/* a link out of the tree, to a file that must stay */
	snprintf(link_target, sizeof(link_target), "%s/outside", top);
	fd = open(link_target, O_WRONLY | O_CREAT, 0600);
	close(fd);
	snprintf(path, sizeof(path), "%s/run/link", top);
	if (symlink(link_target, path) != 0)
		ok(0, "symlink: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/run", top);
	stat(path, &st);
	srt__rm_tree_same(path, st.st_dev, st.st_ino);
	ok(access(path, F_OK) != 0, "the tree is gone, its deep chain and its closed directory too");
	ok(access(link_target, F_OK) == 0, "the file a link in it named stays");
	unlink(link_target);
	ok(rmdir(top) == 0, "nothing was moved out of the tree (its parent is empty)");
}

/* a chain of n directories below dfd (consumed) */
static int chain(int fd, int n)
{
	int i;

	for (i = 0; i < n && fd >= 0; i++) {
		int next;

		mkdirat(fd, "d", 0700);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	if (fd < 0)
		return -1;
	touch_at(fd, "leaf");
	close(fd);
	return 0;
}

static void case_planted_and_scarce(void)
{
	char path[512];
	struct rlimit rl = { 64, 64 };
	struct stat st;
	int fd;

	make_top();
	snprintf(path, sizeof(path), "%s/run", top);
	mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	/* the names of the removal's stages, taken in advance */
	touch_at(fd, ".srt-rm-stage-0");
	mkdirat(fd, ".srt-rm-stage-1", 0700);
	ok(chain(dup(fd), 300) == 0, "a chain of 300 beside two planted stage names");
	close(fd);
	stat(path, &st);
	srt__rm_tree_same(path, st.st_dev, st.st_ino);
	ok(access(path, F_OK) != 0, "the tree is gone, planted names and all");
	/* no descriptor to spare: a chain the walk cannot open to its end */
	mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	ok(chain(fd, 100) == 0, "a chain of 100");
	stat(path, &st);
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		ok(0, "setrlimit: %s", strerror(errno));
	srt__rm_tree_same(path, st.st_dev, st.st_ino);
	ok(access(path, F_OK) != 0, "with 64 descriptors it is gone too");
	rmdir(top);
}

static void case_other_dir(void)
{
	char path[512], aside[512];
	struct stat st;

	make_top();
	snprintf(path, sizeof(path), "%s/run", top);
	mkdir(path, 0700);
	stat(path, &st);
	snprintf(aside, sizeof(aside), "%s/aside", top);
	rename(path, aside);
	mkdir(path, 0700); /* another directory under the same name */
	srt__rm_tree_same(path, st.st_dev, st.st_ino);
	ok(access(path, F_OK) == 0, "a directory that is not the one made is left");
	rmdir(path);
	rmdir(aside);
	rmdir(top);
}

static void case_budget(void)
{
	struct srt__rm_budget b = { 30, 0, { 0, 0 } };
	char name[32];
	int fd, i, left;

	make_top();
	fd = open(top, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		touch_at(fd, name);
	}
	ok(srt__rm_below_budget(fd, &b) == 0 && b.entries == 0 && srt__rm_budget_spent(&b),
	   "a budget of 30 entries is spent on 100 files: go on later (0)");
	left = entries(top);
	ok(left == 70, "30 of them are gone (%d left)", left);
	b.entries = 1000;
	b.timed = 1;
	clock_gettime(CLOCK_MONOTONIC, &b.until); /* a deadline already past */
	ok(srt__rm_below_budget(fd, &b) == 0 && entries(top) == 70,
	   "a deadline already past removes nothing, and leaves it to a later sweep (0)");
	b.timed = 0;
	ok(srt__rm_below_budget(fd, &b) == 1 && b.entries == 930, "the next budget empties it (%ld left)",
	   b.entries);
	/* a chain deeper than one budget reaches: each sweep starts where the
	 * last stopped (what it reached moved to a stage), none gives up */
	{
		int calls, rc = 0, gave_up = 0;

		ok(chain(dup(fd), 300) == 0, "a chain of 300");
		for (calls = 0; calls < 40 && rc != 1; calls++) {
			b.entries = 100;
			rc = srt__rm_below_budget(fd, &b);
			gave_up |= rc == -1;
		}
		ok(rc == 1 && !gave_up, "budgets of 100 empty it, none giving up (%d calls)", calls);
	}
	close(fd);
	rmdir(top);
}

static int any_name(const char *name)
{
	return !strncmp(name, "run-", 4);
}

static int refused_name(const char *name)
{
	return !strcmp(name, "kept-refused");
}

static int remove_tree(int basefd, const char *name, int dfd, struct srt__rm_budget *b)
{
	int rc = srt__rm_below_budget(dfd, b);

	if (rc != 1)
		return rc;
	return unlinkat(basefd, name, AT_REMOVEDIR) == 0 ? 1 : -1;
}

static int refuse(int basefd, const char *name, int dfd, struct srt__rm_budget *b)
{
	(void)basefd;
	(void)name;
	(void)dfd;
	(void)b;
	return -1;
}

static void mkrun(const char *name, mode_t mode)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	touch_at(fd, "f");
	close(fd);
	chmod(path, mode);
}

static int there(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, name);
	return access(path, F_OK) == 0;
}

static void case_sweep(void)
{
	char path[512];
	struct stat st;
	int held, fd;

	make_top();
	mkrun("run-dead", 01700);
	mkrun("run-unmarked", 0700);
	mkrun("run-held", 01700);
	mkrun("other", 01700);
	mkrun("kept-refused", 01700);
	snprintf(path, sizeof(path), "%s/run-held", top);
	held = open(path, O_RDONLY | O_DIRECTORY);
	ok(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0, "a process holds run-held");
	sleep(SRT_RUNDIR_GRACE_S + 1);
	mkrun("run-young", 01700);
	srt__rundir_sweep(top, any_name, S_ISVTX, S_ISVTX, remove_tree);
	ok(!there("run-dead"), "a marked, unheld, old directory is removed");
	ok(there("run-unmarked/f"), "an unmarked one is left");
	ok(there("run-held/f"), "a held one is left");
	ok(there("other/f"), "one whose name does not match is left");
	ok(there("run-young/f"), "one younger than the grace is left");
	close(held);
	/* one the remover cannot remove is unmarked, so that no later sweep
	 * walks it again */
	snprintf(path, sizeof(path), "%s/kept-refused", top);
	srt__rundir_sweep(top, refused_name, S_ISVTX, S_ISVTX, refuse);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700, "a directory not removed loses its mark (%o)",
	   (unsigned)(st.st_mode & 07777));
	/* the maker's side: held and marked */
	snprintf(path, sizeof(path), "%s/run-new", top);
	mkdir(path, 0700);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	ok(fd >= 0 && srt__rundir_hold(fd) == 0, "a new directory is held");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 01700, "and marked (%o)", (unsigned)(st.st_mode & 07777));
	held = open(path, O_RDONLY | O_DIRECTORY);
	ok(held >= 0 && flock(held, LOCK_EX | LOCK_NB) != 0, "another descriptor cannot take its lock");
	if (held >= 0)
		close(held);
	close(fd);
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	if (system(path) != 0)
		ok(0, "cleanup of %s", top);
}

int main(void)
{
	TAP_RUN(case_deep_and_closed);
	TAP_RUN(case_planted_and_scarce);
	TAP_RUN(case_other_dir);
	TAP_RUN(case_budget);
	TAP_RUN(case_sweep);
	return tap_done();
}
