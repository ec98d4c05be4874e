/* The TLS module's leaf cache and minting (plugins/tls/tls.c, compiled in
 * directly): thousands of distinct host names keep the cache at its bound
 * (3,000 by default, TLS_CACHE_NAMES=10000 for the full run: each leaf is
 * one ECDSA signature, about a millisecond of CPU with mbedTLS 2.28), a
 * leaf is signed by the CA and names its host (DNS or IP SAN), a leaf in
 * use outlives its eviction; the minting time is printed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/tls/tls-internal.h"
#include "tap.h"

static struct srt__tls_ctx *ephemeral(size_t cache_max)
{
	struct srt__tls_spec spec = { .cache_max = cache_max };
	struct srt__tls_ctx *ctx = NULL;
	char err[300] = "";

	/* the upstream trust store: any PEM bundle will do here */
	setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt", 0);
	if (srt__tls_ctx_new(&spec, &ctx, err, sizeof(err)) < 0)
		printf("# ctx_new: %s\n", err);
	return ctx;
}

static void test_cache_bounded(void)
{
	struct srt__tls_ctx *ctx = ephemeral(0);
	char name[64];
	double t0;
	int i, fails = 0, names = (int)tap_env_uint("TLS_CACHE_NAMES", 3000);
	unsigned long want = (unsigned long)names;

	ok(ctx != NULL, "an ephemeral CA context");
	if (!ctx)
		return;
	t0 = tap_now();
	for (i = 0; i < names; i++) {
		struct leaf *lf;
		snprintf(name, sizeof(name), "h%d.example.test", i);
		lf = srt__tls_leaf_get(ctx, name);
		if (!lf)
			fails++;
		srt__tls_leaf_put(ctx, lf);
	}
	printf("# %d leaves minted in %.0f ms: %.3f ms per leaf\n", names, (tap_now() - t0) * 1000,
	       (tap_now() - t0) * 1000 / names);
	ok(fails == 0, "%d distinct names each get a leaf (%d failed)", names, fails);
	ok(srt__tls_minted(ctx) == want, "each was minted once (%lu)", srt__tls_minted(ctx));
	ok(srt__tls_cache_count(ctx) == SRT__TLS_LEAF_CACHE, "the cache holds its bound, %d (%zu)",
	   SRT__TLS_LEAF_CACHE, srt__tls_cache_count(ctx));
	/* the most recent is still cached: no new minting */
	snprintf(name, sizeof(name), "h%d.example.test", names - 1);
	srt__tls_leaf_put(ctx, srt__tls_leaf_get(ctx, name));
	ok(srt__tls_minted(ctx) == want, "a cached name is not minted again");
	srt__tls_leaf_put(ctx, srt__tls_leaf_get(ctx, "h0.example.test"));
	ok(srt__tls_minted(ctx) == want + 1, "an evicted name is minted again");
	srt__tls_ctx_free(ctx);
}

static void test_leaf_contents(void)
{
	struct srt__tls_ctx *ctx = ephemeral(2);
	struct leaf *held, *lf;
	const mbedtls_x509_crt *crt;
	uint32_t flags = 0;
	char buf[512];

	if (!ctx) {
		ok(0, "context");
		return;
	}
	held = srt__tls_leaf_get(ctx, "api.example.test");
	crt = srt__tls_leaf_crt(held);
	ok(mbedtls_x509_crt_verify((mbedtls_x509_crt *)crt, (mbedtls_x509_crt *)crt->next, NULL,
				   "api.example.test", &flags, NULL, NULL) == 0,
	   "the leaf verifies against its CA for its name (flags %x)", (unsigned)flags);
	mbedtls_x509_dn_gets(buf, sizeof(buf), &crt->subject);
	ok(strcmp(buf, "CN=api.example.test") == 0, "subject CN=host (%s)", buf);
	ok(mbedtls_x509_crt_verify((mbedtls_x509_crt *)crt, (mbedtls_x509_crt *)crt->next, NULL,
				   "other.example.test", &flags, NULL, NULL) != 0,
	   "and not for another name");
	/* evict it while held: it stays valid for its user */
	srt__tls_leaf_put(ctx, srt__tls_leaf_get(ctx, "a.test"));
	srt__tls_leaf_put(ctx, srt__tls_leaf_get(ctx, "b.test"));
	ok(srt__tls_cache_count(ctx) == 2 && crt->raw.len > 0, "an evicted leaf in use stays valid");
	srt__tls_leaf_put(ctx, held);
	lf = srt__tls_leaf_get(ctx, "127.0.0.1");
	ok(lf != NULL, "an IP literal gets a leaf");
	if (lf) {
		unsigned char san[64];
		size_t n = srt__tls_san_der("127.0.0.1", san, sizeof(san));
		static const unsigned char lo[4] = { 127, 0, 0, 1 }, lo2[4] = { 127, 0, 0, 2 };
		ok(n == 8 && san[2] == 0x87 && san[3] == 4 && san[4] == 127, "with an iPAddress SAN");
		ok(srt__tls_crt_has_ip(srt__tls_leaf_crt(lf), lo, 4),
		   "the minted leaf's iPAddress is found in its DER");
		ok(!srt__tls_crt_has_ip(srt__tls_leaf_crt(lf), lo2, 4), "and no other address");
	}
	srt__tls_leaf_put(ctx, lf);
	lf = srt__tls_leaf_get(ctx, "::1");
	{
		static const unsigned char v6[16] = { [15] = 1 };
		ok(lf && srt__tls_crt_has_ip(srt__tls_leaf_crt(lf), v6, 16),
		   "an IPv6 literal's leaf names it as a 16-byte iPAddress");
	}
	srt__tls_leaf_put(ctx, lf);
	lf = srt__tls_leaf_get(ctx, "api.example.test");
	{
		static const unsigned char lo[4] = { 127, 0, 0, 1 };
		ok(lf && !srt__tls_crt_has_ip(srt__tls_leaf_crt(lf), lo, 4),
		   "a DNS name's leaf names no address");
	}
	srt__tls_leaf_put(ctx, lf);
	ok(srt__tls_leaf_get(ctx, "a,b=c") == NULL, "a name that is not a host name is refused");
	srt__tls_ctx_free(ctx);
}

int main(void)
{
	TAP_RUN(test_cache_bounded);
	TAP_RUN(test_leaf_contents);
	return tap_done();
}
