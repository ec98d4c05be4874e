/* Backend choice without --backend: try the built-in backends, best first,
 * and keep the first that loads, can bridge the proxy when one is needed,
 * and whose probe passes here. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "backend-choice.h"
#include "loader.h"

/* The automatic choice, best first. */
static const char *const auto_backends[] = { "linux-bwrap", "linux-landlock" };
#define N_AUTO_BACKENDS (sizeof(auto_backends) / sizeof(auto_backends[0]))

/* Without --backend: the first backend that can run here and enforce the
 * whole policy. When none can, say why for each. */
int srt__sandbox_choose_backend(struct srt_sandbox *sb, int need_proxy, struct srt_diag *diag)
{
	char why[N_AUTO_BACKENDS][sizeof(((struct srt_diag *)0)->message)];
	size_t i;

	for (i = 0; i < N_AUTO_BACKENDS; i++) {
		struct srt_diag d;
		struct srt__module *m = NULL;
		const struct srt_backend *be = NULL;
		int rc;

		memset(&d, 0, sizeof(d));
		rc = srt__module_load_backend(auto_backends[i], &m, &be, &d);
		if (!rc && need_proxy && !(be->caps & SRT_CAP_PROXY)) {
			snprintf(d.message, sizeof(d.message),
				 "cannot bridge the proxy that network.allowedDomains needs");
			rc = SRT_E_UNSUPPORTED;
		}
		if (!rc)
			rc = be->probe(&sb->policy, &d);
		if (!rc) {
			sb->module = m;
			sb->be = be;
			/* a weaker backend than the first is said every time, not
			 * only under --debug (README: what differs) */
			if (i > 0)
				srt__sandbox_log(sb, 0, "backend %s chosen: %s could not run (%s); %s is weaker: "
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
	return srt_diag_set(diag, SRT_E_UNAVAILABLE, "backend",
			    "no sandbox backend can run here, so nothing was run. linux-bwrap: %s. linux-landlock: %s. Run `srt doctor` for every layer and its fix",
			    why[0], why[1]);
}
