/* Linux backends: the mandatory write denies (the protected names of
 * common/protected.h: files git, shells, editors, agents and package
 * managers read and act on, so a command that could write them could run
 * code outside the sandbox later), found by a bounded walk of a write root
 * (no ripgrep).
 *
 * Depth rule (mandatoryDenySearchDepth = D): a protected file counts when
 * the directory holding it is at depth <= D-1 below the root (the root is
 * depth 0); a protected directory (.vscode, .idea, .husky, .claude/hooks,
 * .git/hooks, .git/config, the directory a
 * repository's core.hooksPath names, ...) when the directory holding it is
 * at depth <= D-2, and always at the root itself. The names below $HOME
 * (~/.ssh/config, ~/.config/git/config, ...) count in a root that holds
 * them, at any depth. A name filesystem.allowProtectedNames released is
 * never reported. node_modules is skipped, symbolic links are never
 * followed, names match case-insensitively. */
#ifndef SRT_BWRAP_MANDATORY_H
#define SRT_BWRAP_MANDATORY_H

#include <stddef.h>
#include <srt/error.h>
#include <srt/policy.h>

/* Called for each path to protect (absolute, spelled under root, may not
 * exist); what names the entry (".bashrc", ".git/hooks", ...). A non-zero
 * return stops the scan and is returned by srt__mandatory_scan(). */
typedef int (*srt__mandatory_fn)(void *ctx, const char *path, const char *what);

struct srt__mandatory_opts {
	int depth;            /* mandatoryDenySearchDepth, 1..10 */
	int allow_git_config; /* leave .git/config writable */
	int root_names;       /* report every name at the root even when absent */
	const char *home;     /* $HOME (pol->home), or NULL: its names are not reported */
	const char *const *released; /* pol->protected_released, or NULL */
	/* Hard links made before the run: the walk also compares the
	 * (device, inode) of the regular files it lists with those of the
	 * protected files (the ones it reports, and $HOME's), pol's denyWrite
	 * files and pol's denyRead files (inside a denied directory too),
	 * where a file has more than one link, and reports every other name
	 * of one: through the callback for a file the command must not
	 * write, through read_fn (NULL: the callback) for one it must not
	 * read. NULL pol: no denyRead or denyWrite file is compared. */
	const struct srt_policy *pol;
	srt__mandatory_fn read_fn;
};

/* Walk root. *budget bounds the directory entries visited (decremented);
 * when it runs out the walk stops early and *truncated is set: the caller
 * notes it, it is not an error. */
int srt__mandatory_scan(const char *root, const struct srt__mandatory_opts *o,
			size_t *budget, int *truncated, srt__mandatory_fn fn, void *ctx);

/* The scan never takes a failed call for an empty directory: it returns
 * SRT_E_IO. srt__mandatory_scan_error() turns that rc into diag's message
 * naming the call, the path and errno ("open of /p/x: Too many open
 * files"); any other rc (a callback's SRT_E_IO among them, whose message
 * is set) comes back as it is. */
int srt__mandatory_scan_error(int rc, const char *root, struct srt_diag *diag);

/* One walk per root for one run's plans: between begin and end (same
 * thread), a scan of a root already scanned with the same options replays
 * that scan's reports, and takes the same share of *budget, instead of
 * walking again. The Landlock layer's plan and the mount plan of one run
 * walk the same roots a few milliseconds apart. Only a scan that reached
 * its end (not truncated, not stopped by its callback) is kept, and only
 * a caller whose budget covers it is served from it. end forgets all. */
void srt__mandatory_memo_begin(void);
void srt__mandatory_memo_end(void);

/* Where $HOME's protected name i (srt__protected_names[i]) is: home, "/"
 * and its path, every link on the way followed (srt__mountinfo_resolve),
 * into out. Between memo_begin and memo_end the walks above and the mount
 * checks of one plan share one answer per name. 0; -1 as
 * srt__mountinfo_resolve (nothing to place); -2 when memory ran out (the
 * caller must not take the name as checked). */
int srt__mandatory_home_where(const char *home, size_t i, char *out, size_t cap);

#endif
