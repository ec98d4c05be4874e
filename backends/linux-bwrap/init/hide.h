/* srt-linux-init: --hide-file covers and --pin-link mounts. */
#ifndef SRT_INIT_HIDE_H
#define SRT_INIT_HIDE_H

#include "backends/linux-bwrap/init/opts.h"

/* Cover each --hide-file path with a read-only /dev/null, then mount a
 * read-only copy on each --pin-link link. 0, or -1 after reporting. */
int srt__init_hide_files(const struct srt__init_opts *o);

#endif
