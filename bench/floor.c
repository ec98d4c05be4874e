/* The start-up floor: the least a runtime built like srt can take.
 *
 *   floor launch BWRAP [ARGS...]   start BWRAP with vfork+exec, wait, exit
 *                                  with its status (what srt does around bwrap,
 *                                  with no settings, plan or guard)
 *   floor nest CMD [ARGS...]       in the sandbox: a new pid + mount
 *                                  namespace, a fresh /proc, fork, exec CMD,
 *                                  wait (what srt-linux-init does, with no
 *                                  seccomp, Landlock, monitor or bridge)
 *
 * The benchmark runs `floor launch bwrap <bare args> --cap-add CAP_SYS_ADMIN
 * -- floor nest true` next to bare bwrap and srt: the gap between this and
 * bare bwrap is the cost of the second process, exec and namespace layer
 * the helper issue requires; the gap between srt and this is srt's own
 * work (settings, plan, guard, filters, Landlock, monitor). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(pid_t p)
{
	int st;

	if (waitpid(p, &st, 0) != p)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int launch(char **argv)
{
	pid_t p = vfork();

	if (p == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return p < 0 ? 125 : status_of(p);
}

static int nest(char **argv)
{
	pid_t p = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, NULL);

	if (p < 0) {
		perror("floor: clone");
		return 125;
	}
	if (p == 0) {
		pid_t w;

		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
			perror("floor: mount");
			_exit(125);
		}
		w = fork();
		if (w == 0) {
			execvp(argv[0], argv);
			_exit(127);
		}
		_exit(w < 0 ? 125 : status_of(w));
	}
	return status_of(p);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "launch"))
		return launch(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "nest"))
		return nest(argv + 2);
	fprintf(stderr, "usage: floor launch BWRAP [ARGS...] | floor nest CMD [ARGS...]\n");
	return 2;
}
