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

#endif
