/* linux-bwrap: the bwrap words of the mount model. */
#ifndef SRT_BWRAP_MOUNT_WORDS_H
#define SRT_BWRAP_MOUNT_WORDS_H

#include "mount-model.h"

/* Decide each node's mount and append the words (with their pins) to
 * plan->words, files for the helper to hide to plan->hidden, and one note
 * per mount. */
int srt__mount_emit(struct srt__mount_ctx *c);

#endif
