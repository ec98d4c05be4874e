/* ClientHello parsing for the SNI check. Every length is checked against
 * what is left; anything inconsistent is MALFORMED, and the caller fails
 * closed on it. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "proxies/sni.h"

static unsigned u16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

int srt__sni_find(const uint8_t *buf, size_t len, char *out, size_t cap)
{
	uint8_t hs[SRT_SNI_PEEK_MAX];
	size_t hl = 0, off = 0, need = 0, p, end;
	bool found = false;

	if (len == 0)
		return SRT_SNI_MORE;
	/* a TLS record starts 16 03; anything else is another protocol
	 * (a server that took it for TLS would reject it too) */
	if (buf[0] != 0x16 || (len >= 2 && buf[1] != 0x03))
		return SRT_SNI_NOT_TLS;
	/* reassemble the handshake message from consecutive records */
	for (;;) {
		size_t rl;

		if (len - off < 5)
			return SRT_SNI_MORE;
		if (buf[off] != 0x16 || buf[off + 1] != 0x03)
			return SRT_SNI_MALFORMED;
		rl = u16(buf + off + 3);
		if (rl == 0 || rl > 16384 + 256)
			return SRT_SNI_MALFORMED;
		if (len - off - 5 < rl) {
			/* what we have of this record still counts */
			size_t part = len - off - 5;
			if (hl + part > sizeof(hs))
				return SRT_SNI_MALFORMED;
			memcpy(hs + hl, buf + off + 5, part);
			hl += part;
			if (hl >= 4 && hs[0] != 1)
				return SRT_SNI_MALFORMED;
			return SRT_SNI_MORE;
		}
		if (hl + rl > sizeof(hs))
			return SRT_SNI_MALFORMED;
		memcpy(hs + hl, buf + off + 5, rl);
		hl += rl;
		off += 5 + rl;
		if (hl >= 4) {
			if (hs[0] != 1) /* client_hello */
				return SRT_SNI_MALFORMED;
			need = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3]);
			if (need > sizeof(hs))
				return SRT_SNI_MALFORMED;
			if (hl >= need)
				break;
		}
	}
	/* client_version, random, session_id, cipher_suites, compression */
	p = 4 + 2 + 32;
	end = need;
	if (p + 1 > end)
		return SRT_SNI_MALFORMED;
	p += 1 + hs[p];
	if (p + 2 > end)
		return SRT_SNI_MALFORMED;
	p += 2 + u16(hs + p);
	if (p + 1 > end)
		return SRT_SNI_MALFORMED;
	p += 1 + hs[p];
	if (p == end)
		return SRT_SNI_NONE; /* no extensions */
	if (p + 2 > end || p + 2 + u16(hs + p) != end)
		return SRT_SNI_MALFORMED;
	p += 2;
	while (p + 4 <= end) {
		unsigned type = u16(hs + p), el = u16(hs + p + 2);
		size_t q, qe;
		unsigned nt, nl;

		p += 4;
		if (p + el > end)
			return SRT_SNI_MALFORMED;
		if (type != 0) {
			p += el;
			continue;
		}
		/* server_name: list length, then (type, length, name) entries.
		 * Exactly one host_name in one extension: with two, a server
		 * that picks another one than we checked would be fronting
		 * (OpenSSL and Go refuse such hellos anyway). */
		if (found)
			return SRT_SNI_MALFORMED;
		q = p;
		qe = p + el;
		if (q + 2 > qe || q + 2 + u16(hs + q) != qe || q + 5 > qe)
			return SRT_SNI_MALFORMED;
		q += 2;
		nt = hs[q];
		nl = u16(hs + q + 1);
		q += 3;
		if (nt != 0 || q + nl != qe || nl == 0 || nl >= cap)
			return SRT_SNI_MALFORMED;
		for (unsigned i = 0; i < nl; i++) {
			uint8_t ch = hs[q + i];
			if (ch <= 0x20 || ch >= 0x7f)
				return SRT_SNI_MALFORMED;
			out[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
		}
		out[nl] = '\0';
		found = true;
		p = qe;
	}
	if (p != end)
		return SRT_SNI_MALFORMED;
	return found ? SRT_SNI_FOUND : SRT_SNI_NONE;
}
