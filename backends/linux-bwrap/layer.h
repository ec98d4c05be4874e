/* linux-bwrap: the Landlock layer under the mounts.
 *
 * When the kernel offers Landlock, srt-linux-init's worker also restricts
 * the command with a Landlock ruleset planned from the same policy by the
 * linux-landlock planner, so that a command able to make namespaces
 * (allowNestedUserNamespaces) or otherwise to move mounts still cannot
 * reach what the mounts hide. A Landlock-restricted process cannot mount,
 * unmount, move mounts or pivot_root at all, so the mounts also stay where
 * bwrap put them.
 *
 * The plan is the planner's, adjusted to the sandbox the mounts make:
 *  - filesystem rights only: the network namespace, the pid namespace and
 *    srt-linux-init's own seccomp filters are the other layers;
 *  - read-dir on "/": every directory stays listable, as under the mounts
 *    (a denied directory is an empty tmpfs there); file contents, execute
 *    and writes follow the policy;
 *  - each write root the planner left writable in part gets the whole
 *    tree: Landlock cannot refuse one name inside a directory where it lets
 *    the command create entries, so the denies inside a write root
 *    (denyWrite, the mandatory denies, denyRead) are the mounts' alone
 *    there, and Landlock keeps those mounts in place;
 *  - the objects bwrap and the helper make inside the sandbox, which do
 *    not exist on the host where srt plans, are granted by path when the
 *    worker replays the plan ("here" records, replay.h): bwrap's /dev
 *    (its tmpfs, devpts, shm) and the helper's /proc.
 * Where the planner refuses (a rule Landlock cannot express, an ABI too
 * old, no Landlock), the layer is not applied and says why; the mounts
 * enforce the policy either way. The plan travels in a sealed memfd
 * (--landlock-plan-fd), never in argv. */
#ifndef SRT_BWRAP_LAYER_H
#define SRT_BWRAP_LAYER_H

#include <stddef.h>
#include <stdio.h>
#include <srt/error.h>
#include <srt/policy.h>

struct srt__ll_layer {
	int fd;            /* sealed memfd holding the plan, or -1: not applied */
	int abi;           /* Landlock ABI planned for */
	size_t n_rules;    /* rules in the plan, "here" grants included */
	char reason[600];  /* fd < 0: why the layer is not applied */
	int refused;       /* fd < 0 because of this policy on this tree (not
			    * a kernel without Landlock): the user is told */
};

/* Plan the layer for pol. Call it before srt__bwrap_plan_mounts: the
 * planner opens and closes directories, which would drop the POSIX locks
 * that plan keeps on its placeholders. Returns an error only when srt itself fails
 * (memory, memfd); a policy or kernel Landlock cannot serve leaves
 * layer->fd at -1 with the reason. into: -1, or an empty sealable memfd
 * made before the plan (a command started early already holds it), which
 * the plan then goes into: layer->fd is into once the layer applies, and
 * into stays the caller's otherwise. */
int srt__bwrap_ll_layer(const struct srt_policy *pol, struct srt__ll_layer *layer, int into,
			struct srt_diag *diag);
void srt__bwrap_ll_layer_release(struct srt__ll_layer *layer);
/* The --explain lines ("landlock layer: ..."). */
void srt__bwrap_ll_layer_explain(const struct srt__ll_layer *layer, int plan_only, FILE *out);

#endif
