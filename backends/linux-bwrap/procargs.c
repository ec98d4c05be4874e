/* linux-bwrap: the process/namespace words of the bwrap argv and the
 * helper's command line (anchor-inventory §4.3 rows 8-14, §4.10, §4.11).
 *
 * Capabilities: bwrap drops every capability (--cap-drop ALL) and keeps
 * CAP_SYS_ADMIN for srt-linux-init alone. The helper needs it to make the
 * nested pid + mount namespace and mount a /proc that shows only the
 * command's tree; it then drops every capability before anything from the
 * sandbox runs (see init/init.c). The reference instead nests a user
 * namespace (with CAP_SETFCAP for a uid-0 caller); measured on Linux 6.18
 * with bubblewrap 0.8, a uid-0 caller's fresh /proc cannot be mounted that
 * way (bwrap's read-only binds under its /proc are locked in the nested
 * namespace, so the kernel refuses proc as not fully visible), and the
 * command would keep every capability of the nested namespace. The helper
 * still falls back to a nested user namespace when bwrap cannot grant the
 * capability: a setuid-root bwrap refuses --cap-add for non-root callers,
 * so there we do not ask. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procargs.h"

static int push_all(struct srt_words *w, const char *const *v)
{
	for (; *v; v++)
		if (srt__words_push(w, *v))
			return SRT_E_NOMEM;
	return SRT_OK;
}

/* Is the bwrap srt will run setuid? pol->bwrap_path, else the first
 * "bwrap" on PATH (the core resolves it the same way). */
static int bwrap_is_setuid(const struct srt_policy *pol)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	struct stat st;
	const char *p, *e;

	if (pol->bwrap_path)
		return stat(pol->bwrap_path, &st) == 0 && (st.st_mode & S_ISUID);
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		size_t l;

		e = strchrnul(p, ':');
		l = (size_t)(e - p);
		if (l == 0 || p[0] != '/')
			continue;
		if (snprintf(buf, sizeof(buf), "%.*s/bwrap", (int)l, p) >= (int)sizeof(buf))
			continue;
		if (access(buf, X_OK) == 0)
			return stat(buf, &st) == 0 && (st.st_mode & S_ISUID);
	}
	return 0;
}

int srt__bwrap_process_args(const struct srt_policy *pol, struct srt_words *w,
			    struct srt_diag *diag)
{
	static const char *const ns_words[] = {
		"--dev", "/dev", "--unshare-pid", "--unshare-user", "--as-pid-1",
		"--cap-drop", "ALL", NULL,
	};
	static const char *const cap_words[] = { "--cap-add", "CAP_SYS_ADMIN", NULL };
	static const char *const proc_words[] = { "--proc", "/proc", NULL };
	static const char *const weak_proc_words[] = { "--bind", "/proc", "/proc", NULL };

	if (push_all(w, ns_words))
		goto nomem;
	if ((geteuid() == 0 || !bwrap_is_setuid(pol)) && push_all(w, cap_words))
		goto nomem;
	if (push_all(w, pol->weaker_nested_sandbox ? weak_proc_words : proc_words))
		goto nomem;
	return SRT_OK;
nomem:
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap arguments: out of memory");
}

int srt__bwrap_helper_args(const struct srt_policy *pol, const char *helper_path,
			   const char *const *argv, struct srt_words *w,
			   struct srt_diag *diag)
{
	return srt__bwrap_helper_args_status(pol, helper_path, -1, argv, w, diag);
}

int srt__bwrap_helper_args_status(const struct srt_policy *pol, const char *helper_path,
				  int status_fd, const char *const *argv,
				  struct srt_words *w, struct srt_diag *diag)
{
	char http[16], socks[16], fdnum[16];

	if (!helper_path || helper_path[0] != '/')
		return srt_diag_set(diag, SRT_E_INVAL, "srt-linux-init",
				    "the sandbox helper path \"%s\" is not absolute",
				    helper_path ? helper_path : "");
	if (!argv || !argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to run");
	if (srt__words_push(w, "--") || srt__words_push(w, helper_path))
		goto nomem;
	if (pol->proxy_socket) {
		if (pol->http_port < 1 || pol->http_port > 65535 || pol->socks_port < 1 ||
		    pol->socks_port > 65535)
			return srt_diag_set(diag, SRT_E_INVAL, "network",
					    "in-sandbox proxy ports %d/%d are out of range",
					    pol->http_port, pol->socks_port);
		snprintf(http, sizeof(http), "%d", pol->http_port);
		snprintf(socks, sizeof(socks), "%d", pol->socks_port);
		if (srt__words_push(w, "--proxy-socket") || srt__words_push(w, pol->proxy_socket) ||
		    srt__words_push(w, "--http-port") || srt__words_push(w, http) ||
		    srt__words_push(w, "--socks-port") || srt__words_push(w, socks))
			goto nomem;
	}
	if (pol->allow_all_unix_sockets && srt__words_push(w, "--allow-all-unix-sockets"))
		goto nomem;
	if (pol->allow_nested_userns && srt__words_push(w, "--allow-nested-userns"))
		goto nomem;
	if (pol->weaker_nested_sandbox && srt__words_push(w, "--weaker-nested-sandbox"))
		goto nomem;
	if (status_fd >= 0) {
		snprintf(fdnum, sizeof(fdnum), "%d", status_fd);
		if (srt__words_push(w, "--status-fd") || srt__words_push(w, fdnum))
			goto nomem;
	}
	if (pol->debug && srt__words_push(w, "--debug"))
		goto nomem;
	if (srt__words_push(w, "--"))
		goto nomem;
	for (; *argv; argv++)
		if (srt__words_push(w, *argv))
			goto nomem;
	return SRT_OK;
nomem:
	return srt_diag_set(diag, SRT_E_NOMEM, "", "bwrap arguments: out of memory");
}
