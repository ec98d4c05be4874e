/* Proxy authentication: base64, the HTTP Basic header, the SOCKS5 username
 * and the attribution carried in it. Every client must present the per-run
 * token, so another local user cannot borrow the sandbox's proxy. */
#ifndef SRT_PROXY_AUTH_H
#define SRT_PROXY_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Standard base64 with padding. Returns the length written (without the
 * NUL it always adds), or 0 when `cap` is too small. */
size_t srt__b64_encode(const uint8_t *in, size_t n, char *out, size_t cap);

/* Decode standard or URL-safe base64, padding optional. Returns 0 and the
 * length in *outlen, or -1 on a bad character, bad length or overflow. */
int srt__b64_decode(const char *in, size_t n, uint8_t *out, size_t cap,
		    size_t *outlen);

/* Constant-time comparison of a client-supplied secret with the token. */
bool srt__token_equal(const char *given, size_t len, const char *token);

/* The attribution in a proxy username: "srt.<base64 of the command key>"
 * gives the key (malloc'd, caller frees); anything else, an undecodable
 * suffix or a key with a NUL byte gives NULL. A still percent-encoded
 * name (%3D for '=') is decoded first. */
char *srt__auth_user_key(const char *user, size_t len);

/* Check a Proxy-Authorization value against the token: "Basic <b64>" whose
 * decoded form is "<non-empty user>:<token>". Returns true when it passes;
 * then *key gets the attribution of the user (may be NULL). */
bool srt__auth_basic_check(const char *value, size_t len, const char *token,
			   char **key);

/* SOCKS5 RFC 1929: user must be "srt" or "srt.<...>", password the token. */
bool srt__auth_socks_check(const char *user, size_t ulen, const char *pass,
			   size_t plen, const char *token, char **key);

#endif
