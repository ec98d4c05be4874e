/* Unit tests: the windows-wfp plan (backends/windows-wfp/plan.c) on any
 * system. Each tests/data/win-plan/<case>.json is a settings file; it goes
 * through the core's settings parser and policy builder, with the current
 * directory $ROOT/project and $HOME $ROOT/home of a fixture tree made from
 * tests/data/win-plan/tree.txt, and the plan printed (with $ROOT for the
 * fixture's real place) must equal <case>.txt line for line. A case whose
 * plan cannot be built expects "error: <message>". The windows section's
 * proxyPortRange and sandboxUser, which the core does not keep yet, are
 * read here and handed over as the plan's options.
 *
 * SRT_WIN_PLAN_UPDATE=1 writes the .txt files instead (read them before
 * committing: they are the specification). */
#include "config.h"

/* the fixture root is a short /tmp name; a truncated path would only fail a case */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/windows-wfp/plan.h"
#include "libsrt/policy-build.h"
#include "libsrt/settings.h"
#include "tap.h"

#ifndef WIN_PLAN_DATA
#error WIN_PLAN_DATA must name tests/data/win-plan
#endif

static char ROOT[PATH_MAX];

/* ---- the filesystem the plan sees: the real one, links not followed ---- */

static enum srt__winfs_kind kind_of(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return SRT__WINFS_LINK;
	return S_ISDIR(st->st_mode) ? SRT__WINFS_DIR : SRT__WINFS_FILE;
}

static enum srt__winfs_kind fs_kind(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st))
		return SRT__WINFS_MISSING;
	return kind_of(&st);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries in name order, so the plan does not depend on readdir's order. */
static int fs_list(void *ctx, const char *dir, srt__winfs_entry_fn fn, void *c)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[512];
	size_t n = 0, i;
	int rc = 0;

	(void)ctx;
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < 512)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!rc && !lstat(path, &st))
			rc = fn(c, names[i], kind_of(&st));
		free(names[i]);
	}
	return rc;
}

static const struct srt__winfs FS = { fs_kind, fs_list, NULL };

/* ---- the fixture tree ---- */

static int make_tree(void)
{
	char line[512], path[PATH_MAX], file[PATH_MAX];
	FILE *f;

	snprintf(file, sizeof(file), "%s/tree.txt", WIN_PLAN_DATA);
	if (!(f = fopen(file, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		char *arrow;

		line[n] = '\0';
		if (!n || line[0] == '#')
			continue;
		snprintf(path, sizeof(path), "%s/%s", ROOT, line);
		if ((arrow = strstr(path, " -> "))) {
			*arrow = '\0';
			if (symlink(arrow + 4, path))
				return -1;
		} else if (path[strlen(path) - 1] == '/') {
			char *s;

			for (s = path + strlen(ROOT) + 1; (s = strchr(s, '/')); s++) {
				*s = '\0';
				if (mkdir(path, 0755) && errno != EEXIST)
					return -1;
				*s = '/';
			}
		} else {
			FILE *o = fopen(path, "w");

			if (!o)
				return -1;
			fclose(o);
		}
	}
	fclose(f);
	return 0;
}

/* ---- one case ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1))) {
		*len = fread(buf, 1, (size_t)n, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* The windows section's keys the core does not keep (yet). */
static void win_opts(const char *text, struct srt__winplan_opts *o)
{
	cJSON *j = cJSON_Parse(text), *w, *r, *u;

	if (!j)
		return;
	w = cJSON_GetObjectItemCaseSensitive(j, "windows");
	r = cJSON_GetObjectItemCaseSensitive(w, "proxyPortRange");
	if (cJSON_GetArraySize(r) == 2) {
		o->port_lo = cJSON_GetArrayItem(r, 0)->valueint;
		o->port_hi = cJSON_GetArrayItem(r, 1)->valueint;
	}
	u = cJSON_GetObjectItemCaseSensitive(w, "sandboxUser");
	if (cJSON_IsString(u)) {
		static char user[64];

		snprintf(user, sizeof(user), "%s", u->valuestring);
		o->user = user;
	}
	cJSON_Delete(j);
}

/* out with every $ROOT spelled "$ROOT"; malloc'd. */
static char *unroot(const char *s)
{
	size_t rl = strlen(ROOT), n = 0;
	char *out = malloc(strlen(s) + 1);
	const char *hit;

	if (!out)
		return NULL;
	while ((hit = strstr(s, ROOT))) {
		memcpy(out + n, s, (size_t)(hit - s));
		n += (size_t)(hit - s);
		memcpy(out + n, "$ROOT", 5);
		n += 5;
		s = hit + rl;
	}
	strcpy(out + n, s);
	return out;
}

/* The plan (or "error: ...") for one settings file, as text. */
static char *plan_text(const char *json_path)
{
	struct srt__settings s;
	struct srt_policy pol;
	struct srt__policy_env env;
	struct srt__winplan_opts o;
	struct srt__winplan p;
	struct srt_diag d;
	char cwd[PATH_MAX], home[PATH_MAX], tmp[PATH_MAX], *text, *buf = NULL, *res;
	const char *none[] = { NULL };
	size_t len = 0, blen = 0;
	FILE *m = open_memstream(&buf, &blen);
	int rc;

	if (!m || !(text = slurp(json_path, &len)))
		return NULL;
	memset(&d, 0, sizeof(d));
	memset(&env, 0, sizeof(env));
	memset(&o, 0, sizeof(o));
	snprintf(cwd, sizeof(cwd), "%s/project", ROOT);
	snprintf(home, sizeof(home), "%s/home", ROOT);
	snprintf(tmp, sizeof(tmp), "%s/tmp", ROOT);
	env.cwd = cwd;
	env.home = home;
	env.tmpdir = tmp;
	env.settings_files = none;
	srt__settings_init(&s);
	rc = srt__settings_parse_json(&s, text, len, "settings.json", &d);
	if (!rc) {
		rc = srt__policy_build(&pol, &s, &env, &d);
		srt__settings_release(&s);
	}
	if (!rc) {
		win_opts(text, &o);
		o.allow_loopback = pol.allow_local_binding;
		rc = srt__winplan_build(&pol, &o, &FS, &p, &d);
		if (!rc) {
			srt__winplan_print(&p, m);
			srt__winplan_free(&p);
		}
		srt__policy_release(&pol);
	}
	if (rc)
		fprintf(m, "error: %s\n", d.message);
	fclose(m);
	free(text);
	res = unroot(buf);
	free(buf);
	return res;
}

/* Compare line by line and name the first difference. */
static int same(const char *name, const char *got, const char *want)
{
	int line = 1;
	const char *g = got, *w = want;

	while (*g && *w) {
		size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");

		if (gl != wl || strncmp(g, w, gl)) {
			printf("# %s line %d\n#   got:  %.*s\n#   want: %.*s\n", name, line,
			       (int)gl, g, (int)wl, w);
			return 0;
		}
		g += gl + (g[gl] == '\n');
		w += wl + (w[wl] == '\n');
		line++;
	}
	if (*g || *w) {
		printf("# %s line %d: %s\n", name, line, *g ? "extra lines" : "missing lines");
		return 0;
	}
	return 1;
}

static int is_case(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".json");
}

static void run_cases(void)
{
	struct dirent **list;
	int n, i, update = getenv("SRT_WIN_PLAN_UPDATE") != NULL;

	n = scandir(WIN_PLAN_DATA, &list, is_case, alphasort);
	ok(n >= 20, "at least 20 cases in %s (%d)", WIN_PLAN_DATA, n);
	for (i = 0; i < n; i++) {
		char json[PATH_MAX], txt[PATH_MAX], *got, *want;
		size_t len;

		snprintf(json, sizeof(json), "%s/%s", WIN_PLAN_DATA, list[i]->d_name);
		snprintf(txt, sizeof(txt), "%.*s.txt", (int)(strlen(json) - 5), json);
		got = plan_text(json);
		if (update && got) {
			FILE *f = fopen(txt, "w");

			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
		want = slurp(txt, &len);
		ok(got && want && same(list[i]->d_name, got, want), "plan of %s", list[i]->d_name);
		free(got);
		free(want);
		free(list[i]);
	}
	free(list);
}

/* ---- a run's port range against the installed filters' ---- */

static void installed_ports(void)
{
	struct srt_diag d;

	memset(&d, 0, sizeof(d));
	ok(srt__winplan_check_installed_ports(0, 0, 60080, 60089, &d) == SRT_OK,
	   "ports: the default range inside the default install");
	ok(srt__winplan_check_installed_ports(60082, 60084, 60080, 60089, &d) == SRT_OK,
	   "ports: a range inside the installed one");
	ok(srt__winplan_check_installed_ports(61000, 61004, 61000, 61004, &d) == SRT_OK,
	   "ports: a custom range installed as such");
	memset(&d, 0, sizeof(d));
	ok(srt__winplan_check_installed_ports(61000, 61004, 60080, 60089, &d) == SRT_E_UNAVAILABLE &&
	   !strcmp(d.key, "windows.proxyPortRange") &&
	   strstr(d.message, "windows.proxyPortRange 61000-61004 is outside the ports the installed WFP filters permit (60080-60089)") &&
	   strstr(d.message, "windows-install --ports 61000-61004"),
	   "ports: a range outside the installed one is refused, both named (%s)", d.message);
	memset(&d, 0, sizeof(d));
	ok(srt__winplan_check_installed_ports(60085, 60095, 60080, 60089, &d) == SRT_E_UNAVAILABLE &&
	   strstr(d.message, "60085-60095 is outside"), "ports: a range reaching past the installed one is refused (%s)",
	   d.message);
	memset(&d, 0, sizeof(d));
	ok(srt__winplan_check_installed_ports(0, 0, 61000, 61004, &d) == SRT_E_UNAVAILABLE &&
	   strstr(d.message, "60080-60089 is outside"), "ports: the default range against a custom install is refused (%s)",
	   d.message);
	memset(&d, 0, sizeof(d));
	ok(srt__winplan_check_installed_ports(0, 0, 0, 0, &d) == SRT_E_UNAVAILABLE &&
	   strstr(d.message, "do not record"), "ports: an install that recorded no range is refused (%s)", d.message);
}

/* ---- the glob matcher on its own ---- */

static void globs(void)
{
	ok(srt__winglob_match("/a/*.pem", "/a/k.pem"), "glob: * within a component");
	ok(!srt__winglob_match("/a/*.pem", "/a/b/k.pem"), "glob: * stops at /");
	ok(srt__winglob_match("/a/**/k.pem", "/a/k.pem"), "glob: **/ matches no directory");
	ok(srt__winglob_match("/a/**/k.pem", "/a/b/c/k.pem"), "glob: **/ matches directories");
	ok(!srt__winglob_match("/a/**/k.pem", "/a/bk.pem"), "glob: **/ is whole directories");
	ok(srt__winglob_match("/a/**", "/a/b/c"), "glob: trailing ** matches anything");
	ok(srt__winglob_match("/a/?.txt", "/a/x.txt") && !srt__winglob_match("/a/?.txt", "/a/xy.txt"),
	   "glob: ? is one character");
	ok(srt__winglob_match("/a/[a-c]x", "/a/bx") && !srt__winglob_match("/a/[a-c]x", "/a/dx"),
	   "glob: a range");
	ok(srt__winglob_match("/a/[]x", "/a/[]x"), "glob: an empty bracket is literal text");
	ok(srt__winglob_match("/a/[c-a]", "/a/[c-a]"), "glob: a backwards range is literal text");
	ok(!srt__winglob_match("/a/*", "/a"), "glob: the whole path must match");
}

int main(void)
{
	char tmpl[] = "/tmp/srt-win-plan.XXXXXX";
	char cmd[PATH_MAX + 16];
	int rc;

	if (!mkdtemp(tmpl) || !realpath(tmpl, ROOT)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	umask(022);
	if (make_tree()) {
		printf("Bail out! cannot make the fixture tree from %s/tree.txt: %s\n",
		       WIN_PLAN_DATA, strerror(errno));
		return 1;
	}
	globs();
	installed_ports();
	run_cases();
	rc = tap_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ROOT);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", ROOT);
	return rc;
}
