/* srt-linux-init: parsing and checking its command line. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/opts.h"
#include "backends/linux-bwrap/init/report.h"

static int parse_port(const char *s, int *out)
{
	long v = 0;

	if (!*s || strlen(s) > 5)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*out = (int)v;
	return 0;
}

/* A repeated path option: val (absolute) appended to *v (room for max). */
static int add_path(const char ***v, size_t *n, size_t max, const char *opt, const char *val)
{
	if (val[0] != '/') {
		srt__init_failf("srt-linux-init: %s: '%s' is not an absolute path", opt, val);
		return -1;
	}
	if (!*v && !(*v = calloc(max, sizeof(**v)))) {
		srt__init_fail(opt, ENOMEM);
		return -1;
	}
	(*v)[(*n)++] = val;
	return 0;
}

/* The most srt writes into --options-fd (its own limit on the plan's
 * words is far below). */
#define OPTIONS_MAX (64u << 20)

/* --options-fd N: how srt starts the helper before it has planned (bwrap
 * is started beside the plan). The options are NUL-terminated words in a
 * memfd that srt seals once it has written them all; the command stays on
 * the command line, after "--". A memfd not sealed against writing,
 * growing and shrinking is not complete (srt died while planning, or
 * something else made it): nothing runs. On success *argv is a new list,
 * argv[0], the memfd's words, then what followed N. */
static int expand_options_fd(int *argc, char ***argv)
{
	const int need = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	char **av = *argv, **nv, *buf;
	int fd = -1, seals, n = 0, j;
	struct stat st;
	size_t size, got = 0, i;

	if (*argc < 4 || parse_port(av[2], &fd) || fd < 3) {
		srt__init_failf("srt-linux-init: --options-fd: '%s' is not an open descriptor",
				*argc >= 3 ? av[2] : "");
		return -1;
	}
	if (strcmp(av[3], "--")) {
		srt__init_failf("srt-linux-init: --options-fd: the command must follow it after \"--\"");
		return -1;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & need) != need) {
		srt__init_failf("srt-linux-init: --options-fd: the options are not sealed (srt did not finish planning); nothing was run");
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > OPTIONS_MAX) {
		srt__init_failf("srt-linux-init: --options-fd: cannot take the options' size");
		return -1;
	}
	size = (size_t)st.st_size;
	if (!(buf = malloc(size + 1))) {
		srt__init_fail("--options-fd", ENOMEM);
		return -1;
	}
	while (got < size) {
		ssize_t r = pread(fd, buf + got, size - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			srt__init_failf("srt-linux-init: --options-fd: cannot read the options");
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	if (size && buf[size - 1] != '\0') {
		srt__init_failf("srt-linux-init: --options-fd: the options do not end with a NUL");
		return -1;
	}
	for (i = 0; i < size; i++)
		n += buf[i] == '\0';
	if (!(nv = calloc((size_t)n + (size_t)*argc, sizeof(*nv)))) {
		srt__init_fail("--options-fd", ENOMEM);
		return -1;
	}
	nv[0] = av[0];
	for (i = 0, j = 1; i < size; i += strlen(buf + i) + 1, j++) {
		nv[j] = buf + i;
		/* the command's boundary is the command line's alone */
		if (!strcmp(nv[j], "--")) {
			srt__init_failf("srt-linux-init: --options-fd: \"--\" among the options");
			return -1;
		}
	}
	for (i = 3; i < (size_t)*argc; i++)
		nv[j++] = av[i];
	nv[j] = NULL;
	*argc = j;
	*argv = nv;
	return 0;
}

int srt__init_parse_opts(int argc, char **argv, struct srt__init_opts *o)
{
	int i;

	if (argc >= 2 && !strcmp(argv[1], "--options-fd") && expand_options_fd(&argc, &argv) != 0)
		return -1;
	memset(o, 0, sizeof(*o));
	o->events_fd = o->policy_fd = o->landlock_fd = -1;
	o->oom_min = -1001;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--proxy-socket") && val) {
			if (val[0] != '/') {
				srt__init_failf("srt-linux-init: --proxy-socket: '%s' is not an absolute path", val);
				return -1;
			}
			o->proxy_socket = val;
			i++;
		} else if (!strcmp(a, "--proxy-socket-id") && val) {
			char *end;

			errno = 0;
			o->proxy_dev = strtoull(val, &end, 10);
			if (errno || end == val || *end != ':' || !(end[1] >= '0' && end[1] <= '9')) {
				srt__init_failf("srt-linux-init: --proxy-socket-id: '%s' is not DEVICE:INODE", val);
				return -1;
			}
			o->proxy_ino = strtoull(end + 1, &end, 10);
			if (errno || *end || !o->proxy_ino) {
				srt__init_failf("srt-linux-init: --proxy-socket-id: '%s' is not DEVICE:INODE", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--http-port") && val) {
			if (parse_port(val, &o->http_port)) {
				srt__init_failf("srt-linux-init: --http-port: '%s' is not a port number", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--socks-port") && val) {
			if (parse_port(val, &o->socks_port)) {
				srt__init_failf("srt-linux-init: --socks-port: '%s' is not a port number", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--intercept") && val) {
			if (strcmp(val, "required") && strcmp(val, "optional")) {
				srt__init_failf("srt-linux-init: --intercept: '%s' is not required or optional", val);
				return -1;
			}
			o->intercept = val[0] == 'r' ? 1 : 2;
			i++;
		} else if (!strcmp(a, "--intercept-token-fd") && val) {
			int fd = -1;
			ssize_t n;

			if (parse_port(val, &fd) || fd < 3) {
				srt__init_failf("srt-linux-init: %s: '%s' is not an open descriptor", a, val);
				return -1;
			}
			n = pread(fd, o->token, sizeof(o->token) - 1, 0);
			close(fd);
			if (n < 0 || (size_t)n >= sizeof(o->token) - 1 || memchr(o->token, '\n', (size_t)n)) {
				srt__init_failf("srt-linux-init: %s: cannot read the proxy's token", a);
				return -1;
			}
			o->token[n] = '\0';
			i++;
		} else if (!strcmp(a, "--allow-all-unix-sockets")) {
			o->allow_unix = 1;
		} else if (!strcmp(a, "--allow-nested-userns")) {
			o->allow_userns = 1;
		} else if (!strcmp(a, "--weaker-nested-sandbox")) {
			o->weaker = 1;
		} else if (!strcmp(a, "--watch-weaker")) {
			o->watch_weaker = 1;
		} else if (!strcmp(a, "--status-fd") && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				srt__init_failf("srt-linux-init: --status-fd: '%s' is not an open descriptor", val);
				return -1;
			}
			srt__init_status_fd = fd;
			i++;
		} else if ((!strcmp(a, "--events-fd") || !strcmp(a, "--monitor-policy-fd")) && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				srt__init_failf("srt-linux-init: %s: '%s' is not an open descriptor", a, val);
				return -1;
			}
			if (a[2] == 'e')
				o->events_fd = fd;
			else
				o->policy_fd = fd;
			i++;
		} else if (!strcmp(a, "--landlock-plan-fd") && val) {
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				srt__init_failf("srt-linux-init: %s: '%s' is not an open descriptor", a, val);
				return -1;
			}
			o->landlock_fd = fd;
			i++;
		} else if ((!strcmp(a, "--hide-file") || !strcmp(a, "--pin-link")) && val) {
			int hide = a[2] == 'h';

			if (add_path(hide ? &o->hide : &o->pin, hide ? &o->n_hide : &o->n_pin,
				     (size_t)argc, a, val) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--watch-release") && val) {
			/* a name as filesystem.allowProtectedNames spells it */
			if (!o->watch_release && !(o->watch_release = calloc((size_t)argc, sizeof(char *)))) {
				srt__init_fail(a, ENOMEM);
				return -1;
			}
			o->watch_release[o->n_watch_release++] = val;
			i++;
		} else if (!strncmp(a, "--watch-", 8) && strcmp(a, "--watch-depth") && val) {
			const char ***v = NULL;
			size_t *n = NULL;

			if (!strcmp(a, "--watch-deny"))
				v = &o->watch_deny, n = &o->n_watch_deny;
			else if (!strcmp(a, "--watch-keep"))
				v = &o->watch_keep, n = &o->n_watch_keep;
			else if (!strcmp(a, "--watch-glob"))
				v = &o->watch_glob, n = &o->n_watch_glob;
			else if (!strcmp(a, "--watch-tree"))
				v = &o->watch_tree, n = &o->n_watch_tree;
			if (!v) {
				srt__init_failf("srt-linux-init: unknown or incomplete option '%s'", a);
				return -1;
			}
			if (add_path(v, n, (size_t)argc, a, val) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--watch-depth") && val) {
			if (parse_port(val, &o->watch_depth) || o->watch_depth > 64) {
				srt__init_failf("srt-linux-init: --watch-depth: '%s' is not a depth (1-64)", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--close-fd") && val) {
			/* made by srt before its plan said no part needs it */
			int fd = -1;

			if (parse_port(val, &fd) || fd < 3 || close(fd) != 0) {
				srt__init_failf("srt-linux-init: --close-fd: '%s' is not an open descriptor", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--oom-score-min") && val) {
			char *end;
			long v;

			errno = 0;
			v = strtol(val, &end, 10);
			if (errno || end == val || *end || v < -1000 || v > 1000) {
				srt__init_failf("srt-linux-init: --oom-score-min: '%s' is not an OOM score (-1000 to 1000)", val);
				return -1;
			}
			o->oom_min = (int)v;
			i++;
		} else if (!strcmp(a, "--make-dev-proc")) {
			o->make_dev_proc = 1;
		} else if (!strcmp(a, "--debug")) {
			o->debug = 1;
		} else {
			srt__init_failf("srt-linux-init: unknown or incomplete option '%s'", a);
			return -1;
		}
	}
	if (i >= argc) {
		srt__init_failf("srt-linux-init: no command given (usage: srt-linux-init [options] -- command [args...])");
		return -1;
	}
	if (o->make_dev_proc && o->weaker) {
		srt__init_failf("srt-linux-init: --make-dev-proc and --weaker-nested-sandbox exclude each other "
		      "(the weaker sandbox keeps the host's /proc, which bwrap binds)");
		return -1;
	}
	if ((o->events_fd >= 0) != (o->policy_fd >= 0)) {
		srt__init_failf("srt-linux-init: --events-fd and --monitor-policy-fd go together");
		return -1;
	}
	if ((o->proxy_socket != NULL) != (o->http_port != 0) ||
	    (o->proxy_socket != NULL) != (o->socks_port != 0) ||
	    (o->proxy_socket != NULL) != (o->proxy_ino != 0)) {
		srt__init_failf("srt-linux-init: --proxy-socket, --proxy-socket-id, --http-port and --socks-port go together");
		return -1;
	}
	if (o->intercept && !o->proxy_socket) {
		srt__init_failf("srt-linux-init: --intercept needs --proxy-socket");
		return -1;
	}
	o->argv = argv + i;
	return 0;
}
