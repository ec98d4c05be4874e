/* srt_sandbox_explain (--explain): the effective policy, each rule with the
 * settings key it came from, what the backend guarantees, and the backend's
 * own plan for one command. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/protected.h"
#include "backend-call.h"
#include "backend-choice.h"
#include "loader.h"
#include "sandbox.h"

/* The protected names, each with why it is protected and, when released,
 * the setting that did it. */
static void print_protected(const struct srt_sandbox *sb, FILE *out)
{
	const char *const *rel = (const char *const *)sb->policy.protected_released;
	size_t i;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		const char *state = "";

		if (srt__protected_released(p, rel))
			state = " (released by filesystem.allowProtectedNames)";
		else if (!strcmp(p->name, ".git/config") && sb->policy.allow_git_config)
			state = " (released by filesystem.allowGitConfig)";
		fprintf(out, "%-11s %s%s   <- %s\n", "protected", p->name, state, p->reason);
	}
}

/* What the backend guarantees, from its capability bits alone: a claim
 * the module does not declare is never printed. */
static void print_guarantees(const struct srt_sandbox *sb, FILE *out)
{
	unsigned caps = sb->be->caps;
	const char *sep = "";

	fputs("guarantees:", out);
	if (caps & SRT_CAP_FILESYSTEM) {
		fputs(" filesystem rules", out);
		sep = ",";
	}
	fprintf(out, "%s %s", sep, (caps & SRT_CAP_NETNS) ? "empty network namespace" :
		(caps & SRT_CAP_SECCOMP) ? "no network namespace (sockets refused by seccomp/Landlock instead)" :
		(caps & SRT_CAP_NETRULES) ? "no network namespace (the sandbox profile refuses every network operation but the proxy's loopback ports)" :
		"no network isolation");
	fputs((caps & SRT_CAP_PIDNS) ? ", private pid namespace and /proc" :
	      ", no pid namespace (the host's /proc is visible)", out);
	if (caps & SRT_CAP_SECCOMP)
		fputs(", seccomp syscall filters", out);
	if (caps & SRT_CAP_PROXY)
		fputs(", filtering proxy", out);
	else if (srt__backend_loopback_proxy(sb->be))
		fputs(", filtering proxy on a loopback port", out);
	if (!(caps & SRT_CAP_FILESYSTEM))
		fputs(", no filesystem rules", out);
	fputc('\n', out);
}

int srt_sandbox_explain(struct srt_sandbox *sb, const char *const *argv,
			FILE *out, struct srt_diag *diag)
{
	struct srt_command cmd;
	const struct srt_rules *lists[4];
	static const char *names[4] = { "deny read", "allow read", "allow write", "deny write" };
	size_t i, j;
	int rc;

	if (!sb->started)
		return srt_diag_set(diag, SRT_E_STATE, "", "sandbox not started");
	lists[0] = &sb->policy.deny_read;
	lists[1] = &sb->policy.allow_read;
	lists[2] = &sb->policy.allow_write;
	lists[3] = &sb->policy.deny_write;
	fprintf(out, "srt %s: effective policy\n", PACKAGE_VERSION);
	fprintf(out, "settings: %s\n", sb->settings_path ? sb->settings_path : "(built-in defaults)");
	fprintf(out, "backend: %s (%s)\n", sb->be->hdr.name, srt__module_path(sb->module));
	if (sb->cannot_run)
		fprintf(out, "runs here: no, only its plan is printed (%s)\n", sb->cannot_run);
	fprintf(out, "cwd: %s\n", sb->policy.cwd);
	fprintf(out, "TMPDIR: %s\n", sb->policy.tmpdir ? sb->policy.tmpdir : "(inherited)");
	if (sb->policy.fs_disabled)
		fprintf(out, "filesystem: disabled (filesystem.disabled): no filesystem rules\n");
	else
		for (i = 0; i < 4; i++)
			for (j = 0; j < lists[i]->n; j++)
				fprintf(out, "%-11s %s%s   <- %s\n", names[i], lists[i]->v[j].path,
					(lists[i]->v[j].flags & SRT_RULE_GLOB) ? " (glob)" : "",
					lists[i]->v[j].origin ? lists[i]->v[j].origin : "");
	if (!sb->policy.fs_disabled && (sb->be->caps & SRT_CAP_FILESYSTEM))
		print_protected(sb, out);
	print_guarantees(sb, out);
	fprintf(out, "network: %s", (sb->be->caps & SRT_CAP_NETNS) ? "empty network namespace" :
		(sb->be->caps & (SRT_CAP_SECCOMP | SRT_CAP_NETRULES)) ? "no network namespace (the backend refuses sockets instead)" :
		"no network isolation declared by the backend");
	if (sb->proxy && sb->policy.proxy_port) {
		fprintf(out, "; proxy at 127.0.0.1:%d (http and socks5, the run's token required), the first free port of %d-%d   <- windows.proxyPortRange\n",
			sb->policy.proxy_port, sb->policy.proxy_port_lo, sb->policy.proxy_port_hi);
	} else if (sb->proxy) {
		fprintf(out, "; proxy at %s (in sandbox: localhost:%d http, :%d socks5)\n",
			sb->policy.proxy_socket, sb->policy.http_port, sb->policy.socks_port);
	}
	if (sb->proxy) {
		fprintf(out, "interception: %s   <- network.intercept\n",
			sb->policy.intercept == SRT_INTERCEPT_REQUIRED ?
				"on (DNS answered inside from the policy, every TCP connection to a non-loopback address handed to the proxy; srt stops if it cannot be set up)" :
			sb->policy.intercept == SRT_INTERCEPT_OPTIONAL ?
				"on where the sandbox can set it up (optional), else proxy variables only" :
				"off (only clients that honour the proxy variables reach the network)");
		for (i = 0; i < sb->settings.allowed_domains.n; i++)
			fprintf(out, "allow host  %s   <- network.allowedDomains[%zu]\n",
				sb->settings.allowed_domains.v[i], i);
		if (!sb->settings.allowed_domains.n)
			fprintf(out, "allow host  (none: every host is answered 403)   <- network.allowedDomains\n");
		fprintf(out, "private addresses: %s   <- network.privateAddresses\n",
			sb->settings.private_addresses ? sb->settings.private_addresses :
							  "refuseForWildcards (default)");
	} else {
		fprintf(out, "; no proxy (network.allowedDomains is empty)\n");
	}
	for (i = 0; i < sb->settings.denied_domains.n; i++)
		fprintf(out, "deny host   %s   <- network.deniedDomains[%zu]\n",
			sb->settings.denied_domains.v[i], i);

	memset(&cmd, 0, sizeof(cmd));
	rc = sb->be->wrap(sb->bstate, argv, &cmd, diag);
	if (rc) {
		/* a failed wrap may have set up part of the command */
		sb->be->release(sb->bstate, &cmd);
		return rc;
	}
	if (SRT__BACKEND_HAS(sb->be, explain))
		rc = srt__backend_explain(sb->be, sb->bstate, &cmd, out);
	else
		rc = srt_diag_set(diag, SRT_E_UNSUPPORTED, "", "backend \"%s\" cannot explain its plan",
				  sb->be->hdr.name);
	sb->be->release(sb->bstate, &cmd);
	return rc;
}
