/* The filtering proxy: one event loop on a thread of its own, serving HTTP
 * (absolute-form and CONNECT) and SOCKS5 on one Unix socket or one
 * loopback TCP listener, deciding by the settings' domain lists (struct
 * srt__net_config). */
#ifndef SRT_PROXY_H
#define SRT_PROXY_H

#include <srt/error.h>
#include "common/strv.h"
#include "proxies/net-config.h"

struct srt__proxy;

/* The proxy runs net.filters (proxies/filter-chain.h) on every connection
 * and request the domain lists allow, and attaches itself to the chain. */
#define SRT__PROXY_RUNS_FILTERS 1

/* Called from the proxy thread for every refusal. `command_key` is the
 * attribution decoded from the proxy username (may be NULL), `line` is
 * "deny network-outbound host:port (reason)". */
typedef void (*srt__proxy_violation_fn)(void *ctx, const char *command_key,
				       const char *line);

struct srt__tls_module;
struct srt__tls_ctx;

struct srt__proxy_config {
	const struct srt__net_config *net;   /* copied; not kept */
	const char *socket_path;             /* where to listen (in a 0700 dir) */
	/* With socket_path NULL: a listening loopback TCP socket to serve
	 * instead (where there are no Unix sockets to hand clients over on:
	 * Windows, and `srt proxy`), the proxy's from the call on, closed
	 * even on failure. Its clients never get the bridge's control
	 * connection. */
	int tcp_listener;
	const char *token;                   /* per-run secret, 32 hex chars */
	srt__proxy_violation_fn on_violation;
	void *ctx;
	int debug;
	/* most client connections at once, accepted or passed (0: from
	 * RLIMIT_NOFILE); more are refused as they arrive */
	unsigned max_passed;
	/* the application's ask broker (proxies/ask.h), or NULL: like the
	 * request filters' chain, the core's, kept and watched, never freed */
	struct srt__ask *ask;
	/* network.tlsTerminate: the TLS module and its context (the core's,
	 * outliving the proxy), or NULL: CONNECTs are tunnelled opaquely */
	const struct srt__tls_module *tls;
	struct srt__tls_ctx *tls_ctx;
	/* 1: built and checked as for a run, listening on nothing: the core
	 * only prints the plan of a run (socket_path is the name a run would
	 * bind, and is neither made nor removed) */
	int plan_only;
	/* 1: built and checked, its socket bound later by srt__proxy_listen
	 * (whose caller makes the directory first, and may name another
	 * path); the thread cannot start before */
	int listen_later;
};

struct srt_proxy_options;
/* srt_proxy_serve() (include/srt/srt.h) once the core has read --ca-fd
 * and loaded the TLS module (libsrt/proxy-serve.c): `tls` and `tls_ctx`
 * terminate CONNECTs carrying TLS; NULL refuses every CONNECT. */
/* Write "start failed: " and the formatted reason into why (cap bytes);
 * returns 1, the exit code of a proxy that could not start. */
int srt__proxy_start_failed(char *why, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int srt__proxy_only_serve(const struct srt_proxy_options *o, const struct srt__tls_module *tls,
			  struct srt__tls_ctx *tls_ctx, char *why, size_t cap);

/* Bind the socket and prepare the loop; no thread yet. */
int srt__proxy_new(struct srt__proxy **out, const struct srt__proxy_config *cfg,
		   struct srt_diag *diag);
/* Bind the socket of a proxy made with listen_later: the same bind,
 * mode and listen srt__proxy_new would have done. path (NULL: the
 * config's socket_path) becomes the socket's name, unlinked by
 * srt__proxy_free; bind_path (NULL: path) is where it is bound, such as
 * the same name through a descriptor of its directory
 * ("/proc/self/fd/N/proxy.sock"). */
int srt__proxy_listen(struct srt__proxy *p, const char *path, const char *bind_path,
		      struct srt_diag *diag);
/* Start the loop thread. */
int srt__proxy_start(struct srt__proxy *p, struct srt_diag *diag);
/* Replace the network lists live (thread-safe). */
int srt__proxy_update(struct srt__proxy *p, const struct srt__net_config *net,
		      struct srt_diag *diag);
/* Per-command allow list: connections whose proxy username
 * carries `command_key` (srt__proxy_user) may also reach these domain
 * patterns, unless deniedDomains or strictAllowlist refuse them first.
 * The attribution is chosen by the client (which holds the token), so this
 * widens the policy for everything the sandbox runs. A NULL or empty list
 * removes the entry. Thread-safe; survives srt__proxy_update. */
int srt__proxy_command_domains(struct srt__proxy *p, const char *command_key,
			       const struct srt__strv *allowed, struct srt_diag *diag);

/* Stop the thread, close every connection, close the listener (and
 * unlink the Unix socket). NULL-safe. */
void srt__proxy_free(struct srt__proxy *p);

/* NAME=VALUE strings for the child environment (proxy variables,
 * NO_PROXY, GIT_SSH_COMMAND, ...), for a client reaching the proxy inside
 * the sandbox at localhost:http_port / :socks_port with user:token (user
 * as made by srt__proxy_user; it is percent-encoded here). `connect_helper`
 * is the absolute path of srt-connect (the ssh ProxyCommand): "/..." of
 * plain path characters, or on Windows "C:/..." where a space and
 * parentheses may appear too (it is quoted then); anything else is
 * refused (SRT_E_INVAL). NULL leaves GIT_SSH_COMMAND out. Appends to
 * out. */
int srt__proxy_env(struct srt__strv *out, const char *user, const char *token,
		   int http_port, int socks_port, const char *connect_helper);
/* The same for a client reaching the proxy at host (a literal such as
 * "127.0.0.1" where no bridge answers on localhost's every address). */
int srt__proxy_env_at(struct srt__strv *out, const char *host, const char *user,
		      const char *token, int http_port, int socks_port,
		      const char *connect_helper);

/* A loopback TCP listener for srt__proxy_config.tcp_listener on the first
 * port of [lo, hi] that nobody holds on 127.0.0.1 (lower ports first, so
 * the command's network rules can permit the whole range and nothing
 * else): its descriptor, *port set; or -1 with diag naming the range and
 * `key` (the setting that chose it) when every port of it is taken or
 * cannot be bound. Never a port outside the range. */
int srt__proxy_listen_range(int lo, int hi, const char *key, int *port, struct srt_diag *diag);

/* The proxy username carrying the attribution: "srt.<base64 of the
 * first 100 bytes of command_key>", or "srt" when command_key is NULL or
 * empty or the name would exceed 255 bytes. */
void srt__proxy_user(const char *command_key, char *out, size_t cap);

/* Lookups the proxy has started (tests: a denied name must start none). */
unsigned long srt__proxy_dns_count(struct srt__proxy *p);

#endif
