/* Asking the embedding application about a host on neither domain list
 * (the public side: include/srt/ask.h).
 *
 * The core creates the broker (srt__ask_new) when the application installs
 * its callback, owns it, and lends it to the proxy (srt__proxy_config.ask).
 *
 * Threads. The proxy's thread submits questions, cancels them and takes
 * the answers (srt__ask_service, when srt__ask_fd() is readable). The
 * application's callback runs on a thread of the broker's own, never on
 * the proxy's, so a callback that blocks (a prompt) holds up no
 * connection but the ones waiting for it. srt__ask_answer is called from
 * any thread, inside the callback or later.
 *
 * Fail closed. A callback that returns non-zero denies ("permission prompt
 * failed"); the proxy denies a question with no answer within the
 * broker's timeout; an answer to a question that was cancelled (its
 * connection closed, or timed out) is refused and changes nothing. */
#ifndef SRT_PROXY_ASK_H
#define SRT_PROXY_ASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <srt/ask.h>

struct srt__ask;

/* Default time the proxy waits for an answer. */
#define SRT__ASK_TIMEOUT_MS 30000
/* Remembered answers kept at most (further ones are answered, not kept). */
#define SRT__ASK_REMEMBER_MAX 4096
/* Questions open at once at most: a command opening connections to
 * unlisted hosts by the thousand must not queue prompts without end; the
 * ones past it are denied. */
#define SRT__ASK_OPEN_MAX 1024
/* A reason after sanitising: SRT_ASK_REASON_MAX characters in UTF-8. */
#define SRT__ASK_REASON_CAP (4 * SRT_ASK_REASON_MAX + 1)

/* The answer the proxy gets (borrowed for the call). */
struct srt__ask_result {
	bool allow;
	char reason[SRT__ASK_REASON_CAP]; /* deny: never empty */
};

typedef void (*srt__ask_done_fn)(void *ctx, uint64_t id, const struct srt__ask_result *res);

/* A broker calling fn(ctx, ...) on its own thread. timeout_ms 0:
 * SRT__ASK_TIMEOUT_MS. SRT_OK, SRT_E_NOMEM or SRT_E_IO. */
int srt__ask_new(srt_ask_fn fn, void *ctx, unsigned timeout_ms, struct srt__ask **out);
/* Stop the thread (waits for a callback that is running), free every
 * question and remembered answer. NULL-safe. */
void srt__ask_free(struct srt__ask *a);

unsigned srt__ask_timeout_ms(const struct srt__ask *a);
/* Readable when srt__ask_service() has answers to deliver. */
int srt__ask_fd(const struct srt__ask *a);

/* Proxy thread. A remembered answer for canon:port: true and *res set. */
bool srt__ask_recall(struct srt__ask *a, const char *canon, int port,
		     struct srt__ask_result *res);
/* Queue a question (host as requested, canon for remembering). *id names
 * it for srt__ask_cancel; `done` runs from srt__ask_service() only.
 * SRT_OK, SRT_E_NOMEM, or SRT_E_LIMIT (SRT__ASK_OPEN_MAX questions open). */
int srt__ask_submit(struct srt__ask *a, const char *host, const char *canon, int port,
		    const char *command_id, srt__ask_done_fn done, void *ctx, uint64_t *id);
/* Forget a question: its `done` never runs, a late answer is refused. */
void srt__ask_cancel(struct srt__ask *a, uint64_t id);
/* Deliver the answers that arrived. */
void srt__ask_service(struct srt__ask *a);

/* Any thread: the application's answer (include/srt/ask.h). SRT_OK,
 * SRT_E_INVAL (bad verdict or flags), SRT_E_NOENT-like SRT_E_STATE (no
 * such open question). */
int srt__ask_answer(struct srt__ask *a, uint64_t ticket, enum srt_ask_verdict v,
		    const char *reason, unsigned flags);

/* The reason as the violation store shows it: invisible and control runs
 * to one space, '<' and '>' removed, trimmed, at most SRT_ASK_REASON_MAX
 * characters; empty: "user denied". Exposed for the unit test. */
void srt__ask_sanitize(const char *in, char *out, size_t cap);

#endif
