/* Deliberately (in)compatible backend modules for the loader test. The
 * variant is chosen at compile time with FAKE_VARIANT. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <srt/backend.h>

#include "fake-slots.h"

static void f_diagnose(srt_report_fn report, void *ctx) { report(ctx, "fake", 1, "", ""); }

#define FAKE_OK 0
#define FAKE_BAD_MAJOR 1
#define FAKE_BAD_MAGIC 2
#define FAKE_TRUNCATED 3
#define FAKE_NEWER_MINOR 4
#define FAKE_NULL_SLOT 5
#define FAKE_NO_CAPS 6 /* declares no capability and runs the command as it is */
#define FAKE_PARTIAL_SPAWN 7 /* sets spawn but neither wait_proc nor end_proc */
#define FAKE_LOOPBACK_PROXY 8 /* declares SRT_CAP_NETRULES and SRT_CAP_LOOPBACK_PROXY and
			       * runs the command as it is: the core's side of a
			       * backend whose command reaches the proxy on a
			       * loopback port (windows-wfp), on Linux */

static int f_spawn(void *s, struct srt_command *c, char *const *e, void **p, struct srt_diag *d)
{ (void)s; (void)c; (void)e; (void)p; (void)d; return SRT_E_UNSUPPORTED; }

/* The third-party module that enforces nothing: wrap hands back argv
 * unchanged, so a core that ran it would run the command unconfined. */
static int f_wrap_plain(void *s, const char *const *a, struct srt_command *o, struct srt_diag *d)
{
	size_t n = 0, i;

	(void)s;
	(void)d;
	while (a[n])
		n++;
	o->argv = calloc(n + 1, sizeof(*o->argv));
	if (!o->argv)
		return SRT_E_NOMEM;
	for (i = 0; i < n; i++)
		if (!(o->argv[i] = strdup(a[i])))
			return SRT_E_NOMEM;
	return SRT_OK;
}

const struct srt_backend srt_backend_entry = {
	.hdr = {
		.magic = FAKE_VARIANT == FAKE_BAD_MAGIC ? 0x12345678u : SRT_BACKEND_MAGIC,
		.abi_major = FAKE_VARIANT == FAKE_BAD_MAJOR ? SRT_BACKEND_ABI_MAJOR + 1 : SRT_BACKEND_ABI_MAJOR,
		.abi_minor = FAKE_VARIANT == FAKE_NEWER_MINOR ? SRT_BACKEND_ABI_MINOR + 1 : SRT_BACKEND_ABI_MINOR,
		.size = FAKE_VARIANT == FAKE_TRUNCATED ? sizeof(struct srt_module_header) + 8 : sizeof(struct srt_backend),
		.name = "fake",
	},
	.probe = f_probe,
	.prepare = f_prepare,
	.caps = FAKE_VARIANT == FAKE_LOOPBACK_PROXY ? SRT_CAP_NETRULES | SRT_CAP_LOOPBACK_PROXY : 0,
	.wrap = FAKE_VARIANT == FAKE_NULL_SLOT ? 0 :
		FAKE_VARIANT == FAKE_NO_CAPS || FAKE_VARIANT == FAKE_LOOPBACK_PROXY ? f_wrap_plain : f_wrap,
	.release = f_release,
	.teardown = f_teardown,
	.diagnose = f_diagnose,
	.spawn = FAKE_VARIANT == FAKE_PARTIAL_SPAWN ? f_spawn : 0,
};
