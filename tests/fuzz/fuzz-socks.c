/* libFuzzer harness: the SOCKS5 messages (proxies/socks.h) as the proxy
 * reads them from a client: greeting, RFC 1929 authentication and the
 * request, one after another on the same bytes, plus each parser on the
 * whole input; and the in-band SSH refusal built from the input as its
 * description. Checks: consumed counts stay inside the input, a parser
 * asked again with the same prefix gives the same answer, parsed fields
 * are bounded and terminated, the SSH packet is well-formed (lengths add
 * up, padding 4..255 to a multiple of 8, no control bytes in the text)
 * and fits in 2 KiB. */
#include "config.h"

#include <stdbool.h>

#include "fuzz.h"
#include "proxies/auth.h"
#include "proxies/socks.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Every parser: > 0 consumed, 0 more needed, -1 invalid. A shorter prefix
 * of a complete message must never be "complete" with a different size. */
static int greeting(const uint8_t *b, size_t n)
{
	uint32_t offers = 0;
	int k = srt__socks_parse_greeting(b, n, &offers);

	FUZZ_CHECK(k >= -1 && k <= (int)n, "greeting returned %d for %zu", k, n);
	if (k > 0) {
		uint32_t o2 = 0;
		FUZZ_CHECK(k >= 3, "greeting of %d bytes", k);
		FUZZ_CHECK(srt__socks_parse_greeting(b, (size_t)k, &o2) == k && o2 == offers,
			   "greeting not stable on its own bytes");
		FUZZ_CHECK(srt__socks_parse_greeting(b, (size_t)k - 1, &o2) == 0,
			   "greeting complete one byte early");
	}
	return k;
}

static int auth(const uint8_t *b, size_t n)
{
	const char *user = NULL, *pass = NULL;
	size_t ul = 0, pl = 0;
	char *key = NULL;
	int k = srt__socks_parse_auth(b, n, &user, &ul, &pass, &pl);

	FUZZ_CHECK(k >= -1 && k <= (int)n, "auth returned %d for %zu", k, n);
	if (k <= 0)
		return k;
	FUZZ_CHECK((const uint8_t *)user >= b && (const uint8_t *)user + ul <= b + k &&
		   (const uint8_t *)pass >= b && (const uint8_t *)pass + pl <= b + k,
		   "user or password outside the message");
	FUZZ_CHECK((size_t)k == 3 + ul + pl, "auth consumed %d for %zu+%zu", k, ul, pl);
	if (srt__auth_socks_check(user, ul, pass, pl, TOKEN, &key)) {
		FUZZ_CHECK(pl == strlen(TOKEN) && memcmp(pass, TOKEN, pl) == 0,
			   "accepted a password that is not the token");
		FUZZ_CHECK((ul == 3 && memcmp(user, "srt", 3) == 0) ||
			   (ul > 4 && memcmp(user, "srt.", 4) == 0), "accepted user %.*s",
			   (int)ul, user);
	} else {
		FUZZ_CHECK(key == NULL, "refused but returned a key");
	}
	if (key)
		FUZZ_CHECK(ul > 4, "a key from the bare user name");
	free(key);
	return k;
}

static int request(const uint8_t *b, size_t n)
{
	struct srt__socks_request r;
	int bad = -1, k;

	memset(&r, 0x5a, sizeof(r));
	k = srt__socks_parse_request(b, n, &r, &bad);
	FUZZ_CHECK(k >= -1 && k <= (int)n, "request returned %d for %zu", k, n);
	FUZZ_CHECK(bad == 0 || bad == 1, "bad_atyp %d", bad);
	FUZZ_CHECK(!bad || k == -1, "bad address type but not invalid");
	if (k <= 0)
		return k;
	FUZZ_CHECK(fuzz_terminated(r.host, sizeof(r.host)) && r.host[0],
		   "request host empty or unterminated");
	FUZZ_CHECK(r.port >= 0 && r.port <= 65535, "port %d", r.port);
	FUZZ_CHECK(r.atyp == 1 || r.atyp == 3 || r.atyp == 4, "atyp %d", r.atyp);
	if (r.atyp == 3)
		FUZZ_CHECK(strlen(r.host) == b[4] && memcmp(r.host, b + 5, b[4]) == 0,
			   "domain name not copied as sent");
	{
		struct srt__socks_request r2;
		int bad2;
		FUZZ_CHECK(srt__socks_parse_request(b, (size_t)k - 1, &r2, &bad2) == 0,
			   "request complete one byte early");
	}
	return k;
}

static void ssh_refusal(const uint8_t *data, size_t size)
{
	char *desc = fuzz_strndup(data, size);
	uint8_t *out = malloc(2048), *exact;
	static const char ident[] = "SSH-2.0-policy_refusal\r\n";
	size_t il = sizeof(ident) - 1, n, plen, pad, dl;

	if (!out)
		abort();
	n = srt__ssh_refusal(desc, out, 2048);
	FUZZ_CHECK(n > 0 && n <= 2048, "refusal of %zu bytes", n);
	FUZZ_CHECK(memcmp(out, ident, il) == 0, "identification line missing");
	plen = get32(out + il);
	pad = out[il + 4];
	FUZZ_CHECK(il + 4 + plen == n, "packet length %zu, total %zu", plen, n);
	FUZZ_CHECK(pad >= 4 && (4 + plen) % 8 == 0, "padding %zu, length %zu", pad, plen);
	FUZZ_CHECK(out[il + 5] == 1 && get32(out + il + 6) == 1, "not a disconnect(1)");
	dl = get32(out + il + 10);
	FUZZ_CHECK(dl <= 1000 && 1 + 1 + 4 + 4 + dl + 4 + pad == plen,
		   "description of %zu bytes in a %zu-byte packet", dl, plen);
	for (size_t i = 0; i < dl; i++) {
		uint8_t c = out[il + 14 + i];
		FUZZ_CHECK(c >= 0x20 && c != 0x7f, "control byte 0x%02x in the text", c);
		if (c == 0xc2 && i + 1 < dl)
			FUZZ_CHECK(out[il + 15 + i] < 0x80 || out[il + 15 + i] > 0x9f,
				   "C1 control in the text");
	}
	exact = malloc(n);
	if (!exact)
		abort();
	FUZZ_CHECK(srt__ssh_refusal(desc, exact, n) == n, "does not fit its own size");
	FUZZ_CHECK(memcmp(exact, out, n) == 0, "different output with an exact buffer");
	FUZZ_CHECK(srt__ssh_refusal(desc, exact, n - 1) == 0, "fits one byte short");
	free(exact);
	free(out);
	free(desc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	int k;

	/* the proxy's sequence: greeting, optional auth, request */
	k = greeting(data, size);
	if (k > 0) {
		off = (size_t)k;
		k = auth(data + off, size - off);
		if (k > 0)
			off += (size_t)k;
		request(data + off, size - off);
	}
	greeting(data, size);
	auth(data, size);
	request(data, size);
	ssh_refusal(data, size);
	return 0;
}
