/* The TLS module's functions, named for the unit tests that compile
 * plugins/tls/tls.c directly (the module itself exports only
 * srt_tls_entry). */
#ifndef SRT_PLUGIN_TLS_INTERNAL_H
#define SRT_PLUGIN_TLS_INTERNAL_H

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <mbedtls/x509_crt.h>

#include "proxies/tls.h"

struct leaf;

int srt__tls_ctx_new(const struct srt__tls_spec *spec, struct srt__tls_ctx **out, char *err,
		     size_t cap);
void srt__tls_ctx_free(struct srt__tls_ctx *ctx);
const char *srt__tls_ca_pem(struct srt__tls_ctx *ctx);
struct srt__layer *srt__tls_server_new(struct srt__tls_ctx *ctx, struct srt__layer *below,
				       const char *name, const void *pre, size_t npre, char *err,
				       size_t cap);
struct srt__layer *srt__tls_client_new(struct srt__tls_ctx *ctx, struct srt__layer *below,
				       const char *server_name, char *err, size_t cap);
int srt__tls_handshake(struct srt__layer *l, char *err, size_t cap);

/* the leaf cache */
struct leaf *srt__tls_leaf_get(struct srt__tls_ctx *ctx, const char *name);
void srt__tls_leaf_put(struct srt__tls_ctx *ctx, struct leaf *lf);
size_t srt__tls_cache_count(struct srt__tls_ctx *ctx);
unsigned long srt__tls_minted(struct srt__tls_ctx *ctx);
const mbedtls_x509_crt *srt__tls_leaf_crt(const struct leaf *lf);
size_t srt__tls_san_der(const char *name, unsigned char *out, size_t cap);
bool srt__tls_crt_has_ip(const mbedtls_x509_crt *crt, const unsigned char *ip, size_t iplen);

/* the record layer: who protects a layer's records ("mbedtls", or the
 * AEAD the layer runs itself: "chacha20-poly1305", "aes-128-gcm",
 * "aes-256-gcm"); the crypto threads a context may start (before its
 * first batch) and the batches it shared with them; the suites the
 * upstream client offers (a 0-terminated list the caller keeps) */
const char *srt__tls_layer_records(const struct srt__layer *l);
void srt__tls_set_workers(struct srt__tls_ctx *ctx, int n);
unsigned long srt__tls_shared_batches(struct srt__tls_ctx *ctx);
void srt__tls_client_suites(struct srt__tls_ctx *ctx, const int *suites);

extern const struct srt__tls_module srt_tls_entry;

#endif
