/* network.tlsTerminate in the core. The mbedTLS code lives in a module of
 * its own (plugins/tls/), loaded here only when the settings ask for
 * termination, so neither libsrt nor srt links a TLS library. Its context
 * holds the CA; the CA certificate and the trust bundle (the CA, the host's
 * roots, the CERTIFICATE blocks of extraCaCertPaths) are written to a
 * private directory that the sandbox may read even under a denyRead, and
 * the command's trust variables name the bundle. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fdio.h"
#include "loader.h"
#include "tls-setup.h"

/* The variables TLS clients read their trust store from: each names the
 * bundle, so curl, Python, Node, git, pip, cargo, the AWS and Google
 * tools, Deno and Nix trust the proxy's certificates. */
static const char *const trust_vars[] = {
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
	"PIP_CERT", "GIT_SSL_CAINFO", "AWS_CA_BUNDLE", "CARGO_HTTP_CAINFO", "DENO_CERT",
	"CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "NIX_SSL_CERT_FILE", NULL,
};

/* Append the file at `path` to fd: whole (certs_only false) or only its
 * CERTIFICATE blocks. A file that is missing or unreadable adds nothing. */
static int append_file(int fd, const char *path, int certs_only)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	static const char end[] = "-----END CERTIFICATE-----";
	FILE *f = fopen(path, "r");
	char *buf = NULL, *p;
	size_t len = 0;
	int rc = 0;

	if (!f)
		return 0;
	{
		size_t cap = 0, k;
		char chunk[8192];
		while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			char *nb;
			if (len + k + 1 > cap) {
				cap = (len + k + 1) * 2;
				if (cap > (64u << 20) || !(nb = realloc(buf, cap))) {
					rc = -1;
					goto out;
				}
				buf = nb;
			}
			memcpy(buf + len, chunk, k);
			len += k;
		}
	}
	if (!buf)
		goto out;
	buf[len] = '\0';
	if (!certs_only) {
		rc = srt__write_full(fd, "\n", 1) || srt__write_full(fd, buf, len) ? -1 : 0;
		goto out;
	}
	for (p = buf; (p = strstr(p, begin)); ) {
		char *e = strstr(p, end);
		if (!e)
			break;
		e += sizeof(end) - 1;
		if (srt__write_full(fd, "\n", 1) || srt__write_full(fd, p, (size_t)(e - p)) ||
		    srt__write_full(fd, "\n", 1)) {
			rc = -1;
			break;
		}
		p = e;
	}
out:
	free(buf);
	fclose(f);
	return rc;
}

/* The host's roots, as srt itself would trust them. */
static const char *host_roots(void)
{
	static const char *const bundles[] = {
		"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/ssl/cert.pem", NULL,
	};
	const char *env = getenv("SSL_CERT_FILE");

	if (env && *env && access(env, R_OK) == 0)
		return env;
	for (size_t i = 0; bundles[i]; i++)
		if (access(bundles[i], R_OK) == 0)
			return bundles[i];
	return NULL;
}

static int write_files(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const char *pem = sb->tls->ca_pem(sb->tls_ctx), *roots = host_roots();
	const struct srt__strv *extra = &sb->settings.tls_extra_ca_cert_paths;
	char path[4096];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/ca.crt", sb->tls_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || srt__write_full(fd, pem, strlen(pem)))
		rc = -1;
	if (fd >= 0)
		close(fd);
	if (rc)
		goto fail;
	snprintf(path, sizeof(path), "%s/trust-bundle.crt", sb->tls_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || srt__write_full(fd, pem, strlen(pem)) || (roots && append_file(fd, roots, 0)))
		rc = -1;
	for (size_t i = 0; !rc && i < extra->n; i++)
		rc = append_file(fd, extra->v[i], 1);
	if (fd >= 0)
		close(fd);
	if (rc)
		goto fail;
	sb->tls_bundle = strdup(path);
	if (!sb->tls_bundle)
		return srt_diag_set(diag, SRT_E_NOMEM, "network.tlsTerminate", "out of memory");
	return SRT_OK;
fail:
	return srt_diag_set(diag, SRT_E_IO, "network.tlsTerminate",
			    "network.tlsTerminate: cannot write %s: %s", path, strerror(errno));
}

/* The directory is read by the command even under a denyRead that covers
 * the host's temporary directory. */
static int allow_inside(struct srt_sandbox *sb, struct srt_diag *diag)
{
	struct srt_rules *r = &sb->policy.allow_read;
	struct srt_rule *v = realloc(r->v, (r->n + 1) * sizeof(*v));
	char *path, *origin;

	if (!v)
		return srt_diag_set(diag, SRT_E_NOMEM, "network.tlsTerminate", "out of memory");
	r->v = v;
	path = strdup(sb->tls_dir);
	origin = strdup("network.tlsTerminate (CA and trust bundle)");
	if (!path || !origin) {
		free(path);
		free(origin);
		return srt_diag_set(diag, SRT_E_NOMEM, "network.tlsTerminate", "out of memory");
	}
	v[r->n].path = path;
	v[r->n].flags = SRT_RULE_DEFAULT | SRT_RULE_LITERAL;
	v[r->n].origin = origin;
	r->n++;
	return SRT_OK;
}

int srt__sandbox_tls_start(struct srt_sandbox *sb, struct srt_diag *diag)
{
	const struct srt__settings *s = &sb->settings;
	struct srt__tls_spec spec = { .ca_cert_path = s->tls_ca_cert_path,
				       .ca_key_path = s->tls_ca_key_path };
	struct srt_diag ld;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], err[1024];
	int rc;

	if (!s->has_tls_terminate || sb->tls_ctx)
		return SRT_OK;
	memset(&ld, 0, sizeof(ld));
	rc = srt__module_load_tls(&sb->tls_module, &sb->tls, &ld);
	if (rc)
		return srt_diag_set(diag, rc, "network.tlsTerminate",
				    "network.tlsTerminate: the TLS module cannot be loaded: %s (install srt-tls)",
				    ld.message);
	err[0] = '\0';
	if (sb->tls->ctx_new(&spec, &sb->tls_ctx, err, sizeof(err)) < 0)
		return srt_diag_set(diag, SRT_E_INVAL, "network.tlsTerminate", "%s", err);
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/srt-ca-XXXXXX", tmp);
	if (!mkdtemp(dir))
		return srt_diag_set(diag, SRT_E_IO, "network.tlsTerminate",
				    "network.tlsTerminate: cannot create %s: %s", dir, strerror(errno));
	/* the files inside are 0644; the directory lets the sandbox's
	 * other users (the unprivileged uid inside) reach them */
	(void)chmod(dir, 0755);
	sb->tls_dir = strdup(dir);
	if (!sb->tls_dir)
		return srt_diag_set(diag, SRT_E_NOMEM, "network.tlsTerminate", "out of memory");
	rc = write_files(sb, diag);
	if (rc)
		return rc;
	srt__sandbox_log(sb, 1, "TLS termination: CA and trust bundle in %s", sb->tls_dir);
	return sb->policy.fs_disabled ? SRT_OK : allow_inside(sb, diag);
}

int srt__sandbox_tls_env(struct srt_sandbox *sb, struct srt__strv *set)
{
	char kv[4200];

	if (!sb->tls_bundle)
		return SRT_OK;
	for (size_t i = 0; trust_vars[i]; i++) {
		snprintf(kv, sizeof(kv), "%s=%s", trust_vars[i], sb->tls_bundle);
		if (srt__strv_push(set, kv))
			return SRT_E_NOMEM;
	}
	return SRT_OK;
}

static void unlink_in(const char *dir, const char *name)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	(void)unlink(p);
}

void srt__sandbox_tls_free(struct srt_sandbox *sb)
{
	if (sb->tls_dir) {
		unlink_in(sb->tls_dir, "ca.crt");
		unlink_in(sb->tls_dir, "trust-bundle.crt");
		(void)rmdir(sb->tls_dir);
	}
	free(sb->tls_dir);
	free(sb->tls_bundle);
	sb->tls_dir = sb->tls_bundle = NULL;
	if (sb->tls && sb->tls_ctx)
		sb->tls->ctx_free(sb->tls_ctx);
	sb->tls_ctx = NULL;
	srt__module_free(sb->tls_module);
	sb->tls_module = NULL;
	sb->tls = NULL;
}
