/* Settings: the user's file (JSON or YAML) parsed and validated into plain C.
 *
 * Schema and messages follow ../shared/reference/anchor-inventory.md §2.
 * Every validation error names the key path ("network.allowedDomains[2]")
 * and the offending value. Unknown keys are not errors: each one adds a
 * warning naming the key to `warnings`. */
#ifndef SRT_SETTINGS_H
#define SRT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <srt/error.h>

struct srt_strv {
	char **v;
	size_t n;
};

struct srt_path_entry {
	char *path;   /* as spelled in the file */
	bool literal; /* {path, literal:true} */
};

struct srt_path_entries {
	struct srt_path_entry *v;
	size_t n;
};

struct srt_kv {
	char *key;
	char *value;
};

struct srt_ignore_rule {
	char *command_pattern; /* key of ignoreViolations ("*" = every command) */
	struct srt_strv lines; /* substrings of violation lines */
};

struct srt_settings {
	/* network (§2.2) */
	struct srt_strv allowed_domains;
	struct srt_strv denied_domains;
	struct srt_kv *denied_domain_reasons;
	size_t n_denied_domain_reasons;
	bool strict_allowlist;
	struct srt_strv denied_resolved_addresses;
	struct srt_strv allow_unix_sockets;
	bool allow_all_unix_sockets;
	bool allow_local_binding;
	struct srt_strv allow_mach_lookup;
	int http_proxy_port;  /* 0 = unset */
	int socks_proxy_port; /* 0 = unset */
	bool has_mitm_proxy;
	char *mitm_socket_path;
	struct srt_strv mitm_domains;
	bool has_parent_proxy;
	char *parent_http, *parent_https, *parent_no_proxy;
	bool allow_plaintext_header_set;
	struct srt_strv strip_response_headers;
	bool refuse_opaque_tunnels;
	bool require_host_match;
	char *ambiguous_request_target; /* NULL = default "refuse" */
	bool has_tls_terminate;
	char *tls_ca_cert_path, *tls_ca_key_path;
	struct srt_strv tls_exclude_domains;
	struct srt_strv tls_extra_ca_cert_paths;
	int tls_max_tunnels;          /* default 256 */
	int tls_handshake_timeout_ms; /* default 10000 */
	bool has_filters;             /* network.filters present (plugins) */

	/* filesystem (§2.5) */
	bool fs_disabled;
	struct srt_path_entries deny_read;
	struct srt_path_entries allow_read;
	struct srt_path_entries allow_write;
	struct srt_path_entries deny_write;
	bool allow_git_config;

	/* top level (§2.1) */
	bool has_credentials; /* credentials present (validated, §2.6-2.7) */
	struct srt_ignore_rule *ignore_violations;
	size_t n_ignore_violations;
	bool enable_weaker_nested_sandbox;
	bool allow_nested_user_namespaces;
	bool enable_weaker_network_isolation;
	bool allow_apple_events;
	int mandatory_deny_search_depth; /* 1..10, default 3 */
	bool allow_pty;
	char *bwrap_path;
	struct srt_strv git_safe_directories;
	bool has_windows;

	/* Accepted for compatibility, ignored (debug note): ripgrep, socatPath,
	 * seccomp.applyPath, javaAgentJarPath. */
	struct srt_strv ignored_keys;

	/* Warnings for the user, one line each (unknown keys, ...). */
	struct srt_strv warnings;
};

/* Built-in defaults (§1.4): no network, reads unrestricted, writes only to
 * the default write paths. Cannot fail. */
void srt_settings_init(struct srt_settings *s);
/* Free the contents; leaves s as after srt_settings_init(). */
void srt_settings_release(struct srt_settings *s);

/* Parse and validate JSON text into s (which must be freshly initialised).
 * `origin` names the source in messages (a path, "control fd 3", ...).
 * On failure s is released and diag says what is wrong:
 *   key = the dotted key path or "(root)", message = "<origin>: <key>: ...". */
int srt_settings_parse_json(struct srt_settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag);

/* The same schema from YAML text (libyaml). */
int srt_settings_parse_yaml(struct srt_settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag);

/* Load a settings file (§1.4). `.yaml`/`.yml` are read as YAML, anything
 * else as JSON. `explicit_path` is true for --settings: then a missing,
 * unreadable, empty or invalid file is an error. For the default path a
 * missing file (ENOENT) leaves the defaults and returns SRT_OK with
 * *loaded = false. */
int srt_settings_load_file(struct srt_settings *s, const char *path,
			   bool explicit_path, bool *loaded, struct srt_diag *diag);

/* strv helpers (shared by libsrt). */
int srt__strv_push(struct srt_strv *v, const char *s);
void srt__strv_release(struct srt_strv *v);

#endif
