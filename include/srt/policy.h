/* srt: the validated, resolved policy a backend compiles into its plan.
 *
 * Built by the core from the settings (libsrt/policy-build.c). Every path here is
 * absolute and normalised; backends never see "~" or relative spellings.
 * The core owns all memory; a backend borrows the policy for the lifetime of
 * the state it returns from prepare(). */
#ifndef SRT_POLICY_H
#define SRT_POLICY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum srt_rule_flags {
	SRT_RULE_LITERAL = 1u << 0, /* {path, literal:true}: a name, never a pattern */
	SRT_RULE_GLOB = 1u << 1,    /* path holds glob characters (* ? [ ]) */
	SRT_RULE_DEFAULT = 1u << 2, /* added by srt (default write path, mandatory deny) */
};

struct srt_rule {
	char *path;     /* absolute; for globs, the pattern with an absolute prefix */
	unsigned flags; /* enum srt_rule_flags */
	char *origin;   /* where it came from: "filesystem.denyRead[2]", "mandatory", ... */
};

struct srt_rules {
	struct srt_rule *v;
	size_t n;
};

/* ABI minor 6: a file the command sees at `path` with the content of
 * `source`, read-only (struct srt_policy.masked_files). */
struct srt_masked_file {
	char *path;   /* absolute, links resolved: where the command sees it */
	char *source; /* the copy, a regular file inside masked_dir */
	char *origin; /* "credentials.files[0]" */
};

struct srt_policy {
	char *cwd;    /* the command's working directory (realpath) */
	char *home;   /* $HOME of the caller, or NULL when unknown/empty */
	char *tmpdir; /* TMPDIR handed to the command; exists and is writable */

	int fs_disabled; /* filesystem.disabled: no filesystem rules at all */
	struct srt_rules deny_read;
	struct srt_rules allow_read;
	struct srt_rules allow_write; /* includes default write paths and tmpdir */
	struct srt_rules deny_write;  /* user denyWrite + loaded settings files */
	int allow_git_config;
	int mandatory_deny_depth; /* 1..10 */

	int weaker_nested_sandbox;   /* enableWeakerNestedSandbox */
	int allow_nested_userns;     /* allowNestedUserNamespaces */
	int allow_all_unix_sockets;  /* network.allowAllUnixSockets */
	int allow_local_binding;     /* network.allowLocalBinding */
	char *bwrap_path;            /* settings bwrapPath, or NULL: search PATH */

	/* Network: the command always gets an empty network namespace. When
	 * proxy_dir is set, the proxies listen on Unix sockets inside it and the
	 * backend makes them reachable at 127.0.0.1:<port> inside. */
	char *proxy_dir;        /* 0700 per-run directory, or NULL: no network at all */
	char *proxy_socket;     /* socket path inside proxy_dir, or NULL */
	int http_port;          /* in-sandbox port of the HTTP proxy (3128) */
	int socks_port;         /* in-sandbox port of the SOCKS5 proxy (1080) */
	/* proxy_socket's device and inode as srt bound it: the in-sandbox
	 * bridge connects to that inode only, never to whatever the path
	 * names later (a command that can write a parent of proxy_dir could
	 * otherwise put a link to any host socket there) */
	unsigned long long proxy_socket_dev, proxy_socket_ino;

	int debug; /* -d: backends may print plan details on stderr */

	/* ABI minor 2. network.allowUnixSockets: the Unix socket paths the
	 * command may connect to (absolute, normalised); every other one
	 * stays refused. Appended last: a module built for minor 1 never
	 * reads it (and so refuses every Unix socket, the closed default). */
	struct srt_rules allow_unix_sockets;

	/* ABI minor 2, after allow_unix_sockets. filesystem.allowProtectedNames:
	 * the names of the protected list the user released on purpose,
	 * NULL-terminated, or NULL for none. The list (files something outside the sandbox runs
	 * or reads later) is the backends' to enforce; these stay writable. */
	char **protected_released;

	/* ABI minor 3: the settings only the macOS backend reads (Seatbelt
	 * operations that have no Linux counterpart). Zero/NULL: not asked. */
	int allow_pty;                       /* allowPty */
	int allow_apple_events;              /* allowAppleEvents */
	int enable_weaker_network_isolation; /* enableWeakerNetworkIsolation */
	char **allow_mach_lookup;            /* network.allowMachLookup, NULL-terminated, or NULL */

	/* ABI minor 4. filesystem.enableWeakerNameProtection: the user
	 * accepts a run where a protected or denied file the host replaces
	 * during the run loses its protection (the backend cannot watch the
	 * names: no mount capability for its helper, no fanotify). 0: such a
	 * run is refused. A module built for an older minor never reads it. */
	int weaker_name_protection;

	/* ABI minor 4 too: network.intercept, set only for a backend that
	 * declares SRT_CAP_INTERCEPT and when the proxy runs. The backend
	 * answers DNS inside the sandbox and hands every TCP connection to a
	 * non-loopback address to the proxy as a CONNECT to the name the
	 * answer stood for, authenticated with proxy_token (NULL: the proxy
	 * wants none). Required: a backend that cannot set it up refuses to
	 * run; optional: it says so on one line and runs without. */
	int intercept;      /* enum srt_intercept */
	char *proxy_token;  /* the proxy's per-run token, or NULL */

	/* ABI minor 6. credentials.files in mask mode: the files the
	 * command sees as a read-only copy in which every secret is its
	 * sentinel, at the file's real path. Set only for a backend that
	 * declares SRT_CAP_MASKED_FILES; masked_dir holds the copies and is
	 * srt's private directory, which the backend must hide from the
	 * command (the copies hold sentinels only, but the command has no
	 * business with srt's files). A backend without the capability gets
	 * those files in deny_read instead. */
	struct srt_masked_file *masked_files;
	size_t n_masked_files;
	char *masked_dir;

	/* ABI minor 8. For a backend that declares SRT_CAP_LOOPBACK_PROXY:
	 * the range of loopback TCP ports the command may connect to
	 * (windows.proxyPortRange, default 60080-60089; the backend's network
	 * rules permit these alone), and proxy_port, the one of them the
	 * core's proxy listens on at 127.0.0.1 (proxy_dir and proxy_socket
	 * are then NULL: there is nothing to bridge). 0: no such proxy. */
	int proxy_port_lo, proxy_port_hi;
	int proxy_port;

	/* ABI minor 9. 1: the core asks only for the plan, to print it
	 * (--explain, --dry-run), and refuses to run anything with it. The
	 * backend may then plan without touching the host: no cleanup
	 * process, no placeholder files made for names that do not exist
	 * yet (the plan shows what a run would make). A module built for an
	 * older minor never reads it and plans as for a run. */
	int plan_only;
};

enum srt_intercept {
	SRT_INTERCEPT_OFF = 0,
	SRT_INTERCEPT_REQUIRED = 1,
	SRT_INTERCEPT_OPTIONAL = 2,
};

#ifdef __cplusplus
}
#endif
#endif
