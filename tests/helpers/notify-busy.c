/* notify-busy: run a command under a seccomp filter that already owns a
 * user-notification listener, as under a container supervisor that uses
 * seccomp notifications itself. The kernel then refuses a listener to
 * every filter below it (EBUSY), so srt-linux-init's violation monitor
 * cannot start and the helper must fall back to its plain filters.
 *
 *   notify-busy command [args...]
 *
 * The filter notifies only acct(2), which nothing in the tests calls. We
 * keep the listener open (the kernel forgets it when it is closed) while
 * the command runs, and exit with its status. Exit 77 when this kernel
 * cannot make such a filter. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notify-spawn.h"

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_acct, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	int fd, st = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: notify-busy command [args...]\n");
		return 2;
	}
	pid = notify_spawn("notify-busy", &prog, argv + 1, &fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
