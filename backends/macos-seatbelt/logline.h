/* macos-seatbelt: the violation monitor's reading of `log stream` output.
 *
 * The monitor runs
 *     log stream --predicate '(eventMessage ENDSWITH "<suffix>")' --style compact
 * where every rule of the profile carries a tag ending in this run's
 * suffix. A denial shows as a line holding "Sandbox: <process>(<pid>)
 * deny(<n>) <operation> <target>", the tag on the line after it.
 *
 * Every byte of these lines is hostile: the target is a path the sandboxed
 * command chose. Portable, unit-tested on any system. */
#ifndef SRT_MACOS_LOGLINE_H
#define SRT_MACOS_LOGLINE_H

#include <stddef.h>

/* The event line for the core ("deny <operation> <target>", at most
 * outlen - 1 bytes, control bytes as '?') when line is a Seatbelt denial
 * worth reporting: 1. 0 for every other line (tags, headers, allows,
 * the macOS services' own noise: mDNSResponder, diagnosticd, analyticsd). */
int srt__sb_log_line(const char *line, char *out, size_t outlen);

/* The per-run tag: "CMD64_<base64 of the first 100 bytes of key>_END_<suffix>"
 * into out (outlen >= 200 always fits). */
void srt__sb_log_tag(const char *key, const char *suffix, char *out, size_t outlen);

#endif
