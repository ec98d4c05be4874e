/* The in-sandbox DNS answerer's message code (backends/linux-bwrap/init/
 * dnsmsg.c): what it accepts of a query, what it refuses, and the answer
 * it writes. Every byte of a query comes from the sandboxed command. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "backends/linux-bwrap/init/dnsmsg.h"

static size_t query(uint8_t *m, const char *const *labels, uint16_t qtype)
{
	size_t n = 12;

	memset(m, 0, 12);
	m[0] = 0xab; m[1] = 0xcd; m[2] = 0x01; /* RD */
	m[5] = 1;
	for (; *labels; labels++) {
		m[n++] = (uint8_t)strlen(*labels);
		memcpy(m + n, *labels, strlen(*labels));
		n += strlen(*labels);
	}
	m[n++] = 0;
	m[n++] = (uint8_t)(qtype >> 8); m[n++] = (uint8_t)qtype;
	m[n++] = 0; m[n++] = 1;
	return n;
}

static void parse_and_answer(void)
{
	static const char *const l[] = { "Api", "Example", "com", NULL };
	uint8_t m[512], out[512];
	struct srt__dns_q q;
	uint32_t a = 0x010012c6; /* four address bytes, compared as bytes */
	size_t n = query(m, l, 1), len;

	ok(srt__dns_parse(m, n, &q) == 0 && !strcmp(q.name, "api.example.com") && q.qtype == 1 &&
	   q.id == 0xabcd && q.qend == n, "a query: lower-cased name, type, id (%s)", q.name);
	len = srt__dns_answer(m, &q, SRT_DNS_NOERROR, &a, 60, out, sizeof(out));
	ok(len == n + 16 && out[0] == 0xab && (out[2] & 0x80) && (out[3] & 0xf) == 0 && out[7] == 1 &&
	   !memcmp(out + len - 4, &a, 4), "the answer: id, QR, one A record with the address");
	len = srt__dns_answer(m, &q, SRT_DNS_NXDOMAIN, NULL, 0, out, sizeof(out));
	ok(len == n && (out[3] & 0xf) == 3 && out[7] == 0, "NXDOMAIN: the question, no answer");
	ok(srt__dns_answer(m, &q, SRT_DNS_NOERROR, &a, 60, out, n + 15) == 0,
	   "an answer that does not fit is not written");
}

static void hostile(void)
{
	static const char *const l[] = { "a", "b", NULL };
	uint8_t m[600];
	struct srt__dns_q q;
	size_t n = query(m, l, 1);

	ok(srt__dns_parse(m, 11, &q) == -1, "shorter than a header: no answer");
	m[2] |= 0x80;
	ok(srt__dns_parse(m, n, &q) == -1, "a response is never answered");
	m[2] &= 0x7f;
	m[5] = 2;
	ok(srt__dns_parse(m, n, &q) == -2, "two questions: FORMERR");
	m[5] = 1;
	m[12] = 0xc0;
	ok(srt__dns_parse(m, n, &q) == -2, "a compression pointer in the question: FORMERR");
	n = query(m, l, 1);
	m[13] = '.';
	ok(srt__dns_parse(m, n, &q) == -2, "a dot inside a label: FORMERR");
	m[13] = 'a';
	ok(srt__dns_parse(m, n - 3, &q) == -2, "a truncated question: FORMERR");
	memset(m + 12, 0, sizeof(m) - 12);
	n = 12;
	for (int i = 0; i < 5; i++) {
		m[n++] = 63;
		memset(m + n, 'x', 63);
		n += 63;
	}
	m[n++] = 0;
	n += 4;
	ok(srt__dns_parse(m, n, &q) == -2, "a name over 253 characters: FORMERR");
	m[12] = 64;
	ok(srt__dns_parse(m, n, &q) == -2, "a label over 63 bytes: FORMERR");
}

int main(void)
{
	TAP_RUN(parse_and_answer);
	TAP_RUN(hostile);
	return tap_done();
}
