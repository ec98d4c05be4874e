/* linux-bwrap: the backend's state between prepare() and teardown(),
 * shared by the vtable (bwrap.c) and the cleanup guard (guard.c). */
#ifndef SRT_BWRAP_STATE_H
#define SRT_BWRAP_STATE_H

#include <limits.h>
#include <sys/types.h>
#include <srt/policy.h>

struct srt__bwrap_state {
	const struct srt_policy *pol;
	char bwrap[PATH_MAX];
	char helper[PATH_MAX];
	int guard_fd;    /* write end of the cleanup guard's pipe, or -1 */
	int guard_rd;    /* its read end while the guard is not started yet
			  * (srt__bwrap_guard_open), or -1 */
	pid_t guard_mid; /* the short-lived parent of the guard, until reaped */
	int guard_ready; /* a spawned guard's "G" arrives here, until read, or -1 */
	int guard_used;  /* a command has run under this guard */
	int guard_gone;  /* the pipe has no reader (its guard ended before it
			  * was in place, or teardown closed the reader of one
			  * never started): never written to again; closed by
			  * bw_release once no command runs, or by teardown */
	int running;     /* commands between wrap() and release() */
	int proxy_dir_sent;
	int proxy_dir_foreign; /* a copy made by fork: the proxy's directory
				* is the other process's, never this one's
				* guards' to remove (srt__bwrap_guard_adopt) */
	pid_t owner;     /* the process this state's guard fields are of */
};

#endif
