/* linux-landlock: replay a rule plan (format in plan.h) on this process.
 *
 * Shared by the two helpers that apply a plan: srt-landlock-exec (the
 * linux-landlock backend) and srt-linux-init's worker (the Landlock layer
 * of linux-bwrap). Both read the plan from a sealed memfd srt wrote, build
 * the ruleset record by record, then restrict themselves. Nothing here
 * exits: a failure fills step and why, and the caller reports it its own
 * way and refuses to run the command.
 *
 * One record exists only for the layer inside linux-bwrap, accepted when
 * the caller passes SRT_LL_REPLAY_HERE:
 *
 *   "here HEX PATH"   grant HEX on what is at PATH when the plan is
 *                     replayed (no dev/ino check): objects bwrap and the
 *                     helper make inside the sandbox (its /dev, its /proc)
 *                     that do not exist on the host where srt planned. */
#ifndef SRT_LANDLOCK_REPLAY_H
#define SRT_LANDLOCK_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define SRT_LL_REPLAY_HERE 1u

struct srt__ll_replay {
	int abi;            /* the ABI the plan needs at least */
	int kernel_abi;     /* what this kernel offers (filled when the ruleset is made) */
	uint64_t fs, net, scope, stdio;
	unsigned seccomp;
	int inet_block;
	int meta_block;
	int ruleset_fd;     /* -1: the plan handles nothing */
	size_t n_rules;     /* rules added to the ruleset */
	size_t n_skipped;   /* planned objects gone or replaced: not granted */
	char step[64];      /* the failing step, e.g. "parse plan" */
	char why[512];
};

/* Zero p and mark it empty (ruleset_fd -1). */
void srt__ll_replay_init(struct srt__ll_replay *p);

/* Read the whole plan from fd (a regular file of at most
 * SRT_LL_PLAN_MAX_BYTES) into a malloc'd NUL-terminated buffer. */
int srt__ll_replay_read(struct srt__ll_replay *p, int fd, char **buf, size_t *len);

/* Parse the records of buf (modified in place) and build the ruleset:
 * every header exactly once before the rules, each granted path opened
 * and checked against the planned object. flags: SRT_LL_REPLAY_*. */
int srt__ll_replay_build(struct srt__ll_replay *p, char *buf, size_t len, unsigned flags);

/* Grant a regular-file stdout/stderr the plan's stdio rights (a caller's
 * "> file" may be reopened through /dev/stdout). */
int srt__ll_replay_stdio(struct srt__ll_replay *p);

/* landlock_restrict_self with the ruleset (needs no_new_privs or
 * CAP_SYS_ADMIN), then close it. Nothing to do without a ruleset. */
int srt__ll_replay_restrict(struct srt__ll_replay *p);

/* Close the ruleset if it is still open. */
void srt__ll_replay_release(struct srt__ll_replay *p);

#endif
