/* Backend choice (backend-choice.c). */
#ifndef SRT_LIBSRT_BACKEND_CHOICE_H
#define SRT_LIBSRT_BACKEND_CHOICE_H

#include "sandbox.h"

/* Load the backend for sb->policy (built already) into sb->module and
 * sb->be, its capability bits checked against the policy and its probe
 * passed: the one sb->backend_spec names, or without it the first
 * built-in backend that can run here. A built-in backend that could run
 * here but refuses this policy is an error naming the setting, never a
 * reason to take the next, weaker one. need_proxy: the backend must
 * bridge the proxy. When none can, diag says why for each. */
int srt__sandbox_choose_backend(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag);

/* Does be declare every capability pol asks for (SRT_CAP_FILESYSTEM
 * unless filesystem.disabled; SRT_CAP_NETNS or SRT_CAP_SECCOMP, which
 * keep the command off the network; SRT_CAP_PROXY or SRT_CAP_LOOPBACK_PROXY when need_proxy)? A
 * module that does not is refused before anything runs: whatever it
 * would do, srt could not say what it guarantees. */
int srt__backend_caps_check(const struct srt_backend *be, const struct srt_policy *pol,
			    int need_proxy, struct srt_diag *diag);

/* Does be reach the proxy for the command: it bridges the proxy's Unix
 * socket in (SRT_CAP_PROXY), or the command connects to a loopback TCP
 * port the core listens on (SRT_CAP_LOOPBACK_PROXY, read from a module of
 * ABI minor 8 or newer only: an older one never saw the bit or the port
 * fields of struct srt_policy). */
int srt__backend_loopback_proxy(const struct srt_backend *be);
int srt__backend_reaches_proxy(const struct srt_backend *be);

/* The i-th backend of the automatic order (configure's SRT_AUTO_BACKENDS,
 * best first), or NULL past its end. */
const char *srt__auto_backend(size_t i);

#endif
