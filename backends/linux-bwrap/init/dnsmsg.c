/* DNS messages for the in-sandbox answerer: see dnsmsg.h. */
#include "config.h"

#include <string.h>

#include "backends/linux-bwrap/init/dnsmsg.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The question's name from off: labels of 1..63 bytes, at most 253
 * characters dotted, no pointers. The offset after it, or 0. */
static size_t read_name(const uint8_t *msg, size_t n, size_t off, char *out)
{
	size_t len = 0;

	for (;;) {
		uint8_t l;

		if (off >= n)
			return 0;
		l = msg[off++];
		if (l == 0)
			break;
		if (l > 63 || off + l > n || len + (len ? 1 : 0) + l > SRT_DNS_NAME_MAX - 1)
			return 0;
		if (len)
			out[len++] = '.';
		for (uint8_t i = 0; i < l; i++) {
			char c = (char)msg[off + i];

			/* letters, digits, '-', '_': a name anything else
			 * could mean something else to the proxy */
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '_'))
				return 0;
			out[len++] = c;
		}
		off += l;
	}
	out[len] = '\0';
	return off;
}

int srt__dns_parse(const uint8_t *msg, size_t n, struct srt__dns_q *q)
{
	size_t off;

	memset(q, 0, sizeof(*q));
	if (n < 12)
		return -1;
	q->id = rd16(msg);
	q->flags = rd16(msg + 2);
	if (q->flags & 0x8000)
		return -1; /* a response: never answered (no loops) */
	if (((q->flags >> 11) & 0xf) != 0 || rd16(msg + 4) != 1 || rd16(msg + 6) || rd16(msg + 8))
		return -2;
	off = read_name(msg, n, 12, q->name);
	if (!off || off + 4 > n)
		return -2;
	q->qtype = rd16(msg + off);
	q->qclass = rd16(msg + off + 2);
	q->qend = off + 4;
	return 0;
}

size_t srt__dns_answer(const uint8_t *msg, const struct srt__dns_q *q, int rcode,
		       const uint32_t *a4, uint32_t ttl, uint8_t *out, size_t cap)
{
	size_t qlen = q->qend > 12 ? q->qend - 12 : 0, len = 12 + qlen;

	if (len + (a4 ? 16 : 0) > cap)
		return 0;
	memset(out, 0, 12);
	wr16(out, q->id);
	/* QR, AA, RD copied, RA, the rcode */
	wr16(out + 2, (uint16_t)(0x8000 | 0x0400 | (q->flags & 0x0100) | 0x0080 | (rcode & 0xf)));
	wr16(out + 4, qlen ? 1 : 0);
	wr16(out + 6, a4 ? 1 : 0);
	memcpy(out + 12, msg + 12, qlen);
	if (a4 && qlen) {
		uint8_t *r = out + len;

		wr16(r, 0xc00c); /* the question's name */
		wr16(r + 2, SRT_DNS_TYPE_A);
		wr16(r + 4, SRT_DNS_CLASS_IN);
		r[6] = (uint8_t)(ttl >> 24);
		r[7] = (uint8_t)(ttl >> 16);
		r[8] = (uint8_t)(ttl >> 8);
		r[9] = (uint8_t)ttl;
		wr16(r + 10, 4);
		memcpy(r + 12, a4, 4);
		len += 16;
	} else if (a4) {
		return 0;
	}
	return len;
}
