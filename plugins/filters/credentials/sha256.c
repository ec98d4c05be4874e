/* SHA-256 and HMAC-SHA256: see sha256.h. */
#include "config.h"

#include <string.h>

#include "plugins/filters/credentials/sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

/* Stores that the compiler may not drop: the contexts hold key material. */
static void wipe(void *p, size_t len)
{
	volatile unsigned char *v = p;

	while (len--)
		*v++ = 0;
}

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void compress(uint32_t h[8], const unsigned char *block)
{
	uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(block + 4 * i);
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
	wipe(w, sizeof(w));
}

void srt__sha256_init(struct srt__sha256 *c)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, iv, sizeof(iv));
	c->bytes = 0;
	c->fill = 0;
}

void srt__sha256_update(struct srt__sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->bytes += len;
	if (c->fill) {
		size_t n = SRT__SHA256_BLOCK - c->fill;

		if (n > len)
			n = len;
		memcpy(c->buf + c->fill, p, n);
		c->fill += n, p += n, len -= n;
		if (c->fill < SRT__SHA256_BLOCK)
			return;
		compress(c->h, c->buf);
		c->fill = 0;
	}
	for (; len >= SRT__SHA256_BLOCK; p += SRT__SHA256_BLOCK, len -= SRT__SHA256_BLOCK)
		compress(c->h, p);
	memcpy(c->buf, p, len);
	c->fill = len;
}

void srt__sha256_final(struct srt__sha256 *c, unsigned char out[SRT__SHA256_LEN])
{
	uint64_t bits = c->bytes * 8;
	unsigned i;

	c->buf[c->fill++] = 0x80;
	if (c->fill > SRT__SHA256_BLOCK - 8) {
		memset(c->buf + c->fill, 0, SRT__SHA256_BLOCK - c->fill);
		compress(c->h, c->buf);
		c->fill = 0;
	}
	memset(c->buf + c->fill, 0, SRT__SHA256_BLOCK - 8 - c->fill);
	store_be32(c->buf + 56, (uint32_t)(bits >> 32));
	store_be32(c->buf + 60, (uint32_t)bits);
	compress(c->h, c->buf);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, c->h[i]);
	wipe(c, sizeof(*c));
}

void srt__sha256(const void *data, size_t len, unsigned char out[SRT__SHA256_LEN])
{
	struct srt__sha256 c;

	srt__sha256_init(&c);
	srt__sha256_update(&c, data, len);
	srt__sha256_final(&c, out);
}

void srt__hmac_sha256_init(struct srt__hmac_sha256 *c, const void *key, size_t key_len)
{
	unsigned char k[SRT__SHA256_BLOCK], pad[SRT__SHA256_BLOCK];
	unsigned i;

	memset(k, 0, sizeof(k));
	if (key_len > SRT__SHA256_BLOCK)
		srt__sha256(key, key_len, k);
	else if (key_len)
		memcpy(k, key, key_len);
	for (i = 0; i < SRT__SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	srt__sha256_init(&c->inner);
	srt__sha256_update(&c->inner, pad, sizeof(pad));
	for (i = 0; i < SRT__SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	srt__sha256_init(&c->outer);
	srt__sha256_update(&c->outer, pad, sizeof(pad));
	wipe(k, sizeof(k));
	wipe(pad, sizeof(pad));
}

void srt__hmac_sha256_update(struct srt__hmac_sha256 *c, const void *data, size_t len)
{
	srt__sha256_update(&c->inner, data, len);
}

void srt__hmac_sha256_final(struct srt__hmac_sha256 *c, unsigned char out[SRT__SHA256_LEN])
{
	unsigned char ih[SRT__SHA256_LEN];

	srt__sha256_final(&c->inner, ih);
	srt__sha256_update(&c->outer, ih, sizeof(ih));
	srt__sha256_final(&c->outer, out);
	wipe(ih, sizeof(ih));
}

void srt__hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		      unsigned char out[SRT__SHA256_LEN])
{
	struct srt__hmac_sha256 c;

	srt__hmac_sha256_init(&c, key, key_len);
	srt__hmac_sha256_update(&c, data, len);
	srt__hmac_sha256_final(&c, out);
}

void srt__sha256_hex(const unsigned char *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * len] = '\0';
}
