/* network.tlsTerminate in the core: the TLS module loaded, its context
 * (the CA) created, the CA and the trust bundle written where the sandbox
 * can read them, and the trust variables of the command's environment. */
#ifndef SRT_TLS_SETUP_H
#define SRT_TLS_SETUP_H

#include "common/strv.h"
#include "sandbox.h"

/* Load and set up termination when the settings ask for it (nothing
 * otherwise); the policy must be built: the CA's directory is added to
 * its reads. */
int srt__sandbox_tls_start(struct srt_sandbox *sb, struct srt_diag *diag);
/* The trust variables (all naming the bundle) for the command. */
int srt__sandbox_tls_env(struct srt_sandbox *sb, struct srt__strv *set);
/* Remove the files and unload the module; NULL-safe parts. */
void srt__sandbox_tls_free(struct srt_sandbox *sb);

#endif
