/* srt-linux-init: keeping the covers on protected and denied names for
 * the whole run (the watcher).
 *
 * A cover is a mount on a dentry. When something on the host replaces a
 * covered file by renaming another over it (git config, sed -i, editors,
 * credential helpers), or removes and creates it, the kernel detaches
 * every mount on the old dentry, in every namespace: the new file would be
 * writable (or readable) from the sandbox. The watcher is a process of
 * the outer helper, outside the command's pid namespace and not dumpable,
 * that keeps CAP_SYS_ADMIN of bwrap's user namespace (and no other
 * capability). It watches with inotify the directories that hold the
 * covered names (--watch-deny: denied, covered with /dev/null;
 * --watch-keep: write-protected, covered with a read-only bind of
 * itself), the directories of the write roots down to the mandatory deny
 * depth (--watch-tree, --watch-depth: a protected name of the table in
 * common/protected.h that appears there, unless --watch-release names it,
 * is handled: a file is moved aside and an empty read-only file of srt's
 * making holds the name; a protected directory, or .claude, is covered
 * read-only and what was made in it before the cover is moved aside
 * inside it; each is reported), and the directories
 * a denyRead glob reaches (--watch-glob: a new matching name is covered
 * with /dev/null). The outer helper makes its mounts shared and the
 * nested namespaces slaves of them, so a cover the watcher mounts in its
 * own namespace propagates into the command's (locked there, like every
 * other mount the command inherits).
 *
 * A write-protected file that arrives is read at once, covered on the
 * very inode that was read (a second replacement before the cover fails
 * the mount and starts over), then checked: if its content changed
 * between the read and the cover, or inotify saw it written, replaced or
 * removed in that window, the content srt last accepted from the host is
 * put back and the write reported. The new inode stays watched: a write
 * to it after the cover (through a descriptor or hard link the command
 * got in the window) is undone, reported, and ends the run. An event
 * queue overflow re-checks every name (a file covered again: by its
 * content) and rescans every watched directory; so does the end of the
 * run when the queue cannot be read in time (SRT__WATCH_FINISH_MS). Once
 * the command and every process of the sandbox are gone, a last pass
 * checks every name by its content and puts back, and reports by name,
 * each one that differs from what srt last accepted from the host,
 * however far behind the watcher was.
 *
 * The host's temporary files: a file made during the run in a directory
 * that holds a write-protected file (git's NAME.lock, sed -i's and
 * editors' temporary names) can be opened and written by the command
 * before the host renames it over the protected name. The watcher counts
 * who opened each such file (fanotify, which keeps distinct processes'
 * opens apart, keyed by the file's handle; an inotify watch on its inode
 * for opens through another name). A file renamed over a protected name
 * that someone besides its maker opened, or whose making the watcher did
 * not see, is undone like a write in the window and reported.
 *
 * Names are opened relative to directory descriptors opened without
 * following links; a link at a covered name is covered itself, never
 * followed for a write. */
#ifndef SRT_INIT_WATCH_H
#define SRT_INIT_WATCH_H

#include <signal.h>
#include <sys/types.h>

#include "backends/linux-bwrap/init/opts.h"

struct srt__watch {
	pid_t pid;  /* the watcher, or -1 */
	int ctl;    /* write end: 'F' asks it to finish */
	int done;   /* read end: 'R' when ready, 'D' when finished */
};

/* Does o ask for the watcher? */
int srt__watch_wanted(const struct srt__init_opts *o);

/* Make the outer helper's mounts shared and fork the watcher (before the
 * outer helper drops its capabilities); the watcher then sets its watches
 * up while the caller goes on with the rest of the sandbox, and
 * srt__watch_ready waits for them. events_fd: where violations go
 * ("deny ..." lines), or -1 for stderr. 0; 1 when it cannot run here (no
 * capability to mount) and o->watch_weaker accepts that (said on one
 * line); -1 after reporting a setup failure. */
int srt__watch_start(const struct srt__init_opts *o, int events_fd, struct srt__watch *w);

/* Wait until every watch of the watcher srt__watch_start forked is in
 * place (its inotify and fanotify marks, the covers it keeps): 0, or at
 * once when there is no watcher; -1 after reporting that it could not set
 * them up (no fanotify, out of descriptors: said by the watcher itself),
 * which is also what a watcher that cannot run is without o->watch_weaker.
 * The command must not start before this returned 0. */
int srt__watch_ready(struct srt__watch *w);

/* How long the watcher reads what is queued once the command has ended;
 * past it, it drops the rest and lists the watched directories again
 * (see finish). Its last pass, which checks every name by its content,
 * comes after that and has no time limit. */
#define SRT__WATCH_FINISH_MS 1500

/* How long the watcher lets events gather, once it has read what inotify
 * and fanotify had queued, before it reads them again. Every open in a
 * watched directory queues an inotify event (IN_OPEN: the window checks
 * count the opens of a name between its arrival and its cover), and in a
 * directory that holds a write-protected file a fanotify one; a watcher
 * waiting in poll(2) for each is woken once per open, and each wake-up is
 * two context switches paid for by the command's opens. Gathered, one
 * wake-up reads them all. What it costs: a replaced cover, or a protected
 * name the command makes, is seen up to this much later; the window
 * checks count what happens in that longer window as they count the rest
 * (a write in it is undone and reported, an open of a denied name
 * reported), and a queue that overflows meanwhile (16384 events by
 * default, fs.inotify.max_queued_events, fs.fanotify.max_queued_events)
 * is handled as every overflow is: every name checked again by its
 * content and every directory listed again (inotify), every file made
 * so far counted as written by another process (fanotify). The control
 * pipe (finish) is not delayed. */
#define SRT__WATCH_BATCH_MS 5

/* After the command ended, with every process of the sandbox: let the
 * watcher handle what is queued (a last write through a descriptor the
 * command held), then check every protected name against what it last
 * accepted from the host (put back and reported by name when it
 * differs), and wait for it: at most timeout_ms (-1: as long as it
 * takes, which is what keeps the guarantee on a loaded machine), or until
 * one of the signals in ends (blocked by the caller; NULL: none) comes.
 * Then it is stopped. 0 when it said it was done (or there is none), -1
 * when it ended or was stopped before, -2 when a signal of ends came
 * first (what it had not checked yet stays unchecked). */
int srt__watch_finish(struct srt__watch *w, int timeout_ms, const sigset_t *ends);

/* Pure helpers, unit-tested: is name a directory the watcher covers when
 * it appears in a write root (.vscode, .idea, .claude, any case)? */
int srt__watch_protected_dir(const char *name);
/* The protected-names entry (common/protected.h) that the entry name of a
 * directory called parent is, unless released (NULL-terminated, may be
 * NULL): a file or directory name (.envrc, .mcp.json, .husky), or
 * "dir/name" (.claude/settings.json when parent is .claude). NULL: none,
 * or released. Names inside a git directory are the repository guard's. */
struct srt__protected;
const struct srt__protected *srt__watch_protected_entry(const char *parent, const char *name,
							const char *const *released);
/* Does released name an entry inside .claude? Then a new .claude
 * directory is watched, not covered whole, so the released name stays
 * the user's while the others are still handled one by one. */
int srt__watch_claude_released(const char *const *released);
/* The inotify events a window check counts as a write to a protected
 * name (a modification, or the name replaced or removed again). */
int srt__watch_window_write(unsigned mask);
/* Does some process have the file fd (opened read-only) refers to open
 * for writing, or mapped writable, now? 1 yes, 0 no: then every write to
 * it has ended and its inotify events (IN_MODIFY, IN_CLOSE_WRITE) are
 * queued. -1: the kernel refused the probe (a read lease: only the
 * file's owner may take one, and leases can be disabled). The calling
 * process ignores SIGIO from then on: a lease's break signals it. */
int srt__watch_open_for_write(int fd);
/* Was a file made during the run, and later renamed over a
 * write-protected name, opened by someone besides its creator? opens: the
 * opens inotify reported by its name (its creator's is one); iopens: the
 * opens its inode watch saw by any name (a hard link too); iallow: 1 when
 * its creator's own open came after that watch was added. */
int srt__watch_written_by_other(unsigned opens, unsigned iopens, unsigned iallow);

#endif
