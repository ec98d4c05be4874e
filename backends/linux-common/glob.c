/* Linux backends: glob matching and wrap-time expansion (grammar in glob.h).
 *
 * Matching is a dynamic programme over (token, text position), so a hostile
 * pattern such as "*a*a*a*a*b" costs tokens x length, never exponential
 * backtracking. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backends/linux-common/glob.h"

enum tok_kind { T_LIT, T_ANY1, T_STAR, T_GLOBSTAR, T_GLOBSTAR_SLASH, T_SET };

struct tok {
	enum tok_kind kind;
	unsigned char c;
	uint8_t set[32]; /* bitmap for T_SET */
};

struct srt__glob {
	struct tok *t;
	size_t n;
	int has_globstar;
	size_t slashes; /* "/" tokens, to bound the walk depth */
};

/* Parse "[...]" at p (p[0] == '['). Returns the length consumed, or 0 when
 * the bracket spells no set and must be read as a literal "[". */
static size_t parse_set(const char *p, struct tok *t)
{
	const char *end = strchr(p + 1, ']');
	size_t i, len;

	if (!end || end == p + 1)
		return 0;
	len = (size_t)(end - (p + 1));
	memset(t->set, 0, sizeof(t->set));
	for (i = 0; i < len; i++) {
		unsigned char a = (unsigned char)p[1 + i];

		if (i + 2 < len && p[2 + i] == '-') {
			unsigned char b = (unsigned char)p[3 + i];
			unsigned c;

			if (b < a)
				return 0; /* backwards range: literal text */
			for (c = a; c <= b; c++)
				t->set[c >> 3] |= (uint8_t)(1u << (c & 7));
			i += 2;
			continue;
		}
		t->set[a >> 3] |= (uint8_t)(1u << (a & 7));
	}
	t->kind = T_SET;
	return len + 2;
}

int srt__glob_compile(const char *pattern, struct srt__glob **out)
{
	struct srt__glob *g;
	size_t i = 0, n = strlen(pattern);

	g = calloc(1, sizeof(*g));
	if (!g)
		return SRT_E_NOMEM;
	g->t = calloc(n + 1, sizeof(*g->t));
	if (!g->t) {
		free(g);
		return SRT_E_NOMEM;
	}
	while (i < n) {
		struct tok *t = &g->t[g->n];
		char c = pattern[i];

		if (c == '*') {
			size_t stars = 0;

			while (pattern[i] == '*') {
				stars++;
				i++;
			}
			if (stars == 1) {
				t->kind = T_STAR;
			} else if (pattern[i] == '/') {
				t->kind = T_GLOBSTAR_SLASH;
				i++;
				g->has_globstar = 1;
			} else {
				t->kind = T_GLOBSTAR;
				g->has_globstar = 1;
			}
		} else if (c == '?') {
			t->kind = T_ANY1;
			i++;
		} else if (c == '[') {
			size_t used = parse_set(pattern + i, t);

			if (used) {
				i += used;
				/* a set may match "/": the depth is then unbounded */
				if (t->set['/' >> 3] & (1u << ('/' & 7)))
					g->has_globstar = 1;
			} else {
				t->kind = T_LIT;
				t->c = '[';
				i++;
			}
		} else {
			t->kind = T_LIT;
			t->c = (unsigned char)c;
			if (c == '/')
				g->slashes++;
			i++;
		}
		g->n++;
	}
	*out = g;
	return SRT_OK;
}

void srt__glob_free(struct srt__glob *g)
{
	if (!g)
		return;
	free(g->t);
	free(g);
}

int srt__glob_match(const struct srt__glob *g, const char *s)
{
	size_t len = strlen(s), i, j;
	unsigned char *cur, *nxt, *tmp;
	int ok;

	cur = calloc(len + 1, 1);
	nxt = calloc(len + 1, 1);
	if (!cur || !nxt) {
		free(cur);
		free(nxt);
		return 0;
	}
	cur[0] = 1;
	for (i = 0; i < g->n; i++) {
		const struct tok *t = &g->t[i];
		int any = 0, acc = 0;

		memset(nxt, 0, len + 1);
		for (j = 0; j <= len; j++) {
			unsigned char ch = j < len ? (unsigned char)s[j] : 0;

			switch (t->kind) {
			case T_LIT:
				if (j < len && cur[j] && ch == t->c)
					nxt[j + 1] = 1;
				break;
			case T_ANY1:
				if (j < len && cur[j] && ch != '/')
					nxt[j + 1] = 1;
				break;
			case T_SET:
				if (j < len && cur[j] && (t->set[ch >> 3] & (1u << (ch & 7))))
					nxt[j + 1] = 1;
				break;
			case T_STAR:
				nxt[j] = cur[j] || (j > 0 && nxt[j - 1] && s[j - 1] != '/');
				break;
			case T_GLOBSTAR:
				nxt[j] = cur[j] || (j > 0 && nxt[j - 1]);
				break;
			case T_GLOBSTAR_SLASH:
				/* (.*\/)? : nothing, or anything ending in "/" */
				nxt[j] = cur[j] || (j > 0 && acc && s[j - 1] == '/');
				break;
			}
			if (cur[j])
				acc = 1;
			if (nxt[j])
				any = 1;
		}
		if (j > 0 && nxt[len])
			any = 1;
		tmp = cur;
		cur = nxt;
		nxt = tmp;
		if (!any)
			break;
	}
	ok = cur[len];
	if (i < g->n)
		ok = 0;
	free(cur);
	free(nxt);
	return ok;
}

size_t srt__glob_base_len(const char *pattern)
{
	const char *g = strpbrk(pattern, "*?[]");
	const char *p;

	if (!g)
		return strlen(pattern);
	for (p = g; p > pattern && *p != '/'; p--)
		;
	return (size_t)(p - pattern);
}

struct expand {
	const struct srt__glob *g;
	int with_links; /* deny side: report links, and walk into linked dirs */
	struct stat on_path[64]; /* directories being walked, against loops */
	size_t n_on_path;
	size_t *budget;
	size_t max_depth;
	struct srt__strv *out;
	struct srt_diag *diag;
	char path[PATH_MAX];
};

/* The walk cannot look inside e->path (too deep, a name too long for
 * PATH_MAX, unreadable, out of descriptors): on the deny side the whole
 * directory is reported as a match, so what it holds stays denied; an
 * allow side gives nothing. */
static int give_up(struct expand *e)
{
	if (!e->with_links)
		return SRT_OK;
	return srt__strv_push(e->out, e->path) ? SRT_E_NOMEM : SRT_OK;
}

static int walk(struct expand *e, int dfd, size_t plen, size_t depth)
{
	DIR *d;
	struct dirent *de;
	int rc = SRT_OK, denied_here = 0;

	{
		struct stat st;
		size_t i;

		if (fstat(dfd, &st) != 0 || e->n_on_path == sizeof(e->on_path) / sizeof(e->on_path[0])) {
			close(dfd);
			return give_up(e);
		}
		/* a linked directory that leads back up the walk is a loop */
		for (i = 0; i < e->n_on_path; i++)
			if (e->on_path[i].st_dev == st.st_dev && e->on_path[i].st_ino == st.st_ino) {
				close(dfd);
				return SRT_OK;
			}
		e->on_path[e->n_on_path++] = st;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		e->n_on_path--;
		return give_up(e);
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		size_t nlen = strlen(name);
		unsigned char type = de->d_type;

		if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
			continue;
		if (*e->budget == 0) {
			rc = srt_diag_set(e->diag, SRT_E_LIMIT, "",
					  "too many directory entries under \"%s\"", e->path);
			break;
		}
		(*e->budget)--;
		if (plen + 1 + nlen + 1 > sizeof(e->path)) {
			/* this directory holds a name whose path is too long to
			 * match against: deny the directory itself */
			e->path[plen] = '\0';
			if (!denied_here && (rc = give_up(e)) != SRT_OK)
				break;
			denied_here = 1;
			continue;
		}
		e->path[plen] = '/';
		memcpy(e->path + plen + 1, name, nlen + 1);
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				/* what cannot be looked at is denied whole */
				if (errno != ENOENT && (rc = give_up(e)) != SRT_OK)
					break;
				continue;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		if (srt__glob_match(e->g, e->path)) {
			if (type != DT_LNK || e->with_links) {
				if (srt__strv_push(e->out, e->path)) {
					rc = SRT_E_NOMEM;
					break;
				}
			}
			continue;
		}
		/* A deny also covers what a linked directory leads to (matches are
		 * reported under the link's name; the planner resolves them to
		 * where they really are). An allow never follows a link. */
		if ((type == DT_DIR || (type == DT_LNK && e->with_links)) &&
		    depth + 1 < e->max_depth) {
			int cfd = openat(dirfd(d), name,
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC |
					 (type == DT_LNK ? 0 : O_NOFOLLOW));

			if (cfd >= 0)
				rc = walk(e, cfd, plen + 1 + nlen, depth + 1);
			else if (errno != ENOENT && (type == DT_DIR || (errno != ENOTDIR && errno != ELOOP)))
				rc = give_up(e); /* unreadable (also behind a link): denied whole */
			if (rc)
				break;
		}
	}
	e->path[plen] = '\0';
	closedir(d);
	e->n_on_path--;
	return rc;
}

int srt__glob_expand(const char *pattern, int with_links, size_t *budget,
		     struct srt__strv *out, struct srt_diag *diag)
{
	struct expand e;
	struct srt__glob *g = NULL;
	size_t blen = srt__glob_base_len(pattern);
	int dfd, rc;

	if (pattern[0] != '/')
		return srt_diag_set(diag, SRT_E_INVAL, pattern, "glob \"%s\" is not absolute", pattern);
	if (blen == 0)
		return srt_diag_set(diag, SRT_E_INVAL, pattern,
				    "glob \"%s\" starts with a wildcard at \"/\"; give a directory "
				    "before the first wildcard", pattern);
	if (blen >= sizeof(e.path))
		return srt_diag_set(diag, SRT_E_LIMIT, pattern, "glob \"%.64s...\" is too long", pattern);
	rc = srt__glob_compile(pattern, &g);
	if (rc)
		return srt_diag_set(diag, rc, pattern, "out of memory");
	memset(&e, 0, sizeof(e));
	e.g = g;
	e.with_links = with_links;
	e.budget = budget;
	e.out = out;
	e.diag = diag;
	memcpy(e.path, pattern, blen);
	e.path[blen] = '\0';
	/* Without "**" a match is exactly as deep as the pattern. */
	e.max_depth = SIZE_MAX;
	if (!g->has_globstar) {
		size_t base_slashes = 0, i;

		for (i = 0; i < blen; i++)
			if (pattern[i] == '/')
				base_slashes++;
		e.max_depth = g->slashes - base_slashes;
	}
	dfd = open(e.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		/* no base directory: nothing can match; one that cannot be
		 * listed: on the deny side it is denied whole */
		rc = errno == ENOENT || errno == ENOTDIR ? SRT_OK : give_up(&e);
		srt__glob_free(g);
		return rc;
	}
	rc = walk(&e, dfd, blen, 0);
	srt__glob_free(g);
	return rc;
}
