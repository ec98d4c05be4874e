/* What one sandboxed command needs around it, whoever spawns it (srt in
 * srt_sandbox_run, or the caller in wrap mode): the reader of the
 * backend's violation lines and the git guard's reporting. Private to
 * libsrt. */
#ifndef SRT_LIBSRT_COMMAND_H
#define SRT_LIBSRT_COMMAND_H

#include <pthread.h>

#include "gitguard.h"
#include "sandbox.h"

/* Violation lines from the backend's monitor, read on a thread of their
 * own until EOF or the monitor's end mark, each recorded for key. */
struct srt__events_reader {
	struct srt_sandbox *sb;
	const char *key;
	int fd;
	pthread_t thread;
	int running;
};

/* Start reading fd (> 2) for key; logs and returns without a thread when
 * one cannot be made (the command's file violations then go unreported). */
void srt__events_start(struct srt__events_reader *er, struct srt_sandbox *sb,
		       const char *key, int fd);
/* Wait for the reader to reach the end. NULL-safe, idempotent. */
void srt__events_join(struct srt__events_reader *er);

/* The git guard's context and callbacks for one command. */
struct srt__gitguard_ctx {
	struct srt_sandbox *sb;
	const char *key;
};
void srt__on_gitguard(void *vctx, int is_violation, const char *line);
void srt__gitguard_orphan(void *ctx);

/* What cmd's backend must still do if srt dies mid-run (srt_command's
 * orphan_* fields), for a command under pol with the git guard gg (may be
 * NULL). The run's own TMPDIR is removed, not swept, then: with no other
 * write root the backend's guard needs nothing of this process. */
void srt__command_orphans(const struct srt_sandbox *sb, const struct srt_policy *pol,
			  struct srt__gitguard *gg, struct srt_command *cmd);

#endif
