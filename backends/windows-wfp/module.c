/* windows-wfp: the backend module (windows_wfp.dll). prepare() plans the
 * policy (plan.c, against the real filesystem) so a bad rule fails before
 * anything runs; wrap() turns the command into a run of the helper
 * srt-win.exe next to the module, handing it the policy as options, and
 * the helper applies the plan around the command (win32.c). spawn() starts
 * that helper in a job object that kills the whole tree when srt ends
 * (the core has no fork or pids on Windows). Nothing is bridged: the
 * command reaches the core's proxy on a loopback port of the range the
 * filters permit (SRT_CAP_LOOPBACK_PROXY). */
#define UNICODE
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <srt/backend.h>
#include "backends/windows-wfp/plan.h"
#include "backends/windows-wfp/win32.h"

struct state {
	const struct srt_policy *pol;
	struct srt__winplan plan;
	char helper[MAX_PATH * 3];
};

/* srt-win.exe beside this module's own file. */
static int helper_path(char *out, size_t n)
{
	HMODULE self;
	char *slash;

	if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
				GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
				(LPCSTR)(void *)helper_path, &self) ||
	    !GetModuleFileNameA(self, out, (DWORD)n))
		return -1;
	if (!(slash = strrchr(out, '\\')) || (size_t)(slash - out) + 13 > n)
		return -1;
	strcpy(slash + 1, "srt-win.exe");
	return GetFileAttributesA(out) == INVALID_FILE_ATTRIBUTES ? -1 : 0;
}

static int installed(void)
{
	HKEY k;

	if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, L"SOFTWARE\\sandbox-runtime", 0, KEY_READ, &k))
		return 0;
	RegCloseKey(k);
	return 1;
}

static int wfp_probe(const struct srt_policy *pol, struct srt_diag *diag)
{
	char helper[MAX_PATH * 3];

	(void)pol;
	if (helper_path(helper, sizeof(helper)))
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows-wfp",
				    "windows-wfp: srt-win.exe is missing beside the module: reinstall srt");
	if (!installed())
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows-wfp",
				    "windows-wfp: the sandbox account and WFP filters are not installed: "
				    "run srt-win windows-install once from an elevated prompt");
	return SRT_OK;
}

static int wfp_prepare(const struct srt_policy *pol, void **state, struct srt_diag *diag)
{
	struct state *s = calloc(1, sizeof(*s));
	struct srt__winplan_opts o;
	int rc;

	if (!s)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "windows-wfp: out of memory");
	if (helper_path(s->helper, sizeof(s->helper))) {
		free(s);
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows-wfp",
				    "windows-wfp: srt-win.exe is missing beside the module: reinstall srt");
	}
	/* where installed, the filters permit the range install gave them,
	 * not this run's: a proxy outside it could not be reached, and the
	 * filters would open the command ports the proxy is not on. The
	 * core binds the proxy (and sets the range) before prepare, after
	 * the probe. */
	if (pol->proxy_port_lo && installed()) {
		int lo, hi;

		srt__win32_installed_ports(&lo, &hi);
		if ((rc = srt__winplan_check_installed_ports(pol->proxy_port_lo, pol->proxy_port_hi,
								lo, hi, diag))) {
			free(s);
			return rc;
		}
	}
	memset(&o, 0, sizeof(o));
	o.allow_loopback = pol->allow_local_binding;
	/* the loopback ports the core's proxy may listen on: the only ones
	 * the command's filters permit (0: the default range) */
	o.port_lo = pol->proxy_port_lo;
	o.port_hi = pol->proxy_port_hi;
	if ((rc = srt__winplan_build(pol, &o, &srt__win32_fs, &s->plan, diag))) {
		free(s);
		return rc;
	}
	s->pol = pol;
	*state = s;
	return SRT_OK;
}

struct words {
	char **v;
	size_t n, cap;
	int bad;
};

static void word(struct words *w, const char *s)
{
	if (w->bad)
		return;
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		char **v = realloc(w->v, cap * sizeof(*v));

		if (!v) {
			w->bad = 1;
			return;
		}
		w->v = v;
		w->cap = cap;
	}
	if (!(w->v[w->n] = strdup(s))) {
		w->bad = 1;
		return;
	}
	w->v[++w->n] = NULL;
}

static void rules(struct words *w, const char *opt, const struct srt_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		word(w, opt);
		word(w, rs->v[i].path);
	}
}

static int wfp_wrap(void *state, const char *const *argv, struct srt_command *out,
		    struct srt_diag *diag)
{
	struct state *s = state;
	const struct srt_policy *p = s->pol;
	struct words w = { 0 };
	char depth[16];
	size_t i;

	word(&w, s->helper);
	word(&w, "run");
	if (p->cwd) {
		word(&w, "--cwd");
		word(&w, p->cwd);
	}
	if (p->home) {
		word(&w, "--home");
		word(&w, p->home);
	}
	if (!p->fs_disabled) {
		rules(&w, "--allow-read", &p->allow_read);
		rules(&w, "--allow-write", &p->allow_write);
		rules(&w, "--deny-read", &p->deny_read);
		rules(&w, "--deny-write", &p->deny_write);
	}
	snprintf(depth, sizeof(depth), "%d", p->mandatory_deny_depth);
	word(&w, "--depth");
	word(&w, depth);
	if (p->allow_git_config)
		word(&w, "--allow-git-config");
	if (p->allow_local_binding)
		word(&w, "--allow-loopback");
	if (p->proxy_port_lo) {
		char ports[32];

		snprintf(ports, sizeof(ports), "%d-%d", p->proxy_port_lo, p->proxy_port_hi);
		word(&w, "--ports");
		word(&w, ports);
	}
	word(&w, "--");
	for (i = 0; argv[i]; i++)
		word(&w, argv[i]);
	if (w.bad) {
		for (i = 0; i < w.n; i++)
			free(w.v[i]);
		free(w.v);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "windows-wfp: out of memory");
	}
	out->argv = w.v;
	return SRT_OK;
}

static void wfp_release(void *state, struct srt_command *cmd)
{
	size_t i;

	(void)state;
	for (i = 0; cmd->argv && cmd->argv[i]; i++)
		free(cmd->argv[i]);
	free(cmd->argv);
	cmd->argv = NULL;
}

/* ---- the run: process handles in a job object (ABI minor 5) ---- */

struct proc {
	HANDLE process, job;
};

/* envp as a UTF-16 environment block: NAME=VALUE strings, each ended by a
 * NUL, the block by another. NULL when out of memory or not UTF-8. */
static wchar_t *env_block(char *const *envp)
{
	size_t cap = 1, n = 0, i;
	wchar_t *b;

	for (i = 0; envp && envp[i]; i++)
		cap += strlen(envp[i]) + 1;
	if (!(b = calloc(cap, sizeof(*b))))
		return NULL;
	for (i = 0; envp && envp[i]; i++) {
		int w = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, envp[i], -1, b + n,
					    (int)(cap - n));
		if (w <= 0) {
			free(b);
			return NULL;
		}
		n += (size_t)w;
	}
	b[n] = 0;
	return b;
}

/* A job that kills every process in it when its last handle closes: srt
 * holds the only one, so the command's whole tree ends with srt, however
 * srt ends. */
static HANDLE kill_on_close_job(void)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job)
		return NULL;
	memset(&lim, 0, sizeof(lim));
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim))) {
		CloseHandle(job);
		return NULL;
	}
	return job;
}

static int win_fail(struct srt_diag *diag, const char *layer, const char *fix)
{
	DWORD e = GetLastError();

	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "windows-wfp",
			    "windows-wfp: %s failed (error %lu): %s", layer, (unsigned long)e, fix);
}

/* Only srt's standard handles reach the command (a handle list, so no
 * other inheritable handle of srt's leaks into it). */
static int std_handles(STARTUPINFOEXW *si, HANDLE h[3], size_t *n, struct srt_diag *diag)
{
	static const DWORD which[3] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE };
	SIZE_T len = 0;
	size_t i, j;

	*n = 0;
	for (i = 0; i < 3; i++) {
		HANDLE x = GetStdHandle(which[i]);

		if (x == NULL || x == INVALID_HANDLE_VALUE)
			continue;
		for (j = 0; j < *n && h[j] != x; j++)
			;
		if (j < *n)
			continue;
		SetHandleInformation(x, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
		h[(*n)++] = x;
	}
	si->StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si->StartupInfo.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si->StartupInfo.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	si->StartupInfo.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	InitializeProcThreadAttributeList(NULL, 1, 0, &len);
	if (!(si->lpAttributeList = calloc(1, len)))
		return srt_diag_set(diag, SRT_E_NOMEM, "", "windows-wfp: out of memory");
	if (!InitializeProcThreadAttributeList(si->lpAttributeList, 1, 0, &len) ||
	    (*n && !UpdateProcThreadAttribute(si->lpAttributeList, 0,
					      PROC_THREAD_ATTRIBUTE_HANDLE_LIST, h,
					      *n * sizeof(HANDLE), NULL, NULL))) {
		free(si->lpAttributeList);
		si->lpAttributeList = NULL;
		return win_fail(diag, "the command's standard handles (UpdateProcThreadAttribute)",
				"report this as a bug");
	}
	return SRT_OK;
}

/* Start cmd->argv suspended, put it in the job, then let it run: it never
 * runs a single instruction outside the job. */
static int wfp_spawn(void *state, struct srt_command *cmd, char *const *envp, void **out,
		     struct srt_diag *diag)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE h[3];
	size_t nh;
	wchar_t *line, *env;
	struct proc *p;
	BOOL made;
	int rc;

	(void)state;
	if (!cmd->argv || !cmd->argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "windows-wfp: no command to run");
	if (!(p = calloc(1, sizeof(*p))))
		return srt_diag_set(diag, SRT_E_NOMEM, "", "windows-wfp: out of memory");
	if (!(p->job = kill_on_close_job())) {
		free(p);
		return win_fail(diag, "job object (CreateJobObject)", "report this as a bug");
	}
	line = srt__win32_command_line(cmd->argv);
	env = envp ? env_block(envp) : NULL;
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	if (!line || (envp && !env)) {
		rc = srt_diag_set(diag, SRT_E_INVAL, "", "windows-wfp: the command line or the environment is not UTF-8, or memory ran out");
		goto fail;
	}
	if ((rc = std_handles(&si, h, &nh, diag)))
		goto fail;
	made = CreateProcessW(NULL, line, NULL, NULL, nh > 0,
			      CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT |
			      EXTENDED_STARTUPINFO_PRESENT,
			      env, NULL, &si.StartupInfo, &pi);
	DeleteProcThreadAttributeList(si.lpAttributeList);
	free(si.lpAttributeList);
	if (!made) {
		rc = win_fail(diag, "starting the command (CreateProcess)", cmd->argv[0]);
		goto fail;
	}
	if (!AssignProcessToJobObject(p->job, pi.hProcess)) {
		rc = win_fail(diag, "job object (AssignProcessToJobObject)", "report this as a bug");
		TerminateProcess(pi.hProcess, 1);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
		goto fail;
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	p->process = pi.hProcess;
	free(line);
	free(env);
	*out = p;
	return SRT_OK;
fail:
	free(line);
	free(env);
	CloseHandle(p->job);
	free(p);
	return rc;
}

static int wfp_wait_proc(void *state, void *proc, int *status, struct srt_diag *diag)
{
	struct proc *p = proc;
	DWORD code;

	(void)state;
	if (WaitForSingleObject(p->process, INFINITE) != WAIT_OBJECT_0)
		return win_fail(diag, "waiting for the command (WaitForSingleObject)", "report this as a bug");
	if (!GetExitCodeProcess(p->process, &code))
		return win_fail(diag, "the command's exit code (GetExitCodeProcess)", "report this as a bug");
	*status = (int)code;
	return SRT_OK;
}

/* Whatever the command left running ends with the job. */
static void wfp_end_proc(void *state, void *proc)
{
	struct proc *p = proc;

	(void)state;
	if (!p)
		return;
	TerminateJobObject(p->job, 1);
	CloseHandle(p->job);
	CloseHandle(p->process);
	free(p);
}

static int wfp_explain(void *state, const struct srt_command *cmd, FILE *out)
{
	struct state *s = state;

	(void)cmd;
	srt__winplan_print(&s->plan, out);
	return SRT_OK;
}

static void wfp_teardown(void *state)
{
	struct state *s = state;

	if (!s)
		return;
	srt__winplan_free(&s->plan);
	free(s);
}

__declspec(dllexport) const struct srt_backend srt_backend_entry = {
	.hdr = {
		.magic = SRT_BACKEND_MAGIC,
		.abi_major = SRT_BACKEND_ABI_MAJOR,
		.abi_minor = SRT_BACKEND_ABI_MINOR,
		.size = sizeof(struct srt_backend),
		.name = "windows-wfp",
	},
	.caps = SRT_CAP_FILESYSTEM | SRT_CAP_NETRULES | SRT_CAP_LOOPBACK_PROXY,
	.probe = wfp_probe,
	.prepare = wfp_prepare,
	.wrap = wfp_wrap,
	.started = NULL,
	.release = wfp_release,
	.explain = wfp_explain,
	.teardown = wfp_teardown,
	.diagnose = NULL,
	.spawn = wfp_spawn,
	.wait_proc = wfp_wait_proc,
	.end_proc = wfp_end_proc,
};
