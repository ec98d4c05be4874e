/* Shared by the notify-* test helpers: load a filter that owns a seccomp
 * user-notification listener, then run a command under it. */
#ifndef SRT_TEST_NOTIFY_SPAWN_H
#define SRT_TEST_NOTIFY_SPAWN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif

/* prog loaded (no_new_privs first), then argv run in a child that does
 * not hold the listener; *listener is the parent's. Exits 77 when this
 * kernel cannot make such a filter, 1 when the fork fails; the child
 * exits 127 when the exec fails. who names the helper in messages. */
static inline pid_t notify_spawn(const char *who, struct sock_fprog *prog, char **argv,
				 int *listener)
{
	pid_t pid;
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "%s: no_new_privs: %s\n", who, strerror(errno));
		exit(77);
	}
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot make a listener here: %s\n", who, strerror(errno));
		exit(77);
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		close(fd);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: exec: %s\n", who, strerror(errno));
		_exit(127);
	}
	*listener = fd;
	return pid;
}

#endif
