/* Deliberately (in)compatible backend modules for the loader test. The
 * variant is chosen at compile time with FAKE_VARIANT. */
#include "config.h"

#include <srt/backend.h>

#include "fake-slots.h"

static void f_diagnose(srt_report_fn report, void *ctx) { report(ctx, "fake", 1, "", ""); }

#define FAKE_OK 0
#define FAKE_BAD_MAJOR 1
#define FAKE_BAD_MAGIC 2
#define FAKE_TRUNCATED 3
#define FAKE_NEWER_MINOR 4
#define FAKE_NULL_SLOT 5

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
	.wrap = FAKE_VARIANT == FAKE_NULL_SLOT ? 0 : f_wrap,
	.release = f_release,
	.teardown = f_teardown,
	.diagnose = f_diagnose,
};
