/* The wrap-time masking of the credentials module (common/credmask.h):
 * sentinels, extraction with PCRE2, JWT-shaped fakes. */
#ifndef SRT_PLUGIN_CREDENTIALS_MASK_H
#define SRT_PLUGIN_CREDENTIALS_MASK_H

#include <stddef.h>

/* Shortest sentinel of the real value's own length: shorter real values
 * get a sentinel of MASK_SHORT_SENTINEL bytes (and bodies holding one are
 * sent chunked, their length changing). */
#define MASK_MIN_SAME_LENGTH 12
#define MASK_SHORT_SENTINEL 47 /* "fake_value_" + a UUID */

/* A sentinel for a value of `len` bytes into out (at least
 * max(len, MASK_SHORT_SENTINEL) + 1 bytes): "fake_value_<uuid4>" padded
 * with [a-z0-9_-] to `len` when the value is longer; for a value of
 * MASK_MIN_SAME_LENGTH..46 bytes "fake_" and random [a-z0-9] to exactly
 * `len`; shorter values get the 47-byte form. Returns its length, or 0
 * when no random bytes could be had. */
size_t mask_sentinel(size_t len, char *out);

/* A JWT's shape: three base64url segments, the first a JSON object with
 * "alg", the second a JSON object. */
int mask_is_jwt(const char *s, size_t len);

/* The entry point of common/credmask.h. */
char *srt_credentials_mask(const char *request_json);

#endif
