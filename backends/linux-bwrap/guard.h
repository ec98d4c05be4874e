/* linux-bwrap: the cleanup guard, a process that outlives a srt killed
 * mid-run and undoes what srt would have (the protocol is described in
 * guard.c). bwrap.c starts one per backend state and tells it, record by
 * record, what to undo. */
#ifndef SRT_BWRAP_GUARD_H
#define SRT_BWRAP_GUARD_H

#include <srt/backend.h>
#include <srt/error.h>

#include "state.h"

/* Make sure st has a guard fit for cmd (a command with orphan work gets a
 * guard of its own); sets st->guard_fd, st->guard_mid. */
int srt__bwrap_guard_start(struct srt__bwrap_state *st, const struct srt_command *cmd,
			   struct srt_diag *diag);
/* The same in two steps, for a command started before its plan: open
 * makes the guard's pipe when st has no guard (records sent from then on,
 * the spawned command's "K" among them, wait in it), launch starts the
 * guard that reads it (nothing to do when st's guard runs already). */
int srt__bwrap_guard_open(struct srt__bwrap_state *st, const struct srt_command *cmd,
			  struct srt_diag *diag);
int srt__bwrap_guard_launch(struct srt__bwrap_state *st, const struct srt_command *cmd,
			    struct srt_diag *diag);
/* In a process forked from the one st's guard fields are of (a worker
 * forked after the start): forget that process's guard, closing this
 * copy's end of its pipe without a record (a quit from here would disarm
 * it), and mark the proxy's directory as that process's, so this one's
 * own guards are never told to remove it. Nothing in the process they
 * are of. */
void srt__bwrap_guard_adopt(struct srt__bwrap_state *st);
/* Reap the guard's short-lived parent: SRT_OK when the guard started. */
int srt__bwrap_guard_check(struct srt__bwrap_state *st, struct srt_diag *diag);
/* Send one record (type, then text) to the guard; SRT_OK with no guard. */
int srt__bwrap_guard_send(struct srt__bwrap_state *st, char type, const char *text,
			  struct srt_diag *diag);
/* srt__plan_create_fn for the mount plan: ctx is the srt__bwrap_state;
 * each placeholder is announced ("P") before it is created. */
void srt__bwrap_guard_announce(void *ctx, const char *path);

#endif
