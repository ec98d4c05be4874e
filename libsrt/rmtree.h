/* Removing a run's own directory tree (its TMPDIR) at the run's end, one
 * file per platform: rmtree-posix.c walks it by directory descriptors,
 * rmtree-windows.c by Windows' find calls (Windows has no directory
 * descriptors). Neither follows a link out of the tree. */
#ifndef SRT_LIBSRT_RMTREE_H
#define SRT_LIBSRT_RMTREE_H

#include <sys/types.h>

/* Remove the directory `path` and everything below it, when it is still
 * the directory run_tmpdir() made: (dev, ino) of its lstat then, checked
 * where the platform has them (POSIX), else that it is still a directory
 * and no link (Windows, whose C library keeps no inode numbers). A link
 * inside is removed, never followed; what cannot be removed stays. */
void srt__rm_tree(const char *path, dev_t dev, ino_t ino);

#endif
