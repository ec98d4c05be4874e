/* credentials: the wrap-time masking and the filter that injects the real
 * values, set up when a sandbox is created (credentials.c). */
#ifndef SRT_LIBSRT_CREDENTIALS_H
#define SRT_LIBSRT_CREDENTIALS_H

#include "sandbox.h"

/* With `credentials` in the settings: load the credentials module, have
 * it mask the variables and files (sb->cred_env, sb->cred_unset,
 * settings.cred_deny_read) and put its filter first in the chain. Fails
 * closed with one line naming the entry. Called before network.filters
 * are loaded, with the chain and sb->filter_modules (room for one more)
 * ready. */
int srt__sandbox_load_credentials(struct srt_sandbox *sb, struct srt_diag *diag);

/* Apply sb's masking to a built environment: the unset names removed. */
void srt__credentials_env_drop(const struct srt_sandbox *sb, char **env);

#endif
