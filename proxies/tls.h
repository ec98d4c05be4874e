/* TLS termination as a loadable module: the interface between the proxy
 * (which never links a TLS library) and plugins/tls/, the only code that
 * links mbedTLS. The core loads the module only when network.tlsTerminate
 * is set (libsrt/tls-setup.c), creates one context per sandbox (the CA,
 * the leaf cache, the upstream trust store) and lends both to the proxy
 * through struct srt__net_config.
 *
 * The module is built from this tree and installed beside srt; its header
 * carries SRT__TLS_MAGIC and this ABI, checked by the loader like every
 * other module's. A layer the module returns sits on a connection's stack
 * (proxies/layer.h) and owns nothing below it. */
#ifndef SRT_PROXY_TLS_H
#define SRT_PROXY_TLS_H

#include <stddef.h>

#include <srt/module.h>

#include "proxies/layer.h"

#define SRT__TLS_MAGIC 0x54545253u /* "SRTT" */
#define SRT__TLS_ABI_MAJOR 1
#define SRT__TLS_ABI_MINOR 1 /* 1: srt__tls_spec.ca_pem */

/* The most leaf certificates a context keeps (least recently used go). */
#define SRT__TLS_LEAF_CACHE 256

struct srt__tls_ctx;

struct srt__tls_spec {
	/* network.tlsTerminate.caCertPath and caKeyPath: PEM, RSA or EC
	 * key; both NULL (and no ca_pem): an ephemeral EC P-256 CA made for
	 * this context */
	const char *ca_cert_path, *ca_key_path;
	size_t cache_max; /* 0: SRT__TLS_LEAF_CACHE */
	/* since minor 1: the CA's certificate and key as PEM in memory (`srt
	 * proxy --ca-fd`), NUL-terminated, ca_pem_len bytes before the NUL;
	 * `ca_origin` names it in messages ("--ca-fd 5"). Used when the
	 * paths are NULL. The caller wipes it; the module keeps no copy. A
	 * core that sets it checks the module's minor first: an older
	 * module would make an ephemeral CA instead. */
	const char *ca_pem, *ca_origin;
	size_t ca_pem_len;
};

struct srt__tls_module {
	struct srt_module_header hdr;
	/* 0, or -1 with one line in err naming the setting at fault */
	int (*ctx_new)(const struct srt__tls_spec *spec, struct srt__tls_ctx **out, char *err,
		       size_t cap);
	void (*ctx_free)(struct srt__tls_ctx *ctx);
	/* the CA certificate as PEM (NUL-terminated, owned by ctx) */
	const char *(*ca_pem)(struct srt__tls_ctx *ctx);
	/* A server layer on `below` presenting a leaf certificate for `name`
	 * (DNS name or IP literal) and its CA, ALPN http/1.1 only; `pre` holds
	 * bytes already read from below (the ClientHello). NULL with err set. */
	struct srt__layer *(*server_new)(struct srt__tls_ctx *ctx, struct srt__layer *below,
					 const char *name, const void *pre, size_t npre,
					 char *err, size_t cap);
	/* A client layer on `below` that verifies the server's certificate
	 * for `server_name` against the host's trust store ($SSL_CERT_FILE,
	 * $SSL_CERT_DIR of srt's own environment, else the system bundle). */
	struct srt__layer *(*client_new)(struct srt__tls_ctx *ctx, struct srt__layer *below,
					 const char *server_name, char *err, size_t cap);
	/* Drive a layer's handshake: 1 done, 0 would block (the socket's next
	 * event resumes it), -1 failed with the reason in err. */
	int (*handshake)(struct srt__layer *l, char *err, size_t cap);
};

#endif
