/* Settings parsing, validation and file loading: JSON and YAML. TAP output.
 *
 * Every refused document is also fed to the YAML reader (JSON is a subset
 * of YAML's flow style), which must refuse it with the same key path and
 * the same message: the two readers share one validator. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsrt/settings.h"

#ifndef SETTINGS_FIXTURES
#define SETTINGS_FIXTURES "tests/fixtures/settings"
#endif

static int n_test, n_fail;

#define ok(cond, ...) do { \
	n_test++; \
	if (cond) { printf("ok %d - ", n_test); } \
	else { printf("not ok %d - ", n_test); n_fail++; } \
	printf(__VA_ARGS__); printf("\n"); \
} while (0)

#define skip(reason, ...) do { \
	n_test++; \
	printf("ok %d - ", n_test); printf(__VA_ARGS__); printf(" # SKIP %s\n", reason); \
} while (0)

#define ORIGIN "settings.json"
#define NETD "\"allowedDomains\":[],\"deniedDomains\":[]"
#define FSD "\"denyRead\":[],\"allowWrite\":[],\"denyWrite\":[]"
/* A document from a network body, a filesystem body and more top keys. */
#define DOC(net, fs, rest) "{\"network\":{" net "},\"filesystem\":{" fs "}" rest "}"
#define NET(x) DOC(NETD "," x, FSD, "")
#define FS(x) DOC(NETD, FSD "," x, "")
#define TOP(x) DOC(NETD, FSD, "," x)

static int parse_json(struct srt__settings *s, const char *text, struct srt_diag *d)
{
	srt__settings_init(s);
	memset(d, 0, sizeof(*d));
	return srt__settings_parse_json(s, text, strlen(text), ORIGIN, d);
}

static int parse_yaml(struct srt__settings *s, const char *text, struct srt_diag *d)
{
	srt__settings_init(s);
	memset(d, 0, sizeof(*d));
	return srt__settings_parse_yaml(s, text, strlen(text), ORIGIN, d);
}

static bool has_warning(const struct srt__settings *s, const char *needle)
{
	size_t i;

	for (i = 0; i < s->warnings.n; i++)
		if (strstr(s->warnings.v[i], needle))
			return true;
	return false;
}

static bool strv_has(const struct srt__strv *v, const char *x)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], x) == 0)
			return true;
	return false;
}

/* Accepted by both readers; returns true when JSON accepted it. */
static bool good(const char *text, const char *what)
{
	struct srt__settings s, y;
	struct srt_diag d, dy;
	int rc = parse_json(&s, text, &d), ry = parse_yaml(&y, text, &dy);

	ok(rc == SRT_OK && ry == SRT_OK, "accepted: %s%s%s%s%s", what, rc ? " | json: " : "",
	   rc ? d.message : "", ry ? " | yaml: " : "", ry ? dy.message : "");
	srt__settings_release(&s);
	srt__settings_release(&y);
	return rc == SRT_OK;
}

/* Refused by both readers, with `key` as the key path, a message of the
 * form "settings.json: <key>: ..." that contains `needle`, and the YAML
 * reader's error identical to the JSON one. */
static void bad(const char *text, const char *key, const char *needle, const char *what)
{
	struct srt__settings s, y;
	struct srt_diag d, dy;
	char prefix[600];
	int rc = parse_json(&s, text, &d), ry = parse_yaml(&y, text, &dy);

	snprintf(prefix, sizeof(prefix), "%s: %s: ", ORIGIN, key);
	ok(rc == SRT_E_SETTINGS && strcmp(d.key, key) == 0 &&
	   strncmp(d.message, prefix, strlen(prefix)) == 0 && strstr(d.message, needle),
	   "refused: %s [key %s] -> %s", what, d.key, d.message);
	ok(ry == rc && strcmp(dy.key, d.key) == 0 && strcmp(dy.message, d.message) == 0,
	   "yaml parity: %s%s%s", what, strcmp(dy.message, d.message) ? " | yaml: " : "",
	   strcmp(dy.message, d.message) ? dy.message : "");
	/* On failure the settings are released back to the defaults. */
	ok(s.allowed_domains.n == 0 && s.mandatory_deny_search_depth == 3 && !s.warnings.n,
	   "released after failure: %s", what);
	srt__settings_release(&s);
	srt__settings_release(&y);
}

/* One refused document for bad(): the text, the key path, a piece of the
 * message and the case's name. */
struct bad_case {
	const char *text, *key, *needle, *what;
};

/* bad() for each case of a table that ends with a NULL text, in order. */
static void bad_all(const struct bad_case *c)
{
	for (; c->text; c++)
		bad(c->text, c->key, c->needle, c->what);
}

static void test_minimal_and_defaults(void)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc;

	rc = parse_json(&s, DOC(NETD, FSD, ""), &d);
	ok(rc == SRT_OK, "minimal document accepted (%s)", d.message);
	ok(s.mandatory_deny_search_depth == 3 && s.tls_max_tunnels == 256 &&
	   s.tls_handshake_timeout_ms == 10000, "defaults: depth 3, maxTunnels 256, timeout 10000");
	ok(!s.fs_disabled && !s.has_tls_terminate && !s.has_mitm_proxy && !s.has_credentials &&
	   !s.has_filters && !s.has_windows && s.http_proxy_port == 0 && !s.bwrap_path &&
	   !s.ambiguous_request_target && !s.private_addresses, "defaults: optional sections absent");
	ok(s.warnings.n == 0 && s.ignored_keys.n == 0, "no warnings for a clean document");
	srt__settings_release(&s);

	srt__settings_init(&s);
	ok(s.mandatory_deny_search_depth == 3 && s.allowed_domains.n == 0,
	   "srt__settings_init gives the defaults");
	srt__settings_release(&s);
	srt__settings_release(&s);
	ok(s.mandatory_deny_search_depth == 3, "release twice is harmless");
}

static void test_full_values(void)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc;

	rc = parse_json(&s, DOC(
		"\"allowedDomains\":[\"example.com\",\"*.github.com\",\"[::1]:443\",\"localhost:3000\"],"
		"\"deniedDomains\":[\"*:22\",\"evil.com\"],"
		"\"deniedDomainReasons\":{\"evil.com\":\"known bad\"},"
		"\"strictAllowlist\":true,"
		"\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"fc00::/7\"],"
		"\"allowUnixSockets\":[\"/var/run/docker.sock\"],"
		"\"allowAllUnixSockets\":false,\"allowLocalBinding\":true,"
		"\"allowMachLookup\":[\"com.example.*\"],"
		"\"httpProxyPort\":3128,\"socksProxyPort\":1080,"
		"\"allowPlaintextHeaderSet\":true,\"stripResponseHeaders\":[\"x-secret\"],"
		"\"refuseOpaqueTunnels\":true,\"requireHostMatch\":true,"
		"\"ambiguousRequestTarget\":\"normalize\",\"privateAddresses\":\"refuse\","
		"\"tlsTerminate\":{\"caCertPath\":\"/ca.pem\",\"caKeyPath\":\"/ca.key\","
		"\"excludeDomains\":[\"*.bank.test\"],\"extraCaCertPaths\":[\"/x.pem\"],"
		"\"maxTunnels\":65536,\"handshakeTimeoutMs\":100},"
		"\"parentProxy\":{\"http\":\"http://proxy:3128\",\"https\":\"https://u:p@proxy:8443\","
		"\"noProxy\":\"localhost\"},"
		"\"filters\":[{\"plugin\":\"audit\",\"config\":{\"a\":[1,true,null,\"x\\\"y\"],\"n\":1.5}},"
		"{\"plugin\":\"/abs/rules.so\"}]",
		"\"disabled\":false,\"denyRead\":[\"~/.ssh\",{\"path\":\"/a[b]\",\"literal\":true}],"
		"\"allowRead\":[\"~/.ssh/known_hosts\"],\"allowWrite\":[\".\"],\"denyWrite\":[\"./x\"],"
		"\"allowGitConfig\":true",
		",\"ignoreViolations\":{\"*\":[\"a\"],\"npm test\":[\"b\",\"c\"]},"
		"\"enableWeakerNestedSandbox\":true,\"allowNestedUserNamespaces\":true,"
		"\"enableWeakerNetworkIsolation\":true,\"allowAppleEvents\":true,"
		"\"mandatoryDenySearchDepth\":10,\"allowPty\":true,\"bwrapPath\":\"/usr/bin/bwrap\","
		"\"socatPath\":\"/usr/bin/socat\",\"javaAgentJarPath\":\"/j.jar\","
		"\"ripgrep\":{\"command\":\"rg\",\"args\":[\"--hidden\"]},"
		"\"seccomp\":{\"applyPath\":\"/x\",\"argv0\":\"y\"},"
		"\"git\":{\"safeDirectories\":[\"/repo\"]},"
		"\"windows\":{\"backend\":\"srt-win\",\"sandboxUser\":\"srt-sandbox\","
		"\"sublayerGuid\":\"12345678-1234-1234-1234-123456789abc\","
		"\"proxyPortRange\":[60080,60089],\"srtWin\":{\"path\":\"C:/srt-win.exe\"}}"), &d);
	ok(rc == SRT_OK, "full document accepted (%s)", d.message);
	if (rc != SRT_OK)
		return;
	ok(s.allowed_domains.n == 4 && !strcmp(s.allowed_domains.v[2], "[::1]:443") &&
	   s.allowed_domains.v[4] == NULL, "allowedDomains kept as spelled, NULL-terminated");
	ok(s.denied_domains.n == 2 && s.n_denied_domain_reasons == 1 &&
	   !strcmp(s.denied_domain_reasons[0].key, "evil.com") &&
	   !strcmp(s.denied_domain_reasons[0].value, "known bad"), "deniedDomainReasons");
	ok(s.strict_allowlist && s.denied_resolved_addresses.n == 2 && s.allow_unix_sockets.n == 1 &&
	   !s.allow_all_unix_sockets && s.allow_local_binding && s.allow_mach_lookup.n == 1,
	   "network booleans and lists");
	ok(s.http_proxy_port == 3128 && s.socks_proxy_port == 1080, "proxy ports");
	ok(s.allow_plaintext_header_set && s.strip_response_headers.n == 1 &&
	   s.refuse_opaque_tunnels && s.require_host_match &&
	   !strcmp(s.ambiguous_request_target, "normalize") &&
	   !strcmp(s.private_addresses, "refuse"), "request handling keys");
	ok(s.has_tls_terminate && !strcmp(s.tls_ca_cert_path, "/ca.pem") &&
	   !strcmp(s.tls_ca_key_path, "/ca.key") && s.tls_exclude_domains.n == 1 &&
	   s.tls_extra_ca_cert_paths.n == 1 && s.tls_max_tunnels == 65536 &&
	   s.tls_handshake_timeout_ms == 100, "tlsTerminate");
	ok(s.has_parent_proxy && !strcmp(s.parent_http, "http://proxy:3128") &&
	   !strcmp(s.parent_https, "https://u:p@proxy:8443") &&
	   !strcmp(s.parent_no_proxy, "localhost"), "parentProxy");
	ok(s.has_filters && s.n_filters == 2 && !strcmp(s.filters[0].plugin, "audit") &&
	   s.filters[0].config_json &&
	   !strcmp(s.filters[0].config_json, "{\"a\":[1,true,null,\"x\\\"y\"],\"n\":1.5}") &&
	   !s.filters[1].config_json, "filters with config re-serialised: %s",
	   s.filters[0].config_json ? s.filters[0].config_json : "(null)");
	ok(!s.fs_disabled && s.deny_read.n == 2 && !s.deny_read.v[0].literal &&
	   s.deny_read.v[1].literal && !strcmp(s.deny_read.v[1].path, "/a[b]") &&
	   s.allow_read.n == 1 && s.allow_write.n == 1 && s.deny_write.n == 1 && s.allow_git_config,
	   "filesystem entries incl. literal object");
	ok(s.n_ignore_violations == 2 && !strcmp(s.ignore_violations[1].command_pattern, "npm test") &&
	   s.ignore_violations[1].lines.n == 2, "ignoreViolations");
	ok(s.enable_weaker_nested_sandbox && s.allow_nested_user_namespaces &&
	   s.enable_weaker_network_isolation && s.allow_apple_events && s.allow_pty &&
	   s.mandatory_deny_search_depth == 10 && !strcmp(s.bwrap_path, "/usr/bin/bwrap"),
	   "top-level flags");
	ok(strv_has(&s.ignored_keys, "ripgrep") && strv_has(&s.ignored_keys, "socatPath") &&
	   strv_has(&s.ignored_keys, "seccomp") && strv_has(&s.ignored_keys, "javaAgentJarPath") &&
	   s.ignored_keys.n == 4, "compatibility keys recorded in ignored_keys");
	ok(s.git_safe_directories.n == 1 && s.has_windows, "git and windows");
	ok(s.warnings.n == 0, "no warnings (%zu)", s.warnings.n);
	srt__settings_release(&s);
}

static void test_required(void)
{
	bad_all((const struct bad_case[]){
		{ "[]", "(root)", "expected an object, got an array", "root is an array" },
		{ "\"x\"", "(root)", "expected an object, got string \"x\"", "root is a string" },
		{ "null", "(root)", "expected an object, got null", "root is null" },
		{ "{\"filesystem\":{" FSD "}}", "network", "required key is missing", "no network" },
		{ "{\"network\":{" NETD "}}", "filesystem", "required key is missing", "no filesystem" },
		{ DOC("\"deniedDomains\":[]", FSD, ""), "network.allowedDomains", "required key is missing",
		  "no allowedDomains" },
		{ DOC("\"allowedDomains\":[]", FSD, ""), "network.deniedDomains", "required key is missing",
		  "no deniedDomains" },
		{ DOC(NETD, "\"allowWrite\":[],\"denyWrite\":[]", ""), "filesystem.denyRead",
		  "required key is missing", "no denyRead" },
		{ DOC(NETD, "\"denyRead\":[],\"denyWrite\":[]", ""), "filesystem.allowWrite",
		  "required key is missing", "no allowWrite" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[]", ""), "filesystem.denyWrite",
		  "required key is missing", "no denyWrite" },
		{ "{\"network\":[],\"filesystem\":{" FSD "}}", "network", "expected an object, got an array",
		  "network is an array" },
		{ "{\"network\":{" NETD "},\"filesystem\":true}", "filesystem",
		  "expected an object, got boolean true", "filesystem is a boolean" },
		{ NULL },
	});
}

static void test_domains(void)
{
	struct srt__settings s;
	struct srt_diag d;

	bad(DOC("\"allowedDomains\":[\"a.com\",\"b.com\",\"*.com\"],\"deniedDomains\":[]", FSD, ""),
	    "network.allowedDomains[2]",
	    "\"*.com\" is too broad: Invalid domain pattern. Must be a valid domain", "*.com");
	parse_json(&s, DOC("\"allowedDomains\":[\"a.com\",\"b.com\",\"*.com\"],\"deniedDomains\":[]",
			   FSD, ""), &d);
	ok(!strncmp(d.message, "settings.json: network.allowedDomains[2]: \"*.com\" is too broad: "
		    "Invalid domain pattern. Must be", 95), "exact message shape: %s", d.message);
	bad_all((const struct bad_case[]){
		{ DOC("\"allowedDomains\":[\"evil.com:443.allowed.com\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"evil.com:443.allowed.com\"", "port smuggling" },
		{ DOC("\"allowedDomains\":[\"a.b:0\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"a.b:0\"", "port 0" },
		{ DOC("\"allowedDomains\":[\"a.b:080\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"a.b:080\"", "port 080" },
		{ DOC("\"allowedDomains\":[\"2001:db8::1\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "without brackets", "unbracketed IPv6" },
		{ DOC("\"allowedDomains\":[\"not-a-domain\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"not-a-domain\"", "no dot" },
		{ DOC("\"allowedDomains\":[\"https://example.com\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"https://example.com\" is a URL", "URL" },
		{ DOC("\"allowedDomains\":[\"*\"],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "\"*\" is too broad", "* in allowedDomains" },
		{ DOC("\"allowedDomains\":\"example.com\",\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains", "expected an array of strings, got string \"example.com\"",
		  "allowedDomains is a string" },
		{ DOC("\"allowedDomains\":[5],\"deniedDomains\":[]", FSD, ""),
		  "network.allowedDomains[0]", "expected a string, got number 5", "number entry" },
		{ DOC("\"allowedDomains\":[],\"deniedDomains\":[\"*.com\"]", FSD, ""),
		  "network.deniedDomains[0]", "In deniedDomains a bare \"*\" (deny-all) is also accepted",
		  "*.com in deniedDomains" },
		{ NULL },
	});
	good(DOC("\"allowedDomains\":[\"[::1]:443\",\"127.0.0.1\",\"a.b:65535\",\"*.a.b\","
		 "\"localhost\",\"localhost:3000\"],\"deniedDomains\":[\"*\",\"*:22\",\"[2001:db8::1]\"]",
		 FSD, ""), "accepted domain pattern examples");
	bad_all((const struct bad_case[]){
		{ NET("\"mitmProxy\":{\"socketPath\":\"/s\",\"domains\":[\"ok.com\",\"*.com\"]}"),
		  "network.mitmProxy.domains[1]", "too broad", "mitm domains checked" },
		{ NET("\"tlsTerminate\":{\"excludeDomains\":[\"bad\"]}"),
		  "network.tlsTerminate.excludeDomains[0]", "\"bad\"", "excludeDomains checked" },
		{ NULL },
	});
}

static void test_network_rules(void)
{
	struct srt__settings s;
	struct srt_diag d;

	good(NET("\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"192.168.1.10\",\"fc00::/7\","
		 "\"fe80::1%eth0\",\"::ffff:10.0.0.0/104\",\"::/0\",\"0.0.0.0/0\"]"),
	     "deniedResolvedAddresses IP/CIDR forms");
	bad_all((const struct bad_case[]){
		{ NET("\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"[::1]\"]"),
		  "network.deniedResolvedAddresses[1]", "\"[::1]\" is not valid: Invalid IP address or CIDR "
		  "range. Use an IPv4/IPv6 literal or CIDR, e.g. \"10.0.0.0/8\"", "bracketed address" },
		{ NET("\"deniedResolvedAddresses\":[\"10.0.0.0/33\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "prefix > 32" },
		{ NET("\"deniedResolvedAddresses\":[\"::/129\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "prefix > 128" },
		{ NET("\"deniedResolvedAddresses\":[\"::ffff:0:0/95\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "mapped prefix < 96" },
		{ NET("\"deniedResolvedAddresses\":[\"example.com\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "a name" },
		{ NET("\"deniedResolvedAddresses\":[\"10.0.0.0/\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "empty prefix" },
		{ NET("\"deniedResolvedAddresses\":[\"10.1/8\"]"),
		  "network.deniedResolvedAddresses[0]", "Invalid IP address or CIDR", "shorthand IPv4" },
		{ NULL },
	});

	good(NET("\"allowMachLookup\":[\"com.example.*\",\"*\",\"com.apple.x\"]"),
	     "allowMachLookup trailing *");
	bad_all((const struct bad_case[]){
		{ NET("\"allowMachLookup\":[\"com.*.x\"]"), "network.allowMachLookup[0]",
		  "Wildcards are only allowed as a single trailing \"*\" (e.g., \"com.example.*\" or \"*\" "
		  "for all services).", "mach lookup inner *" },
		{ NET("\"allowMachLookup\":[\"**\"]"), "network.allowMachLookup[0]",
		  "Wildcards are only allowed", "mach lookup **" },
		{ NULL },
	});

	good(NET("\"httpProxyPort\":1,\"socksProxyPort\":65535"), "proxy ports at the bounds");
	bad_all((const struct bad_case[]){
		{ NET("\"httpProxyPort\":0"), "network.httpProxyPort",
		  "0 is out of range: Number must be greater than or equal to 1", "httpProxyPort 0" },
		{ NET("\"httpProxyPort\":65536"), "network.httpProxyPort",
		  "65536 is out of range: Number must be less than or equal to 65535", "httpProxyPort 65536" },
		{ NET("\"socksProxyPort\":1080.5"), "network.socksProxyPort",
		  "expected an integer, got number 1080.5", "fractional port" },
		{ NET("\"socksProxyPort\":\"1080\""), "network.socksProxyPort",
		  "expected an integer, got string \"1080\"", "port as string" },
		{ NET("\"httpProxyPort\":0.1"), "network.httpProxyPort", "expected an integer, got number 0.1",
		  "short number spelling in messages" },
		{ NET("\"httpProxyPort\":1e400"), "network.httpProxyPort", "expected an integer, got number inf",
		  "overflowing number" },
		{ NET("\"httpProxyPort\":-1"), "network.httpProxyPort", "greater than or equal to 1",
		  "negative port" },
		{ NET("\"strictAllowlist\":\"yes\""), "network.strictAllowlist",
		  "expected a boolean, got string \"yes\"", "bool as string" },
		{ NET("\"allowLocalBinding\":1"), "network.allowLocalBinding",
		  "expected a boolean, got number 1", "bool as number" },
		{ NET("\"allowAllUnixSockets\":null"), "network.allowAllUnixSockets",
		  "expected a boolean, got null", "null bool" },
		{ NULL },
	});

	good(NET("\"mitmProxy\":{\"socketPath\":\"/run/mitm.sock\",\"domains\":[\"*.corp.test\"]}"),
	     "mitmProxy");
	bad_all((const struct bad_case[]){
		{ NET("\"mitmProxy\":{\"socketPath\":\"/s\",\"domains\":[]}"), "network.mitmProxy.domains",
		  "Array must contain at least 1 element(s)", "mitm domains empty" },
		{ NET("\"mitmProxy\":{\"socketPath\":\"\",\"domains\":[\"a.com\"]}"),
		  "network.mitmProxy.socketPath", "String must contain at least 1 character(s)",
		  "mitm socketPath empty" },
		{ NET("\"mitmProxy\":{\"domains\":[\"a.com\"]}"), "network.mitmProxy.socketPath",
		  "required key is missing", "mitm socketPath missing" },
		{ NET("\"mitmProxy\":{\"socketPath\":\"/s\",\"domains\":[\"a.com\"]},\"tlsTerminate\":{}"),
		  "network", "network.tlsTerminate and network.mitmProxy are mutually exclusive",
		  "mitm + tls" },
		{ NULL },
	});

	parse_json(&s, NET("\"tlsTerminate\":{}"), &d);
	ok(s.has_tls_terminate && !s.tls_ca_cert_path && s.tls_max_tunnels == 256 &&
	   s.tls_handshake_timeout_ms == 10000, "empty tlsTerminate enables termination with defaults");
	srt__settings_release(&s);
	bad_all((const struct bad_case[]){
		{ NET("\"tlsTerminate\":{\"caCertPath\":\"/ca.pem\"}"), "network.tlsTerminate",
		  "caCertPath and caKeyPath must be provided together", "caCertPath alone" },
		{ NET("\"tlsTerminate\":{\"caKeyPath\":\"/ca.key\"}"), "network.tlsTerminate",
		  "caCertPath and caKeyPath must be provided together", "caKeyPath alone" },
		{ NET("\"tlsTerminate\":{\"caCertPath\":\"\",\"caKeyPath\":\"/k\"}"),
		  "network.tlsTerminate.caCertPath", "String must contain at least 1 character(s)",
		  "empty caCertPath" },
		{ NET("\"tlsTerminate\":{\"maxTunnels\":0}"), "network.tlsTerminate.maxTunnels",
		  "greater than or equal to 1", "maxTunnels 0" },
		{ NET("\"tlsTerminate\":{\"maxTunnels\":65537}"), "network.tlsTerminate.maxTunnels",
		  "less than or equal to 65536", "maxTunnels 65537" },
		{ NET("\"tlsTerminate\":{\"handshakeTimeoutMs\":99}"),
		  "network.tlsTerminate.handshakeTimeoutMs", "greater than or equal to 100", "timeout 99" },
		{ NET("\"tlsTerminate\":{\"handshakeTimeoutMs\":600001}"),
		  "network.tlsTerminate.handshakeTimeoutMs", "less than or equal to 600000",
		  "timeout 600001" },
		{ NULL },
	});
	good(NET("\"tlsTerminate\":{\"handshakeTimeoutMs\":600000,\"maxTunnels\":1}"),
	     "tls bounds inclusive");

	good(NET("\"parentProxy\":{\"http\":\"http://proxy.local:3128\",\"https\":\"proxy.local:3128\"}"),
	     "parentProxy urls");
	bad_all((const struct bad_case[]){
		{ NET("\"parentProxy\":{\"http\":\"socks5://p:1080\"}"), "network.parentProxy.http",
		  "\"socks5://p:1080\" is not valid: Invalid url", "socks5 parent" },
		{ NET("\"parentProxy\":{\"https\":\"notaurl\"}"), "network.parentProxy.https",
		  "Invalid url", "not a url" },
		{ NET("\"parentProxy\":{\"http\":\"http://\"}"), "network.parentProxy.http",
		  "Invalid url (it names no host)", "url without host" },
		{ NET("\"parentProxy\":{\"http\":\"http://a b:1\"}"), "network.parentProxy.http",
		  "Invalid url", "url with a space" },
		{ NET("\"parentProxy\":{\"noProxy\":5}"), "network.parentProxy.noProxy",
		  "expected a string, got number 5", "noProxy number" },
		{ NULL },
	});

	good(NET("\"ambiguousRequestTarget\":\"asSpelled\""), "ambiguousRequestTarget");
	good(NET("\"privateAddresses\":\"refuse\""), "privateAddresses refuse");
	good(NET("\"privateAddresses\":\"allow\""), "privateAddresses allow");
	good(NET("\"privateAddresses\":\"refuseForWildcards\""), "privateAddresses refuseForWildcards");
	bad_all((const struct bad_case[]){
		{ NET("\"privateAddresses\":\"deny\""), "network.privateAddresses",
		  "\"deny\" is not allowed: expected one of \"refuseForWildcards\", \"refuse\", \"allow\"",
		  "privateAddresses enum" },
		{ NET("\"privateAddresses\":true"), "network.privateAddresses",
		  "expected", "privateAddresses boolean" },
		{ NET("\"ambiguousRequestTarget\":\"ignore\""), "network.ambiguousRequestTarget",
		  "\"ignore\" is not allowed: expected one of \"refuse\", \"asSpelled\", \"normalize\"",
		  "ambiguousRequestTarget enum" },
		{ NET("\"filterRequest\":\"x\""), "network.filterRequest", "filterRequest must be a function",
		  "filterRequest in a file" },
		{ NET("\"filters\":[{\"config\":{}}]"), "network.filters[0].plugin",
		  "required key is missing", "filter without plugin" },
		{ NET("\"filters\":{}"), "network.filters", "expected an array", "filters object" },
		{ NET("\"stripResponseHeaders\":[\"a\",\"\"]"), "network.stripResponseHeaders[1]",
		  "String must contain at least 1 character(s)", "empty header name" },
		{ NULL },
	});

	parse_json(&s, NET("\"deniedDomainReasons\":{\"other.com\":\"r\"}"), &d);
	ok(has_warning(&s, "network.deniedDomainReasons.other.com") ||
	   has_warning(&s, "network.deniedDomainReasons[\"other.com\"]"),
	   "a reason for an entry not on deniedDomains warns (%s)",
	   s.warnings.n ? s.warnings.v[0] : "no warning");
	srt__settings_release(&s);
	bad_all((const struct bad_case[]){
		{ DOC("\"allowedDomains\":[],\"deniedDomains\":[\"evil.com\"],"
			"\"deniedDomainReasons\":{\"evil.com\":\"\"}", FSD, ""),
		  "network.deniedDomainReasons[\"evil.com\"]", "String must contain at least 1 character(s)",
		  "empty reason" },
		{ NET("\"deniedDomainReasons\":[]"), "network.deniedDomainReasons",
		  "expected an object mapping deniedDomains entries to reasons", "reasons array" },
		{ NULL },
	});
}

static void test_filesystem(void)
{
	struct srt__settings s;
	struct srt_diag d;

	bad_all((const struct bad_case[]){
		{ DOC(NETD, "\"denyRead\":[\"\"],\"allowWrite\":[],\"denyWrite\":[]", ""),
		  "filesystem.denyRead[0]", "Path cannot be empty", "empty path" },
		{ DOC(NETD, "\"denyRead\":[3],\"allowWrite\":[],\"denyWrite\":[]", ""),
		  "filesystem.denyRead[0]",
		  "Expected a path, or { \"path\": \"<path>\", \"literal\": true }, got number 3",
		  "number path" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[{\"path\":\"/x\",\"literal\":false}],"
			"\"denyWrite\":[]", ""), "filesystem.allowWrite[0]",
		  "\"literal\" must be true, got boolean false", "literal false" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[{\"path\":\"/x\"}],\"denyWrite\":[]", ""),
		  "filesystem.allowWrite[0]", "\"literal\" must be true, got nothing", "literal missing" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[{\"path\":\"/x\",\"literal\":true,"
			"\"recursive\":true}],\"denyWrite\":[]", ""), "filesystem.allowWrite[0]",
		  "unknown key \"recursive\" in a path object", "strict literal object" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[{\"path\":\"\",\"literal\":true}],"
			"\"denyWrite\":[]", ""), "filesystem.allowWrite[0]", "Path cannot be empty",
		  "literal with empty path" },
		{ DOC(NETD, "\"denyRead\":\"~/.ssh\",\"allowWrite\":[],\"denyWrite\":[]", ""),
		  "filesystem.denyRead", "expected an array of paths, got string \"~/.ssh\"",
		  "denyRead string" },
		{ FS("\"allowRead\":[null]"), "filesystem.allowRead[0]", "got null", "null path" },
		{ FS("\"disabled\":\"no\""), "filesystem.disabled", "expected a boolean", "disabled string" },
		{ NULL },
	});

	/* a deny glob ending in a separator can match no path */
	bad_all((const struct bad_case[]){
		{ DOC(NETD, "\"denyRead\":[\"/tmp/*/\"],\"allowWrite\":[],\"denyWrite\":[]", ""),
		  "filesystem.denyRead[0]",
		  "Deny glob \"/tmp/*/\" ends in a separator, so as a pattern it can match no path. Write "
		  "\"/tmp/*\", which is also read as the path of that name where it exists, or add a "
		  "\"**\" segment to match at any depth.", "deny glob with trailing /" },
		{ DOC(NETD, "\"denyRead\":[],\"allowWrite\":[],\"denyWrite\":[\"~/x/[ab]//\"]", ""),
		  "filesystem.denyWrite[0]", "Write \"~/x/[ab]\"", "denyWrite ~ glob with trailing //" },
		{ NULL },
	});
	good(DOC(NETD, "\"denyRead\":[\"x/*/\",\"/tmp/plain/\",{\"path\":\"/tmp/*/\",\"literal\":true}],"
		 "\"allowWrite\":[\"/tmp/*/\"],\"denyWrite\":[]", ""),
	     "relative, non-glob, literal and allow entries are not deny globs");
	good(DOC(NETD, "\"disabled\":true,\"denyRead\":[\"/tmp/*/\"],\"allowWrite\":[],\"denyWrite\":[]",
		 ""), "deny glob rule only when the filesystem is enforced");
	parse_json(&s, DOC(NETD, "\"disabled\":true," FSD, ""), &d);
	ok(s.fs_disabled, "filesystem.disabled parsed");
	srt__settings_release(&s);

	/* filesystem.allowCaches: names of caches srt knows, nothing else */
	bad_all((const struct bad_case[]){
		{ FS("\"allowCaches\":[\"npm\",\"yarn\"]"), "filesystem.allowCaches[1]",
		  "\"yarn\" is not a cache srt knows (one of npm, pip, cargo, go)", "unknown cache" },
		{ FS("\"allowCaches\":[\"\"]"), "filesystem.allowCaches[0]", "is not a cache srt knows",
		  "empty cache name" },
		{ FS("\"allowCaches\":[\"~/.npm\"]"), "filesystem.allowCaches[0]",
		  "is not a cache srt knows", "a path is not a cache name" },
		{ FS("\"allowCaches\":\"npm\""), "filesystem.allowCaches", "expected an array",
		  "allowCaches string" },
		{ NULL },
	});
	parse_json(&s, FS("\"allowCaches\":[\"npm\",\"pip\",\"cargo\",\"go\"]"), &d);
	ok(s.allow_caches.n == 4 && strv_has(&s.allow_caches, "cargo") && !s.warnings.n,
	   "filesystem.allowCaches parsed, no warning");
	srt__settings_release(&s);
}

static void test_top_level(void)
{
	struct srt__settings s;
	struct srt_diag d;

	bad_all((const struct bad_case[]){
		{ TOP("\"mandatoryDenySearchDepth\":0"), "mandatoryDenySearchDepth",
		  "0 is out of range: Number must be greater than or equal to 1", "depth 0" },
		{ TOP("\"mandatoryDenySearchDepth\":11"), "mandatoryDenySearchDepth",
		  "11 is out of range: Number must be less than or equal to 10", "depth 11" },
		{ TOP("\"mandatoryDenySearchDepth\":2.5"), "mandatoryDenySearchDepth",
		  "expected an integer, got number 2.5", "depth 2.5" },
		{ NULL },
	});
	parse_json(&s, TOP("\"mandatoryDenySearchDepth\":1"), &d);
	ok(s.mandatory_deny_search_depth == 1, "depth 1 kept");
	srt__settings_release(&s);

	bad_all((const struct bad_case[]){
		{ TOP("\"bwrapPath\":\"\""), "bwrapPath", "Path cannot be empty", "empty bwrapPath" },
		{ TOP("\"bwrapPath\":\"bwrap\""), "bwrapPath",
		  "\"bwrap\" is not valid: Binary path must be absolute", "relative bwrapPath" },
		{ TOP("\"socatPath\":\"./socat\""), "socatPath", "Binary path must be absolute",
		  "relative socatPath" },
		{ TOP("\"javaAgentJarPath\":7"), "javaAgentJarPath", "expected a string, got number 7",
		  "javaAgentJarPath number" },
		{ TOP("\"ripgrep\":{\"args\":[]}"), "ripgrep.command", "required key is missing",
		  "ripgrep without command" },
		{ TOP("\"ripgrep\":{\"command\":\"rg\",\"args\":\"-x\"}"), "ripgrep.args",
		  "expected an array of strings", "ripgrep args string" },
		{ TOP("\"seccomp\":{\"applyPath\":1}"), "seccomp.applyPath", "expected a string",
		  "seccomp applyPath number" },
		{ TOP("\"enableWeakerNestedSandbox\":\"true\""), "enableWeakerNestedSandbox",
		  "expected a boolean, got string \"true\"", "quoted true" },
		{ TOP("\"allowPty\":[]"), "allowPty", "expected a boolean, got an array", "allowPty array" },
		{ TOP("\"git\":{\"safeDirectories\":\"/x\"}"), "git.safeDirectories", "expected an array",
		  "safeDirectories string" },
		{ TOP("\"ignoreViolations\":{\"npm test\":[\"a\",1]}"), "ignoreViolations[\"npm test\"][1]",
		  "expected a string, got number 1", "ignoreViolations value" },
		{ TOP("\"ignoreViolations\":{\"*\":\"a\"}"), "ignoreViolations[\"*\"]",
		  "expected an array of strings", "ignoreViolations value string" },
		{ TOP("\"ignoreViolations\":[]"), "ignoreViolations", "expected an object", "ignoreViolations array" },
		{ NULL },
	});

	bad(TOP("\"windows\":{\"sandboxUser\":\"abcdefghijklmnopqrstu\"}"), "windows.sandboxUser",
	    "Windows local usernames are limited to 20 characters", "sandboxUser 21 chars");
	good(TOP("\"windows\":{\"sandboxUser\":\"abcdefghijklmnopqrst\"}"), "sandboxUser 20 chars");
	bad_all((const struct bad_case[]){
		{ TOP("\"windows\":{\"sublayerGuid\":\"not-a-guid\"}"), "windows.sublayerGuid",
		  "\"not-a-guid\" is not valid: Invalid uuid", "bad guid" },
		{ TOP("\"windows\":{\"wfpSublayerGuid\":\"12345678-1234-1234-1234-123456789abg\"}"),
		  "windows.wfpSublayerGuid", "Invalid uuid", "bad wfp guid" },
		{ TOP("\"windows\":{\"proxyPortRange\":[10,5]}"), "windows.proxyPortRange",
		  "low must be \xe2\x89\xa4 high and range width \xe2\x89\xa4 64", "port range reversed" },
		{ TOP("\"windows\":{\"proxyPortRange\":[1,100]}"), "windows.proxyPortRange",
		  "range width", "port range too wide" },
		{ TOP("\"windows\":{\"proxyPortRange\":[0,5]}"), "windows.proxyPortRange[0]",
		  "greater than or equal to 1", "port range low 0" },
		{ TOP("\"windows\":{\"proxyPortRange\":[1]}"), "windows.proxyPortRange",
		  "expected an array of two port numbers", "port range of one" },
		{ TOP("\"windows\":{\"backend\":\"wsl\"}"), "windows.backend",
		  "\"wsl\" is not allowed: expected one of \"mxc\", \"srt-win\"", "windows backend" },
		{ TOP("\"windows\":{\"srtWin\":{\"path\":\"\"}}"), "windows.srtWin.path",
		  "String must contain at least 1 character(s)", "srtWin path empty" },
		{ NULL },
	});
}

static void test_unknown_keys(void)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc;

	rc = parse_json(&s, DOC(NETD, FSD ",\"allowWrites\":[\"/x\"]", ",\"foo\":1,\"$schema\":\"x\""), &d);
	ok(rc == SRT_OK, "unknown keys are not errors");
	ok(has_warning(&s, "settings.json: unknown key \"filesystem.allowWrites\" ignored "
			   "(did you mean \"allowWrite\"?)"),
	   "typo warning with suggestion: %s", s.warnings.n ? s.warnings.v[0] : "none");
	ok(has_warning(&s, "settings.json: unknown key \"foo\" ignored") &&
	   !has_warning(&s, "\"foo\" ignored (did you mean"), "unknown top-level key, no suggestion");
	ok(s.warnings.n == 3, "one warning per unknown key (%zu)", s.warnings.n);
	srt__settings_release(&s);
	{
		/* a flood of unknown keys: bounded warnings, bounded time */
		size_t cap = 4000000, o, i;
		char *t = malloc(cap);

		o = (size_t)snprintf(t, cap, "{\"network\":{" NETD "},\"filesystem\":{" FSD "}");
		for (i = 0; o + 40 < cap - 2; i++)
			o += (size_t)snprintf(t + o, cap - o, ",\"allowPtx%zu\":0", i);
		strcpy(t + o, "}");
		rc = parse_json(&s, t, &d);
		ok(rc == SRT_OK && s.warnings.n == 51 &&
		   strstr(s.warnings.v[50], "more unknown keys ignored (not listed)"),
		   "%zu unknown keys give 51 warning lines (%zu): %s", i, s.warnings.n,
		   s.warnings.n ? s.warnings.v[s.warnings.n - 1] : "");
		srt__settings_release(&s);
		free(t);
	}
	rc = parse_json(&s, TOP("\"allow pty\":true"), &d);
	ok(rc == SRT_OK && has_warning(&s, "settings.json: unknown key [\"allow pty\"] ignored"),
	   "unknown key with a space: %s", s.warnings.n ? s.warnings.v[0] : "none");
	srt__settings_release(&s);

	rc = parse_json(&s, NET("\"allowedDomain\":[\"x.com\"],\"tlsTerminate\":{\"maxTunnel\":3}"), &d);
	ok(rc == SRT_OK && has_warning(&s, "unknown key \"network.allowedDomain\" ignored (did you "
					   "mean \"allowedDomains\"?)") &&
	   has_warning(&s, "unknown key \"network.tlsTerminate.maxTunnel\" ignored (did you mean "
			   "\"maxTunnels\"?)"), "nested unknown keys warn with their full path");
	srt__settings_release(&s);
	rc = parse_yaml(&s, "network:\n  allowedDomains: []\n  deniedDomains: []\n  alowLocalBinding: true\n"
			"filesystem: {denyRead: [], allowWrite: [], denyWrite: []}\n", &d);
	ok(rc == SRT_OK && has_warning(&s, "unknown key \"network.alowLocalBinding\" ignored (did "
					   "you mean \"allowLocalBinding\"?)"), "yaml unknown key warns");
	srt__settings_release(&s);

	bad_all((const struct bad_case[]){
		{ TOP("\"credentials\":{\"bogus\":1}"), "credentials",
		  "Unrecognized key(s) in object: 'bogus'", "unknown key in strict credentials" },
		{ TOP("\"credentials\":{\"sigv4\":{\"stream\":\"deny\"}}"), "credentials.sigv4",
		  "Unrecognized key(s) in object: 'stream'", "unknown key in strict sigv4" },
		{ TOP("\"credentials\":{\"envVars\":[{\"name\":\"A\",\"mode\":\"mask\"}],"
			"\"allowPlaintextInject\":true,\"awsPairs\":[{\"accessKeyIdVar\":\"A\","
			"\"secretAccessKeyVar\":\"B\",\"x\":1,\"y\":2}]}"), "credentials.awsPairs[0]",
		  "Unrecognized key(s) in object: 'x', 'y'", "unknown keys in strict awsPairs" },
		{ DOC(NETD, "\"allowWrite\":[],\"allowWrite\":[],\"denyRead\":[],\"denyWrite\":[]", ""),
		  "filesystem.allowWrite", "duplicate key \"allowWrite\"", "duplicate key" },
		{ NULL },
	});
}

#define CRED(x) DOC("\"allowedDomains\":[\"api.example.com\",\"*.corp.test\",\"s3.aws.test:443\"]," \
		    "\"deniedDomains\":[],\"tlsTerminate\":{\"excludeDomains\":[\"*.bank.corp.test\"]}", \
		    FSD, ",\"credentials\":{" x "}")

static void test_credentials(void)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc;

	rc = parse_json(&s, CRED("\"files\":[{\"path\":\"~/.aws/credentials\",\"mode\":\"deny\"},"
				 "{\"path\":\"~/.netrc\",\"mode\":\"mask\",\"extract\":\"password (\\\\S+)\","
				 "\"onExtractNoMatch\":\"error\",\"injectHosts\":[\"api.example.com\"]}],"
				 "\"envVars\":[{\"name\":\"GH_TOKEN\",\"mode\":\"mask\",\"decode\":\"jwt\","
				 "\"maskClaims\":[\"sub\"],\"injectHosts\":[\"x.corp.test\",\"*.a.corp.test\"]},"
				 "{\"name\":\"AWS_ACCESS_KEY_ID\",\"mode\":\"mask\"},"
				 "{\"name\":\"AWS_SECRET_ACCESS_KEY\",\"mode\":\"mask\"}],"
				 "\"awsPairs\":[{\"accessKeyIdVar\":\"AWS_ACCESS_KEY_ID\","
				 "\"secretAccessKeyVar\":\"AWS_SECRET_ACCESS_KEY\"}],"
				 "\"sigv4\":{\"streaming\":\"passthrough\"}"), &d);
	ok(rc == SRT_OK, "credentials accepted (%s)", d.message);
	ok(s.has_credentials && s.n_cred_files == 2 && !s.cred_files[0].mask && s.cred_files[1].mask &&
	   !strcmp(s.cred_files[1].extract, "password (\\S+)") &&
	   !strcmp(s.cred_files[1].on_extract_no_match, "error") && s.cred_files[1].has_inject_hosts,
	   "credential files parsed");
	ok(s.n_cred_env_vars == 3 && s.cred_env_vars[0].decode_jwt &&
	   s.cred_env_vars[0].has_mask_claims && s.cred_env_vars[0].mask_claims.n == 1 &&
	   s.n_aws_pairs == 1 && !s.aws_pairs[0].session_token_var &&
	   !strcmp(s.sigv4_streaming, "passthrough") && !s.sigv4_presigned,
	   "credential env vars, aws pairs, sigv4 parsed");
	srt__settings_release(&s);

	/* the check judges a pattern with the module's engine (PCRE2): its
	 * syntax is accepted and a non-capturing group is not counted */
	rc = parse_json(&s, CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\","
				 "\"extract\":\"(?:token|key)=(\\\\w+)\\\\d*\"}]"), &d);
	ok(rc == SRT_OK, "extract with PCRE2 syntax ((?:...), \\d) accepted (%s)", d.message);
	if (rc == SRT_OK)
		srt__settings_release(&s);
	rc = parse_json(&s, CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\","
				 "\"extract\":\"(?:token|key)=\\\\w+\"}]"), &d);
	ok(rc != SRT_OK && strstr(d.message, "at least one capturing group"),
	   "extract whose only group is non-capturing refused (%s)", d.message);
	if (rc == SRT_OK)
		srt__settings_release(&s);

	bad_all((const struct bad_case[]){
		{ CRED("\"files\":[{\"path\":\"/x\"}]"), "credentials.files[0].mode", "required key is missing",
		  "mode missing" },
		{ CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"hide\"}]"), "credentials.files[0].mode",
		  "\"hide\" is not allowed: expected one of \"deny\", \"mask\"", "mode enum" },
		{ CRED("\"files\":[{\"path\":\"\",\"mode\":\"deny\"}]"), "credentials.files[0].path",
		  "Path cannot be empty", "empty path" },
		{ CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\",\"extract\":\"(abc\"}]"),
		  "credentials.files[0].extract", "extract is not a valid regular expression:",
		  "extract does not compile" },
		{ CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\",\"extract\":\"token:.*\"}]"),
		  "credentials.files[0].extract", "extract must contain at least one capturing group",
		  "extract without group" },
		{ CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\",\"maskClaims\":[\"sub\"]}]"),
		  "credentials.files[0].maskClaims",
		  "maskClaims requires decode \xe2\x80\x94 it names claims inside the decoded payload. Set "
		  "decode (e.g. \"jwt\"), or remove maskClaims to mask the extracted value whole.",
		  "maskClaims without decode (files)" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"maskClaims\":[\"sub\"]}]"),
		  "credentials.envVars[0].maskClaims", "remove maskClaims to mask the whole value.",
		  "maskClaims without decode (envVars)" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"decode\":\"jwt\",\"maskClaims\":[]}]"),
		  "credentials.envVars[0].maskClaims", "maskClaims is explicitly empty", "maskClaims []" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"decode\":\"base64\"}]"),
		  "credentials.envVars[0].decode", "expected one of \"jwt\"", "decode enum" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"onExtractNoMatch\":\"skip\"}]"),
		  "credentials.envVars[0].onExtractNoMatch", "expected one of \"warn\", \"deny\", \"error\"",
		  "onExtractNoMatch enum" },
		{ CRED("\"files\":[{\"path\":\"~/.aws/\",\"mode\":\"mask\"}]"), "credentials.files[0].path",
		  "Credential mode \"mask\" applies to a single file, not a directory. Use mode \"deny\" for "
		  "\"~/.aws/\", or point at the credential file inside it.", "mask on a directory" },
		{ CRED("\"files\":[{\"path\":\"~/.aws/*/\",\"mode\":\"deny\"}]"), "credentials.files[0].path",
		  "Deny glob \"~/.aws/*/\" ends in a separator", "deny credential glob with trailing /" },
		{ CRED("\"files\":[{\"path\":\"/x\",\"mode\":\"mask\",\"injectHosts\":[]}]"),
		  "credentials.files[0]", "injectHosts is explicitly empty", "injectHosts []" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"injectHosts\":[\"api.example.com\","
			 "\"other.test\"]}]"), "credentials.envVars[0].injectHosts[1]",
		  "injectHosts entry \"other.test\" is not reachable via network.allowedDomains \xe2\x80\x94 "
		  "add \"other.test\" (or a covering wildcard) to allowedDomains, or remove it from "
		  "injectHosts.", "injectHosts not allowed" },
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"injectHosts\":[\"*.example.com\"]}]"),
		  "credentials.envVars[0].injectHosts[0]", "is not reachable via network.allowedDomains",
		  "wildcard injectHosts not covered by a name" },
		{ NULL },
	});
	good(CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"injectHosts\":[\"s3.aws.test:443\","
		  "\"x.corp.test\",\"*.a.corp.test\",\"API.example.com:8443\"]}]"),
	     "injectHosts covered (port stripped, wildcard under an allowed wildcard)");
	bad_all((const struct bad_case[]){
		{ CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\",\"injectHosts\":[\"x.bank.corp.test\"]}]"),
		  "credentials.envVars[0].injectHosts[0]",
		  "injectHosts entry \"x.bank.corp.test\" is entirely covered by "
		  "network.tlsTerminate.excludeDomains.", "injectHosts excluded from termination" },
		{ DOC("\"allowedDomains\":[\"a.bank.test\"],\"deniedDomains\":[],"
			"\"tlsTerminate\":{\"excludeDomains\":[\"*.bank.test\"]}", FSD,
			",\"credentials\":{\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\"}]}"),
		  "credentials.envVars[0]", "This masked credential has no injectHosts, so it defaults to "
		  "network.allowedDomains", "every allowed domain excluded" },
		{ DOC(NETD, FSD, ",\"credentials\":{\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\"}]}"),
		  "credentials", "Credential masking requires network.tlsTerminate so substitution runs "
		  "only over a verified TLS connection.", "masking without tls" },
		{ NULL },
	});
	good(DOC(NETD, FSD, ",\"credentials\":{\"allowPlaintextInject\":true,"
		 "\"envVars\":[{\"name\":\"T\",\"mode\":\"mask\"}]}"), "allowPlaintextInject opts out");
	good(DOC(NETD, FSD, ",\"credentials\":{\"envVars\":[{\"name\":\"T\",\"mode\":\"deny\"}]}"),
	     "deny mode needs no tls");
	bad_all((const struct bad_case[]){
		{ CRED("\"envVars\":[{\"name\":\"1BAD\",\"mode\":\"deny\"}]"), "credentials.envVars[0].name",
		  "Environment variable name must start with a letter or underscore and contain only "
		  "letters, digits, and underscores", "env var name" },
		{ CRED("\"envVars\":[{\"name\":\"A-B\",\"mode\":\"deny\"}]"), "credentials.envVars[0].name",
		  "\"A-B\" is not valid", "env var name with -" },
		{ CRED("\"envVars\":[{\"name\":\"A\",\"mode\":\"mask\"},{\"name\":\"B\",\"mode\":\"mask\"}],"
			 "\"awsPairs\":[{\"accessKeyIdVar\":\"A\",\"secretAccessKeyVar\":\"A\"}]"),
		  "credentials.awsPairs[0].secretAccessKeyVar",
		  "\"A\" appears in more than one awsPairs slot (within or across pairs)", "aws var twice" },
		{ CRED("\"envVars\":[{\"name\":\"A\",\"mode\":\"mask\"},{\"name\":\"B\",\"mode\":\"deny\"}],"
			 "\"awsPairs\":[{\"accessKeyIdVar\":\"A\",\"secretAccessKeyVar\":\"B\"}]"),
		  "credentials.awsPairs[0].secretAccessKeyVar",
		  "\"B\" does not reference a credentials.envVars entry with mode \"mask\"",
		  "aws var not masked" },
		{ CRED("\"envVars\":[{\"name\":\"A\",\"mode\":\"mask\",\"extract\":\"(x)\"},"
			 "{\"name\":\"B\",\"mode\":\"mask\"}],"
			 "\"awsPairs\":[{\"accessKeyIdVar\":\"A\",\"secretAccessKeyVar\":\"B\"}]"),
		  "credentials.awsPairs[0].accessKeyIdVar", "\"A\" uses extract/decode", "aws var extract" },
		{ CRED("\"awsPairs\":[{\"accessKeyIdVar\":\"A\"}]"), "credentials.awsPairs[0].secretAccessKeyVar",
		  "required key is missing", "aws pair incomplete" },
		{ CRED("\"sigv4\":{\"presigned\":\"allow\"}"), "credentials.sigv4.presigned",
		  "expected one of \"deny\", \"passthrough\"", "sigv4 enum" },
		{ CRED("\"files\":{}"), "credentials.files", "expected an array of objects", "files object" },
		{ CRED("\"files\":[\"/x\"]"), "credentials.files[0]", "expected an object, got string \"/x\"",
		  "file entry string" },
		{ NULL },
	});
	parse_json(&s, CRED("\"envVars\":[{\"name\":\"T\",\"mode\":\"deny\",\"colour\":1}]"), &d);
	ok(has_warning(&s, "unknown key \"credentials.envVars[0].colour\" ignored"),
	   "envVars entries are not strict: unknown key warns");
	srt__settings_release(&s);
}

/* ------------------------------------------------ syntax and limits */

static void test_json_syntax(void)
{
	struct srt__settings s;
	struct srt_diag d;
	char *big;
	size_t i;
	int rc;

	rc = parse_json(&s, "{\n  \"network\": {\n    \"allowedDomains\": [\"a.com\",]\n  }\n}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "settings.json is not valid JSON") &&
	   strstr(d.message, "line 3, column"), "syntax error with line and column: %s", d.message);
	rc = parse_json(&s, "{\"a\":1}\n{", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "unexpected text after the JSON value at line 2, "
					  "column 1"), "trailing text refused: %s", d.message);
	rc = parse_json(&s, "{\"a\":080}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "invalid number"), "leading zero refused: %s",
	   d.message);
	rc = parse_json(&s, "{\"a\":+1}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "invalid number"), "plus sign refused");
	rc = parse_json(&s, "{\"a\":1.}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "invalid number"), "1. refused");
	rc = parse_json(&s, DOC(NETD, "\"denyRead\":[\"/etc/shadow\\u0000x\"],\"allowWrite\":[],"
				"\"denyWrite\":[]", ""), &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "(NUL) in a string"), "\\u0000 refused: %s",
	   d.message);
	rc = parse_json(&s, "{\"a\":\"\xff\"}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "invalid UTF-8"), "invalid UTF-8 refused");
	rc = parse_json(&s, "{\"a\":\"x\ty\"}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "control character"), "raw tab in a string refused");
	rc = srt__settings_parse_json(&s, "{\"a\":1}\0", 8, ORIGIN, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "NUL byte"), "NUL byte refused");
	rc = parse_json(&s, "   \n\t ", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "settings.json is empty"), "whitespace text is empty");
	rc = parse_json(&s, "\xef\xbb\xbf" DOC(NETD, FSD, ""), &d);
	ok(rc == SRT_OK, "UTF-8 byte order mark skipped");
	srt__settings_release(&s);
	rc = parse_json(&s, DOC(NETD, FSD, ",\"caf\xc3\xa9\":1"), &d);
	ok(rc == SRT_OK && has_warning(&s, "caf\xc3\xa9"), "UTF-8 in keys is fine");
	srt__settings_release(&s);
	rc = parse_json(&s, "{\"a\" 1}", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "line 1, column 6"), "column counted: %s", d.message);

	/* nesting: 64 levels pass (under an unknown key), 65 are refused, and
	 * a very deep document is refused without recursion. */
	big = malloc(300000);
	strcpy(big, "{\"network\":{" NETD "},\"filesystem\":{" FSD "},\"x\":");
	for (i = 0; i < 63; i++)
		strcat(big, "[");
	for (i = 0; i < 63; i++)
		strcat(big, "]");
	strcat(big, "}");
	rc = parse_json(&s, big, &d);
	ok(rc == SRT_OK, "64 levels of nesting accepted (%s)", d.message);
	srt__settings_release(&s);
	rc = parse_yaml(&s, big, &d);
	ok(rc == SRT_OK, "64 levels of nesting accepted by yaml (%s)", d.message);
	srt__settings_release(&s);
	strcpy(big, "{\"network\":{" NETD "},\"filesystem\":{" FSD "},\"x\":");
	for (i = 0; i < 64; i++)
		strcat(big, "[");
	for (i = 0; i < 64; i++)
		strcat(big, "]");
	strcat(big, "}");
	rc = parse_json(&s, big, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "nested deeper than 64 levels"),
	   "65 levels refused: %s", d.message);
	rc = parse_yaml(&s, big, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "nested deeper than 64 levels"),
	   "65 levels refused by yaml: %s", d.message);
	memset(big, '[', 200000);
	big[200000] = '\0';
	rc = parse_json(&s, big, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "nested deeper"), "200000 '[' refused, no crash");
	rc = parse_yaml(&s, big, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "nested deeper"), "200000 '[' refused by yaml");
	free(big);

	big = malloc(SRT_SETTINGS_MAX_BYTES + 2);
	memset(big, ' ', SRT_SETTINGS_MAX_BYTES + 1);
	big[0] = '{';
	big[SRT_SETTINGS_MAX_BYTES] = '}';
	rc = srt__settings_parse_json(&s, big, SRT_SETTINGS_MAX_BYTES + 1, ORIGIN, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "too large"), "text over the size cap refused: %s",
	   d.message);
	rc = srt__settings_parse_yaml(&s, big, SRT_SETTINGS_MAX_BYTES + 1, ORIGIN, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "too large"), "yaml over the size cap refused");
	free(big);
}

/* Flow-style YAML bodies for the YAML-only cases. */
#define YNET "network: {allowedDomains: [], deniedDomains: []}\n"
#define YFS "filesystem: {denyRead: [], allowWrite: [], denyWrite: []}\n"
/* The block-style network section of the block-style documents. */
#define YBLOCK_NET "network:\n" \
	"  allowedDomains:\n" \
	"    - example.com\n" \
	"    - '*.github.com'\n" \
	"  deniedDomains: []\n" \
	"  httpProxyPort: 3128\n" \
	"  strictAllowlist: True\n"

/* Refused by the YAML reader with a message containing `needle`. */
static void yaml_bad(const char *text, const char *needle, const char *what)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc = parse_yaml(&s, text, &d);

	ok(rc == SRT_E_SETTINGS && strstr(d.message, needle), "%s: %s", what, d.message);
	srt__settings_release(&s);
}

static void test_yaml(void)
{
	struct srt__settings s;
	struct srt_diag d;
	int rc;

	rc = parse_yaml(&s,
			"# comment\n"
			YBLOCK_NET
			"  parentProxy: {noProxy: ~}\n"
			"filesystem:\n"
			"  denyRead: [~/.ssh]\n"
			"  allowWrite: [.]\n"
			"  denyWrite: []\n"
			"mandatoryDenySearchDepth: 0o7\n", &d);
	ok(rc == SRT_E_SETTINGS && !strcmp(d.key, "network.parentProxy.noProxy") &&
	   strstr(d.message, "expected a string, got null"), "~ is null: %s", d.message);
	rc = parse_yaml(&s,
			YBLOCK_NET
			"filesystem:\n"
			"  denyRead: [~/.ssh, {path: '/a[b]', literal: true}]\n"
			"  allowWrite: [.]\n"
			"  denyWrite: []\n"
			"mandatoryDenySearchDepth: 0o7\n", &d);
	ok(rc == SRT_OK && s.allowed_domains.n == 2 && s.http_proxy_port == 3128 &&
	   s.strict_allowlist && s.mandatory_deny_search_depth == 7 && s.deny_read.n == 2 &&
	   !strcmp(s.deny_read.v[0].path, "~/.ssh") && s.deny_read.v[1].literal,
	   "block-style YAML: plain ints, True, 0o7, ~/.ssh string (%s)", d.message);
	srt__settings_release(&s);

	yaml_bad("network: {allowedDomains: [], deniedDomains: [], strictAllowlist: yes}\n" YFS,
		 "expected a boolean, got string \"yes\"", "yes is a string (YAML 1.2)");
	yaml_bad("network: {allowedDomains: [], deniedDomains: [], httpProxyPort: '3128'}\n" YFS,
		 "expected an integer, got string \"3128\"", "quoted number is a string");
	rc = parse_yaml(&s, "network: {allowedDomains: [!!str 123.com], deniedDomains: []}\n" YFS, &d);
	ok(rc == SRT_OK && !strcmp(s.allowed_domains.v[0], "123.com"), "!!str tag honoured (%s)", d.message);
	srt__settings_release(&s);
	yaml_bad("network: {allowedDomains: [!!str 15], deniedDomains: []}\n" YFS,
		 "\"15\" is not a domain name", "!!str keeps a number-looking scalar a string");
	yaml_bad("network: {allowedDomains: [1.5], deniedDomains: []}\n" YFS,
		 "expected a string, got number 1.5", "plain 1.5 is a number");
	yaml_bad("network: {allowedDomains: [!custom x], deniedDomains: []}\n" YFS,
		 "unsupported tag \"!custom\"", "custom tag refused");

	rc = parse_yaml(&s, "network: &n {allowedDomains: [], deniedDomains: []}\n" YFS, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "anchors (\"&name\") are not supported") &&
	   strstr(d.message, "line 1"), "anchor refused: %s", d.message);
	yaml_bad("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
		 "c: [*b, *b, *b, *b, *b, *b, *b, *b]\n", "are not supported", "alias bomb refused");
	yaml_bad("x: [a]\ny: *a\n", "not valid YAML", "unknown alias refused");
	rc = parse_yaml(&s, YNET YFS "---\n{}\n", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "more than one document") &&
	   strstr(d.message, "line 3"), "two documents refused: %s", d.message);
	rc = parse_yaml(&s, "network:\n  allowedDomains: [\n", &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "settings.json is not valid YAML") &&
	   strstr(d.message, "line"), "yaml syntax error with position: %s", d.message);
	yaml_bad("? [a, b]\n: c\n", "mapping key must be a plain string", "complex key refused");
	rc = parse_yaml(&s, "# only a comment\n", &d);
	ok(rc == SRT_E_SETTINGS && !strcmp(d.key, "(root)") && strstr(d.message, "empty document"),
	   "comment-only YAML: %s", d.message);
	yaml_bad("network: {allowedDomains: [\"a\\0b.com\"], deniedDomains: []}\n", "NUL character",
		 "NUL escape refused");
	rc = parse_yaml(&s, YNET YNET YFS, &d);
	ok(rc == SRT_E_SETTINGS && !strcmp(d.key, "network") && strstr(d.message, "duplicate key"),
	   "duplicate YAML key refused: %s", d.message);
	yaml_bad(YNET YFS "mandatoryDenySearchDepth: .inf\n", "expected an integer",
		 ".inf is not an integer");
}

/* ------------------------------------------------------------ files */

static char tmpdir[64];

static char *write_tmp(const char *name, const char *text, size_t len)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror(path);
		exit(99);
	}
	close(fd);
	return path;
}

static bool same_strv(const struct srt__strv *a, const struct srt__strv *b)
{
	size_t i = 0;

	while (i < a->n && i < b->n && !strcmp(a->v[i], b->v[i]))
		i++;
	return i == a->n && i == b->n;
}

static bool same_paths(const struct srt__path_entries *a, const struct srt__path_entries *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].path, b->v[i].path) || a->v[i].literal != b->v[i].literal)
			return false;
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_settings(const struct srt__settings *a, const struct srt__settings *b)
{
	size_t i;

	if (a->n_denied_domain_reasons != b->n_denied_domain_reasons ||
	    a->n_ignore_violations != b->n_ignore_violations || a->n_filters != b->n_filters ||
	    a->n_cred_files != b->n_cred_files || a->n_cred_env_vars != b->n_cred_env_vars)
		return false;
	for (i = 0; i < a->n_filters; i++)
		if (!same_str(a->filters[i].plugin, b->filters[i].plugin) ||
		    !same_str(a->filters[i].config_json, b->filters[i].config_json))
			return false;
	for (i = 0; i < a->n_cred_env_vars; i++)
		if (!same_str(a->cred_env_vars[i].name, b->cred_env_vars[i].name) ||
		    a->cred_env_vars[i].mask != b->cred_env_vars[i].mask ||
		    !same_strv(&a->cred_env_vars[i].inject_hosts, &b->cred_env_vars[i].inject_hosts))
			return false;
	return same_strv(&a->allowed_domains, &b->allowed_domains) &&
	       same_strv(&a->denied_domains, &b->denied_domains) &&
	       same_strv(&a->denied_resolved_addresses, &b->denied_resolved_addresses) &&
	       same_strv(&a->tls_exclude_domains, &b->tls_exclude_domains) &&
	       same_paths(&a->deny_read, &b->deny_read) && same_paths(&a->allow_read, &b->allow_read) &&
	       same_paths(&a->allow_write, &b->allow_write) &&
	       same_paths(&a->deny_write, &b->deny_write) &&
	       same_strv(&a->ignored_keys, &b->ignored_keys) && same_strv(&a->warnings, &b->warnings) &&
	       a->strict_allowlist == b->strict_allowlist && a->http_proxy_port == b->http_proxy_port &&
	       a->socks_proxy_port == b->socks_proxy_port && a->has_tls_terminate == b->has_tls_terminate &&
	       a->tls_max_tunnels == b->tls_max_tunnels &&
	       a->tls_handshake_timeout_ms == b->tls_handshake_timeout_ms &&
	       a->fs_disabled == b->fs_disabled && a->allow_git_config == b->allow_git_config &&
	       a->mandatory_deny_search_depth == b->mandatory_deny_search_depth &&
	       a->allow_nested_user_namespaces == b->allow_nested_user_namespaces &&
	       same_str(a->bwrap_path, b->bwrap_path) &&
	       same_str(a->ambiguous_request_target, b->ambiguous_request_target) &&
	       same_str(a->private_addresses, b->private_addresses) &&
	       same_str(a->parent_http, b->parent_http) && a->has_credentials == b->has_credentials;
}

/* Load a fixture pair and compare (warnings name the origin, so compare
 * them after loading both under the same display name is not possible:
 * strip the origin prefix by loading through the text APIs instead). */
static void fixture_pair(const char *base, bool want_ok, const char *key)
{
	char pj[512], py[512];
	struct srt__settings a, b;
	struct srt_diag da = { 0 }, db = { 0 };
	bool la = false, lb = false;
	int ra, rb;

	snprintf(pj, sizeof(pj), "%s/%s.json", SETTINGS_FIXTURES, base);
	snprintf(py, sizeof(py), "%s/%s.yaml", SETTINGS_FIXTURES, base);
	srt__settings_init(&a);
	srt__settings_init(&b);
	ra = srt__settings_load_file(&a, pj, true, &la, &da);
	rb = srt__settings_load_file(&b, py, true, &lb, &db);
	if (want_ok) {
		size_t i;

		ok(ra == SRT_OK && rb == SRT_OK && la && lb, "fixture %s loads as JSON and YAML (%s | %s)",
		   base, da.message, db.message);
		/* Warnings carry the file name: compare them without it. */
		for (i = 0; i < a.warnings.n && i < b.warnings.n; i++) {
			char *x = strstr(a.warnings.v[i], ": "), *y = strstr(b.warnings.v[i], ": ");

			if (x && y) {
				memmove(a.warnings.v[i], x, strlen(x) + 1);
				memmove(b.warnings.v[i], y, strlen(y) + 1);
			}
		}
		ok(same_settings(&a, &b), "fixture %s: JSON and YAML give identical settings", base);
	} else {
		ok(ra == SRT_E_SETTINGS && rb == SRT_E_SETTINGS && !strcmp(da.key, key) &&
		   !strcmp(db.key, key), "fixture %s refused at %s in both (%s | %s)", base, key,
		   da.key, db.key);
		ok(strstr(da.message, pj) && strstr(db.message, py) &&
		   !strcmp(strstr(da.message, ": ") , strstr(db.message, ": ")),
		   "fixture %s: same message after the origin (%s | %s)", base, da.message, db.message);
	}
	srt__settings_release(&a);
	srt__settings_release(&b);
}

static void test_files(void)
{
	struct srt__settings s;
	struct srt_diag d;
	bool loaded = true;
	char path[256], *p, *big;
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/srt-test-settings-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(99);
	}

	snprintf(path, sizeof(path), "%s/missing.json", tmpdir);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, path, false, &loaded, &d);
	ok(rc == SRT_OK && !loaded && s.mandatory_deny_search_depth == 3,
	   "default path missing: defaults, loaded=false");
	loaded = true;
	memset(&d, 0, sizeof(d));
	rc = srt__settings_load_file(&s, path, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && !loaded && strstr(d.message, "\"") && strstr(d.message, path) &&
	   strstr(d.message, "does not exist") && d.saved_errno == ENOENT,
	   "--settings path missing: %s", d.message);

	p = write_tmp("empty.json", "", 0);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "is empty"), "empty file: %s", d.message);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, false, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "is empty"), "empty default file is an error too");
	p = write_tmp("blank.yaml", " \n\t\n", 4);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "is empty"), "whitespace-only file is empty");

	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, tmpdir, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "could not be read") &&
	   strstr(d.message, "EISDIR") && d.saved_errno == EISDIR, "directory: %s", d.message);

	snprintf(path, sizeof(path), "%s/fifo.json", tmpdir);
	if (mkfifo(path, 0600) == 0) {
		srt__settings_init(&s);
		rc = srt__settings_load_file(&s, path, true, &loaded, &d);
		ok(rc == SRT_E_SETTINGS && strstr(d.message, "not a regular file"),
		   "FIFO refused without blocking: %s", d.message);
	} else {
		skip("mkfifo failed", "FIFO refused without blocking");
	}

	p = write_tmp("unreadable.json", "{}", 2);
	chmod(p, 0);
	if (geteuid() == 0) {
		skip("running as root, which reads any file", "unreadable file names EACCES");
	} else {
		srt__settings_init(&s);
		rc = srt__settings_load_file(&s, p, true, &loaded, &d);
		ok(rc == SRT_E_SETTINGS && strstr(d.message, "could not be read (EACCES") &&
		   d.saved_errno == EACCES, "unreadable file: %s", d.message);
	}
	chmod(p, 0600);

	p = write_tmp("bad.json", "{\n  \"network\": {\n    \"allowedDomains\": [\"a\" \"b\"]\n}\n",
		      strlen("{\n  \"network\": {\n    \"allowedDomains\": [\"a\" \"b\"]\n}\n"));
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, p) && strstr(d.message, "is not valid JSON") &&
	   strstr(d.message, "line 3, column 28"), "invalid JSON file with position: %s", d.message);

	p = write_tmp("bad.yml", "network: [\n", 11);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "is not valid YAML"), ".yml read as YAML: %s",
	   d.message);

	p = write_tmp("schema.json", DOC("\"allowedDomains\":[\"*.com\"],\"deniedDomains\":[]", FSD, ""),
		      strlen(DOC("\"allowedDomains\":[\"*.com\"],\"deniedDomains\":[]", FSD, "")));
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	snprintf(path, sizeof(path), "%s: network.allowedDomains[0]: \"*.com\" is too broad", p);
	ok(rc == SRT_E_SETTINGS && !strncmp(d.message, path, strlen(path)) &&
	   !strcmp(d.key, "network.allowedDomains[0]"), "schema error names file and key: %s", d.message);

	p = write_tmp("good.json", DOC(NETD, FSD, ""), strlen(DOC(NETD, FSD, "")));
	srt__settings_init(&s);
	loaded = false;
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_OK && loaded, "valid file loads, loaded=true");
	srt__settings_release(&s);
	srt__settings_init(&s);
	loaded = false;
	rc = srt__settings_load_file(&s, p, false, &loaded, &d);
	ok(rc == SRT_OK && loaded, "valid default file loads, loaded=true");
	srt__settings_release(&s);

	big = malloc(SRT_SETTINGS_MAX_BYTES + 10);
	memset(big, ' ', SRT_SETTINGS_MAX_BYTES + 10);
	memcpy(big, DOC(NETD, FSD, ""), strlen(DOC(NETD, FSD, "")));
	p = write_tmp("big.json", big, SRT_SETTINGS_MAX_BYTES + 10);
	free(big);
	srt__settings_init(&s);
	rc = srt__settings_load_file(&s, p, true, &loaded, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "is too large"), "file over 4 MiB: %s", d.message);

	fixture_pair("full", true, NULL);
	fixture_pair("unknown-keys", true, NULL);
	fixture_pair("bad-domain", false, "network.allowedDomains[1]");
	fixture_pair("bad-glob", false, "filesystem.denyWrite[0]");
	fixture_pair("bad-cred", false, "credentials.envVars[0].injectHosts[0]");
}

/* tap.h's runner, with its ok() in place of this file's from here on */
#undef ok
#include "tests/unit/tap.h"

/* This file keeps its own counters: each case takes the number where the
 * last one stopped and hands its own back to tap.h's shared counter. */
static void counted(void (*fn)(void))
{
	n_test = tap_n;
	fn();
	tap_n = n_test;
	if (n_fail)
		tap_fail = 1;
}

static void case_minimal_and_defaults(void) { counted(test_minimal_and_defaults); }
static void case_full_values(void) { counted(test_full_values); }
static void case_required(void) { counted(test_required); }
static void case_domains(void) { counted(test_domains); }
static void case_network_rules(void) { counted(test_network_rules); }
static void case_filesystem(void) { counted(test_filesystem); }
static void case_top_level(void) { counted(test_top_level); }
static void case_unknown_keys(void) { counted(test_unknown_keys); }
static void case_credentials(void) { counted(test_credentials); }
static void case_json_syntax(void) { counted(test_json_syntax); }
static void case_yaml(void) { counted(test_yaml); }

/* test_files makes tmpdir in its own process: it is removed there */
static void case_files(void)
{
	counted(test_files);
	if (tmpdir[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", tmpdir);
	}
}

int main(void)
{
	tap_case(case_minimal_and_defaults, "test_minimal_and_defaults");
	tap_case(case_full_values, "test_full_values");
	tap_case(case_required, "test_required");
	tap_case(case_domains, "test_domains");
	tap_case(case_network_rules, "test_network_rules");
	tap_case(case_filesystem, "test_filesystem");
	tap_case(case_top_level, "test_top_level");
	tap_case(case_unknown_keys, "test_unknown_keys");
	tap_case(case_credentials, "test_credentials");
	tap_case(case_json_syntax, "test_json_syntax");
	tap_case(case_yaml, "test_yaml");
	tap_case(case_files, "test_files");
	return tap_done();
}
