/* macos-seatbelt: the policy as a Seatbelt (SBPL) profile.
 *
 * Seatbelt decides each operation by the LAST rule that matches it, so the
 * order below is the policy: a default deny, the process, Mach, sysctl and
 * IOKit allowances the usual tools need, the network (the proxy's loopback
 * ports and the Unix socket settings only), then the file rules: reads
 * allowed but for denyRead (allowRead re-opens inside it, a glob deny wins
 * over the allows it does not cover), writes denied but for allowWrite,
 * then denyWrite and the protected names at any depth below the working
 * directory, and rules that keep a denied path, and every directory above
 * it, from being renamed or replaced out from under its rule.
 *
 * Portable: built and tested on any system; only running it needs macOS. */
#ifndef SRT_MACOS_PROFILE_H
#define SRT_MACOS_PROFILE_H

#include <srt/error.h>
#include <srt/policy.h>

/* The profile for pol; every rule reports tag when it matches (the violation
 * monitor finds this run's lines by it). *out is malloc'd. */
int srt__sb_profile(const struct srt_policy *pol, const char *tag, char **out,
		    struct srt_diag *diag);

#endif
