/* Removing a directory srt made for a run, with everything a sandboxed
 * command left in it. Shared by the core (the run's own TMPDIR at the
 * sandbox's end) and the linux-bwrap cleanup guard (the same directory
 * when srt was killed before that end), compiled into each. */
#ifndef SRT_COMMON_RMTREE_H
#define SRT_COMMON_RMTREE_H

#include <sys/types.h>

/* Remove path and everything below it when it is still the directory
 * (dev, ino) that was made: never through a link (each directory is
 * opened with O_NOFOLLOW relative to its parent's descriptor), a
 * directory the command made unreadable is made readable first (it is
 * this user's), and a tree deeper than 256 levels is left where it lies
 * (with path, which is then not empty). */
void srt__rm_tree_same(const char *path, dev_t dev, ino_t ino);

/* The directories srt makes for one run (the run's TMPDIR below
 * /tmp/claude, the proxy's directory in TMPDIR) are held with a lock on a
 * descriptor of each, kept open for as long as the process that made them
 * (or a fork of it) lives. A srt killed before its cleanup guard was in
 * place, or together with it (a pid namespace torn down kills both),
 * leaves them behind, and the next start removes those that nobody holds.
 * The lock tells, not the pid in a name: a pid means nothing across pid
 * namespaces (a srt started in one took a live host run's directory for a
 * dead one's, and one killed in one was never swept where its pid named a
 * live process). */

/* Hold the directory open at dfd: 0, or -errno where the file system
 * cannot lock it (there the sweep's own lock fails too, and the directory
 * is left alone). */
int srt__rundir_hold(int dfd);

/* Remove, with everything below it, each entry of base whose name
 * match() accepts that is a directory of this user (with exactly the
 * permission bits mode, unless mode is -1), that nothing changed for
 * SRT_RUNDIR_GRACE_S seconds (its maker took the lock right after making
 * it, so one younger may be about to be held) and that no process holds.
 * Only the entries match() accepts are looked at (base may be a crowded
 * /tmp). */
#define SRT_RUNDIR_GRACE_S 2
void srt__rundir_sweep(const char *base, int (*match)(const char *name), int mode);

#endif
