/* AWS SigV4 re-signing (plugins/filters/credentials/sigv4.c) and its
 * SHA-256/HMAC (sha256.c).
 *
 * The published examples are run backwards: each request arrives signed
 * with a masked key (a key id and signature the test makes up), and the
 * re-signed Authorization must be, byte for byte, the one AWS published
 * for the real example key. So a vector passes only when the canonical
 * request, the key derivation and the header all match AWS's.
 *
 * With --resign the program is a filter for tests/helpers/sigv4-botocore.py
 * (a request on stdin, the re-signed headers on stdout), which checks the
 * result with botocore's own signer. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tap.h"
/* the statics (the canonical request capture, the spare S3 slot) */
#include "plugins/filters/credentials/sigv4.c"

/* ---- a header list as the proxy would lend it ---- */

#define FH_MAX 700

struct fh {
	char *name[FH_MAX], *value[FH_MAX];
	size_t n;
	int fail_set; /* set() answers SRT_E_LIMIT */
};

static size_t fh_count(const struct srt_filter_headers *h)
{
	return ((struct fh *)h->impl)->n;
}

static int fh_at(const struct srt_filter_headers *h, size_t i, const char **name,
		 const char **value)
{
	struct fh *f = h->impl;

	if (i >= f->n)
		return SRT_E_INVAL;
	*name = f->name[i];
	*value = f->value[i];
	return SRT_OK;
}

static const char *fh_get(const struct srt_filter_headers *h, const char *name)
{
	struct fh *f = h->impl;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcasecmp(f->name[i], name))
			return f->value[i];
	return NULL;
}

static int fh_remove(struct srt_filter_headers *h, const char *name)
{
	struct fh *f = h->impl;
	size_t i, o = 0;

	for (i = 0; i < f->n; i++) {
		if (!strcasecmp(f->name[i], name)) {
			free(f->name[i]);
			free(f->value[i]);
			continue;
		}
		f->name[o] = f->name[i];
		f->value[o++] = f->value[i];
	}
	f->n = o;
	return SRT_OK;
}

static void fh_add(struct srt_filter_headers *h, const char *name, const char *value)
{
	struct fh *f = h->impl;

	if (f->n == FH_MAX)
		abort();
	f->name[f->n] = strdup(name);
	f->value[f->n++] = strdup(value);
}

/* As the proxy does: every line named `name` replaced by one, in place of
 * the first (or at the end). */
static int fh_set(struct srt_filter_headers *h, const char *name, const char *value)
{
	struct fh *f = h->impl;
	size_t i, j, o;

	if (f->fail_set)
		return SRT_E_LIMIT;
	if (strpbrk(value, "\r\n"))
		return SRT_E_INVAL;
	for (i = 0; i < f->n && strcasecmp(f->name[i], name); i++)
		;
	if (i == f->n) {
		fh_add(h, name, value);
		return SRT_OK;
	}
	free(f->value[i]);
	f->value[i] = strdup(value);
	for (j = o = i + 1; j < f->n; j++) {
		if (!strcasecmp(f->name[j], name)) {
			free(f->name[j]);
			free(f->value[j]);
			continue;
		}
		f->name[o] = f->name[j];
		f->value[o++] = f->value[j];
	}
	f->n = o;
	return SRT_OK;
}

/* Every list made, freed at exit (each case's process exits through
 * tap.h), so a leak checker sees only what the code under test leaks. */
static struct srt_filter_headers *fh_all[256];
static size_t fh_made;

static void fh_free_all(void)
{
	while (fh_made) {
		struct srt_filter_headers *h = fh_all[--fh_made];
		struct fh *f = h->impl;

		while (f->n--) {
			free(f->name[f->n]);
			free(f->value[f->n]);
		}
		free(f);
		free(h);
	}
}

static struct srt_filter_headers *fh_new(void)
{
	struct srt_filter_headers *h = calloc(1, sizeof(*h));

	if (fh_made == sizeof(fh_all) / sizeof(fh_all[0]))
		abort();
	if (!fh_made)
		atexit(fh_free_all);
	fh_all[fh_made++] = h;

	h->size = sizeof(*h);
	h->count = fh_count;
	h->at = fh_at;
	h->get = fh_get;
	h->remove = fh_remove;
	h->set = fh_set;
	h->impl = calloc(1, sizeof(struct fh));
	return h;
}

/* "Name:value\n..." as the test suite writes its heads */
static struct srt_filter_headers *fh_parse(const char *text)
{
	struct srt_filter_headers *h = fh_new();
	char *copy = strdup(text), *line, *save = NULL;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		*colon = '\0';
		fh_add(h, line, colon + 1);
	}
	free(copy);
	return h;
}

/* ---- SHA-256 and HMAC ---- */

static int hex_is(const unsigned char *d, const char *want)
{
	char hex[65];

	srt__sha256_hex(d, 32, hex);
	if (strcmp(hex, want))
		printf("# got %s\n# want %s\n", hex, want);
	return !strcmp(hex, want);
}

static void sha256_vectors(void)
{
	static const struct {
		const char *msg, *digest;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmn"
		  "opqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	unsigned char d[32];
	struct srt__sha256 c;
	char *a = malloc(1000000);
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		srt__sha256(v[i].msg, strlen(v[i].msg), d);
		ok(hex_is(d, v[i].digest), "SHA-256 of the FIPS 180 message of %zu bytes",
		   strlen(v[i].msg));
	}
	/* a million 'a' fed in uneven pieces crosses every block boundary */
	memset(a, 'a', 1000000);
	srt__sha256_init(&c);
	for (i = 0; i < 1000000;) {
		size_t n = 1 + (i * 7919) % 131;

		if (n > 1000000 - i)
			n = 1000000 - i;
		srt__sha256_update(&c, a + i, n);
		i += n;
	}
	srt__sha256_final(&c, d);
	ok(hex_is(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	   "SHA-256 of a million 'a' in pieces of 1..131 bytes");
	/* 55, 56 and 64 bytes: the padding's edge cases, against one-shot vs
	 * byte-at-a-time */
	for (i = 55; i <= 65; i++) {
		unsigned char one[32];
		size_t j;

		srt__sha256(a, i, one);
		srt__sha256_init(&c);
		for (j = 0; j < i; j++)
			srt__sha256_update(&c, a + j, 1);
		srt__sha256_final(&c, d);
		if (memcmp(one, d, 32))
			break;
	}
	ok(i == 66, "one-shot and byte-at-a-time agree for 55..65 bytes");
	free(a);
}

static void hmac_rfc4231(void)
{
	unsigned char k20[20], k25[25], k131[131], d50[50], c50[50], mac[32];
	unsigned i;

	memset(k20, 0x0b, sizeof(k20));
	srt__hmac_sha256(k20, 20, "Hi There", 8, mac);
	ok(hex_is(mac, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	   "RFC 4231 case 1");
	srt__hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, mac);
	ok(hex_is(mac, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
	   "RFC 4231 case 2");
	memset(k20, 0xaa, sizeof(k20));
	memset(d50, 0xdd, sizeof(d50));
	srt__hmac_sha256(k20, 20, d50, 50, mac);
	ok(hex_is(mac, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
	   "RFC 4231 case 3");
	for (i = 0; i < 25; i++)
		k25[i] = (unsigned char)(i + 1);
	memset(c50, 0xcd, sizeof(c50));
	srt__hmac_sha256(k25, 25, c50, 50, mac);
	ok(hex_is(mac, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
	   "RFC 4231 case 4");
	memset(k131, 0xaa, sizeof(k131));
	srt__hmac_sha256(k131, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
			 mac);
	ok(hex_is(mac, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
	   "RFC 4231 case 6 (a key longer than a block)");
	{
		const char *m = "This is a test using a larger than block-size key and a larger "
				"than block-size data. The key needs to be hashed before being "
				"used by the HMAC algorithm.";
		struct srt__hmac_sha256 c;

		srt__hmac_sha256_init(&c, k131, 131);
		srt__hmac_sha256_update(&c, m, 100);
		srt__hmac_sha256_update(&c, m + 100, strlen(m) - 100);
		srt__hmac_sha256_final(&c, mac);
	}
	ok(hex_is(mac, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
	   "RFC 4231 case 7 (long key and data, fed in two pieces)");
}

/* ---- AWS's published examples, re-signed from a masked key ---- */

#define FAKE_ID "FAKEKEYIDFAKEKEYIDXX"
#define FAKE_SECRET "fake_value_0000000000000000000000000000"
#define SUITE_ID "AKIDEXAMPLE"
#define SUITE_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define SUITE_TOKEN "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
#define S3_ID "AKIAIOSFODNN7EXAMPLE"
#define S3_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define FAKE_SIG "0000000000000000000000000000000000000000000000000000000000000000"

struct vector {
	const char *name, *method, *target;
	const char *head;    /* without Authorization */
	const char *scope;   /* date/region/service/aws4_request */
	const char *signed_headers;
	const char *sig;     /* AWS's published signature */
	int unnormalized;    /* run under the S3 path rule */
	int s3;              /* the S3 documentation's key */
};

#define SUITE_HEAD "Host:example.amazonaws.com\nX-Amz-Date:20150830T123600Z\n"
#define SUITE_SCOPE "20150830/us-east-1/service/aws4_request"
#define S3_HEAD "Host:examplebucket.s3.amazonaws.com\nx-amz-date:20130524T000000Z\n"
#define S3_SCOPE "20130524/us-east-1/s3/aws4_request"
#define EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static const struct vector vectors[] = {
	/* the IAM ListUsers example of the SigV4 documentation */
	{ "docs: IAM ListUsers GET", "GET", "/?Action=ListUsers&Version=2010-05-08",
	  "Host:iam.amazonaws.com\nContent-Type:application/x-www-form-urlencoded; "
	  "charset=utf-8\nX-Amz-Date:20150830T123600Z\n",
	  "20150830/us-east-1/iam/aws4_request", "content-type;host;x-amz-date",
	  "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7", 0, 0 },
	/* the S3 documentation's examples */
	{ "docs: S3 GET object with Range", "GET", "/test.txt",
	  S3_HEAD "Range:bytes=0-9\nx-amz-content-sha256:" EMPTY "\n", S3_SCOPE,
	  "host;range;x-amz-content-sha256;x-amz-date",
	  "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", 0, 1 },
	{ "docs: S3 PUT object, key with '$', Date signed", "PUT", "/test$file.text",
	  S3_HEAD "Date:Fri, 24 May 2013 00:00:00 GMT\nx-amz-storage-class:REDUCED_REDUNDANCY\n"
		  "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
		  "Content-Length:21\n",
	  S3_SCOPE, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
	  "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd", 0, 1 },
	{ "docs: S3 GET bucket lifecycle (?lifecycle)", "GET", "/?lifecycle",
	  S3_HEAD "x-amz-content-sha256:" EMPTY "\n", S3_SCOPE,
	  "host;x-amz-content-sha256;x-amz-date",
	  "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543", 0, 1 },
	{ "docs: S3 list objects (query sorted)", "GET", "/?max-keys=2&prefix=J",
	  S3_HEAD "x-amz-content-sha256:" EMPTY "\n", S3_SCOPE,
	  "host;x-amz-content-sha256;x-amz-date",
	  "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7", 0, 1 },
	/* the SigV4 test suite */
	{ "suite: get-vanilla", "GET", "/", SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31", 0, 0 },
	{ "suite: get-vanilla-query-order-key-case", "GET", "/?Param2=value2&Param1=value1",
	  SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500", 0, 0 },
	{ "suite: get-vanilla-query-unreserved", "GET",
	  "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz="
	  "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
	  SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197", 0, 0 },
	{ "suite: get-vanilla-utf8-query", "GET", "/?\xe1\x88\xb4=bar", SUITE_HEAD, SUITE_SCOPE,
	  "host;x-amz-date", "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04",
	  0, 0 },
	{ "suite: get-vanilla-empty-query-key", "GET", "/?Param1=value1", SUITE_HEAD,
	  SUITE_SCOPE, "host;x-amz-date",
	  "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb", 0, 0 },
	{ "suite: get-utf8", "GET", "/\xe1\x88\xb4", SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85", 0, 0 },
	{ "suite: get-unreserved", "GET",
	  "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", SUITE_HEAD,
	  SUITE_SCOPE, "host;x-amz-date",
	  "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f", 0, 0 },
	{ "suite: get-space-normalized", "GET", "/example space/", SUITE_HEAD, SUITE_SCOPE,
	  "host;x-amz-date", "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741",
	  0, 0 },
	{ "suite: get-slashes-normalized", "GET", "//example//", SUITE_HEAD, SUITE_SCOPE,
	  "host;x-amz-date", "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84",
	  0, 0 },
	{ "suite: get-slashes-unnormalized (S3 path rule)", "GET", "//example//", SUITE_HEAD,
	  SUITE_SCOPE, "host;x-amz-date",
	  "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5", 1, 0 },
	{ "suite: get-relative-relative-normalized", "GET", "/example1/example2/../..",
	  SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31", 0, 0 },
	{ "suite: get-slash-pointless-dot-normalized", "GET", "/./example", SUITE_HEAD,
	  SUITE_SCOPE, "host;x-amz-date",
	  "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5", 0, 0 },
	{ "suite: get-slash-dot-slash-unnormalized (S3 path rule)", "GET", "/./", SUITE_HEAD,
	  SUITE_SCOPE, "host;x-amz-date",
	  "68714168e6557f8f2de0ef956fc24dc2593a4bd2961f8df51898d8a134695145", 1, 0 },
	{ "suite: get-header-key-duplicate", "GET", "/",
	  "Host:example.amazonaws.com\nMy-Header1:value2\nMy-Header1:value2\nMy-Header1:value1\n"
	  "X-Amz-Date:20150830T123600Z\n",
	  SUITE_SCOPE, "host;my-header1;x-amz-date",
	  "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea", 0, 0 },
	{ "suite: get-header-value-order", "GET", "/",
	  "Host:example.amazonaws.com\nMy-Header1:value4\nMy-Header1:value1\nMy-Header1:value3\n"
	  "My-Header1:value2\nX-Amz-Date:20150830T123600Z\n",
	  SUITE_SCOPE, "host;my-header1;x-amz-date",
	  "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01", 0, 0 },
	{ "suite: get-header-value-trim", "GET", "/",
	  "Host:example.amazonaws.com\nMy-Header1: value1\nMy-Header2: \"a   b   c\"\n"
	  "X-Amz-Date:20150830T123600Z\n",
	  SUITE_SCOPE, "host;my-header1;my-header2;x-amz-date",
	  "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736", 0, 0 },
	{ "suite: post-vanilla", "POST", "/", SUITE_HEAD, SUITE_SCOPE, "host;x-amz-date",
	  "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b", 0, 0 },
	{ "suite: post-vanilla-query", "POST", "/?Param1=value1", SUITE_HEAD, SUITE_SCOPE,
	  "host;x-amz-date", "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11",
	  0, 0 },
	{ "suite: post-header-key-sort", "POST", "/",
	  "Host:example.amazonaws.com\nMy-Header1:value1\nX-Amz-Date:20150830T123600Z\n",
	  SUITE_SCOPE, "host;my-header1;x-amz-date",
	  "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c", 0, 0 },
	{ "suite: post-x-www-form-urlencoded (payload hash from the header)", "POST", "/",
	  "Content-Type:application/x-www-form-urlencoded\nHost:example.amazonaws.com\n"
	  "Content-Length:13\nx-amz-content-sha256:"
	  "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\n"
	  "X-Amz-Date:20150830T123600Z\n",
	  SUITE_SCOPE, "content-length;content-type;host;x-amz-content-sha256;x-amz-date",
	  "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b", 0, 0 },
};

static const struct sigv4_key fake_key = { FAKE_ID, FAKE_SECRET, NULL };
static const struct sigv4_key suite_key = { SUITE_ID, SUITE_SECRET, NULL };
static const struct sigv4_key s3_key = { S3_ID, S3_SECRET, NULL };

static void add_auth(struct srt_filter_headers *h, const char *algo, const char *id,
		     const char *scope, const char *signed_headers)
{
	char a[1024];

	snprintf(a, sizeof(a), "%s Credential=%s/%s, SignedHeaders=%s, Signature=" FAKE_SIG,
		 algo, id, scope, signed_headers);
	fh_add(h, "Authorization", a);
}

static char cap[65536];

static enum sigv4_outcome traced(const char *method, const char *target,
				 struct srt_filter_headers *h, const struct sigv4_key *fake,
				 const struct sigv4_key *real, const struct sigv4_modes *modes,
				 const char *body_hex, char *why, size_t why_len)
{
	return run(method, target, h, fake, real, modes, body_hex, why, why_len, cap, sizeof(cap));
}

static void published_vectors(void)
{
	size_t i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];
		struct srt_filter_headers *h = fh_parse(v->head);
		char want[512], why[256];
		const char *got;
		enum sigv4_outcome r;

		add_auth(h, ALGO, FAKE_ID, v->scope, v->signed_headers);
		s3_services[3] = v->unnormalized ? "service" : NULL;
		r = traced(v->method, v->target, h, &fake_key, v->s3 ? &s3_key : &suite_key, NULL,
			   NULL, why, sizeof(why));
		snprintf(want, sizeof(want),
			 ALGO " Credential=%s/%s, SignedHeaders=%s, Signature=%s",
			 v->s3 ? S3_ID : SUITE_ID, v->scope, v->signed_headers, v->sig);
		got = h->get(h, "authorization");
		if (r != SIGV4_RESIGNED || strcmp(got, want))
			printf("# %s\n# why: %s\n# got  %s\n# want %s\n# canonical:\n%s\n", v->name,
			       why, got, want, cap);
		ok(r == SIGV4_RESIGNED && !strcmp(got, want), "%s", v->name);
	}
	s3_services[3] = NULL;
}

/* The IAM example's canonical request and string to sign, as the
 * documentation prints them. */
static void documented_canonical(void)
{
	struct srt_filter_headers *h = fh_parse(vectors[0].head);
	char why[256];

	add_auth(h, ALGO, FAKE_ID, vectors[0].scope, vectors[0].signed_headers);
	traced("GET", vectors[0].target, h, &fake_key, &suite_key, NULL, NULL, why, sizeof(why));
	ok(!strcmp(cap, "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
			"content-type:application/x-www-form-urlencoded; charset=utf-8\n"
			"host:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
			"content-type;host;x-amz-date\n" EMPTY "\n----\n" ALGO "\n20150830T123600Z\n"
			"20150830/us-east-1/iam/aws4_request\n"
			"f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59"),
	   "the IAM example's canonical request and string to sign are the documented ones");
}

/* get-vanilla-with-session-token: the sandbox signed with the masked
 * token, the request leaves with the real one, signed. */
static void session_token(void)
{
	static const struct sigv4_key fake = { FAKE_ID, FAKE_SECRET,
					       "fake_value_tttttttttttttttttttttttttttttttttttttttttttttttttttttt" };
	static const struct sigv4_key real = { SUITE_ID, SUITE_SECRET, SUITE_TOKEN };
	struct srt_filter_headers *h = fh_parse(SUITE_HEAD);
	enum sigv4_outcome r;
	char why[256];

	fh_add(h, "X-Amz-Security-Token", fake.session_token);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date;x-amz-security-token");
	r = sigv4_resign("GET", "/", h, &fake, &real, NULL, why, sizeof(why));
	ok(r == SIGV4_RESIGNED &&
	   !strcmp(h->get(h, "authorization"),
		   ALGO " Credential=" SUITE_ID "/" SUITE_SCOPE ", SignedHeaders=host;x-amz-date;"
			"x-amz-security-token, Signature="
			"07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8") &&
	   !strcmp(h->get(h, "x-amz-security-token"), SUITE_TOKEN),
	   "suite: get-vanilla-with-session-token (the masked token replaced and signed) [%s]",
	   why);

	/* the token already substituted by the filter: same result */
	h = fh_parse(SUITE_HEAD);
	fh_add(h, "X-Amz-Security-Token", SUITE_TOKEN);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date;x-amz-security-token");
	r = sigv4_resign("GET", "/", h, &fake, &real, NULL, why, sizeof(why));
	ok(r == SIGV4_RESIGNED && strstr(h->get(h, "authorization"), "07ec1639c89043aa0e3e2de8"),
	   "the real token already in place signs the same");

	/* a token that is neither: refused, nothing changed */
	h = fh_parse(SUITE_HEAD);
	fh_add(h, "X-Amz-Security-Token", "someone-elses-token");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date;x-amz-security-token");
	r = sigv4_resign("GET", "/", h, &fake, &real, NULL, why, sizeof(why));
	ok(r == SIGV4_REFUSE && strstr(why, "neither the masked nor the real session token") &&
	   !strcmp(h->get(h, "x-amz-security-token"), "someone-elses-token") &&
	   strstr(h->get(h, "authorization"), FAKE_ID), "a foreign session token is refused: %s",
	   why);

	/* no token sent but the real key has one: added (unsigned) */
	h = fh_parse(SUITE_HEAD);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	r = sigv4_resign("GET", "/", h, &fake, &real, NULL, why, sizeof(why));
	ok(r == SIGV4_RESIGNED && !strcmp(h->get(h, "x-amz-security-token"), SUITE_TOKEN) &&
	   strstr(h->get(h, "authorization"), vectors[5].sig),
	   "no token sent: the real one is added and the signature is get-vanilla's");

	/* the masked token sent, but the real key has none */
	h = fh_parse(SUITE_HEAD);
	fh_add(h, "X-Amz-Security-Token", fake.session_token);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date;x-amz-security-token");
	r = sigv4_resign("GET", "/", h, &fake, &suite_key, NULL, why, sizeof(why));
	ok(r == SIGV4_REFUSE && strstr(why, "real key has none"),
	   "the masked token without a real one is refused: %s", why);
}

/* S3 signs the path as sent (escapes kept, never normalised); every other
 * service resolves dot segments and escapes the path a second time. */
static void uri_rules(void)
{
	static const struct {
		const char *service, *target, *want;
	} u[] = {
		{ "s3", "/b/my%20file%2Bv1", "\n/b/my%20file%2Bv1\n" },
		{ "s3", "/b//x/../y/./z", "\n/b//x/../y/./z\n" },
		{ "s3", "/b/%7e%41%2f%3d=", "\n/b/~A%2F%3D%3D\n" },
		{ "s3-object-lambda", "/a%20b", "\n/a%20b\n" },
		{ "sts", "/my%20file%2Bv1", "\n/my%2520file%252Bv1\n" },
		{ "sts", "/b//x/../y/./z/", "\n/b/y/z/\n" },
		{ "sts", "/..", "\n/\n" },
		{ "sts", "/a/b/..", "\n/a\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		struct srt_filter_headers *h = fh_parse(SUITE_HEAD);
		char scope[128], why[256];
		enum sigv4_outcome r;

		snprintf(scope, sizeof(scope), "20150830/us-east-1/%s/aws4_request", u[i].service);
		add_auth(h, ALGO, FAKE_ID, scope, "host;x-amz-date");
		r = traced("GET", u[i].target, h, &fake_key, &suite_key, NULL, NULL, why,
			   sizeof(why));
		ok(r == SIGV4_RESIGNED && !strncmp(cap, "GET", 3) && strstr(cap, u[i].want) == cap + 3,
		   "%s: %s signs as %.*s", u[i].service, u[i].target, (int)strlen(u[i].want) - 2,
		   u[i].want + 1);
	}
}

/* ---- which requests are ours ---- */

static void not_ours(void)
{
	struct srt_filter_headers *h = fh_parse(SUITE_HEAD);
	char why[256] = "x", before[512];

	add_auth(h, ALGO, "AKIDSOMEONEELSE", SUITE_SCOPE, "host;x-amz-date");
	snprintf(before, sizeof(before), "%s", h->get(h, "authorization"));
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_NOT_OURS && !strcmp(before, h->get(h, "authorization")) && !why[0],
	   "another key id: not ours, untouched, no reason");

	/* a key id that merely starts with ours */
	h = fh_parse(SUITE_HEAD);
	add_auth(h, ALGO, FAKE_ID "Z", SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_NOT_OURS, "a key id that only starts with the masked one is not ours");

	h = fh_parse(SUITE_HEAD);
	fh_add(h, "Authorization", "Bearer " FAKE_ID);
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_NOT_OURS, "another scheme: not ours");

	h = fh_parse(SUITE_HEAD);
	ok(sigv4_resign("GET", "/?a=b", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_NOT_OURS && h->count(h) == 2, "no Authorization: not ours");

	/* the real key id (the filter's substitution ran first) is ours */
	h = fh_parse(SUITE_HEAD);
	add_auth(h, ALGO, SUITE_ID, SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_RESIGNED && strstr(h->get(h, "authorization"), vectors[5].sig),
	   "the real key id already substituted: re-signed all the same");
}

static void kinds(void)
{
	static const struct sigv4_modes pass = { 1, 1, 1 };
	struct srt_filter_headers *h;
	char why[512];
	const char *presigned =
		"/bucket/key?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" FAKE_ID
		"%2F20150830%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20150830T123600Z"
		"&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=" FAKE_SIG;

	h = fh_parse(SUITE_HEAD "x-amz-content-sha256:STREAMING-AWS4-HMAC-SHA256-PAYLOAD\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-content-sha256;x-amz-date");
	ok(sigv4_resign("PUT", "/b/k", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "AWS SigV4 streaming request uses a masked credential") &&
		   strstr(why, "credentials.sigv4.streaming to \"passthrough\""),
	   "streaming: refused by default: %s", why);
	ok(sigv4_resign("PUT", "/b/k", h, &fake_key, &suite_key, &pass, why, sizeof(why)) ==
		   SIGV4_NOT_OURS && strstr(why, "passed through") &&
		   strstr(h->get(h, "authorization"), FAKE_ID),
	   "streaming: passed through unchanged with the mode: %s", why);

	h = fh_parse("Host:b.s3.amazonaws.com\n");
	ok(sigv4_resign("GET", presigned, h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "credentials.sigv4.presigned"),
	   "presigned URL naming the masked key: refused: %s", why);
	ok(sigv4_resign("GET", presigned, h, &fake_key, &suite_key, &pass, why, sizeof(why)) ==
		   SIGV4_NOT_OURS && strstr(why, "presigned"),
	   "presigned: passed through with the mode");
	ok(sigv4_resign("GET",
			"/k?X-Amz-Credential=AKIDOTHER%2F20150830%2Fus-east-1%2Fs3%2Faws4_request",
			h, &fake_key, &suite_key, NULL, why, sizeof(why)) == SIGV4_NOT_OURS &&
		   !why[0], "a presigned URL of another key is not ours");

	h = fh_parse(SUITE_HEAD);
	fh_add(h, "Authorization", ALGO_A " Credential=" FAKE_ID "/20150830/s3/aws4_request, "
				 "SignedHeaders=host;x-amz-date;x-amz-region-set, Signature=3045");
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "AWS SigV4 sigv4a request") &&
		   strstr(why, "credentials.sigv4.sigv4a"), "SigV4a: refused: %s", why);
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, &pass, why, sizeof(why)) ==
		   SIGV4_NOT_OURS, "SigV4a: passed through with the mode");

	/* the unsigned streaming form signs only its head: re-signed */
	h = fh_parse(SUITE_HEAD "x-amz-content-sha256:STREAMING-UNSIGNED-PAYLOAD-TRAILER\n"
				"Content-Encoding:aws-chunked\nTransfer-Encoding:chunked\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-content-sha256;x-amz-date");
	ok(traced("PUT", "/b/k", h, &fake_key, &suite_key, NULL, NULL, why, sizeof(why)) ==
		   SIGV4_RESIGNED && strstr(cap, "x-amz-date\nSTREAMING-UNSIGNED-PAYLOAD-TRAILER\n"),
	   "STREAMING-UNSIGNED-PAYLOAD-TRAILER: re-signed over the literal: %s", why);

	h = fh_parse(SUITE_HEAD "x-amz-content-sha256:UNSIGNED-PAYLOAD\nContent-Length:5\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-content-sha256;x-amz-date");
	ok(traced("PUT", "/b/k", h, &fake_key, &suite_key, NULL, NULL, why, sizeof(why)) ==
		   SIGV4_RESIGNED && strstr(cap, "x-amz-date\nUNSIGNED-PAYLOAD\n"),
	   "UNSIGNED-PAYLOAD with a body: re-signed from the head");
}

static void payload_hash(void)
{
	struct srt_filter_headers *h;
	char why[256], hex[65];
	unsigned char d[32];

	h = fh_parse(SUITE_HEAD "Content-Length:13\nContent-Type:application/x-amz-json-1.0\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "content-type;host;x-amz-date");
	ok(sigv4_wants_body("/", h, &fake_key, &suite_key) == 1,
	   "a body without x-amz-content-sha256: the body's hash is wanted");
	ok(sigv4_resign("POST", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "request body") &&
		   strstr(h->get(h, "authorization"), FAKE_ID),
	   "without it: refused, naming the body: %s", why);
	srt__sha256("Param1=value1", 13, d);
	srt__sha256_hex(d, 32, hex);
	ok(traced("POST", "/", h, &fake_key, &suite_key, NULL, hex, why, sizeof(why)) ==
		   SIGV4_RESIGNED && strstr(cap, "x-amz-date\n" "9095672bbd1f56dfc5b65f3e153adc87"),
	   "with the body's hash given: re-signed over it");

	h = fh_parse(SUITE_HEAD "Transfer-Encoding:chunked\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_resign("POST", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE, "a chunked body without a hash is refused");

	h = fh_parse(SUITE_HEAD "Content-Length:0\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_wants_body("/", h, &fake_key, &suite_key) == 0 &&
		   sigv4_resign("POST", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
			   SIGV4_RESIGNED && strstr(h->get(h, "authorization"), vectors[21].sig),
	   "Content-Length 0: the empty hash (post-vanilla's signature)");

	/* a literal hash and a body changed by the filter: the header follows */
	h = fh_parse(SUITE_HEAD "x-amz-content-sha256:" EMPTY "\nContent-Length:13\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-content-sha256;x-amz-date");
	ok(sigv4_wants_body("/", h, &fake_key, &suite_key) == 0,
	   "a literal x-amz-content-sha256: the body is not needed");
	ok(traced("PUT", "/", h, &fake_key, &suite_key, NULL, hex, why, sizeof(why)) ==
		   SIGV4_RESIGNED && !strcmp(h->get(h, "x-amz-content-sha256"), hex) &&
		   strstr(cap, "x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc87"),
	   "a body hash given over a literal one: the header is rewritten and signed");
	ok(sigv4_resign_body("PUT", "/", h, &fake_key, &suite_key, NULL, "xyz", why,
			     sizeof(why)) == SIGV4_REFUSE, "a malformed body hash is refused");

	h = fh_parse(SUITE_HEAD "x-amz-content-sha256:whatever\n");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-content-sha256;x-amz-date");
	ok(sigv4_resign("PUT", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE, "an x-amz-content-sha256 that is no hash is refused");
}

/* ---- malformed and oversized requests ---- */

static enum sigv4_outcome try_auth(const char *auth, const char *extra, char *why, size_t n)
{
	char head[2048];
	struct srt_filter_headers *h;

	snprintf(head, sizeof(head), SUITE_HEAD "%s", extra ? extra : "");
	h = fh_parse(head);
	fh_add(h, "Authorization", auth);
	return sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, n);
}

#define CRED "AWS4-HMAC-SHA256 Credential=" FAKE_ID "/"

static void malformed(void)
{
	static const struct {
		const char *auth, *extra, *why;
	} m[] = {
		{ CRED SUITE_SCOPE ", SignedHeaders=x-amz-date;host, Signature=00", NULL,
		  "not sorted" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;my-header;x-amz-date, Signature=00", NULL,
		  "missing" },
		{ CRED SUITE_SCOPE ", SignedHeaders=Host;x-amz-date, Signature=00", NULL,
		  "lower-case" },
		{ CRED SUITE_SCOPE ", SignedHeaders=authorization;host, Signature=00", NULL,
		  "names Authorization" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;;x-amz-date, Signature=00", NULL,
		  "empty name" },
		{ CRED SUITE_SCOPE ", Signature=00", NULL, "no SignedHeaders" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;x-amz-date", NULL, "no Signature" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;x-amz-date, Signature=00, Extra=1", NULL,
		  "unknown" },
		{ CRED "20150830/us-east-1/service/aws5_request, SignedHeaders=host, Signature=00",
		  NULL, "scope" },
		{ CRED "2015083/us-east-1/service/aws4_request, SignedHeaders=host, Signature=00",
		  NULL, "YYYYMMDD" },
		{ CRED "20150830//service/aws4_request, SignedHeaders=host, Signature=00", NULL,
		  "empty region" },
		{ CRED "20150830/us-east-1/se\"rvice/aws4_request, SignedHeaders=host, Signature=00",
		  NULL, "bad character" },
		{ CRED "20150830/us-east-1/service/aws4_request/x, SignedHeaders=host, Signature=00",
		  NULL, "scope" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;x-amz-date, Signature=00",
		  "X-Amz-Date:20150830T123600Z\n", "more than one X-Amz-Date" },
		{ CRED SUITE_SCOPE ", SignedHeaders=host;x-amz-date, Signature=00",
		  "Authorization:AWS4-HMAC-SHA256 Credential=X/y\n", "more than one Authorization" },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		char why[512];
		enum sigv4_outcome r = try_auth(m[i].auth, m[i].extra, why, sizeof(why));

		ok(r == SIGV4_REFUSE && strstr(why, m[i].why), "refused (%s): %s", m[i].why, why);
	}
	{
		struct srt_filter_headers *h = fh_parse("Host:example.amazonaws.com\n"
							"X-Amz-Date:2015-08-30T12:36:00Z\n");
		char why[256];

		add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
		ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
			   SIGV4_REFUSE && strstr(why, "X-Amz-Date"),
		   "an X-Amz-Date not in the basic format is refused");
		h = fh_parse("Host:example.amazonaws.com\nDate:Mon, 09 Sep 2011 23:36:00 GMT\n");
		add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "date;host");
		ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
			   SIGV4_REFUSE && strstr(why, "X-Amz-Date"),
		   "a Date header without X-Amz-Date is refused");
	}
	{
		/* keys that are not usable: refused, never signed */
		static const struct sigv4_key no_secret = { SUITE_ID, "", NULL };
		struct srt_filter_headers *h = fh_parse(SUITE_HEAD);
		char why[256];

		add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
		ok(sigv4_resign("GET", "/", h, &fake_key, &no_secret, NULL, why, sizeof(why)) ==
			   SIGV4_REFUSE, "an empty real secret is refused");
		ok(sigv4_resign("GET", "/", h, NULL, &suite_key, NULL, why, sizeof(why)) ==
			   SIGV4_REFUSE, "no masked key is refused");
		((struct fh *)h->impl)->fail_set = 1;
		ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
			   SIGV4_REFUSE && strstr(why, "cannot be set"),
		   "a header that cannot be set refuses the request: %s", why);
		((struct fh *)h->impl)->fail_set = 0;
		ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, NULL, 0) ==
			   SIGV4_RESIGNED, "why may be NULL");
	}
}

static void bounds(void)
{
	struct srt_filter_headers *h;
	char why[256], *big = malloc(3 * SIGV4_MAX_TARGET);
	size_t i;

	/* a path one past the bound */
	big[0] = '/';
	memset(big + 1, 'a', SIGV4_MAX_TARGET);
	big[SIGV4_MAX_TARGET + 1] = '\0';
	h = fh_parse(SUITE_HEAD);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_resign("GET", big, h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "target"), "a target past 8192 bytes: refused");
	/* at the bound, every byte escaped: the encoded query fits */
	strcpy(big, "/?");
	for (i = 2; i < SIGV4_MAX_TARGET; i++)
		big[i] = (char)0xff;
	big[i] = '\0';
	ok(sigv4_resign("GET", big, h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_RESIGNED, "a target of 8192 bytes all escaped: re-signed");
	/* too many parameters */
	h = fh_parse(SUITE_HEAD);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	strcpy(big, "/?");
	for (i = 0; i <= SIGV4_MAX_PARAMS; i++)
		strcat(big, "a=1&");
	ok(sigv4_resign("GET", big, h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "too many parameters"),
	   "more than %d query parameters: refused", SIGV4_MAX_PARAMS);
	/* a signed value past the bound */
	memset(big, 'v', SIGV4_MAX_VALUE + 1);
	big[SIGV4_MAX_VALUE + 1] = '\0';
	h = fh_parse(SUITE_HEAD);
	fh_add(h, "My-Header", big);
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;my-header;x-amz-date");
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "too long"), "a signed value past 8192 bytes: refused");
	/* too many header lines */
	h = fh_parse(SUITE_HEAD);
	for (i = 0; i < SIGV4_MAX_HEADERS; i++)
		fh_add(h, "X-Filler", "1");
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, "host;x-amz-date");
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE, "more than %d header lines: refused", SIGV4_MAX_HEADERS);
	/* too many signed headers */
	h = fh_parse(SUITE_HEAD);
	strcpy(big, "");
	for (i = 0; i <= SIGV4_MAX_SIGNED; i++) {
		char n[16];

		snprintf(n, sizeof(n), "%sh%03zu", i ? ";" : "", i);
		strcat(big, n);
	}
	add_auth(h, ALGO, FAKE_ID, SUITE_SCOPE, big);
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "too many"), "more than %d signed headers: refused",
	   SIGV4_MAX_SIGNED);
	/* an Authorization past the bound */
	h = fh_parse(SUITE_HEAD);
	snprintf(big, 3 * SIGV4_MAX_TARGET, CRED SUITE_SCOPE ", SignedHeaders=host, Signature=%0*d",
		 SIGV4_MAX_AUTH, 0);
	fh_add(h, "Authorization", big);
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, sizeof(why)) ==
		   SIGV4_REFUSE && strstr(why, "too long"), "an Authorization past %d bytes: refused",
	   SIGV4_MAX_AUTH);
	/* a why buffer of one byte stays terminated */
	why[0] = 'x';
	ok(sigv4_resign("GET", "/", h, &fake_key, &suite_key, NULL, why, 1) == SIGV4_REFUSE &&
		   why[0] == '\0', "a one-byte why is left empty and terminated");
	free(big);
}

/* Nothing but the Authorization (and the token) changes, and the real
 * secret appears nowhere in the request. */
static void only_signature_changes(void)
{
	struct srt_filter_headers *h = fh_parse(vectors[0].head);
	size_t i, n;
	const char *name, *value;
	int secret_seen = 0;

	add_auth(h, ALGO, FAKE_ID, vectors[0].scope, vectors[0].signed_headers);
	n = h->count(h);
	sigv4_resign("GET", vectors[0].target, h, &fake_key, &suite_key, NULL, NULL, 0);
	for (i = 0; i < h->count(h); i++) {
		h->at(h, i, &name, &value);
		if (strstr(value, SUITE_SECRET))
			secret_seen = 1;
	}
	h->at(h, 0, &name, &value);
	ok(h->count(h) == n && !secret_seen && !strcmp(name, "Host") &&
		   !strcmp(value, "iam.amazonaws.com"),
	   "the same lines, the real secret in none of them");
}

/* ---- the filter mode for the botocore check ----
 *
 * stdin, one item a line:
 *   fake <id> <secret> [token]      real <id> <secret> [token]
 *   method <M>    target <path?query>    body <sha256 hex>
 *   header <Name>: <value>
 * stdout: "outcome <not-ours|resigned|refuse>", "why <text>", then every
 * header line as "header <Name>: <value>". */
static int copy_line(char *dst, size_t room, const char *src)
{
	size_t n = strlen(src);

	if (n >= room)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static int resign_filter(void)
{
	static char line[65536], method[64], target[SIGV4_MAX_TARGET * 2], body[80];
	static char keys[2][3][1024];
	struct sigv4_key fake = { 0 }, real = { 0 };
	struct srt_filter_headers *h = fh_new();
	static const char *const names[] = { "not-ours", "resigned", "refuse" };
	char why[512];
	enum sigv4_outcome r;
	size_t i;

	body[0] = '\0';
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "fake ", 5) || !strncmp(line, "real ", 5)) {
			int k = line[0] == 'r', n;

			keys[k][2][0] = '\0';
			n = sscanf(line + 5, "%1023s %1023s %1023s", keys[k][0], keys[k][1],
				   keys[k][2]);
			if (n < 2)
				return 2;
		} else if (!strncmp(line, "method ", 7)) {
			if (copy_line(method, sizeof(method), line + 7))
				return 2;
		} else if (!strncmp(line, "target ", 7)) {
			if (copy_line(target, sizeof(target), line + 7))
				return 2;
		} else if (!strncmp(line, "body ", 5)) {
			if (copy_line(body, sizeof(body), line + 5))
				return 2;
		} else if (!strncmp(line, "header ", 7)) {
			char *colon = strchr(line + 7, ':');

			if (!colon)
				return 2;
			*colon = '\0';
			fh_add(h, line + 7, colon + 1 + (colon[1] == ' '));
		}
	}
	fake.key_id = keys[0][0], fake.secret = keys[0][1];
	fake.session_token = keys[0][2][0] ? keys[0][2] : NULL;
	real.key_id = keys[1][0], real.secret = keys[1][1];
	real.session_token = keys[1][2][0] ? keys[1][2] : NULL;
	r = sigv4_resign_body(method, target, h, &fake, &real, NULL, body[0] ? body : NULL, why,
			      sizeof(why));
	printf("outcome %s\nwhy %s\n", names[r], why);
	for (i = 0; i < h->count(h); i++) {
		const char *n, *v;

		h->at(h, i, &n, &v);
		printf("header %s: %s\n", n, v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--resign"))
		return resign_filter();
	TAP_RUN(sha256_vectors);
	TAP_RUN(hmac_rfc4231);
	TAP_RUN(published_vectors);
	TAP_RUN(documented_canonical);
	TAP_RUN(uri_rules);
	TAP_RUN(session_token);
	TAP_RUN(not_ours);
	TAP_RUN(kinds);
	TAP_RUN(payload_hash);
	TAP_RUN(malformed);
	TAP_RUN(bounds);
	TAP_RUN(only_signature_changes);
	return tap_done();
}
