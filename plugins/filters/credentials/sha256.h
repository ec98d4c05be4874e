/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), small and self-contained
 * so the credentials filter needs no crypto library (mbedTLS belongs to the
 * TLS module alone). Not constant-time with respect to message length,
 * which is public anyway; the key schedule has no secret-dependent branch
 * or table index. */
#ifndef SRT_PLUGIN_CREDENTIALS_SHA256_H
#define SRT_PLUGIN_CREDENTIALS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SRT__SHA256_LEN 32
#define SRT__SHA256_BLOCK 64

struct srt__sha256 {
	uint32_t h[8];
	uint64_t bytes; /* total fed so far */
	unsigned char buf[SRT__SHA256_BLOCK];
	size_t fill;
};

/* Caller's memory; cannot fail. */
void srt__sha256_init(struct srt__sha256 *c);
void srt__sha256_update(struct srt__sha256 *c, const void *data, size_t len);
/* Writes the digest and wipes the context. */
void srt__sha256_final(struct srt__sha256 *c, unsigned char out[SRT__SHA256_LEN]);
void srt__sha256(const void *data, size_t len, unsigned char out[SRT__SHA256_LEN]);

struct srt__hmac_sha256 {
	struct srt__sha256 inner, outer;
};

void srt__hmac_sha256_init(struct srt__hmac_sha256 *c, const void *key, size_t key_len);
void srt__hmac_sha256_update(struct srt__hmac_sha256 *c, const void *data, size_t len);
/* Writes the MAC and wipes the context. */
void srt__hmac_sha256_final(struct srt__hmac_sha256 *c, unsigned char out[SRT__SHA256_LEN]);
void srt__hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		      unsigned char out[SRT__SHA256_LEN]);

/* Lower-case hex of `len` bytes into `out` (2 * len + 1 bytes with the NUL). */
void srt__sha256_hex(const unsigned char *in, size_t len, char *out);

#endif
