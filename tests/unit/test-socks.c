/* SOCKS5 messages, the SSH refusal bytes and proxy authentication. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proxies/auth.h"
#include "proxies/proxy.h"
#include "proxies/socks.h"
#include "tests/unit/tap.h"

static void test_socks(void)
{
	uint32_t offers;
	const char *u, *p;
	size_t ul, pl;
	struct srt__socks_request r;
	int bad;
	uint8_t rep[10];

	ok(srt__socks_parse_greeting((const uint8_t *)"\x05\x02\x00\x02", 4, &offers) == 4 &&
	   offers == 5, "greeting offers 0 and 2");
	ok(srt__socks_parse_greeting((const uint8_t *)"\x05\x02\x00", 3, &offers) == 0,
	   "short greeting needs more");
	ok(srt__socks_parse_greeting((const uint8_t *)"\x04\x01", 2, &offers) == -1,
	   "SOCKS4 refused");
	ok(srt__socks_parse_auth((const uint8_t *)"\x01\x03srt\x02pw", 8, &u, &ul, &p, &pl) == 8 &&
	   ul == 3 && pl == 2 && !memcmp(p, "pw", 2), "RFC 1929 user/password");
	ok(srt__socks_parse_request((const uint8_t *)"\x05\x01\x00\x01\x7f\x00\x00\x01\x1f\x90",
				    10, &r, &bad) == 10 && !strcmp(r.host, "127.0.0.1") &&
	   r.port == 8080 && r.cmd == 1, "IPv4 request");
	ok(srt__socks_parse_request((const uint8_t *)"\x05\x01\x00\x03\x05" "a.com\x01\xbb",
				    12, &r, &bad) == 12 && !strcmp(r.host, "a.com") && r.port == 443,
	   "domain request");
	ok(srt__socks_parse_request((const uint8_t *)"\x05\x01\x00\x03\x05" "a\0com\x01\xbb",
				    12, &r, &bad) == -1, "NUL in a domain refused");
	ok(srt__socks_parse_request((const uint8_t *)
				    "\x05\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x16",
				    22, &r, &bad) == 22 &&
	   !strcmp(r.host, "0000:0000:0000:0000:0000:0000:0000:0001") && r.port == 22,
	   "IPv6 request as 8 groups");
	ok(srt__socks_parse_request((const uint8_t *)"\x05\x01\x00\x09\x00", 5, &r, &bad) == -1 &&
	   bad, "unknown address type flagged");
	srt__socks_reply(rep, 2);
	ok(!memcmp(rep, "\x05\x02\x00\x01\x00\x00\x00\x00\x00\x00", 10), "deny reply bytes");
}

static void test_ssh(void)
{
	uint8_t out[2048];
	const char *desc = "SSH pushes to GitHub are blocked; use an https:// remote";
	size_t n = srt__ssh_refusal(desc, out, sizeof(out));
	static const uint8_t want[] = "SSH-2.0-policy_refusal\r\n\x00\x00\x00L\x06\x01"
				      "\x00\x00\x00\x01\x00\x00\x00" "8";

	ok(n == 24 + 4 + 76, "refusal length (%zu)", n);
	ok(!memcmp(out, want, sizeof(want) - 1), "refusal bytes match the reference");
	ok(!memcmp(out + 24 + 14, desc, strlen(desc)), "description carried");
	ok((n - 24) % 8 == 0, "packet is a multiple of 8");
	n = srt__ssh_refusal("a\r\n\tb\x7f", out, sizeof(out));
	ok(out[24 + 13] == 4 && !memcmp(out + 24 + 14, "a b ", 4), "control runs collapsed");
}

static void test_auth(void)
{
	char enc[64], *key = NULL;
	uint8_t dec[64];
	size_t n;

	srt__b64_encode((const uint8_t *)"srt:tok", 7, enc, sizeof(enc));
	ok(!strcmp(enc, "c3J0OnRvaw=="), "base64 encode");
	ok(srt__b64_decode("c3J0OnRvaw==", 12, dec, sizeof(dec), &n) == 0 && n == 7 &&
	   !memcmp(dec, "srt:tok", 7), "base64 decode");
	ok(srt__b64_decode("c3J0OnRvaw", 10, dec, sizeof(dec), &n) == 0 && n == 7,
	   "base64 without padding");
	ok(srt__b64_decode("c3J0O*Rvaw==", 12, dec, sizeof(dec), &n) == -1, "bad character");
	ok(srt__b64_decode("c", 1, dec, sizeof(dec), &n) == -1, "bad length");

	ok(srt__auth_basic_check("Basic c3J0OnRvaw==", 18, "tok", &key) && key == NULL,
	   "Basic with user srt and the token");
	ok(!srt__auth_basic_check("Basic c3J0OnRvaw==", 18, "tok2", &key), "wrong token");
	srt__b64_encode((const uint8_t *)":tok", 4, enc, sizeof(enc));
	ok(!srt__auth_basic_check(enc, strlen(enc), "tok", &key), "not Basic");
	{
		char v[80];
		snprintf(v, sizeof(v), "Basic %s", enc);
		ok(!srt__auth_basic_check(v, strlen(v), "tok", &key), "empty user refused");
	}
	ok(srt__auth_basic_check("bAsIc   c3J0OnRvaw==  ", 22, "tok", &key), "scheme case, spaces");
	ok(!srt__auth_basic_check("Basic c3J0OnRvaw==", 18, "", &key), "empty token never matches");
	{
		/* user srt.<b64("npm test")> */
		char user[80], cred[128], v[200];
		srt__b64_encode((const uint8_t *)"npm test", 8, enc, sizeof(enc));
		snprintf(user, sizeof(user), "srt.%s", enc);
		snprintf(cred, sizeof(cred), "%s:tok", user);
		srt__b64_encode((const uint8_t *)cred, strlen(cred), enc, sizeof(enc));
		snprintf(v, sizeof(v), "Basic %s", enc);
		ok(srt__auth_basic_check(v, strlen(v), "tok", &key) && key &&
		   !strcmp(key, "npm test"), "attribution decoded from the user");
		free(key);
		key = NULL;
		ok(srt__auth_socks_check(user, strlen(user), "tok", 3, "tok", &key) && key &&
		   !strcmp(key, "npm test"), "SOCKS user srt.<b64>");
		free(key);
	}
	ok(srt__auth_socks_check("srt", 3, "tok", 3, "tok", &key) && !key, "SOCKS user srt");
	ok(!srt__auth_socks_check("bob", 3, "tok", 3, "tok", &key), "SOCKS other user refused");
	ok(!srt__auth_socks_check("srt", 3, "tok ", 4, "tok", &key), "SOCKS wrong password");
	ok(srt__auth_user_key("srt.AA==", 8) == NULL, "a key with a NUL byte is dropped");
	key = srt__auth_user_key("srt.YQpi", 8);
	ok(key && !strcmp(key, "a\nb"), "a multi-line command key is kept byte-exact");
	free(key);
	key = NULL;
	key = srt__auth_user_key("srt.bnBtIHRlc3Q%3D", 18);
	ok(key && !strcmp(key, "npm test"), "a still percent-encoded user is understood");
	free(key);
	key = NULL;
	ok(srt__token_equal("abc", 3, "abc") && !srt__token_equal("abd", 3, "abc") &&
	   !srt__token_equal("ab", 2, "abc"), "token comparison");
}

static const char *env_get(const struct srt__strv *v, const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; i < v->n; i++)
		if (!strncmp(v->v[i], name, l) && v->v[i][l] == '=')
			return v->v[i] + l + 1;
	return NULL;
}

static void test_env(void)
{
	struct srt__strv v = {0};
	char user[300];
	const char *x;

	srt__proxy_user(NULL, user, sizeof(user));
	ok(!strcmp(user, "srt"), "no command key: user srt");
	srt__proxy_user("npm test", user, sizeof(user));
	ok(!strcmp(user, "srt.bnBtIHRlc3Q="), "user carries base64 of the key (%s)", user);
	ok(srt__proxy_env(&v, user, "tok", 3128, 1080, "/usr/lib/srt/backends/srt-connect") == 0,
	   "environment built");
	x = env_get(&v, "HTTPS_PROXY");
	ok(x && !strcmp(x, "http://srt.bnBtIHRlc3Q%3D:tok@localhost:3128"),
	   "HTTPS_PROXY with the user percent-encoded (%s)", x ? x : "");
	ok(env_get(&v, "http_proxy") && env_get(&v, "ALL_PROXY") && env_get(&v, "grpc_proxy") &&
	   env_get(&v, "DOCKER_HTTPS_PROXY"), "the proxy variables are all there");
	x = env_get(&v, "NO_PROXY");
	ok(x && !strcmp(x, "localhost,127.0.0.1,::1"), "NO_PROXY is loopback only");
	x = env_get(&v, "FTP_PROXY");
	ok(x && !strncmp(x, "socks5h://", 10) && strstr(x, "@localhost:1080"), "FTP_PROXY socks5h");
	x = env_get(&v, "GIT_SSH_COMMAND");
	ok(x && !strcmp(x, "ssh -o ControlMaster=no -o ControlPath=none -o "
			"ProxyCommand='/usr/lib/srt/backends/srt-connect %h %p'"),
	   "GIT_SSH_COMMAND uses srt-connect");
	x = env_get(&v, "GIT_CONFIG_PARAMETERS");
	ok(x && !strcmp(x, "'http.proxyAuthMethod=basic'"), "git proxy auth method");
	ok(env_get(&v, "SANDBOX_RUNTIME") && env_get(&v, "CLOUDSDK_PROXY_PASSWORD") &&
	   env_get(&v, "RSYNC_PROXY"), "SANDBOX_RUNTIME, CLOUDSDK_*, RSYNC_PROXY");
	srt__strv_release(&v);
	ok(srt__proxy_env(&v, "srt", "tok", 3128, 1080, "/tmp/a b/srt-connect") != 0,
	   "a helper path needing shell quoting is refused");
	srt__strv_release(&v);
	/* the proxy on a loopback port (Windows): one listener for both, at
	 * 127.0.0.1, the token in every URL */
	ok(srt__proxy_env_at(&v, "127.0.0.1", "srt", "tok", 60081, 60081, NULL) == 0,
	   "environment built for a proxy at 127.0.0.1");
	x = env_get(&v, "HTTPS_PROXY");
	ok(x && !strcmp(x, "http://srt:tok@127.0.0.1:60081"), "HTTPS_PROXY at 127.0.0.1 (%s)", x ? x : "");
	x = env_get(&v, "ALL_PROXY");
	ok(x && !strcmp(x, "http://srt:tok@127.0.0.1:60081"), "ALL_PROXY too (%s)", x ? x : "");
	x = env_get(&v, "FTP_PROXY");
	ok(x && !strcmp(x, "socks5h://srt:tok@127.0.0.1:60081"), "FTP_PROXY socks5h (%s)", x ? x : "");
	x = env_get(&v, "RSYNC_PROXY");
	ok(x && !strcmp(x, "srt:tok@127.0.0.1:60081"), "RSYNC_PROXY (%s)", x ? x : "");
	x = env_get(&v, "CLOUDSDK_PROXY_ADDRESS");
	ok(x && !strcmp(x, "127.0.0.1") && !env_get(&v, "GIT_SSH_COMMAND"),
	   "CLOUDSDK_PROXY_ADDRESS, and no GIT_SSH_COMMAND without srt-connect");
	srt__strv_release(&v);
	/* srt-connect.exe on Windows: its drive path (libsrt/platform.h,
	 * srt__plat_program_spell) double-quoted inside the single quotes,
	 * so "Program Files (x86)" stays one word to both shells */
	ok(srt__proxy_env_at(&v, "127.0.0.1", "srt", "tok", 60081, 60081,
			     "C:/Program Files (x86)/srt/srt-connect.exe") == 0,
	   "environment built with a Windows srt-connect.exe");
	x = env_get(&v, "GIT_SSH_COMMAND");
	ok(x && !strcmp(x, "ssh -o ControlMaster=no -o ControlPath=none -o "
			"ProxyCommand='\"C:/Program Files (x86)/srt/srt-connect.exe\" %h %p'"),
	   "GIT_SSH_COMMAND names srt-connect.exe by its drive path, quoted (%s)", x ? x : "");
	srt__strv_release(&v);
	{
		/* what either shell would read, a backslash path, a drive
		 * path without its root, a space in a POSIX path */
		static const char *const bad[] = {
			"C:/srt/$(id)/srt-connect.exe", "C:/srt/a\"b/srt-connect.exe",
			"C:/srt/`id`/srt-connect.exe", "C:/srt/a'b/srt-connect.exe",
			"C:\\srt\\srt-connect.exe", "C:srt/srt-connect.exe",
			"1:/srt/srt-connect.exe", "/tmp/a (b)/srt-connect",
			"C:/srt/a;b/srt-connect.exe", "C:/srt/a&b/srt-connect.exe",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ok(srt__proxy_env_at(&v, "127.0.0.1", "srt", "tok", 60081, 60081, bad[i]) != 0,
			   "helper path %s is refused", bad[i]);
			srt__strv_release(&v);
		}
	}
}

int main(void)
{
	TAP_RUN(test_env);
	TAP_RUN(test_socks);
	TAP_RUN(test_ssh);
	TAP_RUN(test_auth);
	return tap_done();
}
