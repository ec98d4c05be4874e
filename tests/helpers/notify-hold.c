/* notify-hold: run a command whose every bind(2) of an IPv4 or IPv6
 * address (the address length of a sockaddr_in or sockaddr_in6), in its
 * whole process tree, is held for a while and then refused, through a
 * seccomp filter that notifies those binds and a supervisor (this
 * process) that answers late. Other binds (bwrap's netlink socket) go on.
 *
 *   notify-hold MS command [args...]
 *
 * Each such bind waits MS milliseconds, then fails with EADDRINUSE. In
 * srt-linux-init only the outer helper binds (the proxy bridge's
 * listeners), after the nested namespaces are made: the hold keeps the
 * outer helper's setup from finishing while the nested init and the
 * worker set up theirs, and its failure must stop the run before the
 * command starts. Exit status: the command's; 77 when this kernel cannot
 * make such a filter. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notify-spawn.h"

/* one notification: held ms milliseconds, then refused */
static void answer(int fd, long ms)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return; /* the caller is gone (ENOENT), or interrupted */
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = -EADDRINUSE;
	ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_bind, 0, 4),
		/* the low 32 bits of the address length */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sizeof(struct sockaddr_in), 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sizeof(struct sockaddr_in6), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	long ms;
	int fd, st = 0;
	pid_t pid;

	if (argc < 3 || (ms = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: notify-hold MS command [args...]\n");
		return 2;
	}
	pid = notify_spawn("notify-hold", &prog, argv + 2, &fd);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (poll(&p, 1, 50) > 0) {
			if (p.revents & POLLIN)
				answer(fd, ms);
			else if (p.revents & (POLLHUP | POLLERR))
				usleep(10000); /* every user gone: the wait above ends it */
		}
	}
	close(fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
