/* Path spelling rules for settings entries: "~" and "~/x" from HOME,
 * relative paths from the working directory, "//", "/./", "/../" and a
 * trailing "/" collapsed, and links resolved only inside their boundary.
 *
 * Everything here is lexical except the final realpath() check of
 * srt__path_normalize(). Enforcement never relies on these spellings alone:
 * the backends resolve the paths again, without following links an attacker
 * could have planted, when they build their plan. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/platform.h"
#include "paths.h"

#define SRT_PATH_MAX 4096

int srt__path_is_glob(const char *p)
{
	return p && strpbrk(p, "*?[]") != NULL;
}

/* Collapse "//", "/./" and "/../" of an absolute path, strip a trailing
 * "/". "/.." stays "/". The result is never longer than the input. */
static void collapse(char *p)
{
	size_t o = 1, i = 0;

	while (p[i]) {
		size_t seg, len;

		while (p[i] == '/')
			i++;
		if (!p[i])
			break;
		seg = i;
		while (p[i] && p[i] != '/')
			i++;
		len = i - seg;
		if (len == 1 && p[seg] == '.')
			continue;
		if (len == 2 && p[seg] == '.' && p[seg + 1] == '.') {
			/* back to the previous separator; never above "/" */
			while (o > 1 && p[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			continue;
		}
		if (o > 1)
			p[o++] = '/';
		/* o <= seg always holds, so the copy never overtakes the input */
		memmove(p + o, p + seg, len);
		o += len;
	}
	p[0] = '/';
	p[o] = '\0';
}

int srt__path_lexical(const char *path, const char *cwd, const char *home,
		      char **out, struct srt_diag *diag)
{
	const char *base = NULL, *rest;
	char spelled[SRT_PATH_MAX];
	size_t need, bl, rl;
	char *buf;

	if (!path || !*path)
		return srt_diag_set(diag, SRT_E_INVAL, "", "path cannot be empty");
	/* on Windows "C:\x" of the current drive is "/x"; another drive or
	 * a share has no spelling in the core's paths */
	if (srt__os_path_spell(path, spelled, sizeof(spelled)) < 0)
		return errno == ENAMETOOLONG
			       ? srt_diag_set(diag, SRT_E_LIMIT, path, "path \"%.64s...\" is too long", path)
			       : srt_diag_set(diag, SRT_E_UNSUPPORTED, path,
					      "path \"%s\": %s (a path on another drive than the current "
					      "directory's, or a share); run srt from that drive", path,
					      strerror(errno));
	path = rest = spelled;
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		/* An empty HOME must never turn "~/.ssh" into "/.ssh". */
		if (!home || !*home || home[0] != '/')
			return srt_diag_set(diag, SRT_E_INVAL, path,
					    "cannot expand \"%s\": HOME is not set to an absolute path",
					    path);
		base = home;
		rest = path + 1;
	} else if (path[0] != '/') {
		if (!cwd || cwd[0] != '/')
			return srt_diag_set(diag, SRT_E_INVAL, path,
					    "cannot resolve \"%s\": no absolute working directory",
					    path);
		base = cwd;
	}
	bl = base ? strlen(base) : 0;
	rl = strlen(rest);
	need = (base ? bl + 1 : 0) + rl + 2;
	if (need > SRT_PATH_MAX)
		return srt_diag_set(diag, SRT_E_LIMIT, path, "path \"%.64s...\" is too long", path);
	buf = malloc(need);
	if (!buf)
		return srt_diag_set(diag, SRT_E_NOMEM, path, "out of memory");
	/* base "/" rest, both measured above (need counts the NUL and one
	 * more for collapse) */
	if (base) {
		memcpy(buf, base, bl);
		buf[bl] = '/';
		memcpy(buf + bl + 1, rest, rl + 1);
	} else {
		memcpy(buf, rest, rl + 1);
	}
	collapse(buf);
	*out = buf;
	return SRT_OK;
}

/* A link outside its boundary: the resolved spelling is used only when
 * it stays at or below the spelling the user wrote (or its macOS /private
 * twin); anything else (a link to "/", to a top-level directory, to an
 * ancestor, or elsewhere) keeps the written spelling. */
static int outside_boundary(const char *orig, const char *res)
{
	char priv[SRT_PATH_MAX + 16];
	size_t lo = strlen(orig), lp, nparts = 0;
	const char *c;

	if (strcmp(orig, res) == 0)
		return 0;
	priv[0] = '\0';
	if (strncmp(orig, "/tmp/", 5) == 0 || strncmp(orig, "/var/", 5) == 0)
		snprintf(priv, sizeof(priv), "/private%s", orig);
	else
		snprintf(priv, sizeof(priv), "%s", orig);
	if (strcmp(res, priv) == 0)
		return 0;
	if (strcmp(res, "/") == 0)
		return 1;
	for (c = res; *c; c++)
		if (*c == '/' && c[1] && c[1] != '/')
			nparts++;
	if (nparts <= 1)
		return 1;
	lp = strlen(priv);
	if (!((strncmp(res, orig, lo) == 0 && res[lo] == '/') ||
	      (strncmp(res, priv, lp) == 0 && res[lp] == '/')))
		return 1;
	return 0;
}

int srt__path_normalize(const char *path, const char *cwd, const char *home,
			char **out, struct srt_diag *diag)
{
	char *lex = NULL, *res;
	int rc;

	rc = srt__path_lexical(path, cwd, home, &lex, diag);
	if (rc)
		return rc;
	res = realpath(lex, NULL);
	if (res && !outside_boundary(lex, res)) {
		free(lex);
		lex = res;
	} else {
		free(res);
	}
	*out = lex;
	return SRT_OK;
}

/* See paths.h. */
int srt__path_via_writable_link(const char *path)
{
	char cur[PATH_MAX];
	size_t len = strlen(path), i;

	if (path[0] != '/' || len >= sizeof(cur))
		return 1;
	for (i = 1; i <= len; i++) {
		struct stat st;

		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(cur, path, i);
		cur[i] = '\0';
		if (lstat(cur, &st) != 0)
			return 0;
		if (S_ISLNK(st.st_mode)) {
			char *slash = strrchr(cur, '/');

			if (slash == cur)
				slash[1] = '\0';
			else
				*slash = '\0';
			if (srt__os_dir_ours_to_write(cur))
				return 1;
		}
	}
	return 0;
}
