/* `srt proxy`: the filtering proxy alone, with an external decider.
 * Usage errors exit 2 with one line; a proxy that could not start exits 1;
 * a proxy that served and was stopped (SIGTERM, its lifeline, its decider)
 * exits 0. Either way the last line is "srt proxy: stopped (<why>)". */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <srt/srt.h>

#include "platform.h"
#include "proxy.h"

static const char proxy_usage_text[] =
	"usage: srt proxy (--listen-fd N | --listen HOST:PORT [--listen-any-interface])\n"
	"                 (--decider-fd N | --decider-in N --decider-out N)\n"
	"                 [--lifeline-fd N] [--ca-fd N] [--strip-response-header NAME...]\n"
	"                 [--plaintext-header-set] [-d]\n"
	"\n"
	"Run the filtering proxy alone, without a sandbox, for other sandboxes and\n"
	"containers. An external decider (protocol v1: length-prefixed JSON frames)\n"
	"gives the domain lists in its hello and a verdict for every request.\n"
	"\n"
	"  --listen-fd N       serve clients of this inherited listening socket\n"
	"                      (on Windows N is the socket's handle value)\n"
	"  --listen HOST:PORT  bind HOST:PORT ([v6]:port), loopback only (development)\n"
	"  --listen-any-interface\n"
	"                      let --listen bind an address that is not loopback\n"
	"  --decider-fd N      the decider's socket\n"
	"  --decider-in N, --decider-out N\n"
	"                      the decider as a pipe pair (read from IN, write to OUT)\n"
	"  --lifeline-fd N     stop when this descriptor ends or fails\n"
	"  --ca-fd N           read a CA (PEM certificate and private key, RSA or EC) to\n"
	"                      the end of this descriptor: CONNECTs carrying TLS are\n"
	"                      terminated with it and every request inside goes to the\n"
	"                      decider (needs the TLS module, package srt-tls). Without\n"
	"                      it every CONNECT is refused (opaque_tunnel)\n"
	"  --strip-response-header NAME...\n"
	"                      remove these headers from every response\n"
	"  --plaintext-header-set\n"
	"                      apply a decider's setHeaders and cred to plain-HTTP\n"
	"                      requests (else such an allow is refused 403,\n"
	"                      plaintext_header_set)\n"
	"  -d, --debug         print debug lines on stderr\n"
	"  -V, --version       print the version\n"
	"  -h, --help          print this help\n"
	"\n"
	"exit status: 0 after serving, 1 when the proxy could not start, 2 for usage errors.\n";

static int usage_error(const char *fmt, const char *arg)
	__attribute__((format(printf, 1, 0)));

static int usage_error(const char *fmt, const char *arg)
{
	fputs("srt proxy: ", stderr);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	fputc('\n', stderr);
	return 2;
}

struct popts {
	struct srt_proxy_options o;
	const char *strip[64];
	int decider_fd;
	int any_interface;
};

/* An open descriptor number; -1 with the usage error printed otherwise. */
static int fd_arg(const char *opt, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = v && *v ? strtol(v, &end, 10) : -1;
	if (!v || !*v || errno || *end || n < 0 || n > INT_MAX) {
		fprintf(stderr, "srt proxy: %s \"%s\": not a descriptor number\n", opt, v ? v : "");
		return -1;
	}
	if (!strcmp(opt, "--listen-fd") ? !srt__cli_listen_fd_open((int)n) : fcntl((int)n, F_GETFD) < 0) {
		fprintf(stderr, "srt proxy: %s %ld: not an open descriptor%s\n", opt, n,
			!strcmp(opt, "--listen-fd") ? " or socket" : "");
		return -1;
	}
	return (int)n;
}

/* localhost, 127.0.0.0/8 or ::1 (bracketed or not), with ":port". */
static int loopback(const char *spec)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	unsigned char a[16];
	size_t n;

	if (!colon)
		return 0;
	n = (size_t)(colon - spec);
	if (n >= 2 && spec[0] == '[' && spec[n - 1] == ']') {
		spec++;
		n -= 2;
	}
	if (n >= sizeof(host))
		return 0;
	memcpy(host, spec, n);
	host[n] = 0;
	if (!strcasecmp(host, "localhost"))
		return 1;
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (inet_pton(AF_INET6, host, a) == 1)
		return !memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	return 0;
}

/* "--opt=value" or "--opt value". */
static const char *value_of(const char *a, const char *opt, int argc, char **argv, int *i,
			    int *matched)
{
	size_t l = strlen(opt);

	*matched = 0;
	if (strncmp(a, opt, l))
		return NULL;
	if (a[l] == '=') {
		*matched = 1;
		return a + l + 1;
	}
	if (a[l])
		return NULL;
	*matched = 1;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

static const char *const fd_opts[] = { "--listen-fd", "--decider-fd", "--decider-in",
				       "--decider-out", "--lifeline-fd", "--ca-fd" };

static int *fd_slot(struct popts *p, size_t k)
{
	int *slots[] = { &p->o.listen_fd, &p->decider_fd, &p->o.decider_in, &p->o.decider_out,
			 &p->o.lifeline_fd, &p->o.ca_fd };
	return slots[k];
}

/* 0 parsed, else the exit status (0 for --help/--version, 2 errors) + 100. */
static int parse(int argc, char **argv, struct popts *p)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("%s\n", srt_version());
			return 100;
		}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int matched = 0;
		size_t k;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(proxy_usage_text, stdout);
			return 100;
		}
		if (!strcmp(a, "-d") || !strcmp(a, "--debug")) {
			p->o.debug = 1;
			continue;
		}
		if (!strcmp(a, "--listen-any-interface")) {
			p->any_interface = 1;
			continue;
		}
		if (!strcmp(a, "--plaintext-header-set")) {
			p->o.plaintext_header_set = 1;
			continue;
		}
		if (!strcmp(a, "--strip-response-header")) {
			/* one or more names, up to the next option */
			int before = (int)p->o.nstrip_response_headers;
			while (i + 1 < argc && argv[i + 1][0] != '-') {
				if (p->o.nstrip_response_headers >= sizeof(p->strip) / sizeof(p->strip[0]))
					return 100 + usage_error("%s: at most 64 names", a);
				p->strip[p->o.nstrip_response_headers++] = argv[++i];
			}
			if ((int)p->o.nstrip_response_headers == before)
				return 100 + usage_error("%s needs at least one header name", a);
			p->o.strip_response_headers = p->strip;
			continue;
		}
		v = value_of(a, "--listen", argc, argv, &i, &matched);
		if (matched) {
			if (!v || !*v)
				return 100 + usage_error("%s needs HOST:PORT", "--listen");
			p->o.listen = v;
			continue;
		}
		for (k = 0; k < sizeof(fd_opts) / sizeof(fd_opts[0]); k++) {
			v = value_of(a, fd_opts[k], argc, argv, &i, &matched);
			if (!matched)
				continue;
			*fd_slot(p, k) = fd_arg(fd_opts[k], v);
			if (*fd_slot(p, k) < 0)
				return 102;
			break;
		}
		if (!matched)
			return 100 + usage_error("unknown option '%s' (srt proxy --help)", a);
	}
	return 0;
}

static int check(struct popts *p)
{
	if (p->decider_fd >= 0) {
		if (p->o.decider_in >= 0 || p->o.decider_out >= 0)
			return usage_error("%s", "give --decider-fd, or --decider-in and --decider-out, not both");
		p->o.decider_in = p->o.decider_out = p->decider_fd;
	}
	if (p->o.decider_in < 0 || p->o.decider_out < 0)
		return usage_error("%s", "a decider is required (--decider-fd, or --decider-in and --decider-out)");
	if (p->o.listen_fd < 0 && !p->o.listen)
		return usage_error("%s", "--listen-fd (or --listen for development) is required");
	if (p->o.listen_fd >= 0 && p->o.listen)
		return usage_error("%s", "give --listen-fd or --listen, not both");
	if (p->o.listen && !loopback(p->o.listen)) {
		if (!p->any_interface) {
			fprintf(stderr, "srt proxy: --listen \"%s\" is not a loopback address "
				"(127.0.0.0/8, [::1] or localhost); pass --listen-any-interface to "
				"bind it anyway\n", p->o.listen);
			return 2;
		}
		fprintf(stderr, "srt proxy: warning: --listen \"%s\" is not a loopback address: "
			"anyone who reaches it can use this proxy (it asks for no password)\n",
			p->o.listen);
	}
	return 0;
}

int srt_cli_proxy(int argc, char **argv)
{
	struct popts p;
	char why[512];
	int rc;

	memset(&p, 0, sizeof(p));
	p.o.listen_fd = p.o.decider_in = p.o.decider_out = -1;
	p.o.lifeline_fd = p.o.ca_fd = p.decider_fd = -1;
	rc = parse(argc, argv, &p);
	if (rc)
		return rc - 100;
	rc = check(&p);
	if (rc)
		return rc;
	if (getenv("SRT_DEBUG") && *getenv("SRT_DEBUG"))
		p.o.debug = 1;
	signal(SIGPIPE, SIG_IGN);
	why[0] = 0;
	rc = srt_proxy_serve(&p.o, why, sizeof(why));
	fprintf(stderr, "srt proxy: stopped (%s)\n", why);
	return rc ? 1 : 0;
}
