/* srt-linux-init: its command line (the options are described in init.c). */
#ifndef SRT_INIT_OPTS_H
#define SRT_INIT_OPTS_H

#include <stddef.h>

struct srt__init_opts {
	const char *proxy_socket;
	unsigned long long proxy_dev, proxy_ino; /* --proxy-socket-id */
	int http_port, socks_port;
	int intercept; /* --intercept: 0 none, 1 required, 2 optional */
	char token[160]; /* read from --intercept-token-fd ("" when empty) */
	int allow_unix;
	int allow_userns;
	int weaker; /* enableWeakerNestedSandbox: /proc may not be mountable */
	int debug;
	int events_fd, policy_fd; /* the violation monitor's, or -1 */
	int landlock_fd; /* the Landlock layer's plan, or -1 */
	const char **hide; /* --hide-file paths */
	size_t n_hide;
	const char **pin; /* --pin-link paths */
	size_t n_pin;
	int make_dev_proc; /* --make-dev-proc */
	/* the watcher of replaced names (watch.h) */
	const char **watch_deny, **watch_keep, **watch_glob, **watch_tree;
	size_t n_watch_deny, n_watch_keep, n_watch_glob, n_watch_tree;
	int watch_depth; /* --watch-depth, levels below a --watch-tree root */
	/* --watch-weaker (filesystem.enableWeakerNameProtection): a watcher
	 * that cannot run (no mount capability, no fanotify) is said on one
	 * line and the run goes on; without it the run is refused */
	int watch_weaker;
	const char **watch_release; /* --watch-release: protected names the user released */
	size_t n_watch_release;
	/* --oom-score-min: the OOM score the helper raises itself to before
	 * it starts anything (-1001: none) */
	int oom_min;
	char **argv; /* the command, NULL-terminated */
};

/* Parse argv into o (descriptors are made close-on-exec; --status-fd sets
 * srt__init_status_fd). -1 after reporting what is wrong. o->hide and
 * o->pin are allocated, for the life of the process. */
int srt__init_parse_opts(int argc, char **argv, struct srt__init_opts *o);

#endif
