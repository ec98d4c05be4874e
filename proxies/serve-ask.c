/* The domain lists' decision on a connection's target, with the question
 * to the application (proxies/ask.h) for a host on neither list.
 *
 * A question parks the connection in SRT_PH_ASK (the loop serves the
 * others meanwhile); the answer stores the outcome and calls the step
 * that asked again, which meets the stored outcome where it judged the
 * target the first time. An allowed answer also holds for the rest of the
 * connection's life for the same host and port (a step that judges again
 * after a filter's pending verdict must not ask twice); the domain lists
 * are still consulted first every time. The connection's deadline is the
 * broker's timeout: srt__ask_expired() denies. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxies/ask.h"
#include "proxies/conn.h"

struct srt__askstate {
	uint64_t id;
	bool waiting, ready;
	struct srt__ask_result res;
	char host[256];           /* what the answer is about */
	int port;
	bool granted;             /* an allow for host:port on this connection */
	enum srt__phase resume_phase;
	void (*resume)(struct srt__conn *c);
};

void srt__ask_end(struct srt__conn *c)
{
	if (!c->ask)
		return;
	if (c->ask->waiting && c->p->ask)
		srt__ask_cancel(c->p->ask, c->ask->id);
	free(c->ask);
	c->ask = NULL;
}

static bool same_target(const struct srt__askstate *s, const struct srt__conn *c)
{
	return s->port == c->port && strcmp(s->host, c->host) == 0;
}

static void on_answer(void *ctx, uint64_t id, const struct srt__ask_result *res)
{
	struct srt__conn *c = ctx;
	struct srt__askstate *s = c->ask;

	/* the connection may have closed during this very delivery: it is
	 * freed only after the loop's round, and its state is gone */
	if (c->dead || !s || !s->waiting || s->id != id)
		return;
	s->waiting = false;
	s->ready = true;
	s->res = *res;
	srt__timed_clear(c);
	c->phase = s->resume_phase;
	s->resume(c);
	if (!c->dead)
		srt__conn_run(c);
}

static int deny(struct srt__conn *c, const char *reason)
{
	srt__deny_policy(c, reason);
	return SRT__ASK_REFUSED;
}

/* The answer came: allow (and keep it for this connection) or deny. */
static int apply(struct srt__conn *c, const struct srt__ask_result *res)
{
	if (!res->allow)
		return deny(c, res->reason);
	c->ask->granted = true;
	return SRT__ASK_GO;
}

static int ask(struct srt__conn *c, void (*resume)(struct srt__conn *c))
{
	struct srt__askstate *s = c->ask;
	char canon[256];
	int rc;

	srt__net_canon(c->host, canon, sizeof(canon));
	rc = srt__ask_submit(c->p->ask, c->host, canon, c->port, c->key, on_answer, c, &s->id);
	if (rc == SRT_E_LIMIT)
		return deny(c, "too many permission prompts open");
	if (rc != SRT_OK)
		return deny(c, "permission prompt failed");
	s->waiting = true;
	s->resume_phase = c->phase;
	s->resume = resume;
	c->phase = SRT_PH_ASK;
	srt__timed_set(c, (int)srt__ask_timeout_ms(c->p->ask));
	return SRT__ASK_PARKED;
}

int srt__conn_judge(struct srt__conn *c, void (*resume)(struct srt__conn *c))
{
	char reason[512];
	enum srt__verdict v = srt__conn_verdict(c, reason, sizeof(reason));
	struct srt__askstate *s = c->ask;
	struct srt__ask_result res;
	char canon[256];

	if (v == SRT__VERDICT_ALLOW)
		return SRT__ASK_GO;
	if (v == SRT__VERDICT_DENY || !c->p->ask)
		return deny(c, reason);
	if (s && s->ready && same_target(s, c)) {
		s->ready = false;
		return apply(c, &s->res);
	}
	if (s && s->granted && same_target(s, c))
		return SRT__ASK_GO;
	if (!s) {
		s = c->ask = calloc(1, sizeof(*s));
		if (!s)
			return deny(c, "permission prompt failed");
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->host, sizeof(s->host), "%s", c->host);
	s->port = c->port;
	srt__net_canon(c->host, canon, sizeof(canon));
	if (srt__ask_recall(c->p->ask, canon, c->port, &res))
		return apply(c, &res);
	return ask(c, resume);
}

void srt__ask_expired(struct srt__conn *c)
{
	srt__timed_clear(c);
	srt__ask_end(c);
	srt__deny_policy(c, "permission prompt timed out");
	if (!c->dead)
		srt__conn_run(c); /* sends the refusal */
}
