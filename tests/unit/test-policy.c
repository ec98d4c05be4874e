/* Unit tests: path normalisation (paths.c) and settings -> policy
 * (policy-build.c).
 * The settings are filled by hand, so these tests do not depend on the
 * parser. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libsrt/caches.h"
#include "libsrt/paths.h"
#include "libsrt/policy-build.h"
#include "tap.h"

static char T[PATH_MAX];

static const char *P(const char *rel)
{
	static char buf[8][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%.60s", T, rel);
	return buf[i];
}

/* Run a shell command; "@" in it stands for the temporary tree. */
static void sh(const char *cmd)
{
	char buf[PATH_MAX * 4];
	size_t o = 0;

	for (; *cmd && o + sizeof(T) + 1 < sizeof(buf); cmd++) {
		if (*cmd == '@') {
			memcpy(buf + o, T, strlen(T));
			o += strlen(T);
		} else {
			buf[o++] = *cmd;
		}
	}
	buf[o] = '\0';
	if (system(buf) != 0)
		abort();
}

static int norm_is(const char *in, const char *cwd, const char *home, const char *want)
{
	struct srt_diag d;
	char *out = NULL;
	int rc, good;

	memset(&d, 0, sizeof(d));
	rc = srt__path_normalize(in, cwd, home, &out, &d);
	good = rc == 0 && out && strcmp(out, want) == 0;
	if (!good)
		printf("# normalize(%s) = %s (rc %d %s), want %s\n", in, out ? out : "(null)", rc,
		       d.message, want);
	free(out);
	return good;
}

static void test_normalize(void)
{
	struct srt_diag d;
	char *out = NULL;
	char link[PATH_MAX];

	ok(norm_is("~", "/w", "/h/u", "/h/u"), "~ is HOME");
	ok(norm_is("~/x/", "/w", "/h/u", "/h/u/x"), "~/x/ is HOME/x, trailing slash stripped");
	ok(norm_is("a/b", "/w/c", "/h", "/w/c/a/b"), "relative from cwd");
	ok(norm_is("//a/./b/../c//", "/w", "/h", "/a/c"), "//, /./, /../ collapsed");
	ok(norm_is("/..", "/w", "/h", "/"), "/.. stays /");
	ok(norm_is("../../../..", "/w/x", "/h", "/"), "never above /");
	ok(norm_is("~user/x", "/w", "/h", "/w/~user/x"), "~user is not expanded (as the reference)");
	memset(&d, 0, sizeof(d));
	ok(srt__path_normalize("~/.ssh", "/w", "", &out, &d) != 0 && !out,
	   "empty HOME: ~/.ssh is an error, never /.ssh (%s)", d.message);
	ok(srt__path_normalize("~/.ssh", "/w", NULL, &out, &d) != 0 && !out, "no HOME: error");
	ok(srt__path_normalize("", "/w", "/h", &out, &d) != 0, "empty path: error");

	/* realpath is applied only within the boundary: a link elsewhere keeps
	 * its spelling (the mount planner resolves it for enforcement) */
	snprintf(link, sizeof(link), "%s", P("l"));
	sh("mkdir -p '@/real/sub'");
	if (symlink(P("real"), link) != 0)
		abort();
	ok(norm_is(P("l/sub"), "/", "/h", P("l/sub")), "a link outside the boundary keeps its spelling");
	ok(norm_is(P("real/sub/"), "/", "/h", P("real/sub")), "an existing real path is unchanged");
}

static void entries(struct srt__path_entries *e, const char *const *paths, int literal)
{
	size_t n = 0, i;

	while (paths[n])
		n++;
	e->v = calloc(n + 1, sizeof(*e->v));
	e->n = n;
	for (i = 0; i < n; i++) {
		e->v[i].path = strdup(paths[i]);
		e->v[i].literal = literal;
	}
}

static void entries_free(struct srt__path_entries *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i].path);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static void settings_free(struct srt__settings *s)
{
	entries_free(&s->deny_read);
	entries_free(&s->allow_read);
	entries_free(&s->allow_write);
	entries_free(&s->deny_write);
}

static const struct srt_rule *find_rule(const struct srt_rules *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0)
			return &r->v[i];
	return NULL;
}

static void test_build(void)
{
	struct srt__settings s;
	struct srt_policy pol;
	struct srt__policy_env env;
	struct srt_diag d;
	const struct srt_rule *r;
	const char *dr[] = { "~/.ssh", "secrets/**", "keys/*.pem", NULL };
	const char *ar[] = { "~/.ssh/known_hosts", NULL };
	const char *aw[] = { ".", "out/", NULL };
	const char *dw[] = { ".env", NULL };
	const char *files[] = { NULL, NULL };
	char settings_path[PATH_MAX];
	struct stat st;
	int rc;

	sh("mkdir -p '@/proj/out'");
	sh("mkdir -p '@/home/.npm/_logs'");
	snprintf(settings_path, sizeof(settings_path), "%s", P("s.json"));
	files[0] = settings_path;

	memset(&s, 0, sizeof(s));
	s.mandatory_deny_search_depth = 5;
	s.allow_git_config = true;
	entries(&s.deny_read, dr, 0);
	entries(&s.allow_read, ar, 0);
	entries(&s.allow_write, aw, 0);
	entries(&s.deny_write, dw, 0);
	memset(&env, 0, sizeof(env));
	env.cwd = P("proj");
	env.home = P("home");
	env.tmpdir = P("tmp-claude");
	env.settings_files = files;
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0, "policy builds (%s)", d.message);
	if (rc) {
		settings_free(&s);
		return;
	}
	r = find_rule(&pol.deny_read, P("home/.ssh"));
	ok(r && strcmp(r->origin, "filesystem.denyRead[0]") == 0, "~ expanded, origin names the key");
	r = find_rule(&pol.deny_read, P("proj/secrets"));
	ok(r && !(r->flags & SRT_RULE_GLOB), "trailing globstar stripped: a plain path");
	r = find_rule(&pol.deny_read, P("proj/keys/*.pem"));
	ok(r && (r->flags & SRT_RULE_GLOB) && strcmp(r->origin, "filesystem.denyRead[2]") == 0,
	   "read glob kept as a pattern with an absolute prefix");
	ok(find_rule(&pol.allow_read, P("home/.ssh/known_hosts")) != NULL, "allowRead");
	ok(find_rule(&pol.allow_write, P("proj")) && find_rule(&pol.allow_write, P("proj/out")),
	   "allowWrite relative entries from cwd, trailing slash stripped");
	ok(find_rule(&pol.deny_write, P("proj/.env")) != NULL, "denyWrite");
	r = find_rule(&pol.deny_write, settings_path);
	ok(r && strcmp(r->origin, "loaded settings file") == 0, "loaded settings file write-denied");
	ok(find_rule(&pol.deny_write, P("home/.srt-settings.json")) != NULL,
	   "default settings path write-denied");
	ok(pol.tmpdir && strcmp(pol.tmpdir, P("tmp-claude")) == 0 && stat(pol.tmpdir, &st) == 0 &&
	   S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "tmpdir created, mode 0700");
	r = find_rule(&pol.allow_write, P("tmp-claude"));
	ok(r && (r->flags & SRT_RULE_DEFAULT), "tmpdir is a default write path");
	ok(find_rule(&pol.allow_write, P("home/.npm/_logs")) != NULL, "~/.npm/_logs when it exists");
	ok(find_rule(&pol.allow_write, P("home/.claude/debug")) == NULL, "~/.claude/debug absent: skipped");
	ok(pol.mandatory_deny_depth == 5 && pol.allow_git_config, "flags copied");
	ok(strcmp(pol.cwd, P("proj")) == 0 && strcmp(pol.home, P("home")) == 0, "cwd and home");
	srt__policy_release(&pol);
	ok(pol.cwd == NULL && pol.deny_read.n == 0, "release clears the policy");

	/* a denyRead over ~ drops the default write path ~/.npm/_logs */
	entries_free(&s.deny_read);
	{
		const char *dr2[] = { "~", NULL };

		entries(&s.deny_read, dr2, 0);
	}
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && find_rule(&pol.allow_write, P("home/.npm/_logs")) == NULL,
	   "default path under denyRead dropped");
	srt__policy_release(&pol);
	settings_free(&s);
}

static void test_write_globs(void)
{
	struct srt__settings s;
	struct srt_policy pol;
	struct srt__policy_env env;
	struct srt_diag d;
	const char *dw[] = { "**/*.pem", NULL };
	const char *aw[] = { "build", "out[1]", NULL };
	const char *lit[] = { "weird*name", NULL };
	int rc;

	sh("mkdir -p '@/proj/build' && touch '@/proj/out[1]'");
	memset(&s, 0, sizeof(s));
	entries(&s.deny_write, dw, 0);
	memset(&env, 0, sizeof(env));
	env.cwd = P("proj");
	env.home = P("home");
	env.tmpdir = P("tmp-claude");
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == SRT_E_SETTINGS && strcmp(d.key, "filesystem.denyWrite[0]") == 0 &&
	   contains(d.message, "filesystem.denyWrite[0]: \"**/*.pem\": glob patterns in write rules"),
	   "write glob refused, naming the entry: %s", d.message);
	ok(pol.cwd == NULL && pol.deny_write.n == 0, "nothing left in the policy after a failure");
	entries_free(&s.deny_write);

	entries(&s.allow_write, aw, 0);
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && find_rule(&pol.allow_write, P("proj/out[1]")) != NULL,
	   "a write entry with glob characters that names an existing path is that path");
	srt__policy_release(&pol);
	entries_free(&s.allow_write);

	entries(&s.deny_write, lit, 1);
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && find_rule(&pol.deny_write, P("proj/weird*name")) &&
	   (find_rule(&pol.deny_write, P("proj/weird*name"))->flags & SRT_RULE_LITERAL),
	   "{path, literal:true} is a name even with glob characters");
	srt__policy_release(&pol);
	settings_free(&s);
}

static void test_tmpdir_checks(void)
{
	struct srt__settings s;
	struct srt_policy pol;
	struct srt__policy_env env;
	struct srt_diag d;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&env, 0, sizeof(env));
	env.cwd = T;
	env.home = P("home");

	sh("ln -s /etc '@/tmp-link'");
	env.tmpdir = P("tmp-link");
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc != 0 && contains(d.message, "symbolic link"), "tmpdir that is a link refused: %s", d.message);

	sh("touch '@/tmp-file'");
	env.tmpdir = P("tmp-file");
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc != 0 && contains(d.message, "not a directory"), "tmpdir that is a file refused");

	env.tmpdir = "relative/tmp";
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc != 0 && contains(d.message, "absolute"), "relative tmpdir refused");

	if (geteuid() == 0) {
		sh("mkdir -p '@/tmp-other' && chown 4242 '@/tmp-other'");
		env.tmpdir = P("tmp-other");
		rc = srt__policy_build(&pol, &s, &env, &d);
		ok(rc != 0 && contains(d.message, "another user"), "tmpdir of another user refused: %s",
		   d.message);
	} else {
		ok(1, "# SKIP chown needs root");
	}

	setenv("CLAUDE_CODE_TMPDIR", P("from-env"), 1);
	env.tmpdir = NULL;
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && strcmp(pol.tmpdir, P("from-env")) == 0, "CLAUDE_CODE_TMPDIR used and created");
	ok(rc == 0 && !srt__policy_own_tmpdir(&pol), "CLAUDE_CODE_TMPDIR is not the run's own directory");
	srt__policy_release(&pol);
	ok(access(P("from-env"), F_OK) == 0, "CLAUDE_CODE_TMPDIR is kept when the policy is released");
	/* through a link in a writable directory (a sandboxed command could
	 * have planted it): refused, and nothing made where it leads */
	mkdir(P("elsewhere"), 0755);
	if (symlink(P("elsewhere"), P("planted")) != 0)
		abort();
	{
		char via[600];

		snprintf(via, sizeof(via), "%s/sub", P("planted"));
		setenv("CLAUDE_CODE_TMPDIR", via, 1);
	}
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc != 0 && strstr(d.message, "symbolic link") && access(P("elsewhere/sub"), F_OK) != 0,
	   "CLAUDE_CODE_TMPDIR through a planted link: refused, nothing created (%s)", d.message);
	if (rc == 0)
		srt__policy_release(&pol);
	/* the same with the link's directory made read-only: its owner can
	 * make it writable again, so it is no more trusted */
	mkdir(P("ro"), 0755);
	if (symlink(P("elsewhere"), P("ro/planted")) != 0)
		abort();
	chmod(P("ro"), 0555);
	{
		char via[600];

		snprintf(via, sizeof(via), "%s/sub2", P("ro/planted"));
		setenv("CLAUDE_CODE_TMPDIR", via, 1);
	}
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc != 0 && access(P("elsewhere/sub2"), F_OK) != 0,
	   "... also in a directory of ours made read-only (%s)", d.message);
	if (rc == 0)
		srt__policy_release(&pol);
	chmod(P("ro"), 0755);
	unsetenv("CLAUDE_CODE_TMPDIR");
	unsetenv("CLAUDE_TMPDIR");

	/* the default: a directory of the run's own below /tmp/claude (or a
	 * per-user name), removed with what the command left there, never
	 * through a link, when the policy is released */
	env.tmpdir = NULL;
	memset(&d, 0, sizeof(d));
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && pol.tmpdir && strstr(pol.tmpdir, "/srt-run.") &&
	   !strncmp(pol.tmpdir, "/tmp/claude", 11), "default TMPDIR: the run's own (%s)",
	   pol.tmpdir ? pol.tmpdir : d.message);
	if (rc == 0) {
		char t[PATH_MAX], c[PATH_MAX * 8 + 256];
		struct srt_policy p2;
		struct srt__policy_env e2 = env;

		snprintf(t, sizeof(t), "%s", pol.tmpdir);
		ok(srt__policy_own_tmpdir(&pol), "the default TMPDIR is the run's own directory");
		/* a policy built from the sandbox's TMPDIR (customConfig):
		 * the same path, but not its directory to remove */
		e2.tmpdir = t;
		memset(&d, 0, sizeof(d));
		rc = srt__policy_build(&p2, &s, &e2, &d);
		ok(rc == 0 && !srt__policy_own_tmpdir(&p2), "a policy given that TMPDIR does not own it (%s)",
		   d.message);
		if (rc == 0)
			srt__policy_release(&p2);
		ok(access(t, F_OK) == 0 && srt__policy_own_tmpdir(&pol),
		   "releasing that policy leaves the run's TMPDIR to its own policy");
		sh("echo keep > '@/keep'");
		snprintf(c, sizeof(c), "mkdir -p '%s/a/b' && echo x > '%s/a/b/f' && ln -s '%s' '%s/a/l' && "
			 "ln -s '%s' '%s/a/dl' && chmod 0 '%s/a'", t, t, P("keep"), t, T, t, t);
		ok(system(c) == 0, "the command's leftovers: files, links out, an unreadable directory");
		srt__policy_release(&pol);
		ok(access(t, F_OK) != 0 && access(P("keep"), F_OK) == 0,
		   "released: the run's TMPDIR is gone, what its links named is not");
	}

	s.fs_disabled = true;
	env.tmpdir = P("never-made");
	rc = srt__policy_build(&pol, &s, &env, &d);
	ok(rc == 0 && pol.fs_disabled && !pol.tmpdir && pol.allow_write.n == 0 &&
	   access(P("never-made"), F_OK) != 0, "filesystem.disabled: no rules, no TMPDIR");
	srt__policy_release(&pol);
}

/* filesystem.allowCaches: each named cache's directories become write
 * roots (created, 0700), never through a link nor outside HOME. */
static int build_caches(struct srt_policy *pol, char **names, size_t n, struct srt_diag *d)
{
	struct srt__settings s;
	struct srt__policy_env env;
	const char *aw[] = { ".", NULL };
	int rc;

	memset(&s, 0, sizeof(s));
	s.mandatory_deny_search_depth = 3;
	entries(&s.allow_write, aw, 0);
	s.allow_caches.v = names;
	s.allow_caches.n = n;
	memset(&env, 0, sizeof(env));
	env.cwd = P("cproj");
	env.home = P("chome");
	env.tmpdir = P("ctmp");
	memset(d, 0, sizeof(*d));
	rc = srt__policy_build(pol, &s, &env, d);
	entries_free(&s.allow_write);
	return rc;
}

static void test_caches(void)
{
	char *npm_cargo[] = { "npm", "cargo", "npm", NULL };
	char *npm[] = { "npm", NULL };
	struct srt__strv enabled = { npm, 1, 2 };
	struct srt_policy pol;
	struct srt_diag d;
	const struct srt_rule *r;
	struct stat st;
	char buf[512];
	int rc;

	unsetenv("npm_config_cache");
	unsetenv("NPM_CONFIG_CACHE");
	unsetenv("CARGO_HOME");
	unsetenv("PIP_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("GOMODCACHE");
	unsetenv("GOPATH");
	unsetenv("GOCACHE");
	sh("mkdir -p '@/cproj' '@/chome' '@/celsewhere'");
	rc = build_caches(&pol, npm_cargo, 3, &d);
	ok(rc == 0, "allowCaches npm, cargo (npm twice): builds (%s)", d.message);
	if (rc)
		return;
	r = find_rule(&pol.allow_write, P("chome/.npm"));
	ok(r && strcmp(r->origin, "filesystem.allowCaches[0] (npm's cache)") == 0 && !(r->flags & SRT_RULE_DEFAULT),
	   "~/.npm is a write root, its origin names the entry");
	ok(find_rule(&pol.allow_write, P("chome/.cargo/registry")) &&
	   find_rule(&pol.allow_write, P("chome/.cargo/git")) && !find_rule(&pol.allow_write, P("chome/.cargo")),
	   "cargo: registry/ and git/, not ~/.cargo itself");
	ok(stat(P("chome/.npm"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	   "a missing cache directory is created, mode 0700");
	ok(pol.allow_write.n == 5, "npm named twice is one write root (%zu roots)", pol.allow_write.n);
	srt__policy_release(&pol);

	setenv("npm_config_cache", P("celsewhere"), 1);
	rc = build_caches(&pol, npm, 1, &d);
	ok(rc == SRT_E_SETTINGS && strcmp(d.key, "filesystem.allowCaches[0]") == 0 &&
	   strstr(d.message, "npm_config_cache") && strstr(d.message, "not inside HOME"),
	   "npm_config_cache outside HOME refused: %s", d.message);
	setenv("npm_config_cache", P("chome/.ssh/npm"), 1);
	rc = build_caches(&pol, npm, 1, &d);
	ok(rc == SRT_E_SETTINGS && stat(P("chome/.ssh"), &st) != 0,
	   "a cache in ~/.ssh refused, nothing created: %s", d.message);
	setenv("npm_config_cache", P("chome/x/../relocated"), 1);
	rc = build_caches(&pol, npm, 1, &d);
	ok(rc == 0 && find_rule(&pol.allow_write, P("chome/relocated")), "npm_config_cache inside HOME followed");
	if (!rc)
		srt__policy_release(&pol);
	unsetenv("npm_config_cache");

	sh("rm -rf '@/chome/.npm' && ln -s '@/celsewhere' '@/chome/.npm'");
	rc = build_caches(&pol, npm, 1, &d);
	ok(rc == SRT_E_SETTINGS && strstr(d.message, "symbolic link"), "~/.npm a link: refused: %s", d.message);
	sh("rm -f '@/chome/.npm' && rm -rf '@/chome/.cargo/git' && ln -s '@/celsewhere' '@/chome/.cargo/git'");
	rc = build_caches(&pol, npm_cargo, 2, &d);
	ok(rc == SRT_E_SETTINGS && strcmp(d.key, "filesystem.allowCaches[1]") == 0 &&
	   stat(P("celsewhere/db"), &st) != 0, "~/.cargo/git a link: refused: %s", d.message);

	/* a cache under denyRead stays hidden: no write root, nothing created */
	sh("rm -rf '@/chome/.cargo'");
	{
		struct srt__settings s;
		struct srt__policy_env env;
		const char *dr[] = { "~/.cargo", NULL };
		char *cargo[] = { "cargo", NULL };

		memset(&s, 0, sizeof(s));
		s.mandatory_deny_search_depth = 3;
		entries(&s.deny_read, dr, 0);
		s.allow_caches.v = cargo;
		s.allow_caches.n = 1;
		memset(&env, 0, sizeof(env));
		env.cwd = P("cproj");
		env.home = P("chome");
		env.tmpdir = P("ctmp");
		rc = srt__policy_build(&pol, &s, &env, &d);
		ok(rc == 0 && !find_rule(&pol.allow_write, P("chome/.cargo/registry")) &&
		   stat(P("chome/.cargo"), &st) != 0, "a cache under denyRead: no write root, not created");
		if (!rc)
			srt__policy_release(&pol);
		entries_free(&s.deny_read);
	}

	/* advice */
	ok(srt__cache_advice(P("chome/.npm/_cacache/x"), P("chome"), NULL, buf, sizeof(buf)) &&
	   strstr(buf, "filesystem.allowCaches: [\"npm\"]"), "advice for a write in ~/.npm: %s", buf);
	ok(!srt__cache_advice(P("chome/.npm/x"), P("chome"), &enabled, buf, sizeof(buf)),
	   "no advice for a cache already open");
	ok(srt__cache_advice(P("chome/.cache"), P("chome"), NULL, buf, sizeof(buf)) &&
	   strstr(buf, "[\"pip\", \"go\"]"), "advice for ~/.cache names pip and go: %s", buf);
	ok(!srt__cache_advice(P("chome/other"), P("chome"), NULL, buf, sizeof(buf)) &&
	   !srt__cache_advice(P("chome"), P("chome"), NULL, buf, sizeof(buf)) &&
	   !srt__cache_advice("/etc/passwd", P("chome"), NULL, buf, sizeof(buf)),
	   "no advice for the rest of HOME, HOME itself or outside it");
	ok(srt__cache_known("go") && !srt__cache_known("yarn") && !srt__cache_known(""), "known names");
}

int main(void)
{
	char tmpl[] = "/tmp/srt-policy.XXXXXX";

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(T, sizeof(T), "%s", tmpl);
	umask(022);
	TAP_RUN(test_normalize);
	TAP_RUN(test_build);
	TAP_RUN(test_write_globs);
	TAP_RUN(test_tmpdir_checks);
	TAP_RUN(test_caches);
	sh("rm -rf '@'");
	return tap_done();
}
