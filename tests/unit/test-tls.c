/* SNI extraction from a TLS ClientHello (proxies/sni.c). */
#include "config.h"

#include <string.h>

#include "proxies/sni.h"
#include "tests/unit/tap.h"
#include "tests/unit/tls-hello.h"

static void case_hellos(void)
{
	uint8_t m[4096];
	char name[256];
	size_t n;
	int r;

	n = hello(m, "Evil.Test", 16384);
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_FOUND && !strcmp(name, "evil.test"),
	   "SNI found and lower-cased");
	ok(srt__sni_find(m, n - 1, name, sizeof(name)) == SRT_SNI_MORE, "partial hello needs more");
	ok(srt__sni_find(m, 3, name, sizeof(name)) == SRT_SNI_MORE, "partial record header needs more");
	n = hello(m, "a.example.com", 40);
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_FOUND && !strcmp(name, "a.example.com"),
	   "hello fragmented over several records");
	r = 0;
	for (size_t k = 1; k < n; k++)
		if (srt__sni_find(m, k, name, sizeof(name)) != SRT_SNI_MORE)
			r++;
	ok(r == 0, "every prefix of a fragmented hello asks for more");
	n = hello(m, NULL, 16384);
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_NONE, "hello without SNI");
	ok(srt__sni_find((const uint8_t *)"GET / HTTP/1.1\r\n", 16, name, sizeof(name)) == SRT_SNI_NOT_TLS,
	   "plain HTTP is not TLS");
	ok(srt__sni_find((const uint8_t *)"\x16\x1d\x00", 3, name, sizeof(name)) == SRT_SNI_NOT_TLS,
	   "0x16 without 03 is not TLS");
	n = hello(m, "x.test", 16384);
	m[5] = 2; /* server_hello, not client_hello */
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_MALFORMED, "not a ClientHello");
	n = hello(m, "x.test", 16384);
	m[n - 8] = 0xff; /* name length points past the end */
	ok(srt__sni_find(m, n, name, sizeof(name)) < SRT_SNI_MORE, "bad SNI length refused");
	n = hello(m, "x.test", 16384);
	m[3] = 0x7f;
	m[4] = 0xff;
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_MALFORMED, "oversized record refused");
	n = hello(m, "x\x01y.test", 16384);
	ok(srt__sni_find(m, n, name, sizeof(name)) == SRT_SNI_MALFORMED, "control byte in a name refused");
}

/* random garbage after 16 03 never crashes and never passes as a name */
static void case_garbage(void)
{
	uint8_t m[4096];
	char name[256];
	uint64_t st = 42;
	int found = 0;

	for (int i = 0; i < 20000; i++) {
		size_t len = 5 + i % 600;
		for (size_t k = 0; k < len; k++) {
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			m[k] = (uint8_t)st;
		}
		m[0] = 0x16;
		m[1] = 3;
		if (srt__sni_find(m, len, name, sizeof(name)) == SRT_SNI_FOUND)
			found++;
	}
	ok(found == 0, "random records after 16 03 never yield a name");
}

int main(void)
{
	TAP_RUN(case_hellos);
	TAP_RUN(case_garbage);
	return tap_done();
}
