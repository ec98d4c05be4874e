/* Backend choice: the module --backend names, or without it the built-in
 * backends, best first, keeping the first that loads, can bridge the proxy
 * when one is needed, and whose probe passes here.
 *
 * Two refusals are told apart. A backend that cannot run on this machine
 * at all (no bwrap installed, no user namespaces) is passed over for the
 * next one, with a warning that names the weaker isolation. A backend that
 * could run here but refuses this policy (allowWrite "/" puts bwrap itself
 * in a write root) is an error naming the setting and the backend: a
 * setting never switches the run to a weaker backend. The difference is
 * found by probing again without the filesystem rules and bwrapPath. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-choice.h"
#include "loader.h"

/* The automatic choice, best first: the backends configure built for
 * this system (SRT_AUTO_BACKENDS, each name followed by a comma). */
static const char *const auto_backends[] = { SRT_AUTO_BACKENDS NULL };
#define N_AUTO_BACKENDS (sizeof(auto_backends) / sizeof(auto_backends[0]) - 1)

const char *srt__auto_backend(size_t i)
{
	size_t k;

	/* walked, not compared with the count: a build with no automatic
	 * backend has a count of 0, and "i < 0" on a size_t is an error
	 * under -Werror=type-limits */
	for (k = 0; auto_backends[k]; k++)
		if (k == i)
			return auto_backends[k];
	return NULL;
}

int srt__backend_loopback_proxy(const struct srt_backend *be)
{
	return (be->caps & SRT_CAP_LOOPBACK_PROXY) && be->hdr.abi_minor >= 8;
}

int srt__backend_reaches_proxy(const struct srt_backend *be)
{
	return (be->caps & SRT_CAP_PROXY) || srt__backend_loopback_proxy(be);
}

int srt__backend_caps_check(const struct srt_backend *be, const struct srt_policy *pol,
			    int need_proxy, struct srt_diag *diag)
{
	const char *key = NULL, *what = NULL;

	if (!pol->fs_disabled && !(be->caps & SRT_CAP_FILESYSTEM)) {
		key = "filesystem";
		what = "filesystem rules (SRT_CAP_FILESYSTEM)";
	} else if (!(be->caps & (SRT_CAP_NETNS | SRT_CAP_SECCOMP | SRT_CAP_NETRULES))) {
		key = "network";
		what = "a network cut off from the host (SRT_CAP_NETNS, SRT_CAP_SECCOMP refusing sockets, or SRT_CAP_NETRULES)";
	} else if (need_proxy && !srt__backend_reaches_proxy(be)) {
		key = "network.allowedDomains";
		what = "the filtering proxy network.allowedDomains needs (SRT_CAP_PROXY or SRT_CAP_LOOPBACK_PROXY)";
	}
	if (!key)
		return SRT_OK;
	return srt_diag_set(diag, SRT_E_UNSUPPORTED, key,
			    "backend \"%s\" does not declare %s, which this policy asks for (%s); nothing was run",
			    be->hdr.name, what, key);
}

/* The policy without what a user's settings may make a backend refuse:
 * no filesystem rules, no bwrapPath. Borrowed pointers, nothing owned. */
static struct srt_policy neutral_policy(const struct srt_policy *pol)
{
	struct srt_policy n = *pol;

	memset(&n.deny_read, 0, sizeof(n.deny_read));
	memset(&n.allow_read, 0, sizeof(n.allow_read));
	memset(&n.allow_write, 0, sizeof(n.allow_write));
	memset(&n.deny_write, 0, sizeof(n.deny_write));
	n.bwrap_path = NULL;
	return n;
}

/* be refused pol (why: its message), yet runs without the settings'
 * filesystem rules and bwrapPath: put them back one at a time, in the
 * order a refusal most likely comes from, until the probe refuses, and
 * name that setting. */
static int refused_policy(const struct srt_backend *be, const struct srt_policy *pol,
			  const char *why, struct srt_diag *diag)
{
	static const char tail[] =
		"; srt does not switch to a weaker backend because of a setting: change it, or pass --backend=<name> to choose a backend yourself";
	struct srt_policy n = neutral_policy(pol);
	const struct srt_rules *lists[4];
	struct srt_rules *slots[4];
	struct srt_diag d;
	size_t i, j;

	lists[0] = &pol->allow_write;
	slots[0] = &n.allow_write;
	lists[1] = &pol->deny_write;
	slots[1] = &n.deny_write;
	lists[2] = &pol->allow_read;
	slots[2] = &n.allow_read;
	lists[3] = &pol->deny_read;
	slots[3] = &n.deny_read;
	n.bwrap_path = pol->bwrap_path;
	memset(&d, 0, sizeof(d));
	if (pol->bwrap_path && be->probe(&n, &d) != SRT_OK)
		return srt_diag_set(diag, SRT_E_UNSUPPORTED, "bwrapPath",
				    "bwrapPath \"%s\": backend %s refuses it (%s)%s",
				    pol->bwrap_path, be->hdr.name, d.message, tail);
	for (i = 0; i < 4; i++) {
		slots[i]->v = lists[i]->v;
		for (j = 0; j < lists[i]->n; j++) {
			const struct srt_rule *r = &lists[i]->v[j];

			slots[i]->n = j + 1;
			memset(&d, 0, sizeof(d));
			if (be->probe(&n, &d) == SRT_OK)
				continue;
			return srt_diag_set(diag, SRT_E_UNSUPPORTED, r->origin ? r->origin : "filesystem",
					    "%s \"%s\": backend %s refuses this policy (%s)%s",
					    r->origin ? r->origin : "filesystem", r->path,
					    be->hdr.name, d.message, tail);
		}
	}
	return srt_diag_set(diag, SRT_E_UNSUPPORTED, "filesystem",
			    "filesystem: backend %s refuses this policy (%s)%s", be->hdr.name, why, tail);
}

/* Without --backend: the first backend that can run here and enforce the
 * whole policy. When none can, say why for each. */
static int choose_auto(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag)
{
	char why[N_AUTO_BACKENDS + 1][sizeof(((struct srt_diag *)0)->message)];
	char all[sizeof(((struct srt_diag *)0)->message)] = "";
	size_t i, used = 0;

	for (i = 0; auto_backends[i]; i++) {
		struct srt_diag d;
		struct srt__module *m = NULL;
		const struct srt_backend *be = NULL;
		int rc;

		memset(&d, 0, sizeof(d));
		rc = srt__module_load_backend(auto_backends[i], &m, &be, &d);
		if (!rc && need_proxy && !srt__backend_reaches_proxy(be)) {
			snprintf(d.message, sizeof(d.message),
				 "cannot bridge the proxy that network.allowedDomains needs");
			rc = SRT_E_UNSUPPORTED;
		}
		if (!rc)
			rc = srt__backend_caps_check(be, &sb->policy, need_proxy, &d);
		if (!rc) {
			rc = be->probe(&sb->policy, &d);
			if (rc) {
				struct srt_policy n = neutral_policy(&sb->policy);
				struct srt_diag nd;

				memset(&nd, 0, sizeof(nd));
				/* it runs here, only not with these settings */
				if (be->probe(&n, &nd) == SRT_OK) {
					rc = refused_policy(be, &sb->policy, d.message, diag);
					srt__module_free(m);
					return rc;
				}
			}
		}
		if (!rc) {
			sb->module = m;
			sb->be = be;
			/* a weaker backend than the first is said every time, not
			 * only under --debug (README: what differs) */
			if (i > 0)
				srt__sandbox_log(sb, 0, "backend %s chosen: %s could not run on this machine (%s); %s is weaker: "
				       "no private process tree, /proc or /dev/pts, and the command's "
				       "processes outlive a srt killed with SIGKILL; pass --backend=%s "
				       "to refuse instead",
				       auto_backends[i], auto_backends[0], why[0], auto_backends[i],
				       auto_backends[0]);
			return SRT_OK;
		}
		snprintf(why[i], sizeof(why[i]), "%s", d.message);
		srt__sandbox_log(sb, 1, "backend %s cannot run here: %s", auto_backends[i], d.message);
		srt__module_free(m);
	}
	if (!auto_backends[0])
		return srt_diag_set(diag, SRT_E_UNAVAILABLE, "backend",
				    "this build of srt has no sandbox backend for this system, so nothing was run; pass --backend=<name> to use a module installed separately");
	for (i = 0; auto_backends[i] && used < sizeof(all); i++) {
		int w = snprintf(all + used, sizeof(all) - used, " %s: %s.", auto_backends[i], why[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "backend",
			    "no sandbox backend can run here, so nothing was run.%s Run `srt doctor` for every layer and its fix",
			    all);
}

int srt__sandbox_choose_backend(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag)
{
	int rc;

	if (!sb->backend_spec)
		return choose_auto(sb, need_proxy, diag);
	rc = srt__module_load_backend(sb->backend_spec, &sb->module, &sb->be, diag);
	if (!rc)
		rc = srt__backend_caps_check(sb->be, &sb->policy, need_proxy, diag);
	if (!rc) {
		rc = sb->be->probe(&sb->policy, diag);
		/* only printing the plan: the backend need not run here */
		if (rc && sb->plan_only) {
			srt__sandbox_log(sb, 1, "backend %s cannot run here (%s); printing its plan only",
					 sb->be->hdr.name, diag ? diag->message : "");
			free(sb->cannot_run);
			sb->cannot_run = strdup(diag && diag->message[0] ? diag->message : "its probe failed");
			if (diag)
				memset(diag, 0, sizeof(*diag));
			rc = SRT_OK;
		}
	}
	return rc;
}
