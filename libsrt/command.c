/* What one sandboxed command needs around it, whoever spawns it: the
 * reader of the backend's violation lines, and the git guard's reports. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "gitguard.h"
#include "policy-build.h"
#include "violations.h"

#define EVENT_LINE_MAX 4096

/* Read until EOF (the monitor closes its end when the sandbox ends) or a
 * line holding a single NUL, the monitor's mark that nothing follows. */
static void *events_main(void *arg)
{
	struct srt__events_reader *er = arg;
	char buf[EVENT_LINE_MAX + 1];
	size_t have = 0;
	int skipping = 0;

	for (;;) {
		ssize_t n = read(er->fd, buf + have, EVENT_LINE_MAX - have);
		char *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			size_t l = (size_t)(nl - buf);
			*nl = '\0';
			if (!skipping && l == 1 && buf[0] == '\0')
				return NULL;
			if (!skipping && l > 0)
				srt__vstore_add(er->sb->violations, er->key, buf); /* as the monitor wrote it */
			skipping = 0;
			memmove(buf, nl + 1, have - l - 1);
			have -= l + 1;
		}
		if (have == EVENT_LINE_MAX) { /* an over-long line is dropped whole */
			have = 0;
			skipping = 1;
		}
	}
	return NULL;
}

void srt__events_start(struct srt__events_reader *er, struct srt_sandbox *sb,
		       const char *key, int fd)
{
	sigset_t all, old;

	er->sb = sb;
	er->key = key;
	er->fd = fd;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	er->running = pthread_create(&er->thread, NULL, events_main, er) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!er->running)
		srt__sandbox_log(sb, 0, "cannot start the violation reader: file violations of this command are not reported");
}

void srt__events_join(struct srt__events_reader *er)
{
	if (!er || !er->running)
		return;
	pthread_join(er->thread, NULL);
	er->running = 0;
}

void srt__on_gitguard(void *vctx, int is_violation, const char *line)
{
	struct srt__gitguard_ctx *gc = vctx;

	/* a rename is reported like every denial: in the summary, the log
	 * and the library's callback */
	if (is_violation)
		srt__vstore_add(gc->sb->violations, gc->key, line);
	else
		srt__sandbox_log(gc->sb, 1, "%s", line);
}

/* The git guard's sweep in a guard process that outlived srt: nobody to
 * report to (srt is gone), the quarantine itself is what counts. */
void srt__gitguard_orphan(void *ctx)
{
	srt__gitguard_sweep(ctx, NULL, NULL);
}

void srt__command_orphans(const struct srt_sandbox *sb, const struct srt_policy *pol,
			  struct srt__gitguard *gg, struct srt_command *cmd)
{
	/* a module older than the field would neither know it nor remove
	 * the directory: it keeps the sweep of the directory instead */
	if (sb->be->hdr.abi_minor >= 7 && srt__policy_own_tmpdir(pol))
		cmd->orphan_dir = pol->tmpdir;
	if (gg && srt__gitguard_orphan_work(gg, cmd->orphan_dir)) {
		/* srt SIGKILLed mid-run: the backend's guard sweeps instead */
		cmd->orphan_fn = srt__gitguard_orphan;
		cmd->orphan_ctx = gg;
		/* the same as a program, so the guard need not be a copy of
		 * srt: a module that knows the field runs it instead */
		if (sb->be->hdr.abi_minor >= 11)
			srt__gitguard_orphan_program(gg, &cmd->orphan_argv);
		cmd->n_orphan_fds = srt__gitguard_fds(gg, &cmd->orphan_fds);
	}
}
