/* srt: asking the embedding application about hosts on neither list.
 *
 * With an ask callback installed (srt_sandbox_set_ask), a connection to a
 * host that is on neither network.allowedDomains nor
 * network.deniedDomains (nor the command's own list), while
 * network.strictAllowlist is off, is held while the application is asked;
 * the other connections go on meanwhile. The decision order stays:
 * deniedDomains, allowedDomains, strictAllowlist, the command's list, then
 * the question. Without a callback such hosts are denied ("host is not on
 * the allow list"), as before.
 *
 * The callback runs on a thread the library owns (never the proxy's), one
 * question at a time: it may block (a prompt), which delays the questions
 * behind it but no other connection. It answers with srt_ask_answer(),
 * from inside the call or later from any thread. A callback that returns
 * non-zero denies ("permission prompt failed"); a question not answered
 * within the timeout denies ("permission prompt timed out"). Every denial
 * is recorded as "deny network-outbound <host>:<port> (<reason>)". */
#ifndef SRT_ASK_H
#define SRT_ASK_H

#ifdef __cplusplus
extern "C" {
#endif

struct srt_sandbox;

/* A reason longer than this many characters is cut. */
#define SRT_ASK_REASON_MAX 500

/* One question, borrowed for the call. */
struct srt_ask_request {
	unsigned long long ticket; /* for srt_ask_answer */
	const char *host;          /* as the command asked for it (not canonical) */
	int port;
	const char *command_id;    /* the attribution key of the command, or NULL */
};

/* Return 0 when the question is (or will be) answered with
 * srt_ask_answer; anything else denies it. */
typedef int (*srt_ask_fn)(void *ctx, const struct srt_ask_request *req);

enum srt_ask_verdict {
	SRT_ASK_DENY = 0,
	SRT_ASK_ALLOW = 1,
	SRT_ASK_FAIL = 2, /* the prompt failed: deny ("permission prompt failed") */
};

/* Flags of srt_ask_answer: keep the answer for this host and port for the
 * life of the sandbox (later connections are not asked again; the domain
 * lists, also after a settings update, still come first). */
#define SRT_ASK_REMEMBER 0x1u

/* Install the ask callback (fn NULL removes it). timeout_ms: how long a
 * connection waits for the answer; 0 means 30000. Before
 * srt_sandbox_start() only: SRT_E_STATE afterwards. */
int srt_sandbox_set_ask(struct srt_sandbox *sb, srt_ask_fn fn, void *ctx,
			unsigned timeout_ms);

/* Answer a question: verdict, and for a denial an optional reason (shown
 * in the violation after sanitising: control and invisible characters
 * become a space, '<' and '>' are dropped, at most SRT_ASK_REASON_MAX
 * characters; none or empty: "user denied"). Thread-safe, callable from
 * the callback itself, until srt_sandbox_free() is entered. SRT_OK;
 * SRT_E_INVAL for a bad verdict or flags; SRT_E_STATE when the ticket is
 * not an open question (answered already, timed out, or its connection
 * closed: the answer changes nothing). */
int srt_ask_answer(struct srt_sandbox *sb, unsigned long long ticket,
		   enum srt_ask_verdict verdict, const char *reason, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
