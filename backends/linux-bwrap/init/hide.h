/* srt-linux-init: --hide-file covers and --pin-link mounts. */
#ifndef SRT_INIT_HIDE_H
#define SRT_INIT_HIDE_H

#include "backends/linux-bwrap/init/opts.h"

/* Cover each --hide-file path with a read-only /dev/null, then mount a
 * read-only copy on each --pin-link link. 0, or -1 after reporting. */
int srt__init_hide_files(const struct srt__init_opts *o);

/* The target, O_PATH, without following a link anywhere on the way
 * (openat2; the last component alone where the kernel has no openat2). */
int srt__init_open_nofollow(const char *path);
/* Mount tree (a detached copy from open_tree or fsmount) read-only, nodev
 * and nosuid onto target (a descriptor of the path to cover), closing
 * both. 0 or an errno, the step in *step. */
int srt__init_mount_copy_on(int tree, int target, const char **step);
/* A detached copy of /dev/null's mount, or -1 with errno set. */
int srt__init_copy_dev_null(void);

#endif
