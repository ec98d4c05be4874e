/* linux-bwrap: finding the programs the backend runs (bwrap, the helper
 * srt-linux-init) where a sandboxed command cannot have planted them. */
#ifndef SRT_BWRAP_FIND_H
#define SRT_BWRAP_FIND_H

#include <stddef.h>
#include <srt/policy.h>

/* May path (a program) be trusted to build the sandbox under pol (may be
 * NULL)? 1 or 0; the rule is in find.c. */
int srt__bwrap_trusted_program(const char *path, const struct srt_policy *pol);
/* The first trusted executable name on $PATH into out: 0, or -1. */
int srt__bwrap_find_on_path(const char *name, const struct srt_policy *pol, char *out,
			    size_t outlen);
/* srt-linux-init next to this module into out: 0, or -1. */
int srt__bwrap_find_helper(char *out, size_t outlen);

#endif
