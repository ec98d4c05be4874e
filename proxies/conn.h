/* The proxy's connections, shared by the files of the proxy (private to
 * proxies/: nothing outside includes it).
 *
 * Every connection is a small state machine driven by edge-triggered
 * events: srt__conn_run() makes as much progress as it can and returns when
 * a socket would block, so an edge is never lost. Header buffers exist only
 * while a head is parsed; a tunnel holds two sockets and a few hundred
 * bytes, and borrows a splice pipe only while data is in flight.
 *
 * The rooms: proxy.c (the loop, accepting, the bridge's hand-over, the
 * public functions), conn.c (a connection's life: deadlines, closing,
 * refusals, the phase driver), io.c (every byte a connection reads or
 * writes, and the buffers), dial.c (routes, lookups, the address guard's
 * verdict, connecting, parent and mitm proxies), serve-http.c (plain HTTP
 * and CONNECT), serve-socks.c (SOCKS5), tunnel.c (the SNI check, tunnels
 * and lingering before a close), serve-filter.c (the request filters). */
#ifndef SRT_PROXY_CONN_H
#define SRT_PROXY_CONN_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxies/evloop.h"
#include "proxies/dns.h"
#include "proxies/guard.h"
#include "proxies/http.h"
#include "proxies/layer.h"
#include "proxies/proxy.h"
#include "proxies/pump.h"
#include "proxies/route.h"
#include "proxies/rules.h"
#include "common/strv.h"

#define SRT_EP_LISTEN 0x4c53544e
#define SRT_EP_WAKE 0x57414b45
#define SRT_EP_CLIENT 0x434c4e54
#define SRT_EP_UP 0x55505354
#define SRT_EP_FILTER 0x46494c54
#define SRT_EP_ASK 0x41534b51

#define SRT_FIRST_BYTE_MS 10000
#define SRT_HEAD_MS 30000
#define SRT_SOCKS_NOAUTH_MS 5000
#define SRT_CONNECT_MS 30000
#define SRT_IDLE_MS 120000
#define SRT_LINGER_MS 2000
/* With request filters, how long a tunnel's client may stay silent after
 * the proxy answered it before the connection hook runs without a server
 * name (a protocol where the server speaks first, such as SMTP or MySQL,
 * waits this long once per connection). A hello that has begun must be
 * complete within SRT_HEAD_MS. */
#define SRT_PEEK_MS 1000
#define SRT_BODY_BUF (16 * 1024)
#define SRT_COPY_CHUNK (16 * 1024) /* srt__io_copy's reads between sockets */
/* and through a layer that frames (TLS): several 16 KiB records per call,
 * which the layer reads and writes with one system call each way */
#define SRT_COPY_CHUNK_LAYERED (64 * 1024)
#define SRT_MAX_ADDRS 16

enum srt__phase {
	SRT_PH_SNIFF,
	SRT_PH_HTTP_HEAD,
	SRT_PH_SOCKS_GREET,
	SRT_PH_SOCKS_AUTH,
	SRT_PH_SOCKS_REQ,
	SRT_PH_RESOLVE,
	SRT_PH_CONNECT,
	SRT_PH_HTTP_REQBODY,
	SRT_PH_HTTP_RESPHEAD,
	SRT_PH_HTTP_RESPBODY,
	SRT_PH_PROXY_HS,  /* CONNECT sent to a parent/mitm proxy, reading its answer */
	SRT_PH_SNI,       /* tunnel open; holding the client's first bytes for the SNI check */
	SRT_PH_TUNNEL,
	SRT_PH_LINGER,
	SRT_PH_FDRECV,    /* the bridge's control connection: receives TCP sockets */
	SRT_PH_NAMES,     /* the bridge's DNS answerer asking about names (intercept.c) */
	SRT_PH_FILTER,    /* waiting for a request filter's verdict (serve-filter.c) */
	SRT_PH_FILTER_BODY, /* reading the request body the filters asked to see */
	SRT_PH_ASK,       /* waiting for the application's answer (serve-ask.c) */
	SRT_PH_TLS_HS,    /* terminating the tunnel's TLS: the two handshakes (terminate.c) */
	SRT_PH_PEEK,      /* with request filters: the tunnel is answered, nothing dialled
			   * yet; reading the client's first bytes for the ClientHello's
			   * server name the connection hook sees (tunnel.c) */
};

/* SRT_K_RAW: relayed unparsed to an external proxy (httpProxyPort, socksProxyPort) */
enum srt__kind { SRT_K_HTTP_CONNECT, SRT_K_HTTP_PLAIN, SRT_K_SOCKS, SRT_K_RAW };

struct srt__ep {
	uint32_t tag;
};

/* What a connection's client and upstream sockets are watched for:
 * edge-triggered, so a read or write is tried only after something
 * changed (struct srt__side). */
#define SRT__CONN_EVENTS (SRT_EV_IN | SRT_EV_OUT | SRT_EV_RDHUP | SRT_EV_EDGE)

struct srt__buf {
	char *p;
	size_t len, cap;
};

/* What epoll told us about one socket since we last drained it. With
 * edge-triggered events a read is only worth a system call when data (or
 * EOF) arrived after the last read that came back short or EAGAIN. */
struct srt__side {
	bool rd;  /* readable: an EPOLLIN edge since the last drain */
	bool hup; /* the peer shut down or failed: always try */
};

struct srt__conn {
	struct srt__ep cep, uep;
	struct srt__proxy *p;
	/* the client's and the upstream's socket layers, and the top of each
	 * connection's stack (proxies/layer.h), which every read and write
	 * goes through */
	struct srt__layer cl, ul;
	struct srt__layer *cio, *uio;
	struct srt__side cs, us; /* client and upstream socket state */
	enum srt__phase phase;
	enum srt__kind kind;
	bool dead;
	bool socks_noauth; /* SSH probe: the SOCKS client offered no authentication */
	bool cshut, ushut; /* shutdown(SHUT_WR) sent to client / upstream */
	bool keep_alive, head_request, close_after, upstream_close;
	bool upgrade;      /* the request in flight asks to switch protocols */
	bool unix_client;  /* accepted on the Unix socket (may become SRT_PH_FDRECV) */
	bool ctl;          /* a hand-over connection, counted in p->nctl */
	bool names_authed; /* SRT_PH_NAMES: the token line passed */
	struct srt__buf in;   /* from the client, while parsing */
	struct srt__buf uin;  /* from the upstream, while parsing */
	struct srt__buf cout; /* to the client, pending */
	struct srt__buf uout; /* to the upstream, pending */
	size_t cout_off, uout_off;
	struct srt__pump up, down;
	/* the copy path's bytes in flight (srt__io_copy), each way */
	struct srt__buf upq, downq;
	size_t upq_off, downq_off;
	/* bytes relayed each way on this connection (bodies and tunnels) */
	uint64_t moved_up, moved_down;
	enum srt__http_body req_body, resp_body;
	uint64_t req_left, resp_left;
	struct srt__chunked chunk;
	char host[256];  /* as requested */
	char canon[256];
	int port;
	char up_canon[256]; /* target of the open upstream connection */
	int up_port;
	enum srt__route up_route;
	unsigned long up_gen;     /* the rules it passed (srt__proxy.gen) */
	enum srt__route route;     /* of the current request */
	struct srt__upstream *via; /* parent or mitm proxy, or NULL: direct */
	int dial_port;            /* what start_connect() dials */
	char *key;       /* attribution */
	char *auth_ok;   /* the last Proxy-Authorization accepted on this connection */
	size_t auth_ok_len;
	struct srt__dns_query *q;
	unsigned long q_gen;      /* p->gen of the guard that passed addrs */
	struct srt__ip addrs[SRT_MAX_ADDRS];
	size_t naddrs, next_addr;
	/* a TLS-terminated tunnel (terminate.c): its requests are served as
	 * plain HTTP between the two TLS layers, always to the CONNECT target */
	bool terminated;
	/* a CONNECT that asked for its tunnel to be served as plain HTTP
	 * (SRT_SERVE_HTTP_HEADER, proxies/wire.h: the bridge's intercepted
	 * port-80 connections): its requests are parsed, judged and filtered
	 * like the terminated ones, always to the CONNECT target */
	bool inner_http;
	/* handed over by the bridge with its CONNECT head (SRT_PASS_ICEPT):
	 * until the tunnel opens, nothing of the proxy's answer reaches the
	 * client, which never sent it */
	bool icept_pending;
	bool up_hs_done;
	char tls_name[256]; /* the name the client's ClientHello asked for, or "" */
	/* SRT_PH_PEEK: the client was told the tunnel is open before anything
	 * was dialled (a later refusal can only close it), and the server
	 * name its ClientHello asked for ("" when none was read in time) */
	bool answered;
	char sni[256];
	/* the request filters' passage in progress (serve-filter.c), or NULL,
	 * and the last one's state kept for the next request on the
	 * connection (no allocation of it per request) */
	struct srt__fstate *f, *f_spare;
	/* the question about the target (serve-ask.c), or NULL */
	struct srt__askstate *ask;
	int64_t deadline;
	struct srt__conn *tprev, *tnext; /* timed list */
	struct srt__conn *prev, *next;   /* every connection */
};

struct srt__cmd_list {
	char *key;
	char **v;
	size_t n;
	struct srt__cmd_list *next;
};

struct srt__proxy {
	struct srt__ep lep, wep;
	int lfd, wakefd[2]; /* wakefd: a pipe that ends the loop's wait */
	struct srt__evloop *ev;
	bool copy_only; /* never splice: the loop cannot see the pipes' edges */
	char *path;
	char *token;
	srt__proxy_violation_fn on_violation;
	void *ctx;
	int debug;
	pthread_t thread;
	bool started;
	bool listen_pending; /* made with listen_later, not bound yet */
	atomic_bool stop;
	pthread_mutex_t lock; /* guards rules and cmds */
	struct srt__net_rules *rules;
	struct srt__cmd_list *cmds;
	/* bumped by every change of rules: a kept upstream that passed older
	 * ones is dialled again, through the guard of the new ones */
	atomic_ulong gen;
	struct srt__dns *dns;
	/* the request filters (net-config.h: the core's, never freed here),
	 * NULL when there are none; fep watches their descriptor */
	struct srt__filter_chain *filters;
	struct srt__ep fep;
	/* the application's ask broker (proxies/ask.h: the core's, never
	 * freed here), NULL when it asks nothing; aep watches its descriptor */
	struct srt__ask *ask;
	struct srt__ep aep;
	uint64_t filter_ids; /* numbers the filters' connections and requests */
	size_t filter_held;  /* request-body bytes held for the filters, all connections */
	struct srt__pipe_pool pool;
	struct srt__conn *conns;
	struct srt__conn *timed;
	struct srt__conn *dead;
	size_t nclients;    /* live client connections, accepted or passed,
			     * but not the hand-over ones (nctl) */
	size_t nctl;        /* live hand-over (control) connections */
	size_t max_clients; /* clients at most at once (RLIMIT_NOFILE) */
	bool accept_paused; /* the listener is out of epoll: no descriptor left */
	bool warned_limit, warned_nofile;
	/* the head being parsed: one call at a time on the loop's thread,
	 * never kept past it (a head is 4.6 KiB: no allocation per request) */
	struct srt__http_head head;
	struct srt__ip *local;
	size_t nlocal;
	int64_t local_at;
	/* TLS termination (terminate.c): the module and its context, or NULL */
	const struct srt__tls_module *tls;
	struct srt__tls_ctx *tls_ctx;
	struct srt__strv tls_exclude;
	int tls_max, tls_hs_ms;
	size_t tls_open; /* terminated tunnels open now */
};

enum { SRT_FILL_DATA, SRT_FILL_AGAIN, SRT_FILL_EOF, SRT_FILL_ERR, SRT_FILL_FULL };

/* srt__io_read_head's answers besides the parser's: nothing more to read
 * now (epoll resumes the caller), or EOF or a read error before a full
 * head. */
enum { SRT_HEAD_AGAIN = INT_MIN, SRT_HEAD_CLOSED };

/* the flags srt__rule_flag reads */
enum { SRT_FLAG_REFUSE_OPAQUE, SRT_FLAG_REQUIRE_HOST };

/* ---- io.c: buffers and the bytes of a connection ---------------------- */

int srt__buf_reserve(struct srt__buf *b, size_t extra);
int srt__buf_add(struct srt__buf *b, const void *data, size_t n);
void srt__buf_consume(struct srt__buf *b, size_t n);
void srt__copy_str(char *dst, size_t cap, const char *src);
void srt__buf_free(struct srt__buf *b);
int srt__io_fill(struct srt__layer *l, struct srt__side *sd, struct srt__buf *b, size_t max);
int srt__io_read_head(struct srt__layer *l, struct srt__side *sd, struct srt__buf *b, size_t max,
		int (*parse)(const char *, size_t, struct srt__http_head *), struct srt__http_head *h);
int srt__io_flush(struct srt__layer *l, struct srt__buf *b, size_t *off);
int srt__io_copy(struct srt__layer *src, struct srt__layer *dst, struct srt__buf *q,
		 size_t *off, uint64_t *left);
int srt__io_move(struct srt__conn *c, struct srt__layer *src, struct srt__layer *dst,
		 struct srt__pump *pump, uint64_t *left);

/* ---- conn.c: a connection's life --------------------------------------- */

int64_t srt__now_ms(void);
void srt__timed_set(struct srt__conn *c, int ms);
void srt__timed_clear(struct srt__conn *c);
void srt__close_registered(struct srt__proxy *p, int fd);
void srt__resume_accept(struct srt__proxy *p);
void srt__close_upstream(struct srt__conn *c);
void srt__conn_close(struct srt__conn *c);
void srt__conn_violation(struct srt__conn *c, const char *reason);
void srt__reply_and_close(struct srt__conn *c, const void *data, size_t n);
void srt__reply_text(struct srt__conn *c, const char *text);
void srt__reply_http(struct srt__conn *c, int status, const char *phrase, const char *mark,
		const char *body);
void srt__deny_policy(struct srt__conn *c, const char *reason);
void srt__deny_address(struct srt__conn *c, const char *reason);
void srt__bad_gateway(struct srt__conn *c);
bool srt__rule_flag(struct srt__conn *c, int which);
bool srt__conn_decide(struct srt__conn *c, char *reason, size_t cap);
enum srt__verdict srt__conn_verdict(struct srt__conn *c, char *reason, size_t cap);
void srt__conn_run(struct srt__conn *c);

/* ---- dial.c: the way to the target ------------------------------------- */

int srt__choose_route(struct srt__conn *c, bool plain);
void srt__dial(struct srt__conn *c);
void srt__proxy_handshake(struct srt__conn *c);
void srt__check_connect(struct srt__conn *c);
void srt__start_external(struct srt__conn *c);

/* ---- serve-http.c, serve-socks.c, tunnel.c: the protocols -------------- */

void srt__serve_http_head(struct srt__conn *c);
void srt__serve_http_reqbody(struct srt__conn *c);
void srt__serve_http_resphead(struct srt__conn *c);
void srt__serve_http_respbody(struct srt__conn *c);
void srt__serve_socks_greet(struct srt__conn *c);
void srt__serve_socks_auth(struct srt__conn *c);
void srt__serve_socks_req(struct srt__conn *c);
void srt__sni_check(struct srt__conn *c);
/* With request filters, an allowed CONNECT or SOCKS5 target: answer the
 * client, read its ClientHello (SRT_PH_PEEK), run the connection hook with
 * its server name, then dial. */
void srt__tunnel_open(struct srt__conn *c);
void srt__tunnel_peek(struct srt__conn *c);
/* SRT_PH_PEEK's deadline: a silent client's hook runs without a name; a
 * hello begun and never finished closes the tunnel. */
void srt__tunnel_peek_expired(struct srt__conn *c);
void srt__tunnel(struct srt__conn *c);
void srt__linger(struct srt__conn *c);

/* ---- serve-filter.c: the request filters -------------------------------- */

/* What a filter step tells its caller: go on, wait (the connection is
 * parked; `resume`, or for a request srt__serve_http_head, runs again
 * with the outcome), or stop (the client has its answer). */
enum { SRT__FILTER_GO = 0, SRT__FILTER_PARKED, SRT__FILTER_REFUSED };
struct srt__fstate;
int srt__filter_connection(struct srt__conn *c, const char *scheme, const char *sni,
			   void (*resume)(struct srt__conn *c));
int srt__filter_request(struct srt__conn *c, struct srt__http_head *h,
			const struct srt__http_request *r, const char *target, size_t target_len,
			size_t head_len);
/* Read and show the held request body to the filters (SRT_PH_FILTER_BODY). */
void srt__filter_body(struct srt__conn *c);
/* The proxy runs request filters (a chain with at least one). */
bool srt__filter_active(const struct srt__conn *c);
/* The filters' body step already sent the client its 100 Continue. */
bool srt__filter_continued(const struct srt__conn *c);
int srt__filter_response(struct srt__conn *c, struct srt__http_head *h,
			 const struct srt__http_response *r);
/* The passage is over (the response was relayed, or the connection
 * closes): the filters' finish hooks. */
void srt__filter_end(struct srt__conn *c);
/* After the filters allowed a request and before its head is built: when
 * a filter rewrites the body, *r's framing becomes what is sent (chunked
 * when the length may change). 0, or -1 when the request was refused
 * (the client has its answer). */
int srt__filter_rewrite_plan(struct srt__conn *c, const struct srt__http_head *h,
			     struct srt__http_request *r);
/* A filter rewrites this request's body (planned above). */
bool srt__filter_rewriting(const struct srt__conn *c);
/* Relay the request body through the rewriting filter: 1 complete, 0
 * wait, -1 failed (the caller closes the connection). */
int srt__filter_relay_rewritten(struct srt__conn *c);

/* ---- serve-ask.c: the lists' decision, and asking the application ---- */

/* Judge the target (c->host, c->port): GO (allowed), PARKED (a question
 * is out; `resume` runs again with the answer), REFUSED (denied, the
 * client has its answer and the violation is recorded). */
enum { SRT__ASK_GO = 0, SRT__ASK_PARKED, SRT__ASK_REFUSED };
struct srt__askstate;
int srt__conn_judge(struct srt__conn *c, void (*resume)(struct srt__conn *c));
/* SRT_PH_ASK's deadline passed: deny. */
void srt__ask_expired(struct srt__conn *c);
/* The connection closes: a pending question is cancelled. */
void srt__ask_end(struct srt__conn *c);
/* ---- terminate.c: TLS termination --------------------------------------- */

struct srt__proxy_config;
/* Keep the TLS module and the tlsTerminate settings (none: a no-op). */
int srt__tls_setup(struct srt__proxy *p, const struct srt__proxy_config *cfg);
void srt__tls_teardown(struct srt__proxy *p);
/* After the tunnel's SNI check: terminate it when the proxy does TLS
 * termination for this target. True when termination took the connection
 * (or closed it); `sni` is the ClientHello's server name or NULL. */
bool srt__tls_take(struct srt__conn *c, const char *sni);
/* The CONNECT target (c->canon, c->port) would be terminated if its
 * tunnel carries TLS: the proxy terminates and does not exclude it. */
bool srt__tls_may_take(const struct srt__conn *c);
void srt__tls_handshakes(struct srt__conn *c);
/* A request head inside a terminated tunnel, or one served as plain
 * HTTP (inner_http). */
void srt__tls_serve_head(struct srt__conn *c);
/* The ambiguous-target check of serve-http.c: 0 to go on, -1 answered. */
int srt__http_target_check(struct srt__conn *c, struct srt__http_request *r, char **norm);

/* ---- proxy.c ------------------------------------------------------------ */

void srt__fd_recv(struct srt__conn *c);
/* SRT_PH_NAMES: answer the name lines (proxies/wire.h). */
void srt__serve_names(struct srt__conn *c);

#endif
