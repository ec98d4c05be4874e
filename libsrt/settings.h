/* Settings: the user's file (JSON or YAML) parsed and validated into plain C,
 * the one struct the rest of the core reads the settings from.
 *
 * Every validation error names the key path ("network.allowedDomains[2]")
 * and the offending value. Unknown keys are not errors: each one adds a
 * warning naming the key to `warnings`. The keys and what they mean are
 * described in README.md; settings-sections.c is the schema. */
#ifndef SRT_SETTINGS_H
#define SRT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <srt/error.h>

#include "common/strv.h"


struct srt__path_entry {
	char *path;   /* as spelled in the file */
	bool literal; /* {path, literal:true} */
};

struct srt__path_entries {
	struct srt__path_entry *v;
	size_t n;
};

struct srt__kv {
	char *key;
	char *value;
};

struct srt__ignore_rule {
	char *command_pattern; /* key of ignoreViolations ("*" = every command) */
	struct srt__strv lines; /* substrings of violation lines */
};

/* network.filters entry: a request-filter plugin and its configuration. */
struct srt__filter_spec {
	char *plugin;      /* name or absolute path, as spelled */
	char *config_json; /* "config" re-serialised as compact JSON, or NULL */
};

/* One credentials.files[] or credentials.envVars[] entry. */
struct srt__credential {
	char *path;                /* files: the file; NULL for envVars */
	char *name;                /* envVars: the variable; NULL for files */
	bool mask;                 /* mode "mask" (false: "deny") */
	char *extract;             /* POSIX ERE with >= 1 group, or NULL */
	char *on_extract_no_match; /* "warn" | "deny" | "error", or NULL */
	bool decode_jwt;           /* decode: "jwt" */
	bool has_mask_claims;
	struct srt__strv mask_claims;
	bool mask_duplicates;
	bool has_inject_hosts;     /* absent: defaults to allowedDomains */
	struct srt__strv inject_hosts;
};

struct srt__aws_pair {
	char *access_key_id_var;
	char *secret_access_key_var;
	char *session_token_var; /* NULL when absent */
};

struct srt__settings {
	/* network */
	struct srt__strv allowed_domains;
	struct srt__strv denied_domains;
	struct srt__kv *denied_domain_reasons;
	size_t n_denied_domain_reasons;
	bool strict_allowlist;
	struct srt__strv denied_resolved_addresses;
	char *private_addresses; /* NULL = default "refuseForWildcards" */
	char *intercept;         /* NULL = default "optional" */
	struct srt__strv allow_unix_sockets;
	bool allow_all_unix_sockets;
	bool allow_local_binding;
	struct srt__strv allow_mach_lookup;
	int http_proxy_port;  /* 0 = unset */
	int socks_proxy_port; /* 0 = unset */
	bool has_mitm_proxy;
	char *mitm_socket_path;
	struct srt__strv mitm_domains;
	bool has_parent_proxy;
	char *parent_http, *parent_https, *parent_no_proxy;
	bool allow_plaintext_header_set;
	struct srt__strv strip_response_headers;
	bool refuse_opaque_tunnels;
	bool require_host_match;
	char *ambiguous_request_target; /* NULL = default "refuse" */
	bool has_tls_terminate;
	char *tls_ca_cert_path, *tls_ca_key_path;
	struct srt__strv tls_exclude_domains;
	struct srt__strv tls_extra_ca_cert_paths;
	int tls_max_tunnels;          /* default 256 */
	int tls_handshake_timeout_ms; /* default 10000 */
	bool has_filters;             /* network.filters present (plugins) */

	/* filesystem */
	bool fs_disabled;
	struct srt__path_entries deny_read;
	struct srt__path_entries allow_read;
	struct srt__path_entries allow_write;
	struct srt__path_entries deny_write;
	bool allow_git_config;
	struct srt__strv allow_caches; /* names of caches opened for writing (caches.h) */
	struct srt__strv allow_protected_names; /* names of common/protected.h released */
	/* run even where the backend cannot keep protected and denied
	 * names covered when the host replaces them during the run */
	bool enable_weaker_name_protection;

	/* top level */
	bool has_credentials; /* credentials present (validated) */
	struct srt__ignore_rule *ignore_violations;
	size_t n_ignore_violations;
	bool enable_weaker_nested_sandbox;
	bool allow_nested_user_namespaces;
	bool enable_weaker_network_isolation;
	bool allow_apple_events;
	int mandatory_deny_search_depth; /* 1..10, default 3 */
	bool allow_pty;
	char *bwrap_path;
	struct srt__strv git_safe_directories;
	bool has_windows;
	/* windows.proxyPortRange; 0, 0: unset (60080-60089, the range the
	 * windows-wfp filters permit by default) */
	int win_proxy_port_lo, win_proxy_port_hi;

	/* Accepted for compatibility, ignored (debug note): ripgrep, socatPath,
	 * seccomp.applyPath, javaAgentJarPath. */
	struct srt__strv ignored_keys;

	/* Warnings for the user, one line each (unknown keys, ...). */
	struct srt__strv warnings;

	/* Additions (settings owner): the parsed detail behind has_filters
	 * and has_credentials. */
	struct srt__filter_spec *filters;
	size_t n_filters;
	struct srt__credential *cred_files;
	size_t n_cred_files;
	struct srt__credential *cred_env_vars;
	size_t n_cred_env_vars;
	bool cred_allow_plaintext_inject;
	struct srt__aws_pair *aws_pairs;
	size_t n_aws_pairs;
	/* credentials.sigv4: "deny" | "passthrough", NULL = default "deny" */
	char *sigv4_streaming, *sigv4_presigned, *sigv4_sigv4a;
	/* Not read from the file: the credentials.files the sandbox may not
	 * read (mode "deny", or an extract that matched nothing with
	 * onExtractNoMatch "deny"), filled when the sandbox is created
	 * (libsrt/credentials.c) and enforced like filesystem.denyRead. */
	struct srt__path_entries cred_deny_read;
};

/* Built-in defaults: no network, reads unrestricted, writes only to
 * the default write paths. Cannot fail. */
void srt__settings_init(struct srt__settings *s);
/* Free the contents; leaves s as after srt__settings_init(). */
void srt__settings_release(struct srt__settings *s);
/* Free the entries; leaves p empty. */
void srt__path_entries_release(struct srt__path_entries *p);

/* Parse and validate JSON text into s (which must be freshly initialised).
 * `origin` names the source in messages (a path, "control fd 3", ...).
 * On failure s is released and diag says what is wrong:
 *   key = the dotted key path or "(root)", message = "<origin>: <key>: ...". */
int srt__settings_parse_json(struct srt__settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag);

/* The same schema from YAML text (libyaml), with the same contract. */
int srt__settings_parse_yaml(struct srt__settings *s, const char *text, size_t len,
			    const char *origin, struct srt_diag *diag);

/* Load a settings file. `.yaml`/`.yml` are read as YAML, anything
 * else as JSON. `explicit_path` is true for --settings: then a missing,
 * unreadable, empty or invalid file is an error. For the default path a
 * missing file (ENOENT) leaves the defaults and returns SRT_OK with
 * *loaded = false. */
int srt__settings_load_file(struct srt__settings *s, const char *path,
			   bool explicit_path, bool *loaded, struct srt_diag *diag);

/* Size and nesting limits for settings text (JSON and YAML alike). */
#define SRT_SETTINGS_MAX_BYTES (4u * 1024 * 1024)
#define SRT_SETTINGS_MAX_DEPTH 64

#endif
