/* The proxy variables of the command's environment (HTTP_PROXY and
 * friends, NO_PROXY, GIT_SSH_COMMAND; listed in README.md). The token travels only in the environment (never in an
 * argv, which other users can read in /proc). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/auth.h"
#include "proxies/proxy.h"

void srt__proxy_user(const char *command_key, char *out, size_t cap)
{
	char b64[200];
	size_t n;

	snprintf(out, cap, "srt");
	if (!command_key || !*command_key)
		return;
	n = strlen(command_key);
	if (n > 100)
		n = 100;
	if (!srt__b64_encode((const uint8_t *)command_key, n, b64, sizeof(b64)))
		return;
	if (4 + strlen(b64) > 255 || 4 + strlen(b64) >= cap)
		return;
	snprintf(out, cap, "srt.%s", b64);
}

static void pct_encode(const char *in, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *in && o + 4 < cap; in++) {
		unsigned char ch = (unsigned char)*in;
		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
		    ch == '~') {
			out[o++] = (char)ch;
		} else {
			out[o++] = '%';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
}

/* The helper path is pasted into two shell layers (git's sh -c, then
 * ssh's ProxyCommand); only plain path characters are accepted. A POSIX
 * path ("/...") goes in bare: 1. A Windows path ("C:/..."; see
 * libsrt/platform.h, srt__plat_program_spell) goes in double quotes: 2.
 * There a space and parentheses are accepted too ("C:/Program Files
 * (x86)/..."): inside double quotes they are plain characters to the
 * MSYS shell of Git for Windows' ssh, and the quotes keep the path one
 * word to Windows' own ssh.exe, which starts the ProxyCommand through
 * CreateProcess; '\\', '"', '$' and '`', which either would read, never
 * pass. 0: refused. */
static int safe_path(const char *p)
{
	int win = ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) &&
		  p[1] == ':' && p[2] == '/';

	if (p[0] != '/' && !win)
		return 0;
	for (p += win ? 2 : 0; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || strchr("/._+-", *p) ||
		      (win && strchr(" ()", *p))))
			return 0;
	return win ? 2 : 1;
}

static int push(struct srt__strv *out, const char *name, const char *value)
{
	char *s;
	int rc;

	if (asprintf(&s, "%s=%s", name, value) < 0)
		return SRT_E_NOMEM;
	rc = srt__strv_push(out, s);
	free(s);
	return rc ? SRT_E_NOMEM : SRT_OK;
}

int srt__proxy_env(struct srt__strv *out, const char *user, const char *token,
		   int http_port, int socks_port, const char *connect_helper)
{
	return srt__proxy_env_at(out, "localhost", user, token, http_port, socks_port,
				 connect_helper);
}

int srt__proxy_env_at(struct srt__strv *out, const char *host, const char *user,
		      const char *token, int http_port, int socks_port,
		      const char *connect_helper)
{
	char euser[1024], etok[256], cred[1300], http_url[1400], socks_url[1400];
	char buf[2048];
	int err;

	if (!user || !*user)
		user = "srt";
	pct_encode(user, euser, sizeof(euser));
	if (token && *token) {
		pct_encode(token, etok, sizeof(etok));
		snprintf(cred, sizeof(cred), "%s:%s@", euser, etok);
	} else {
		cred[0] = '\0';
	}
	snprintf(http_url, sizeof(http_url), "http://%s%s:%d", cred, host, http_port);
	snprintf(socks_url, sizeof(socks_url), "socks5h://%s%s:%d", cred, host, socks_port);

#define PUSH(n, v) do { if ((err = push(out, n, v))) return err; } while (0)
	PUSH("SANDBOX_RUNTIME", "1");
	/* Only loopback bypasses the proxy. The reference also listed the
	 * private ranges (10/8, 172.16/12, 192.168/16, 169.254/16), but the
	 * command runs in an empty network namespace: a client that goes
	 * around the proxy for those reaches nothing, so listing them only
	 * turns allowed intranet hosts into connection failures. */
	PUSH("NO_PROXY", "localhost,127.0.0.1,::1");
	PUSH("no_proxy", "localhost,127.0.0.1,::1");
	if (http_port > 0) {
		PUSH("HTTP_PROXY", http_url);
		PUSH("HTTPS_PROXY", http_url);
		PUSH("http_proxy", http_url);
		PUSH("https_proxy", http_url);
		if (token && *token)
			PUSH("GIT_CONFIG_PARAMETERS", "'http.proxyAuthMethod=basic'");
	}
	{
		const char *all = http_port > 0 ? http_url : socks_url;
		PUSH("ALL_PROXY", all);
		PUSH("all_proxy", all);
		PUSH("GRPC_PROXY", all);
		PUSH("grpc_proxy", all);
	}
	if (connect_helper && http_port > 0) {
		int kind = safe_path(connect_helper);
		const char *q = kind == 2 ? "\"" : "";

		if (!kind)
			return SRT_E_INVAL;
		if (snprintf(buf, sizeof(buf),
			     "ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand='%s%s%s %%h %%p'",
			     q, connect_helper, q) >= (int)sizeof(buf))
			return SRT_E_INVAL;
		PUSH("GIT_SSH_COMMAND", buf);
	}
	if (socks_port > 0) {
		PUSH("FTP_PROXY", socks_url);
		PUSH("ftp_proxy", socks_url);
	}
	if (http_port > 0) {
		/* rsync speaks HTTP CONNECT to RSYNC_PROXY and takes user:pass@
		 * without percent-decoding (base64 and hex need none) */
		snprintf(buf, sizeof(buf), "%s%s%s%s%s:%d", token && *token ? user : "",
			 token && *token ? ":" : "", token && *token ? token : "",
			 token && *token ? "@" : "", host, http_port);
		PUSH("RSYNC_PROXY", buf);
		PUSH("DOCKER_HTTP_PROXY", http_url);
		PUSH("DOCKER_HTTPS_PROXY", http_url);
		PUSH("CLOUDSDK_PROXY_TYPE", "http");
		PUSH("CLOUDSDK_PROXY_ADDRESS", host);
		snprintf(buf, sizeof(buf), "%d", http_port);
		PUSH("CLOUDSDK_PROXY_PORT", buf);
		if (token && *token) {
			PUSH("CLOUDSDK_PROXY_USERNAME", user);
			PUSH("CLOUDSDK_PROXY_PASSWORD", token);
		}
	}
#undef PUSH
	return SRT_OK;
}
