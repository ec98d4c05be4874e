/* `srt -c STRING` run without a shell when the shell would only split it. */
#ifndef SRT_CLI_DIRECT_H
#define SRT_CLI_DIRECT_H

/* The words of STRING when it is a simple command that needs no shell (see
 * direct.c), NULL when the shell must run it. Free with srt__cli_direct_free. */
char **srt__cli_direct_argv(const char *s);
void srt__cli_direct_free(char **argv);

#endif
