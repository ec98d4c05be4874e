/* wrap-run: srt's command line (the part the test scripts use) done with
 * the library's wrap mode, so the escape scripts can run their attacks in
 * a command the caller spawned itself:
 *   wrap-run [--backend=B] [-d|--debug] -s FILE (-c STRING | [--] ARGV...)
 * It creates the sandbox, wraps the command, forks, calls
 * srt_wrapped_child_setup in the child and execs, reports the pid and the
 * end, and exits with the command's status (128+N for signal N).
 * WRAP_RUN_FORM=string spawns /bin/sh -c with the string form instead of
 * argv and envp. WRAP_RUN_SPAWN=parent leaves srt_wrapped_child_setup out:
 * the child does only what a spawner that runs no code of the caller's in
 * the child can (posix_spawn's file actions and process group, Python's
 * subprocess), and srt_command_started does the rest from the parent.
 * WRAP_RUN_REPEAT=N runs the command N times in the one
 * sandbox (for the cost per command) and exits with the last status.
 * Like srt: a sandbox that cannot be created, started or wrapped prints
 * "srt: <message>" and exits 1; one that could not be confirmed after the
 * spawn (the command was killed) exits 125. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <srt/srt.h>

static int fail(const struct srt_diag *d, int code)
{
	fprintf(stderr, "srt: %s\n", d->message);
	return code;
}

/* What a spawner without code in the child does: the descriptors inherited
 * at their numbers, a process group of the child's own. */
static int child_setup_outside(const struct srt_wrapped *w)
{
	for (int i = 0; i < w->n_fds; i++)
		if (fcntl(w->fds[i], F_SETFD, 0) != 0)
			return -1;
	return w->new_pgrp ? setpgid(0, 0) : 0;
}

static int spawn_one(struct srt_sandbox *sb, const char *shell_cmd, char *const *argv,
		     int string_form, int parent_only)
{
	struct srt_wrapped *w = NULL;
	struct srt_diag d;
	int rc, st = 0, status;
	pid_t pid;

	memset(&d, 0, sizeof(d));
	if (shell_cmd)
		rc = srt_sandbox_wrap_shell(sb, shell_cmd, NULL, NULL, &w, &d);
	else
		rc = srt_sandbox_wrap(sb, (const char *const *)argv, NULL, &w, &d);
	if (rc)
		return fail(&d, 1);
	pid = fork();
	if (pid < 0) {
		perror("srt: fork");
		srt_command_finished(w, -1);
		return 125;
	}
	if (pid == 0) {
		if ((parent_only ? child_setup_outside(w) : srt_wrapped_child_setup(w)) != 0 ||
		    chdir(w->cwd) != 0)
			_exit(125);
		if (string_form) {
			char *sh[] = { "/bin/sh", "-c", (char *)w->shell_command, NULL };
			execv(sh[0], sh);
		} else {
			execve(w->argv[0], w->argv, w->envp);
		}
		_exit(127);
	}
	rc = srt_command_started(w, pid, &d);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	srt_command_finished(w, status);
	if (rc)
		return fail(&d, 125);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "debug", no_argument, NULL, 'd' },
		{ "settings", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *settings = NULL, *cmd = NULL, *form = getenv("WRAP_RUN_FORM");
	const char *rep = getenv("WRAP_RUN_REPEAT"), *spawn = getenv("WRAP_RUN_SPAWN");
	struct srt_options opt;
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	int c, i, n = rep ? atoi(rep) : 1, status = 0;

	memset(&opt, 0, sizeof(opt));
	memset(&d, 0, sizeof(d));
	while ((c = getopt_long(argc, argv, "+b:ds:c:", lo, NULL)) != -1) {
		switch (c) {
		case 'b': opt.backend = optarg; break;
		case 'd': opt.debug = 1; break;
		case 's': settings = optarg; break;
		case 'c': cmd = optarg; break;
		default: return 2;
		}
	}
	if (!cmd && optind >= argc) {
		fprintf(stderr, "usage: wrap-run [--backend=B] -s FILE (-c STRING | [--] ARGV...)\n");
		return 2;
	}
	if (srt_sandbox_new_from_file(&sb, settings, settings != NULL, &opt, &d) ||
	    srt_sandbox_start(sb, &d)) {
		srt_sandbox_free(sb);
		return fail(&d, 1);
	}
	for (i = 0; i < (n > 0 ? n : 1); i++)
		status = spawn_one(sb, cmd, argv + optind, form && !strcmp(form, "string"),
				   spawn && !strcmp(spawn, "parent"));
	srt_sandbox_free(sb);
	return status;
}
