/* Test helper: a synthetic TLS ClientHello (tests only). */
#ifndef SRT_TEST_TLS_HELLO_H
#define SRT_TEST_TLS_HELLO_H

#include <stdint.h>
#include <string.h>

static size_t put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* A ClientHello with optional SNI, split into records of at most `rec`
 * payload bytes. Returns the length. */
static size_t hello(uint8_t *out, const char *sni, size_t rec)
{
	uint8_t hs[2048], body[2048];
	size_t b = 0, e, h = 0, o = 0, off = 0;

	body[b++] = 3;
	body[b++] = 3;
	memset(body + b, 0xab, 32);
	b += 32;
	body[b++] = 32; /* session id */
	memset(body + b, 1, 32);
	b += 32;
	b += put16(body + b, 4);
	b += put16(body + b, 0x1301);
	b += put16(body + b, 0x1302);
	body[b++] = 1;
	body[b++] = 0;
	e = b;
	b += 2; /* extensions length, later */
	/* supported_versions first, so SNI is not the first extension */
	b += put16(body + b, 43);
	b += put16(body + b, 3);
	body[b++] = 2;
	b += put16(body + b, 0x0304);
	if (sni) {
		size_t n = strlen(sni);
		b += put16(body + b, 0);
		b += put16(body + b, (unsigned)(n + 5));
		b += put16(body + b, (unsigned)(n + 3));
		body[b++] = 0;
		b += put16(body + b, (unsigned)n);
		memcpy(body + b, sni, n);
		b += n;
	}
	put16(body + e, (unsigned)(b - e - 2));
	hs[h++] = 1;
	hs[h++] = 0;
	h += put16(hs + h, (unsigned)b);
	memcpy(hs + h, body, b);
	h += b;
	while (off < h) {
		size_t n = h - off < rec ? h - off : rec;
		out[o++] = 0x16;
		out[o++] = 3;
		out[o++] = 1;
		o += put16(out + o, (unsigned)n);
		memcpy(out + o, hs + off, n);
		o += n;
		off += n;
	}
	return o;
}

#endif
