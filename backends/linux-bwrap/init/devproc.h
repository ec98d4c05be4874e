/* srt-linux-init: the sandbox's /dev and /proc. */
#ifndef SRT_INIT_DEVPROC_H
#define SRT_INIT_DEVPROC_H

/* Bind read-only over the writable parts of a fresh /proc (/proc/sys,
 * sysrq-trigger, irq, bus). required: a failure fails (-1, reported);
 * else it is only said under debug. */
int srt__init_cover_proc(int required, int debug);
/* Not the host's user namespace? (Unreadable counts as the host's.) */
int srt__init_in_new_userns(void);
/* --make-dev-proc: bwrap's --dev /dev and a /proc for bwrap's pid
 * namespace, made here. 0, or -1 after reporting. */
int srt__init_make_dev_proc(void);

#endif
