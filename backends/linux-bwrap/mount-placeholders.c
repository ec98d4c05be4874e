/* linux-bwrap: placeholders for deny paths that do not exist yet, shared
 * with concurrent runs, and their removal after the run.
 *
 * Paths that do not exist yet. A deny on a missing path inside a writable
 * directory gets a placeholder on the host at its first missing component
 * (an empty file, or an empty 0700 directory when more denies lie below
 * or the name is a protected directory's, such as .vscode),
 * mounted over read-only, recorded in plan->created and removed again by
 * srt__bwrap_plan_cleanup(). Without it the command could create the path
 * and read or write it freely. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "guard-main.h"
#include "mount-placeholders.h"

/* Concurrent runs in one directory share placeholders: each run holds a
 * shared POSIX lock on every placeholder it mounts, and cleanup removes one
 * only when no other process holds a lock on it. POSIX locks belong to the
 * process, so a second sandbox in the same process shares them (limit).
 *
 * What makes a name another run's placeholder is srt's mark on it (an
 * extended attribute, set when the placeholder is made) and its being
 * still empty; never a lock alone: any process that can read a file or a
 * directory can lock it, and a command in a concurrent run would lock
 * $HOME or the project to have this run take it for a placeholder, bind it
 * read-only and drop every mount below it (its denies among them). The
 * mark can only be put by someone who may write the inode, in a sandbox
 * only inside a write root, on what that command could remove anyway; an
 * empty placeholder hides nothing.
 *
 * The mark also covers a run killed with SIGKILL: it loses its locks at
 * once, but its placeholders stay until its cleanup guard gets to them. A
 * run planned in between takes them over (the last run out removes them)
 * instead of taking such a directory for the project's own and making its
 * own placeholders inside it, which would make the guard's rmdir fail and
 * leave the directory for good. Where the filesystem keeps no user
 * attributes there is no mark: each run then makes its own placeholders
 * below another's, and such a directory can stay (nothing is exposed by
 * it: it is mounted over like any existing name). */
#define PLACEHOLDER_MARK "user.srt.placeholder"

static int keep_lock(struct srt__mount_ctx *c, int fd)
{
	struct srt__mount_plan *pl = c->plan;
	int *nv = realloc(pl->lock_fds, (pl->n_lock_fds + 1) * sizeof(*nv));

	if (!nv) {
		close(fd);
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
	pl->lock_fds = nv;
	pl->lock_fds[pl->n_lock_fds++] = fd;
	return SRT_OK;
}

/* name in the directory pfd, opened and share-locked: the placeholder just
 * made there, reached through the directory it was made in */
static int open_locked(int pfd, const char *name, int is_dir)
{
	struct flock fl;
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
				   (is_dir ? O_DIRECTORY : 0));

	if (fd < 0)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Does the directory fd hold nothing? Read through fd itself: closing any
 * other descriptor of the inode (fdopendir's copy) would drop this
 * process's POSIX lock on it, the lock that keeps the placeholder ours. */
static int dir_empty(int fd)
{
	char buf[1024] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t o = 0; o < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(buf + o);

			if (e->d_reclen == 0)
				return 0;
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				return 0;
			o += e->d_reclen;
		}
	}
	return n == 0;
}

/* Is path another run's placeholder, live or killed (marked, still empty,
 * of the kind wanted)? Then take our shared lock on it and return the
 * descriptor, else -1. */
static int adopt_foreign(const char *path, int is_dir)
{
	struct flock fl;
	struct stat st, now;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			    (is_dir ? O_DIRECTORY : 0));

	if (fd < 0)
		return -1;
	if (fgetxattr(fd, PLACEHOLDER_MARK, NULL, 0) < 0)
		goto no;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	/* that run's cleanup may have removed it meanwhile: only a name that
	 * still leads to the locked inode counts */
	if (fcntl(fd, F_SETLK, &fl) != 0 || fstat(fd, &st) != 0 || st.st_nlink == 0 ||
	    lstat(path, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev)
		goto no;
	/* a file of one name only: a mark put through a second name in a
	 * command's write root must not get the user's own name removed */
	if (is_dir ? !S_ISDIR(st.st_mode) || !dir_empty(fd)
		   : !(S_ISREG(st.st_mode) && st.st_size == 0 && st.st_nlink == 1))
		goto no;
	return fd;
no:
	close(fd);
	return -1;
}

static int adopt_node(struct srt__mount_ctx *c, long k, int fd, int as_dir)
{
	int rc;

	if (srt__strv_push(&c->plan->created, c->v[k].path)) {
		close(fd);
		return srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
	}
	rc = keep_lock(c, fd);
	if (rc)
		return rc;
	c->v[k].kinds |= K_DW;
	c->v[k].type = as_dir ? T_DIR : T_OTHER;
	c->v[k].forced = as_dir ? M_PH_DIR : M_PH_FILE;
	c->v[k].skip = 0;
	return srt__mount_note(c, "%s: placeholder shared with a concurrent run", c->v[k].path);
}

/* The directory the last placeholder was made in, kept open for the next:
 * the protected names of one working directory share it. Never a
 * placeholder itself (nothing is made below a placeholder), so closing it
 * drops no lock the plan keeps. */
struct parent_dir {
	char path[PATH_MAX];
	int fd;
};

static int parent_open(struct parent_dir *pd, const char *parent)
{
	if (pd->fd >= 0 && strcmp(pd->path, parent) == 0)
		return pd->fd;
	if (pd->fd >= 0)
		close(pd->fd);
	pd->fd = srt__mount_open_dir_nofollow(parent);
	if (pd->fd >= 0)
		snprintf(pd->path, sizeof(pd->path), "%s", parent);
	return pd->fd;
}

static int make_placeholder(struct srt__mount_ctx *c, struct parent_dir *pd, const char *m,
			    int as_dir, const char *why, int *made)
{
	char parent[PATH_MAX];
	const char *name = strrchr(m, '/');
	struct stat st;
	int pfd, fd, err, rc = SRT_OK;

	*made = 0;
	if (c->pol->plan_only) {
		/* the plan is only printed: it shows the placeholder a run
		 * would make, and nothing is made on the host */
		*made = 1;
		return SRT_OK;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(name == m ? 1 : name - m), m);
	name++;
	pfd = parent_open(pd, parent);
	if (pfd < 0)
		return srt_diag_set(c->diag, SRT_E_IO, why,
				    "%s: cannot open \"%s\" to protect \"%s\": %s", why, parent, m,
				    strerror(errno));
	if (c->announce)
		c->announce(c->announce_ctx, m);
	if (as_dir) {
		err = mkdirat(pfd, name, 0700) == 0 ? 0 : errno;
	} else {
		fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		err = fd >= 0 ? 0 : errno;
		if (fd >= 0)
			close(fd);
	}
	if (!err) {
		int lfd;

		if (srt__strv_push(&c->plan->created, m)) {
			rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
			goto out;
		}
		*made = 1;
		lfd = open_locked(pfd, name, as_dir);
		if (lfd >= 0)
			/* no mark (no user attributes here): see PLACEHOLDER_MARK */
			(void)fsetxattr(lfd, PLACEHOLDER_MARK, "1", 1, 0);
		rc = lfd < 0 ? srt_diag_set(c->diag, SRT_E_IO, why, "%s: cannot lock \"%s\": %s",
					    why, m, strerror(errno)) :
			       keep_lock(c, lfd);
	} else if (err == EEXIST) {
		/* a concurrent run created it between our look and now: give it a
		 * moment to mark it, then share the placeholder */
		int i, lfd = -1;

		for (i = 0; i < 50 && lfd < 0; i++) {
			lfd = adopt_foreign(m, as_dir);
			if (lfd < 0)
				usleep(1000);
		}
		if (lfd < 0) {
			rc = srt_diag_set(c->diag, SRT_E_STATE, why,
					  "%s: \"%s\" appeared while the sandbox was being planned; "
					  "run again", why, m);
		} else {
			*made = 2;
			rc = keep_lock(c, lfd);
			if (!rc && srt__strv_push(&c->plan->created, m))
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
		}
	} else if (err == EROFS || err == EPERM ||
		   (err == EACCES && fstat(pfd, &st) == 0 && st.st_uid != geteuid())) {
		/* nobody running as this user can create it, inside or out */
		rc = srt__mount_note(c, "%s: \"%s\" cannot be created by this user (%s); nothing to protect",
			  why, m, strerror(err));
	} else {
		rc = srt_diag_set(c->diag, SRT_E_IO, why,
				  "%s: cannot create a placeholder at \"%s\" to protect it: %s", why, m,
				  strerror(err));
	}
out:
	return rc;
}

/* Could path be a placeholder this run would have made itself (node k of
 * the model, or -1)? Only in a directory the run may write, and never one
 * of its write roots: a command may mark its own write root, which it
 * cannot remove, to have the next run bind it read-only and remove it. */
static int adoptable(struct srt__mount_ctx *c, const char *path, long k)
{
	char up[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || (k >= 0 && (c->v[k].kinds & K_AW)))
		return 0;
	snprintf(up, sizeof(up), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	return srt__mount_state_of(c, up).w;
}

/* Was parent already found not to be a concurrent run's placeholder in
 * this pass? The protected names of one directory share their parent:
 * ask about it once, not once per name (an open, a lock query and a close
 * each time). */
static int asked(struct srt__strv *done, const char *parent)
{
	size_t i;

	for (i = 0; i < done->n; i++)
		if (strcmp(done->v[i], parent) == 0)
			return 1;
	/* a copy that cannot be made only means the next name asks again */
	srt__strv_push(done, parent);
	return 0;
}

int srt__mount_plan_placeholders(struct srt__mount_ctx *c)
{
	struct srt__strv done = { 0 };
	struct parent_dir pd = { .fd = -1 };
	size_t i, j, n = c->n;
	int rc = SRT_OK;

	/* Placeholders of a concurrent run: existing deny paths that are its
	 * locked empty files or directories, and the deepest existing
	 * directory above a missing deny path. A plan that is only printed
	 * takes no lock: even a shared one held at the wrong moment would
	 * keep that run's cleanup from removing its placeholder. */
	for (i = 0; i < n && !rc && !c->pol->plan_only; i++) {
		struct srt__mount_node *nd = &c->v[i];
		char parent[PATH_MAX];
		long k = (long)i;
		int fd, as_dir;

		if (nd->skip || nd->forced || !(nd->kinds & (K_DR | K_DW)))
			continue;
		if (nd->type == T_MISSING)
			snprintf(parent, sizeof(parent), "%.*s",
				 (int)(nd->missing_at ? nd->missing_at : 1), nd->path);
		else
			snprintf(parent, sizeof(parent), "%s", nd->path);
		if (strcmp(parent, "/") == 0 || (k = srt__mount_lookup(c, parent, strlen(parent)), k >= 0 &&
						 c->v[k].forced))
			continue;
		as_dir = nd->type != T_OTHER;
		if (asked(&done, parent) || !adoptable(c, parent, k))
			continue;
		fd = adopt_foreign(parent, as_dir);
		if (fd < 0)
			continue;
		k = srt__mount_node_get(c, parent);
		if (k < 0) {
			close(fd);
			rc = c->err;
			break;
		}
		rc = adopt_node(c, k, fd, as_dir);
	}
	srt__strv_release(&done);
	if (rc)
		return rc;

	for (i = 0; i < n; i++) {
		struct srt__mount_node *nd = &c->v[i];
		char m[PATH_MAX], parent[PATH_MAX];
		const char *slash;
		int as_dir = 0, made;
		long k;

		if (nd->type != T_MISSING || nd->skip || !(nd->kinds & (K_DR | K_DW)))
			continue;
		/* first missing component */
		slash = strchr(nd->path + nd->missing_at + 1, '/');
		snprintf(m, sizeof(m), "%.*s",
			 (int)(slash ? (size_t)(slash - nd->path) : strlen(nd->path)), nd->path);
		snprintf(parent, sizeof(parent), "%.*s",
			 (int)(nd->missing_at ? nd->missing_at : 1), nd->path);
		k = srt__mount_lookup(c, parent, strlen(parent));
		if (!srt__mount_state_of(c, parent).w || (k >= 0 && c->v[k].forced)) {
			nd->skip = 1;
			continue;
		}
		k = srt__mount_lookup(c, m, strlen(m));
		if (k >= 0 && c->v[k].forced) {
			nd->skip = 1;
			continue;
		}
		/* a directory when the name is a directory's (K_DIR), or
		 * when some other missing deny lies below m */
		as_dir = (nd->kinds & K_DIR) != 0;
		for (j = 0; j < n && !as_dir; j++)
			if (c->v[j].type == T_MISSING && (c->v[j].kinds & (K_DR | K_DW)) &&
			    strlen(c->v[j].path) > strlen(m) && srt__mount_covers(m, c->v[j].path))
				as_dir = 1;
		rc = make_placeholder(c, &pd, m, as_dir, nd->origin ? nd->origin : "deny rule",
				      &made);
		if (rc)
			break;
		nd->skip = 1;
		if (!made)
			continue;
		if (made == 2 && srt__mount_note(c, "%s: placeholder shared with a concurrent run", m)) {
			rc = SRT_E_NOMEM;
			break;
		}
		k = srt__mount_node_get(c, m);
		if (k < 0) {
			rc = c->err;
			break;
		}
		nd = &c->v[i]; /* node_get may have moved the array */
		c->v[k].kinds |= K_DW;
		c->v[k].type = as_dir ? T_DIR : T_OTHER;
		c->v[k].forced = as_dir ? M_PH_DIR : M_PH_FILE;
		c->v[k].skip = 0;
		if (!c->v[k].origin) {
			c->v[k].origin = strdup(nd->origin ? nd->origin : "deny rule");
			if (!c->v[k].origin) {
				rc = srt_diag_set(c->diag, SRT_E_NOMEM, "", "out of memory");
				break;
			}
		}
		rc = srt__mount_note(c, "%s does not exist: placeholder %s %s %s, read-only",
			  nd->path, as_dir ? "directory" : "file", m,
			  c->pol->plan_only ? "made by each run" : "created for the run");
		if (rc)
			break;
	}
	if (pd.fd >= 0)
		close(pd.fd);
	/* deny nodes below a placeholder are covered by it */
	for (i = 0; i < c->n; i++)
		if (c->v[i].type == T_MISSING)
			c->v[i].skip = 1;
	return rc;
}
