/* The child's environment: the caller's, plus SANDBOX_RUNTIME=1, the
 * sandbox's TMPDIR, the proxy variables (with the per-command proxy user
 * and the srt-connect helper for ssh) and git's safe.directory entries. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child-env.h"
#include "credentials.h"
#include "loader.h"
#include "paths.h"
#include "platform.h"
#include "proxies/proxy.h"
#include "run.h"
#include "tls-setup.h"

extern char **environ;

/* A helper program installed beside the backend module (or, in the build
 * tree, up to two levels above its .libs directory), named as the
 * command's programs run it (srt__plat_program_spell: on Windows with its
 * drive and ".exe"). Derived only from the module's own absolute path,
 * never from the environment; the module's path is resolved first, so
 * its directory is found whichever separators it was given with. */
static char *sibling_program(const char *module_path, const char *name)
{
	static const char *const up[] = { "", "/..", "/../.." };
	char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
	char *slash;
	size_t i;

	if (!realpath(module_path, dir))
		return NULL;
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		if (snprintf(cand, sizeof(cand), "%s%s/%s%s", dir, up[i], name,
			     srt__plat_program_ext) >= (int)sizeof(cand))
			continue;
		if (access(cand, X_OK) == 0 && realpath(cand, real) &&
		    srt__plat_program_spell(real, cand, sizeof(cand)) == 0)
			return strdup(cand);
	}
	return NULL;
}

static int push_kv(struct srt__strv *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push_kv(struct srt__strv *set, const char *fmt, ...)
{
	va_list ap;
	char *kv = NULL;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&kv, fmt, ap);
	va_end(ap);
	if (n < 0)
		return SRT_E_NOMEM;
	rc = srt__strv_push(set, kv);
	free(kv);
	return rc;
}

/* git.safeDirectories: GIT_CONFIG_COUNT/KEY/VALUE entries for
 * safe.directory, each directory and its children; more than 8 collapse to
 * "*". An inherited GIT_CONFIG_COUNT is continued; an inherited 0 is the
 * user's opt-out and is respected. */
static int git_safe_env(struct srt_sandbox *sb, struct srt__strv *set)
{
	const struct srt__strv *dirs = &sb->settings.git_safe_directories;
	const char *inherited = getenv("GIT_CONFIG_COUNT");
	long base = 0;
	size_t i;
	int rc;

	if (!dirs->n)
		return SRT_OK;
	if (inherited) {
		char *end;
		base = strtol(inherited, &end, 10);
		if (*end || base < 0 || base > 1000)
			base = 0;
		else if (base == 0 && *inherited)
			return SRT_OK;
	}
	if (dirs->n > 8) {
		if ((rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base)) ||
		    (rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=*", base)))
			return rc;
		return push_kv(set, "GIT_CONFIG_COUNT=%ld", base + 1);
	}
	for (i = 0; i < dirs->n; i++) {
		char *norm = NULL;
		const char *d = dirs->v[i];
		if (srt__path_normalize(d, sb->policy.cwd, sb->policy.home, &norm, NULL) == SRT_OK && norm)
			d = norm;
		rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=%s", base, d);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_KEY_%ld=safe.directory", base + 1);
		if (!rc)
			rc = push_kv(set, "GIT_CONFIG_VALUE_%ld=%s/*", base + 1, d);
		free(norm);
		if (rc)
			return rc;
		base += 2;
	}
	return push_kv(set, "GIT_CONFIG_COUNT=%ld", base);
}

int srt__sandbox_child_env(struct srt_sandbox *sb, const char *command_key, char ***out)
{
	struct srt__strv set = { 0 };
	char *kv = NULL;
	int rc = SRT_E_NOMEM;

	if (srt__strv_push(&set, "SANDBOX_RUNTIME=1"))
		goto out;
	if (sb->policy.tmpdir && !sb->policy.fs_disabled) {
		if (asprintf(&kv, "TMPDIR=%s", sb->policy.tmpdir) < 0 || srt__strv_push(&set, kv))
			goto out;
	}
	if (sb->proxy) {
		char user[300];
		/* on a loopback port (Windows) the command reaches the proxy
		 * at 127.0.0.1 itself; srt-connect(.exe) goes there too, as
		 * HTTPS_PROXY says */
		bool tcp = sb->policy.proxy_port > 0;
		char *connect = sibling_program(srt__module_path(sb->module), "srt-connect");
		srt__proxy_user(command_key, user, sizeof(user));
		/* With an external HTTP proxy (httpProxyPort) HTTP traffic goes
		 * to it unparsed, as in the reference: our token means nothing
		 * there, so it is not handed out. */
		if (sb->settings.http_proxy_port)
			user[0] = '\0';
		/* with nothing allowed, ssh through the proxy would be refused
		 * anyway: no warning about a way out that leads nowhere */
		if (!connect && (sb->settings.allowed_domains.n || sb->live_updates))
			srt__sandbox_log(sb, 0, "srt-connect is missing beside the backend module: GIT_SSH_COMMAND is not set, so ssh will not go through the proxy");
		rc = srt__proxy_env_at(&set, tcp ? "127.0.0.1" : "localhost", user[0] ? user : NULL,
				    sb->settings.http_proxy_port ? NULL : sb->token,
				    sb->policy.http_port, sb->policy.socks_port, connect);
		free(connect);
		if (rc)
			goto out;
	}
	rc = git_safe_env(sb, &set);
	if (!rc)
		rc = srt__sandbox_tls_env(sb, &set);
	/* masked variables: the sentinels replace the real values */
	for (size_t i = 0; !rc && i < sb->cred_env.n; i++)
		rc = srt__strv_push(&set, sb->cred_env.v[i]);
	if (rc)
		goto out;
	rc = srt__env_build(environ, &set, out);
	if (!rc)
		srt__credentials_env_drop(sb, *out);
out:
	free(kv);
	srt__strv_release(&set);
	return rc;
}
