/* Backend choice without --backend (backend-choice.c). */
#ifndef SRT_LIBSRT_BACKEND_CHOICE_H
#define SRT_LIBSRT_BACKEND_CHOICE_H

#include "sandbox.h"

/* Load the first built-in backend that can run here and enforce the whole
 * policy (sb->policy, built already) into sb->module and sb->be; its probe
 * has passed. need_proxy: the backend must bridge the proxy. When none
 * can, diag says why for each. */
int srt__sandbox_choose_backend(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag);

#endif
