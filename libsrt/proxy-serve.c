/* `srt proxy` in the core: its TLS termination. The proxy alone is served
 * by the proxy's room (proxies/proxy-only.c); what only the core may do
 * happens here first: read the CA given with --ca-fd, load the TLS module
 * (which alone links mbedTLS) and make its context with that CA, so that
 * CONNECTs carrying TLS are terminated and every request inside reaches the
 * decider. Without --ca-fd nothing is loaded and every CONNECT is refused
 * (opaque_tunnel), as before. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <srt/srt.h>

#include "common/platform.h"
#include "loader.h"
#include "proxies/proxy.h"
#include "proxies/tls.h"

#define CA_MAX (1u << 20) /* no CA's PEM is a megabyte */


/* The descriptor read to its end: at most CA_MAX bytes, NUL-terminated. */
static int read_ca(int fd, char **out, size_t *len, char *why, size_t cap)
{
	char *buf = malloc(CA_MAX + 2);
	size_t n = 0;
	ssize_t r;

	if (!buf)
		return srt__proxy_start_failed(why, cap, "--ca-fd %d: out of memory", fd);
	while ((r = read(fd, buf + n, CA_MAX + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			srt__os_wipe(buf, n);
			free(buf);
			return srt__proxy_start_failed(why, cap, "--ca-fd %d: %s", fd, strerror(e));
		}
		n += (size_t)r;
		if (n > CA_MAX) {
			srt__os_wipe(buf, n);
			free(buf);
			return srt__proxy_start_failed(why, cap, "--ca-fd %d: more than %u bytes: not a CA's PEM", fd,
				      CA_MAX);
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* The TLS module and a context holding the CA read from --ca-fd. */
static int tls_load(const struct srt_proxy_options *o, struct srt__module **mod,
		    const struct srt__tls_module **tls, struct srt__tls_ctx **ctx, char *why,
		    size_t cap)
{
	struct srt__tls_spec spec;
	struct srt_diag d;
	char origin[64], err[1024], *pem = NULL;
	size_t len = 0;
	int rc;

	if (read_ca(o->ca_fd, &pem, &len, why, cap))
		return 1;
	memset(&d, 0, sizeof(d));
	if (srt__module_load_tls(mod, tls, &d) != SRT_OK) {
		rc = srt__proxy_start_failed(why, cap,
					     "--ca-fd %d: the TLS module cannot be loaded: %s "
					     "(install srt-tls)", o->ca_fd, d.message);
		goto out;
	}
	/* an older module would not read the CA in memory and make one of
	 * its own: the clients would trust neither */
	if ((*tls)->hdr.abi_minor < 1) {
		rc = srt__proxy_start_failed(why, cap,
					     "--ca-fd %d: the TLS module %s is too old for --ca-fd "
					     "(TLS ABI %u.%u, 1.1 needed)", o->ca_fd,
					     srt__module_path(*mod), (*tls)->hdr.abi_major,
					     (*tls)->hdr.abi_minor);
		goto out;
	}
	snprintf(origin, sizeof(origin), "--ca-fd %d", o->ca_fd);
	memset(&spec, 0, sizeof(spec));
	spec.ca_pem = pem;
	spec.ca_pem_len = len;
	spec.ca_origin = origin;
	err[0] = '\0';
	rc = 0;
	if ((*tls)->ctx_new(&spec, ctx, err, sizeof(err)) < 0)
		rc = srt__proxy_start_failed(why, cap, "%s", err);
out:
	srt__os_wipe(pem, len);
	free(pem);
	return rc;
}

int srt_proxy_serve(const struct srt_proxy_options *o, char *why, size_t cap)
{
	struct srt__module *mod = NULL;
	const struct srt__tls_module *tls = NULL;
	struct srt__tls_ctx *ctx = NULL;
	int rc = 0;

	if (o->ca_fd >= 0)
		rc = tls_load(o, &mod, &tls, &ctx, why, cap);
	if (!rc)
		rc = srt__proxy_only_serve(o, ctx ? tls : NULL, ctx, why, cap);
	if (ctx)
		tls->ctx_free(ctx);
	srt__module_free(mod);
	return rc;
}
