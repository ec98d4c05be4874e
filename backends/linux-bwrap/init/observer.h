/* srt-linux-init: starting the violation monitor (monitor.h) across the
 * nested namespaces: the worker loads the observe filter and hands its
 * listener over a socketpair to a thread of the outer helper, which
 * answers the notifications. */
#ifndef SRT_INIT_OBSERVER_H
#define SRT_INIT_OBSERVER_H

#include <sys/types.h>

#include "backends/linux-bwrap/init/monitor.h"
#include "backends/linux-bwrap/init/opts.h"

/* The violation monitor, when srt asked for it: the parsed policy (the
 * worker reads its flags from this copy too), and the socketpair the
 * worker hands the listener over: [0] the outer's end, [1] the worker's. */
extern struct srt__monitor *srt__init_monitor;
extern int srt__init_mon_sock[2];
/* In the worker, when it applies the Landlock layer and the monitor runs:
 * a copy of the layer's ruleset, handed to the monitor with the listener
 * (-1: no layer). The monitor makes some of the command's calls itself,
 * and makes them under the same rules (srt__monitor_confine). */
extern int srt__init_ll_ruleset;

/* The observe filter's flags for o and the loaded policy (0: nothing to
 * observe). */
unsigned srt__init_observe_flags(const struct srt__init_opts *o);

/* In the worker: load the observe filter (pb's program when it was built
 * ahead for these flags, else built here; pb may be NULL) and hand its
 * listener to the outer helper. Returns the flags for the enforcement
 * filter; exits when the filter is in place but nobody could answer it. */
struct srt__seccomp_prebuilt;
unsigned srt__init_start_observer(const struct srt__init_opts *o, const struct srt__seccomp_prebuilt *pb);
/* In the outer helper, after its last fork: the thread that receives the
 * listener and answers notifications; *child is killed if it cannot. 0 or
 * an errno. */
int srt__init_start_monitor_thread(pid_t *child);

#endif
