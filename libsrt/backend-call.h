/* Calls into a backend's optional slots (backend-call.c).
 *
 * A module built for an older ABI minor exports a shorter struct
 * srt_backend: the slots added after it are not in its memory at all. So
 * the core never reads an optional slot directly; it calls these, which
 * read the slot only when it lies inside the size the module declared
 * (hdr.size) and call it only when it is set. Mandatory slots (probe,
 * prepare, wrap, release, teardown) are inside every accepted module's
 * size and checked non-NULL by the loader, so they are called directly. */
#ifndef SRT_LIBSRT_BACKEND_CALL_H
#define SRT_LIBSRT_BACKEND_CALL_H

#include <stddef.h>
#include <stdio.h>
#include <srt/backend.h>

/* The smallest struct srt_backend the core accepts: the header and every
 * slot up to the last mandatory one (teardown), as at ABI 1.0. */
#define SRT__BACKEND_MIN_SIZE \
	(offsetof(struct srt_backend, teardown) + sizeof(((struct srt_backend *)0)->teardown))

/* Is the optional slot inside be's declared size, and set? The size test
 * comes first, so that a slot past the end is never read. For a caller
 * that must tell "absent" from the slot's own SRT_E_UNSUPPORTED. */
#define SRT__BACKEND_HAS(be, slot) \
	(offsetof(struct srt_backend, slot) + sizeof((be)->slot) <= (be)->hdr.size && \
	 (be)->slot != NULL)

/* be->started(state, cmd, pid, diag), or SRT_E_UNSUPPORTED when the
 * module has no such slot. */
int srt__backend_started(const struct srt_backend *be, void *state,
			 struct srt_command *cmd, pid_t pid, struct srt_diag *diag);

/* be->explain(state, cmd, out), or SRT_E_UNSUPPORTED. */
int srt__backend_explain(const struct srt_backend *be, void *state,
			 const struct srt_command *cmd, FILE *out);

/* be->diagnose(report, ctx) and SRT_OK, or SRT_E_UNSUPPORTED (nothing
 * reported). */
int srt__backend_diagnose(const struct srt_backend *be, srt_report_fn report, void *ctx);

/* be->early(state, argv, out, diag) (ABI minor 10: the command started
 * before it is planned), or SRT_E_UNSUPPORTED when the module has no such
 * slot or runs commands itself. */
int srt__backend_early(const struct srt_backend *be, void *state, const char *const *argv,
		       struct srt_command *out, struct srt_diag *diag);

/* Does the module run commands itself (ABI minor 5: spawn, wait_proc and
 * end_proc all inside its size and set)? */
int srt__backend_spawns(const struct srt_backend *be);

/* Run cmd through the module's process slots: spawn, wait, end. *status:
 * the command's exit code. SRT_E_UNSUPPORTED when the module has none. */
int srt__backend_run(const struct srt_backend *be, void *state, struct srt_command *cmd,
		     char *const *envp, int *status, struct srt_diag *diag);

#endif
