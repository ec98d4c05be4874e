/* Removing a directory srt made for a run, with everything a sandboxed
 * command left in it. Shared by the core (the run's own TMPDIR at the
 * sandbox's end) and the linux-bwrap cleanup guard (the same directory
 * when srt was killed before that end), compiled into each. */
#ifndef SRT_COMMON_RMTREE_H
#define SRT_COMMON_RMTREE_H

#include <sys/types.h>
#include <time.h>

/* Remove path and everything below it when it is still the directory
 * (dev, ino) that was made: never through a link (each directory is
 * opened with O_NOFOLLOW relative to its parent's descriptor), a
 * directory the command made unreadable or unsearchable, path itself
 * included, is made so first (it is this user's), and a tree deeper than
 * the walk goes (256 levels: a descriptor per level) has its deeper part
 * moved up to the top and removed by the walk's next pass. */
void srt__rm_tree_same(const char *path, dev_t dev, ino_t ino);

/* The directories srt makes for one run (the run's TMPDIR below
 * /tmp/claude, the proxy's directory in TMPDIR) are held with a lock on a
 * descriptor of each, kept open for as long as the process that made them
 * (or a fork of it) lives, and marked with the sticky bit once held. A srt
 * killed before its cleanup guard was in place, or together with it (a pid
 * namespace torn down kills both), leaves them behind, and the next start
 * removes the marked ones that nobody holds. The lock tells, not the pid
 * in a name: a pid means nothing across pid namespaces (a srt started in
 * one took a live host run's directory for a dead one's, and one killed in
 * one was never swept where its pid named a live process). The mark tells
 * that a locking srt made it: a srt of an earlier version holds nothing,
 * and a directory of the user's own that only looks like one of srt's is
 * no run's. */

/* mkdtemp(3), with the directory made marked (mode 01700) from its first
 * moment: a srt killed before it holds it leaves one the sweep takes once
 * the grace is over (made unmarked and marked once held, such a directory
 * stayed for good). Where nothing is ever marked (Windows), mkdtemp. tmpl
 * ends in XXXXXX; NULL with errno. */
char *srt__rundir_make(char *tmpl);

/* Hold the directory open at dfd and mark it (mode 01700): 0, or -errno
 * where the file system cannot lock it (the directory is then unmarked,
 * and never swept). */
int srt__rundir_hold(int dfd);

/* What one sweep may spend on removals: entries to look at, and, when
 * timed, a deadline on CLOCK_MONOTONIC. */
struct srt__rm_budget {
	long entries;
	int timed;
	struct timespec until;
};

/* Remove what below the directory open at dfd the budget allows, deeper
 * trees as srt__rm_tree_same does: 1 when it is empty, 0 when the budget
 * ran out after some progress (a later sweep goes on), -1 when it cannot
 * be emptied (also when a budget was spent with nothing removed). dfd
 * stays open. */
int srt__rm_below_budget(int dfd, struct srt__rm_budget *b);

/* Is the budget spent? */
int srt__rm_budget_spent(const struct srt__rm_budget *b);

/* Each entry of base whose name match() accepts that is a directory of
 * this user, marked (its permission bits equal to want under mask), that
 * nothing changed for SRT_RUNDIR_GRACE_S seconds (its maker held it right
 * after making it, so one younger may be about to be held) and that no
 * process holds, goes to remove() with base's descriptor, its name and a
 * descriptor of it that holds it meanwhile. remove() returns 1 when it
 * removed it, 0 when the budget ran out first (a later start goes on),
 * -1 when it cannot: that one is unmarked, so that no later start walks
 * it again. One sweep spends at most SRT_RUNDIR_BUDGET entries and
 * SRT_RUNDIR_BUDGET_MS milliseconds on removals (a killed run's large tree
 * costs each start a bounded share: an rmdir can take a millisecond where
 * the disk discards freed blocks at once). Only the entries match()
 * accepts are looked at (base may be a crowded /tmp). */
#define SRT_RUNDIR_GRACE_S 2
#define SRT_RUNDIR_BUDGET 20000
#define SRT_RUNDIR_BUDGET_MS 10
void srt__rundir_sweep(const char *base, int (*match)(const char *name), unsigned mask, unsigned want,
		       int (*remove)(int basefd, const char *name, int dfd, struct srt__rm_budget *b));

#endif
