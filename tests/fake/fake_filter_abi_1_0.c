/* A filter module built for filter ABI 1.0, against the frozen header in
 * tests/fake/filter-abi-1.0/srt/filter.h (its struct srt_filter ends with
 * finish). Right after the struct, where a 1.1 core has its cancel slot,
 * lies a non-NULL function pointer: a core that read past the size the
 * module declared would call it when it abandons a pending call, and the
 * trap logs a line the test looks for. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <srt/filter.h>

#if SRT_FILTER_ABI_MINOR != 0
#error "fake_filter_abi_1_0.c must be built against tests/fake/filter-abi-1.0/srt/filter.h"
#endif

static const struct srt_filter_host *the_host;
static struct srt_filter_call *held;

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
	if (held) {
		held->complete(held, SRT_FILTER_ERROR);
		held = NULL;
	}
}

/* GET: pending (held until destroy); anything else: denied 403. */
static enum srt_filter_verdict old_head(void *st, struct srt_filter_request *req,
					struct srt_filter_call *c)
{
	(void)st;
	if (!strcmp(req->method, "GET")) {
		held = c;
		return SRT_FILTER_PENDING;
	}
	c->status = 403;
	snprintf(c->reason, sizeof(c->reason), "old filter: %s refused", req->method);
	return SRT_FILTER_DENY;
}

/* Never called by a correct core: it lies past the declared size. */
static void past_the_end(void *st, struct srt_filter_call *c)
{
	(void)st;
	(void)c;
	if (the_host)
		the_host->log(the_host, 0, "read past the module's size");
}

struct fake_entry {
	struct srt_filter f;
	void (*after)(void *st, struct srt_filter_call *c);
};

_Static_assert(offsetof(struct fake_entry, after) == sizeof(struct srt_filter),
	       "the trap must follow the 1.0 struct directly");

const struct fake_entry srt_filter_entry = {
	.f = {
		.hdr = {
			.magic = SRT_FILTER_MAGIC,
			.abi_major = SRT_FILTER_ABI_MAJOR,
			.abi_minor = SRT_FILTER_ABI_MINOR,
			.size = sizeof(struct srt_filter),
			.name = "fake-filter-1.0",
		},
		.create = old_create,
		.destroy = old_destroy,
		.request_head = old_head,
	},
	.after = past_the_end,
};
