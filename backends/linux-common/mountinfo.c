/* /proc/self/mountinfo fields (see mountinfo.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/linux-common/mountinfo.h"
#include "common/pathcat.h"

void srt__mountinfo_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

void srt__mountinfo_layers_free(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

/* How overlayfs reads an option's value: lowerdir's is a list, split at
 * ':' with "\:" for a colon in a name; upperdir's is one name from which
 * it drops each '\' (a ':' in it is a colon); lowerdir+'s and datadir+'s
 * are one name taken as written (red team: a link "x:y" to $HOME given as
 * lowerdir+ was read as the layers "x" and "y"). */
enum layer_syntax { LAYER_LIST, LAYER_ONE_ESCAPED, LAYER_ONE };

/* Add the directories of one overlay option value to *l; 0, or -1 out of
 * memory. */
static int add_layers(char ***l, size_t *n, const char *val, enum layer_syntax syn)
{
	while (*val) {
		size_t len = 0;
		char *d = malloc(strlen(val) + 1), **nl, real[PATH_MAX];

		if (!d)
			return -1;
		for (; *val && (*val != ':' || syn != LAYER_LIST); val++) {
			if (val[0] == '\\' && val[1] && syn != LAYER_ONE)
				val++;
			d[len++] = *val;
		}
		d[len] = '\0';
		if (*val == ':')
			val++;
		if (!d[0]) { /* empty: a data-only "::" */
			free(d);
			continue;
		}
		/* the kernel shows the words its mounter wrote ("/home/u/",
		 * a link to $HOME): the directory they name now, when there
		 * is one, is what the checks compare with the denied paths. A
		 * relative name (from the mounter's working directory, which
		 * is gone) is kept as written: the callers cannot place it */
		if (d[0] == '/' && realpath(d, real)) {
			char *r = strdup(real);

			if (!r) {
				free(d);
				return -1;
			}
			free(d);
			d = r;
		}
		if (!(nl = realloc(*l, (*n + 2) * sizeof(*nl)))) {
			free(d);
			return -1;
		}
		*l = nl;
		nl[(*n)++] = d;
		nl[*n] = NULL;
	}
	return 0;
}

/* The layers an overlay's super options name (in place: they are
 * unescaped); 0, or -1 out of memory. */
static int overlay_layers(char *opts, char ***out, size_t *n_lower)
{
	char **l = NULL;
	size_t n = 0;
	char *save = NULL, *upper = NULL;

	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		const char *val = NULL;
		enum layer_syntax syn = LAYER_ONE;

		if (!strncmp(o, "upperdir=", 9)) {
			upper = o; /* last: writes land there */
			continue;
		}
		if (!strncmp(o, "lowerdir=", 9)) {
			val = o + 9;
			syn = LAYER_LIST;
		} else if (!strncmp(o, "lowerdir+=", 10) || !strncmp(o, "datadir+=", 9)) {
			val = strchr(o, '=') + 1;
		}
		if (!val)
			continue;
		srt__mountinfo_unescape(o);
		if (add_layers(&l, &n, val, syn) < 0)
			goto nomem;
	}
	*n_lower = n;
	if (upper) {
		srt__mountinfo_unescape(upper);
		if (add_layers(&l, &n, upper + 9, LAYER_ONE_ESCAPED) < 0)
			goto nomem;
	}
	*out = l;
	return 0;
nomem:
	srt__mountinfo_layers_free(l);
	return -1;
}

int srt__mountinfo_overlay(char *line, char ***layers, size_t *n_lower)
{
	/* after " - ": the type, the source, the super options (spaces in
	 * the fields are escaped, so " - overlay " cannot be inside one) */
	char *sep = strstr(line, " - overlay "), *opts;

	*layers = NULL;
	*n_lower = 0;
	if (!sep || !(opts = strchr(sep + 11, ' ')))
		return 0;
	opts[strcspn(opts, "\n")] = '\0';
	return overlay_layers(opts + 1, layers, n_lower);
}

/* Directories (not links) the resolutions of one plan found, kept while
 * that plan's memo is on (srt__mountinfo_dirs_memo): the protected names
 * of $HOME and of each write root lie below the same few directories,
 * each otherwise looked at once per name. Only a directory the same plan
 * saw a moment ago is taken without asking; a missing name, a link or
 * anything else is looked at every time. */
#define DIRS_MEMO_MAX 128

static _Thread_local struct {
	int on;
	size_t n;
	char *v[DIRS_MEMO_MAX];
} dirs;

static void reals_free(void);

void srt__mountinfo_dirs_memo(int on)
{
	if (on && dirs.on)
		return; /* a plan's second planner shares the first's */
	while (dirs.n > 0)
		free(dirs.v[--dirs.n]);
	reals_free();
	dirs.on = on;
}

int srt__plan_dir_known(const char *path)
{
	size_t i;

	for (i = 0; dirs.on && i < dirs.n; i++)
		if (strcmp(dirs.v[i], path) == 0)
			return 1;
	return 0;
}

void srt__plan_dir_remember(const char *path)
{
	/* a copy that cannot be made only means the next name asks again */
	if (dirs.on && dirs.n < DIRS_MEMO_MAX && (dirs.v[dirs.n] = strdup(path)))
		dirs.n++;
}

/* realpath's answers for the same plan: the Landlock plan asks for the
 * real location of each protected name of each root, and each absent one
 * for its directory's. Successes only, as dirs above. */
static _Thread_local struct {
	size_t n;
	char *in[DIRS_MEMO_MAX], *out[DIRS_MEMO_MAX];
} reals;

static void reals_free(void)
{
	while (reals.n > 0) {
		reals.n--;
		free(reals.in[reals.n]);
		free(reals.out[reals.n]);
	}
}

int srt__realpath_memo(const char *path, char out[PATH_MAX])
{
	size_t i;

	for (i = 0; dirs.on && i < reals.n; i++)
		if (strcmp(reals.in[i], path) == 0) {
			memcpy(out, reals.out[i], strlen(reals.out[i]) + 1);
			return 0;
		}
	if (!realpath(path, out))
		return -1;
	if (dirs.on && reals.n < DIRS_MEMO_MAX && (reals.in[reals.n] = strdup(path))) {
		if ((reals.out[reals.n] = strdup(out)))
			reals.n++;
		else
			free(reals.in[reals.n]);
	}
	return 0;
}

int srt__mountinfo_resolve(const char *path, char *out, size_t cap)
{
	return srt__mountinfo_resolve_links(path, out, cap, NULL, NULL);
}

int srt__mountinfo_resolve_links(const char *path, char *out, size_t cap,
				 int (*link_fn)(void *ctx, const char *link), void *ctx)
{
	char cur[PATH_MAX], todo[PATH_MAX * 2], link[PATH_MAX], next[PATH_MAX * 2];
	size_t cl = 0; /* cur: the part resolved so far, "" for "/" */
	int links = 0, missing = 0; /* missing: cur does not exist */
	size_t miss_len = 0;        /* then: cur's length up to its first missing name */
	char *p = todo;

	if (path[0] != '/' || strlen(path) >= sizeof(todo))
		return -1;
	memcpy(todo, path, strlen(path) + 1);
	cur[0] = '\0';
	while (*p) {
		struct stat st;
		size_t n;
		char *e;
		ssize_t ln;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *s;

			/* ".." below a name that does not exist: the kernel
			 * needs that name, and whoever makes it (a directory,
			 * or a link to anywhere) decides where the path goes;
			 * the answer is the missing name itself, which a caller
			 * that holds it keeps from being made (red team: a
			 * link to "dots/missing/../config" was placed at
			 * "dots/config", and the command made "dots/missing" a
			 * link elsewhere) */
			if (missing) {
				cur[miss_len] = '\0';
				cl = miss_len;
				break;
			}
			/* cur holds no link: its parent is the parent */
			s = strrchr(cur, '/');

			if (s)
				*s = '\0';
			cl = strlen(cur);
			p = e;
			continue;
		}
		if (cl + 1 + n >= sizeof(cur))
			return -1;
		cur[cl] = '/';
		memcpy(cur + cl + 1, p, n);
		cur[cl + 1 + n] = '\0';
		/* a link, even one whose target does not exist yet (the
		 * command may make it), is followed; a name that does not
		 * exist is taken as it is, and so is everything after it,
		 * without asking (a start-up resolves every protected name of
		 * $HOME this way, most of them absent) */
		if (!missing && srt__plan_dir_known(cur)) {
			st.st_mode = S_IFDIR;
		} else if (!missing && lstat(cur, &st) != 0) {
			missing = 1;
			miss_len = cl + 1 + n;
		} else if (!missing && S_ISDIR(st.st_mode)) {
			srt__plan_dir_remember(cur);
		}
		if (!missing && S_ISLNK(st.st_mode)) {
			int rc;

			if (link_fn && (rc = link_fn(ctx, cur)))
				return rc;
			if (++links > 40 || (ln = readlink(cur, link, sizeof(link) - 1)) < 0)
				return -1;
			link[ln] = '\0';
			if (srt__pathcat(next, sizeof(next), link, (size_t)ln, e, NULL, NULL, NULL) >= sizeof(todo))
				return -1;
			memcpy(todo, next, strlen(next) + 1);
			p = todo;
			if (link[0] == '/')
				cl = 0;
			cur[cl] = '\0';
			continue;
		}
		cl += 1 + n;
		p = e;
		/* a name that is neither a directory nor a link, with more
		 * after it: the kernel stops there (ENOTDIR) as at a missing
		 * name, and the file is the name to hold, as above */
		if (!missing && *e && !S_ISDIR(st.st_mode))
			break;
	}
	if (srt__pathcat(out, cap, cl ? cur : "/", cl ? cl : 1, NULL, NULL, NULL, NULL) >= cap)
		return -1;
	return 0;
}
