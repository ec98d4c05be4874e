/* libFuzzer harness: the ClientHello server-name peek (proxies/sni.h) that
 * checks the name inside TLS against the policy before any client byte
 * leaves a tunnel. Checks: a found name is terminated, non-empty,
 * lower-case printable ASCII without spaces, and fits `cap` exactly
 * (strlen + 1 bytes work, strlen bytes are refused without a write past
 * them); and the answer is stable as bytes arrive: the proxy decides on
 * the first answer that is not "more", so no prefix of an input may
 * answer differently from the whole. */
#include "config.h"

#include <stdbool.h>

#include "fuzz.h"
#include "proxies/sni.h"

#define NAME_CAP 256

static int sni(const uint8_t *b, size_t n, char *name, size_t cap)
{
	int r = srt__sni_find(b, n, name, cap);

	FUZZ_CHECK(r == SRT_SNI_FOUND || r == SRT_SNI_NONE || r == SRT_SNI_MORE ||
		   r == SRT_SNI_NOT_TLS || r == SRT_SNI_MALFORMED, "answer %d", r);
	return r;
}

static void check_name(const uint8_t *data, size_t size, const char *name)
{
	size_t n;
	char *exact;

	FUZZ_CHECK(fuzz_terminated(name, NAME_CAP), "name not terminated");
	n = strlen(name);
	FUZZ_CHECK(n > 0, "empty name found");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		FUZZ_CHECK(c > 0x20 && c < 0x7f && !(c >= 'A' && c <= 'Z'),
			   "byte 0x%02x in the name", c);
	}
	exact = malloc(n + 1);
	if (!exact)
		abort();
	FUZZ_CHECK(srt__sni_find(data, size, exact, n + 1) == SRT_SNI_FOUND &&
		   strcmp(exact, name) == 0, "name differs with a %zu-byte buffer", n + 1);
	free(exact);
	exact = malloc(n);
	if (!exact)
		abort();
	FUZZ_CHECK(srt__sni_find(data, size, exact, n) != SRT_SNI_FOUND,
		   "a %zu-byte name fit in %zu bytes", n, n);
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[NAME_CAP], pname[NAME_CAP];
	int r, pr;
	size_t step;

	memset(name, 0x5a, sizeof(name));
	r = sni(data, size, name, sizeof(name));
	if (r == SRT_SNI_FOUND)
		check_name(data, size, name);
	/* every prefix for short inputs, about 64 of them for long ones */
	step = size / 64 + 1;
	for (size_t k = 0; k < size; k += step) {
		pr = sni(data, k, pname, sizeof(pname));
		if (pr == SRT_SNI_MORE)
			continue;
		FUZZ_CHECK(pr == r, "%zu of %zu bytes answer %d, all of them %d", k, size, pr, r);
		if (r == SRT_SNI_FOUND)
			FUZZ_CHECK(strcmp(pname, name) == 0, "%zu bytes name %s, all of them %s", k,
				   pname, name);
	}
	return 0;
}
