/* The public side of asking the application (include/srt/ask.h): the
 * sandbox owns the broker (proxies/ask.h) from srt_sandbox_set_ask until
 * srt_sandbox_free, and lends it to the proxy when the proxy starts. */
#include "config.h"

#include "proxies/ask.h"
#include "sandbox.h"

int srt_sandbox_set_ask(struct srt_sandbox *sb, srt_ask_fn fn, void *ctx,
			unsigned timeout_ms)
{
	struct srt__ask *a = NULL;
	int rc;

	if (!sb)
		return SRT_E_INVAL;
	/* the proxy watches the broker it was given at start */
	if (sb->started || sb->proxy)
		return SRT_E_STATE;
	if (fn && (rc = srt__ask_new(fn, ctx, timeout_ms, &a)) != SRT_OK)
		return rc;
	srt__ask_free(sb->ask);
	sb->ask = a;
	return SRT_OK;
}

int srt_ask_answer(struct srt_sandbox *sb, unsigned long long ticket,
		   enum srt_ask_verdict verdict, const char *reason, unsigned flags)
{
	if (!sb)
		return SRT_E_INVAL;
	if (!sb->ask)
		return SRT_E_STATE;
	return srt__ask_answer(sb->ask, ticket, verdict, reason, flags);
}
