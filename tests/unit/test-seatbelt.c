/* Unit tests: the macos-seatbelt backend on any system. The SBPL
 * evaluator of tests/helpers (on hand-written profiles), globs as regexes,
 * the log stream parser, and the profile of every case of
 * tests/seatbelt/cases.txt asked >1,000 (operation, path) questions whose
 * answers come from the policy's meaning (oracle() below, written from the
 * settings' documented semantics, not from the generator).
 *
 * With SRT_SEATBELT_REF set to a directory holding <case>.sb profiles
 * written by the reference implementation for the same cases (see
 * tests/integration/0501-seatbelt-reference.sh), every question is also
 * asked of the reference's profile: the two must agree except where a
 * documented deliberate difference explains it (README, macOS backend). */
#include "config.h"

/* test paths are short; a truncated one would only fail a question */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/macos-seatbelt/logline.h"
#include "backends/macos-seatbelt/profile.h"
#include "backends/macos-seatbelt/sbpl.h"
#include "common/protected.h"
#include "tests/helpers/sbpl-eval.h"
#include "tap.h"

int srt_diag_set(struct srt_diag *diag, int err, const char *key, const char *fmt, ...)
{
	(void)diag; (void)key; (void)fmt;
	return err;
}

static const char *ROOT = "/srt-seatbelt-test";

/* ---- the evaluator itself ---- */

static int allows(const char *prof, const char *op, const char *path, const char *vnode)
{
	char err[128];
	struct sbpl_profile *p = sbpl_parse(prof, err, sizeof(err));
	int a;

	if (!p) {
		printf("# parse: %s\n", err);
		return -1;
	}
	a = sbpl_allows(p, op, path, vnode);
	sbpl_free(p);
	return a;
}

static void t_eval(void)
{
	const char *p1 = "(version 1)\n(deny default)\n(allow file-read*)\n"
			 "(deny file-read* (subpath \"/a\") (with message \"t\"))\n"
			 "(allow file-read* (literal \"/a/ok\"))\n";
	const char *p2 = "(version 1)(deny default)(allow file-write* (regex #\"^/w/[^/]*\\.txt$\"))"
			 "(deny file-write* (require-all (prefix \"/w/x\") (require-not (literal \"/w/xok.txt\"))))";
	const char *p3 = "(deny default)(allow file-read-metadata (vnode-type DIRECTORY))"
			 "(allow file-read* (require-any (literal \"/q\") (literal \"/r\")))";
	const char *p4 = "; comment\n(deny default)\n(allow file-read* (regex \"^/s/(.*/)?k\\\\.pem(/.*)?$\"))";

	ok(allows(p1, "file-read-data", "/b", "REGULAR-FILE") == 1, "eval: allow file-read* covers file-read-data");
	ok(allows(p1, "file-read-data", "/a/x", "REGULAR-FILE") == 0, "eval: subpath deny below");
	ok(allows(p1, "file-read-data", "/a", "DIRECTORY") == 0, "eval: subpath covers itself");
	ok(allows(p1, "file-read-data", "/ab", "REGULAR-FILE") == 1, "eval: subpath by whole components");
	ok(allows(p1, "file-read-data", "/a/ok", "REGULAR-FILE") == 1, "eval: last match wins (literal re-allow)");
	ok(allows(p1, "file-read-data", "/a/ok/x", "REGULAR-FILE") == 0, "eval: literal is one path");
	ok(allows(p1, "file-write-data", "/b", "REGULAR-FILE") == 0, "eval: deny default");
	ok(allows(p2, "file-write-data", "/w/a.txt", "REGULAR-FILE") == 1, "eval: raw regex string");
	ok(allows(p2, "file-write-unlink", "/w/d/a.txt", "REGULAR-FILE") == 0, "eval: regex [^/]");
	ok(allows(p2, "file-write-data", "/w/xa.txt", "REGULAR-FILE") == 0, "eval: prefix inside require-all");
	ok(allows(p2, "file-write-data", "/w/xok.txt", "REGULAR-FILE") == 1, "eval: require-not");
	ok(allows(p3, "file-read-metadata", "/d", "DIRECTORY") == 1, "eval: vnode-type matches");
	ok(allows(p3, "file-read-metadata", "/d", "REGULAR-FILE") == 0, "eval: vnode-type differs");
	ok(allows(p3, "file-read-data", "/r", "REGULAR-FILE") == 1, "eval: require-any");
	ok(allows(p4, "file-read-data", "/s/a/b/k.pem", "REGULAR-FILE") == 1, "eval: escaped regex string, comments");
	ok(allows(p4, "file-read-data", "/s/kxpem", "REGULAR-FILE") == 0, "eval: \\\\. is a dot");
	ok(allows("(allow file-read* (subpath \"/x\")", "file-read-data", "/x", "") == -1, "eval: unbalanced profile refused");
}

/* ---- $HOME's protected names through links ----
 * A dotfile manager makes ~/.bashrc, ~/.config, ~/.ssh/config links into
 * a repository, and the command runs with that repository as its write
 * root. Seatbelt judges the path a write reaches after the links, so the
 * targets must be denied by their own paths, and a link in the write root
 * on the way must stay where it is (red team: the profile denied the names
 * only as they are spelled in $HOME). Built on a real directory tree:
 * the profile resolves the links. */
static void t_home_links(void)
{
	char t[] = "/tmp/srt-sb-links-XXXXXX", h[PATH_MAX], pr[PATH_MAX], buf[PATH_MAX * 2], dst[PATH_MAX * 2];
	struct srt_rule aw;
	struct srt_policy pol;
	struct srt_diag d;
	char *out = NULL;

	if (!mkdtemp(t)) {
		ok(0, "home links: mkdtemp");
		return;
	}
	snprintf(h, sizeof(h), "%s/home", t);
	snprintf(pr, sizeof(pr), "%s/proj", t);
	snprintf(buf, sizeof(buf), "mkdir -p %s/.ssh %s/dots/config %s/dots/claude-real && echo x > %s/dots/bashrc && "
		 "ln -s %s/dots/bashrc %s/.bashrc && ln -s %s/dots/config %s/.config && "
		 "ln -s ../../proj/dots/ssh_config %s/.ssh/config && ln -s claude-real %s/dots/claude && "
		 "ln -s %s/dots/claude %s/.claude", h, pr, pr, pr, pr, h, pr, h, h, pr, pr, h);
	if (system(buf) != 0) {
		ok(0, "home links: set-up");
		return;
	}
	memset(&pol, 0, sizeof(pol));
	memset(&aw, 0, sizeof(aw));
	aw.path = pr;
	aw.origin = (char *)"case";
	pol.cwd = pr;
	pol.home = h;
	pol.allow_write.v = &aw;
	pol.allow_write.n = 1;
	memset(&d, 0, sizeof(d));
	srt__sb_profile(&pol, "CMD64_dGVzdA==_END__test00000_SBX", &out, &d);
	ok(out != NULL, "home links: a profile");
	if (out) {
		snprintf(dst, sizeof(dst), "%s/dots/bashrc", pr);
		ok(allows(out, "file-write-data", dst, "REGULAR-FILE") == 0,
		   "home links: ~/.bashrc's target in the write root is not writable");
		snprintf(dst, sizeof(dst), "%s/dots/config/systemd/user/x.service", pr);
		ok(allows(out, "file-write-create", dst, "REGULAR-FILE") == 0,
		   "home links: no systemd user unit through ~/.config's target");
		snprintf(dst, sizeof(dst), "%s/dots/ssh_config", pr);
		ok(allows(out, "file-write-create", dst, "REGULAR-FILE") == 0,
		   "home links: ~/.ssh/config's dangling relative target cannot be made");
		snprintf(dst, sizeof(dst), "%s/dots/claude", pr);
		ok(allows(out, "file-write-unlink", dst, "SYMLINK") == 0,
		   "home links: the link in the write root on the way to ~/.claude stays");
		snprintf(dst, sizeof(dst), "%s/dots/claude-real/settings.json", pr);
		ok(allows(out, "file-write-create", dst, "REGULAR-FILE") == 0,
		   "home links: no ~/.claude/settings.json through the chain");
		snprintf(dst, sizeof(dst), "%s/dots/notes.txt", pr);
		ok(allows(out, "file-write-create", dst, "REGULAR-FILE") == 1,
		   "home links: the rest of the write root stays writable");
	}
	free(out);
	snprintf(buf, sizeof(buf), "rm -rf %s", t);
	if (system(buf) != 0)
		printf("# could not remove %s\n", t);
}

/* ---- globs and the log parser ---- */

static int re_is(const char *glob, int deny, const char *want)
{
	char *re = deny ? srt__sb_glob_deny_regex(glob) : srt__sb_glob_regex(glob);
	int good = re && !strcmp(re, want);

	if (!good)
		printf("# glob %s -> %s, want %s\n", glob, re ? re : "(null)", want);
	free(re);
	return good;
}

static void t_glob(void)
{
	ok(re_is("/a/*.pem", 0, "^/a/[^/]*\\.pem$"), "glob: star and dot");
	ok(re_is("/a/**/x", 0, "^/a/(.*/)?x$"), "glob: globstar slash");
	ok(re_is("/a/**", 0, "^/a/.*$"), "glob: trailing globstar");
	ok(re_is("/a/f?.[ch]", 0, "^/a/f[^/]\\.[ch]$"), "glob: ? and a set");
	ok(re_is("/a/x[y", 0, "^/a/x\\[y$"), "glob: unclosed bracket is a character");
	ok(re_is("/a/(b)+{c}|$^", 0, "^/a/\\(b\\)\\+\\{c\\}\\|\\$\\^$"), "glob: regex characters escaped");
	ok(re_is("/a/**/.env", 1, "^/a/(.*/)?\\.env(/.*)?$"), "glob: deny regex covers below");
	ok(re_is("/a/***/b", 0, "^/a/[^/]*(.*/)?b$"), "glob: three stars fold as the reference's replacements do");
	ok(re_is("/a/\001\002b", 0, "^/a/\001\002b$"), "glob: no byte of a path stands for a globstar");
	ok(re_is("", 0, "^$"), "glob: empty");
}

static int log_is(const char *line, const char *want)
{
	char out[256];
	int r = srt__sb_log_line(line, out, sizeof(out));

	if (!want)
		return r == 0;
	if (r != 1 || strcmp(out, want)) {
		printf("# log %s -> %d %s, want %s\n", line, r, r ? out : "", want);
		return 0;
	}
	return 1;
}

/* Lines in the shape of `log stream --style compact` output for Seatbelt
 * denials, as the reference's monitor reads them. Not captured on a Mac:
 * written after that parser (this project has not run on macOS). */
static void t_log(void)
{
	char tag[256];

	ok(log_is("2025-03-04 10:11:12.345 E  kernel[0:2f3a] (Sandbox) Sandbox: cat(4242) deny(1) file-read-data /Users/u/.ssh/id_rsa",
		  "deny file-read-data /Users/u/.ssh/id_rsa"), "log: a file read denial");
	ok(log_is("2025-03-04 10:11:12.345 E  kernel[0:2f3a] (Sandbox) Sandbox: bash(77) deny(1) file-write-create /Users/u/p/.git/hooks/pre-commit",
		  "deny file-write-create /Users/u/p/.git/hooks/pre-commit"), "log: a create denial");
	ok(log_is("2025-03-04 10:11:12.345 E  kernel[0:2f3a] (Sandbox) Sandbox: curl(9) deny(1) network-outbound 1.2.3.4:443",
		  "deny network-outbound 1.2.3.4:443"), "log: a network denial");
	ok(log_is("Sandbox: deny(5) deny(1) file-read-data /x", "deny file-read-data /x"), "log: a process named deny");
	ok(log_is("Sandbox: sh(1) deny(1) file-read-data /a\033[2Jb", "deny file-read-data /a?[2Jb"), "log: control bytes replaced");
	ok(log_is("Sandbox: mDNSResponder(1) deny(1) network-outbound /var/run/x", NULL), "log: mDNSResponder noise dropped");
	ok(log_is("Sandbox: node(3) deny(1) mach-lookup com.apple.diagnosticd", NULL), "log: diagnosticd noise dropped");
	ok(log_is("Sandbox: node(3) deny(1) mach-lookup com.apple.analyticsd", NULL), "log: analyticsd noise dropped");
	ok(log_is("CMD64_Y2F0IGE=_END__abc123def_SBX", NULL), "log: the tag line is not an event");
	ok(log_is("Sandbox: node(3) allow file-read-data /x", NULL), "log: no deny, no event");
	ok(log_is("Filtering the log data using \"eventMessage ENDSWITH x\"", NULL), "log: the header is not an event");
	ok(log_is("Sandbox: node(3) deny(1)", NULL), "log: no operation, no event");
	srt__sb_log_tag("cmd-1", "_nh9mxp96m_SBX", tag, sizeof(tag));
	ok(!strcmp(tag, "CMD64_Y21kLTE=_END__nh9mxp96m_SBX"), "log: the tag of the reference's example");
}

/* ---- the rest of the profile: network and the macOS-only settings ---- */

static char *net_profile(int local, int all_unix, int proxy, int same_port)
{
	static char *mach[] = { "com.example.svc", "org.example.*", NULL };
	static struct srt_rule sock = { (char *)"/var/run/docker.sock", SRT_RULE_LITERAL, (char *)"t" };
	struct srt_policy pol;
	struct srt_diag d;
	char *out = NULL;

	memset(&pol, 0, sizeof(pol));
	pol.cwd = (char *)"/w";
	pol.fs_disabled = 1;
	pol.allow_local_binding = local;
	pol.allow_all_unix_sockets = all_unix;
	pol.allow_unix_sockets.v = &sock;
	pol.allow_unix_sockets.n = 1;
	pol.proxy_dir = proxy ? (char *)"/tmp/p" : NULL;
	pol.http_port = 3128;
	pol.socks_port = same_port ? 3128 : 1080;
	pol.allow_mach_lookup = mach;
	pol.allow_apple_events = local;
	pol.enable_weaker_network_isolation = local;
	pol.allow_pty = local;
	memset(&d, 0, sizeof(d));
	srt__sb_profile(&pol, "T", &out, &d);
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

static void t_network(void)
{
	char *a = net_profile(0, 0, 1, 0), *b = net_profile(1, 1, 0, 0), *c = net_profile(0, 0, 1, 1);

	ok(a && b && c, "network: profiles written");
	ok(!strstr(a, "(allow network*)") && !strstr(b, "(allow network*)"), "network: never every network operation");
	ok(strstr(a, "(allow network-outbound (remote ip \"localhost:3128\"))") &&
	   strstr(a, "(allow network-outbound (remote ip \"localhost:1080\"))") &&
	   strstr(a, "(allow network-bind (local ip \"localhost:1080\"))"), "network: the proxy's two ports");
	ok(!strstr(b, "localhost:3128"), "network: no proxy, no proxy ports");
	ok(count(c, "localhost:3128") == 3 && !strstr(c, "localhost:1080"),
	   "network: one port serving both is listed once (bind, inbound, outbound)");
	ok(strstr(a, "(allow network-bind (local unix-socket (subpath \"/var/run/docker.sock\")))") &&
	   strstr(a, "(allow system-socket (socket-domain AF_UNIX))"), "network: allowUnixSockets by path");
	ok(strstr(b, "(path-regex #\"^/\")") && !strstr(b, "docker.sock"), "network: allowAllUnixSockets wins over the list");
	ok(strstr(b, "(allow network-bind (local ip \"*:*\"))") &&
	   strstr(b, "(allow network-outbound (remote ip \"localhost:*\"))") && !strstr(a, "\"*:*\""),
	   "network: allowLocalBinding binds anywhere, reaches loopback only");
	ok(strstr(a, "(allow mach-lookup (global-name \"com.example.svc\"))") &&
	   strstr(a, "(allow mach-lookup (global-name-prefix \"org.example.\"))"), "allowMachLookup: names and prefixes");
	ok(strstr(b, "(allow appleevent-send)") && !strstr(a, "appleevent-send"), "allowAppleEvents only when asked");
	ok(strstr(b, "com.apple.trustd.agent") && !strstr(a, "com.apple.trustd.agent"), "enableWeakerNetworkIsolation only when asked");
	ok(strstr(b, "(allow pseudo-tty)") && !strstr(a, "pseudo-tty"), "allowPty only when asked");
	ok(strstr(a, "(sysctl-name \"kern.osversion\")") && strstr(a, "(deny default (with message \"T\"))"),
	   "the fixed head: deny default with the tag, sysctl names");
	free(a);
	free(b);
	free(c);
}

/* ---- cases ---- */

#define MAXR 16

struct kase {
	char name[64];
	char *dr[MAXR], *ar[MAXR], *aw[MAXR], *dw[MAXR];
	int ndr, nar, naw, ndw, gitcfg;
};

static struct kase cases[64];
static int ncases;
static char cwd[PATH_MAX], home[PATH_MAX];

static char *at(const char *s)
{
	char buf[PATH_MAX];

	if (s[0] == '@')
		snprintf(buf, sizeof(buf), "%s%s", ROOT, s + 1);
	else
		snprintf(buf, sizeof(buf), "%s", s);
	return strdup(buf);
}

static int load_cases(const char *file)
{
	char line[1024];
	FILE *f = fopen(file, "r");
	struct kase *k = NULL;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (!strncmp(line, "case ", 5)) {
			k = &cases[ncases++];
			snprintf(k->name, sizeof(k->name), "%s", line + 5);
		} else if (k && !strcmp(line, "gitcfg")) {
			k->gitcfg = 1;
		} else if (k && !strncmp(line, "dr ", 3)) {
			k->dr[k->ndr++] = at(line + 3);
		} else if (k && !strncmp(line, "ar ", 3)) {
			k->ar[k->nar++] = at(line + 3);
		} else if (k && !strncmp(line, "aw ", 3)) {
			k->aw[k->naw++] = at(line + 3);
		} else if (k && !strncmp(line, "dw ", 3)) {
			k->dw[k->ndw++] = at(line + 3);
		}
	}
	fclose(f);
	return 0;
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[]") != NULL;
}

static void rules_of(struct srt_rules *r, char **v, int n)
{
	int i;

	r->v = calloc((size_t)n + 1, sizeof(*r->v));
	r->n = (size_t)n;
	for (i = 0; i < n; i++) {
		r->v[i].path = v[i];
		r->v[i].flags = has_glob(v[i]) ? SRT_RULE_GLOB : 0;
		r->v[i].origin = (char *)"case";
	}
}

static char *profile_of(const struct kase *k)
{
	struct srt_policy pol;
	struct srt_diag d;
	char *out = NULL;

	memset(&pol, 0, sizeof(pol));
	pol.cwd = cwd;
	pol.home = home;
	pol.allow_git_config = k->gitcfg;
	rules_of(&pol.deny_read, (char **)k->dr, k->ndr);
	rules_of(&pol.allow_read, (char **)k->ar, k->nar);
	rules_of(&pol.allow_write, (char **)k->aw, k->naw);
	rules_of(&pol.deny_write, (char **)k->dw, k->ndw);
	memset(&d, 0, sizeof(d));
	srt__sb_profile(&pol, "CMD64_dGVzdA==_END__test00000_SBX", &out, &d);
	free(pol.deny_read.v);
	free(pol.allow_read.v);
	free(pol.allow_write.v);
	free(pol.deny_write.v);
	return out;
}

/* ---- the oracle: what the policy means, written from the settings'
 * semantics ---- */

/* Does glob g match path p exactly? * is one name's characters, ** (then
 * "/") any directories, ? one character but "/", [set] one of the set. */
static int gmatch(const char *g, const char *p)
{
	if (!*g)
		return !*p;
	if (g[0] == '*' && g[1] == '*') {
		const char *rest = g + 2;
		const char *q;

		if (*rest == '/') {
			/* zero or more whole directories */
			if (gmatch(rest + 1, p))
				return 1;
			for (q = p; *q; q++)
				if (*q == '/' && gmatch(rest + 1, q + 1))
					return 1;
			return 0;
		}
		for (q = p;; q++) {
			if (gmatch(rest, q))
				return 1;
			if (!*q)
				return 0;
		}
	}
	if (*g == '*') {
		const char *q;

		for (q = p;; q++) {
			if (gmatch(g + 1, q))
				return 1;
			if (!*q || *q == '/')
				return 0;
		}
	}
	if (*g == '?')
		return *p && *p != '/' && gmatch(g + 1, p + 1);
	if (*g == '[' && strchr(g, ']')) {
		const char *end = strchr(g, ']'), *s;
		int hit = 0;

		for (s = g + 1; s < end; s++) {
			if (s + 2 < end && s[1] == '-') {
				hit |= *p >= s[0] && *p <= s[2];
				s += 2;
			} else {
				hit |= *p == *s;
			}
		}
		return *p && hit && gmatch(end + 1, p + 1);
	}
	return *g == *p && gmatch(g + 1, p + 1);
}

static int under(const char *p, const char *dir)
{
	return srt__sb_at_or_under(p, dir);
}

/* A deny entry covers p: p is at or under the path, or the glob matches
 * p or a directory above it. */
static int deny_covers(const char *e, const char *p)
{
	char buf[PATH_MAX];
	char *s;

	if (!has_glob(e))
		return under(p, e);
	snprintf(buf, sizeof(buf), "%s", p);
	for (;;) {
		if (gmatch(e, buf))
			return 1;
		s = strrchr(buf, '/');
		if (!s || s == buf)
			return 0;
		*s = '\0';
	}
}

/* A concrete path an entry names (glob pieces as "x"). */
static void sample(const char *e, char *out, size_t n)
{
	size_t o = 0;

	for (; *e && o + 2 < n; e++) {
		if (*e == '[' && strchr(e, ']')) {
			out[o++] = 'x';
			e = strchr(e, ']');
		} else if (*e == '*' || *e == '?') {
			out[o++] = 'x';
			while (e[1] == '*' || e[1] == '?')
				e++;
		} else {
			out[o++] = *e;
		}
	}
	out[o] = '\0';
}

/* Reads: allowed unless denyRead covers the path. allowRead re-opens inside
 * a literal denyRead when it is the more specific of the two; a glob
 * denyRead wins over allowRead except for an allowRead entry that names
 * something the glob itself matches (a carve-out from it). */
static int read_ok(const struct kase *k, const char *p)
{
	size_t best_deny = 0, best_allow = 0;
	int i, j;

	/* the root directory itself (its names, nothing below) stays
	 * readable even under a deny of "/": no program starts without it */
	if (!strcmp(p, "/"))
		return 1;
	for (i = 0; i < k->ndr; i++) {
		char s[PATH_MAX];
		int carved = 0;

		if (!has_glob(k->dr[i]))
			continue;
		if (!deny_covers(k->dr[i], p))
			continue;
		for (j = 0; j < k->nar; j++) {
			sample(k->ar[j], s, sizeof(s));
			if (deny_covers(k->dr[i], s) &&
			    (has_glob(k->ar[j]) ? gmatch(k->ar[j], p) : under(p, k->ar[j])))
				carved = 1;
		}
		if (!carved)
			return 0;
	}
	for (i = 0; i < k->ndr; i++)
		if (!has_glob(k->dr[i]) && under(p, k->dr[i]) && strlen(k->dr[i]) + 1 > best_deny)
			best_deny = strlen(k->dr[i]) + 1;
	for (i = 0; i < k->nar; i++) {
		if (has_glob(k->ar[i]) ? gmatch(k->ar[i], p) : under(p, k->ar[i]))
			if (strlen(k->ar[i]) + 1 > best_allow)
				best_allow = strlen(k->ar[i]) + 1;
	}
	return !best_deny || best_allow >= best_deny;
}

enum names { OURS, REFERENCE };

/* The protected names as the test knows them: (name, directory?) */
static int protected_at(const char *anchor, const char *p, const char *name, int dir)
{
	char lit[PATH_MAX], pat[PATH_MAX];

	snprintf(lit, sizeof(lit), "%s/%s", anchor, name);
	if (under(p, lit))
		return 1;
	/* the name at any depth below the anchor: a directory's contents, or
	 * a file (or a name inside a directory) itself and all below it */
	snprintf(pat, sizeof(pat), "%s/**/%s%s", anchor, name, dir ? "/**" : "");
	if (dir)
		return gmatch(pat, p);
	return deny_covers(pat, p);
}

static const char *const ref_files[] = { ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile",
	".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json", ".git/config", NULL };
static const char *const ref_dirs[] = { ".vscode", ".idea", ".claude/commands", ".claude/agents",
	".git/hooks", NULL };

static int is_protected(const struct kase *k, const char *p, enum names which)
{
	size_t i;
	int r;

	if (which == REFERENCE) {
		for (i = 0; ref_files[i]; i++) {
			if (!strcmp(ref_files[i], ".git/config") && k->gitcfg)
				continue;
			if (protected_at(cwd, p, ref_files[i], 0))
				return 1;
		}
		for (i = 0; ref_dirs[i]; i++)
			if (protected_at(cwd, p, ref_dirs[i], 1))
				return 1;
		return 0;
	}
	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *e = &srt__protected_names[i];
		int dir = e->kind == SRT__PROT_DIR || !strcmp(e->name, ".git/hooks");
		char hp[PATH_MAX];

		if (!strcmp(e->name, "core.hooksPath"))
			continue;
		if (!strcmp(e->name, ".git/config") && k->gitcfg)
			continue;
		if (e->kind == SRT__PROT_HOME) {
			snprintf(hp, sizeof(hp), "%s/%s", home, e->path);
			if (under(p, hp))
				return 1;
			continue;
		}
		if (protected_at(cwd, p, e->path, dir))
			return 1;
		for (r = 0; r < k->naw; r++)
			if (protected_at(k->aw[r], p, e->path, dir))
				return 1;
	}
	return 0;
}

static int write_ok(const struct kase *k, const char *p, enum names which)
{
	int i, in = 0;

	for (i = 0; i < k->naw; i++)
		in |= under(p, k->aw[i]);
	for (i = 0; i < k->ndw; i++)
		if (under(p, k->dw[i]))
			return 0;
	return in && !is_protected(k, p, which);
}

/* A directory above a protected or write-denied entry (or the directory a
 * protected name is looked for below) cannot be renamed, removed or made
 * anew: the entry would move with it. */
static int pinned(const struct kase *k, const char *p, enum names which)
{
	char buf[PATH_MAX];
	size_t i;
	int r, nanchors = 1;
	const char *anchors[MAXR + 1];

	anchors[0] = cwd;
	if (which == OURS)
		for (r = 0; r < k->naw; r++)
			anchors[nanchors++] = k->aw[r];
	for (r = 0; r < k->ndw; r++)
		if (srt__sb_strictly_under(k->dw[r], p))
			return 1;
	for (r = 0; r < nanchors; r++) {
		if (under(anchors[r], p))
			return 1; /* the anchor and every directory above it */
		for (i = 0; which == OURS ? i < srt__protected_count : ref_files[i] != NULL; i++) {
			const char *name = which == OURS ? srt__protected_names[i].path : ref_files[i];

			if (which == OURS && srt__protected_names[i].kind == SRT__PROT_HOME)
				continue;
			snprintf(buf, sizeof(buf), "%s/%s", anchors[r], name);
			if (srt__sb_strictly_under(buf, p))
				return 1;
		}
		for (i = 0; which == REFERENCE && ref_dirs[i]; i++) {
			snprintf(buf, sizeof(buf), "%s/%s", anchors[r], ref_dirs[i]);
			if (srt__sb_strictly_under(buf, p))
				return 1;
		}
	}
	if (which == OURS)
		for (i = 0; i < srt__protected_count; i++)
			if (srt__protected_names[i].kind == SRT__PROT_HOME) {
				snprintf(buf, sizeof(buf), "%s/%s", home, srt__protected_names[i].path);
				if (srt__sb_strictly_under(buf, p))
					return 1;
			}
	return 0;
}

static int below_root(const struct kase *k, const char *p)
{
	int i;

	for (i = 0; i < k->naw; i++)
		if (srt__sb_strictly_under(p, k->aw[i]))
			return 1;
	return 0;
}

/* A read-denied path inside a write root, and the directories between it
 * and the root, cannot be renamed away (unlink): it would be readable
 * under its new name. Allowed paths inside the deny are not held. */
static int read_held(const struct kase *k, const char *p)
{
	char base[PATH_MAX], s[PATH_MAX];
	int i, j;

	for (i = 0; i < k->ndr; i++) {
		const char *d = k->dr[i];
		int carved = 0;

		if (has_glob(d)) {
			size_t n = strcspn(d, "*?[]");

			snprintf(base, sizeof(base), "%.*s", (int)n, d);
			if (strrchr(base, '/'))
				*strrchr(base, '/') = '\0';
		} else {
			if (!below_root(k, d))
				continue;
			snprintf(base, sizeof(base), "%s", d);
		}
		if (deny_covers(d, p)) {
			for (j = 0; j < k->nar; j++) {
				sample(k->ar[j], s, sizeof(s));
				if ((has_glob(d) ? deny_covers(d, s) : srt__sb_strictly_under(s, d)) &&
				    under(p, s))
					carved = 1;
			}
			for (j = 0; j < k->naw; j++)
				if ((has_glob(d) ? deny_covers(d, k->aw[j]) : srt__sb_strictly_under(k->aw[j], d)) &&
				    under(p, k->aw[j]))
					carved = 1;
			if (!carved && (has_glob(d) ? 1 : below_root(k, d)))
				return 1;
		}
		if (below_root(k, p) && (has_glob(d) ? under(base, p) : srt__sb_strictly_under(base, p)))
			return 1;
	}
	return 0;
}

static int oracle(const struct kase *k, const char *op, const char *p, enum names which)
{
	if (!strcmp(op, "file-read-data"))
		return read_ok(k, p);
	if (!strcmp(op, "file-read-metadata"))
		return 1; /* asked of directories only: stat on the way through */
	if (!strcmp(op, "file-write-data"))
		return write_ok(k, p, which);
	if (!strcmp(op, "file-write-create"))
		return write_ok(k, p, which) && !pinned(k, p, which);
	return write_ok(k, p, which) && !pinned(k, p, which) && !read_held(k, p);
}

/* ---- the questions ---- */

static struct sbpl_profile *ref_profile(const char *name)
{
	const char *dir = getenv("SRT_SEATBELT_REF");
	char path[PATH_MAX], err[128], *text;
	struct sbpl_profile *p;
	FILE *f;
	long n;

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.sb", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	if (fread(text, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	p = sbpl_parse(text, err, sizeof(err));
	if (!p)
		printf("# reference profile %s: %s\n", name, err);
	free(text);
	return p;
}

static const char *const fixed[] = {
	"@/proj", "@/proj/f.txt", "@/proj/src/main.c", "@/proj/.bashrc", "@/proj/a/.bashrc",
	"@/proj/a/b/c/.zshrc", "@/proj/.vscode", "@/proj/.vscode/tasks.json", "@/proj/a/.vscode",
	"@/proj/a/.vscode/x", "@/proj/.git/hooks/pre-commit", "@/proj/.git/config",
	"@/proj/sub/.git/config", "@/proj/sub/.git/hooks/x", "@/proj/.git/HEAD", "@/proj/.git",
	"@/proj/.claude/commands/x.md", "@/proj/.claude", "@/home", "@/home/.ssh/id_rsa",
	"@/home/notes.txt", "@/home/.bashrc", "/etc/passwd", "/usr/bin/ls", "/", "@",
	"@/proj/secret.pem", "@/proj/a/b/key.pem", "@/proj/.env", "@/proj/a/.env",
	"@/proj/.envrc", "@/proj/a/.npmrc", "@/proj/.claude/settings.json", "@/out/x.o",
	"@/build/.zshrc", "@/home/work/x", "@/home/a.txt", "@/proj/conf/public.json",
	"@/proj/conf/other.json", "@/proj/file1.txt", "@/proj/a.log", "@/proj/c.log",
	"@/proj/x/secret/k", "@/proj/secret",
};
static const char *const ops[] = { "file-read-data", "file-write-data", "file-write-unlink",
				   "file-write-create" };

static int nq, nbad, nref, nrefbad, nrefdiff;

static void ask(const struct kase *k, struct sbpl_profile *ours, struct sbpl_profile *ref,
		const char *op, const char *path, const char *vnode)
{
	int want = oracle(k, op, path, OURS);
	int got = sbpl_allows(ours, op, path, vnode);

	nq++;
	if (got != want) {
		nbad++;
		if (nbad <= 20)
			printf("# %s: %s %s: profile %s, policy says %s\n", k->name, op, path,
			       got ? "allows" : "denies", want ? "allows" : "denies");
	}
	if (!ref)
		return;
	nref++;
	if (sbpl_allows(ref, op, path, vnode) == got)
		return;
	/* a deliberate difference: the reference's own protected names and
	 * their anchoring explain it */
	if (oracle(k, op, path, REFERENCE) != want) {
		nrefdiff++;
		return;
	}
	nrefbad++;
	if (nrefbad <= 20)
		printf("# %s: %s %s: ours %s, the reference's %s\n", k->name, op, path,
		       got ? "allows" : "denies", got ? "denies" : "allows");
}

static void add_paths(char paths[][PATH_MAX], int *n, const char *e)
{
	char s[PATH_MAX], *slash;

	sample(e, s, sizeof(s));
	snprintf(paths[(*n)++], PATH_MAX, "%s", s);
	snprintf(paths[(*n)++], PATH_MAX, "%s/f.txt", s);
	snprintf(paths[(*n)++], PATH_MAX, "%s/d/e.txt", s);
	slash = strrchr(s, '/');
	if (slash && slash != s) {
		*slash = '\0';
		snprintf(paths[(*n)++], PATH_MAX, "%s", s);
		snprintf(paths[(*n)++], PATH_MAX, "%s/sib.txt", s);
	}
}

static void t_cases(void)
{
	static char paths[256][PATH_MAX];
	int c, i, j, n;
	int with_ref = getenv("SRT_SEATBELT_REF") != NULL;

	for (c = 0; c < ncases; c++) {
		const struct kase *k = &cases[c];
		char *text = profile_of(k), err[128];
		struct sbpl_profile *ours = text ? sbpl_parse(text, err, sizeof(err)) : NULL;
		struct sbpl_profile *ref = ref_profile(k->name);
		int before = nbad, before_ref = nrefbad;

		if (!ours) {
			ok(0, "case %s: profile written and parsed", k->name);
			free(text);
			continue;
		}
		if (with_ref && !ref)
			printf("# case %s: no reference profile\n", k->name);
		n = 0;
		for (i = 0; i < (int)(sizeof(fixed) / sizeof(fixed[0])); i++) {
			char *p = at(fixed[i]);

			snprintf(paths[n++], PATH_MAX, "%s", p);
			free(p);
		}
		for (i = 0; i < k->ndr; i++)
			add_paths(paths, &n, k->dr[i]);
		for (i = 0; i < k->nar; i++)
			add_paths(paths, &n, k->ar[i]);
		for (i = 0; i < k->naw; i++)
			add_paths(paths, &n, k->aw[i]);
		for (i = 0; i < k->ndw; i++)
			add_paths(paths, &n, k->dw[i]);
		for (i = 0; i < n; i++) {
			for (j = 0; j < 4; j++)
				ask(k, ours, ref, ops[j], paths[i], "REGULAR-FILE");
			if (k->ndr)
				ask(k, ours, ref, "file-read-metadata", paths[i], "DIRECTORY");
		}
		ok(nbad == before, "case %s: every answer follows the policy", k->name);
		if (ref)
			ok(nrefbad == before_ref, "case %s: the reference's profile answers the same", k->name);
		sbpl_free(ours);
		sbpl_free(ref);
		free(text);
	}
	printf("# %d cases, %d questions, %d answered against the policy\n", ncases, nq, nq - nbad);
	ok(ncases >= 30 && nq >= 1000, "at least 30 cases and 1,000 questions (%d, %d)", ncases, nq);
	if (with_ref)
		printf("# reference: %d questions, %d differ by a documented difference, %d otherwise\n",
		       nref, nrefdiff, nrefbad);
}

int main(int argc, char **argv)
{
	const char *file = getenv("SRT_SEATBELT_CASES");
	char buf[PATH_MAX];

	if (getenv("SRT_SEATBELT_ROOT"))
		ROOT = getenv("SRT_SEATBELT_ROOT");
	if (!file) {
		snprintf(buf, sizeof(buf), "%s/tests/seatbelt/cases.txt", getenv("top_srcdir") ? getenv("top_srcdir") : ".");
		file = buf;
	}
	snprintf(cwd, sizeof(cwd), "%s/proj", ROOT);
	snprintf(home, sizeof(home), "%s/home", ROOT);
	if (argc == 3 && !strcmp(argv[1], "--profile")) {
		/* the profile of one case, for the reference comparison */
		int c;

		if (load_cases(file))
			return 2;
		for (c = 0; c < ncases; c++)
			if (!strcmp(cases[c].name, argv[2])) {
				char *t = profile_of(&cases[c]);

				fputs(t, stdout);
				free(t);
				return 0;
			}
		return 2;
	}
	if (load_cases(file)) {
		printf("Bail out! cannot read %s\n", file);
		return 1;
	}
	TAP_RUN(t_eval);
	TAP_RUN(t_home_links);
	TAP_RUN(t_glob);
	TAP_RUN(t_log);
	TAP_RUN(t_network);
	TAP_RUN(t_cases);
	return tap_done();
}
