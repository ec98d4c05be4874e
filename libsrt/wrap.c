/* Wrap mode: srt builds the sandboxed command and the caller spawns it
 * (with its own pseudo-terminal, pipes and streaming), then reports the
 * pid and the end. Everything that srt_sandbox_run does around the spawn
 * happens here too, in the same order: the violation store entry, the
 * child's environment, the git guard's snapshot, the backend's wrap; after
 * the spawn the backend's started() (which confirms the sandbox is up, or
 * the command is killed), the violation reader; at the end the reader's
 * last lines, the backend's release and the git guard's sweep.
 *
 * A per-call settings object (customConfig) gets a policy and backend
 * plan of its own, built from the sandbox's settings with the overridden
 * keys replaced, and freed when the command ends. The proxy stays the
 * sandbox's: one proxy and one violation store for every command. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/platform.h"
#include "backend-call.h"
#include "child-env.h"
#include "command.h"
#include "credentials.h"
#include "gitguard.h"
#include "policy-build.h"
#include "proxy-glue.h"
#include "run.h"
#include "sandbox.h"
#include "violations.h"

struct wrapped_priv {
	struct srt_wrapped pub; /* first: the caller's pointer is this */
	struct srt_sandbox *sb;
	struct srt_command cmd;
	int have_cmd;
	char *key;
	char **envp;
	struct srt__gitguard *gg;
	struct srt__gitguard_ctx ggc;
	struct srt__events_reader er;
	pid_t pid;
	int started;
	/* customConfig: a policy and plan of this command's own */
	int own_policy;
	struct srt_policy policy;
	struct srt__settings custom;
	void *bstate;
	unsigned long long nofile_soft;
};

static struct wrapped_priv *priv_of(struct srt_wrapped *w)
{
	return (struct wrapped_priv *)w;
}

static void *backend_state(struct wrapped_priv *wp)
{
	return wp->own_policy ? wp->bstate : wp->sb->bstate;
}

/* --- customConfig ------------------------------------------------------ */

static const char *const custom_fs_keys[] = {
	"allowWrite", "denyWrite", "denyRead", "allowRead", "disabled", NULL,
};

static int custom_key_known(const char *section, const char *key)
{
	size_t i;

	if (!section)
		return !strcmp(key, "filesystem") || !strcmp(key, "network") ||
		       !strcmp(key, "allowPty") || !strcmp(key, "allowNestedUserNamespaces");
	if (!strcmp(section, "network"))
		return !strcmp(key, "allowedDomains");
	for (i = 0; custom_fs_keys[i]; i++)
		if (!strcmp(key, custom_fs_keys[i]))
			return 1;
	return 0;
}

/* Only the keys a command may override are accepted: anything else would
 * be silently ignored for this command while the caller believes it
 * applies. */
static int custom_check_keys(const cJSON *root, struct srt_diag *diag)
{
	const cJSON *it, *sub;

	if (!cJSON_IsObject(root))
		return srt_diag_set(diag, SRT_E_SETTINGS, "customConfig",
				    "customConfig: must be a JSON object");
	cJSON_ArrayForEach(it, root) {
		if (!custom_key_known(NULL, it->string))
			return srt_diag_set(diag, SRT_E_SETTINGS, it->string,
					    "customConfig: \"%s\" cannot be set per command (only filesystem.allowWrite, denyWrite, denyRead, allowRead, disabled, network.allowedDomains, allowPty, allowNestedUserNamespaces)",
					    it->string);
		if (!cJSON_IsObject(it))
			continue;
		cJSON_ArrayForEach(sub, it) {
			if (!custom_key_known(it->string, sub->string))
				return srt_diag_set(diag, SRT_E_SETTINGS, it->string,
						    "customConfig: \"%s.%s\" cannot be set per command",
						    it->string, sub->string);
		}
	}
	return SRT_OK;
}

static int has(const cJSON *root, const char *section, const char *key)
{
	const cJSON *s = section ? cJSON_GetObjectItemCaseSensitive(root, section) : root;

	return s && cJSON_GetObjectItemCaseSensitive(s, key) != NULL;
}

/* t = the sandbox's settings with the keys present in the custom object
 * replaced (the lists replace, they do not add; a present filesystem
 * object makes its "disabled", default false, win). Shallow: t borrows
 * from the sandbox and from wp->custom and is never released. */
static void custom_merge(struct wrapped_priv *wp, const cJSON *root, struct srt__settings *t)
{
	const struct srt__settings *c = &wp->custom;

	*t = wp->sb->settings;
	if (cJSON_GetObjectItemCaseSensitive(root, "filesystem"))
		t->fs_disabled = c->fs_disabled;
	if (has(root, "filesystem", "allowWrite"))
		t->allow_write = c->allow_write;
	if (has(root, "filesystem", "denyWrite"))
		t->deny_write = c->deny_write;
	if (has(root, "filesystem", "denyRead"))
		t->deny_read = c->deny_read;
	if (has(root, "filesystem", "allowRead"))
		t->allow_read = c->allow_read;
	if (has(root, NULL, "allowNestedUserNamespaces"))
		t->allow_nested_user_namespaces = c->allow_nested_user_namespaces;
	/* network.allowedDomains decides whether the command's network is
	 * restricted, and it always is here; allowPty is macOS only. Both
	 * are validated above and change nothing else. */
}

/* The proxy the sandbox started serves this command too. */
static int copy_proxy_fields(struct srt_policy *to, const struct srt_policy *from)
{
	to->http_port = from->http_port;
	to->socks_port = from->socks_port;
	to->proxy_socket_dev = from->proxy_socket_dev;
	to->proxy_socket_ino = from->proxy_socket_ino;
	to->proxy_port_lo = from->proxy_port_lo;
	to->proxy_port_hi = from->proxy_port_hi;
	to->proxy_port = from->proxy_port;
	if (from->proxy_dir && !(to->proxy_dir = strdup(from->proxy_dir)))
		return SRT_E_NOMEM;
	if (from->proxy_socket && !(to->proxy_socket = strdup(from->proxy_socket)))
		return SRT_E_NOMEM;
	to->intercept = from->intercept;
	if (from->proxy_token && !(to->proxy_token = strdup(from->proxy_token)))
		return SRT_E_NOMEM;
	return SRT_OK;
}

/* The settings parser wants a complete object: the sections and lists the
 * custom object leaves out are added empty (custom_merge only takes the
 * ones that were present). */
static char *custom_complete(const cJSON *root)
{
	static const char *const net[] = { "allowedDomains", "deniedDomains", NULL };
	static const char *const fs[] = { "denyRead", "allowWrite", "denyWrite", NULL };
	cJSON *c = cJSON_Duplicate(root, 1);
	const char *const *keys[2] = { net, fs };
	const char *sect[2] = { "network", "filesystem" };
	char *text = NULL;
	int i, k;

	if (!c)
		return NULL;
	for (i = 0; i < 2; i++) {
		cJSON *o = cJSON_GetObjectItemCaseSensitive(c, sect[i]);
		if (!o && !(o = cJSON_AddObjectToObject(c, sect[i])))
			goto out;
		if (!cJSON_IsObject(o))
			continue; /* the parser names the key */
		for (k = 0; keys[i][k]; k++)
			if (!cJSON_GetObjectItemCaseSensitive(o, keys[i][k]) &&
			    !cJSON_AddArrayToObject(o, keys[i][k]))
				goto out;
	}
	text = cJSON_PrintUnformatted(c);
out:
	cJSON_Delete(c);
	return text;
}

static int custom_policy(struct wrapped_priv *wp, const char *json, struct srt_diag *diag)
{
	struct srt_sandbox *sb = wp->sb;
	struct srt__policy_env env;
	struct srt__settings t;
	const char *files[2] = { sb->settings_path, NULL };
	cJSON *root;
	char *full;
	int rc;

	root = cJSON_Parse(json);
	if (!root)
		return srt_diag_set(diag, SRT_E_SETTINGS, "customConfig",
				    "customConfig: not valid JSON");
	rc = custom_check_keys(root, diag);
	if (rc)
		goto out;
	full = custom_complete(root);
	if (!full) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "customConfig", "customConfig: out of memory");
		goto out;
	}
	srt__settings_init(&wp->custom);
	rc = srt__settings_parse_json(&wp->custom, full, strlen(full), "customConfig", diag);
	cJSON_free(full);
	if (rc)
		goto out;
	custom_merge(wp, root, &t);
	memset(&env, 0, sizeof(env));
	env.cwd = sb->cwd;
	env.tmpdir = sb->policy.tmpdir; /* the sandbox's, kept when this one ends */
	env.settings_files = files;
	env.settings_named = sb->settings_named;
	env.protect_file = sb->protect_file;
	env.debug = sb->debug;
	rc = srt__policy_build(&wp->policy, &t, &env, diag);
	if (rc)
		goto out;
	wp->own_policy = 1;
	wp->policy.debug = sb->debug;
	rc = copy_proxy_fields(&wp->policy, &sb->policy);
	if (rc) {
		srt_diag_set(diag, rc, "", "customConfig: %s", srt_strerror(rc));
		goto out;
	}
	rc = srt__sandbox_masked_files(sb, &wp->policy, diag);
	if (rc)
		goto out;
	rc = sb->be->probe(&wp->policy, diag);
	if (rc)
		goto out;
	rc = sb->be->prepare(&wp->policy, &wp->bstate, diag);
out:
	cJSON_Delete(root);
	return rc;
}

/* --- the string form ---------------------------------------------------- */

/* "exec /usr/bin/env -i NAME=VALUE... ARGV...": the same command and
 * environment as argv and envp, for a caller that spawns /bin/sh -c. */
static int shell_form(struct wrapped_priv *wp, char **out)
{
	const char *env_bin = access("/usr/bin/env", X_OK) == 0 ? "/usr/bin/env" : "/bin/env";
	size_t n = 0, i, j = 0;
	const char **words;
	char *q = NULL;
	int rc;

	if (strchr(wp->cmd.argv[0], '='))
		return SRT_E_INVAL; /* env would read it as a variable */
	for (i = 0; wp->envp[i]; i++)
		n++;
	for (i = 0; wp->cmd.argv[i]; i++)
		n++;
	words = calloc(n + 3, sizeof(*words));
	if (!words)
		return SRT_E_NOMEM;
	words[j++] = env_bin;
	words[j++] = "-i";
	for (i = 0; wp->envp[i]; i++)
		words[j++] = wp->envp[i];
	for (i = 0; wp->cmd.argv[i]; i++)
		words[j++] = wp->cmd.argv[i];
	words[j] = NULL;
	rc = srt_quote_argv(words, &q);
	free(words);
	if (rc)
		return rc;
	if (asprintf(out, "exec %s", q) < 0)
		rc = SRT_E_NOMEM;
	free(q);
	return rc;
}

/* --- the calls ---------------------------------------------------------- */

static void wrapped_free(struct wrapped_priv *wp)
{
	if (!wp)
		return;
	srt__events_join(&wp->er);
	if (wp->have_cmd)
		wp->sb->be->release(backend_state(wp), &wp->cmd);
	/* the sandbox is gone (or never ran): nothing can race the sweep */
	srt__gitguard_sweep(wp->gg, srt__on_gitguard, &wp->ggc);
	if (wp->bstate)
		wp->sb->be->teardown(wp->bstate);
	if (wp->own_policy)
		srt__policy_release(&wp->policy);
	srt__settings_release(&wp->custom);
	srt__env_free(wp->envp);
	free((char *)wp->pub.shell_command);
	free(wp->key);
	free(wp);
}

int srt_sandbox_wrap(struct srt_sandbox *sb, const char *const *argv,
		     const struct srt_wrap_options *wo, struct srt_wrapped **out,
		     struct srt_diag *diag)
{
	struct wrapped_priv *wp;
	char *shell = NULL;
	int rc;

	*out = NULL;
	if (!sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox not started");
	/* its plan lacks what only a run makes (placeholders, the proxy's
	 * socket, the TMPDIR): never a command line to spawn */
	if (sb->plan_only)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox started to print its plan only (plan_only); nothing can be wrapped");
	if (!argv || !argv[0])
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to wrap");
	wp = calloc(1, sizeof(*wp));
	if (!wp)
		return srt_diag_set(diag, SRT_E_NOMEM, "", "wrap: out of memory");
	wp->sb = sb;
	srt__settings_init(&wp->custom);
	if (wo && wo->command_id && *wo->command_id)
		wp->key = strdup(wo->command_id);
	else
		srt_quote_argv(argv, &wp->key);
	if (!wp->key) {
		rc = srt_diag_set(diag, SRT_E_NOMEM, "", "wrap: out of memory");
		goto fail;
	}
	if (wo && wo->custom_config && *wo->custom_config) {
		rc = custom_policy(wp, wo->custom_config, diag);
		if (rc)
			goto fail;
	}
	rc = srt__vstore_register(sb->violations, wp->key,
				  wo && wo->command_text ? wo->command_text : wp->key);
	if (!rc)
		rc = srt__sandbox_child_env(sb, wp->key, &wp->envp);
	if (rc) {
		srt_diag_set(diag, rc, "", "wrap: %s", srt_strerror(rc));
		goto fail;
	}
	wp->ggc.sb = sb;
	wp->ggc.key = wp->key;
	rc = srt__gitguard_snapshot(wp->own_policy ? &wp->policy : &sb->policy, &wp->gg,
				    srt__on_gitguard, &wp->ggc);
	if (rc) {
		srt_diag_set(diag, rc, "", "wrap: git guard: %s", rc == SRT_E_IO ? srt__gitguard_failure() :
									srt_strerror(rc));
		goto fail;
	}
	srt__command_orphans(sb, wp->own_policy ? &wp->policy : &sb->policy, wp->gg, &wp->cmd);
	wp->have_cmd = 1;
	rc = sb->be->wrap(backend_state(wp), argv, &wp->cmd, diag);
	if (rc)
		goto fail;
	rc = shell_form(wp, &shell);
	if (rc) {
		srt_diag_set(diag, rc, "", "wrap: cannot write the command as a shell line: %s",
			     srt_strerror(rc));
		goto fail;
	}
	wp->nofile_soft = sb->nofile.rlim_cur; /* the proxy may have raised it */
	wp->pub.argv = wp->cmd.argv;
	wp->pub.envp = wp->envp;
	wp->pub.shell_command = shell;
	wp->pub.fds = wp->cmd.child_fds;
	wp->pub.n_fds = wp->cmd.n_child_fds;
	wp->pub.cwd = wp->own_policy ? wp->policy.cwd : sb->policy.cwd;
	wp->pub.new_pgrp = wp->cmd.new_pgrp;
	wp->pub.key = wp->key;
	*out = &wp->pub;
	return SRT_OK;
fail:
	wrapped_free(wp);
	return rc;
}

int srt_sandbox_wrap_shell(struct srt_sandbox *sb, const char *command, const char *shell,
			   const struct srt_wrap_options *wo, struct srt_wrapped **out,
			   struct srt_diag *diag)
{
	struct srt_wrap_options o;
	const char *argv[4];

	if (!command)
		return srt_diag_set(diag, SRT_E_INVAL, "", "no command to wrap");
	argv[0] = shell && *shell ? shell : srt_default_shell();
	argv[1] = "-c";
	argv[2] = command;
	argv[3] = NULL;
	if (argv[0][0] != '/')
		return srt_diag_set(diag, SRT_E_INVAL, "shell",
				    "shell \"%s\": give an absolute path", argv[0]);
	/* the reference's key for a command string is the string itself */
	memset(&o, 0, sizeof(o));
	if (wo)
		o = *wo;
	if (!o.command_id || !*o.command_id)
		o.command_id = command;
	if (!o.command_text)
		o.command_text = command;
	return srt_sandbox_wrap(sb, argv, &o, out, diag);
}

/* Between fork and exec: only async-signal-safe calls. */
int srt_wrapped_child_setup(const struct srt_wrapped *w)
{
	const struct wrapped_priv *wp = (const struct wrapped_priv *)w;
	struct rlimit rl;
	int i, fl;

	for (i = 0; i < w->n_fds; i++) {
		fl = fcntl(w->fds[i], F_GETFD);
		if (fl < 0 || fcntl(w->fds[i], F_SETFD, fl & ~FD_CLOEXEC) < 0)
			return -1;
	}
	/* a session leader (setsid for a pty) already leads its group */
	if (w->new_pgrp && getpgrp() != getpid() && setpgid(0, 0) != 0)
		return -1;
	/* before the backend's guard for the OOM killer, as srt_sandbox_run's
	 * child (libsrt/run.c); a score that stays as it was does not stop
	 * the run */
	if (wp->cmd.guard_fd > 2 && srt__os_oom_target(SRT_GUARD_OOM_RAISE, &i) == 0)
		srt__os_oom_at_least(i);
	if (wp->nofile_soft && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != (rlim_t)wp->nofile_soft) {
		rl.rlim_cur = (rlim_t)wp->nofile_soft;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
}

/* The backend's guard kills the command's process group if the caller
 * dies while the sandbox is being set up; srt_sandbox_run's child says
 * so before exec, here the parent does as soon as it knows the pid. */
static void announce(struct wrapped_priv *wp, pid_t pid)
{
	char rec[32];
	int n;

	if (wp->cmd.new_pgrp) {
		/* the child may have done it (or exec'd): both are fine */
		if (setpgid(pid, pid) != 0 && errno != EACCES && errno != EPERM && errno != ESRCH)
			srt__sandbox_log(wp->sb, 1, "setpgid(%ld): %s", (long)pid, strerror(errno));
	}
	if (wp->cmd.guard_fd <= 2)
		return;
	n = snprintf(rec, sizeof(rec), "K%ld", (long)pid);
	if (write(wp->cmd.guard_fd, rec, (size_t)n + 1) != n + 1)
		srt__sandbox_log(wp->sb, 0, "cannot tell the backend's guard the command's process group");
}

int srt_command_started(struct srt_wrapped *w, pid_t pid, struct srt_diag *diag)
{
	struct wrapped_priv *wp = priv_of(w);
	struct srt_sandbox *sb = wp->sb;
	int rc;

	if (wp->started || pid <= 0)
		return srt_diag_set(diag, SRT_E_STATE, "", "srt_command_started: %s",
				    pid <= 0 ? "no pid" : "called twice");
	wp->started = 1;
	wp->pid = pid;
	announce(wp, pid);
	srt__sandbox_sweep(sb);
	/* present but failing (even with SRT_E_UNSUPPORTED) ends the command */
	if (SRT__BACKEND_HAS(sb->be, started)) {
		rc = srt__backend_started(sb->be, backend_state(wp), &wp->cmd, pid, diag);
		if (rc) {
			/* The sandbox could not be confirmed: never let it run on.
			 * The caller reaps it. */
			kill(pid, SIGKILL);
			return rc;
		}
	}
	if (wp->cmd.events_fd > 2)
		srt__events_start(&wp->er, sb, wp->key, wp->cmd.events_fd);
	return SRT_OK;
}

int srt_command_signal_pid(const struct srt_wrapped *w)
{
	const struct wrapped_priv *wp = (const struct wrapped_priv *)w;

	return wp->cmd.signal_pid > 0 ? (int)wp->cmd.signal_pid : (int)wp->pid;
}

void srt_command_finished(struct srt_wrapped *w, int status)
{
	struct wrapped_priv *wp;

	if (!w)
		return;
	wp = priv_of(w);
	if (wp->started)
		srt__sandbox_log(wp->sb, 1, "wrapped command %ld ended with status %d",
				 (long)wp->pid, status);
	wrapped_free(wp);
}
