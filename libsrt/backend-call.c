/* The one place the core calls a backend's optional slots: each wrapper
 * reads its slot only if the slot lies inside the size the module declared,
 * and calls it only if it is set; otherwise SRT_E_UNSUPPORTED. This is what
 * lets a module built for an older ABI minor (a shorter struct) load: the
 * slots it lacks read as absent, never as whatever follows it in memory. */
#include "config.h"

#include "backend-call.h"

int srt__backend_started(const struct srt_backend *be, void *state,
			 struct srt_command *cmd, pid_t pid, struct srt_diag *diag)
{
	if (!SRT__BACKEND_HAS(be, started))
		return SRT_E_UNSUPPORTED;
	return be->started(state, cmd, pid, diag);
}

int srt__backend_explain(const struct srt_backend *be, void *state,
			 const struct srt_command *cmd, FILE *out)
{
	if (!SRT__BACKEND_HAS(be, explain))
		return SRT_E_UNSUPPORTED;
	return be->explain(state, cmd, out);
}

int srt__backend_diagnose(const struct srt_backend *be, srt_report_fn report, void *ctx)
{
	if (!SRT__BACKEND_HAS(be, diagnose))
		return SRT_E_UNSUPPORTED;
	be->diagnose(report, ctx);
	return SRT_OK;
}

int srt__backend_early(const struct srt_backend *be, void *state, const char *const *argv,
		       struct srt_command *out, struct srt_diag *diag)
{
	if (!SRT__BACKEND_HAS(be, early) || srt__backend_spawns(be))
		return SRT_E_UNSUPPORTED;
	return be->early(state, argv, out, diag);
}

int srt__backend_spawns(const struct srt_backend *be)
{
	return SRT__BACKEND_HAS(be, spawn) && SRT__BACKEND_HAS(be, wait_proc) &&
	       SRT__BACKEND_HAS(be, end_proc);
}

int srt__backend_run(const struct srt_backend *be, void *state, struct srt_command *cmd,
		     char *const *envp, int *status, struct srt_diag *diag)
{
	void *proc = NULL;
	int rc;

	if (!srt__backend_spawns(be))
		return SRT_E_UNSUPPORTED;
	rc = be->spawn(state, cmd, envp, &proc, diag);
	if (rc)
		return rc;
	rc = be->wait_proc(state, proc, status, diag);
	/* also after a failed wait: nothing of the run may outlive it */
	be->end_proc(state, proc);
	return rc;
}
