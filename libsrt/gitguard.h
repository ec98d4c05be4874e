/* srt: git repositories a sandboxed command creates in its write roots.
 *
 * The mandatory denies protect .git/hooks and .git/config of repositories
 * that exist when the command starts. One the command creates (git init,
 * a directory renamed to .git, a .git file pointing elsewhere) would keep
 * the hooks and config it writes, and the host's next git command there
 * would run them outside the sandbox. The guard lists the .git entries of
 * the write roots before the command runs; afterwards, when every sandboxed
 * process is gone, each new one whose hooks or config could run a program
 * is renamed aside (".git.srt-quarantine") so git no longer finds it. A
 * plain `git init` or `git clone` (sample hooks, ordinary config) is left
 * as it is. The same judgement covers what git finds without a new .git:
 * a commondir or config.worktree added to an existing repository (renamed
 * aside), a directory made into a bare repository (its HEAD renamed aside)
 * and a new symbolic link to a directory holding such a repository, however
 * deep (the link renamed aside, the repository left alone). */
#ifndef SRT_GITGUARD_H
#define SRT_GITGUARD_H

#include <srt/error.h>
#include <srt/policy.h>

struct srt__gitguard;

typedef void (*srt__gitguard_fn)(void *ctx, int is_violation, const char *line);

/* Lists the .git entries now present in the write roots of pol. *out is
 * NULL when there is nothing to guard (no write roots, filesystem rules
 * disabled). Notes (a scan cut short) go to fn as non-violations.
 * SRT_E_IO: a write root could not be opened for a reason other than its
 * absence; srt__gitguard_failure() says which and why. */
int srt__gitguard_snapshot(const struct srt_policy *pol, struct srt__gitguard **out,
			   srt__gitguard_fn fn, void *ctx);
const char *srt__gitguard_failure(void);

/* After the command: quarantines the new repositories that could run a
 * program, reporting each through fn (is_violation = 1), and frees g. */
void srt__gitguard_sweep(struct srt__gitguard *g, srt__gitguard_fn fn, void *ctx);

void srt__gitguard_free(struct srt__gitguard *g);

/* The descriptors g holds (its write roots, opened at the snapshot): a
 * copy of g in another process needs them open to sweep. */
size_t srt__gitguard_fds(const struct srt__gitguard *g, const int **fds);

/* The sweep as a program, for a guard that is not a copy of this process
 * (a fork of srt copies its page tables and makes every page srt writes
 * afterwards a copy-on-write fault): *argv is its command line, to run
 * with srt__gitguard_fds()'s descriptors, from then on, open as 3, 4, ...
 * in that order: the write roots, the state (written here into a sealed
 * memfd), and a copy of the program made now in another sealed memfd,
 * which argv[0] names through that last descriptor (/proc/self/fd/N): what
 * runs is the program as it was at the start. It is srt-gitguard-sweep in
 * SRT_HELPER_DIR, or in the package's library directory, taken only as
 * srt's own code is trusted (gitguard.c: program_copy): no link on the
 * way, every directory up to "/" and the file root's or this user's and
 * closed to others, none of them a write root of the run. 0, or -1 when
 * there is no such program here (not installed, untrusted, another
 * platform): then only srt__gitguard_orphan in a copy of srt can do the
 * work. */
int srt__gitguard_orphan_program(struct srt__gitguard *g, char *const **argv);

/* In that program: the state it was given on fd, with the write roots open
 * at root_fds[0 .. n_roots). NULL when fd holds no such state (another
 * build's, cut short) or memory ran out. */
struct srt__gitguard *srt__gitguard_import(int fd, const int *root_fds, size_t n_roots);

/* Does g's sweep have work if srt dies mid-run, when the directory
 * removed (may be NULL) is removed with everything in it instead of
 * being swept? 1 when g has a root other than removed. */
int srt__gitguard_orphan_work(const struct srt__gitguard *g, const char *removed);

/* Exposed for the unit test: is this git config text one that cannot make
 * git run a program? why names the first offending key. */
int srt__gitguard_config_safe(const char *text, size_t len, char *why, size_t whylen);

#endif
