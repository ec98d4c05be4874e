/* srt_sandbox_explain (--explain): the effective policy, each rule with the
 * settings key it came from, what the backend guarantees, and the backend's
 * own plan for one command. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backend-call.h"
#include "loader.h"
#include "sandbox.h"

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
	fprintf(out, "guarantees: filesystem rules%s%s%s%s\n",
		(sb->be->caps & SRT_CAP_NETNS) ? ", empty network namespace" : ", no network namespace (sockets refused by seccomp/Landlock instead)",
		(sb->be->caps & SRT_CAP_PIDNS) ? ", private pid namespace and /proc" : ", no pid namespace (the host's /proc is visible)",
		(sb->be->caps & SRT_CAP_SECCOMP) ? ", seccomp syscall filters" : "",
		(sb->be->caps & SRT_CAP_PROXY) ? ", filtering proxy" : "");
	fprintf(out, "network: %s", (sb->be->caps & SRT_CAP_NETNS) ? "empty network namespace" :
		"no network namespace (the backend refuses sockets instead)");
	if (sb->proxy) {
		fprintf(out, "; proxy at %s (in sandbox: localhost:%d http, :%d socks5)\n",
			sb->policy.proxy_socket, sb->policy.http_port, sb->policy.socks_port);
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
