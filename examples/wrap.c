/* Wrap mode: the program spawns the sandboxed command itself, here under a
 * pseudo-terminal, and streams its output as it comes, the way an
 * agent framework runs a tool; srt attributes the command's violations and
 * cleans up.
 *
 * Build against the installed library:
 *   cc -o wrap wrap.c $(pkg-config --cflags --libs srt) -lutil
 * Run: ./wrap [BACKEND] [COMMAND]
 *
 * The sandbox may write to the current directory only; the default command
 * prints three lines and tries to write /etc/srt-example, which is refused
 * and reported after the output in a <sandbox_violations> block. */
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <srt/srt.h>

static const char settings[] =
	"{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},"
	"\"filesystem\":{\"denyRead\":[\"~/.ssh\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}}";

static void stream(int master)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* EIO: the terminal's last writer is gone */
			break;
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	const char *command = argc > 2 ? argv[2] :
		"for i in 1 2 3; do echo \"line $i\"; done; [ -t 1 ] && echo on-a-terminal; "
		"echo x > /etc/srt-example";
	struct srt_options opt;
	struct srt_sandbox *sb = NULL;
	struct srt_wrapped *w = NULL;
	struct srt_diag d;
	char *annotated = NULL, note[64];
	int master, slave, st = 0, status;
	pid_t pid;

	memset(&opt, 0, sizeof(opt));
	memset(&d, 0, sizeof(d));
	opt.backend = argc > 1 && *argv[1] ? argv[1] : NULL;
	if (srt_sandbox_new_from_text(&sb, settings, strlen(settings), SRT_SETTINGS_JSON, &opt, &d) ||
	    srt_sandbox_start(sb, &d) ||
	    srt_sandbox_wrap_shell(sb, command, NULL, NULL, &w, &d)) {
		fprintf(stderr, "srt: %s\n", d.message);
		srt_sandbox_free(sb);
		return 125;
	}
	/* the terminal is the command's stdio; not its controlling terminal
	 * (the sandbox starts a session of its own, so a command cannot
	 * push input into the caller's terminal), hence no forkpty here */
	if (openpty(&master, &slave, NULL, NULL, NULL) != 0 || (pid = fork()) < 0) {
		perror("openpty/fork");
		srt_command_finished(w, -1);
		srt_sandbox_free(sb);
		return 125;
	}
	if (pid == 0) {
		close(master);
		if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
			_exit(125);
		if (slave > 2)
			close(slave);
		if (srt_wrapped_child_setup(w) != 0 || chdir(w->cwd) != 0)
			_exit(125);
		execve(w->argv[0], w->argv, w->envp);
		_exit(127);
	}
	close(slave);
	if (srt_command_started(w, pid, &d) != 0)
		fprintf(stderr, "srt: %s\n", d.message); /* the command was killed */
	stream(master);
	close(master);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	srt_command_finished(w, status);
	snprintf(note, sizeof(note), "(exit %d)", status);
	if (srt_sandbox_annotate_stderr(sb, command, note, &annotated) == 0) {
		printf("%s\n", annotated);
		free(annotated);
	}
	srt_sandbox_free(sb);
	return 0;
}
