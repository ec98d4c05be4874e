/* A backend module for win/test.sh ONLY, that ENFORCES NOTHING: it runs
 * the command as it is, in a kill-on-close job object, and declares that
 * the command reaches the proxy itself on a loopback port
 * (SRT_CAP_LOOPBACK_PROXY, as windows-wfp does), so that under Wine,
 * where windows-wfp cannot run a command (no sandbox account), the core's
 * side of a run can: the proxy bound in windows.proxyPortRange with the
 * run's token, the command's environment (GIT_SSH_COMMAND naming
 * srt-connect.exe beside this module), and a command going through that
 * proxy. The Linux twin is tests/fake/fake_module.c's FAKE_LOOPBACK_PROXY.
 * win/build.sh puts it in win/out/test/, apart from what srt.exe loads by
 * name; it is loaded only by its absolute path (--backend). Never ship
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <srt/backend.h>

static int t_probe(const struct srt_policy *p, struct srt_diag *d)
{
	(void)p; (void)d;
	return SRT_OK;
}

static int t_prepare(const struct srt_policy *p, void **s, struct srt_diag *d)
{
	(void)p; (void)d;
	*s = NULL;
	return SRT_OK;
}

static int t_wrap(void *s, const char *const *a, struct srt_command *o, struct srt_diag *d)
{
	size_t n = 0, i;

	(void)s; (void)d;
	while (a[n])
		n++;
	if (!(o->argv = calloc(n + 1, sizeof(*o->argv))))
		return SRT_E_NOMEM;
	for (i = 0; i < n; i++)
		if (!(o->argv[i] = strdup(a[i])))
			return SRT_E_NOMEM;
	return SRT_OK;
}

static void t_release(void *s, struct srt_command *c)
{
	(void)s;
	for (size_t i = 0; c->argv && c->argv[i]; i++)
		free(c->argv[i]);
	free(c->argv);
	c->argv = NULL;
}

static void t_teardown(void *s)
{
	(void)s;
}

/* One argument as CreateProcess's parser reads it back: in quotes when
 * it has a blank or a quote, a quote escaped, the backslashes before a
 * quote doubled. */
static void quote_arg(const char *a, char *out, size_t *o, size_t cap)
{
	size_t bs = 0;
	int q = !*a || strpbrk(a, " \t\"") != NULL;

#define PUT(c) do { if (*o + 1 < cap) out[(*o)++] = (c); } while (0)
	if (q)
		PUT('"');
	for (; *a; a++) {
		if (*a == '\\') {
			bs++;
			PUT('\\');
			continue;
		}
		if (*a == '"') {
			while (bs--)
				PUT('\\');
			PUT('\\');
		}
		bs = 0;
		PUT(*a);
	}
	if (q) {
		while (bs--)
			PUT('\\');
		PUT('"');
	}
#undef PUT
}

struct proc {
	HANDLE job, process;
};

static int t_spawn(void *s, struct srt_command *c, char *const *envp, void **out, struct srt_diag *d)
{
	static char line[32768], env[65536];
	size_t o = 0, e = 0, i;
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	struct proc *p;

	(void)s;
	for (i = 0; c->argv[i]; i++) {
		if (i)
			line[o++] = ' ';
		quote_arg(c->argv[i], line, &o, sizeof(line) - 1);
	}
	line[o] = '\0';
	for (i = 0; envp && envp[i]; i++) {
		size_t l = strlen(envp[i]) + 1;
		if (e + l + 1 > sizeof(env))
			return srt_diag_set(d, SRT_E_INVAL, "", "passthrough-test: environment too large");
		memcpy(env + e, envp[i], l);
		e += l;
	}
	env[e] = '\0';
	if (!(p = calloc(1, sizeof(*p))) || !(p->job = CreateJobObjectA(NULL, NULL))) {
		free(p);
		return srt_diag_set(d, SRT_E_NOMEM, "", "passthrough-test: no job object");
	}
	memset(&lim, 0, sizeof(lim));
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	SetInformationJobObject(p->job, JobObjectExtendedLimitInformation, &lim, sizeof(lim));
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (!CreateProcessA(NULL, line, NULL, NULL, TRUE, CREATE_SUSPENDED, env, NULL, &si, &pi)) {
		CloseHandle(p->job);
		free(p);
		return srt_diag_set(d, SRT_E_IO, "", "passthrough-test: CreateProcess failed (error %lu) for %s",
				    GetLastError(), line);
	}
	AssignProcessToJobObject(p->job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	p->process = pi.hProcess;
	*out = p;
	return SRT_OK;
}

static int t_wait_proc(void *s, void *proc, int *status, struct srt_diag *d)
{
	struct proc *p = proc;
	DWORD code = 1;

	(void)s; (void)d;
	WaitForSingleObject(p->process, INFINITE);
	GetExitCodeProcess(p->process, &code);
	*status = (int)code;
	return SRT_OK;
}

static void t_end_proc(void *s, void *proc)
{
	struct proc *p = proc;

	(void)s;
	if (!p)
		return;
	TerminateJobObject(p->job, 1);
	CloseHandle(p->job);
	CloseHandle(p->process);
	free(p);
}

__declspec(dllexport) const struct srt_backend srt_backend_entry = {
	.hdr = {
		.magic = SRT_BACKEND_MAGIC,
		.abi_major = SRT_BACKEND_ABI_MAJOR,
		.abi_minor = SRT_BACKEND_ABI_MINOR,
		.size = sizeof(struct srt_backend),
		.name = "passthrough-test",
	},
	.caps = SRT_CAP_NETRULES | SRT_CAP_LOOPBACK_PROXY,
	.probe = t_probe,
	.prepare = t_prepare,
	.wrap = t_wrap,
	.release = t_release,
	.teardown = t_teardown,
	.spawn = t_spawn,
	.wait_proc = t_wait_proc,
	.end_proc = t_end_proc,
};
