/* The wrap-time half of the credentials module, as the core calls it.
 *
 * The credentials filter module (<filterdir>/credentials.so) exports,
 * beside srt_filter_entry, one function under the name
 * SRT__CREDMASK_SYMBOL. The core loads that module when the settings have
 * `credentials`, hands the function what it read (each entry with the real
 * value of its variable or file) and gets back what the sandbox sees
 * instead, plus the configuration of the module's filter (the sentinels
 * and their real values), which it hands to the module's create(). So the
 * regular expressions are applied (PCRE2) and the JWT handling lives in
 * the module only; libsrt links PCRE2 just to check that each extract
 * pattern compiles with the module's options when the settings are read
 * (libsrt/extract-pcre2.c).
 *
 * Request (JSON object):
 *   {"version": 1,
 *    "entries": [{"kind": "env"|"file", "name": "...", "path": "...",
 *                 "mode": "mask"|"deny", "present": bool, "value": "...",
 *                 "extract": "...", "onExtractNoMatch": "warn"|"deny"|"error",
 *                 "decode": "jwt", "maskClaims": [...], "maskDuplicates": bool,
 *                 "injectHosts": [...]}],
 *    "allowPlaintextInject": bool, "awsPairs": [...], "sigv4": {...}}
 * Answer (JSON object, malloc'd, freed by the caller with free()):
 *   {"results": [{"action": "keep"|"set"|"unset"|"deny", "value": "..."}],
 *    "warnings": ["..."], "error": "..." (then nothing else counts),
 *    "filterConfig": {...}}
 * results[i] answers entries[i]: keep (left as it is), set (the sandbox
 * sees `value`), unset (an environment variable removed), deny (a file
 * the sandbox may not read). NULL: out of memory. The real values are in
 * the request and in filterConfig only; the caller wipes both. */
#ifndef SRT_COMMON_CREDMASK_H
#define SRT_COMMON_CREDMASK_H

#define SRT__CREDMASK_SYMBOL "srt_credentials_mask"

/* How the module compiles an extract pattern (pcre2_compile's options):
 * UTF-8, a value that is not UTF-8 still searched, JavaScript's \u and
 * \x{...} escapes. libsrt/extract-pcre2.c checks patterns with the same
 * options. For a file that includes <pcre2.h>. */
#define SRT__CREDMASK_PCRE2_OPTIONS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_ALT_BSUX)
#define SRT__CREDMASK_VERSION 1

typedef char *(*srt__credmask_fn)(const char *request_json);

#endif
