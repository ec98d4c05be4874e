/* credentials: the wrap-time masking and the filter that injects the real
 * values, set up when a sandbox is created (credentials.c). */
#ifndef SRT_LIBSRT_CREDENTIALS_H
#define SRT_LIBSRT_CREDENTIALS_H

#include "sandbox.h"

/* With `credentials` in the settings: load the credentials module, have
 * it mask the variables and files (sb->cred_env, sb->cred_unset,
 * settings.cred_deny_read, sb->cred_mask_*) and put its filter first in
 * the chain. Fails closed with one line naming the entry. Called before
 * network.filters are loaded, with the chain and sb->filter_modules (room
 * for one more) ready. */
int srt__sandbox_load_credentials(struct srt_sandbox *sb, struct srt_diag *diag);

/* The masked files in pol: a backend with SRT_CAP_MASKED_FILES gets the
 * copies (written once, read-only, into srt's private directory beside
 * the proxy's socket); any other is told to deny the files, and srt says
 * so on one line per file. Before the backend's prepare(). */
int srt__sandbox_masked_files(struct srt_sandbox *sb, struct srt_policy *pol,
			      struct srt_diag *diag);

/* Remove the copies and their directory (before proxy_dir goes). */
void srt__credentials_free(struct srt_sandbox *sb);

/* Apply sb's masking to a built environment: the unset names removed. */
void srt__credentials_env_drop(const struct srt_sandbox *sb, char **env);

#endif
