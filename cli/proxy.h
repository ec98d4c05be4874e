/* `srt proxy`: argument parsing and exit codes of the proxy-only mode. */
#ifndef SRT_CLI_PROXY_H
#define SRT_CLI_PROXY_H

/* argv[0] is "proxy". Returns the exit status: 0 after serving, 1 when it
 * could not start, 2 for a usage error. */
int srt_cli_proxy(int argc, char **argv);

#endif
