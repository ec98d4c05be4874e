/* The environment a sandboxed command gets (child-env.c). */
#ifndef SRT_LIBSRT_CHILD_ENV_H
#define SRT_LIBSRT_CHILD_ENV_H

#include "sandbox.h"

/* The command's envp (caller frees with srt__env_free): the caller's
 * environment with the sandbox's variables set; command_key names the
 * command in the proxy's user name. */
int srt__sandbox_child_env(struct srt_sandbox *sb, const char *command_key, char ***out);

#endif
