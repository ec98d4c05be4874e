/* linux-bwrap: bounded walk for the mandatory write denies (§4.5).
 *
 * One openat()/fdopendir() per directory, d_type from getdents so most
 * entries cost no stat, and a quick first-byte test: every dangerous name
 * starts with ".", so the common entry is rejected with one comparison. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mandatory.h"

/* §4.5's list, and the other startup files the same shells read: zsh reads
 * .zshenv on every start, even a script's, and .zlogin at login; bash reads
 * .bash_login when there is no .bash_profile. */
static const char *const dangerous_files[] = {
	".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc",
	".zprofile", ".profile", ".ripgreprc", ".mcp.json",
	".zshenv", ".zlogin", ".bash_login",
};

struct scan {
	const struct srt_mandatory_opts *o;
	size_t *budget;
	int *truncated;
	srt_mandatory_fn fn;
	void *ctx;
	char path[PATH_MAX];
};

static int is_dangerous_file(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(dangerous_files) / sizeof(dangerous_files[0]); i++)
		if (strcasecmp(name, dangerous_files[i]) == 0)
			return 1;
	return 0;
}

/* Report path + "/" + tail (tail may be NULL). */
static int report(struct scan *s, size_t plen, const char *name, const char *tail,
		  const char *what)
{
	char buf[PATH_MAX];
	int n;

	n = snprintf(buf, sizeof(buf), "%.*s/%s%s%s", (int)plen, s->path, name,
		     tail ? "/" : "", tail ? tail : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0; /* cannot be a path anyone can create either */
	return s->fn(s->ctx, buf, what);
}

/* Inside a repository's .git, the git directories git also runs hooks and
 * reads config from: each submodule's (modules/<name>/, nested as
 * modules/<name>/modules/<name>/, a name may hold slashes) and each linked
 * worktree's (worktrees/<name>/). A commondir file sends git to another
 * directory's config and hooks; it is protected where it exists (an empty
 * placeholder where it does not would break git: an empty commondir is an
 * error), and a new one is the repository guard's (gitguard.h). Bounded by
 * the scan's budget and GITDIR_DEPTH levels. */
#define GITDIR_DEPTH 8

static int report_existing(struct scan *s, int dfd, size_t plen, const char *rel,
			   const char *what)
{
	struct stat st;

	if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	return report(s, plen, rel, NULL, what);
}

static int walk_gitdirs(struct scan *s, int dfd, size_t plen, char *rel, size_t rlen, int level,
			int modules)
{
	DIR *d;
	struct dirent *de;
	int fd, rc = 0;

	if (level > GITDIR_DEPTH)
		return 0;
	fd = openat(dfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!rc && (de = readdir(d))) {
		struct stat st;
		size_t nlen = strlen(de->d_name);
		int is_gitdir;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
					     (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (rlen + 1 + nlen + sizeof("/modules/commondir") > PATH_MAX)
			continue;
		rel[rlen] = '/';
		memcpy(rel + rlen + 1, de->d_name, nlen + 1);
		if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
			rel[rlen] = '\0';
			continue;
		}
		/* a git directory has HEAD; a directory without it is a step
		 * of a submodule name with slashes */
		memcpy(rel + rlen + 1 + nlen, "/HEAD", 6);
		is_gitdir = fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (is_gitdir && !modules) {
			/* a linked worktree uses the common directory's hooks
			 * and config; only its pointer there matters */
			memcpy(rel + rlen + 1 + nlen, "/commondir", 11);
			rc = report_existing(s, dfd, plen, rel, ".git/worktrees/*/commondir");
		} else if (is_gitdir) {
			memcpy(rel + rlen + 1 + nlen, "/hooks", 7);
			rc = report(s, plen, rel, NULL, ".git/modules/*/hooks");
			if (!rc && !s->o->allow_git_config) {
				memcpy(rel + rlen + 1 + nlen, "/config", 8);
				rc = report_existing(s, dfd, plen, rel, ".git/modules/*/config");
			}
			if (!rc) {
				memcpy(rel + rlen + 1 + nlen, "/commondir", 11);
				rc = report_existing(s, dfd, plen, rel, ".git/modules/*/commondir");
			}
			if (!rc) {
				memcpy(rel + rlen + 1 + nlen, "/modules", 9);
				rc = walk_gitdirs(s, dfd, plen, rel, rlen + 1 + nlen + 8, level + 1, 1);
			}
		} else if (modules) {
			rel[rlen + 1 + nlen] = '\0';
			rc = walk_gitdirs(s, dfd, plen, rel, rlen + 1 + nlen, level + 1, 1);
		}
		rel[rlen] = '\0';
		if (*s->truncated)
			break;
	}
	closedir(d);
	return rc;
}

static int check_gitdir(struct scan *s, int dfd, size_t plen, const char *git)
{
	char rel[PATH_MAX];
	size_t glen = strlen(git);
	int rc;

	if (glen + sizeof("/worktrees") > sizeof(rel))
		return 0;
	memcpy(rel, git, glen);
	memcpy(rel + glen, "/commondir", 11);
	rc = report_existing(s, dfd, plen, rel, ".git/commondir");
	if (!rc) {
		memcpy(rel + glen, "/modules", 9);
		rc = walk_gitdirs(s, dfd, plen, rel, glen + 8, 1, 1);
	}
	if (!rc && !*s->truncated) {
		memcpy(rel + glen, "/worktrees", 11);
		rc = walk_gitdirs(s, dfd, plen, rel, glen + 10, GITDIR_DEPTH, 0);
	}
	return rc;
}

/* The dangerous directories held by the directory open at dfd. */
static int check_dirs(struct scan *s, int dfd, size_t plen, const char *name,
		      unsigned char type)
{
	int rc = 0;

	if (strcasecmp(name, ".vscode") == 0 || strcasecmp(name, ".idea") == 0) {
		if (type == DT_DIR || type == DT_LNK)
			rc = report(s, plen, name, NULL, name);
	} else if (strcasecmp(name, ".claude") == 0 && type == DT_DIR) {
		struct stat st;
		char sub[NAME_MAX + 16];

		snprintf(sub, sizeof(sub), "%s/commands", name);
		if (fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = report(s, plen, name, "commands", ".claude/commands");
		snprintf(sub, sizeof(sub), "%s/agents", name);
		if (!rc && fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = report(s, plen, name, "agents", ".claude/agents");
	} else if (strcasecmp(name, ".git") == 0) {
		if (type == DT_DIR || type == DT_LNK) {
			/* hooks even before they exist: a repo is found by its .git */
			rc = report(s, plen, name, "hooks", ".git/hooks");
			if (!rc && !s->o->allow_git_config)
				rc = report(s, plen, name, "config", ".git/config");
			if (!rc && type == DT_DIR)
				rc = check_gitdir(s, dfd, plen, name);
		} else {
			/* a worktree or submodule: the .git file points elsewhere */
			rc = report(s, plen, name, NULL, ".git");
		}
	}
	return rc;
}

/* The deepest level only holds files that count, so instead of listing a
 * directory (every entry, each a getdents record) its few dangerous names
 * are looked up. A case-insensitive filesystem answers the lookup for any
 * spelling; on a case-sensitive one ".BASHRC" is not the file shells read. */
static int probe_leaf(struct scan *s, int dfd, const char *dir, size_t plen)
{
	char rel[NAME_MAX + 32];
	size_t i, dl = strlen(dir);
	int rc = 0;

	if (dl > NAME_MAX)
		return 0;
	memcpy(rel, dir, dl);
	rel[dl] = '/';
	for (i = 0; i < sizeof(dangerous_files) / sizeof(dangerous_files[0]) && !rc; i++) {
		struct stat st;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		/* "dir" was a directory in the listing; if it has been swapped
		 * for a link since, the name reported below is resolved (and
		 * the deny applied at its target) by the caller anyway */
		snprintf(rel + dl + 1, sizeof(rel) - dl - 1, "%s", dangerous_files[i]);
		if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			rc = report(s, plen, dangerous_files[i], NULL, dangerous_files[i]);
	}
	return rc;
}

static int walk(struct scan *s, int dfd, size_t plen, int depth)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		unsigned char type = de->d_type;
		size_t nlen;

		if (*s->budget == 0) {
			*s->truncated = 1;
			break;
		}
		(*s->budget)--;
		if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
			continue;
		if (name[0] != '.' && type != DT_DIR && type != DT_UNKNOWN)
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		}
		if (name[0] == '.') {
			if (type != DT_DIR && depth <= s->o->depth - 1 && is_dangerous_file(name)) {
				rc = report(s, plen, name, NULL, name);
				if (rc)
					break;
			}
			if (depth == 0 || depth <= s->o->depth - 2) {
				rc = check_dirs(s, dirfd(d), plen, name, type);
				if (rc)
					break;
			}
			if (strcasecmp(name, ".git") == 0 || strcasecmp(name, ".vscode") == 0 ||
			    strcasecmp(name, ".idea") == 0)
				continue;
		}
		if (type != DT_DIR || depth + 1 > s->o->depth - 1 ||
		    strcasecmp(name, "node_modules") == 0)
			continue;
		/* "/" as a write root: the sandbox gets its own /proc and /dev,
		 * and nothing below /sys is a file anyone sources */
		if (plen == 0 && (strcmp(name, "proc") == 0 || strcmp(name, "sys") == 0 ||
				  strcmp(name, "dev") == 0))
			continue;
		nlen = strlen(name);
		if (plen + 1 + nlen + 1 > sizeof(s->path))
			continue;
		{
			int cfd = -1;

			if (depth + 1 < s->o->depth - 1) {
				cfd = openat(dirfd(d), name,
					     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (cfd < 0)
					continue;
			}
			s->path[plen] = '/';
			memcpy(s->path + plen + 1, name, nlen + 1);
			if (cfd < 0)
				rc = probe_leaf(s, dirfd(d), name, plen + 1 + nlen);
			else
				rc = walk(s, cfd, plen + 1 + nlen, depth + 1);
			s->path[plen] = '\0';
			if (rc || *s->truncated)
				break;
		}
	}
	closedir(d);
	return rc;
}

/* ---- the memo (mandatory.h) -------------------------------------------- */

struct memo_scan {
	char *root;
	struct srt_mandatory_opts o;
	size_t used;        /* budget the walk took */
	char **rep;         /* path, what, path, what, ... */
	size_t n_rep, alloc_rep;
	struct memo_scan *next;
};

static _Thread_local int memo_on;
static _Thread_local struct memo_scan *memo;

static void memo_free_one(struct memo_scan *m)
{
	size_t i;

	for (i = 0; i < m->n_rep; i++)
		free(m->rep[i]);
	free(m->rep);
	free(m->root);
	free(m);
}

void srt__mandatory_memo_begin(void)
{
	srt__mandatory_memo_end();
	memo_on = 1;
}

void srt__mandatory_memo_end(void)
{
	while (memo) {
		struct memo_scan *m = memo;
		memo = m->next;
		memo_free_one(m);
	}
	memo_on = 0;
}

/* The caller's callback, and a copy of each report for the memo (a copy
 * that cannot be made only means this walk is not kept). */
struct recorder {
	srt_mandatory_fn fn;
	void *ctx;
	struct memo_scan *m; /* the walk being recorded, or NULL */
	int lost;            /* a copy failed: the walk is not kept */
};

static int record(void *ctx, const char *path, const char *what)
{
	struct recorder *r = ctx;
	struct memo_scan *m = r->lost ? NULL : r->m;

	if (m && m->n_rep + 2 > m->alloc_rep) {
		size_t na = m->alloc_rep ? m->alloc_rep * 2 : 32;
		char **nv = realloc(m->rep, na * sizeof(*nv));

		if (nv) {
			m->rep = nv;
			m->alloc_rep = na;
		} else {
			r->lost = 1;
			m = NULL;
		}
	}
	if (m) {
		char *p = strdup(path), *w = strdup(what);

		if (p && w) {
			m->rep[m->n_rep++] = p;
			m->rep[m->n_rep++] = w;
		} else {
			free(p);
			free(w);
			r->lost = 1;
		}
	}
	return r->fn(r->ctx, path, what);
}

static struct memo_scan *memo_find(const char *root, const struct srt_mandatory_opts *o)
{
	struct memo_scan *m;

	for (m = memo; m; m = m->next)
		if (!strcmp(m->root, root) && m->o.depth == o->depth &&
		    m->o.allow_git_config == o->allow_git_config &&
		    m->o.root_names == o->root_names)
			return m;
	return NULL;
}

static int scan_walk(const char *root, const struct srt_mandatory_opts *o,
		     size_t *budget, int *truncated, srt_mandatory_fn fn, void *ctx);

int srt__mandatory_scan(const char *root, const struct srt_mandatory_opts *o,
			size_t *budget, int *truncated, srt_mandatory_fn fn, void *ctx)
{
	struct memo_scan *m;
	struct recorder r;
	size_t before = *budget, i;
	int cut = 0, rc;

	if (!memo_on)
		return scan_walk(root, o, budget, truncated, fn, ctx);
	m = memo_find(root, o);
	if (m && m->used <= *budget) {
		for (i = 0; i + 1 < m->n_rep; i += 2) {
			rc = fn(ctx, m->rep[i], m->rep[i + 1]);
			if (rc)
				return rc;
		}
		*budget -= m->used;
		return SRT_OK;
	}
	r.fn = fn;
	r.ctx = ctx;
	r.lost = 0;
	r.m = m ? NULL : calloc(1, sizeof(*r.m));
	if (r.m && !(r.m->root = strdup(root))) {
		free(r.m);
		r.m = NULL;
	}
	rc = scan_walk(root, o, budget, &cut, record, &r);
	if (cut)
		*truncated = 1;
	if (r.m && !rc && !cut && !r.lost) {
		r.m->o = *o;
		r.m->used = before - *budget;
		r.m->next = memo;
		memo = r.m;
	} else if (r.m) {
		memo_free_one(r.m);
	}
	return rc;
}

static int scan_walk(const char *root, const struct srt_mandatory_opts *o,
		     size_t *budget, int *truncated, srt_mandatory_fn fn, void *ctx)
{
	struct scan s;
	size_t plen = strlen(root), i;
	int dfd, rc;

	if (plen >= sizeof(s.path))
		return SRT_OK;
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.budget = budget;
	s.truncated = truncated;
	s.fn = fn;
	s.ctx = ctx;
	/* "/" is spelled "" so children come out as "/x", not "//x" */
	if (strcmp(root, "/") == 0)
		plen = 0;
	memcpy(s.path, root, plen);
	s.path[plen] = '\0';

	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return SRT_OK;
	if (o->root_names) {
		struct stat st;

		for (i = 0; i < sizeof(dangerous_files) / sizeof(dangerous_files[0]); i++) {
			rc = report(&s, plen, dangerous_files[i], NULL, dangerous_files[i]);
			if (rc)
				goto out;
		}
		rc = report(&s, plen, ".vscode", NULL, ".vscode");
		if (!rc)
			rc = report(&s, plen, ".idea", NULL, ".idea");
		if (!rc)
			rc = report(&s, plen, ".claude", "commands", ".claude/commands");
		if (!rc)
			rc = report(&s, plen, ".claude", "agents", ".claude/agents");
		if (!rc && fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			rc = check_dirs(&s, dfd, plen, ".git",
					S_ISDIR(st.st_mode) ? DT_DIR :
					S_ISLNK(st.st_mode) ? DT_LNK : DT_REG);
		if (rc)
			goto out;
	}
	rc = walk(&s, dfd, plen, 0);
	dfd = -1; /* closed by walk */
out:
	if (dfd >= 0)
		close(dfd);
	return rc;
}
