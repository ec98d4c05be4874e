/* Filter modules for the loader tests, one per FAKE_VARIANT: 0 a good
 * one (ABI 1.current, every slot), 1 wrong magic (a backend's), 2 a newer
 * major, 3 a size too short for the mandatory slots, 4 create left NULL,
 * 5 a newer minor. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <srt/filter.h>

#ifndef FAKE_VARIANT
#error "FAKE_VARIANT must be set"
#endif

static __attribute__((unused)) int ff_create(const struct srt_filter_host *h, const char *cfg, void **st,
		     struct srt_filter_error *err)
{
	(void)h;
	if (cfg && strcmp(cfg, "{}")) {
		snprintf(err->path, sizeof(err->path), "%s", "unknown");
		snprintf(err->message, sizeof(err->message), "%s", "this filter takes no settings");
		return SRT_E_INVAL;
	}
	*st = NULL;
	return SRT_OK;
}

static void ff_destroy(void *st)
{
	(void)st;
}

static enum srt_filter_verdict ff_head(void *st, struct srt_filter_request *req,
				       struct srt_filter_call *c)
{
	(void)st;
	if (strcmp(req->method, "GET")) {
		c->status = 405;
		snprintf(c->reason, sizeof(c->reason), "fake filter: only GET");
		return SRT_FILTER_DENY;
	}
	return SRT_FILTER_CONTINUE;
}

const struct srt_filter srt_filter_entry = {
	.hdr = {
#if FAKE_VARIANT == 1
		.magic = SRT_BACKEND_MAGIC,
#else
		.magic = SRT_FILTER_MAGIC,
#endif
#if FAKE_VARIANT == 2
		.abi_major = SRT_FILTER_ABI_MAJOR + 1,
#else
		.abi_major = SRT_FILTER_ABI_MAJOR,
#endif
#if FAKE_VARIANT == 5
		.abi_minor = SRT_FILTER_ABI_MINOR + 1,
#else
		.abi_minor = SRT_FILTER_ABI_MINOR,
#endif
#if FAKE_VARIANT == 3
		.size = sizeof(struct srt_module_header) + sizeof(void *),
#else
		.size = sizeof(struct srt_filter),
#endif
		.name = "fake-filter",
	},
#if FAKE_VARIANT != 4
	.create = ff_create,
#endif
	.destroy = ff_destroy,
	.request_head = ff_head,
};
