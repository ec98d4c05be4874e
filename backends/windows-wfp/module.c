/* windows-wfp: the backend module (windows_wfp.dll). prepare() plans the
 * policy (plan.c, against the real filesystem) so a bad rule fails before
 * anything runs; wrap() turns the command into a run of the helper
 * srt-win.exe next to the module, handing it the policy as options, and
 * the helper applies the plan around the command (win32.c). */
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
	memset(&o, 0, sizeof(o));
	o.allow_loopback = pol->allow_local_binding;
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
	.caps = SRT_CAP_FILESYSTEM | SRT_CAP_NETRULES,
	.probe = wfp_probe,
	.prepare = wfp_prepare,
	.wrap = wfp_wrap,
	.started = NULL,
	.release = wfp_release,
	.explain = wfp_explain,
	.teardown = wfp_teardown,
	.diagnose = NULL,
};
