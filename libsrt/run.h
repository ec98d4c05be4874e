/* Spawning the wrapped command and waiting for it, with signal forwarding. */
#ifndef SRT_RUN_H
#define SRT_RUN_H

#include <sys/types.h>
#include <srt/error.h>
#include "settings.h"

/* Build the child environment: a copy of `base` with each NAME=VALUE of
 * `set` replacing any entry of the same name. NULL-terminated, malloc'd. */
int srt__env_build(char *const *base, const struct srt__strv *set, char ***out);
void srt__env_free(char **env);

struct srt__spawn_args {
	char *const *argv;   /* argv[0] absolute or found on PATH */
	char *const *envp;
	const int *keep_fds; /* inherited by the child */
	int n_keep_fds;
	int null_fd;         /* >= 3: /dev/null at this fd in the child */
	int new_pgrp;        /* setpgid(0, 0) in the child */
	int announce_fd;     /* > 2: before exec the child writes "K<its pid>\0"
			      * here (a guard that must know its process group
			      * before srt can die) and raises its OOM score
			      * (SRT_GUARD_OOM_RAISE, srt/backend.h) */
	unsigned long long nofile_soft; /* RLIMIT_NOFILE soft limit for the child
					 * (0: leave as is) */
	int close_after_spawn; /* > 2, srt__spawn_begin only: closed in srt as
				* soon as the spawn is over, exec'd or failed
				* (see srt_command.close_after_spawn) */
};

/* fork + exec. The child starts with an empty signal mask and default
 * dispositions. *pid on success. Exec failure in the child exits 127. */
int srt__spawn(const struct srt__spawn_args *sp, pid_t *pid, struct srt_diag *diag);

/* srt__spawn on a thread of its own, for a command started before its
 * plan: the calling thread plans on while the spawning thread waits for
 * the child's exec (a vfork parent woken on the child's CPU waited there
 * behind the child for a millisecond with the other CPU idle). begin
 * copies sp but not what it points to (argv, envp), which must stay as
 * they are until wait returns. wait: srt__spawn's result and *pid. end:
 * after the command has ended (or was killed and reaped) only: the child
 * was started with a parent-death signal, which follows the spawning
 * thread, so that thread lives until end. end is NULL-safe and also
 * follows a begin whose wait was never called. */
struct srt__spawner;
int srt__spawn_begin(const struct srt__spawn_args *sp, struct srt__spawner **out,
		     struct srt_diag *diag);
int srt__spawn_wait(struct srt__spawner *s, pid_t *pid, struct srt_diag *diag);
void srt__spawn_end(struct srt__spawner *s);

/* Wait for pid. With forward != 0, INT TERM HUP QUIT USR1 USR2 received by
 * the calling thread (which must have them blocked) are sent to
 * *signal_pid (read at each signal, so it may be filled in late; 0 means
 * pid). *status: exit code, or 128+N for a death by signal N. */
int srt__wait(pid_t pid, const volatile pid_t *signal_pid, int forward,
	      int *status, struct srt_diag *diag);

/* Stop, then kill and reap, every child of this process, again and again
 * until none is left. For a caller that made itself a child subreaper to
 * catch what a command without a pid namespace leaves behind, and has no
 * child of its own to keep. 0, or -1 when children were still appearing
 * after every round. */
int srt__end_children(void);

#endif
