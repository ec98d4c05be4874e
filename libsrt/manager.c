/* The sandbox's lifecycle: create it from settings (a file or text), start
 * it (settings -> policy -> backend -> proxy -> plan), run commands in it,
 * free it.
 *
 * Everything here is OS-neutral; the backend module does the OS work and the
 * proxy (proxies/) owns the sockets. Every setup failure is returned before
 * any command runs. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/platform.h"
#include "backend-call.h"
#include "backend-choice.h"
#include "child-env.h"
#include "command.h"
#include "credentials.h"
#include "filters.h"
#include "proxies/ask.h"
#include "gitguard.h"
#include "loader.h"
#include "policy-build.h"
#include "proxies/proxy.h"
#include "tls-setup.h"
#include "proxy-glue.h"
#include "run.h"
#include "filters.h"
#include "sandbox.h"
#include "violations.h"

const char *srt_version(void)
{
	return PACKAGE_VERSION;
}

void srt__sandbox_log(struct srt_sandbox *sb, int is_debug, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (is_debug && !sb->debug)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (sb->log)
		sb->log(sb->log_ctx, is_debug, line);
	else
		fprintf(stderr, "%s%s\n", is_debug ? "[srt debug] " : "srt: warning: ", line);
}

static int sb_alloc(struct srt_sandbox **out, const struct srt_options *opt,
		    struct srt_diag *diag)
{
	struct srt_sandbox *sb = calloc(1, sizeof(*sb));
	char buf[PATH_MAX];

	if (!sb)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "cannot create sandbox: out of memory");
	sb->proxy_dir_fd = -1;
	srt__settings_init(&sb->settings);
	pthread_mutex_init(&sb->update_lock, NULL);
	if (getrlimit(RLIMIT_NOFILE, &sb->nofile) != 0)
		sb->nofile.rlim_cur = sb->nofile.rlim_max = RLIM_INFINITY;
	if (srt__vstore_new(&sb->violations)) {
		free(sb);
		return srt_diag_set(diag, SRT_E_NOMEM, "", "cannot create sandbox: out of memory");
	}
	if (opt) {
		sb->debug = opt->debug;
		sb->live_updates = opt->live_updates;
		sb->plan_only = opt->plan_only;
		sb->log = opt->log;
		sb->log_ctx = opt->log_ctx;
		if (opt->backend && !(sb->backend_spec = strdup(opt->backend)))
			goto nomem;
		if (opt->protect_file && !(sb->protect_file = strdup(opt->protect_file)))
			goto nomem;
		if (opt->cwd && !(sb->cwd = strdup(opt->cwd)))
			goto nomem;
	}
	if (!sb->cwd) {
		if (!getcwd(buf, sizeof(buf))) {
			/* the write rule "." and relative paths are read from
			 * it: no guess at what they meant */
			int e = errno;

			srt_sandbox_free(sb);
			return srt_diag_set(diag, SRT_E_IO, "", "cannot tell the current directory: %s%s",
					    strerror(e),
					    e == ENOENT ? " (it was removed); run srt from a directory that exists" : "");
		}
		if (!(sb->cwd = strdup(buf)))
			goto nomem;
	}
	*out = sb;
	return SRT_OK;
nomem:
	srt_sandbox_free(sb);
	return srt_diag_set(diag, SRT_E_NOMEM, "", "cannot create sandbox: out of memory");
}

static void flush_warnings(struct srt_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->settings.warnings.n; i++)
		srt__sandbox_log(sb, 0, "%s", sb->settings.warnings.v[i]);
	for (i = 0; i < sb->settings.ignored_keys.n; i++)
		srt__sandbox_log(sb, 1, "settings key \"%s\" is accepted for compatibility and ignored",
		       sb->settings.ignored_keys.v[i]);
}

static char *default_settings_path(void)
{
	const char *home = getenv("HOME");
	char *p;

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home)
		return NULL;
	if (asprintf(&p, "%s/.srt-settings.json", home) < 0)
		return NULL;
	return p;
}

int srt_sandbox_new_from_file(struct srt_sandbox **out, const char *path,
			      int explicit_path, const struct srt_options *opt,
			      struct srt_diag *diag)
{
	struct srt_sandbox *sb = NULL;
	char *def = NULL, spelled[PATH_MAX];
	bool loaded = false;
	int rc;

	rc = sb_alloc(&sb, opt, diag);
	if (rc)
		return rc;
	if (!path) {
		def = default_settings_path();
		explicit_path = 0;
		path = def;
	}
	/* on Windows "C:\x\s.json" of the current drive is "/x/s.json";
	 * one on another drive or a share is refused by its name */
	if (path && srt__os_path_spell(path, spelled, sizeof(spelled)) < 0) {
		rc = srt_diag_set(diag, errno == ENAMETOOLONG ? SRT_E_LIMIT : SRT_E_UNSUPPORTED, path,
				  "settings file \"%s\": %s%s", path, strerror(errno),
				  errno == ENOSYS ? " (a path on another drive than the current "
						    "directory's, or a share); run srt from that drive" : "");
		goto out;
	}
	if (path)
		path = spelled;
	if (path) {
		rc = srt__settings_load_file(&sb->settings, path, explicit_path, &loaded, diag);
		if (rc)
			goto out;
		if (loaded && !(sb->settings_path = realpath(path, NULL)))
			sb->settings_path = strdup(path);
		if (loaded) {
			char cwd[PATH_MAX];

			if (path[0] == '/')
				sb->settings_named = strdup(path);
			else if (getcwd(cwd, sizeof(cwd)) &&
				 asprintf(&sb->settings_named, "%s/%s", cwd, path) < 0)
				sb->settings_named = NULL;
			/* without it the links naming the file would go unprotected */
			if (!sb->settings_named) {
				rc = srt_diag_set(diag, SRT_E_IO, path,
						  "settings file \"%s\": cannot tell its full path: %s", path, strerror(errno));
				goto out;
			}
		}
		if (!loaded)
			srt__sandbox_log(sb, 1, "no settings at %s, using the built-in defaults", path);
	}
	flush_warnings(sb);
	if ((rc = srt__sandbox_load_filters(sb, diag)))
		goto out;
	*out = sb;
	sb = NULL;
	rc = SRT_OK;
out:
	free(def);
	srt_sandbox_free(sb);
	return rc;
}

int srt_sandbox_new_from_text(struct srt_sandbox **out, const char *text,
			      size_t len, enum srt_settings_format fmt,
			      const struct srt_options *opt, struct srt_diag *diag)
{
	struct srt_sandbox *sb = NULL;
	int rc;

	rc = sb_alloc(&sb, opt, diag);
	if (rc)
		return rc;
	if (fmt == SRT_SETTINGS_YAML)
		rc = srt__settings_parse_yaml(&sb->settings, text, len, "settings", diag);
	else
		rc = srt__settings_parse_json(&sb->settings, text, len, "settings", diag);
	if (!rc) {
		flush_warnings(sb);
		rc = srt__sandbox_load_filters(sb, diag);
	}
	if (rc) {
		srt_sandbox_free(sb);
		return rc;
	}
	*out = sb;
	return SRT_OK;
}

/* A setting that would change enforcement but that this build does not
 * enforce yet is refused by name: running without it would silently give
 * the command more (or different) access than the file asks for. */
static int check_supported(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const struct srt__settings *s = &sb->settings;

	(void)diag;
	/* network.tlsTerminate (libsrt/tls-setup.c) and credentials
	 * (libsrt/credentials.c) are enforced: no key is refused here now */
	/* macOS/Windows-only keys change nothing on this platform. */
	if (s->allow_mach_lookup.n)
		srt__sandbox_log(sb, 1, "network.allowMachLookup applies to macOS only; the Linux backends ignore it");
	if (s->enable_weaker_network_isolation)
		srt__sandbox_log(sb, 1, "enableWeakerNetworkIsolation applies to macOS only; the Linux backends ignore it");
	if (s->allow_apple_events)
		srt__sandbox_log(sb, 1, "allowAppleEvents applies to macOS only; the Linux backends ignore it");
	if (s->allow_pty)
		srt__sandbox_log(sb, 1, "allowPty applies to macOS only; the Linux backends ignore it");
	if (s->has_windows)
		srt__sandbox_log(sb, 1, "windows settings apply to Windows only; ignored");
	return SRT_OK;
}

int srt_sandbox_start(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt__policy_env env;
	const char *files[2] = { NULL, NULL };
	int need_proxy;
	int rc;

	if (sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox already started");
	sb->owner = getpid();
	rc = check_supported(sb, diag);
	if (rc)
		return rc;

	memset(&env, 0, sizeof(env));
	env.cwd = sb->cwd;
	files[0] = sb->settings_path;
	env.settings_files = files;
	env.settings_named = sb->settings_named;
	env.protect_file = sb->protect_file;
	env.debug = sb->debug;
	env.plan_only = sb->plan_only;
	rc = srt__policy_build(&sb->policy, &sb->settings, &env, diag);
	if (rc)
		return rc;
	sb->have_policy = 1;
	sb->policy.debug = sb->debug;
	/* a plan only printed can never be run (srt_sandbox_run refuses
	 * it), so the backend may leave out what only a run needs */
	sb->policy.plan_only = sb->plan_only;
	rc = srt__sandbox_tls_start(sb, diag);
	if (rc)
		return rc;

	/* The backend must bridge the proxy when something can go out through
	 * it: an allowed domain, live updates, an ask callback (it may allow
	 * any host), or an external proxy port. */
	need_proxy = sb->settings.allowed_domains.n > 0 || sb->live_updates || sb->ask ||
		     sb->settings.http_proxy_port || sb->settings.socks_proxy_port;
	/* loads, checks the capability bits against the policy and probes */
	rc = srt__sandbox_choose_backend(sb, need_proxy, diag);
	if (rc)
		return rc;
	srt__sandbox_log(sb, 1, "backend %s from %s (%s%s%s)", sb->be->hdr.name, srt__module_path(sb->module),
	       (sb->be->caps & SRT_CAP_NETNS) ? "empty network namespace" : "no network namespace",
	       (sb->be->caps & SRT_CAP_PIDNS) ? ", private pid namespace" : ", no pid namespace",
	       (sb->be->caps & SRT_CAP_PROXY) ? ", proxy" : "");

	rc = srt__vstore_set_ignore(sb->violations, &sb->settings);
	if (rc)
		return rc;
	/* A backend that can bridge the proxy runs it even when nothing is
	 * allowed: a command that tries to reach a host then gets a 403
	 * naming the reason, and the attempt is recorded, instead of a bare
	 * "could not resolve host". One that cannot (no SRT_CAP_PROXY) keeps
	 * an empty network when nothing needs the proxy, and so does one the
	 * command reaches on a loopback port (SRT_CAP_LOOPBACK_PROXY): that
	 * port is bound only for a run that needs it. */
	srt__sandbox_proxy_ports(sb);
	if (need_proxy || (sb->be->caps & SRT_CAP_PROXY)) {
		if (!srt__backend_reaches_proxy(sb->be))
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, "network.allowedDomains",
					    "backend \"%s\" cannot bridge the proxy into the sandbox; use --backend=linux-bwrap",
					    sb->be->hdr.name);
		if ((rc = srt__sandbox_add_request_callback(sb, diag)))
			return rc;
		rc = srt__sandbox_start_proxy(sb, diag);
		if (rc)
			return rc;
		if ((rc = srt__sandbox_check_filters_run(sb, diag)))
			return rc;
	}

	rc = srt__sandbox_masked_files(sb, &sb->policy, diag);
	if (rc)
		return rc;
	rc = sb->be->prepare(&sb->policy, &sb->bstate, diag);
	if (rc)
		return rc;
	sb->started = 1;
	return SRT_OK;
}

/* Start cmd as the backend made it: its descriptors kept, in a process
 * group of its own when it asks, announced to the backend's guard. With
 * spawner, on a thread of its own (srt__spawn_begin): *pid is then
 * srt__spawn_wait's. */
static int spawn_command(struct srt_sandbox *sb, const struct srt_run_options *ro,
			 struct srt_command *cmd, char **envp, pid_t *pid,
			 struct srt__spawner **spawner, struct srt_diag *diag)
{
	struct srt__spawn_args sp;
	int keep[sizeof(cmd->child_fds) / sizeof(cmd->child_fds[0]) +
		 sizeof(cmd->extra_child_fds) / sizeof(cmd->extra_child_fds[0])];
	int n = 0, i;

	for (i = 0; i < cmd->n_child_fds && i < (int)(sizeof(cmd->child_fds) / sizeof(cmd->child_fds[0])); i++)
		keep[n++] = cmd->child_fds[i];
	for (i = 0; i < cmd->n_extra_child_fds &&
		    i < (int)(sizeof(cmd->extra_child_fds) / sizeof(cmd->extra_child_fds[0])); i++)
		keep[n++] = cmd->extra_child_fds[i];
	memset(&sp, 0, sizeof(sp));
	sp.argv = cmd->argv;
	sp.envp = envp;
	sp.keep_fds = keep;
	sp.n_keep_fds = n;
	sp.null_fd = ro ? ro->null_fd : 0;
	sp.new_pgrp = cmd->new_pgrp;
	sp.announce_fd = cmd->guard_fd;
	sp.nofile_soft = sb->nofile.rlim_cur; /* the proxy may have raised it */
	if (spawner) {
		int rc;

		sp.close_after_spawn = cmd->close_after_spawn;
		rc = srt__spawn_begin(&sp, spawner, diag);
		if (rc && cmd->close_after_spawn > 2)
			close(cmd->close_after_spawn); /* no spawn will close it */
		return rc;
	}
	return srt__spawn(&sp, pid, diag);
}

int srt_sandbox_run(struct srt_sandbox *sb, const char *const *argv,
		    const struct srt_run_options *ro, int *status,
		    struct srt_diag *diag)
{
	struct srt_command cmd;
	char **envp = NULL;
	char *key = NULL;
	volatile pid_t target = 0;
	struct srt__spawner *spawner = NULL;
	struct srt__events_reader er = { 0 };
	struct srt__gitguard *gg = NULL;
	struct srt__gitguard_ctx ggc;
	pid_t pid;
	int rc;

	if (!sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox not started");
	if (sb->plan_only)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox started to print its plan only (plan_only); nothing was run");
	if (!argv || !argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to run");
	memset(&cmd, 0, sizeof(cmd));
	if (ro && ro->command_id && *ro->command_id)
		key = strdup(ro->command_id);
	else
		rc = srt_quote_argv(argv, &key);
	if (!key)
		return SRT_E_NOMEM;

	rc = srt__vstore_register(sb->violations, key,
				  ro && ro->command_text ? ro->command_text : key);
	if (rc)
		goto out;
	rc = srt__sandbox_child_env(sb, key, &envp);
	if (rc)
		goto out;
	ggc.sb = sb;
	ggc.key = key;
	/* before the backend plans: the repositories that exist now are the
	 * ones its mounts protect */
	rc = srt__gitguard_snapshot(&sb->policy, &gg, srt__on_gitguard, &ggc);
	if (rc == SRT_E_IO)
		rc = srt_diag_set(diag, rc, "filesystem.allowWrite",
				  "git guard: cannot watch a write root (%s); the run stops rather than leave "
				  "repositories made there unguarded", srt__gitguard_failure());
	if (rc)
		goto out;
	srt__command_orphans(sb, &sb->policy, gg, &cmd);
	/* The sandbox's own start (bwrap's exec and loading) runs beside the
	 * plan when the backend can start the command before it is planned:
	 * what is started waits for the plan and runs nothing without it. */
	rc = srt__backend_early(sb->be, sb->bstate, argv, &cmd, diag);
	if (rc == SRT_OK) {
		struct srt_diag sdiag;
		int src;

		rc = spawn_command(sb, ro, &cmd, envp, &pid, &spawner, diag);
		if (rc)
			goto out_cmd;
		rc = sb->be->wrap(sb->bstate, argv, &cmd, diag);
		memset(&sdiag, 0, sizeof(sdiag));
		src = srt__spawn_wait(spawner, &pid, &sdiag);
		if (src) {
			/* why the command could not start says more than a
			 * plan it could not take */
			if (diag)
				*diag = sdiag;
			rc = src;
			goto out_cmd;
		}
		cmd.early_pid = pid;
		if (rc) {
			/* never let a command whose plan failed go on */
			int ended;

			kill(pid, SIGKILL);
			srt__wait(pid, NULL, 0, &ended, NULL);
			goto out_cmd;
		}
	} else if (rc != SRT_E_UNSUPPORTED) {
		goto out_cmd; /* a failed early() may have set up part of the command */
	} else {
		rc = sb->be->wrap(sb->bstate, argv, &cmd, diag);
		if (rc)
			goto out_cmd; /* a failed wrap may have set up part of the command */
		if (srt__backend_spawns(sb->be)) {
			/* a system without fork and pids: the module starts, waits for
			 * and ends the command with its own handles */
			rc = srt__backend_run(sb->be, sb->bstate, &cmd, envp, status, diag);
			goto out_cmd;
		}
		rc = spawn_command(sb, ro, &cmd, envp, &pid, NULL, diag);
		if (rc)
			goto out_cmd;
	}
	srt__sandbox_sweep(sb);
	/* present but failing (even with SRT_E_UNSUPPORTED) ends the command */
	if (SRT__BACKEND_HAS(sb->be, started)) {
		rc = srt__backend_started(sb->be, sb->bstate, &cmd, pid, diag);
		if (rc) {
			/* The sandbox could not be confirmed: never let it run on. */
			kill(pid, SIGKILL);
			srt__wait(pid, NULL, 0, status, NULL);
			goto out_cmd;
		}
	}
	target = cmd.signal_pid;
	if (cmd.events_fd > 2)
		srt__events_start(&er, sb, key, cmd.events_fd);
	rc = srt__wait(pid, &target, ro ? ro->forward_signals : 0, status, diag);
	/* without a pid namespace the command's daemons would outlive it,
	 * and could write after the checks below */
	if (ro && ro->end_orphans && !(sb->be->caps & SRT_CAP_PIDNS) && srt__end_children() != 0)
		srt__sandbox_log(sb, 0, "processes the command left kept appearing while srt ended them; some may outlive srt");
	srt__events_join(&er);
out_cmd:
	/* the command has ended, or never started, or was killed and reaped */
	srt__spawn_end(spawner);
	sb->be->release(sb->bstate, &cmd);
	/* the sandbox is gone: nothing can race the sweep */
	srt__gitguard_sweep(gg, srt__on_gitguard, &ggc);
	gg = NULL;
out:
	srt__gitguard_free(gg);
	srt__env_free(envp);
	free(key);
	return rc;
}

int srt_sandbox_set_request_filter(struct srt_sandbox *sb, srt_request_filter_fn fn,
				   void *ctx)
{
	if (!sb)
		return SRT_E_INVAL;
	/* the proxy reads the chain without a lock once it runs */
	if (sb->started)
		return SRT_E_STATE;
	sb->request_filter = fn;
	sb->request_filter_ctx = fn ? ctx : NULL;
	return SRT_OK;
}

void srt__sandbox_sweep(struct srt_sandbox *sb)
{
	if (sb->swept)
		return;
	sb->swept = 1;
	if (sb->sweep_base) {
		srt__sandbox_sweep_proxy_dirs(sb->sweep_base);
		free(sb->sweep_base);
		sb->sweep_base = NULL;
	}
	if (sb->have_policy)
		srt__policy_sweep_run_dirs(&sb->policy);
}

int srt__sandbox_is_copy(const struct srt_sandbox *sb)
{
	return sb->started && sb->owner != getpid();
}

void srt_sandbox_free(struct srt_sandbox *sb)
{
	int copy;

	if (!sb)
		return;
	/* A copy made by fork after the start (a worker of a forking pool)
	 * owns nothing the start made: the proxy's thread is not in this
	 * process, and the proxy's socket and directory, the TLS and masked
	 * credential files and the filter plugins' processes serve the
	 * process that started the sandbox, which still runs commands. The
	 * copy leaves them be (its memory and descriptors of them go with it)
	 * and releases only its own; the backend knows its part itself. */
	copy = srt__sandbox_is_copy(sb);
	if (sb->be && sb->bstate)
		sb->be->teardown(sb->bstate);
	if (!copy) {
		srt__proxy_free(sb->proxy);
		srt__sandbox_free_filters(sb);
		srt__ask_free(sb->ask); /* after the proxy, which watched it */
		srt__sandbox_tls_free(sb);
		srt__credentials_free(sb);
		if (sb->proxy_dir)
			rmdir(sb->proxy_dir);
	}
	if (sb->proxy_dir_fd >= 0)
		close(sb->proxy_dir_fd); /* in a copy, the starter's lock stays */
	srt__strv_release(&sb->cred_env);
	srt__strv_release(&sb->cred_unset);
	srt__module_free(sb->module);
	srt__vstore_free(sb->violations);
	pthread_mutex_destroy(&sb->update_lock);
	if (sb->have_policy)
		srt__policy_release(&sb->policy);
	srt__settings_release(&sb->settings);
	free(sb->proxy_dir);
	free(sb->sweep_base);
	free(sb->settings_path);
	free(sb->settings_named);
	free(sb->protect_file);
	free(sb->backend_spec);
	free(sb->cannot_run);
	free(sb->cwd);
	srt__os_wipe(sb->token, sizeof(sb->token));
	free(sb);
}

const char *srt_default_shell(void)
{
	if (access("/bin/bash", X_OK) == 0)
		return "/bin/bash";
	return "/bin/sh";
}
