/* The TLS termination module: the one place srt links mbedTLS.
 *
 * A context holds the CA (read from the user's PEM files, RSA or EC, or
 * made per run as an EC P-256 key), one EC P-256 key that every leaf
 * certificate shares (minting a leaf is then one signature, well under a
 * millisecond with an EC CA), the leaf cache (least recently used
 * dropped past its bound; a leaf in use by a connection lives until its
 * last user lets go) and the upstream trust store.
 *
 * Layers (proxies/layer.h): a server layer terminates the sandbox's TLS
 * with a leaf for the name the client asked for; a client layer speaks TLS
 * to the real server and verifies its certificate and name. Both read and
 * write through the layer below them, never a socket of their own.
 *
 * mbedTLS runs each handshake. After a TLS 1.2 handshake that agreed on an
 * AEAD suite, the layer protects the records itself (see "the record
 * layer" below): mbedTLS 2.28 seals and opens one record at a time on the
 * calling thread and keeps two 16 KiB buffers per connection for life,
 * where the layer opens or seals the several records of one read or write
 * on the context's crypto threads at once and, idle, holds only its keys. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mbedtls/asn1.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/gcm.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/pem.h>
#include <mbedtls/pk.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ciphersuites.h>
#include <mbedtls/x509_crt.h>

#include "plugins/tls/roots.h"
#include "plugins/tls/tls-internal.h"

struct leaf {
	char name[256];
	mbedtls_x509_crt chain; /* the leaf, then the CA */
	unsigned refs;          /* the cache's (while cached) and each layer's */
	bool cached;
	struct leaf *prev, *next; /* the cache, most recently used first */
};

/* The crypto threads of a context: one batch of records at a time is
 * shared between the thread that asked (the proxy's loop) and the
 * workers, started on the first batch worth sharing and stopped with the
 * context. */
#define TLS_MAX_WORKERS 3

struct batch;

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t go, fin;
	pthread_t th[TLS_MAX_WORKERS];
	int want, nth;
	bool tried, stop, busy;
	struct batch *cur;
	unsigned long gen;
	unsigned long parallel; /* batches shared with a worker */
};

struct srt__tls_ctx {
	pthread_mutex_t lock;
	struct pool pool;
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_x509_crt ca;
	mbedtls_pk_context ca_key;
	mbedtls_pk_context leaf_key;
	char ca_subject[512];
	char ca_not_after[16]; /* YYYYMMDDhhmmss */
	char *ca_pem;
	mbedtls_x509_crt roots;
	mbedtls_ssl_config client_conf;
	struct leaf *head, *tail;
	size_t nleaves, cache_max;
	unsigned long minted;
};

static void pool_init(struct pool *pl);
static void pool_stop(struct pool *pl);
static mbedtls_ssl_export_keys_ext_t export_keys;

/* One direction's record protection: its key and IV from the key block
 * (RFC 5246 6.3) and the sequence number of its next record. */
struct dir_keys {
	unsigned char key[32];
	unsigned char iv[12]; /* AES-GCM: the 4-byte salt; ChaCha20-Poly1305: 12 bytes */
	uint64_t seq;
};

/* The most records one read opens at once. */
#define TLS_RECS 8

struct tls_layer {
	struct srt__layer l;
	struct srt__tls_ctx *ctx;
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf; /* a server's own: its leaf */
	bool server, done, failed;
	bool eof; /* the peer's close_notify (or its end of stream) was read */
	struct leaf *leaf;
	unsigned char *pre;
	size_t npre, pre_off;
	/* read-ahead: one recv(2) takes several records, which mbedTLS then
	 * reads a header and a body at a time from here (NULL when empty: an
	 * idle connection holds no buffer) */
	unsigned char *rb;
	size_t rb_len, rb_off;
	/* write-behind: tls_send frames up to TLS_BATCH bytes as records here
	 * and sends them with one send(2); while some are unsent, `pending`
	 * is the plaintext they carry, reported once they are all sent (the
	 * caller retries a write that would block with the same bytes) */
	unsigned char *wb;
	size_t wb_len, wb_off, pending;
	bool batching;
	/* a client's target when it is an IP literal: matched against the
	 * certificate's iPAddress entries (mbedTLS 2 matches names only) */
	unsigned char ip[16];
	size_t iplen;
	/* the record layer after the handshake (own: mbedTLS's context is
	 * freed, records are protected here); keys_ok: the handshake exported
	 * AEAD keys of keylen and ivlen bytes into rx and tx */
	bool own, keys_ok, broken;
	int aead;
	size_t keylen, ivlen, frag;
	struct dir_keys rx, tx;
	/* the plaintext of opened records, inside rb, not yet read */
	struct seg {
		size_t off, len;
	} seg[TLS_RECS];
	size_t nseg, seg_i;
};

static const char *const alpn[] = { "http/1.1", NULL };

/* A record: its header, and at most 2^14 bytes of plaintext in a body of
 * at most 2^14 + 2048 bytes (RFC 5246 6.2). */
#define TLS_HDR 5
#define TLS_MAX_PLAIN 16384
#define TLS_MAX_BODY (TLS_MAX_PLAIN + 2048)
#define TLS_TAG 16
/* The read-ahead buffer (four of the largest records), and the plaintext
 * one tls_send frames at most per call: four full records, and the room
 * their framing takes (the record header, an explicit IV, a MAC or tag,
 * CBC padding: well under 1 KiB). */
#define TLS_READ_AHEAD (4 * (TLS_HDR + TLS_MAX_BODY))
#define TLS_RECORD MBEDTLS_SSL_OUT_CONTENT_LEN
#define TLS_RECORD_ROOM (TLS_RECORD + 1024)
#define TLS_BATCH (4 * TLS_RECORD)
#define TLS_WB_CAP (4 * TLS_RECORD_ROOM)

static void say(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (!err || !cap)
		return;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

static void tls_strerror(int rc, char *buf, size_t cap)
{
	mbedtls_strerror(rc, buf, cap);
}

/* ---- time --------------------------------------------------------------- */

static void stamp(time_t t, char out[16])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	if (!strftime(out, 16, "%Y%m%d%H%M%S", &tm))
		out[0] = '\0';
}

static void stamp_x509(const mbedtls_x509_time *t, char out[16])
{
	struct tm tm = { .tm_year = t->year - 1900, .tm_mon = t->mon - 1, .tm_mday = t->day,
			 .tm_hour = t->hour, .tm_min = t->min, .tm_sec = t->sec };

	if (!strftime(out, 16, "%Y%m%d%H%M%S", &tm))
		out[0] = '\0';
}

/* ---- DER for the two extensions mbedTLS 2 cannot write itself ----------- */

static size_t der_len(unsigned char *p, size_t n)
{
	if (n < 128) {
		p[0] = (unsigned char)n;
		return 1;
	}
	if (n < 256) {
		p[0] = 0x81;
		p[1] = (unsigned char)n;
		return 2;
	}
	p[0] = 0x82;
	p[1] = (unsigned char)(n >> 8);
	p[2] = (unsigned char)n;
	return 3;
}

/* subjectAltName: one dNSName, or one iPAddress when `name` is an IP
 * literal. Returns the length, 0 when it does not fit. */
size_t srt__tls_san_der(const char *name, unsigned char *out, size_t cap)
{
	unsigned char inner[300], ip[16];
	size_t n = 0, vlen;
	const unsigned char *v;
	unsigned char tag;

	if (inet_pton(AF_INET, name, ip) == 1) {
		tag = 0x87, v = ip, vlen = 4;
	} else if (inet_pton(AF_INET6, name, ip) == 1) {
		tag = 0x87, v = ip, vlen = 16;
	} else {
		tag = 0x82, v = (const unsigned char *)name, vlen = strlen(name);
	}
	if (vlen > 255)
		return 0;
	inner[n++] = tag;
	n += der_len(inner + n, vlen);
	memcpy(inner + n, v, vlen);
	n += vlen;
	if (cap < n + 4)
		return 0;
	out[0] = 0x30;
	vlen = 1 + der_len(out + 1, n);
	memcpy(out + vlen, inner, n);
	return vlen + n;
}

/* ---- certificates ------------------------------------------------------- */

static int random_serial(struct srt__tls_ctx *ctx, mbedtls_mpi *serial)
{
	unsigned char b[16];
	int rc = mbedtls_ctr_drbg_random(&ctx->drbg, b, sizeof(b));

	if (rc)
		return rc;
	b[0] = (unsigned char)((b[0] & 0x3f) | 0x40); /* positive, 16 bytes */
	return mbedtls_mpi_read_binary(serial, b, sizeof(b));
}

/* Sign `w` with the CA key into `out` (DER at the end of buf). */
static int write_der(struct srt__tls_ctx *ctx, mbedtls_x509write_cert *w, unsigned char *buf,
		     size_t cap, const unsigned char **der, size_t *len)
{
	int n = mbedtls_x509write_crt_der(w, buf, cap, mbedtls_ctr_drbg_random, &ctx->drbg);

	if (n < 0)
		return n;
	*der = buf + cap - (size_t)n;
	*len = (size_t)n;
	return 0;
}

/* Start a version 3, SHA-256 certificate for subject_key signed by the
 * CA's key (the CA's own certificate passes its key for both): a fresh
 * random serial, the names and the validity. w and serial are
 * initialised here and freed by the caller whatever this returns. */
static int cert_begin(struct srt__tls_ctx *ctx, mbedtls_x509write_cert *w, mbedtls_mpi *serial,
		      mbedtls_pk_context *subject_key, const char *subject, const char *issuer,
		      const char *from, const char *to)
{
	int rc;

	mbedtls_x509write_crt_init(w);
	mbedtls_mpi_init(serial);
	mbedtls_x509write_crt_set_version(w, MBEDTLS_X509_CRT_VERSION_3);
	mbedtls_x509write_crt_set_md_alg(w, MBEDTLS_MD_SHA256);
	mbedtls_x509write_crt_set_subject_key(w, subject_key);
	mbedtls_x509write_crt_set_issuer_key(w, &ctx->ca_key);
	rc = random_serial(ctx, serial);
	if (!rc)
		rc = mbedtls_x509write_crt_set_serial(w, serial);
	if (!rc)
		rc = mbedtls_x509write_crt_set_subject_name(w, subject);
	if (!rc)
		rc = mbedtls_x509write_crt_set_issuer_name(w, issuer);
	if (!rc)
		rc = mbedtls_x509write_crt_set_validity(w, from, to);
	return rc;
}

static int make_ephemeral_ca(struct srt__tls_ctx *ctx, char *err, size_t cap)
{
	static const char subject[] = "CN=sandbox-runtime ephemeral CA,O=sandbox-runtime";
	mbedtls_x509write_cert w;
	mbedtls_mpi serial;
	unsigned char buf[4096];
	const unsigned char *der;
	char from[16], to[16];
	size_t len;
	time_t now = time(NULL);
	int rc;

	rc = mbedtls_pk_setup(&ctx->ca_key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY));
	if (!rc)
		rc = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(ctx->ca_key),
					 mbedtls_ctr_drbg_random, &ctx->drbg);
	if (rc)
		goto fail;
	stamp(now - 86400, from);
	stamp(now + 825L * 86400, to);
	rc = cert_begin(ctx, &w, &serial, &ctx->ca_key, subject, subject, from, to);
	if (!rc)
		rc = mbedtls_x509write_crt_set_basic_constraints(&w, 1, -1);
	if (!rc)
		rc = mbedtls_x509write_crt_set_key_usage(&w, MBEDTLS_X509_KU_KEY_CERT_SIGN |
							 MBEDTLS_X509_KU_CRL_SIGN |
							 MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
	if (!rc)
		rc = mbedtls_x509write_crt_set_subject_key_identifier(&w);
	if (!rc)
		rc = write_der(ctx, &w, buf, sizeof(buf), &der, &len);
	if (!rc)
		rc = mbedtls_x509_crt_parse_der(&ctx->ca, der, len);
	mbedtls_x509write_crt_free(&w);
	mbedtls_mpi_free(&serial);
	if (!rc)
		return 0;
fail: {
	char m[200];
	tls_strerror(rc, m, sizeof(m));
	say(err, cap, "tlsTerminate: cannot make the ephemeral CA: %s", m);
	return -1;
}
}

static int read_file(const char *path, char **out, size_t *len, int *e)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0, capb = 0;

	if (!f) {
		*e = errno;
		return -1;
	}
	for (;;) {
		if (capb - n < 4096) {
			char *nb;
			if (capb > (1u << 20)) { /* no CA file is a megabyte */
				*e = EFBIG;
				goto fail;
			}
			nb = realloc(b, capb + 8192);
			if (!nb) {
				*e = ENOMEM;
				goto fail;
			}
			b = nb;
			capb += 8192;
		}
		size_t k = fread(b + n, 1, capb - n - 1, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		*e = EIO;
		goto fail;
	}
	fclose(f);
	b[n] = '\0';
	*out = b;
	*len = n;
	return 0;
fail:
	fclose(f);
	free(b);
	return -1;
}

/* The user's CA, checked: a certificate whose key (RSA or EC) matches,
 * that is a CA, already valid and not expired. `cert` and `key` are
 * NUL-terminated PEM (len counts the NUL); `who` starts each message
 * ("tlsTerminate: CA at <path>", "--ca-fd 5") and `key_at` says where the
 * key came from (" at <path>", or ""). */
static int check_ca(struct srt__tls_ctx *ctx, const char *cert, size_t cert_len, const char *key,
		    size_t key_len, const char *who, const char *key_at, char *err, size_t cap)
{
	char m[200];
	int rc;
	mbedtls_pk_type_t t;

	rc = mbedtls_x509_crt_parse(&ctx->ca, (const unsigned char *)cert, cert_len);
	if (rc) {
		tls_strerror(rc, m, sizeof(m));
		say(err, cap, "%s: the certificate cannot be parsed: %s", who, m);
		return -1;
	}
	rc = mbedtls_pk_parse_key(&ctx->ca_key, (const unsigned char *)key, key_len, NULL, 0);
	if (rc) {
		tls_strerror(rc, m, sizeof(m));
		say(err, cap, "%s: the key%s cannot be read: %s", who, key_at, m);
		return -1;
	}
	t = mbedtls_pk_get_type(&ctx->ca_key);
	if (t != MBEDTLS_PK_RSA && t != MBEDTLS_PK_ECKEY) {
		say(err, cap, "%s: the key is neither RSA nor EC", who);
		return -1;
	}
	if (mbedtls_pk_check_pair(&ctx->ca.pk, &ctx->ca_key) != 0) {
		say(err, cap, "%s: the key%s does not match the certificate", who, key_at);
		return -1;
	}
	if (!ctx->ca.ca_istrue) {
		say(err, cap, "%s: the certificate is not a CA (basicConstraints CA:TRUE missing)", who);
		return -1;
	}
	if (mbedtls_x509_time_is_future(&ctx->ca.valid_from)) {
		say(err, cap, "%s: the certificate is not valid yet (notBefore in the future)", who);
		return -1;
	}
	if (mbedtls_x509_time_is_past(&ctx->ca.valid_to)) {
		say(err, cap, "%s: the certificate has expired", who);
		return -1;
	}
	return 0;
}

/* The user's CA from network.tlsTerminate.caCertPath and caKeyPath. */
static int load_ca(struct srt__tls_ctx *ctx, const char *cert_path, const char *key_path, char *err,
		   size_t cap)
{
	char *pem = NULL, *key = NULL, who[4200], key_at[4200];
	size_t len, key_len;
	int e = 0, rc;

	if (read_file(cert_path, &pem, &len, &e) < 0) {
		say(err, cap, "tlsTerminate.caCertPath: cannot read %s (%s)", cert_path, strerror(e));
		return -1;
	}
	if (!strstr(pem, "-----BEGIN CERTIFICATE-----")) {
		free(pem);
		say(err, cap, "tlsTerminate.caCertPath: %s is not a PEM CERTIFICATE", cert_path);
		return -1;
	}
	if (read_file(key_path, &key, &key_len, &e) < 0) {
		free(pem);
		say(err, cap, "tlsTerminate.caKeyPath: cannot read %s (%s)", key_path, strerror(e));
		return -1;
	}
	snprintf(who, sizeof(who), "tlsTerminate: CA at %s", cert_path);
	snprintf(key_at, sizeof(key_at), " at %s", key_path);
	rc = check_ca(ctx, pem, len + 1, key, key_len + 1, who, key_at, err, cap);
	mbedtls_platform_zeroize(key, key_len);
	free(key);
	free(pem);
	return rc;
}

/* The CA handed over in memory (srt proxy --ca-fd): its CERTIFICATE
 * block and its private key block in one PEM text. */
static int load_ca_pem(struct srt__tls_ctx *ctx, const struct srt__tls_spec *spec, char *err,
		       size_t cap)
{
	const char *who = spec->ca_origin ? spec->ca_origin : "the CA";

	if (spec->ca_pem[spec->ca_pem_len] != '\0' ||
	    strlen(spec->ca_pem) != spec->ca_pem_len) {
		say(err, cap, "%s: the PEM text holds a NUL byte", who);
		return -1;
	}
	if (!strstr(spec->ca_pem, "-----BEGIN CERTIFICATE-----")) {
		say(err, cap, "%s: no PEM CERTIFICATE block", who);
		return -1;
	}
	if (!strstr(spec->ca_pem, "PRIVATE KEY-----")) {
		say(err, cap, "%s: no PEM PRIVATE KEY block", who);
		return -1;
	}
	return check_ca(ctx, spec->ca_pem, spec->ca_pem_len + 1, spec->ca_pem, spec->ca_pem_len + 1,
			who, "", err, cap);
}

static int ca_pem_build(struct srt__tls_ctx *ctx)
{
	size_t olen = 0, cap = ctx->ca.raw.len * 2 + 200;

	ctx->ca_pem = malloc(cap);
	if (!ctx->ca_pem)
		return -1;
	if (mbedtls_pem_write_buffer("-----BEGIN CERTIFICATE-----\n", "-----END CERTIFICATE-----\n",
				     ctx->ca.raw.p, ctx->ca.raw.len, (unsigned char *)ctx->ca_pem, cap,
				     &olen))
		return -1;
	return 0;
}

/* Mint the leaf for `name`: subject CN=name, SAN DNS or IP, serverAuth,
 * valid from a day ago until the CA's end or 99 days, signed by the CA. */
static int mint(struct srt__tls_ctx *ctx, struct leaf *lf)
{
	static const unsigned char eku[] = { 0x30, 0x0a, 0x06, 0x08, 0x2b, 0x06, 0x01,
					     0x05, 0x05, 0x07, 0x03, 0x01 };
	mbedtls_x509write_cert w;
	mbedtls_mpi serial;
	unsigned char buf[4096], san[300];
	const unsigned char *der;
	char subject[300], from[16], to[16];
	size_t len, sanlen = srt__tls_san_der(lf->name, san, sizeof(san));
	time_t now = time(NULL);
	int rc;

	if (!sanlen)
		return -1;
	snprintf(subject, sizeof(subject), "CN=%s", lf->name);
	stamp(now - 86400, from);
	stamp(now + 99L * 86400, to);
	if (strcmp(to, ctx->ca_not_after) > 0)
		memcpy(to, ctx->ca_not_after, sizeof(to));
	rc = cert_begin(ctx, &w, &serial, &ctx->leaf_key, subject, ctx->ca_subject, from, to);
	if (!rc)
		rc = mbedtls_x509write_crt_set_basic_constraints(&w, 0, -1);
	if (!rc)
		rc = mbedtls_x509write_crt_set_key_usage(&w, MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
	if (!rc)
		rc = mbedtls_x509write_crt_set_extension(
			&w, MBEDTLS_OID_EXTENDED_KEY_USAGE, MBEDTLS_OID_SIZE(MBEDTLS_OID_EXTENDED_KEY_USAGE),
			0, eku, sizeof(eku));
	if (!rc)
		rc = mbedtls_x509write_crt_set_extension(
			&w, MBEDTLS_OID_SUBJECT_ALT_NAME, MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME),
			0, san, sanlen);
	if (!rc)
		rc = mbedtls_x509write_crt_set_subject_key_identifier(&w);
	if (!rc)
		rc = mbedtls_x509write_crt_set_authority_key_identifier(&w);
	if (!rc)
		rc = write_der(ctx, &w, buf, sizeof(buf), &der, &len);
	if (!rc)
		rc = mbedtls_x509_crt_parse_der(&lf->chain, der, len);
	if (!rc)
		rc = mbedtls_x509_crt_parse_der(&lf->chain, ctx->ca.raw.p, ctx->ca.raw.len);
	mbedtls_x509write_crt_free(&w);
	mbedtls_mpi_free(&serial);
	if (!rc)
		ctx->minted++;
	return rc ? -1 : 0;
}

/* ---- the leaf cache ----------------------------------------------------- */

static void leaf_unlink(struct srt__tls_ctx *ctx, struct leaf *lf)
{
	if (lf->prev)
		lf->prev->next = lf->next;
	else
		ctx->head = lf->next;
	if (lf->next)
		lf->next->prev = lf->prev;
	else
		ctx->tail = lf->prev;
	lf->prev = lf->next = NULL;
}

static void leaf_push(struct srt__tls_ctx *ctx, struct leaf *lf)
{
	lf->prev = NULL;
	lf->next = ctx->head;
	if (ctx->head)
		ctx->head->prev = lf;
	ctx->head = lf;
	if (!ctx->tail)
		ctx->tail = lf;
}

static void leaf_drop(struct leaf *lf)
{
	if (--lf->refs)
		return;
	mbedtls_x509_crt_free(&lf->chain);
	free(lf);
}

/* A name is minted only when it is a plain DNS name or an IP literal: it
 * goes into a distinguished name string and the SAN. */
static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 253)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == ':' || *p == '_'))
			return false;
	return true;
}

/* The leaf for `name`, with a reference for the caller (leaf_drop). */
struct leaf *srt__tls_leaf_get(struct srt__tls_ctx *ctx, const char *name)
{
	struct leaf *lf;

	if (!name_ok(name))
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	for (lf = ctx->head; lf; lf = lf->next)
		if (strcasecmp(lf->name, name) == 0)
			break;
	if (lf) {
		leaf_unlink(ctx, lf);
		leaf_push(ctx, lf);
		lf->refs++;
		pthread_mutex_unlock(&ctx->lock);
		return lf;
	}
	lf = calloc(1, sizeof(*lf));
	if (!lf)
		goto out;
	snprintf(lf->name, sizeof(lf->name), "%s", name);
	mbedtls_x509_crt_init(&lf->chain);
	if (mint(ctx, lf) < 0) {
		mbedtls_x509_crt_free(&lf->chain);
		free(lf);
		lf = NULL;
		goto out;
	}
	lf->refs = 2;
	lf->cached = true;
	leaf_push(ctx, lf);
	if (++ctx->nleaves > ctx->cache_max) {
		struct leaf *old = ctx->tail;
		leaf_unlink(ctx, old);
		old->cached = false;
		ctx->nleaves--;
		leaf_drop(old);
	}
out:
	pthread_mutex_unlock(&ctx->lock);
	return lf;
}

void srt__tls_leaf_put(struct srt__tls_ctx *ctx, struct leaf *lf)
{
	if (!lf)
		return;
	pthread_mutex_lock(&ctx->lock);
	leaf_drop(lf);
	pthread_mutex_unlock(&ctx->lock);
}

size_t srt__tls_cache_count(struct srt__tls_ctx *ctx)
{
	return ctx->nleaves;
}

unsigned long srt__tls_minted(struct srt__tls_ctx *ctx)
{
	return ctx->minted;
}

const mbedtls_x509_crt *srt__tls_leaf_crt(const struct leaf *lf)
{
	return &lf->chain;
}

/* ---- the context -------------------------------------------------------- */

static void add_root(void *arg, const unsigned char *der, size_t len)
{
	(void)mbedtls_x509_crt_parse_der(arg, der, len);
}

/* The host's trust store: $SSL_CERT_FILE and $SSL_CERT_DIR of srt's own
 * environment, as OpenSSL clients read them, else the system bundle, else
 * the system's own store where it is no file (Windows: roots.h). */
static int load_roots(struct srt__tls_ctx *ctx, char *err, size_t cap)
{
	static const char *const bundles[] = {
		"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/ssl/cert.pem", NULL,
	};
	const char *file = getenv("SSL_CERT_FILE"), *dir = getenv("SSL_CERT_DIR");
	struct stat st;

	if (file && *file)
		(void)mbedtls_x509_crt_parse_file(&ctx->roots, file);
	if (dir && *dir)
		(void)mbedtls_x509_crt_parse_path(&ctx->roots, dir);
	for (size_t i = 0; !(file && *file) && bundles[i]; i++)
		if (stat(bundles[i], &st) == 0) {
			(void)mbedtls_x509_crt_parse_file(&ctx->roots, bundles[i]);
			break;
		}
	if (!(file && *file) && ctx->roots.raw.len == 0)
		(void)srt__tls_os_roots(add_root, &ctx->roots);
	if (ctx->roots.raw.len == 0) {
		say(err, cap, "tlsTerminate: no trusted root certificate found to verify servers with "
			      "(set SSL_CERT_FILE, or install ca-certificates)");
		return -1;
	}
	return 0;
}

static int client_conf(struct srt__tls_ctx *ctx)
{
	mbedtls_ssl_config *c = &ctx->client_conf;
	int rc = mbedtls_ssl_config_defaults(c, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
					     MBEDTLS_SSL_PRESET_DEFAULT);

	if (rc)
		return rc;
	mbedtls_ssl_conf_authmode(c, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(c, &ctx->roots, NULL);
	mbedtls_ssl_conf_rng(c, mbedtls_ctr_drbg_random, &ctx->drbg);
	mbedtls_ssl_conf_min_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_export_keys_ext_cb(c, export_keys, NULL);
	return mbedtls_ssl_conf_alpn_protocols(c, (const char **)alpn);
}

void srt__tls_ctx_free(struct srt__tls_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->head) {
		struct leaf *lf = ctx->head;
		leaf_unlink(ctx, lf);
		leaf_drop(lf);
	}
	mbedtls_ssl_config_free(&ctx->client_conf);
	mbedtls_x509_crt_free(&ctx->roots);
	mbedtls_x509_crt_free(&ctx->ca);
	mbedtls_pk_free(&ctx->ca_key);
	mbedtls_pk_free(&ctx->leaf_key);
	mbedtls_ctr_drbg_free(&ctx->drbg);
	mbedtls_entropy_free(&ctx->entropy);
	pool_stop(&ctx->pool);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx->ca_pem);
	free(ctx);
}

int srt__tls_ctx_new(const struct srt__tls_spec *spec, struct srt__tls_ctx **out, char *err,
		     size_t cap)
{
	static const char pers[] = "srt-tls";
	struct srt__tls_ctx *ctx = calloc(1, sizeof(*ctx));
	int rc;

	if (!ctx) {
		say(err, cap, "tlsTerminate: out of memory");
		return -1;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	pool_init(&ctx->pool);
	mbedtls_entropy_init(&ctx->entropy);
	mbedtls_ctr_drbg_init(&ctx->drbg);
	mbedtls_x509_crt_init(&ctx->ca);
	mbedtls_x509_crt_init(&ctx->roots);
	mbedtls_pk_init(&ctx->ca_key);
	mbedtls_pk_init(&ctx->leaf_key);
	mbedtls_ssl_config_init(&ctx->client_conf);
	ctx->cache_max = spec->cache_max ? spec->cache_max : SRT__TLS_LEAF_CACHE;
	if (mbedtls_ctr_drbg_seed(&ctx->drbg, mbedtls_entropy_func, &ctx->entropy,
				  (const unsigned char *)pers, sizeof(pers) - 1)) {
		say(err, cap, "tlsTerminate: cannot seed the random generator");
		goto fail;
	}
	if (spec->ca_cert_path && spec->ca_key_path)
		rc = load_ca(ctx, spec->ca_cert_path, spec->ca_key_path, err, cap);
	else if (spec->ca_pem)
		rc = load_ca_pem(ctx, spec, err, cap);
	else
		rc = make_ephemeral_ca(ctx, err, cap);
	if (rc)
		goto fail;
	if (mbedtls_x509_dn_gets(ctx->ca_subject, sizeof(ctx->ca_subject), &ctx->ca.subject) < 0) {
		say(err, cap, "tlsTerminate: the CA's subject is too long");
		goto fail;
	}
	stamp_x509(&ctx->ca.valid_to, ctx->ca_not_after);
	if (mbedtls_pk_setup(&ctx->leaf_key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)) ||
	    mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(ctx->leaf_key),
				mbedtls_ctr_drbg_random, &ctx->drbg)) {
		say(err, cap, "tlsTerminate: cannot make the leaf key");
		goto fail;
	}
	if (ca_pem_build(ctx) < 0) {
		say(err, cap, "tlsTerminate: cannot encode the CA certificate");
		goto fail;
	}
	if (load_roots(ctx, err, cap) < 0)
		goto fail;
	if (client_conf(ctx)) {
		say(err, cap, "tlsTerminate: cannot configure the upstream TLS client");
		goto fail;
	}
	*out = ctx;
	return 0;
fail:
	srt__tls_ctx_free(ctx);
	return -1;
}

const char *srt__tls_ca_pem(struct srt__tls_ctx *ctx)
{
	return ctx->ca_pem;
}

/* ---- an IP-literal server's certificate ----------------------------------- */

/* Whether the subjectAltName extension's value (a SEQUENCE OF GeneralName)
 * holds an iPAddress equal to ip. */
static bool san_has_ip(unsigned char *p, const unsigned char *end, const unsigned char *ip,
		       size_t iplen)
{
	size_t len;

	if (mbedtls_asn1_get_tag(&p, end, &len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE))
		return false;
	end = p + len;
	while (p < end) {
		unsigned char tag = *p;
		p++;
		if (mbedtls_asn1_get_len(&p, end, &len))
			return false;
		if (tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) &&
		    len == iplen && memcmp(p, ip, iplen) == 0)
			return true;
		p += len;
	}
	return false;
}

/* Whether the certificate names the address ip in an iPAddress entry of
 * its subjectAltName. mbedTLS 2 keeps only the dNSName entries, so the
 * extensions are read from the certificate's DER here (bounds-checked:
 * the certificate is the network's). */
bool srt__tls_crt_has_ip(const mbedtls_x509_crt *crt, const unsigned char *ip, size_t iplen)
{
	unsigned char *p = crt->v3_ext.p, *end;
	size_t len;

	if (!p || !crt->v3_ext.len)
		return false;
	end = p + crt->v3_ext.len;
	if (*p == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 3) &&
	    mbedtls_asn1_get_tag(&p, end, &len,
				 MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 3))
		return false;
	if (mbedtls_asn1_get_tag(&p, end, &len, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE))
		return false;
	end = p + len;
	while (p < end) {
		unsigned char *ext_end;
		mbedtls_asn1_buf oid;
		int critical = 0;

		if (mbedtls_asn1_get_tag(&p, end, &len,
					 MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE))
			return false;
		ext_end = p + len;
		if (mbedtls_asn1_get_tag(&p, ext_end, &oid.len, MBEDTLS_ASN1_OID))
			return false;
		oid.p = p;
		p += oid.len;
		if (p < ext_end && *p == MBEDTLS_ASN1_BOOLEAN &&
		    mbedtls_asn1_get_bool(&p, ext_end, &critical))
			return false;
		if (mbedtls_asn1_get_tag(&p, ext_end, &len, MBEDTLS_ASN1_OCTET_STRING) ||
		    p + len != ext_end)
			return false;
		if (MBEDTLS_OID_CMP(MBEDTLS_OID_SUBJECT_ALT_NAME, &oid) == 0)
			return san_has_ip(p, ext_end, ip, iplen);
		p = ext_end;
	}
	return false;
}

/* The upstream's certificate, for a target that is an IP literal: the
 * chain is verified by mbedTLS, the name here; the leaf must carry the
 * address as an iPAddress (a dNSName spelling the address, or the
 * subject's CN, does not count, as in OpenSSL's X509_check_ip). */
static int verify_ip(void *arg, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
	struct tls_layer *t = arg;

	if (depth == 0 && !srt__tls_crt_has_ip(crt, t->ip, t->iplen))
		*flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
	return 0;
}

/* ---- the record layer --------------------------------------------------- */

/* After a TLS 1.2 handshake that agreed on AES-GCM or ChaCha20-Poly1305
 * (the suites mbedTLS prefers), the layer takes the record protection
 * over from mbedTLS: it keeps the keys the handshake exported and the two
 * sequence numbers, frees mbedTLS's context with its two 16 KiB buffers,
 * and seals and opens records with mbedTLS's AEAD functions (RFC 5246
 * 6.2.3.3, RFC 5288, RFC 7905). A record depends only on the keys and its
 * sequence number, so the records of one read or one write are opened or
 * sealed in parallel on the context's crypto threads. After the handshake
 * only application data and alerts may come: a renegotiation, a
 * ChangeCipherSpec, a fatal alert or a record that fails authentication
 * ends the stream (the caller sees ECONNRESET), and no plaintext of such
 * a record is ever returned. Any other handshake (TLS 1.3 with a later
 * mbedTLS, a CBC or CCM suite) keeps mbedTLS's own record layer. */

enum { AEAD_GCM = 1, AEAD_CHACHAPOLY };

/* Batches worth sharing with a worker: two records or more, and enough
 * bytes that waking a thread costs less than it saves. */
#define TLS_SHARE_MIN (24 * 1024)

struct job {
	unsigned char *rec;      /* the record: its header, then its body */
	const unsigned char *in; /* sealing: the plaintext */
	size_t len;              /* the plaintext's length */
	uint64_t seq;
	unsigned char type;
	int rc;
};

struct batch {
	int aead;
	size_t keylen;
	const struct dir_keys *k;
	bool seal;
	struct job *jobs;
	size_t n, bytes;
	atomic_size_t next, done;
	unsigned users; /* workers inside the batch (under the pool's lock) */
};

/* The handshake running on this thread, for export_keys (mbedTLS 2.28
 * passes the callback its configuration's argument, and the upstream
 * layers share one configuration). */
static _Thread_local struct tls_layer *hs_layer;

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The key block's application keys (RFC 5246 6.3: the client's write
 * key, the server's, then their IVs; no MAC keys for an AEAD suite),
 * each direction to its side. */
static int export_keys(void *arg, const unsigned char *ms, const unsigned char *kb, size_t maclen,
		       size_t keylen, size_t ivlen, const unsigned char client_random[32],
		       const unsigned char server_random[32], mbedtls_tls_prf_types prf)
{
	struct tls_layer *t = hs_layer;
	struct dir_keys *c, *s;

	(void)arg;
	(void)ms;
	(void)client_random;
	(void)server_random;
	(void)prf;
	if (!t)
		return 0;
	t->keys_ok = false;
	if (maclen || keylen > sizeof(t->rx.key) || ivlen > sizeof(t->rx.iv))
		return 0;
	c = t->server ? &t->rx : &t->tx;
	s = t->server ? &t->tx : &t->rx;
	memcpy(c->key, kb, keylen);
	memcpy(s->key, kb + keylen, keylen);
	memcpy(c->iv, kb + 2 * keylen, ivlen);
	memcpy(s->iv, kb + 2 * keylen + ivlen, ivlen);
	t->keylen = keylen;
	t->ivlen = ivlen;
	t->keys_ok = true;
	return 0;
}

static void forget_keys(struct tls_layer *t)
{
	mbedtls_platform_zeroize(&t->rx, sizeof(t->rx));
	mbedtls_platform_zeroize(&t->tx, sizeof(t->tx));
	t->keys_ok = false;
}

/* The handshake is over: take the records over when it agreed on TLS 1.2
 * with an AEAD suite whose keys were exported, and mbedTLS holds nothing
 * of the stream (no record read and not returned, nothing unsent, no
 * ClientHello byte left). */
static void take_over(struct tls_layer *t)
{
	const mbedtls_ssl_ciphersuite_t *cs;
	const char *suite = mbedtls_ssl_get_ciphersuite(&t->ssl);
	size_t keylen, ivlen;
	int aead;

	if (!t->keys_ok || !suite || strcmp(mbedtls_ssl_get_version(&t->ssl), "TLSv1.2") != 0)
		goto keep;
	cs = mbedtls_ssl_ciphersuite_from_id(mbedtls_ssl_get_ciphersuite_id(suite));
	if (!cs || (cs->flags & MBEDTLS_CIPHERSUITE_SHORT_TAG))
		goto keep;
	switch (cs->cipher) {
	case MBEDTLS_CIPHER_AES_128_GCM:
		aead = AEAD_GCM, keylen = 16, ivlen = 4;
		break;
	case MBEDTLS_CIPHER_AES_256_GCM:
		aead = AEAD_GCM, keylen = 32, ivlen = 4;
		break;
	case MBEDTLS_CIPHER_CHACHA20_POLY1305:
		aead = AEAD_CHACHAPOLY, keylen = 32, ivlen = 12;
		break;
	default:
		goto keep;
	}
	if (keylen != t->keylen || ivlen != t->ivlen || mbedtls_ssl_check_pending(&t->ssl) ||
	    t->ssl.out_left || t->npre || !t->ssl.in_ctr)
		goto keep;
	t->frag = TLS_MAX_PLAIN;
#ifdef MBEDTLS_SSL_MAX_FRAGMENT_LENGTH
	/* a smaller record size the client asked for (RFC 6066) */
	t->frag = mbedtls_ssl_get_output_max_frag_len(&t->ssl);
#endif
	if (!t->frag || t->frag > TLS_MAX_PLAIN)
		t->frag = TLS_MAX_PLAIN;
	/* the next record each way: mbedTLS counted the Finished messages */
	t->rx.seq = get64(t->ssl.in_ctr);
	t->tx.seq = get64(t->ssl.cur_out_ctr);
	t->aead = aead;
	mbedtls_ssl_free(&t->ssl);
	mbedtls_ssl_init(&t->ssl);
	if (t->server) {
		mbedtls_ssl_config_free(&t->conf);
		mbedtls_ssl_config_init(&t->conf);
		srt__tls_leaf_put(t->ctx, t->leaf);
		t->leaf = NULL;
	}
	t->own = true;
	return;
keep:
	forget_keys(t);
}

/* The additional data (sequence number, type, version, plaintext length)
 * and the nonce (AES-GCM: the salt and the explicit part the record
 * carries; ChaCha20-Poly1305: the IV XOR the sequence number). */
static void aad_nonce(const struct batch *b, const struct job *j, const unsigned char *explicit_iv,
		      unsigned char aad[13], unsigned char nonce[12])
{
	put64(aad, j->seq);
	aad[8] = j->type;
	aad[9] = 3;
	aad[10] = 3;
	aad[11] = (unsigned char)(j->len >> 8);
	aad[12] = (unsigned char)j->len;
	if (b->aead == AEAD_GCM) {
		memcpy(nonce, b->k->iv, 4);
		memcpy(nonce + 4, explicit_iv, 8);
		return;
	}
	memcpy(nonce, b->k->iv, 12);
	for (int i = 0; i < 8; i++)
		nonce[4 + i] ^= aad[i];
}

/* Seal j->len bytes of j->in as a record of type j->type at j->rec. */
static int seal_one(const struct batch *b, struct job *j)
{
	size_t ex = b->aead == AEAD_GCM ? 8 : 0, blen = ex + j->len + TLS_TAG;
	unsigned char aad[13], nonce[12], *ct = j->rec + TLS_HDR + ex;
	int rc;

	j->rec[0] = j->type;
	j->rec[1] = 3;
	j->rec[2] = 3;
	j->rec[3] = (unsigned char)(blen >> 8);
	j->rec[4] = (unsigned char)blen;
	if (ex)
		put64(j->rec + TLS_HDR, j->seq); /* the explicit nonce: unique per key */
	aad_nonce(b, j, j->rec + TLS_HDR, aad, nonce);
	if (b->aead == AEAD_GCM) {
		mbedtls_gcm_context g;
		mbedtls_gcm_init(&g);
		rc = mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, b->k->key,
					(unsigned int)(b->keylen * 8));
		if (!rc)
			rc = mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, j->len, nonce, 12, aad,
						       13, j->in, ct, TLS_TAG, ct + j->len);
		mbedtls_gcm_free(&g);
	} else {
		mbedtls_chachapoly_context c;
		mbedtls_chachapoly_init(&c);
		rc = mbedtls_chachapoly_setkey(&c, b->k->key);
		if (!rc)
			rc = mbedtls_chachapoly_encrypt_and_tag(&c, j->len, nonce, aad, 13, j->in, ct,
								ct + j->len);
		mbedtls_chachapoly_free(&c);
	}
	mbedtls_platform_zeroize(nonce, sizeof(nonce));
	return rc;
}

/* Open the record at j->rec in place (its plaintext, j->len bytes, then
 * starts after the explicit nonce); 0, or the failed authentication. */
static int open_one(const struct batch *b, struct job *j)
{
	size_t ex = b->aead == AEAD_GCM ? 8 : 0;
	unsigned char aad[13], nonce[12], *ct = j->rec + TLS_HDR + ex;
	int rc;

	aad_nonce(b, j, j->rec + TLS_HDR, aad, nonce);
	if (b->aead == AEAD_GCM) {
		mbedtls_gcm_context g;
		mbedtls_gcm_init(&g);
		rc = mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, b->k->key,
					(unsigned int)(b->keylen * 8));
		if (!rc)
			rc = mbedtls_gcm_auth_decrypt(&g, j->len, nonce, 12, aad, 13, ct + j->len,
						      TLS_TAG, ct, ct);
		mbedtls_gcm_free(&g);
	} else {
		mbedtls_chachapoly_context c;
		mbedtls_chachapoly_init(&c);
		rc = mbedtls_chachapoly_setkey(&c, b->k->key);
		if (!rc)
			rc = mbedtls_chachapoly_auth_decrypt(&c, j->len, nonce, aad, 13, ct + j->len,
							     ct, ct);
		mbedtls_chachapoly_free(&c);
	}
	return rc;
}

/* ---- the crypto threads --------------------------------------------------- */

/* Take the batch's jobs one at a time until none is left: the asking
 * thread and the workers share them this way. */
static void run_jobs(struct batch *b)
{
	for (;;) {
		size_t i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n)
			return;
		b->jobs[i].rc = b->seal ? seal_one(b, &b->jobs[i]) : open_one(b, &b->jobs[i]);
		atomic_fetch_add(&b->done, 1);
	}
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	unsigned long seen = 0;

	pthread_mutex_lock(&pl->lock);
	for (;;) {
		struct batch *b;

		while (!pl->stop && (!pl->cur || pl->gen == seen))
			pthread_cond_wait(&pl->go, &pl->lock);
		if (pl->stop)
			break;
		b = pl->cur;
		seen = pl->gen;
		b->users++;
		pthread_mutex_unlock(&pl->lock);
		run_jobs(b);
		pthread_mutex_lock(&pl->lock);
		b->users--;
		pthread_cond_broadcast(&pl->fin);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/* Start the workers (the pool's lock held): as many as the machine has
 * processors besides the asking thread's, at most TLS_MAX_WORKERS. They
 * take no signal: srt's own threads do. A worker that cannot start
 * leaves the work to the asking thread. */
static void pool_start(struct pool *pl)
{
	pthread_attr_t a;
	sigset_t all, old;

	pl->tried = true;
	if (pl->want <= 0 || pthread_attr_init(&a) != 0)
		return;
	(void)pthread_attr_setstacksize(&a, 256 * 1024);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (pl->nth < pl->want && pl->nth < TLS_MAX_WORKERS &&
	       pthread_create(&pl->th[pl->nth], &a, worker, pl) == 0)
		pl->nth++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
}

static void pool_init(struct pool *pl)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->go, NULL);
	pthread_cond_init(&pl->fin, NULL);
	pl->want = n > 1 ? (int)(n - 1) : 0;
	if (pl->want > TLS_MAX_WORKERS)
		pl->want = TLS_MAX_WORKERS;
}

static void pool_stop(struct pool *pl)
{
	pthread_mutex_lock(&pl->lock);
	pl->stop = true;
	pthread_cond_broadcast(&pl->go);
	pthread_mutex_unlock(&pl->lock);
	for (int i = 0; i < pl->nth; i++)
		pthread_join(pl->th[i], NULL);
	pthread_cond_destroy(&pl->fin);
	pthread_cond_destroy(&pl->go);
	pthread_mutex_destroy(&pl->lock);
}

/* Run every job of b, shared with the workers when it is worth it and no
 * other batch holds them; returns once all are done and no worker still
 * looks at b (it lives on the caller's stack). */
static void batch_run(struct srt__tls_ctx *ctx, struct batch *b)
{
	struct pool *pl = &ctx->pool;

	atomic_init(&b->next, 0);
	atomic_init(&b->done, 0);
	b->users = 0;
	if (b->n < 2 || b->bytes < TLS_SHARE_MIN || pl->want <= 0) {
		run_jobs(b);
		return;
	}
	pthread_mutex_lock(&pl->lock);
	if (!pl->tried)
		pool_start(pl);
	if (pl->busy || !pl->nth) {
		pthread_mutex_unlock(&pl->lock);
		run_jobs(b);
		return;
	}
	pl->busy = true;
	pl->cur = b;
	pl->gen++;
	pl->parallel++;
	pthread_cond_broadcast(&pl->go);
	pthread_mutex_unlock(&pl->lock);
	run_jobs(b);
	pthread_mutex_lock(&pl->lock);
	while (atomic_load(&b->done) < b->n || b->users)
		pthread_cond_wait(&pl->fin, &pl->lock);
	pl->cur = NULL;
	pl->busy = false;
	pthread_mutex_unlock(&pl->lock);
}

/* ---- reading and writing records ------------------------------------------ */

static void batch_init(struct tls_layer *t, struct batch *b, bool seal, struct job *jobs)
{
	b->aead = t->aead;
	b->keylen = t->keylen;
	b->k = seal ? &t->tx : &t->rx;
	b->seal = seal;
	b->jobs = jobs;
	b->n = b->bytes = 0;
}

/* Open the complete records at the front of the read-ahead buffer's
 * unparsed bytes (at most TLS_RECS): their plaintext becomes the segments
 * tls_recv hands out. 1: records were taken, 0: no complete record yet,
 * -1: the stream is broken (a bad header, a failed record, an unexpected
 * type; t->broken). The plaintext of records before a failed one stays. */
static int open_records(struct tls_layer *t)
{
	struct job jobs[TLS_RECS];
	struct batch b;
	size_t p = t->rb_off, ex = t->aead == AEAD_GCM ? 8 : 0;

	batch_init(t, &b, false, jobs);
	while (b.n < TLS_RECS && t->rb_len - p >= TLS_HDR) {
		const unsigned char *h = t->rb + p;
		size_t blen = (size_t)h[3] << 8 | h[4];

		if (h[0] < MBEDTLS_SSL_MSG_CHANGE_CIPHER_SPEC || h[0] > MBEDTLS_SSL_MSG_APPLICATION_DATA ||
		    h[1] != 3 || h[2] != 3 || blen > TLS_MAX_BODY || blen < ex + TLS_TAG ||
		    blen - ex - TLS_TAG > TLS_MAX_PLAIN || t->rx.seq == UINT64_MAX)
			goto broken;
		if (t->rb_len - p - TLS_HDR < blen)
			break;
		jobs[b.n] = (struct job){ .rec = t->rb + p, .len = blen - ex - TLS_TAG,
					  .seq = t->rx.seq++, .type = h[0] };
		b.bytes += blen;
		b.n++;
		p += TLS_HDR + blen;
	}
	if (!b.n)
		return 0;
	batch_run(t->ctx, &b);
	t->rb_off = p;
	for (size_t i = 0; i < b.n; i++) {
		const struct job *j = &jobs[i];
		const unsigned char *plain = j->rec + TLS_HDR + ex;

		if (j->rc)
			goto broken;
		if (j->type == MBEDTLS_SSL_MSG_APPLICATION_DATA) {
			if (j->len)
				t->seg[t->nseg++] = (struct seg){ (size_t)(plain - t->rb), j->len };
			continue;
		}
		if (j->type == MBEDTLS_SSL_MSG_ALERT && j->len == 2) {
			if (plain[1] == MBEDTLS_SSL_ALERT_MSG_CLOSE_NOTIFY) {
				t->eof = true; /* what follows the close_notify is ignored */
				return 1;
			}
			if (plain[0] == MBEDTLS_SSL_ALERT_LEVEL_WARNING)
				continue;
		}
		goto broken;
	}
	return 1;
broken:
	t->broken = true;
	return -1;
}

/* tls_recv once the layer protects the records: hand out opened
 * plaintext, open what the read-ahead buffer holds, read more, until buf
 * is full or the socket has nothing more (a short read means drained). */
static ssize_t own_recv(struct tls_layer *t, unsigned char *buf, size_t n)
{
	size_t got = 0;
	int e = EAGAIN;

	for (;;) {
		ssize_t k;

		while (got < n && t->seg_i < t->nseg) {
			struct seg *s = &t->seg[t->seg_i];
			size_t take = s->len < n - got ? s->len : n - got;
			memcpy(buf + got, t->rb + s->off, take);
			s->off += take;
			s->len -= take;
			got += take;
			if (!s->len)
				t->seg_i++;
		}
		if (got == n || t->broken || t->eof)
			break;
		/* every segment read: the unparsed bytes move to the front */
		t->seg_i = t->nseg = 0;
		if (t->rb_off) {
			memmove(t->rb, t->rb + t->rb_off, t->rb_len - t->rb_off);
			t->rb_len -= t->rb_off;
			t->rb_off = 0;
		}
		if (open_records(t) != 0)
			continue;
		if (!t->rb && !(t->rb = malloc(TLS_READ_AHEAD))) {
			e = ENOMEM;
			break;
		}
		k = srt__layer_recv(t->l.below, t->rb + t->rb_len, TLS_READ_AHEAD - t->rb_len);
		if (k > 0) {
			t->rb_len += (size_t)k;
			continue;
		}
		if (k == 0 && t->rb_len > t->rb_off) {
			/* closed in the middle of a record: the stream was cut,
			 * it did not end */
			t->broken = true;
			break;
		}
		if (k == 0 && !t->server) {
			/* the server closed without a close_notify, between
			 * records: a cut too (whoever can send a FIN can make
			 * it), not an end. Passed on as an end it would be our
			 * own close_notify to the sandbox's client, an
			 * authenticated end of a body that only the server's
			 * close delimits (HTTP/1.0, no Content-Length), which
			 * the client could not tell from a whole one */
			t->broken = true;
			break;
		}
		if (k == 0) {
			/* the sandbox's client closed without a close_notify:
			 * its end, as mbedTLS reports it (its requests are
			 * framed) */
			t->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		e = errno == EAGAIN ? EAGAIN : ECONNRESET;
		break;
	}
	if (t->seg_i == t->nseg && t->rb_off == t->rb_len) {
		/* nothing buffered: an idle connection holds no buffer */
		free(t->rb);
		t->rb = NULL;
		t->rb_off = t->rb_len = t->seg_i = t->nseg = 0;
	}
	if (got)
		return (ssize_t)got;
	if (t->broken) {
		errno = ECONNRESET;
		return -1;
	}
	if (t->eof)
		return 0;
	errno = e;
	return -1;
}

/* Seal up to TLS_BATCH bytes of buf as records into the (empty)
 * write-behind buffer; the bytes taken, or 0 with errno set. */
static size_t own_seal(struct tls_layer *t, const unsigned char *buf, size_t n)
{
	struct job jobs[TLS_RECS];
	struct batch b;
	size_t total = 0, ex = t->aead == AEAD_GCM ? 8 : 0;

	if (t->broken) {
		errno = EPIPE;
		return 0;
	}
	if (!t->wb && !(t->wb = malloc(TLS_WB_CAP))) {
		errno = ENOMEM;
		return 0;
	}
	batch_init(t, &b, true, jobs);
	while (total < n && total < TLS_BATCH && b.n < TLS_RECS &&
	       TLS_WB_CAP - t->wb_len >= TLS_RECORD_ROOM && t->tx.seq != UINT64_MAX) {
		size_t chunk = n - total < t->frag ? n - total : t->frag;
		jobs[b.n++] = (struct job){ .rec = t->wb + t->wb_len, .in = buf + total, .len = chunk,
					    .seq = t->tx.seq++,
					    .type = MBEDTLS_SSL_MSG_APPLICATION_DATA };
		t->wb_len += TLS_HDR + ex + chunk + TLS_TAG;
		b.bytes += chunk;
		total += chunk;
	}
	batch_run(t->ctx, &b);
	for (size_t i = 0; i < b.n; i++)
		if (jobs[i].rc) {
			t->broken = true;
			errno = EPIPE;
			return 0;
		}
	if (!total)
		errno = EPIPE; /* the sequence numbers are spent */
	return total;
}

/* Queue the close_notify alert behind what the write-behind buffer holds. */
static void own_close_notify(struct tls_layer *t)
{
	static const unsigned char alert[2] = { MBEDTLS_SSL_ALERT_LEVEL_WARNING,
						MBEDTLS_SSL_ALERT_MSG_CLOSE_NOTIFY };
	struct job j = { .in = alert, .len = 2, .type = MBEDTLS_SSL_MSG_ALERT };
	struct batch b;

	if (t->broken || t->tx.seq == UINT64_MAX)
		return;
	if (!t->wb && !(t->wb = malloc(TLS_WB_CAP)))
		return;
	if (TLS_WB_CAP - t->wb_len < TLS_RECORD_ROOM)
		return;
	batch_init(t, &b, true, &j);
	j.rec = t->wb + t->wb_len;
	j.seq = t->tx.seq++;
	if (seal_one(&b, &j) == 0)
		t->wb_len += TLS_HDR + (t->aead == AEAD_GCM ? 8 : 0) + 2 + TLS_TAG;
}

/* ---- layers ------------------------------------------------------------- */

/* Send what the write-behind buffer holds. 1: all sent (the buffer is
 * freed), 0: would block, -1: failed (errno set). */
static int wb_flush(struct tls_layer *t)
{
	while (t->wb_off < t->wb_len) {
		ssize_t k = srt__layer_send(t->l.below, t->wb + t->wb_off, t->wb_len - t->wb_off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		t->wb_off += (size_t)k;
	}
	free(t->wb);
	t->wb = NULL;
	t->wb_len = t->wb_off = 0;
	return 1;
}

/* mbedTLS's output. While tls_send frames a batch, or while earlier records
 * wait unsent (their order must hold), records are appended to the
 * write-behind buffer; otherwise (the handshake) they go straight down. */
static int bio_send(void *arg, const unsigned char *buf, size_t n)
{
	struct tls_layer *t = arg;
	ssize_t k;

	if (t->batching || t->wb_len) {
		if (!t->wb && !(t->wb = malloc(TLS_WB_CAP)))
			return MBEDTLS_ERR_SSL_ALLOC_FAILED;
		if (n > TLS_WB_CAP - t->wb_len)
			return MBEDTLS_ERR_SSL_WANT_WRITE;
		memcpy(t->wb + t->wb_len, buf, n);
		t->wb_len += n;
		return (int)n;
	}
	k = srt__layer_send(t->l.below, buf, n);
	if (k >= 0)
		return (int)k;
	if (errno == EAGAIN || errno == EINTR)
		return MBEDTLS_ERR_SSL_WANT_WRITE;
	return MBEDTLS_ERR_NET_SEND_FAILED;
}

/* mbedTLS's input: the ClientHello bytes the proxy had already read, then
 * the read-ahead buffer, refilled with one recv(2) of up to
 * TLS_READ_AHEAD bytes. The buffer is freed as soon as it is empty, so a
 * connection waiting for its next request holds none. */
static int bio_recv(void *arg, unsigned char *buf, size_t n)
{
	struct tls_layer *t = arg;
	size_t take;
	ssize_t k;

	if (t->pre_off < t->npre) {
		take = t->npre - t->pre_off;
		if (take > n)
			take = n;
		memcpy(buf, t->pre + t->pre_off, take);
		t->pre_off += take;
		if (t->pre_off == t->npre) {
			free(t->pre);
			t->pre = NULL;
			t->npre = t->pre_off = 0;
		}
		return (int)take;
	}
	if (!t->rb) {
		if (!(t->rb = malloc(TLS_READ_AHEAD)))
			return MBEDTLS_ERR_SSL_ALLOC_FAILED;
		k = srt__layer_recv(t->l.below, t->rb, TLS_READ_AHEAD);
		if (k <= 0) {
			int e = errno;
			free(t->rb);
			t->rb = NULL;
			if (k == 0)
				return 0;
			errno = e;
			if (errno == EAGAIN || errno == EINTR)
				return MBEDTLS_ERR_SSL_WANT_READ;
			return MBEDTLS_ERR_NET_RECV_FAILED;
		}
		t->rb_len = (size_t)k;
	}
	take = t->rb_len - t->rb_off;
	if (take > n)
		take = n;
	memcpy(buf, t->rb + t->rb_off, take);
	t->rb_off += take;
	if (t->rb_off == t->rb_len) {
		free(t->rb);
		t->rb = NULL;
		t->rb_off = t->rb_len = 0;
	}
	return (int)take;
}

static int step(struct tls_layer *t, char *err, size_t cap)
{
	int rc;
	char m[200];

	if (t->done)
		return 1;
	if (t->failed) {
		say(err, cap, "TLS handshake failed");
		return -1;
	}
	hs_layer = t;
	rc = mbedtls_ssl_handshake(&t->ssl);
	hs_layer = NULL;
	if (rc == 0) {
		t->done = true;
		take_over(t);
		return 1;
	}
	if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE)
		return 0;
	t->failed = true;
	if (!t->server && t->iplen &&
	    mbedtls_ssl_get_verify_result(&t->ssl) == MBEDTLS_X509_BADCERT_CN_MISMATCH) {
		char a[INET6_ADDRSTRLEN] = "";
		inet_ntop(t->iplen == 4 ? AF_INET : AF_INET6, t->ip, a, sizeof(a));
		say(err, cap, "the server's certificate cannot be trusted: it does not name the "
			      "address %s (an iPAddress subjectAltName)", a);
		return -1;
	}
	if (!t->server && mbedtls_ssl_get_verify_result(&t->ssl)) {
		char info[400];
		mbedtls_x509_crt_verify_info(info, sizeof(info), "", mbedtls_ssl_get_verify_result(&t->ssl));
		info[strcspn(info, "\n")] = '\0';
		say(err, cap, "the server's certificate cannot be trusted: %s", info);
		return -1;
	}
	tls_strerror(rc, m, sizeof(m));
	say(err, cap, "TLS handshake failed: %s", m);
	return -1;
}

int srt__tls_handshake(struct srt__layer *l, char *err, size_t cap)
{
	return step((struct tls_layer *)l, err, cap);
}

/* A layer's recv before its handshake is done drives the handshake: the
 * caller sees EAGAIN until then. */
static int ready(struct tls_layer *t)
{
	int rc = step(t, NULL, 0);

	if (rc > 0)
		return 0;
	errno = rc == 0 ? EAGAIN : ECONNRESET;
	return -1;
}

static ssize_t tls_recv(struct srt__layer *l, void *buf, size_t n)
{
	struct tls_layer *t = (struct tls_layer *)l;
	size_t got = 0;

	if (ready(t) < 0)
		return -1;
	if (t->own)
		return own_recv(t, buf, n);
	if (t->eof)
		return 0;
	/* read until the caller's buffer is full or nothing is left: a short
	 * read means drained, as it does on a socket */
	while (got < n) {
		int rc = mbedtls_ssl_read(&t->ssl, (unsigned char *)buf + got, n - got);
		if (rc > 0) {
			got += (size_t)rc;
			continue;
		}
		if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) {
			if (got)
				return (ssize_t)got;
			errno = EAGAIN;
			return -1;
		}
		/* the end of the stream is remembered: mbedTLS reports the
		 * close_notify once, and the peer may keep its socket open
		 * waiting for ours. The end of the socket (0, which is also
		 * how mbedtls_ssl_read reports CONN_EOF) inside a record
		 * (mbedTLS holds part of it: in_left) is a cut stream, as in
		 * own_recv, never its end: the end would be passed on as our
		 * own close_notify, an authenticated end of a truncated
		 * stream. So is the server's end between records without a
		 * close_notify (see own_recv). */
		if (rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY ||
		    ((rc == 0 || rc == MBEDTLS_ERR_SSL_CONN_EOF) && t->ssl.in_left == 0 && t->server))
			t->eof = true;
		if (got)
			return (ssize_t)got;
		if (t->eof)
			return 0;
		errno = ECONNRESET;
		return -1;
	}
	return (ssize_t)got;
}

/* Frame up to TLS_BATCH bytes of buf as full records into the
 * write-behind buffer and send them with one send(2). Records that cannot
 * all be sent now stay buffered: the caller sees EAGAIN, and its retry
 * (the same bytes, as after any write that would block) first sends them
 * and is then told they were taken. */
static ssize_t tls_send(struct srt__layer *l, const void *buf, size_t n)
{
	struct tls_layer *t = (struct tls_layer *)l;
	size_t total = 0;
	int rc = 0, f;

	if (ready(t) < 0)
		return -1;
	if (t->wb_len) {
		f = wb_flush(t);
		if (f <= 0) {
			if (f == 0)
				errno = EAGAIN;
			else
				errno = EPIPE;
			return -1;
		}
		if (t->pending) {
			total = t->pending;
			t->pending = 0;
			return (ssize_t)(total < n ? total : n);
		}
	}
	if (t->own) {
		total = own_seal(t, buf, n);
		if (!total) {
			int e = errno;
			free(t->wb);
			t->wb = NULL;
			t->wb_len = t->wb_off = 0;
			errno = e;
			return -1;
		}
	} else {
		t->batching = true;
		while (total < n && total < TLS_BATCH &&
		       TLS_WB_CAP - t->wb_len >= TLS_RECORD_ROOM) {
			size_t chunk = n - total < TLS_RECORD ? n - total : TLS_RECORD;
			rc = mbedtls_ssl_write(&t->ssl, (const unsigned char *)buf + total, chunk);
			if (rc <= 0)
				break;
			total += (size_t)rc;
		}
		t->batching = false;
	}
	if (!total) {
		free(t->wb);
		t->wb = NULL;
		t->wb_len = t->wb_off = 0;
		errno = rc == MBEDTLS_ERR_SSL_WANT_WRITE || rc == MBEDTLS_ERR_SSL_WANT_READ ? EAGAIN
										       : EPIPE;
		return -1;
	}
	f = wb_flush(t);
	if (f < 0) {
		errno = EPIPE;
		return -1;
	}
	if (f == 0) {
		t->pending = total;
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)total;
}

static int tls_shutdown(struct srt__layer *l)
{
	struct tls_layer *t = (struct tls_layer *)l;

	if (t->own)
		own_close_notify(t);
	else if (t->done)
		(void)mbedtls_ssl_close_notify(&t->ssl);
	if (t->done && t->wb_len)
		(void)wb_flush(t);
	return srt__layer_shutdown(l->below);
}

static void tls_close(struct srt__layer *l)
{
	struct tls_layer *t = (struct tls_layer *)l;

	mbedtls_ssl_free(&t->ssl);
	if (t->server)
		mbedtls_ssl_config_free(&t->conf);
	srt__tls_leaf_put(t->ctx, t->leaf);
	forget_keys(t);
	free(t->pre);
	free(t->rb);
	free(t->wb);
	free(t);
}

static const struct srt__layer_ops server_ops = {
	.name = "tls-server",
	.recv = tls_recv,
	.send = tls_send,
	.shutdown = tls_shutdown,
	.close = tls_close,
};

static const struct srt__layer_ops client_ops = {
	.name = "tls-client",
	.recv = tls_recv,
	.send = tls_send,
	.shutdown = tls_shutdown,
	.close = tls_close,
};

static struct tls_layer *layer_alloc(struct srt__tls_ctx *ctx, struct srt__layer *below,
				     const struct srt__layer_ops *ops)
{
	struct tls_layer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->l.ops = ops;
	t->l.below = below;
	t->l.fd = below->fd;
	t->ctx = ctx;
	mbedtls_ssl_init(&t->ssl);
	mbedtls_ssl_config_init(&t->conf);
	return t;
}

struct srt__layer *srt__tls_server_new(struct srt__tls_ctx *ctx, struct srt__layer *below,
				       const char *name, const void *pre, size_t npre, char *err,
				       size_t cap)
{
	struct tls_layer *t = layer_alloc(ctx, below, &server_ops);
	mbedtls_ssl_config *c;

	if (!t) {
		say(err, cap, "out of memory");
		return NULL;
	}
	t->server = true;
	c = &t->conf;
	t->leaf = srt__tls_leaf_get(ctx, name);
	if (!t->leaf) {
		say(err, cap, "cannot mint a certificate for \"%s\"", name);
		goto fail;
	}
	if (npre) {
		t->pre = malloc(npre);
		if (!t->pre)
			goto oom;
		memcpy(t->pre, pre, npre);
		t->npre = npre;
	}
	if (mbedtls_ssl_config_defaults(c, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
					MBEDTLS_SSL_PRESET_DEFAULT))
		goto oom;
	mbedtls_ssl_conf_rng(c, mbedtls_ctr_drbg_random, &ctx->drbg);
	mbedtls_ssl_conf_min_version(c, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_export_keys_ext_cb(c, export_keys, NULL);
	if (mbedtls_ssl_conf_alpn_protocols(c, (const char **)alpn) ||
	    mbedtls_ssl_conf_own_cert(c, &t->leaf->chain, &ctx->leaf_key) ||
	    mbedtls_ssl_setup(&t->ssl, c))
		goto oom;
	mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
	return &t->l;
oom:
	say(err, cap, "out of memory for a TLS server");
fail:
	tls_close(&t->l);
	return NULL;
}

struct srt__layer *srt__tls_client_new(struct srt__tls_ctx *ctx, struct srt__layer *below,
				       const char *server_name, char *err, size_t cap)
{
	struct tls_layer *t = layer_alloc(ctx, below, &client_ops);

	if (!t) {
		say(err, cap, "out of memory");
		return NULL;
	}
	if (inet_pton(AF_INET, server_name, t->ip) == 1)
		t->iplen = 4;
	else if (inet_pton(AF_INET6, server_name, t->ip) == 1)
		t->iplen = 16;
	/* an IP literal is sent no server name (RFC 6066 allows DNS names
	 * only) and is matched by verify_ip instead of mbedTLS's name check */
	if (mbedtls_ssl_setup(&t->ssl, &ctx->client_conf) ||
	    (!t->iplen && mbedtls_ssl_set_hostname(&t->ssl, server_name))) {
		say(err, cap, "cannot set up a TLS client for \"%s\"", server_name);
		tls_close(&t->l);
		return NULL;
	}
	if (t->iplen)
		mbedtls_ssl_set_verify(&t->ssl, verify_ip, t);
	mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
	return &t->l;
}

/* ---- for the unit tests -------------------------------------------------- */

const char *srt__tls_layer_records(const struct srt__layer *l)
{
	const struct tls_layer *t = (const struct tls_layer *)l;

	if (!t->own)
		return "mbedtls";
	if (t->aead == AEAD_CHACHAPOLY)
		return "chacha20-poly1305";
	return t->keylen == 16 ? "aes-128-gcm" : "aes-256-gcm";
}

void srt__tls_set_workers(struct srt__tls_ctx *ctx, int n)
{
	ctx->pool.want = n < TLS_MAX_WORKERS ? n : TLS_MAX_WORKERS;
}

unsigned long srt__tls_shared_batches(struct srt__tls_ctx *ctx)
{
	unsigned long n;

	pthread_mutex_lock(&ctx->pool.lock);
	n = ctx->pool.parallel;
	pthread_mutex_unlock(&ctx->pool.lock);
	return n;
}

void srt__tls_client_suites(struct srt__tls_ctx *ctx, const int *suites)
{
	mbedtls_ssl_conf_ciphersuites(&ctx->client_conf, suites);
}

/* The proxy's socket layer functions, which this module does not link:
 * the layers below a TLS layer are reached through their ops only. */
const struct srt__tls_module srt_tls_entry = {
	.hdr = {
		.magic = SRT__TLS_MAGIC,
		.abi_major = SRT__TLS_ABI_MAJOR,
		.abi_minor = SRT__TLS_ABI_MINOR,
		.size = sizeof(struct srt__tls_module),
		.name = "mbedtls",
	},
	.ctx_new = srt__tls_ctx_new,
	.ctx_free = srt__tls_ctx_free,
	.ca_pem = srt__tls_ca_pem,
	.server_new = srt__tls_server_new,
	.client_new = srt__tls_client_new,
	.handshake = srt__tls_handshake,
};
