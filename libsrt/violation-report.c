/* The public view of a sandbox's violations: the listener, each command's
 * list, the total, stderr annotated with a command's violations, and
 * advice on the setting that would allow one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "caches.h"
#include "common/protected.h"
#include "sandbox.h"
#include "violations.h"

void srt_sandbox_on_violation(struct srt_sandbox *sb, srt_violation_fn fn, void *ctx)
{
	srt__vstore_listen(sb->violations, fn, ctx);
}

int srt_sandbox_violations(struct srt_sandbox *sb, const char *key,
			   struct srt_violation **out, size_t *n)
{
	return srt__vstore_get(sb->violations, key, out, n);
}

unsigned long srt_sandbox_violation_total(struct srt_sandbox *sb)
{
	return srt__vstore_total(sb->violations);
}

int srt_sandbox_annotate_stderr(struct srt_sandbox *sb, const char *key,
				const char *stderr_text, char **out)
{
	struct srt_violation *v = NULL;
	size_t n = 0, i, len;
	char *s, *p;
	int rc;

	if (!stderr_text)
		stderr_text = "";
	rc = srt__vstore_get(sb->violations, key, &v, &n);
	if (rc)
		return rc;
	len = strlen(stderr_text) + sizeof("\n<sandbox_violations>\n</sandbox_violations>");
	for (i = 0; i < n; i++)
		len += strlen(v[i].line) + 1;
	s = malloc(len);
	if (!s) {
		srt_violations_free(v, n);
		return SRT_E_NOMEM;
	}
	p = stpcpy(s, stderr_text);
	if (n) {
		p = stpcpy(p, "\n<sandbox_violations>\n");
		for (i = 0; i < n; i++) {
			p = stpcpy(p, v[i].line);
			p = stpcpy(p, "\n");
		}
		stpcpy(p, "</sandbox_violations>");
	}
	srt_violations_free(v, n);
	*out = s;
	return SRT_OK;
}

/* is a an ancestor of (or equal to) b? */
static int covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

/* A path under a denyRead entry that no allowRead entry re-opens: no
 * write setting would make it usable, so no advice names one. */
static int read_denied(const struct srt_policy *pol, const char *path)
{
	const char *deny = NULL;
	size_t i;

	for (i = 0; i < pol->deny_read.n; i++) {
		const struct srt_rule *r = &pol->deny_read.v[i];

		if (!(r->flags & SRT_RULE_GLOB) && covers(r->path, path) &&
		    (!deny || strlen(r->path) > strlen(deny)))
			deny = r->path;
	}
	if (!deny)
		return 0;
	for (i = 0; i < pol->allow_read.n; i++) {
		const struct srt_rule *r = &pol->allow_read.v[i];

		if (!(r->flags & SRT_RULE_GLOB) && covers(deny, r->path) && covers(r->path, path))
			return 0;
	}
	return 1;
}

int srt_sandbox_violation_advice(struct srt_sandbox *sb, const char *line, char *buf, size_t len)
{
	const struct srt__protected *prot;
	const char *op, *path, *home;
	size_t oplen;

	if (!sb || !line || !buf || len == 0 || strncmp(line, "deny ", 5) != 0)
		return 0;
	/* the file syscalls the monitor reports ("deny mkdir /p"); not the
	 * proxy's or the repository guard's lines ("deny network-outbound") */
	op = line + 5;
	oplen = strcspn(op, " ");
	if (oplen == 0 || memchr(op, '-', oplen) || op[oplen] != ' ' || op[oplen + 1] != '/')
		return 0;
	path = op + oplen + 1;
	if (sb->settings.fs_disabled)
		return 0;
	if (sb->have_policy && read_denied(&sb->policy, path))
		return 0;
	home = sb->have_policy && sb->policy.home ? sb->policy.home : getenv("HOME");
	/* a write refused on a protected name: which entry refused it and the
	 * setting that releases it, since ordinary operations hit these (a
	 * checkout that updates a tracked .vscode/settings.json) */
	prot = srt__protected_match(path, home);
	if (prot) {
		snprintf(buf, len, "%s: protected name %s (%s); %s releases it", path, prot->name,
			 prot->reason, strcmp(prot->name, ".git/config") == 0 ?
			 "filesystem.allowGitConfig" : "filesystem.allowProtectedNames");
		return 1;
	}
	return srt__cache_advice(path, home, &sb->settings.allow_caches, buf, len);
}
