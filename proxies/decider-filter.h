/* A request filter (the hooks of <srt/filter.h>) whose verdicts come from
 * an external decider over the protocol of decider.h. It is the body of
 * the `exec` filter module (which spawns the decider) and of `srt proxy`
 * (which is handed the decider's descriptors).
 *
 * The link runs on a thread of its own, so the proxy's loop never waits
 * for the decider: the request-head hook sends the request and answers
 * SRT_FILTER_PENDING, and the verdict completes the call from that
 * thread. Verdicts map to the filter ABI as follows:
 *
 *   allow              CONTINUE (later filters still narrow)
 *   allow with setHeaders, removeHeaders or cred
 *                      CONTINUE, the edits applied by the completed hook
 *                      (ABI 1.2) on the proxy's thread before anything is
 *                      forwarded: removeHeaders first (every spelling that
 *                      folds to the name), then cred (the client's
 *                      credential headers removed, Authorization set:
 *                      Basic x-access-token for class "github" to
 *                      github.com, Bearer elsewhere), then setHeaders (one
 *                      line per name, values joined by ", "). An edit the
 *                      proxy cannot apply fails the request (ERROR, 502).
 *                      setHeaders or cred on a plain-HTTP request (not
 *                      inside terminated TLS) is DENY 403
 *                      (plaintext_header_set) unless plaintext_header_set
 *                      is configured: a secret is not sent in clear text
 *                      by default
 *   deny               DENY with the decider's status and reason
 *   need_body          the request-head call completes with CONTINUE and
 *                      body_cap (the decider's max, at most body_max), the
 *                      proxy collects the body, and the body hook sends it
 *                      (cut when longer) and answers PENDING for the final
 *                      verdict. On a GET, HEAD or OPTIONS request that has
 *                      a body: DENY 403 (bodyless_method_body)
 *   no verdict in 5 s, the decider dead or breaking the protocol
 *                      DENY 503 (decider_unavailable)
 *   a request over the protocol's limits
 *                      DENY 400 (bad_request), without asking
 *
 * The hello's lists narrow too: a host matching deniedDomains, or missing
 * from a non-empty allowedDomains, is refused 403 without asking. */
#ifndef SRT_PROXY_DECIDER_FILTER_H
#define SRT_PROXY_DECIDER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <srt/filter.h>

#include "common/strv.h"

struct srt__dfilter;

/* Called once, from the link's thread, when the decider dies or breaks
 * the protocol (after every pending call was completed). */
typedef void (*srt__dfilter_dead_fn)(void *ctx, const char *why);

struct srt__dfilter_config {
	int in_fd, out_fd;     /* owned from now on (closed on failure too) */
	pid_t child;           /* the decider process to stop and reap, or 0 */
	size_t body_max;       /* most request-body bytes collected for a
				* need_body (0: SRT_FILTER_BODY_MAX) */
	bool plaintext_header_set; /* apply setHeaders and cred on plain HTTP */
	bool narrow_by_hello;  /* refuse hosts the hello's lists refuse */
	const struct srt_filter_host *host; /* for log lines; may be NULL */
	srt__dfilter_dead_fn dead;
	void *dead_ctx;
};

/* Start the link thread. SRT_OK, or a negative srt_err with why. */
int srt__dfilter_start(const struct srt__dfilter_config *cfg, struct srt__dfilter **out,
		       char *why, size_t cap);

/* Wait up to timeout_ms for the decider's hello; copy its lists into
 * allowed/denied (either may be NULL). SRT_OK; SRT_E_IO when the decider
 * died first or the time ran out (why says which). */
int srt__dfilter_wait_hello(struct srt__dfilter *f, int timeout_ms, struct srt__strv *allowed,
			    struct srt__strv *denied, char *why, size_t cap);

/* The hooks (state is the struct srt__dfilter). destroy completes every
 * pending call, stops the thread, closes the link and stops and reaps the
 * child. */
/* The connection hook (the exec filter's; srt proxy refuses opaque
 * tunnels before any filter): an opaque CONNECT or SOCKS5 tunnel is put
 * to the decider as a req frame with method "CONNECT", its target's host
 * and port, "sni" when the tunnel's TLS hello named a server, and path
 * "host:port"; plain requests continue here and are asked about in the
 * request-head hook. The verdict maps as for a request, except that an
 * allow with header edits is ERROR (502: a tunnel has no headers) and
 * need_body is DENY 403 (it has no body). */
enum srt_filter_verdict srt__dfilter_connection(void *state, const struct srt_filter_conn *conn,
						struct srt_filter_call *call);
enum srt_filter_verdict srt__dfilter_request_head(void *state, struct srt_filter_request *req,
						  struct srt_filter_call *call);
enum srt_filter_verdict srt__dfilter_request_body(void *state, struct srt_filter_request *req,
						  const void *chunk, size_t len, int end,
						  int truncated, struct srt_filter_call *call);
void srt__dfilter_finish(void *state, const struct srt_filter_conn *conn,
			 const struct srt_filter_request *req,
			 const struct srt_filter_summary *summary, void **data);
void srt__dfilter_cancel(void *state, struct srt_filter_call *call);
enum srt_filter_verdict srt__dfilter_completed(void *state, struct srt_filter_request *req,
					       enum srt_filter_verdict verdict,
					       struct srt_filter_call *call);
void srt__dfilter_destroy(void *state);

/* Requests waiting for their verdict (tests). */
size_t srt__dfilter_pending(struct srt__dfilter *f);

#endif
