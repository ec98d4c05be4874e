/* A filter module built for filter ABI 1.2, against the frozen header in
 * tests/fake/filter-abi-1.2/srt/filter.h (its struct srt_filter ends with
 * completed; its srt_filter_call has no rewrite field). Right after the
 * struct, where a 1.3 core has its rewrite_body slot, lies a non-NULL
 * function pointer: a core that read past the size the module declared
 * would call it for a request body, and the trap logs a line the test
 * looks for. The request-head hook allows everything. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <srt/filter.h>

#if SRT_FILTER_ABI_MINOR != 2
#error "fake_filter_abi_1_2.c must be built against tests/fake/filter-abi-1.2/srt/filter.h"
#endif

static const struct srt_filter_host *the_host;

static int old_create(const struct srt_filter_host *h, const char *cfg, void **st,
		      struct srt_filter_error *err)
{
	(void)cfg;
	(void)err;
	the_host = h;
	*st = NULL;
	return SRT_OK;
}

static void old_destroy(void *st)
{
	(void)st;
}

static enum srt_filter_verdict old_head(void *st, struct srt_filter_request *req,
					struct srt_filter_call *c)
{
	(void)st;
	(void)req;
	(void)c;
	return SRT_FILTER_CONTINUE;
}

/* Never called by a correct core: it lies past the declared size. */
static int past_the_end(void *st, struct srt_filter_request *req, const void *chunk, size_t len,
			int end, void *out, void **data)
{
	(void)st;
	(void)req;
	(void)chunk;
	(void)len;
	(void)end;
	(void)out;
	(void)data;
	if (the_host)
		the_host->log(the_host, 0, "read past the module's size");
	return 0;
}

struct fake_entry {
	struct srt_filter f;
	int (*after)(void *st, struct srt_filter_request *req, const void *chunk, size_t len,
		     int end, void *out, void **data);
};

_Static_assert(offsetof(struct fake_entry, after) == sizeof(struct srt_filter),
	       "the trap must follow the 1.2 struct directly");

const struct fake_entry srt_filter_entry = {
	.f = {
		.hdr = {
			.magic = SRT_FILTER_MAGIC,
			.abi_major = SRT_FILTER_ABI_MAJOR,
			.abi_minor = SRT_FILTER_ABI_MINOR,
			.size = sizeof(struct srt_filter),
			.name = "fake-filter-1.2",
		},
		.create = old_create,
		.destroy = old_destroy,
		.request_head = old_head,
	},
	.after = past_the_end,
};
