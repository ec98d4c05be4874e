/* libFuzzer harness: proxy authentication (proxies/auth.h): the
 * Proxy-Authorization "Basic" value, the attribution in a proxy username
 * and base64 itself. Checks: a value only passes with the token as the
 * password; base64 decoding never writes past `cap`, and what it decodes
 * encodes back to a text that decodes to the same bytes; encoding never
 * overflows. The attribution key is the command key byte for byte
 * (control characters included; only NUL cannot be carried), so a key
 * must round-trip through the user name srt would build for it. */
#include "config.h"

#include <stdbool.h>

#include "fuzz.h"
#include "proxies/auth.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

/* A key is the byte-exact command key (newlines included, no NUL): the
 * username built from it the way srt builds it gives the same key back. */
static void check_key(const char *key)
{
	char user[4 + 400];
	char *again;
	size_t n;

	if (!key)
		return;
	n = strlen(key);
	if (n > 186) /* "srt." + base64 must fit the 255-byte user name */
		return;
	memcpy(user, "srt.", 4);
	FUZZ_CHECK(srt__b64_encode((const uint8_t *)key, n, user + 4, sizeof(user) - 4) > 0,
		   "cannot encode a %zu-byte key", n);
	again = srt__auth_user_key(user, strlen(user));
	FUZZ_CHECK(again && strcmp(again, key) == 0,
		   "the key does not survive its own user name (%s)", user);
	free(again);
}

static void basic(const char *v, size_t n)
{
	char *key = (char *)1;
	uint8_t dec[2048];
	size_t dl;

	if (srt__auth_basic_check(v, n, TOKEN, &key)) {
		/* "Basic" SP b64, and the decoded form ends in ":<token>" */
		size_t i = 5, s;
		while (i < n && (v[i] == ' ' || v[i] == '\t'))
			i++;
		s = i;
		while (i < n && v[i] != ' ' && v[i] != '\t')
			i++;
		FUZZ_CHECK(srt__b64_decode(v + s, i - s, dec, sizeof(dec), &dl) == 0,
			   "accepted undecodable credentials");
		FUZZ_CHECK(dl > strlen(TOKEN) + 1 &&
			   memcmp(dec + dl - strlen(TOKEN), TOKEN, strlen(TOKEN)) == 0 &&
			   dec[dl - strlen(TOKEN) - 1] == ':',
			   "accepted credentials without the token");
		check_key(key);
	} else {
		FUZZ_CHECK(key == NULL, "refused but returned a key");
	}
	free(key);
}

static void b64_roundtrip(const char *in, size_t n)
{
	uint8_t *dec;
	char *enc;
	size_t cap = n, dl = 0, el, cap2;

	/* decode into an exact-size heap buffer: capacity is what the caller
	 * says, nothing more */
	dec = malloc(cap ? cap : 1);
	if (!dec)
		abort();
	if (srt__b64_decode(in, n, dec, cap, &dl) == 0) {
		uint8_t *again;
		size_t dl2 = 0;

		FUZZ_CHECK(dl <= cap && dl <= n * 3 / 4 + 1, "decoded %zu from %zu", dl, n);
		cap2 = (dl + 2) / 3 * 4 + 1;
		enc = malloc(cap2);
		if (!enc)
			abort();
		el = srt__b64_encode(dec, dl, enc, cap2);
		FUZZ_CHECK(el == cap2 - 1 && enc[el] == '\0', "encoded %zu into %zu", el, cap2);
		FUZZ_CHECK(srt__b64_encode(dec, dl, enc, cap2 - 1) == 0,
			   "encoding fits one byte short");
		again = malloc(dl ? dl : 1);
		if (!again)
			abort();
		el = srt__b64_encode(dec, dl, enc, cap2);
		FUZZ_CHECK(srt__b64_decode(enc, el, again, dl, &dl2) == 0 && dl2 == dl &&
			   memcmp(again, dec, dl) == 0, "base64 does not round-trip");
		free(again);
		free(enc);
		/* a smaller buffer fails instead of overflowing */
		if (dl > 0) {
			uint8_t *tight = malloc(dl - 1 ? dl - 1 : 1);
			size_t dl3;
			if (!tight)
				abort();
			FUZZ_CHECK(srt__b64_decode(in, n, tight, dl - 1, &dl3) < 0,
				   "decoded %zu bytes into %zu", dl, dl - 1);
			free(tight);
		}
	}
	free(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *v = (const char *)data;
	char *key;

	basic(v, size);
	key = srt__auth_user_key(v, size);
	check_key(key);
	/* a user that is neither "srt.<...>" nor percent-encoded gets no key */
	if (key && !memchr(v, '%', size))
		FUZZ_CHECK(size > 4 && memcmp(v, "srt.", 4) == 0, "key from a foreign user");
	free(key);
	/* the user part of "user:password" as the Basic check sees it */
	{
		const char *colon = memchr(v, ':', size);
		if (colon) {
			key = srt__auth_user_key(v, (size_t)(colon - v));
			check_key(key);
			free(key);
		}
	}
	b64_roundtrip(v, size);
	FUZZ_CHECK(!srt__token_equal(v, size, "") , "empty token matched");
	if (srt__token_equal(v, size, TOKEN))
		FUZZ_CHECK(size == strlen(TOKEN) && memcmp(v, TOKEN, size) == 0,
			   "token_equal accepted a different secret");
	return 0;
}
