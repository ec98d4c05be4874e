/* The public view of a sandbox's violations: the listener, each command's
 * list, the total, and stderr annotated with a command's violations. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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
