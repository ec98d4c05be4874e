/* Proxy authentication: a per-run token checked in constant time, and the
 * command attribution decoded from the username. The attribution is chosen
 * by the client, so it only labels violations; it never grants anything
 * beyond what the token already grants. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proxies/auth.h"

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t srt__b64_encode(const uint8_t *in, size_t n, char *out, size_t cap)
{
	size_t need = (n + 2) / 3 * 4, o = 0, i;

	if (cap < need + 1)
		return 0;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = b64_alphabet[v >> 18 & 63];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = b64_alphabet[v >> 6 & 63];
		out[o++] = b64_alphabet[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		out[o++] = b64_alphabet[v >> 18 & 63];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int srt__b64_decode(const char *in, size_t n, uint8_t *out, size_t cap,
		    size_t *outlen)
{
	uint32_t acc = 0;
	size_t o = 0, i, bits = 0, pad = 0;

	/* padding only at the very end, at most two */
	while (n > 0 && in[n - 1] == '=' && pad < 2) {
		n--;
		pad++;
	}
	if (n % 4 == 1 || (pad && (n + pad) % 4 != 0))
		return -1;
	for (i = 0; i < n; i++) {
		int v = b64_value(in[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	*outlen = o;
	return 0;
}

bool srt__token_equal(const char *given, size_t len, const char *token)
{
	size_t tlen = strlen(token), i;
	unsigned char diff = 0;

	if (tlen == 0 || len != tlen)
		return false;
	for (i = 0; i < len; i++)
		diff |= (unsigned char)given[i] ^ (unsigned char)token[i];
	return diff == 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *srt__auth_user_key(const char *user, size_t len)
{
	uint8_t buf[256];
	char dec[256];
	size_t n, i, o = 0;
	char *key;

	/* a client may hand over the URL's userinfo still percent-encoded
	 * ("=" as %3D); base64 never contains '%', so decoding is safe */
	if (len <= sizeof(dec) && memchr(user, '%', len)) {
		for (i = 0; i < len; i++) {
			if (user[i] == '%' && i + 2 < len && hexval(user[i + 1]) >= 0 &&
			    hexval(user[i + 2]) >= 0) {
				dec[o++] = (char)(hexval(user[i + 1]) << 4 | hexval(user[i + 2]));
				i += 2;
			} else {
				dec[o++] = user[i];
			}
		}
		user = dec;
		len = o;
	}
	/* the suffix is at most 251 bytes, so the name fits the 255 bytes a
	 * SOCKS5 username may have */
	if (len <= 4 || len > 255 || memcmp(user, "srt.", 4) != 0)
		return NULL;
	if (srt__b64_decode(user + 4, len - 4, buf, sizeof(buf), &n) < 0 || n == 0)
		return NULL;
	/* byte-exact: multi-line commands have newlines in their key; only a
	 * NUL cannot be carried in a C string */
	if (memchr(buf, 0, n))
		return NULL;
	key = malloc(n + 1);
	if (!key)
		return NULL;
	memcpy(key, buf, n);
	key[n] = '\0';
	return key;
}

bool srt__auth_basic_check(const char *value, size_t len, const char *token,
			   char **key)
{
	uint8_t dec[1024];
	size_t i = 0, n, b64_start, b64_end;
	const char *colon;

	*key = NULL;
	/* "basic" case-insensitively, then whitespace, then the credentials */
	if (len < 6 || strncasecmp(value, "basic", 5) != 0 ||
	    (value[5] != ' ' && value[5] != '\t'))
		return false;
	i = 5;
	while (i < len && (value[i] == ' ' || value[i] == '\t'))
		i++;
	b64_start = i;
	while (i < len && value[i] != ' ' && value[i] != '\t')
		i++;
	b64_end = i;
	while (i < len && (value[i] == ' ' || value[i] == '\t'))
		i++;
	if (i != len || b64_end == b64_start)
		return false;
	if (srt__b64_decode(value + b64_start, b64_end - b64_start, dec,
			    sizeof(dec), &n) < 0)
		return false;
	colon = memchr(dec, ':', n);
	if (!colon || colon == (const char *)dec)
		return false;
	if (!srt__token_equal(colon + 1, n - (size_t)(colon + 1 - (const char *)dec),
			      token))
		return false;
	*key = srt__auth_user_key((const char *)dec, (size_t)(colon - (const char *)dec));
	return true;
}

bool srt__auth_socks_check(const char *user, size_t ulen, const char *pass,
			   size_t plen, const char *token, char **key)
{
	*key = NULL;
	if (!(ulen == 3 && memcmp(user, "srt", 3) == 0) &&
	    !(ulen > 4 && memcmp(user, "srt.", 4) == 0))
		return false;
	if (!srt__token_equal(pass, plen, token))
		return false;
	*key = srt__auth_user_key(user, ulen);
	return true;
}
