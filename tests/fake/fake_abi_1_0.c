/* A backend module built for ABI 1.0, against the frozen header in
 * tests/fake/abi-1.0/srt/backend.h (its struct srt_backend ends with
 * teardown). Right after the struct, where a 1.1 core has its diagnose
 * slot, lies a non-NULL function pointer: a core that read past the size
 * the module declared would find and call it, and the loader test would see
 * the report it makes. */
#include "config.h"

#include <stddef.h>
#include <srt/backend.h>

#if SRT_BACKEND_ABI_MINOR != 0
#error "fake_abi_1_0.c must be built against tests/fake/abi-1.0/srt/backend.h"
#endif

/* as srt_report_fn of ABI 1.1; ABI 1.0 has no such type */
typedef void (*report_fn)(void *ctx, const char *layer, int works,
			  const char *detail, const char *fix);

#include "fake-slots.h"

/* Never called by a correct core: it lies past the declared size. */
static void past_the_end(report_fn report, void *ctx)
{
	report(ctx, "read past the module's size", 1, "", "");
}

struct fake_entry {
	struct srt_backend be;
	void (*after)(report_fn report, void *ctx);
};

_Static_assert(offsetof(struct fake_entry, after) == sizeof(struct srt_backend),
	       "the trap must follow the 1.0 struct directly");

const struct fake_entry srt_backend_entry = {
	.be = {
		.hdr = {
			.magic = SRT_BACKEND_MAGIC,
			.abi_major = SRT_BACKEND_ABI_MAJOR,
			.abi_minor = SRT_BACKEND_ABI_MINOR,
			.size = sizeof(struct srt_backend),
			.name = "fake-1.0",
		},
		.probe = f_probe,
		.prepare = f_prepare,
		.wrap = f_wrap,
		.release = f_release,
		.teardown = f_teardown,
	},
	.after = past_the_end,
};
