/* Linux backends: the glob grammar of the filesystem rules and its expansion
 * at wrap time (Linux mounts can only name paths that exist).
 *
 * Grammar: "?" one character other than "/"; "*" any run without "/";
 * "**" (two or more stars) anything; "**" followed by "/" any run of whole
 * directories, including none; "[set]" from "[" to the first "]": literal
 * members and ranges "a-z" ("-" literal at either end, no negation, may
 * match "/"). A bracket that spells no set (empty, a backwards range,
 * unmatched) is literal text. The pattern must match the whole path. */
#ifndef SRT_BWRAP_GLOB_H
#define SRT_BWRAP_GLOB_H

#include <stddef.h>
#include <srt/error.h>
#include "common/strv.h"

struct srt__glob;

/* Compile pattern; *out is freed with srt__glob_free(). */
int srt__glob_compile(const char *pattern, struct srt__glob **out);
void srt__glob_free(struct srt__glob *g);
/* 1 when the whole of path matches, else 0. */
int srt__glob_match(const struct srt__glob *g, const char *path);

/* Length of the directory prefix of an absolute pattern before its first
 * component that holds a glob character ("/a/b/x*.pem" -> 4, "/a/[x]" -> 2;
 * a pattern whose first component is a glob -> 0, meaning "/"). */
size_t srt__glob_base_len(const char *pattern);

/* Expand an absolute pattern by walking from its base directory. Each
 * matching entry is appended to out as an absolute path (spelled through
 * any link walked); a matching directory is not descended into (a deny of
 * it covers everything below). With with_links (the deny side) matching
 * links are reported and linked directories are walked too (loops
 * skipped); without it links are neither reported nor followed. At most *budget directory entries are
 * visited (decremented); running out is SRT_E_LIMIT. A pattern whose base
 * is "/" is refused (SRT_E_INVAL): it would mean walking the whole host. */
int srt__glob_expand(const char *pattern, int with_links, size_t *budget,
		     struct srt__strv *out, struct srt_diag *diag);

#endif
