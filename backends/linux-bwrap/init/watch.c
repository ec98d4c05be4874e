/* srt-linux-init: the watcher that keeps covers on replaced names (see
 * watch.h for what it does and why). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/hide.h"
#include "backends/linux-bwrap/init/mount-api.h"
#include "backends/linux-bwrap/init/report.h"
#include "backends/linux-bwrap/init/watch.h"
#include "backends/linux-common/glob.h"
#include "backends/linux-common/helper-defs.h"
#include "backends/linux-common/syscall-nr.h"
#include "common/aside.h"
#include "common/protected.h"

/* Directories watched: every one holds an O_PATH descriptor and an
 * inotify watch, so the bound in force is the smallest of MAX_DIRS, three
 * quarters of the open-file limit (the rest for the names' descriptors
 * and the work) and fs.inotify.max_user_watches (ENOSPC). The arrays are
 * allocated whole (calloc: untouched pages cost nothing) so pointers into
 * them stay valid while directories are added. */
#define MAX_DIRS 65536
#define DIR_HASH (2 * MAX_DIRS) /* wd -> index, open addressing */
#define MAX_NAMES 4096
#define SNAP_MAX (1u << 20)       /* bytes kept of one protected file */
#define QUEUE_MAX (8u << 20)      /* event bytes read ahead for window checks */
/* entries read from one directory while setting up (the plan has covered
 * every protected name there already, down to the full depth); during the
 * run a directory is read whole: one the command moves into a watched
 * place could hide a protected name past any bound */
#define SCAN_MAX 20000
#define COVER_TRIES 16
#define ASIDE_MAX 256             /* entries moved aside from one new protected directory */
#define FRESH_MAX 256             /* files made during the run whose opens are counted */
#define MOVED_MAX 1024            /* renames fanotify told of, not yet paired */
#define EARLY_MAX 256             /* opens of files fanotify has not seen made (yet) */
#define FH_MAX 128                /* a directory's file handle (MAX_HANDLE_SZ) */
#define OPENS_UNKNOWN UINT_MAX

/* what a dir watch reports: arrivals, and what a window check counts */
#define DIR_MASK (IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | \
		  IN_OPEN | IN_ATTRIB | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
#define INODE_MASK (IN_MODIFY | IN_CLOSE_WRITE)

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#define FSMOUNT_CLOEXEC 0x00000001
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#endif

enum { W_DENY = 1, W_KEEP = 2 };
enum { C_NULL, C_SELF, C_EMPTY };

struct wdir {
	int wd;
	int fd;        /* O_PATH, opened without following links */
	char *path;
	int depth;     /* below its write root, or -1: not a tree directory */
	int globbed;   /* new entries are tested against the globs */
	int fan;       /* its opens are counted with fanotify: its handle */
	unsigned fh_len;
	int fh_type;
	unsigned char fh[FH_MAX];
};

/* A name fanotify saw made in a directory it counts, and how many opens
 * (by distinct processes: fanotify merges only one process's repeated
 * opens) it saw of it since. */
struct fcount {
	int used;
	size_t dir;
	char name[NAME_MAX + 1];
	unsigned opens;
	unsigned long seq;
	unsigned fh_len; /* the file's handle: names are made again, inodes are new */
	int fh_type;
	unsigned char fh[FH_MAX];
};

struct wname {
	size_t dir;
	char *name;
	int kind;
	int is_dir;
	int fd;        /* W_KEEP: the inode re-covered during the run, or -1 */
	int iwd;       /* its inode watch, or -1 */
	char *snap;    /* W_KEEP: the content srt last accepted from the host */
	size_t snap_len;
	int have_snap;
	int pre;       /* a protected directory there at the start: the plan's */
	int pending;   /* covered, and a newer file took the name before the
			* cover: judged at that file's own event */
	const char *taint; /* pending: why a file that was at the name before
			    * cannot be taken for the host's (a host tool may
			    * have read it to write the newer one), or NULL */
	const struct srt__protected *prot; /* a placeholder srt put at a protected
					    * name the run made: arrivals there are
					    * moved aside again */
	char *at;      /* the path of its directory when the name was taken: a
			* denied path names its parent by path, which a rename
			* of that directory (dirs_follow) does not change */
};

/* A file made during the run in a directory that holds a write-protected
 * file: the host's temporary files (git's NAME.lock, sed -i's and
 * editors' temporary names) that it renames over the protected name. */
struct fresh {
	int used;
	size_t dir;
	char name[NAME_MAX + 1];
	unsigned opens;   /* opens by this name, its creator's included */
	unsigned iopens;  /* opens its inode watch saw by any name */
	unsigned iallow;  /* 1: its creator's open came after the inode watch */
	int iwd;          /* the inode watch, or -1 (none: it counts as written) */
	int gone;         /* no inode watch: renamed or removed before srt got to it */
	unsigned long seq;
};

struct watcher {
	const struct srt__init_opts *o;
	int ifd, events_fd, ctl, done;
	struct wdir *dirs;
	size_t n_dirs;
	size_t dir_cap;  /* the bound in force (MAX_DIRS, the open-file limit) */
	int *dir_hash;   /* inotify wd -> index + 1 of its directory, 0: none */
	int setup_full;  /* a bound was reached while setting up: refuse the run */
	struct wname *names;
	size_t n_names;
	struct srt__glob **globs;
	size_t n_globs;
	int full_said;
	int running; /* setup done: a bound reached now stops the run */
	int sentinel, sentinel_wd; /* a memfd whose writes mark the queue */
	char *q; /* events read, processed from qpos */
	size_t qpos, qlen, qcap;
	int overflow;
	int lost_said; /* events were lost during the run: said once */
	int want_dir_fd; /* arrival keeps the directory it covered in dir_fd */
	int dir_fd;
	struct fresh *fresh;
	unsigned long fresh_seq;
	int mv_have;       /* the last IN_MOVED_FROM seen: its cookie, and */
	uint32_t mv_cookie;
	long mv_fresh;     /* its entry in fresh, or -1 (not made during the run) */
	int fan;           /* fanotify, or -1 */
	size_t *fan_dirs;  /* the directories fanotify marks (their fan is 1) */
	size_t n_fan_dirs;
	struct fcount *fc;
	unsigned long fc_seq;
	struct fcount *moved; /* renamed away: opens counted (MOVED_MAX) */
	int moved_lost; /* a rename's fanotify event was lost: the pairing
			 * is off until both queues are drained (fan_resync) */
	struct fcount *early; /* opens of a file before its creation's event */
	unsigned long early_seq;
	size_t n_moved;
	unsigned mv_opens; /* of the last IN_MOVED_FROM's file, or OPENS_UNKNOWN */
	const char *written; /* the file renamed over a protected name was
			      * opened by another process: why, for the report */
	struct timespec finish_by; /* finishing: the queue is read until then */
	/* The last pass (finish): nothing of the sandbox runs any more, so a
	 * name srt cannot put right is reported and the pass goes on with the
	 * next one (stop_run jumps back to give_up); where it stands: */
	int finishing;
	sigjmp_buf give_up;
	int end_step;      /* 0 the queue, 1 the directories, 2 the names */
	int end_rescan;    /* events were lost at the end: list the directories */
	size_t end_dir, end_n_dirs, end_name;
};

int srt__watch_protected_dir(const char *name)
{
	return !strcasecmp(name, ".vscode") || !strcasecmp(name, ".idea") || !strcasecmp(name, ".claude");
}

const struct srt__protected *srt__watch_protected_entry(const char *parent, const char *name,
							const char *const *released)
{
	size_t i, pl = parent ? strlen(parent) : 0;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];
		const char *slash = strchr(p->path, '/');
		int hit = 0;

		if (p->kind == SRT__PROT_FILE || p->kind == SRT__PROT_DIR)
			hit = !strcasecmp(p->path, name);
		else if (p->kind == SRT__PROT_SUB && slash)
			hit = pl == (size_t)(slash - p->path) && !strncasecmp(p->path, parent, pl) &&
			      !strcasecmp(slash + 1, name);
		if (hit)
			return srt__protected_released(p, released) ? NULL : p;
	}
	return NULL;
}

int srt__watch_claude_released(const char *const *released)
{
	size_t i;

	for (i = 0; i < srt__protected_count; i++) {
		const struct srt__protected *p = &srt__protected_names[i];

		if (p->kind == SRT__PROT_SUB && !strncasecmp(p->path, ".claude/", 8) &&
		    srt__protected_released(p, released))
			return 1;
	}
	return 0;
}

int srt__watch_window_write(unsigned mask)
{
	return (mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM |
			IN_Q_OVERFLOW)) != 0;
}

int srt__watch_written_by_other(unsigned opens, unsigned iopens, unsigned iallow)
{
	return opens > 1 || iopens > iallow;
}

int srt__watch_wanted(const struct srt__init_opts *o)
{
	return o->n_watch_deny || o->n_watch_keep || o->n_watch_glob || o->n_watch_tree;
}

/* ---- reporting --------------------------------------------------------- */

/* One violation line, control characters escaped: on the events pipe (the
 * run's summary) when there is one, else on stderr. */
static void violation(struct watcher *w, const char *kind, const char *dir, const char *name,
		      const char *why)
{
	char line[1024], path[PATH_MAX + NAME_MAX + 2];
	size_t o, i;

	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	o = (size_t)snprintf(line, sizeof(line), "deny %s ", kind);
	for (i = 0; path[i] && o + 8 < sizeof(line) / 2; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			o += (size_t)snprintf(line + o, sizeof(line) - o, "\\x%02x", c);
		else
			line[o++] = (char)c;
	}
	o += (size_t)snprintf(line + o, sizeof(line) - o - 1, ": %s", why);
	if (o > sizeof(line) - 2)
		o = sizeof(line) - 2;
	if (w->events_fd >= 0) {
		line[o++] = '\n';
		if (write(w->events_fd, line, o) == (ssize_t)o)
			return;
		o--;
	}
	line[o] = '\0';
	srt__init_say("srt: %s", line);
}

/* The watcher's stderr is the caller's terminal or pipe, which the command
 * shares: it can stop the terminal's output (tcflow TCOOFF, as ^S does) or
 * fill a pipe whose reader drains it slowly, and a write of ours to it then
 * waits. While the watcher waits it covers nothing: a red team stopped the
 * terminal, stood in ~/.ssh.new, had the host move it onto the denied
 * ~/.ssh, and the watcher, about to stop the run, hung in its message
 * while the command saw the names the host made there (tests/escape/1021).
 * So once set up (its warnings are written before the command starts),
 * the watcher writes through a description of the terminal or pipe of its
 * own, opened again through /proc and non-blocking (the command's stays as
 * it is): a line that cannot be written at once is dropped. What cannot be
 * opened so (a socket; /dev/tty, which names the controlling terminal the
 * watcher's new session does not have; another user's terminal) gets none
 * of its lines: fd 2 becomes /dev/null, and the run's summary still has
 * every violation, through the events pipe. A regular file is kept: a
 * write to it waits only while the command's own write to the same file
 * holds it. stderr_own: fd 2 is a non-blocking description of our own or
 * /dev/null, which no write waits on; without it (a regular file, or
 * /dev/null could not be had) the run is stopped before its line. */
static int stderr_own;

static void own_stderr(void)
{
	struct stat st;
	int fd;

	if (fstat(STDERR_FILENO, &st) != 0 || S_ISREG(st.st_mode))
		return;
	fd = -1;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (dup2(fd, STDERR_FILENO) == STDERR_FILENO)
		stderr_own = 1;
	close(fd);
}

/* The run cannot go on safely: say why and end it. kill(-1) reaches
 * every process of bwrap's pid namespace but its reaper and us: the outer
 * helper, the nested init and the command's tree, at once (the outer
 * helper's death alone tears the namespace down only when the reaper
 * gets to it). In the last pass (finish) the violation is all: the pass
 * goes on with what follows. */
static void stop_run_for(struct watcher *w, const char *kind, const char *dir, const char *name,
			 const char *why) __attribute__((noreturn));
static void stop_run_for(struct watcher *w, const char *kind, const char *dir, const char *name,
			 const char *why)
{
	violation(w, kind, dir, name, why);
	if (w->finishing)
		/* the command and every process of the sandbox are gone:
		 * there is nothing to stop, and the names not checked yet
		 * still are (the violation names this one) */
		siglongjmp(w->give_up, 1);
	if (!stderr_own)
		/* the write below may wait on the command (see own_stderr):
		 * the command ends first. The outer helper ends with it, and
		 * our own end (PR_SET_PDEATHSIG) may come before the line,
		 * which the run's summary has (violation) */
		kill(-1, SIGKILL);
	srt__init_say("srt-linux-init: %s%s%s: %s; the command was stopped", dir, name ? "/" : "",
		      name ? name : "", why);
	kill(-1, SIGKILL);
	kill(getppid(), SIGKILL);
	_exit(EXIT_SETUP);
}

static void stop_run(struct watcher *w, const char *dir, const char *name, const char *why)
	__attribute__((noreturn));
static void stop_run(struct watcher *w, const char *dir, const char *name, const char *why)
{
	stop_run_for(w, "write", dir, name, why);
}

/* Is the directory fd leads to (consumed) the one of (dev, ino), or below
 * it? Walked up by "..", as the kernel sees it from here, to the root: 1
 * below, 0 not, 2 cannot tell. A walk that does not get to the root is
 * no answer: the command can build a chain of directories deeper than any
 * number of steps taken here (tests/escape/0997), and a ".." the watcher
 * may not look up (a directory it cannot search) hides what is above. */
/* The directories a scan (held_below) walked up from to the root without
 * meeting the covered directory: a walk that meets one of them stops
 * there, not below. The command held thousands of descriptors of one
 * directory 4,000 levels down its project, each walked up step by step,
 * every round: a minute in which the watcher covered nothing else
 * (tests/escape/1008). A directory met so cannot have been moved below
 * the covered one since: the name is covered, so only a process holding a
 * place below it could move one there, which the scan finds; as that
 * process may do so after it was looked at in a round, and drop its place,
 * the set is emptied at the start of each round of the scan, as every
 * task is looked at again (each_command_task). When full it takes no
 * more. */
#define MEMO_CAP (1u << 17)

static struct dir_memo {
	struct { dev_t dev; ino_t ino; } *v;
	size_t n;
} memo;

static void memo_reset(void)
{
	if (!memo.v)
		memo.v = calloc(MEMO_CAP, sizeof(*memo.v));
	memo.n = 0;
}

/* A new round (each_command_task): the set emptied, kept allocated */
static void memo_clear(void)
{
	if (memo.v && memo.n)
		memset(memo.v, 0, MEMO_CAP * sizeof(*memo.v));
	memo.n = 0;
}

static void memo_free(void)
{
	free(memo.v);
	memo.v = NULL;
	memo.n = 0;
}

/* 1 when (dev, ino) is in the set; with add, put it there (0 then) */
static int memo_has(dev_t dev, ino_t ino, int add)
{
	size_t i;

	if (!memo.v || !ino)
		return 0;
	for (i = (size_t)(ino * 2654435761u ^ dev) % MEMO_CAP; memo.v[i].ino; i = (i + 1) % MEMO_CAP)
		if (memo.v[i].ino == ino && memo.v[i].dev == dev)
			return 1;
	if (add && memo.n < MEMO_CAP / 2) {
		memo.v[i].dev = dev;
		memo.v[i].ino = ino;
		memo.n++;
	}
	return 0;
}

static int dir_below(int fd, dev_t dev, ino_t ino)
{
	static struct { dev_t dev; ino_t ino; } walked[4096];
	struct stat st, up;
	int n, p, rc = 2;

	for (n = 0; n < 4096 && fd >= 0; n++) {
		if (fstat(fd, &st) != 0)
			break;
		if (st.st_dev == dev && st.st_ino == ino) {
			rc = 1;
			break;
		}
		if (memo_has(st.st_dev, st.st_ino, 0)) {
			rc = 0; /* walked up to the root from there before */
			break;
		}
		walked[n].dev = st.st_dev;
		walked[n].ino = st.st_ino;
		p = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (p < 0)
			break;
		if (fstat(p, &up) == 0 && up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
			close(p);
			rc = 0; /* the root */
			break;
		}
		close(fd);
		fd = p;
	}
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		for (p = 0; p < n && p < 4096; p++)
			memo_has(walked[p].dev, walked[p].ino, 1);
	return rc;
}

/* Is pid one of the command's processes: in a pid namespace below this
 * one (its NSpid line in /proc/PID/status, which anyone may read, names
 * more than one pid), and not the init of the namespace right below (srt's
 * own)? The processes of this namespace are srt's: bwrap's reaper and the
 * helper. -1 when its status cannot be read (not gone); 0 with *gone set
 * when it is gone. */
static int command_process(long pid, int *gone)
{
	char p[64], line[256];
	FILE *f;
	int yes = 0;

	*gone = 0;
	snprintf(p, sizeof(p), "/proc/%ld/status", pid);
	f = fopen(p, "re");
	if (!f) {
		*gone = errno == ENOENT || errno == ESRCH;
		return *gone ? 0 : -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line + 6, *last = NULL;
		int n = 0;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		for (;;) {
			s += strspn(s, " \t\n");
			if (!*s)
				break;
			last = s;
			n++;
			s += strcspn(s, " \t\n");
		}
		/* more than one pid, and not pid 1 of the namespace right
		 * below (one the command makes deeper down is its own) */
		yes = n > 1 && !(n == 2 && last[0] == '1' && strcspn(last, " \t\n") == 1);
		break;
	}
	fclose(f);
	return yes;
}

/* The names below a covered directory (see unwatch_walk): 1 when (dev,
 * ino) is one of them, 2 when it may be (on its filesystem, and not every
 * name there was looked at, or on a filesystem met below it), 0 when it is
 * not. in_tree takes stat's st_dev, in_tree_sb the device of the inode's
 * superblock as /proc tells it in fdinfo and maps. */
struct unwatch;
static int in_tree(const struct unwatch *u, dev_t dev, ino_t ino);
static int in_tree_sb(const struct unwatch *u, unsigned long sdev, ino_t ino);

static dev_t tree_dev(const struct unwatch *u);

/* A file of the command that may be below the covered directory (dev,
 * ino) only as the walk of the names there was not complete (a directory
 * there the watcher may not read, more names or levels than it looks at):
 * a build log open in the project stopped the run (tests/escape/1011). It
 * is told apart when it has one link and its path (as /proc tells it to
 * the watcher) names it again, the same inode, in a directory walked up
 * to the root without meeting (dev, ino): that name is its only one. 0
 * not below, 1 below, 2 cannot tell (a path that names another file or
 * none, a file removed, a second link). */
static int file_by_path(const char *path, dev_t fdev, ino_t fino, dev_t dev, ino_t ino)
{
	char buf[PATH_MAX], *slash;
	struct stat st;
	int dfd;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return 2;
	memcpy(buf, path, strlen(path) + 1);
	slash = strrchr(buf, '/');
	if (!slash[1])
		return 2;
	*slash = '\0';
	dfd = open(buf[0] ? buf : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 2;
	if (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != fdev ||
	    st.st_ino != fino || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(dfd);
		return 2;
	}
	return dir_below(dfd, dev, ino); /* takes dfd */
}

/* The same for an entry of a descriptor list (a /proc/.../fd/N link) */
static int fd_by_path(const char *link, const struct stat *fst, dev_t dev, ino_t ino)
{
	char path[PATH_MAX];
	ssize_t n = readlink(link, path, sizeof(path) - 1);

	if (n <= 0 || !S_ISREG(fst->st_mode) || fst->st_nlink != 1)
		return 2;
	path[n] = '\0';
	return file_by_path(path, fst->st_dev, fst->st_ino, dev, ino);
}

/* The threads of a process share one descriptor table (unless made
 * without CLONE_FILES, or one called unshare): the table of a process
 * with a thousand threads and as many descriptors was listed once per
 * thread, a million entries a round, so that a round took seconds and a
 * build beside it, starting processes all the time, never let a round go
 * by without a new one (tests/escape/1005). A task whose table is the one
 * of the task looked at just before it (kcmp KCMP_FILES), which held
 * nothing there, is not listed again: the two lists would be of the same
 * table, moments apart, no more than one thread of its own would be
 * given. A table is never taken up by a task that did not share it from
 * its birth, so sharing now means sharing all along. The task looked at
 * before is held by a pidfd, so its thread id is not another's by the
 * time kcmp reads it (an id freed and given again). */
struct files_seen {
	long tid; /* the task whose table held nothing, 0 none */
	int pfd;  /* a pidfd of it, -1 none */
	int kind; /* KCMP_FILES: its descriptor table; KCMP_FS: its working
		   * directory and root */
	unsigned round; /* the round of the scan it was looked at in */
};

/* The round each_command_task is in, counted over every scan: what a
 * round remembered of a table or working directory that held nothing
 * (files_same) or of a process's mappings (task_below_place) is for that
 * round alone. A table shared by several tasks can get a descriptor
 * after it was looked at; within a round the tasks sharing it are looked
 * at one after the other, moments apart, while the next round may come
 * long after. */
static unsigned scan_round;

static long task_tid(const char *task)
{
	const char *slash = strrchr(task, '/');
	char *end;
	long tid;

	if (!slash)
		return 0;
	tid = strtol(slash + 1, &end, 10);
	return *end || tid <= 0 ? 0 : tid;
}

static void files_forget(struct files_seen *fs)
{
	if (fs->pfd >= 0)
		close(fs->pfd);
	fs->pfd = -1;
	fs->tid = 0;
}

/* The table of task was looked at and held nothing: remembered. The pidfd
 * is opened before the look (files_watch), so a task that ended and whose
 * id was given again is not taken for it. */
static void files_watch(long tid, int *pfd)
{
	*pfd = tid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD) : -1;
}

static void files_clean(struct files_seen *fs, long tid, int pfd)
{
	files_forget(fs);
	if (pfd < 0)
		return;
	fs->tid = tid;
	fs->pfd = pfd;
	fs->round = scan_round;
}

/* Is tid's descriptor table (or working directory and root, by fs->kind)
 * the one fs remembers as holding nothing? */
static int files_same(const struct files_seen *fs, long tid)
{
	if (!fs->tid || fs->pfd < 0 || tid <= 0 || tid == fs->tid || fs->round != scan_round)
		return 0;
	if (syscall(SYS_kcmp, (pid_t)fs->tid, (pid_t)tid, fs->kind, 0, 0) != 0)
		return 0;
	/* still alive after kcmp: the id kcmp read was its */
	return syscall(SYS_pidfd_send_signal, fs->pfd, 0, NULL, 0) == 0;
}

/* The directory descriptors of a task whose fd directory the watcher may
 * not read: a process that made itself not dumpable (ssh-agent, gpg-agent)
 * has its /proc entries owned by the root of its user namespace, and for
 * an unprivileged user that root is mapped nowhere, so the fd directory
 * (mode 0500) is closed even to the user's own processes. The watcher may
 * still trace it: the command runs in a user namespace the helper made,
 * and the watcher, in the namespace above as its owner, holds every
 * capability there (init/init.c); the fdinfo directory (mode 0555) is open
 * to a tracer, and each descriptor listed there is taken with pidfd_getfd
 * to look at. The same answers as task_below's own list: 1 below, 0 not, 2
 * cannot tell (no pidfd of a thread before Linux 6.9, not the command's
 * namespace, a list that keeps changing). Taking a socket this way moves it to the watcher's
 * cgroup for the first cgroup version's net_cls and net_prio controllers
 * (the watcher is in the sandbox's cgroup); nothing else about a
 * descriptor changes. */
static int task_fds_below(const char *task, dev_t dev, ino_t ino, const struct unwatch *u)
{
	const char *slash = strrchr(task, '/');
	char p[PATH_MAX], *end;
	long tid;
	int pfd, tries, rc = 2;

	if (!slash)
		return 2;
	tid = strtol(slash + 1, &end, 10);
	if (tid <= 0 || *end || (size_t)snprintf(p, sizeof(p), "%s/fdinfo", task) >= sizeof(p))
		return 2;
	pfd = (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);
	if (pfd < 0)
		return errno == ESRCH ? 0 : 2;
	for (tries = 0; tries < 3; tries++) {
		DIR *d = opendir(p);
		struct dirent *e;
		int vanished = 0, err = 0;

		if (!d) {
			rc = errno == ENOENT || errno == ESRCH ? 0 : 2;
			break;
		}
		while (!err && (e = readdir(d))) {
			struct stat st;
			long n;
			int f;

			if (e->d_name[0] == '.')
				continue;
			n = strtol(e->d_name, &end, 10);
			if (*end || n < 0 || n > INT_MAX)
				continue;
			f = (int)syscall(SYS_pidfd_getfd, pfd, (int)n, 0);
			if (f < 0) {
				/* closed since it was listed; the task gone */
				if (errno == EBADF)
					vanished = 1;
				else
					err = errno == ESRCH ? ESRCH : EPERM;
				continue;
			}
			if (fstat(f, &st) != 0) {
				close(f);
				continue;
			}
			if (!S_ISDIR(st.st_mode)) {
				/* a file of the new directory: see task_below */
				int r = u ? in_tree(u, st.st_dev, st.st_ino) : 0;

				if (r == 2) {
					char self[64];

					snprintf(self, sizeof(self), "/proc/self/fd/%d", f);
					r = fd_by_path(self, &st, dev, ino);
				}
				switch (r) {
				case 1:
					err = EEXIST;
					break;
				case 2:
					err = EPERM;
					break;
				}
				close(f);
				continue;
			}
			switch (dir_below(f, dev, ino)) {
			case 1:
				err = EEXIST;
				break;
			case 2:
				err = EPERM;
				break;
			}
		}
		closedir(d);
		if (err || !vanished) {
			rc = err == EEXIST ? 1 : err == ESRCH || !err ? 0 : 2;
			break;
		}
	}
	close(pfd);
	return rc;
}

/* One task (thread) of a process, by its /proc/PID/task/TID directory:
 * 1 when its working directory or root, or a directory descriptor is at or
 * below (dev, ino), 2 when it cannot tell (its entries cannot be read, or
 * its descriptors keep changing while listed), 0 when none is. With u, a
 * descriptor or a shared mapping of a file of the directory (one of u's
 * names) counts too: the file is the host's now, and what the host writes
 * into it would be read through it. An inotify watch on the directory is
 * no place: unwatch_below takes it off. */
static int task_table_below(const char *task, dev_t dev, ino_t ino, const struct unwatch *u, int maybe);

/* The working directory and root of a task (see task_below). */
static int task_places_below(const char *task, dev_t dev, ino_t ino)
{
	static const char *const places[] = { "cwd", "root" };
	char p[PATH_MAX];
	int fd, below;

	for (size_t i = 0; i < 2; i++) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", task, places[i]) >= sizeof(p))
			return 2;
		fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT && errno != ESRCH)
			return 2;
		if (fd >= 0 && (below = dir_below(fd, dev, ino)))
			return below;
	}
	return 0;
}

static int task_below(const char *task, dev_t dev, ino_t ino, const struct unwatch *u, long *maps_of,
		      struct files_seen *fs, struct files_seen *fsd)
{
	char p[PATH_MAX];
	int maybe = 0;
	long tid = task_tid(task);

	/* the working directory and root are shared by the threads as the
	 * table is (CLONE_FS), and looked at once the same way: a walk up
	 * from each to the root was the most of a round over a thousand
	 * threads */
	if (!files_same(fsd, tid)) {
		int pfd, below;

		files_watch(tid, &pfd);
		below = task_places_below(task, dev, ino);
		if (below) {
			if (pfd >= 0)
				close(pfd);
			return below;
		}
		files_clean(fsd, tid, pfd);
	}
	if (u && strtol(task + strlen("/proc/"), NULL, 10) != *maps_of) {
		/* a file mapped before the cover (each line: address, mode,
		 * offset, major:minor, inode, path). The threads of a process
		 * share its mappings: read once, from the first thread that
		 * shows them (the first one's list is empty once it exited
		 * while the others go on) */
		char line[PATH_MAX + 128];
		FILE *maps;
		int any = 0;

		if ((size_t)snprintf(p, sizeof(p), "%s/maps", task) >= sizeof(p))
			return 2;
		maps = fopen(p, "re");
		if (!maps && errno != ENOENT && errno != ESRCH)
			return 2;
		while (maps && fgets(line, sizeof(line), maps)) {
			unsigned maj, min;
			unsigned long mino;
			int r;

			any = 1;
			if (sscanf(line, "%*s %*s %*s %x:%x %lu", &maj, &min, &mino) != 3 || !mino)
				continue;
			r = in_tree_sb(u, (unsigned long)maj << 20 | min, (ino_t)mino);
			if (r == 2) {
				/* the path, after the inode's number, to the end */
				char *path = strchr(line, '/');

				line[strcspn(line, "\n")] = '\0';
				r = path ? file_by_path(path, tree_dev(u), (ino_t)mino, dev, ino) : 2;
			}
			if (r == 1) {
				fclose(maps);
				return 1;
			}
			maybe |= r == 2;
		}
		if (maps)
			fclose(maps);
		if (any)
			*maps_of = strtol(task + strlen("/proc/"), NULL, 10);
	}
	{
		int pfd, rc;

		if (files_same(fs, tid))
			return maybe ? 2 : 0;
		files_watch(tid, &pfd);
		rc = task_table_below(task, dev, ino, u, maybe);
		if (rc == 0)
			files_clean(fs, tid, pfd);
		else if (pfd >= 0)
			close(pfd);
		return rc;
	}
}

/* The descriptor table of a task (see task_below); maybe: 2 is the answer
 * when nothing there is below. */
static int task_table_below(const char *task, dev_t dev, ino_t ino, const struct unwatch *u, int maybe)
{
	char p[PATH_MAX];
	int fd, tries, below;

	/* a descriptor moved from number to number (dup2 and close) while the
	 * list is read could be missed: the list is read again until no
	 * listed descriptor vanished, three times at most */
	for (tries = 0; tries < 3; tries++) {
		DIR *fdd;
		struct dirent *fe;
		int vanished = 0;

		if ((size_t)snprintf(p, sizeof(p), "%s/fd", task) >= sizeof(p))
			return 2;
		fdd = opendir(p);
		if (!fdd && errno == EACCES)
			return task_fds_below(task, dev, ino, u);
		if (!fdd)
			return errno == ENOENT || errno == ESRCH ? 0 : 2;
		while ((fe = readdir(fdd))) {
			char f[PATH_MAX];
			struct stat st;

			if (fe->d_name[0] == '.')
				continue;
			if ((size_t)snprintf(f, sizeof(f), "%s/%s", p, fe->d_name) >= sizeof(f))
				continue;
			/* refused, not gone: the process made itself not
			 * dumpable since the list was opened (it may switch
			 * back and forth, tests/escape/0996), so the entry is
			 * closed now; the whole list is looked at again as a
			 * tracer, as when the open of the list is refused */
			if (stat(f, &st) != 0) {
				if (errno == EACCES || errno == EPERM) {
					closedir(fdd);
					return task_fds_below(task, dev, ino, u);
				}
				vanished |= errno == ENOENT;
				continue;
			}
			if (!S_ISDIR(st.st_mode)) {
				int r = u ? in_tree(u, st.st_dev, st.st_ino) : 0;

				if (r == 2)
					r = fd_by_path(f, &st, dev, ino);
				if (r == 1) {
					closedir(fdd);
					return 1;
				}
				maybe |= r == 2;
				continue;
			}
			fd = open(f, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 && (errno == EACCES || errno == EPERM)) {
				closedir(fdd);
				return task_fds_below(task, dev, ino, u);
			}
			if (fd < 0)
				vanished |= errno == ENOENT;
			else if ((below = dir_below(fd, dev, ino))) {
				closedir(fdd);
				return below;
			}
		}
		closedir(fdd);
		if (!vanished)
			return maybe ? 2 : 0;
	}
	return 2;
}

/* The processes each_command_task has listed, by id: an open-addressed
 * set, 0 for empty. */
struct tid_set {
	long *v;
	size_t cap, n;
};

/* 1 when tid is in the set already, 0 when it was added now, -1 when
 * there is no memory for it. */
static int tid_seen(struct tid_set *s, long tid)
{
	size_t i, j;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		long *v = calloc(cap, sizeof(*v));

		if (!v)
			return -1;
		for (j = 0; j < s->cap; j++) {
			if (!s->v[j])
				continue;
			for (i = (size_t)s->v[j] * 2654435761u % cap; v[i]; i = (i + 1) % cap)
				;
			v[i] = s->v[j];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	for (i = (size_t)tid * 2654435761u % s->cap; s->v[i]; i = (i + 1) % s->cap)
		if (s->v[i] == tid)
			return 1;
	s->v[i] = tid;
	s->n++;
	return 0;
}

/* How many times each_command_task reads /proc again for tasks that were
 * not there before, at most (a round after the first looks only at what
 * changed, and takes milliseconds: the time limit in each_command_task
 * is what ends a command that keeps making tasks) */
#define TASK_ROUNDS 4096

/* How many rounds look at every task: each task is looked at twice at
 * least, as a descriptor moved from number to number while its table is
 * read can be missed by one look (tests/escape/0999) */
#define TASK_FULL_ROUNDS 2

/* Why the last each_command_task that answered 2 could not tell, in
 * words for the message that stops the run; NULL when the look at a task
 * answered 2 (for one of the reasons deny_dir_check lists) */
static const char *unknown_why;

/* id (of process pid) into set: 0, or 2 (cannot tell) when there is no
 * memory for it; one not met before marks the round fresh, with pid. */
static int note_task(struct tid_set *set, long id, long pid, int *fresh, long *fresh_pid)
{
	int known = tid_seen(set, id);

	if (known < 0)
		return 2;
	if (!known) {
		*fresh = 1;
		*fresh_pid = pid;
	}
	return 0;
}

/* The tasks of the command's processes one round listed, sorted by
 * process id, then thread id, once the round is over; with the inode
 * numbers /proc gave the task's directory and its process's as it listed
 * them, which tell a task from a later one given the same id: /proc keeps
 * one inode for a live task's directory, and drops it once the task is
 * gone, and each new inode gets a number not given before (the kernel's
 * get_next_ino). 1 for a number not known (what /proc gives for one it
 * could not make, and what a 0 is kept as), which matches none. Should
 * /proc drop the inode of a live task (memory short), the task is taken
 * for a new one, and looked at again. */
struct listed_task {
	long pid, tid;
	ino_t ino, pino;
};

struct task_list {
	struct listed_task *v;
	size_t n, cap;
};

static int task_list_add(struct task_list *l, long pid, long tid, ino_t ino, ino_t pino)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct listed_task *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].pid = pid;
	l->v[l->n].tid = tid;
	l->v[l->n].ino = ino;
	l->v[l->n].pino = pino;
	l->n++;
	return 0;
}

static int listed_task_cmp(const void *a, const void *b)
{
	const struct listed_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Was task tid of process pid, with the inode numbers ino (its task
 * directory's, 0 not to compare) and pino (its process's), in list
 * `before` (sorted)? 1 yes, 0 no, -1 when its id was there for another
 * task. Ids go round to the low ones, and a freed id may be the next one
 * given: a command that moved the kernel's next id to just below one of
 * its tasks' (by making tasks) can end that task and give its id to a
 * new one at once, so the inode numbers tell them apart too. */
static int listed_before(const struct task_list *before, long pid, long tid, ino_t ino, ino_t pino)
{
	struct listed_task key = { pid, tid, 0, 0 };
	const struct listed_task *hit = NULL;

	if (before->n)
		hit = bsearch(&key, before->v, before->n, sizeof(*before->v), listed_task_cmp);
	if (!hit)
		return 0;
	return (!ino || (ino > 1 && hit->ino == ino)) && pino > 1 && hit->pino == pino ? 1 : -1;
}

/* A task of a process in this round's list: its id, its directory's
 * inode number, and whether the list before had it (listed_before) */
struct now_task {
	long tid;
	ino_t ino;
	int known;
};

static int now_task_cmp(const void *a, const void *b)
{
	long x = ((const struct now_task *)a)->tid, y = ((const struct now_task *)b)->tid;

	return x < y ? -1 : x > y;
}

/* Did process pid lose a task between list `before` (sorted) and its
 * tasks now (t[0..n), sorted by id)? One pass over each tells. A task
 * listed under an id the list before had for another (listed_before: -1)
 * counts as the other one lost: an exec'ing thread's id given again
 * would hide that its leader took its table. */
static int lost_task(const struct task_list *before, long pid, const struct now_task *t, size_t n)
{
	size_t lo = 0, hi = before->n, j = 0;

	while (lo < hi) { /* pid's first entry */
		size_t mid = lo + (hi - lo) / 2;

		if (before->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < before->n && before->v[lo].pid == pid; lo++) {
		while (j < n && t[j].tid < before->v[lo].tid)
			j++;
		if (j == n || t[j].tid != before->v[lo].tid || t[j].known < 0)
			return 1;
	}
	return 0;
}

/* fn(task, arg) for each task (thread) of each command process, by its
 * /proc/PID/task/TID directory, until one answers other than 0: that
 * answer, with the process's pid in *who. A process whose status cannot
 * be read answers 2, as does /proc when it cannot be listed (*who 0).
 *
 * A list of /proc is out of date as soon as it is read (the kernel lists
 * the processes there are when the list is begun): a process (or a thread
 * with a descriptor table of its own) can hand its place to a child by
 * fork and end before it is looked at, the child being in no list read so
 * far (tests/escape/0998). And a thread that calls execve takes its
 * leader's thread id (the kernel's de_thread): its table is then the
 * leader's under an id looked at already, and its own id is gone (1000).
 * So the first round looks at every task, and then /proc and each command
 * process's task list are read again, round after round, until a round
 * lists no process and no task that was not listed before and finds no
 * process that lost a task since the round before (a quiet round); then
 * once more, from a round that looks at every task again. A round that
 * does not look at every task looks at what is new in its lists, and at
 * every task of a process that lost one (the leader that took an
 * exec'ing thread's table is found that way); a process listed but gone
 * before it is looked at counts as new (its child may have been too
 * young for that list). A task is told by its ids and the inode numbers
 * /proc lists it with: a task given an id a round listed for another is
 * new (listed_before).
 *
 * A task found without a place can get one later only as a new task
 * takes it by fork or clone (counted) or its process's leader takes an
 * exec'ing thread's (counted), or by taking it from another task that
 * holds it (pidfd_getfd, its /proc/PID/fd, a Unix socket), which no look
 * at one moment can rule out (SECURITY.md). A quiet round looks at
 * nothing, and its lists are read after every look: each task alive then
 * was listed, and looked at, before, and one made later is made by a
 * task found without a place. A task made during a round's looks, by
 * one not yet looked at, is in the next round's lists (or its child is),
 * which is then not quiet. Every round used to look at every task again,
 * which made each as long as the
 * first (seconds beside a tool with many descriptors, on a loaded
 * machine), and an ordinary parallel build, with a new compiler every
 * few milliseconds, made something new in every one: the run was
 * stopped (1005, 1006). A round that looks only at what changed takes
 * milliseconds, and one goes by without a new task. A command that keeps
 * making tasks for TASK_ROUNDS rounds, or for long past the first two
 * rounds, gets 2 (cannot tell). */
static int each_command_task(int (*fn)(const char *task, void *arg), void *arg, long *who)
{
	struct tid_set listed = { NULL, 0, 0 };
	struct task_list lists[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	struct task_list *before = &lists[0], *now_l = &lists[1];
	struct now_task *th = NULL;
	size_t tcap = 0;
	pid_t self = getpid();
	int rc = 0, round, fresh = 1, full, fulls = 0;
	long fresh_pid = 0;
	struct timespec t0, now;
	double spent, base = 0;

	*who = 0;
	unknown_why = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; !rc && (fresh || fulls < TASK_FULL_ROUNDS) && round < TASK_ROUNDS; round++) {
		DIR *procd;
		struct dirent *de;
		struct task_list *swap;

		/* while it reads, the watcher covers nothing else: past the
		 * two rounds every scan has, a command that keeps making new
		 * tasks is given up on (2, the run is stopped) once the extra
		 * rounds took a second more than twice what the first two
		 * did (a process with a thousand threads and as many
		 * descriptors takes long for the first round, and is not
		 * stopped for that alone) */
		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (round == 2)
			base = spent;
		if (round > 2 && spent > 1.0 + 3 * base)
			break;
		/* the first round, and the one after the first quiet one */
		full = round == 0 || !fresh;
		fulls += full;
		scan_round++;
		memo_clear();
		procd = opendir("/proc");
		fresh = 0;
		now_l->n = 0;
		if (!procd) {
			rc = 2;
			*who = 0;
			unknown_why = "/proc cannot be listed";
			break;
		}
		while (!rc && (de = readdir(procd))) {
			char p[64], task[PATH_MAX];
			char *end;
			long pid = strtol(de->d_name, &end, 10);
			size_t nt = 0, i;
			DIR *td;
			struct dirent *te;
			int cp, whole, gone;
			ino_t pino = de->d_ino ? de->d_ino : 1; /* 1: not known */

			if (*end || pid <= 0 || pid == (long)self)
				continue;
			/* a process not listed before is news even when it is
			 * gone by the time it is looked at: the child it made
			 * may have been too young for this list */
			if ((rc = note_task(&listed, pid, pid, &fresh, &fresh_pid)))
				break;
			/* a process the list before had (its leader's id and
			 * inode number) is one of the command's; any other is
			 * asked, and one listed before but gone now may be
			 * another that got its id, with a child too young for
			 * this list */
			gone = 0;
			if (listed_before(before, pid, pid, 0, pino) == 1)
				cp = 1;
			else
				cp = command_process(pid, &gone);
			if (gone)
				fresh = 1, fresh_pid = pid;
			if (cp < 0) {
				rc = 2;
				*who = pid;
				unknown_why = "its status in /proc cannot be read";
				break;
			}
			if (!cp)
				continue;
			snprintf(p, sizeof(p), "/proc/%ld/task", pid);
			td = opendir(p);
			if (!td) {
				rc = errno == ENOENT || errno == ESRCH ? 0 : 2;
				if (rc) {
					*who = pid;
					unknown_why = "its threads cannot be listed";
				}
				fresh = 1, fresh_pid = pid; /* gone, as above */
				continue;
			}
			while ((te = readdir(td))) {
				long tid = strtol(te->d_name, &end, 10);

				if (te->d_name[0] == '.' || *end || tid <= 0)
					continue;
				if (nt == tcap) {
					size_t cap = tcap ? 2 * tcap : 64;
					struct now_task *t = realloc(th, cap * sizeof(*t));

					if (!t) {
						rc = 2;
						break;
					}
					th = t;
					tcap = cap;
				}
				th[nt].tid = tid;
				th[nt++].ino = te->d_ino ? te->d_ino : 1; /* 1: not known */
			}
			closedir(td);
			if (rc) {
				*who = pid;
				unknown_why = "srt has no memory for its thread list";
				break;
			}
			/* in the order the threads were made, which is not
			 * the order of their ids once ids go round */
			qsort(th, nt, sizeof(*th), now_task_cmp);
			for (i = 0; i < nt; i++) {
				th[i].known = listed_before(before, pid, th[i].tid, th[i].ino, pino);
				if (task_list_add(now_l, pid, th[i].tid, th[i].ino, pino) < 0) {
					rc = 2;
					*who = pid;
					unknown_why = "srt has no memory for its thread list";
					break;
				}
			}
			whole = full || lost_task(before, pid, th, nt);
			if (whole)
				fresh = 1, fresh_pid = pid;
			for (i = 0; !rc && i < nt; i++) {
				if (th[i].known != 1)
					fresh = 1, fresh_pid = pid;
				else if (!whole)
					continue;
				snprintf(task, sizeof(task), "%s/%ld", p, th[i].tid);
				rc = fn(task, arg);
			}
			if (rc)
				*who = pid;
		}
		closedir(procd);
		qsort(now_l->v, now_l->n, sizeof(*now_l->v), listed_task_cmp);
		swap = before;
		before = now_l;
		now_l = swap;
	}
	free(listed.v);
	free(th);
	free(lists[0].v);
	free(lists[1].v);
	if (!rc && (fresh || fulls < TASK_FULL_ROUNDS)) {
		/* still new tasks in the last round, or no time left for
		 * the second look at every task */
		rc = 2;
		*who = fresh_pid;
		unknown_why = round >= TASK_ROUNDS ? "it kept making new processes or threads through "
						     "every round of the look"
						   : "it kept making new processes or threads for longer "
						     "than the look may take";
	}
	return rc;
}

struct place {
	dev_t dev;
	ino_t ino;
	const struct unwatch *u;
	long maps_of; /* the process whose mappings were read */
	unsigned maps_round; /* in this round of the scan */
	struct files_seen fs, fsd;
};

static int task_below_place(const char *task, void *arg)
{
	struct place *at = arg;

	if (at->maps_round != scan_round) {
		at->maps_of = 0;
		at->maps_round = scan_round;
	}
	return task_below(task, at->dev, at->ino, at->u, &at->maps_of, &at->fs, &at->fsd);
}

/* A denied directory arrived at its name and was covered: does a process
 * of the sandbox hold a place at or below the directory itself, reached
 * before the cover (a thread's working directory or root, a directory
 * descriptor)? A mount covers the name, not what a
 * process got to through it: from there it would go on seeing the names
 * the host puts in the directory (stat is not judged by the monitor), and
 * in a write root write there. 1 with the pid in *who when one does, 2
 * when /proc cannot tell (a process the watcher may not inspect: its pid
 * in *who, or 0 when /proc cannot be listed); 0 when none does. With u
 * (the names below it, unwatch_walk), a descriptor or mapping of a file
 * there counts too. A descriptor in flight in a Unix socket is in no
 * process's table: not seen (0962, 0997). */
static int held_below(dev_t dev, ino_t ino, const struct unwatch *u, long *who)
{
	struct place at = { dev, ino, u, 0, 0, { 0, -1, KCMP_FILES, 0 }, { 0, -1, KCMP_FS, 0 } };
	int rc;

	memo_reset(); /* emptied at each round */
	rc = each_command_task(task_below_place, &at, who);
	memo_free();

	files_forget(&at.fs);
	files_forget(&at.fsd);
	return rc;
}

/* ---- a command's inotify watch on a covered directory ---------------------
 *
 * An inotify watch follows the inode, not the name: one the command put on
 * a directory before the host moved it to a denied name (the staged
 * ~/.ssh.new of `mv ~/.ssh.new ~/.ssh`) would go on telling it every name
 * the host makes there after the cover. Stopping the run for one would
 * stop every recursive file watcher (tsc --watch, chokidar) that watched a
 * directory the host then made at a denied name in the project, so the
 * watch is taken off instead, as if the directory had been removed: the
 * command reads IN_IGNORED for it. A fanotify mark on the directory (which
 * a user without privilege may put on an inode, with the names of what is
 * made there reported) tells the same and is removed the same way. The
 * watches and marks are read from each task's fdinfo (an inotify or
 * fanotify descriptor lists every one of its group there), and one on the
 * directory or a directory below it is removed through a copy of the
 * descriptor (pidfd_getfd): a watch belongs to the group, which the copy
 * shares. A watch or mark on a file there (not a directory) tells each
 * write and read of the host's and is taken off too (0998). */

#define UNWATCH_MAX 65536 /* the names below a covered directory looked at */

#define UNWATCH_OTHER 16 /* the other filesystems met below one told apart */

/* The fanotify marks on names below a covered directory taken off, at
 * most, in one unwatch_below: each is found by a walk of the whole tree
 * (find_entry), and a command may put 8,192 marks in a group, one per
 * file of a staged directory of thousands, which took the watcher minutes
 * in which it covered nothing else (tests/escape/1007). Past it srt
 * cannot tell, and the run is stopped. */
#define UNWATCH_FINDS 16

/* The names of files with more than one link below a covered directory
 * kept, at most: a file whose every link is a name below it (a key and
 * its backup made by ln, a tree copied with its links by cp -a or rsync
 * -H) has no other name to be read through, and the run goes on; one
 * with a link elsewhere, or past this many, stops it (tests/escape/1009). */
#define UNWATCH_LINKS 4096

struct link_name {
	ino_t ino;
	nlink_t nlink;
};

static int link_cmp(const void *a, const void *b)
{
	const struct link_name *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}


struct unwatch {
	int top;        /* the covered directory */
	dev_t dev;
	unsigned long sdev; /* its superblock's device as fdinfo and maps tell it
			     * (major << 20 | minor): not st_dev on btrfs, where
			     * stat tells each subvolume's own device */
	dev_t other[UNWATCH_OTHER]; /* st_dev of the names met below on another */
	size_t n_other;
	int many_other; /* more of them than that */
	ino_t *ino;    /* the covered directory first, then every name below it */
	size_t n;
	int incomplete; /* more names below than looked at */
	int linked;     /* a file below has a name elsewhere too (a hard link) */
	struct link_name *links; /* files below with more than one link, one
				  * entry per name met */
	size_t n_links;
	int found;      /* a pass met a watch on one of them */
	unsigned finds; /* the walks made for marks on names below (find_entry) */
	struct files_seen fs; /* the table a pass last found without one */
};

static int ino_cmp(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;

	return x < y ? -1 : x > y;
}

/* Where ino is in u's list: 0 the covered directory, more for a name
 * below it (the list past the first is sorted by unwatch_walk, so a
 * command holding many descriptors, mappings or threads costs a search of
 * each, not a pass over every name), -1 not there. */
static long tree_index(const struct unwatch *u, ino_t ino)
{
	const ino_t *hit;

	if (u->ino[0] == ino)
		return 0;
	hit = u->n > 1 ? bsearch(&ino, u->ino + 1, u->n - 1, sizeof(*u->ino), ino_cmp) : NULL;
	return hit ? hit - u->ino : -1;
}

static int in_list(const struct unwatch *u, ino_t ino)
{
	if (tree_index(u, ino) >= 0)
		return 1;
	return u->incomplete ? 2 : 0;
}

static dev_t tree_dev(const struct unwatch *u)
{
	return u->dev;
}

static int in_tree(const struct unwatch *u, dev_t dev, ino_t ino)
{
	if (dev == u->dev)
		return in_list(u, ino);
	if (u->many_other)
		return 2;
	for (size_t i = 0; i < u->n_other; i++)
		if (u->other[i] == dev)
			return 2; /* a subvolume or a mount below: not walked */
	return 0;
}

static int in_tree_sb(const struct unwatch *u, unsigned long sdev, ino_t ino)
{
	return sdev == u->sdev ? in_list(u, ino) : 0;
}

/* The names below at (not consumed), on its filesystem, into u: the
 * directories walked into, the other files noted (a regular file with more
 * than one link marks u->linked). */
static void unwatch_dirs(struct unwatch *u, int at, int depth)
{
	int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		u->incomplete = 1;
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				u->incomplete = 1;
			continue;
		}
		if (st.st_dev != u->dev) {
			/* a btrfs subvolume (which a user may make without
			 * privilege) or a mount: its names are not walked,
			 * and on btrfs their watches tell the same superblock */
			size_t i;

			u->incomplete = 1;
			for (i = 0; i < u->n_other && u->other[i] != st.st_dev; i++)
				;
			if (i == u->n_other) {
				if (u->n_other < UNWATCH_OTHER)
					u->other[u->n_other++] = st.st_dev;
				else
					u->many_other = 1;
			}
			continue;
		}
		if (u->n == UNWATCH_MAX || depth >= 32) {
			u->incomplete = 1;
			break;
		}
		u->ino[u->n++] = st.st_ino;
		if (!S_ISDIR(st.st_mode)) {
			if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
				/* judged once the walk is done (links_outside) */
				if (u->links && u->n_links < UNWATCH_LINKS) {
					u->links[u->n_links].ino = st.st_ino;
					u->links[u->n_links++].nlink = st.st_nlink;
				} else {
					u->linked = 1;
				}
			}
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			u->incomplete = 1;
			continue;
		}
		unwatch_dirs(u, sub, depth + 1);
		close(sub);
	}
	closedir(d);
}

/* The directory below at (at itself or one under it) that holds the name
 * of ino, as unwatch_dirs walked to it, as a new descriptor, with the name
 * in name (NAME_MAX + 1 bytes); -1 when not found. */
static int find_entry(const struct unwatch *u, int at, ino_t ino, int depth, char *name)
{
	int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), found = -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (found < 0 && depth < 32 && (e = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != u->dev)
			continue;
		if (st.st_ino == ino) {
			found = openat(dirfd(d), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			snprintf(name, NAME_MAX + 1, "%s", e->d_name);
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		found = find_entry(u, sub, ino, depth + 1, name);
		close(sub);
	}
	closedir(d);
	return found;
}

/* One pass over a task's descriptors: each inotify watch and fanotify
 * mark on a directory of u is removed (u->found set). 0, or 2 when it cannot tell (a descriptor that
 * cannot be read or copied, a watch on this filesystem that may be below
 * the directory when not every directory there was looked at). */
static int task_unwatch(const char *task, void *arg)
{
	struct unwatch *u = arg;
	const char *slash = strrchr(task, '/');
	char p[PATH_MAX], f[PATH_MAX + 32], line[512], *end;
	struct dirent *e;
	long tid;
	int pfd = -1, seen_pfd, rc = 0, removed = 0;
	DIR *d;

	if (!slash || (tid = strtol(slash + 1, &end, 10)) <= 0 || *end ||
	    (size_t)snprintf(p, sizeof(p), "%s/fdinfo", task) >= sizeof(p))
		return 2;
	/* the table of the task before, which had no watch left (see
	 * struct files_seen) */
	if (files_same(&u->fs, tid))
		return 0;
	files_watch(tid, &seen_pfd);
	d = opendir(p);
	if (!d) {
		if (seen_pfd >= 0)
			close(seen_pfd);
		return errno == ENOENT || errno == ESRCH ? 0 : 2;
	}
	while (!rc && (e = readdir(d))) {
		long n = strtol(e->d_name, &end, 10);
		FILE *info;

		if (e->d_name[0] == '.' || *end || n < 0 || n > INT_MAX)
			continue;
		if ((size_t)snprintf(f, sizeof(f), "%s/%s", p, e->d_name) >= sizeof(f)) {
			rc = 2;
			continue;
		}
		info = fopen(f, "re");
		if (!info) {
			if (errno != ENOENT) /* closed since listed: a later pass sees where it went */
				rc = 2;
			continue;
		}
		while (!rc && fgets(line, sizeof(line), info)) {
			unsigned long ino, sdev;
			unsigned wd = 0, mflags, mask = 0;
			long i;
			int copy, dir;
			char name[NAME_MAX + 1];

			if (sscanf(line, "inotify wd:%x ino:%lx sdev:%lx", &wd, &ino, &sdev) != 3 &&
			    sscanf(line, "fanotify ino:%lx sdev:%lx mflags:%x mask:%x", &ino, &sdev, &mflags,
				   &mask) != 4)
				continue;
			if (sdev != u->sdev)
				continue;
			i = tree_index(u, (ino_t)ino);
			if (i < 0) {
				if (u->incomplete)
					rc = 2;
				continue;
			}
			u->found = 1;
			removed = 1;
			if (pfd < 0)
				pfd = (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);
			if (pfd < 0) {
				rc = errno == ESRCH ? 0 : 2;
				break;
			}
			copy = (int)syscall(SYS_pidfd_getfd, pfd, (int)n, 0);
			if (copy < 0) {
				/* EBADF: moved or closed since listed, which the
				 * next pass tells */
				if (errno != EBADF)
					rc = errno == ESRCH ? 0 : 2;
				break;
			}
			if (!mask) {
				/* EINVAL: gone already (a thread sharing the table) */
				if (inotify_rm_watch(copy, (int)wd) != 0 && errno != EINVAL)
					rc = 2;
			} else {
				/* a fanotify mark is named by an open descriptor
				 * of its inode (not an O_PATH one, which the top
				 * may be): the directory itself, or for a name
				 * below it, found again, its directory and name
				 * (a link there is not followed) */
				name[0] = '\0';
				if (i != 0 && u->finds++ >= UNWATCH_FINDS) {
					close(copy);
					rc = 2;
					break;
				}
				dir = i == 0 ? openat(u->top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
					     : find_entry(u, u->top, (ino_t)ino, 0, name);
				if (dir < 0 || (fanotify_mark(copy, FAN_MARK_REMOVE | (name[0] ? FAN_MARK_DONT_FOLLOW : 0),
							      mask, dir, name[0] ? name : NULL) != 0 &&
						errno != ENOENT))
					rc = 2;
				if (dir >= 0)
					close(dir);
			}
			close(copy);
		}
		fclose(info);
	}
	closedir(d);
	if (pfd >= 0)
		close(pfd);
	/* a table where a watch was taken off is listed again for the next
	 * task sharing it: the removal is seen done there */
	if (!rc && !removed)
		files_clean(&u->fs, tid, seen_pfd);
	else if (seen_pfd >= 0)
		close(seen_pfd);
	return rc;
}

/* The device of dirfd's superblock as fdinfo tells it for a watch (the
 * kernel's own number, major << 20 | minor), learnt from a watch of our
 * own on it: on btrfs stat tells the subvolume's device instead. 0 when
 * it cannot be had (no inotify instance or watch left for us, which the
 * command can bring about): the caller stops the run then, as matching by
 * st's device would miss every watch and mapping on btrfs. */
static unsigned long sb_dev(int dirfd, const struct stat *st)
{
	unsigned long v = 0;
	char self[64], line[512];
	int ifd = inotify_init1(IN_CLOEXEC);
	FILE *info;

	if (ifd < 0)
		return 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dirfd);
	if (inotify_add_watch(ifd, self, IN_DELETE_SELF | IN_ONLYDIR) >= 0) {
		snprintf(self, sizeof(self), "/proc/self/fdinfo/%d", ifd);
		info = fopen(self, "re");
		while (info && fgets(line, sizeof(line), info)) {
			unsigned long ino, sdev;
			unsigned wd;

			if (sscanf(line, "inotify wd:%x ino:%lx sdev:%lx", &wd, &ino, &sdev) == 3 &&
			    ino == (unsigned long)st->st_ino)
				v = sdev;
		}
		if (info)
			fclose(info);
	}
	close(ifd);
	return v;
}

/* After the walk: does a file below have more links than names below
 * (the most links any of its names told, as one may have been removed
 * while walked)? Not when the walk left names out: then u->incomplete
 * already makes every file there one srt cannot tell of. */
static int links_outside(struct unwatch *u)
{
	size_t i, j;

	if (!u->n_links)
		return 0;
	if (u->incomplete)
		return 1;
	qsort(u->links, u->n_links, sizeof(*u->links), link_cmp);
	for (i = 0; i < u->n_links; i = j) {
		nlink_t most = 0;

		for (j = i; j < u->n_links && u->links[j].ino == u->links[i].ino; j++)
			if (u->links[j].nlink > most)
				most = u->links[j].nlink;
		if (most > (nlink_t)(j - i))
			return 1;
	}
	return 0;
}

/* The names below the covered directory dirfd (of st) into u: 0, or -1
 * when there is no memory for them (u->ino is freed by the caller). */
static int unwatch_walk(struct unwatch *u, int dirfd, const struct stat *st)
{
	memset(u, 0, sizeof(*u));
	u->fs.pfd = -1;
	u->fs.kind = KCMP_FILES;
	u->top = dirfd;
	u->dev = st->st_dev;
	u->sdev = sb_dev(dirfd, st);
	if (!u->sdev)
		return -2;
	u->ino = malloc(sizeof(*u->ino) * (UNWATCH_MAX + 1));
	if (!u->ino)
		return -1;
	u->ino[u->n++] = st->st_ino;
	u->links = malloc(sizeof(*u->links) * UNWATCH_LINKS);
	unwatch_dirs(u, dirfd, 0);
	if (links_outside(u))
		u->linked = 1;
	free(u->links);
	u->links = NULL;
	if (u->n > 2)
		qsort(u->ino + 1, u->n - 1, sizeof(*u->ino), ino_cmp);
	return 0;
}

/* Take every command watch and mark off the covered directory and the
 * names below it (u, from unwatch_walk). 0 when none is left; 2 when srt
 * cannot tell (the process in *who), 1 when one keeps coming back (a
 * descriptor moved from number to number while the passes read them). */
static int unwatch_below(struct unwatch *u, long *who)
{
	int pass, rc = 1;

	/* a pass that met a watch removed it: the next must meet none */
	for (pass = 0; pass < 3 && rc == 1; pass++) {
		u->found = 0;
		rc = each_command_task(task_unwatch, u, who);
		files_forget(&u->fs);
		if (!rc && u->found)
			rc = 1;
	}
	return rc;
}

/* ---- mounting a cover -------------------------------------------------- */

static int empty_tmpfs(void)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), m = -1;

	if (fs < 0)
		return -1;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0000", 0) == 0 &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	close(fs);
	return m;
}

/* Cover the dentry fd refers to: C_NULL a read-only /dev/null, C_SELF a
 * read-only bind of itself, C_EMPTY an empty read-only tmpfs. 0 or an
 * errno (ENOENT: the dentry was unlinked or replaced since it was
 * opened). */
static int cover_fd(int fd, int how)
{
	const char *step;
	int tree, target;

	if (how == C_NULL)
		tree = srt__init_copy_dev_null();
	else if (how == C_SELF)
		tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | AT_EMPTY_PATH | O_CLOEXEC);
	else
		tree = empty_tmpfs();
	if (tree < 0)
		return errno;
	target = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (target < 0) {
		int err = errno;
		close(tree);
		return err;
	}
	return srt__init_mount_copy_on(tree, target, &step);
}

/* What covers a denied name: its contents hidden, its kind kept (an empty
 * directory for a directory, /dev/null for anything else) */
static int deny_cover(mode_t mode)
{
	return S_ISDIR(mode) ? C_EMPTY : C_NULL;
}

/* Is name in dfd a mount point here (covered)? */
static int covered(int dfd, const char *name)
{
	struct statx sx;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0)
		return 0;
	return (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* ---- content ----------------------------------------------------------- */

/* The whole content of fd (a regular file), at most SNAP_MAX bytes; NULL
 * when larger or unreadable. */
static char *read_all(int fd, size_t *len)
{
	char *buf = malloc(SNAP_MAX + 1);
	size_t n = 0;

	if (!buf)
		return NULL;
	for (;;) {
		ssize_t r = pread(fd, buf + n, SNAP_MAX + 1 - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > SNAP_MAX) {
			free(buf);
			return NULL;
		}
	}
	*len = n;
	return buf;
}

static int same_content(int fd, const char *s, size_t len)
{
	size_t n = 0;
	char *now = read_all(fd, &n);
	int same = now && n == len && (len == 0 || memcmp(now, s, len) == 0);

	free(now);
	return same;
}

/* Put s back into the inode fd refers to, through fd itself (never a path
 * the command could have changed). 0 or an errno. */
static int restore(int fd, const char *s, size_t len)
{
	char self[64];
	struct stat st;
	int wfd, err = 0, chmodded = 0;
	size_t off = 0;

	if (fstat(fd, &st) != 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EINVAL;
	/* another name for the same inode (a hard link the command made
	 * to some file of its write root): writing would change that
	 * file, not only the protected name */
	if (st.st_nlink != 1)
		return EMLINK;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	wfd = open(self, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (wfd < 0 && errno == EACCES && fchmod(fd, (st.st_mode & 07777) | S_IWUSR) == 0) {
		chmodded = 1;
		wfd = open(self, O_WRONLY | O_TRUNC | O_CLOEXEC);
	}
	if (wfd < 0)
		err = errno;
	while (!err && off < len) {
		ssize_t n = write(wfd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? errno : EIO;
		else
			off += (size_t)n;
	}
	if (wfd >= 0)
		close(wfd);
	if (chmodded)
		fchmod(fd, st.st_mode & 07777);
	return err;
}

/* ---- the event queue ---------------------------------------------------- */

/* Events were lost while the command ran (why): said once, on stderr, so
 * that a run whose watcher fell that far behind says so even when the
 * check of every name that follows finds nothing to undo (what it does
 * find is reported by name). */
static void say_lost(struct watcher *w, const char *why)
{
	if (w->lost_said)
		return;
	w->lost_said = 1;
	srt__init_say("srt: the watcher of replaced files lost events (%s); it checked every protected "
		      "name again by its content and listed the watched directories again", why);
}

/* Read what inotify has now (never blocks). */
static void read_events(struct watcher *w)
{
	for (;;) {
		ssize_t n;

		if (w->qpos > 0 && w->qpos == w->qlen)
			w->qpos = w->qlen = 0;
		if (w->qcap - w->qlen < 65536) {
			size_t nc = w->qcap ? w->qcap * 2 : 262144;
			char *nq;

			if (w->qpos > 0) { /* events are 16-byte multiples: alignment kept */
				memmove(w->q, w->q + w->qpos, w->qlen - w->qpos);
				w->qlen -= w->qpos;
				w->qpos = 0;
				continue;
			}
			if (nc > QUEUE_MAX || !(nq = realloc(w->q, nc))) {
				/* as if the kernel's queue overflowed */
				w->overflow = 1;
				say_lost(w, "more came than it keeps read ahead");
				return;
			}
			w->q = nq;
			w->qcap = nc;
		}
		n = read(w->ifd, w->q + w->qlen, w->qcap - w->qlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		w->qlen += (size_t)n;
	}
}

static const struct inotify_event *event_at(const struct watcher *w, size_t off)
{
	return (const struct inotify_event *)(const void *)(w->q + off);
}

static size_t event_size(const struct inotify_event *ev)
{
	return sizeof(*ev) + ev->len;
}

/* The events queued after from, up to the sentinel mark the caller queued
 * (the first one at or after mark: the marks of earlier arrivals, queued
 * while the watcher was behind, come before it and end nothing), for name
 * in the directory watched by wd, and for the inodes watched by the n_iwd
 * watches iwd (-1: none). A lost event (the kernel's queue overflowed)
 * counts as every event. */
static unsigned window_mask(const struct watcher *w, size_t from, size_t mark, int wd, const char *name,
			    const int *iwd, size_t n_iwd)
{
	unsigned m = w->overflow ? IN_Q_OVERFLOW : 0;
	size_t off, i;

	for (off = from; off + sizeof(struct inotify_event) <= w->qlen;) {
		const struct inotify_event *ev = event_at(w, off);

		if (ev->wd == w->sentinel_wd && off >= mark)
			break;
		if ((ev->wd == wd && ev->len && !strcmp(ev->name, name)) || (ev->mask & IN_Q_OVERFLOW))
			m |= ev->mask;
		for (i = 0; i < n_iwd; i++)
			if (iwd[i] >= 0 && ev->wd == iwd[i])
				m |= ev->mask;
		off += event_size(ev);
	}
	return m;
}

/* ---- directories and names --------------------------------------------- */

static size_t dir_slot(const struct watcher *w, int wd)
{
	size_t h = ((unsigned)wd * 2654435761u) & (DIR_HASH - 1);

	while (w->dir_hash[h] && w->dirs[w->dir_hash[h] - 1].wd != wd)
		h = (h + 1) & (DIR_HASH - 1);
	return h;
}

/* Every event names its directory by wd: a table, not a walk of every
 * watched directory per event (tens of thousands in a large tree). */
static long find_dir_wd(const struct watcher *w, int wd)
{
	size_t h = dir_slot(w, wd);

	return w->dir_hash[h] ? (long)w->dir_hash[h] - 1 : -1;
}

static long find_name(const struct watcher *w, size_t dir, const char *name)
{
	size_t i;

	for (i = 0; i < w->n_names; i++)
		if (w->names[i].dir == dir && !strcmp(w->names[i].name, name))
			return (long)i;
	return -1;
}

static long find_inode_wd(const struct watcher *w, int wd)
{
	size_t i;

	for (i = 0; i < w->n_names; i++)
		if (w->names[i].iwd == wd)
			return (long)i;
	return -1;
}

/* A bound is reached. A name srt cannot watch could be one it must
 * cover, so during the run (the command made that many directories or
 * matching names) the run stops, and at the start (a tree that large in
 * the write roots) the run is refused, unless the user accepted the
 * weaker protection (filesystem.enableWeakerNameProtection): then srt
 * says so once and runs on with what it watches. */
static void say_full(struct watcher *w, const char *what, size_t max)
{
	if (w->running) {
		char why[200];

		snprintf(why, sizeof(why), "srt cannot watch more than %zu %s, and a new protected name "
			 "there could not be covered", max, what);
		stop_run(w, "watcher", NULL, why);
	}
	if (w->full_said)
		return;
	w->full_said = 1;
	if (!w->o->watch_weaker) {
		w->setup_full = 1;
		srt__init_failf("srt-linux-init: the write roots hold more than %zu %s within the "
				"watched depth, the most srt can watch here, so a protected name the "
				"host replaces there could not be covered again; lower "
				"mandatoryDenySearchDepth, raise the limit, or set "
				"filesystem.enableWeakerNameProtection to run with what it watches",
				max, what);
		return;
	}
	srt__init_say("srt: watching %zu %s, the most srt takes; new protected names beyond them "
		      "are not covered during this run (filesystem.enableWeakerNameProtection)", max, what);
}

/* An open of a directory to watch failed with err: out of descriptors is
 * a bound like the others (the directory would go unwatched); a name gone
 * or not a directory any more is nothing to watch. */
static void open_failed(struct watcher *w, int err)
{
	if (err == EMFILE || err == ENFILE || err == ENOMEM)
		say_full(w, "directories (the open-file limit, ulimit -n)", w->n_dirs);
}

/* Watch the directory fd (O_PATH, consumed) at path. Index, or -1. */
static long add_dir_fd(struct watcher *w, int fd, const char *path, int depth, int globbed)
{
	char self[64];
	struct stat st;
	long k;
	int wd, unread = 0;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(w->ifd, self, DIR_MASK);
	if (wd < 0) {
		int err = errno;

		if (err == EACCES && fstat(fd, &st) == 0 && !(st.st_mode & S_IRUSR) &&
		    (st.st_mode & S_IWUSR) && (st.st_mode & S_IXUSR))
			err = EPERM; /* unreadable, yet its owner can create names in it */
		unread = err == EPERM;
		close(fd);
		if (err == ENOSPC)
			say_full(w, "directories (fs.inotify.max_user_watches)", w->n_dirs);
		else if ((w->running || unread) && err != ENOENT && err != EACCES) {
			/* a directory made during the run that cannot be
			 * watched could hold a protected name later: fail
			 * closed. (One its mode closes to its owner (mode
			 * 0) holds nothing new until its mode changes, which
			 * its parent's watch reports: it is watched then. One
			 * its owner can write and search but not read (0300)
			 * takes new names unseen: it stops the run too.) */
			char why[160];

			if (unread)
				snprintf(why, sizeof(why), "a directory %s can be written but not read (mode "
					 "%04o), so srt cannot watch it%s", w->running ? "made during the run" :
					 "in a write root", (unsigned)(st.st_mode & 07777),
					 w->running ? "" : " (chmod u+r it)");
			else
				snprintf(why, sizeof(why), "a directory made during the run cannot be watched (%s)",
					 strerror(err));
			stop_run(w, path, NULL, why);
		}
		return -1;
	}
	k = find_dir_wd(w, wd);
	if (k >= 0) { /* the same directory under another name */
		close(fd);
		if (depth >= 0 && (w->dirs[k].depth < 0 || depth < w->dirs[k].depth))
			w->dirs[k].depth = depth;
		w->dirs[k].globbed |= globbed;
		return k;
	}
	if (w->n_dirs >= w->dir_cap) {
		inotify_rm_watch(w->ifd, wd);
		close(fd);
		say_full(w, w->dir_cap < MAX_DIRS ? "directories (the open-file limit, ulimit -n)" :
			 "directories", w->dir_cap);
		return -1;
	}
	memset(&w->dirs[w->n_dirs], 0, sizeof(w->dirs[0]));
	w->dirs[w->n_dirs].wd = wd;
	w->dirs[w->n_dirs].fd = fd;
	w->dirs[w->n_dirs].path = strdup(path);
	w->dirs[w->n_dirs].depth = depth;
	w->dirs[w->n_dirs].globbed = globbed;
	if (!w->dirs[w->n_dirs].path) {
		inotify_rm_watch(w->ifd, wd);
		close(fd);
		return -1;
	}
	w->dir_hash[dir_slot(w, wd)] = (int)w->n_dirs + 1;
	return (long)w->n_dirs++;
}

static long add_dir_path(struct watcher *w, const char *path, int depth, int globbed)
{
	int fd = srt__init_open_nofollow(path);
	struct stat st;

	if (fd < 0) {
		open_failed(w, errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -1;
	}
	return add_dir_fd(w, fd, path, depth, globbed);
}

static long add_name(struct watcher *w, size_t dir, const char *name, int kind)
{
	long k = find_name(w, dir, name);

	if (k >= 0) {
		if (kind == W_DENY)
			w->names[k].kind = W_DENY; /* a deny wins */
		return k;
	}
	if (w->n_names >= MAX_NAMES) {
		say_full(w, "names", MAX_NAMES);
		return -1;
	}
	w->names[w->n_names] = (struct wname){ dir, strdup(name), kind, 0, -1, -1, NULL, 0, 0, 0, 0, NULL, NULL,
					       strdup(w->dirs[dir].path) };
	if (!w->names[w->n_names].name || !w->names[w->n_names].at) {
		free(w->names[w->n_names].name);
		free(w->names[w->n_names].at);
		return -1;
	}
	return (long)w->n_names++;
}

/* A covered path: its directory watched, its name tracked, and for a
 * write-protected file the content the host has now. */
static int track_path(struct watcher *w, const char *path, int kind)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	long d, k;
	struct wname *nm;
	int fd;

	if (!slash || slash[1] == '\0' || (size_t)(slash - path) >= sizeof(dir))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	d = add_dir_path(w, dir[0] ? dir : "/", -1, 0);
	if (d < 0)
		return 0; /* no directory: nothing can arrive in it */
	k = add_name(w, (size_t)d, slash + 1, kind);
	if (k < 0)
		return 0;
	nm = &w->names[k];
	if (kind == W_DENY) {
		/* the directory above too: a host that replaces this one
		 * (mv ~/.config ~/.config.bak, then a new ~/.config/gh) takes
		 * the watch along with it, and parent_arrived watches the new
		 * one (what lies higher up is not followed) */
		const char *up = strrchr(dir, '/');

		if (up && up != dir && (size_t)(up - dir) < sizeof(dir)) {
			char gp[PATH_MAX];

			snprintf(gp, sizeof(gp), "%.*s", (int)(up - dir), dir);
			add_dir_path(w, gp, -1, 0);
		}
	}
	if (kind != W_KEEP || nm->have_snap)
		return 0;
	fd = openat(w->dirs[d].fd, nm->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			nm->snap = read_all(fd, &nm->snap_len);
		else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			nm->is_dir = 1;
		nm->have_snap = nm->snap != NULL;
		close(fd);
	} else if (errno == EACCES || errno == ENOENT || errno == ENXIO) {
		/* a placeholder srt made (covered with /dev/null): the host
		 * had no such file, so an empty one is what to put back */
		nm->snap = calloc(1, 1);
		nm->snap_len = 0;
		nm->have_snap = nm->snap != NULL;
	}
	return 0;
}

/* ---- arrivals ------------------------------------------------------------ */

static long fresh_find_iwd(const struct watcher *w, int wd);

/* An inode watch on the file fd refers to, for writes by any name
 * (INODE_MASK), or -1. A watch srt already had on the inode (a file made
 * during the run, counted while it had its temporary name) becomes this
 * one: the count is over once the file is at the protected name. */
static int inode_watch(struct watcher *w, int fd)
{
	char self[64];
	long f;
	int wd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(w->ifd, self, INODE_MASK | IN_MASK_ADD);
	if (wd < 0)
		return -1;
	if (find_dir_wd(w, wd) >= 0)
		return -1; /* never: a file is not a watched directory */
	f = fresh_find_iwd(w, wd);
	if (f >= 0) {
		w->fresh[f].iwd = -1;
		w->fresh[f].used = 0;
		if (w->mv_fresh == f)
			w->mv_fresh = -1;
	}
	return inotify_add_watch(w->ifd, self, INODE_MASK); /* the same wd, this mask only */
}

/* nm now covers the inode fd refers to (kept), watched by iwd (or -1),
 * replacing what was watched. */
static void watch_inode(struct watcher *w, struct wname *nm, int fd, int iwd)
{
	if (nm->iwd >= 0 && nm->iwd != iwd)
		inotify_rm_watch(w->ifd, nm->iwd);
	if (nm->fd >= 0)
		close(nm->fd);
	nm->fd = fd;
	nm->iwd = iwd;
}

/* Does some process have the file fd refers to open for writing now
 * (1), or not (0)? A read lease is granted only on a file nobody has
 * open for writing (a writable shared mapping holds it open too), and the
 * kernel queues the events of a write (IN_MODIFY) and of its close
 * (IN_CLOSE_WRITE) before that open ends: so when the probe says 0, every
 * write ever made to the file is finished and its events are queued. -1:
 * the kernel refused the lease (not the file's owner, or leases are
 * disabled): srt cannot tell. The lease is let go at once; a writer
 * opening the file in between waits for that.
 *
 * Such a writer also makes the kernel signal the lease's holder, with
 * SIGIO whatever was asked (F_SETSIG only changes the signal), and
 * SIGIO's default action ends the process: the command could end the
 * watcher by opening a replaced file for writing while srt covers it
 * (an open that found the name before the cover). So SIGIO is ignored
 * from the first probe on, in the whole calling process (an ignored
 * signal is dropped when sent, never left pending). */
int srt__watch_open_for_write(int fd)
{
	struct sigaction ign;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	if (sigaction(SIGIO, &ign, NULL) != 0)
		return -1;
	if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0)
		return errno == EAGAIN ? 1 : -1;
	return fcntl(fd, F_SETLEASE, F_UNLCK) == 0 ? 0 : -1;
}

/* Cover what is at nm now (see arrival): fd (O_RDONLY, or O_PATH for a
 * denied name) of the inode covered, its stat, for a write-protected
 * file its content read before the cover (*s) and inode watches added
 * before that read (iwd, *n_iwd: one per inode tried, the last one the
 * covered inode's). -1: nothing there any more. Stops the run when it
 * cannot cover. */
static int cover_now(struct watcher *w, struct wname *nm, struct stat *st, char **s, size_t *slen,
		     int *iwd, size_t *n_iwd)
{
	struct wdir *d = &w->dirs[nm->dir];
	int fd = -1, err = 0, tries, how;
	char why[160];

	*n_iwd = 0;
	for (tries = 0; tries < COVER_TRIES; tries++) {
		/* a denied file is not opened for reading (which inotify would
		 * report as an open in the window): O_PATH is enough to cover */
		fd = nm->kind == W_DENY ? -1 :
		     openat(d->fd, nm->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 && nm->kind != W_DENY && errno == ENOENT)
			return -1; /* gone again: nothing at the name */
		if (fd < 0)
			fd = openat(d->fd, nm->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			if (err == ENOENT)
				return -1;
			break;
		}
		if (fstat(fd, st) != 0) {
			err = errno;
			break;
		}
		if (nm->kind == W_DENY)
			how = deny_cover(st->st_mode);
		else
			how = S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) ? C_SELF : C_NULL;
		if (nm->kind == W_KEEP && S_ISREG(st->st_mode)) {
			/* before the read: a write by another name from now
			 * on is queued */
			iwd[(*n_iwd)++] = inode_watch(w, fd);
			*s = read_all(fd, slen);
		}
		err = cover_fd(fd, how);
		if (!err)
			return fd;
		close(fd);
		fd = -1;
		free(*s);
		*s = NULL;
		if (err != ENOENT)
			break;
		/* replaced again between our open and the cover: the newer
		 * file is covered next, and judged at its own event */
	}
	snprintf(why, sizeof(why), "replaced on the host during the run, and srt could not cover it "
		 "again (%s)", strerror(err ? err : EAGAIN));
	stop_run(w, d->path, nm->name, why);
}

/* nm is covered, pending a newer file's event (see arrival): the covered
 * inode, as cover_now gives it. -1: not so (an event from before the
 * last cover: nothing to do). */
static int cover_pending(struct watcher *w, struct wname *nm, struct stat *st, char **s, size_t *slen,
			 int *iwd, size_t *n_iwd)
{
	struct stat at;
	int fd;

	if (!nm->pending || nm->fd < 0 || fstatat(w->dirs[nm->dir].fd, nm->name, &at, AT_SYMLINK_NOFOLLOW) != 0 ||
	    fstat(nm->fd, st) != 0 || at.st_dev != st->st_dev || at.st_ino != st->st_ino)
		return -1;
	fd = fcntl(nm->fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -1;
	*s = read_all(fd, slen);
	iwd[0] = nm->iwd;
	*n_iwd = 1;
	return fd;
}

/* ---- covers ahead of their events, during a scan ------------------------
 *
 * While the watcher looks at what the command holds below a directory the
 * host put at a denied name (held_below, unwatch_below: every task and
 * every descriptor, round after round), it handles no other event. A
 * command holding thousands of descriptors makes that take a second or
 * more (tests/escape/1008), and a denied name the host replaced meanwhile
 * (`aws configure` beside `mv ~/.ssh.new ~/.ssh`) stayed uncovered all
 * that time, its new names seen by stat. So while such a scan runs, a
 * thread of the watcher (ahead_main) waits on the queue, and a denied name
 * that arrived (created or moved there) and is not covered is covered as
 * soon as its event comes, and the inode is kept in the list of covers
 * taken ahead. The thread waits in poll(2) rather than the scan looking at
 * the queue between its steps: a scan is all CPU, and on a loaded machine
 * the scheduler leaves it off the CPU for tens of milliseconds at a time,
 * while a thread woken by an event runs at once (the sanitizer pass of
 * CI saw the host's new ~/.aws names with the queue read between steps,
 * tests/escape/1007). The scan and the thread take turns on the queue
 * through ahead_lock: the scan touches no event while it runs, the thread
 * touches none outside a scan. Its event is judged when its turn comes
 * (arrival), on that inode: the window of its events and the places below
 * it are looked at as they would have been, only the cover came sooner.
 * Each event is looked at once in a scan (an event read and passed over
 * stays so: a cover taken off by a newer replacement comes with a newer
 * event). The queue read so is bounded as every read of it is
 * (QUEUE_MAX): past that, the rest waits in the kernel's queue for the
 * scan to end.
 *
 * A cover stays on the directory it covers, not on the name: the host may
 * rename that directory (with its cover) onto another denied name, or put
 * a newer one at the name, before the name's turn comes. So every
 * directory covered ahead is looked at for what the command holds below
 * it at its name's turn, wherever it is by then (deny_dir_check), not
 * only the one still at the name: a cover that moved with its directory
 * makes the name it reaches look covered already, and no other turn
 * would look below it. Past AHEAD_MAX covers not yet judged, a name waits
 * for its turn as before the covers ahead. */
#define AHEAD_MAX 64

static struct ahead {
	int fd;      /* O_PATH of the inode covered */
	size_t name; /* the name it was at (w->names) */
} ahead[AHEAD_MAX];
static size_t n_ahead;

static pthread_mutex_t ahead_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ahead_wake = PTHREAD_COND_INITIALIZER;
static struct watcher *scanning; /* the watcher, while a scan runs (ahead_lock) */
static size_t ahead_rel;         /* the events looked at so far, from qpos */

/* How long the thread waits for the queue before it looks whether the
 * scan ended, and how long it rests when the queue is full (the kernel's
 * queue stays readable then, and the rest waits for the scan's end). */
#define AHEAD_WAIT_MS 100
#define AHEAD_FULL_MS 2

static void cover_ahead(struct watcher *w, struct wname *nm)
{
	struct stat st;
	int fd;

	if (n_ahead == AHEAD_MAX)
		return; /* covered in its turn */
	fd = openat(w->dirs[nm->dir].fd, nm->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return; /* gone again: its event says so in its turn */
	if (fstat(fd, &st) != 0 || cover_fd(fd, deny_cover(st.st_mode)) != 0) {
		close(fd); /* covered in its turn, or the run stopped then */
		return;
	}
	ahead[n_ahead].fd = fd;
	ahead[n_ahead].name = (size_t)(nm - w->names);
	n_ahead++;
	if (w->o->debug)
		srt__init_say("srt-linux-init: (debug) watcher: %s/%s covered ahead of its turn, during a scan",
			      w->dirs[nm->dir].path, nm->name);
}

/* Has nm covers taken ahead, not judged yet? */
static int ahead_of(const struct watcher *w, const struct wname *nm)
{
	size_t i;

	for (i = 0; i < n_ahead; i++)
		if (ahead[i].name == (size_t)(nm - w->names))
			return 1;
	return 0;
}

static void covers_ahead(struct watcher *w)
{
	size_t off;

	read_events(w);
	/* after the read, which may move the queue to its start */
	off = w->qpos + ahead_rel;
	while (off + sizeof(struct inotify_event) <= w->qlen) {
		const struct inotify_event *ev = event_at(w, off);
		size_t next = off + event_size(ev);
		char name[NAME_MAX + 1];
		long k, n;

		if (next > w->qlen)
			break;
		off = next;
		ahead_rel = off - w->qpos;
		if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)) || !ev->len || (k = find_dir_wd(w, ev->wd)) < 0)
			continue;
		snprintf(name, sizeof(name), "%s", ev->name);
		n = find_name(w, (size_t)k, name);
		if (n >= 0 && w->names[n].kind == W_DENY && !w->names[n].prot && !covered(w->dirs[k].fd, name))
			cover_ahead(w, &w->names[n]);
	}
}

/* The thread that covers denied names during a scan: asleep on
 * ahead_wake outside one, in poll(2) on the queue during one. */
static void *ahead_main(void *arg)
{
	static const struct timespec rest = { 0, AHEAD_FULL_MS * 1000000L };
	struct watcher *w = arg;

	for (;;) {
		struct pollfd p = { -1, POLLIN, 0 };
		int full;

		pthread_mutex_lock(&ahead_lock);
		while (!scanning)
			pthread_cond_wait(&ahead_wake, &ahead_lock);
		/* read under the lock: the thread starts before setup opens
		 * the queue */
		p.fd = w->ifd;
		covers_ahead(w);
		full = w->overflow;
		pthread_mutex_unlock(&ahead_lock);
		if (!full && (poll(&p, 1, AHEAD_WAIT_MS) >= 0 || errno == EINTR))
			continue;
		/* the kernel's queue stays readable while ours is full, and
		 * what poll refused read_events tells: a rest, not a spin */
		nanosleep(&rest, NULL);
	}
	return NULL;
}

/* The thread started, with every signal blocked in it (they are the
 * main thread's to take): 0, or an errno value. */
static int ahead_start(struct watcher *w)
{
	sigset_t all, old;
	pthread_t t;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, ahead_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err)
		pthread_detach(t);
	return err;
}

/* A scan begins (w) or ends (NULL): the thread reads the queue only
 * between the two. */
static void ahead_scanning(struct watcher *w)
{
	pthread_mutex_lock(&ahead_lock);
	scanning = w;
	ahead_rel = 0;
	pthread_cond_signal(&ahead_wake);
	pthread_mutex_unlock(&ahead_lock);
}

/* The covers covers_ahead took at nm ahead of this event, out of the
 * list: the newest one's inode, with its stat, while the name is covered
 * (-1 otherwise: the host replaced the name again since, or moved the
 * directory on with its cover; what is at the name now is covered anew),
 * the others in older[] (*n_older). A mount at the name may be another
 * directory's cover that moved there with it: then this inode is judged
 * in place of the one there, which is judged at its own name's turn, so
 * every inode covered ahead is looked at below once all the same. */
static int ahead_taken(struct watcher *w, struct wname *nm, struct stat *st, int *older, size_t *n_older)
{
	size_t i, o = 0, k = (size_t)(nm - w->names);
	int fd = -1;

	*n_older = 0;
	for (i = 0; i < n_ahead; i++) {
		if (ahead[i].name != k) {
			ahead[o++] = ahead[i];
			continue;
		}
		if (fd >= 0)
			older[(*n_older)++] = fd;
		fd = ahead[i].fd;
	}
	n_ahead = o;
	if (fd >= 0 && (!covered(w->dirs[nm->dir].fd, nm->name) || fstat(fd, st) != 0)) {
		older[(*n_older)++] = fd;
		fd = -1;
	}
	return fd;
}

/* A directory the host put at the denied name nm (fd, st), there still or
 * moved on since with its cover: is a process of the command already below
 * it, or watching it? Stops the run if so, or if that cannot be told. */
static void deny_dir_check(struct watcher *w, struct wname *nm, int fd, const struct stat *st)
{
	struct wdir *d = &w->dirs[nm->dir];
	long who = 0;
	struct unwatch u;
	int held, watched = 0;
	char why[320];
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ahead_scanning(w); /* other denied names covered meanwhile */

	/* the places below it first, as soon as can be (a process there
	 * sees each name the host makes); then every name below it, which
	 * the command may have made many of in the staged directory, for
	 * the files held there and the watches on them */
	held = held_below(st->st_dev, st->st_ino, NULL, &who);
	if (!held) {
		int walked = unwatch_walk(&u, fd, st);

		if (walked == -2)
			stop_run_for(w, "read", d->path, nm->name,
				     "replaced on the host during the run, and srt could not learn "
				     "its filesystem's device (no inotify instance or watch left "
				     "for the watcher) to look at what the command holds there");
		if (walked != 0)
			stop_run_for(w, "read", d->path, nm->name,
				     "replaced on the host during the run, and srt has no memory "
				     "to look at what the command holds there");
		held = held_below(st->st_dev, st->st_ino, &u, &who);
		/* a file there with another name the command may have made
		 * (or reach): what the host writes into it now is read
		 * through that name */
		if (!held && u.linked) {
			free(u.ino);
			stop_run_for(w, "read", d->path, nm->name,
				     "replaced on the host during the run by a directory holding a "
				     "file with another name (a hard link), through which the "
				     "command would read what the host writes there");
		}
		if (!held) {
			held = unwatch_below(&u, &who);
			watched = 1;
		}
		free(u.ino);
	}
	ahead_scanning(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (w->o->debug)
		srt__init_say("srt-linux-init: (debug) watcher: %s/%s covered again; what the command "
			      "holds below it looked at in %.0f ms", d->path, nm->name,
			      (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	if (held == 1)
		snprintf(why, sizeof(why), "replaced on the host during the run by a directory "
			 "that process %ld %s before srt covered it again (%s)", who,
			 watched ? "watched" : "had entered or opened",
			 watched ? "its inotify or fanotify watch kept coming back"
				 : "a cover does not reach below it, nor a file of it held open or "
				   "mapped");
	else if (held == 2)
		snprintf(why, sizeof(why), "replaced on the host during the run, and srt cannot "
			 "tell whether a process of the command is inside%s the new directory "
			 "(process %ld: %s)",
			 watched ? " or watches" : "", who,
			 unknown_why ? unknown_why
				     : "what it holds in /proc cannot be read, where it stands cannot "
				       "be followed up to the root, or the directory holds more than "
				       "srt looks at");
	if (held)
		stop_run_for(w, "read", d->path, nm->name, why);
}

/* The directories covered ahead at nm that are no longer the one there
 * (moved on with their covers, or replaced): each looked at for what the
 * command holds below it, as the one at the name is */
static void older_checked(struct watcher *w, struct wname *nm, int *older, size_t n_older)
{
	struct stat st;
	size_t i;

	for (i = 0; i < n_older; i++) {
		if (fstat(older[i], &st) == 0 && S_ISDIR(st.st_mode))
			deny_dir_check(w, nm, older[i], &st);
		close(older[i]);
	}
}

/* A file appeared at nm (replaced by rename, or created): cover it again
 * at once, then check the window (see watch.h). from: the offset of the
 * events after the one that told of it. suspect: the window is already
 * known to be unsafe (an overflow hid it). renamed: it arrived by a rename
 * (which opens nothing), so an open in the window was someone reading it;
 * a file created in place is opened by its creator, which inotify does
 * not tell from another reader. fd: the inode already covered at nm
 * ahead of this turn (ahead_st its stat), or -1.
 *
 * A write-protected file is accepted as the host's only on evidence that
 * holds however slow the watcher is: its inode is watched before srt
 * reads it, the cover is mounted, and then nobody may have it open for
 * writing (srt__watch_open_for_write) and no write, close after writing, or
 * removal of it may be queued between the event that told of it and the
 * mark srt queues after that probe. Every write to the file since the
 * rename has then left an event in that stretch of the queue (by its
 * name, or by any name once the inode watch is in place), and none can
 * come later but through a descriptor or a hard link taken before the
 * cover, which the inode watch reports (inode_written).
 *
 * When a newer file took the name before srt covered it (a host tool
 * that replaces the file twice in a row), what is covered is that newer
 * file, and it is judged at its own event, with the evidence about its
 * temporary file that srt gathers up to then; what the stretch showed of
 * the older file goes with it (the host tool may have read the older file
 * to write the newer one), and until then nothing is taken or put back. */
static void judge_arrival(struct watcher *w, struct wname *nm, size_t from, int suspect, int renamed,
			  int fd, const struct stat *ahead_st)
{
	struct wdir *d = &w->dirs[nm->dir];
	char *s = NULL;
	size_t slen = 0, n_iwd = 0, i;
	struct stat st;
	int busy = 0, iwd[COVER_TRIES], last;
	unsigned seen;
	size_t mark;

	if (fd >= 0)
		st = *ahead_st;
	else if (covered(d->fd, nm->name))
		fd = cover_pending(w, nm, &st, &s, &slen, iwd, &n_iwd);
	else
		fd = cover_now(w, nm, &st, &s, &slen, iwd, &n_iwd);
	if (fd < 0)
		return;
	last = n_iwd ? iwd[n_iwd - 1] : -1;
	/* after the cover, nobody can open it for writing by its name: is
	 * someone still holding it so? */
	if (nm->kind == W_KEEP && S_ISREG(st.st_mode))
		busy = srt__watch_open_for_write(fd);
	/* a mark in the queue: what inotify reports before it happened
	 * before the cover and the probe. Everything queued so far is read
	 * first, so the mark is the first one past what is read now (the
	 * kernel merges an event only into the one queued just before it,
	 * which then is a newer one, never a mark of an earlier arrival). */
	{
		/* reading compacts the queue by qpos: offsets kept relative to it */
		size_t rel = from - w->qpos, mrel;

		read_events(w);
		mrel = w->qlen - w->qpos;
		if (pwrite(w->sentinel, "", 1, 0) != 1)
			stop_run(w, d->path, nm->name, "the watcher could not mark its event queue");
		read_events(w); /* everything that happened before the cover */
		from = w->qpos + rel;
		mark = w->qpos + mrel;
	}
	seen = window_mask(w, from, mark, d->wd, nm->name, iwd, n_iwd);
	for (i = 0; i + 1 < n_iwd; i++) /* the inodes that were replaced again */
		if (iwd[i] >= 0 && iwd[i] != last && iwd[i] != nm->iwd)
			inotify_rm_watch(w->ifd, iwd[i]);
	if (nm->kind == W_DENY) {
		if (renamed && (seen & IN_OPEN))
			violation(w, "read", d->path, nm->name,
				  "replaced on the host during the run and opened before srt covered it again "
				  "(by the command or by the host)");
		if (S_ISDIR(st.st_mode))
			deny_dir_check(w, nm, fd, &st);
		close(fd);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			nm->is_dir = 1;
		if (S_ISDIR(st.st_mode) && w->want_dir_fd) {
			/* the caller moves aside what was made in it: through
			 * this descriptor, below the cover, never through the
			 * read-only name */
			w->dir_fd = fd;
			return;
		}
		if (srt__watch_window_write(seen) || suspect)
			violation(w, "write", d->path, nm->name,
				  "replaced during the run by something that is not a file, and changed before "
				  "srt covered it again: inspect it");
		close(fd);
		return;
	}
	if (srt__watch_window_write(seen & ~(unsigned)(IN_CREATE | IN_MOVED_TO)) || !s ||
	    !same_content(fd, s, slen))
		suspect = 1;
	if (busy && !w->written)
		w->written = busy > 0 ? "a process had it open for writing when srt covered it again" :
			     "srt could not check whether a process had it open for writing (the kernel "
			     "refused a lease on it)";
	/* a file the host renamed here that someone else opened before (see
	 * fresh_written), or that has another name to write it through */
	if (!w->written && (st.st_nlink > 1 || (fstat(fd, &st) == 0 && st.st_nlink > 1)))
		w->written = "the file at the name has another name (a hard link), through which it can "
			     "be written";
	if (last < 0 && !w->written)
		w->written = "srt could not watch the file for writes by other names";
	if (w->written)
		suspect = 1;
	if ((seen & (IN_CREATE | IN_MOVED_TO)) || (fstat(fd, &st) == 0 && st.st_nlink == 0)) {
		/* a newer file took the name after this event (it is the one
		 * covered now), or after srt's mark (its event is still to
		 * come): judged at its own */
		if (suspect && !nm->taint)
			nm->taint = w->written ? w->written : "changed before srt covered it again";
		nm->pending = 1;
		free(s);
		watch_inode(w, nm, fd, last);
		return;
	}
	nm->pending = 0;
	if (nm->taint) {
		if (!w->written)
			w->written = nm->taint;
		nm->taint = NULL;
		suspect = 1;
	}
	/* nothing to undo when what is there is what srt last accepted */
	if (suspect && nm->have_snap && same_content(fd, nm->snap, nm->snap_len)) {
		free(s);
		watch_inode(w, nm, fd, last);
		return;
	}
	if (w->o->debug)
		srt__init_say("srt-linux-init: (debug) watcher: %s/%s covered again (events in the window "
			      "0x%x, %s)", d->path, nm->name, seen, suspect ? "changed" : "unchanged");
	if (suspect) {
		char why[600];
		int rerr = nm->have_snap ? restore(fd, nm->snap, nm->snap_len) : ENODATA;

		char whyw[400];

		snprintf(whyw, sizeof(whyw), "replaced on the host during the run, and %s",
			 w->written ? w->written : "changed before srt covered it again");
		if (rerr) {
			snprintf(why, sizeof(why), "%s; srt could not put back the host's content (%s): "
				 "inspect it", whyw, rerr == ENODATA ? "it had none kept" :
				 rerr == EMLINK ? "the file has other names" : strerror(rerr));
			free(s);
			close(fd);
			stop_run(w, d->path, nm->name, why);
		}
		snprintf(why, sizeof(why), "%s; srt put back the content it last saw from the host", whyw);
		violation(w, "write", d->path, nm->name, why);
		free(s);
	} else {
		free(nm->snap);
		nm->snap = s;
		nm->snap_len = slen;
		nm->have_snap = 1;
	}
	watch_inode(w, nm, fd, last);
}

/* See judge_arrival; first the covers taken ahead at nm (covers_ahead):
 * the newest one's inode, still covered at the name, is the one judged,
 * and the directories covered before it are looked at after. */
static void arrival(struct watcher *w, struct wname *nm, size_t from, int suspect, int renamed)
{
	int older[AHEAD_MAX], fd;
	size_t n_older;
	struct stat st;

	fd = ahead_taken(w, nm, &st, older, &n_older);
	judge_arrival(w, nm, from, suspect, renamed, fd, &st);
	older_checked(w, nm, older, n_older);
}

/* A write reached an inode srt covered again during the run: only a
 * descriptor or a link taken before that cover can do it. */
static void inode_written(struct watcher *w, struct wname *nm)
{
	struct wdir *d = &w->dirs[nm->dir];

	if (nm->fd < 0 || nm->pending || !nm->have_snap || same_content(nm->fd, nm->snap, nm->snap_len))
		return; /* pending: judged at the newer file's event, still queued */
	if (restore(nm->fd, nm->snap, nm->snap_len) != 0)
		stop_run(w, d->path, nm->name, "written through a descriptor or link taken before srt "
			 "covered it again, and srt could not put back the host's content: inspect it");
	stop_run(w, d->path, nm->name, "written through a descriptor or link taken before srt covered "
		 "it again; srt put back the content it last saw from the host");
}

/* ---- protected names made during the run ------------------------------- */

/* "<reason>: ... (filesystem.allowProtectedNames: ["<name>"] releases it)" */
static void say_moved(struct watcher *w, const char *dir, const char *name,
		      const struct srt__protected *e, const char *what)
{
	char why[700];

	snprintf(why, sizeof(why), "protected name (%s): %s (filesystem.allowProtectedNames: [\"%s\"] "
		 "releases it)", e->reason, what, e->name);
	violation(w, "write", dir, name, why);
}

/* A protected file name appeared in a write root during the run: what is
 * there is moved aside (renamed, never followed or opened: a link is moved
 * as a link), and an empty file of srt's making takes the name, covered
 * with a read-only bind of itself, so the command can neither write it
 * nor make the name again. Made again between the move and srt's file:
 * moved aside too. */
static void quarantine_file(struct watcher *w, size_t dir, const char *name,
			    const struct srt__protected *e)
{
	struct wdir *d = &w->dirs[dir];
	char to[NAME_MAX + 1], first[NAME_MAX + 1] = "", what[600];
	int tries, fd = -1, err = 0, moved = 0;
	struct stat st;
	struct wname *nm;
	long k;

	if (covered(d->fd, name))
		return; /* srt's placeholder, covered already */
	for (tries = 0; tries < COVER_TRIES && fd < 0; tries++) {
		err = srt__rename_aside(d->fd, name, to);
		if (!err && !moved++)
			snprintf(first, sizeof(first), "%s", to);
		else if (err && err != ENOENT)
			break;
		fd = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0444);
		err = fd < 0 ? errno : 0;
		if (fd < 0 && err != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(what, sizeof(what), "made during the run, and srt could not move it aside and hold "
			 "the name (%s): inspect it", strerror(err ? err : EAGAIN));
		say_moved(w, d->path, name, e, what);
		stop_run(w, d->path, name, "a protected name made during the run could not be held");
	}
	err = cover_fd(fd, C_SELF);
	if (err) {
		/* ENOENT: srt's file was renamed away before the cover; the
		 * event of the name made again brings us back here */
		close(fd);
		if (err == ENOENT)
			return;
		snprintf(what, sizeof(what), "made during the run; srt moved it aside to %s but could not "
			 "cover the name (%s)", first[0] ? first : "(nothing there)", strerror(err));
		say_moved(w, d->path, name, e, what);
		stop_run(w, d->path, name, "a protected name made during the run could not be covered");
	}
	/* opened by the command between srt's create and the cover */
	if (fstat(fd, &st) == 0 && st.st_size != 0 && restore(fd, "", 0) != 0) {
		close(fd);
		stop_run(w, d->path, name, "the command wrote into srt's placeholder at a protected name, "
			 "and srt could not empty it");
	}
	k = add_name(w, dir, name, W_KEEP);
	if (k < 0) {
		close(fd);
		return; /* say_full stopped the run */
	}
	nm = &w->names[k];
	free(nm->snap);
	nm->snap = calloc(1, 1);
	nm->snap_len = 0;
	nm->have_snap = nm->snap != NULL;
	nm->prot = e;
	watch_inode(w, nm, fd, inode_watch(w, fd)); /* a later write through a descriptor of the window ends the run */
	if (moved)
		snprintf(what, sizeof(what), "made during the run; srt moved it aside to %s (inspect it) and "
			 "holds the name with an empty read-only file until the command ends", first);
	else
		snprintf(what, sizeof(what), "made during the run and gone again before srt got to it; srt "
			 "holds the name with an empty read-only file until the command ends");
	say_moved(w, d->path, name, e, what);
}

/* A protected directory made during the run is covered (read-only, fd is
 * the directory below the cover); what was made in it before the cover
 * is moved aside inside it, where the cover hides it from the command and
 * the host finds it as NAME.srt-quarantine, and reported. e: the
 * directory's entry (all of it is protected), or NULL for .claude (only
 * the names the table lists in it). */
static void aside_inside(struct watcher *w, const struct wdir *d, const char *name,
			 const struct srt__protected *e, int fd)
{
	char dpath[PATH_MAX], to[NAME_MAX + 1], what[600];
	char *ents[ASIDE_MAX];
	size_t n = 0, i;
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), over = 0;
	DIR *dd;
	struct dirent *de;

	snprintf(dpath, sizeof(dpath), "%s/%s", strcmp(d->path, "/") ? d->path : "", name);
	if (lfd < 0 || !(dd = fdopendir(lfd))) {
		if (lfd >= 0)
			close(lfd);
		violation(w, "write", d->path, name, "a protected directory made during the run could not be "
			  "listed after srt covered it (its mode): what it holds stays there: inspect it");
		return;
	}
	while ((de = readdir(dd))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    strstr(de->d_name, ".srt-quarantine"))
			continue;
		if (!e && !srt__watch_protected_entry(name, de->d_name, w->o->watch_release))
			continue;
		if (n == ASIDE_MAX) {
			over = 1;
			break;
		}
		if ((ents[n] = strdup(de->d_name)))
			n++;
	}
	closedir(dd);
	for (i = 0; i < n; i++) {
		const struct srt__protected *p = e ? e : srt__watch_protected_entry(name, ents[i], w->o->watch_release);
		int err = srt__rename_aside(fd, ents[i], to);

		if (err && err != ENOENT) {
			snprintf(what, sizeof(what), "made during the run before srt covered %s, and srt could "
				 "not move it aside (%s): inspect it", name, strerror(err));
			say_moved(w, dpath, ents[i], p, what);
			stop_run(w, dpath, ents[i], "a protected name made during the run could not be moved aside");
		}
		if (!err) {
			snprintf(what, sizeof(what), "made during the run before srt covered %s read-only; srt "
				 "moved it aside to %s (inspect it)", name, to);
			say_moved(w, dpath, ents[i], p, what);
		}
		free(ents[i]);
	}
	if (over)
		stop_run(w, dpath, NULL, "a protected directory made during the run held more entries "
			 "before srt covered it than srt moves aside");
}

/* name arrived in the write-root directory dir. A protected name (and not
 * released)? Then it is handled here: 1. There at the start: the mount
 * plan's to protect. */
static int new_protected(struct watcher *w, size_t dir, const char *name, int is_dir, size_t from,
			 int renamed)
{
	const struct wdir *d = &w->dirs[dir];
	const char *const *rel = w->o->watch_release;
	const char *parent = strrchr(d->path, '/');
	const struct srt__protected *e;
	long k;

	parent = parent ? parent + 1 : d->path;
	e = srt__watch_protected_entry(parent, name, rel);
	if (!is_dir) {
		/* not a directory at a protected directory's name: a link
		 * there would point the editor or agent at files the command
		 * controls (.vscode -> ../mine), so it is moved aside too */
		if (!e && !strcasecmp(name, ".claude") && !srt__watch_claude_released(rel))
			e = srt__protected_find(".claude/settings.json");
		if (!e)
			return 0;
		if (w->running)
			quarantine_file(w, dir, name, e);
		return 1;
	}
	if (e ? e->kind == SRT__PROT_FILE :
	    strcasecmp(name, ".claude") != 0 || srt__watch_claude_released(rel))
		return 0;
	/* a directory all of which is protected (.vscode, .husky,
	 * .claude/hooks), or .claude with the names the table lists in it:
	 * covered read-only whole */
	k = add_name(w, dir, name, W_KEEP);
	if (k < 0)
		return 1;
	if (!w->running) {
		/* there before the run: the mount plan protects what the list
		 * names in it; a directory that takes its place during the run
		 * is covered whole */
		w->names[k].pre = 1;
		return 1;
	}
	w->want_dir_fd = 1;
	w->dir_fd = -1;
	arrival(w, &w->names[k], from, 0, renamed);
	w->want_dir_fd = 0;
	if (w->dir_fd >= 0) {
		int fd = w->dir_fd;

		w->dir_fd = -1;
		aside_inside(w, &w->dirs[dir], name, e, fd);
		close(fd);
	}
	return 1;
}

/* ---- new directory entries: globs and write roots ---------------------- */

/* how a listing calls entry_arrived: */
#define LISTED 1       /* a directory watched now, or after lost events */
#define LISTED_AGAIN 2 /* a watched directory renamed: names tracked in it
			* already are as they were (their covers moved with
			* them); only the others are looked at */
static void scan_dir(struct watcher *w, size_t dir, int how);

/* A denied pattern covers what it matches and also the name it spells
 * ("secret[1].txt" the file of that name as well as "secret1.txt"): srt
 * applies an existing one of those at the start, and one made during the
 * run must be covered as it appears, as an absent plain name is. */
static int glob_matches(const struct watcher *w, const char *path)
{
	size_t i;

	for (i = 0; i < w->n_globs; i++)
		if (srt__glob_match(w->globs[i], path) || !strcmp(w->o->watch_glob[i], path))
			return 1;
	return 0;
}

/* Could a glob match something below dir (a path prefix)? */
static int glob_below(const struct watcher *w, const char *dir)
{
	size_t i, l = strlen(dir);

	for (i = 0; i < w->o->n_watch_glob; i++) {
		const char *p = w->o->watch_glob[i];
		size_t base = srt__glob_base_len(p);

		if (!p[base] || strncmp(p, dir, base < l ? base : l) != 0)
			continue;
		/* below the base, a "/" after the first glob component, or
		 * "**", lets the pattern reach deeper directories */
		if (strchr(p + base + 1, '/') || strstr(p + base, "**"))
			return 1;
	}
	return 0;
}

/* The path of the watched directory dir now, as the kernel names it
 * (renames of it or of any directory above it included), into buf: 0, or
 * -1 when it has none (removed) or the kernel cannot say. */
static int dir_path_now(const struct watcher *w, size_t dir, char *buf, size_t len)
{
	char self[64];
	struct stat st;
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", w->dirs[dir].fd);
	if (fstat(w->dirs[dir].fd, &st) != 0 || st.st_nlink == 0)
		return -1;
	n = readlink(self, buf, len - 1);
	if (n <= 0 || (size_t)n >= len - 1 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The watched directory dir was renamed, by the host or by the command
 * (its IN_MOVE_SELF). Names are matched against the globs by their
 * directory's path, so it and the watched directories below it (those
 * whose paths begin with its old one) take the path the kernel gives
 * their descriptors now: the kernel, not a rewrite of the old paths, knows
 * where each one is (an exchange of two names, or a link left where the
 * directory was, made such a rewrite wrong). Each whose path changed is
 * listed again: a name already in it may match a glob under the new path
 * (g/tmpd holding k, renamed g/secY, for "g/sec*" "/k"), and new names in
 * it are matched as they come. The work is the renamed tree's, not every
 * watched directory's: a command renaming directories in a loop gets the
 * watcher to follow each, not to list everything it watches. Out of
 * memory, the run stops rather than match against a path that is gone. */
static void dirs_follow(struct watcher *w, size_t dir)
{
	size_t n = w->n_dirs, k = 0, i, ol;
	size_t *moved = calloc(n ? n : 1, sizeof(*moved));
	char *old = strdup(w->dirs[dir].path);
	char now[PATH_MAX];

	if (!moved || !old) {
		free(moved);
		free(old);
		stop_run(w, w->dirs[dir].path, NULL, "out of memory following a renamed directory");
	}
	ol = strlen(old);
	for (i = 0; i < n; i++) {
		const char *p = w->dirs[i].path;
		char *np;

		if (i != dir && (strncmp(p, old, ol) != 0 || p[ol] != '/'))
			continue;
		if (dir_path_now(w, i, now, sizeof(now)) != 0 || !strcmp(now, p))
			continue;
		if (!(np = strdup(now))) {
			free(moved);
			free(old);
			stop_run(w, now, NULL, "out of memory following a renamed directory");
		}
		free(w->dirs[i].path);
		w->dirs[i].path = np;
		w->dirs[i].globbed |= glob_below(w, np);
		moved[k++] = i;
	}
	free(old);
	for (i = 0; i < k; i++)
		scan_dir(w, moved[i], LISTED_AGAIN);
	free(moved);
}

/* name appeared in the watched directory dir (type: DT_DIR, DT_REG...). */
/* name is in the watched directory dir: it arrived (an inotify event;
 * renamed: by a rename), or a listing found it (scanned). */
/* Something arrived at path: is it where the parent of denied names was
 * (the host replaced it: mv ~/.config ~/.config.bak, then a new
 * ~/.config/gh, or a link to another directory, as stow makes)? The watch
 * on the old directory went with it, so each such name is watched again
 * in the new one (through a link: the denied name means what the path
 * leads to now), and covered if it is there already (what is made there
 * later, its own event covers). */
static void parent_arrived(struct watcher *w, const char *path)
{
	size_t i, n = w->n_names;

	for (i = 0; i < n; i++) {
		struct stat st;
		long d, k;
		int fd;

		if (w->names[i].kind != W_DENY || strcmp(w->names[i].at, path) != 0)
			continue;
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		d = add_dir_fd(w, fd, path, -1, 0);
		if (d < 0 || (size_t)d == w->names[i].dir)
			continue;
		k = add_name(w, (size_t)d, w->names[i].name, W_DENY);
		if (k >= 0 && fstatat(w->dirs[d].fd, w->names[k].name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			arrival(w, &w->names[k], w->qpos, 0, 0);
	}
}

/* Something arrived at path: is it a glob's base directory (the host
 * replaced it: mv ~/.cfg ~/.cfg.old, then a new ~/.cfg, or the command in a
 * write root)? The old one's watch went with it, so the new one is
 * watched and listed: what matches in it, now or later, is covered, as in
 * the base at the start. A link there is followed (the pattern means what
 * the path leads to now). */
static void glob_base_arrived(struct watcher *w, const char *path)
{
	size_t i, l = strlen(path);

	for (i = 0; i < w->o->n_watch_glob; i++) {
		const char *p = w->o->watch_glob[i];
		size_t had = w->n_dirs;
		long d;
		int fd;

		if (srt__glob_base_len(p) != l || strncmp(p, path, l) != 0)
			continue;
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* not a directory (yet): nothing can match below it */
		d = add_dir_fd(w, fd, path, -1, 1);
		if (d >= 0 && (w->n_dirs > had || strcmp(w->dirs[d].path, path) == 0))
			scan_dir(w, (size_t)d, w->n_dirs > had ? LISTED : LISTED_AGAIN);
		return;
	}
}

static void entry_arrived(struct watcher *w, size_t dir, const char *name, int is_dir, size_t from,
			  int renamed, int scanned)
{
	char path[PATH_MAX];
	struct wdir *d = &w->dirs[dir];
	long k;
	int n, claude;

	n = snprintf(path, sizeof(path), "%s/%s", strcmp(d->path, "/") ? d->path : "", name);
	if (n > 0 && (size_t)n < sizeof(path)) {
		/* the arrivals there read the queue, which moves it to its
		 * start: from is kept relative to where it is read from */
		size_t rel = from >= w->qpos ? from - w->qpos : 0;

		parent_arrived(w, path);
		glob_base_arrived(w, path);
		from = w->qpos + rel;
	}
	k = find_name(w, dir, name);
	if (k >= 0 && scanned == LISTED_AGAIN)
		return;
	if (k >= 0 && w->names[k].prot) {
		quarantine_file(w, dir, name, w->names[k].prot);
		return;
	}
	if (k >= 0) {
		if (w->names[k].pre && scanned)
			return; /* the plan's to protect, as it was */
		w->names[k].pre = 0;
		arrival(w, &w->names[k], from, 0, renamed);
		return;
	}
	n = snprintf(path, sizeof(path), "%s/%s", strcmp(d->path, "/") ? d->path : "", name);
	if ((n < 0 || (size_t)n >= sizeof(path)) && d->globbed && w->running)
		/* a path the globs cannot be matched against, made during the
		 * run (the walk at the start denies one there then whole):
		 * nothing can be covered by name, so the run stops (red team:
		 * a secret read past PATH_MAX under a glob's base) */
		stop_run_for(w, "read", d->path, name,
			     "a name made during the run under a denyRead glob's base is past PATH_MAX, where srt cannot match it");
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	if (d->globbed && glob_matches(w, path)) {
		k = add_name(w, dir, name, W_DENY);
		if (k >= 0)
			arrival(w, &w->names[k], from, 0, renamed);
		return;
	}
	if (d->depth >= 0 && new_protected(w, dir, name, is_dir, from, renamed))
		return;
	if (!is_dir)
		return;
	if (!strcasecmp(name, "node_modules") || !strcasecmp(name, ".git"))
		return;
	/* a .claude directory not covered whole (a name in it is
	 * released): watched at any depth, for the names still protected */
	claude = d->depth >= 0 && !strcasecmp(name, ".claude");
	if ((d->depth >= 0 && (d->depth + 1 < w->o->watch_depth || claude)) ||
	    (d->globbed && glob_below(w, path))) {
		int fd = openat(d->fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		size_t had = w->n_dirs;
		long nd;

		if (fd < 0) {
			open_failed(w, errno);
			return;
		}
		nd = add_dir_fd(w, fd, path,
				d->depth >= 0 && (d->depth + 1 < w->o->watch_depth || claude) ? d->depth + 1 : -1,
				d->globbed && glob_below(w, path));
		if (nd >= 0 && w->n_dirs > had)
			scan_dir(w, (size_t)nd, LISTED); /* entries made before the watch */
		/* one known already arrived by a rename: its IN_MOVE_SELF,
		 * queued after this, has it followed (dirs_follow) */
	}
}

/* The entries of a directory just watched (or after an overflow). */
static void scan_dir(struct watcher *w, size_t dir, int how)
{
	int fd = openat(w->dirs[dir].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dd;
	struct dirent *de;
	size_t n = 0;

	if (fd < 0)
		return;
	dd = fdopendir(fd);
	if (!dd) {
		close(fd);
		return;
	}
	while ((de = readdir(dd)) && (w->running || n++ < SCAN_MAX)) {
		int is_dir = de->d_type == DT_DIR;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(dd), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			is_dir = S_ISDIR(st.st_mode);
		}
		entry_arrived(w, dir, de->d_name, is_dir, w->qlen, 0, how);
	}
	closedir(dd);
}

/* ---- files made during the run (the host's temporary files) ------------ */

/* Does dir hold a write-protected file (one the host may replace by
 * renaming a temporary file over it)? */
static int dir_keeps(const struct watcher *w, size_t dir)
{
	size_t i;

	for (i = 0; i < w->n_names; i++)
		if (w->names[i].dir == dir && w->names[i].kind == W_KEEP && !w->names[i].is_dir &&
		    !w->names[i].prot)
			return 1;
	return 0;
}

/* fanotify counts the opens of the files made in a directory that holds
 * a write-protected file. inotify cannot: it merges an open with the one
 * queued just before it (the same name, the same event), so the command's
 * open right after the host tool's own is lost; fanotify keeps the opens
 * of distinct processes apart. It runs unprivileged here (bwrap's user
 * namespace): directory marks, events naming the directory by its handle
 * and the entry by its name. */
static int fan_setup(struct watcher *w)
{
	size_t i;

	/* the target's handle in the events of names made, renamed and
	 * removed (Linux 5.17): without it fanotify merges the creations of
	 * one name by one process (git's two writes of a config) */
	w->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET | FAN_NONBLOCK | FAN_CLOEXEC,
			       O_RDONLY);
	w->fc = calloc(FRESH_MAX, sizeof(*w->fc));
	w->early = calloc(EARLY_MAX, sizeof(*w->early));
	w->moved = calloc(MOVED_MAX, sizeof(*w->moved));
	if (w->fan < 0 || !w->fc || !w->early || !w->moved) {
		const char *why = w->fan < 0 ? strerror(errno) : "out of memory";

		if (w->fan >= 0)
			close(w->fan);
		w->fan = -1;
		if (!w->o->watch_weaker) {
			srt__init_failf("srt-linux-init: the watcher of replaced files cannot count who "
					"writes the host's temporary files: fanotify is refused here (%s; "
					"Linux 5.17 or later, fs.fanotify.max_user_groups above 0); set "
					"filesystem.enableWeakerNameProtection to run with inotify alone, "
					"which can miss such a write", why);
			return -1;
		}
		srt__init_say("srt: warning: fanotify is not available here (%s): a write the command "
			      "makes into a temporary file the host then renames over a protected file is "
			      "told by inotify alone, which can miss it (filesystem."
			      "enableWeakerNameProtection)", why);
		return 0;
	}
	w->fan_dirs = calloc(w->n_names + 1, sizeof(*w->fan_dirs));
	if (!w->fan_dirs) {
		srt__init_fail("watcher: fanotify", ENOMEM);
		return -1;
	}
	/* by the names, not by the directories: a large tree has many
	 * directories and few write-protected files */
	for (i = 0; i < w->n_names; i++) {
		const struct wname *nm = &w->names[i];
		struct wdir *d = &w->dirs[nm->dir];
		struct {
			struct file_handle h;
			unsigned char b[FH_MAX];
		} fh;
		int mnt;

		if (nm->kind != W_KEEP || nm->is_dir || nm->prot || d->fan)
			continue;
		fh.h.handle_bytes = FH_MAX;
		/* "." below the O_PATH descriptor: fanotify_mark takes no
		 * O_PATH descriptor by itself */
		if (name_to_handle_at(d->fd, "", &fh.h, &mnt, AT_EMPTY_PATH) != 0 ||
		    fanotify_mark(w->fan, FAN_MARK_ADD, FAN_OPEN | FAN_EVENT_ON_CHILD | FAN_CREATE |
				  FAN_DELETE | FAN_MOVED_FROM, d->fd, ".") != 0) {
			int err = errno;

			if (w->o->watch_weaker)
				continue;
			srt__init_failf("srt-linux-init: the watcher of replaced files cannot count who "
					"writes the host's temporary files in %s: fanotify refused it (%s); "
					"set filesystem.enableWeakerNameProtection to run with inotify alone, "
					"which can miss such a write", d->path, strerror(err));
			return -1;
		}
		w->fan_dirs[w->n_fan_dirs++] = nm->dir;
		d->fan = 1;
		d->fh_len = fh.h.handle_bytes;
		d->fh_type = fh.h.handle_type;
		memcpy(d->fh, fh.h.f_handle, fh.h.handle_bytes);
	}
	return 0;
}

static long fan_dir(const struct watcher *w, const struct file_handle *h)
{
	size_t i;

	for (i = 0; i < w->n_fan_dirs; i++) {
		const struct wdir *d = &w->dirs[w->fan_dirs[i]];

		if (d->fh_len == h->handle_bytes && d->fh_type == h->handle_type &&
		    !memcmp(d->fh, h->f_handle, h->handle_bytes))
			return (long)w->fan_dirs[i];
	}
	return -1;
}

static long fc_find_in(const struct fcount *t, size_t n, const struct file_handle *h)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].used && t[i].fh_len == h->handle_bytes && t[i].fh_type == h->handle_type &&
		    !memcmp(t[i].fh, h->f_handle, h->handle_bytes))
			return (long)i;
	return -1;
}

static long fc_find(const struct watcher *w, const struct file_handle *h)
{
	return fc_find_in(w->fc, FRESH_MAX, h);
}

/* An open of a file fanotify has not seen made: the kernel reports a
 * creation after the new name is already there to open, so the command's
 * open can come first. Kept (the newest EARLY_MAX) until the creation's
 * event adds it to the count. */
static void early_open(struct watcher *w, const struct file_handle *h)
{
	long k = fc_find_in(w->early, EARLY_MAX, h);
	size_t i, slot = 0;

	if (k < 0) {
		for (i = 0; i < EARLY_MAX; i++) {
			if (!w->early[i].used) {
				slot = i;
				break;
			}
			if (w->early[i].seq < w->early[slot].seq)
				slot = i;
		}
		k = (long)slot;
		memset(&w->early[k], 0, sizeof(w->early[k]));
		w->early[k].used = 1;
		w->early[k].fh_len = h->handle_bytes;
		w->early[k].fh_type = h->handle_type;
		memcpy(w->early[k].fh, h->f_handle, h->handle_bytes);
	}
	w->early[k].seq = ++w->early_seq;
	if (w->early[k].opens < OPENS_UNKNOWN - 1)
		w->early[k].opens++;
}

/* One fanotify event: mask, of name in dir, the file h. */
static void fan_event(struct watcher *w, size_t dir, const char *name, const struct file_handle *h,
		      uint64_t mask)
{
	long k = h ? fc_find(w, h) : -1, e;
	size_t i, slot = 0;

	if (mask & FAN_ONDIR)
		return;
	if ((mask & FAN_CREATE) && h) {
		if (k < 0) {
			for (i = 0; i < FRESH_MAX; i++) {
				if (!w->fc[i].used) {
					slot = i;
					break;
				}
				if (w->fc[i].seq < w->fc[slot].seq)
					slot = i; /* forgotten: its rename counts as unknown */
			}
			k = (long)slot;
		}
		memset(&w->fc[k], 0, sizeof(w->fc[k]));
		w->fc[k].used = 1;
		w->fc[k].dir = dir;
		w->fc[k].seq = ++w->fc_seq;
		snprintf(w->fc[k].name, sizeof(w->fc[k].name), "%s", name);
		w->fc[k].fh_len = h->handle_bytes;
		w->fc[k].fh_type = h->handle_type;
		memcpy(w->fc[k].fh, h->f_handle, h->handle_bytes);
		e = fc_find_in(w->early, EARLY_MAX, h);
		if (e >= 0) { /* opened before its creation was reported */
			w->fc[k].opens = w->early[e].opens;
			w->early[e].used = 0;
		}
	} else if ((mask & FAN_OPEN) && h && k < 0) {
		/* fanotify merges one process's events of a file into its
		 * first one still queued: git's create, open and rename come
		 * as one event, before the command's open made in between.
		 * An open by the temporary name of the file renamed away was
		 * made before the rename, wherever it is queued. */
		e = fc_find_in(w->moved, w->n_moved, h);
		if (e >= 0 && !strcmp(w->moved[e].name, name) && w->moved[e].dir == dir) {
			if (w->moved[e].opens < OPENS_UNKNOWN - 1)
				w->moved[e].opens++;
		} else {
			early_open(w, h);
		}
	}
	if ((mask & FAN_OPEN) && k >= 0 && w->fc[k].opens < OPENS_UNKNOWN - 1)
		w->fc[k].opens++;
	if (mask & FAN_MOVED_FROM) {
		if (w->n_moved == MOVED_MAX) {
			/* the watcher is that far behind: the oldest goes,
			 * and with it the pairing (see fan_moved) */
			memmove(w->moved, w->moved + 1, (MOVED_MAX - 1) * sizeof(*w->moved));
			w->n_moved--;
			w->moved_lost = 1;
		}
		memset(&w->moved[w->n_moved], 0, sizeof(w->moved[0]));
		w->moved[w->n_moved].used = 1;
		w->moved[w->n_moved].dir = dir;
		w->moved[w->n_moved].opens = k >= 0 ? w->fc[k].opens : OPENS_UNKNOWN;
		if (h) {
			w->moved[w->n_moved].fh_len = h->handle_bytes;
			w->moved[w->n_moved].fh_type = h->handle_type;
			memcpy(w->moved[w->n_moved].fh, h->f_handle, h->handle_bytes);
		}
		snprintf(w->moved[w->n_moved].name, sizeof(w->moved[0].name), "%s", name);
		w->n_moved++;
	}
	if ((mask & (FAN_MOVED_FROM | FAN_DELETE)) && k >= 0)
		w->fc[k].used = 0;
}

/* A file handle copied out of an event (aligned for its fields). */
struct fan_fh {
	struct file_handle h;
	unsigned char b[FH_MAX];
};

/* One fanotify event, at ev (event_len bytes, meta its header copied
 * out): the directory's handle and the entry's name, and the file's own
 * handle. Events follow each other at 4-byte steps only, so nothing is
 * read in place through a structure that needs more alignment. */
static void fan_one(struct watcher *w, const char *ev, const struct fanotify_event_metadata *meta)
{
	struct fan_fh dir, child;
	const char *name = NULL;
	int have_child = 0;
	size_t off = meta->metadata_len;
	long d = -1;

	while (off + sizeof(struct fanotify_event_info_fid) + sizeof(struct file_handle) <= meta->event_len) {
		struct fanotify_event_info_fid fid;
		struct file_handle h;
		size_t hl = sizeof(fid) + sizeof(h);
		const char *bytes = ev + off + hl;

		memcpy(&fid, ev + off, sizeof(fid));
		memcpy(&h, ev + off + sizeof(fid), sizeof(h));
		if (fid.hdr.len < hl || off + fid.hdr.len > meta->event_len || h.handle_bytes > FH_MAX ||
		    hl + h.handle_bytes > fid.hdr.len)
			break;
		if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME && hl + h.handle_bytes < fid.hdr.len) {
			const char *nm = bytes + h.handle_bytes;
			size_t room = fid.hdr.len - hl - h.handle_bytes;

			dir.h = h;
			memcpy(dir.h.f_handle, bytes, h.handle_bytes);
			if (strnlen(nm, room) < room && (d = fan_dir(w, &dir.h)) >= 0)
				name = nm;
		} else if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_FID) {
			child.h = h;
			memcpy(child.h.f_handle, bytes, h.handle_bytes);
			have_child = 1;
		}
		off += fid.hdr.len;
	}
	if (name && have_child)
		fan_event(w, (size_t)d, name, &child.h, meta->mask);
	else if (name && (meta->mask & FAN_MOVED_FROM))
		fan_event(w, (size_t)d, name, NULL, meta->mask);
}

/* fanotify's queue overflowed: some opens, creations or renames of the
 * files counted were dropped, so no count made so far can be trusted.
 * Every file known now is forgotten (renamed over a protected name later,
 * it counts as one srt did not see made: undone and reported), and every
 * rename not yet paired counts as unknown (undone and reported too), as
 * does every rename until the queues are drained (fan_moved, fan_resync).
 * Nothing stays unknown for the rest of the run: once there is room the
 * kernel queues events again, in order, so a file whose creation is read
 * after the overflow has every later open counted, and one made while
 * events were dropped is never known (its rename counts as unknown). Before,
 * one overflow made every later rename over a protected name count as
 * unknown: each host change for the rest of the run was undone. */
static void fan_overflowed(struct watcher *w)
{
	size_t i;

	for (i = 0; i < FRESH_MAX; i++)
		w->fc[i].used = 0;
	for (i = 0; i < EARLY_MAX; i++)
		w->early[i].used = 0;
	for (i = 0; i < w->n_moved; i++)
		w->moved[i].opens = OPENS_UNKNOWN;
	w->moved_lost = 1; /* renames dropped: the pairing is off (see fan_moved) */
	if (w->o->debug)
		srt__init_say("srt-linux-init: (debug) watcher: fanotify's queue overflowed; the files "
			      "made so far count as written by another process");
}

/* Read what fanotify has queued now. */
static void fan_read(struct watcher *w)
{
	char buf[16384] __attribute__((aligned(8)));

	if (w->fan < 0)
		return;
	for (;;) {
		ssize_t n = read(w->fan, buf, sizeof(buf));
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		while (off + sizeof(struct fanotify_event_metadata) <= (size_t)n) {
			struct fanotify_event_metadata meta;

			memcpy(&meta, buf + off, sizeof(meta));
			if (meta.event_len < sizeof(meta) || off + meta.event_len > (size_t)n ||
			    meta.metadata_len < sizeof(meta) || meta.metadata_len > meta.event_len)
				break;
			if (meta.mask & FAN_Q_OVERFLOW)
				fan_overflowed(w);
			else
				fan_one(w, buf + off, &meta);
			off += meta.event_len;
		}
	}
}

/* The opens fanotify counted of the file renamed away from name in dir
 * (the oldest such rename not yet paired), or OPENS_UNKNOWN.
 *
 * Each rename queues one inotify and one fanotify event, in the same
 * order in both queues, so the n-th inotify rename away from a name pairs
 * with the n-th fanotify one: by their order, the only thing the two have
 * in common (a host tool renames the same temporary name every time).
 * Once a fanotify rename is lost (its queue overflowed, or the watcher
 * fell MOVED_MAX renames behind), a later inotify rename would pair with
 * the fanotify rename of another, later file and take that file's count:
 * a file the command opened could pass as the host tool's alone. So from
 * then on every rename counts as unknown (the host's change is put back
 * and reported), without waiting for an event that may never come, until
 * fan_resync finds both queues drained. */
static unsigned fan_moved(struct watcher *w, size_t dir, const char *name)
{
	size_t i;
	int tries;

	if (w->fan < 0 || !w->dirs[dir].fan)
		return OPENS_UNKNOWN - 1; /* not counted here: inotify's count stands */
	/* the rename queued its fanotify event in the same call as the
	 * inotify one, maybe a moment after: wait for it, a little */
	for (tries = 0; tries < 50; tries++) {
		struct pollfd p = { w->fan, POLLIN, 0 };

		fan_read(w);
		for (i = 0; i < w->n_moved; i++) {
			if (w->moved[i].dir == dir && !strcmp(w->moved[i].name, name)) {
				unsigned o = w->moved_lost ? OPENS_UNKNOWN : w->moved[i].opens;

				memmove(w->moved + i, w->moved + i + 1,
					(w->n_moved - i - 1) * sizeof(*w->moved));
				w->n_moved--;
				return o;
			}
		}
		if (w->moved_lost)
			break;
		if (poll(&p, 1, 2) < 0 && errno != EINTR)
			break;
	}
	return OPENS_UNKNOWN;
}

/* Is nothing queued on inotify that srt has not handled? */
static int inotify_drained(const struct watcher *w)
{
	int queued = 1;

	return w->qpos >= w->qlen && ioctl(w->ifd, FIONREAD, &queued) == 0 && queued == 0;
}

/* After a lost fanotify rename (see fan_moved): when every inotify event
 * queued so far has been handled, before and after fanotify's queue is
 * read to its end, every rename made so far has been judged, so what
 * fanotify holds of renames is stale (their inotify events came while the
 * pairing was off, or were lost). Dropped, and the pairing holds again
 * for the renames that follow. (A rename whose fanotify event the read
 * took and whose inotify event the kernel queues only after the second
 * check, microseconds apart in one call, would pair with the next rename
 * of the same name: the two checks leave only that.) */
static void fan_resync(struct watcher *w)
{
	if (!w->moved_lost || !inotify_drained(w))
		return;
	fan_read(w);
	if (!inotify_drained(w))
		return;
	w->n_moved = 0;
	w->moved_lost = 0;
}

static long fresh_find(const struct watcher *w, size_t dir, const char *name)
{
	size_t i;

	for (i = 0; i < FRESH_MAX; i++)
		if (w->fresh[i].used && w->fresh[i].dir == dir && !strcmp(w->fresh[i].name, name))
			return (long)i;
	return -1;
}

static long fresh_find_iwd(const struct watcher *w, int wd)
{
	size_t i;

	for (i = 0; i < FRESH_MAX; i++)
		if (w->fresh[i].used && w->fresh[i].iwd == wd)
			return (long)i;
	return -1;
}

static void fresh_drop(struct watcher *w, long k)
{
	struct fresh *f = &w->fresh[k];

	if (f->iwd >= 0)
		inotify_rm_watch(w->ifd, f->iwd);
	f->iwd = -1;
	f->used = 0;
	if (w->mv_fresh == k)
		w->mv_fresh = -1;
}

/* After a queue overflow the counts are incomplete: every entry is
 * forgotten, so a file renamed over a protected name later counts as
 * written by another process. */
static void fresh_clear(struct watcher *w)
{
	long k;

	for (k = 0; k < FRESH_MAX; k++)
		if (w->fresh[k].used)
			fresh_drop(w, k);
	w->mv_have = 0;
}

/* Is an open of name in the directory watched by wd queued from off on? */
static int open_queued(const struct watcher *w, size_t off, int wd, const char *name)
{
	while (off + sizeof(struct inotify_event) <= w->qlen) {
		const struct inotify_event *ev = event_at(w, off);

		if (ev->wd == wd && (ev->mask & IN_OPEN) && ev->len && !strcmp(ev->name, name))
			return 1;
		off += event_size(ev);
	}
	return 0;
}

/* A file was created in dir, which holds a write-protected file: count
 * who opens it from now on. Its name counts the opens made by that name
 * (its creator's is one); an inode watch counts the opens made by any name
 * (a hard link made in the moment after its creation). A full table
 * forgets its oldest entry: a forgotten file later renamed over a
 * protected name counts as written by another process (fail closed). */
static void fresh_add(struct watcher *w, size_t dir, const char *name)
{
	char path[64 + NAME_MAX];
	long k = fresh_find(w, dir, name);
	size_t i, slot = 0;
	struct fresh *f;
	int iwd;

	if (k >= 0)
		fresh_drop(w, k);
	for (i = 0; i < FRESH_MAX; i++) {
		if (!w->fresh[i].used) {
			slot = i;
			break;
		}
		if (w->fresh[i].seq < w->fresh[slot].seq)
			slot = i;
	}
	if (w->fresh[slot].used)
		fresh_drop(w, (long)slot);
	f = &w->fresh[slot];
	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->dir = dir;
	f->seq = ++w->fresh_seq;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", w->dirs[dir].fd, name);
	/* never the watch of another inode srt has (IN_MASK_CREATE: EEXIST);
	 * kernels before 4.18 lack it: the mask is added to, never replaced */
	iwd = inotify_add_watch(w->ifd, path, IN_OPEN | IN_DONT_FOLLOW | IN_MASK_CREATE);
	if (iwd < 0 && errno == EINVAL) {
		iwd = inotify_add_watch(w->ifd, path, IN_OPEN | IN_DONT_FOLLOW | IN_MASK_ADD);
		if (iwd >= 0 && (find_dir_wd(w, iwd) >= 0 || find_inode_wd(w, iwd) >= 0 ||
				 fresh_find_iwd(w, iwd) >= 0))
			iwd = -1; /* shared: not ours to count or remove */
	}
	f->iwd = iwd;
	f->gone = iwd < 0 && errno == ENOENT;
	/* the creator's own open is reported after its creation: when it is
	 * not queued yet, its inode watch sees it too */
	read_events(w);
	f->iallow = !open_queued(w, w->qpos, w->dirs[dir].wd, name);
}

/* A file renamed over the write-protected name nm, after the rename event
 * at the queue's head: was it written by someone besides the host program
 * that made it? Then why (for the report), else NULL. */
static const char *fresh_written(struct watcher *w, int known, long src)
{
	const struct fresh *f;

	if (!known || src < 0)
		return "the file the host renamed over it was not one srt saw made during the run, so "
		       "srt cannot tell who wrote it";
	f = &w->fresh[src];
	if (f->iwd < 0 && !f->gone)
		return "srt could not watch the file the host renamed over it, so it cannot tell who "
		       "wrote it";
	if (w->mv_opens == OPENS_UNKNOWN)
		return "srt lost count of who opened the file the host renamed over it, so it cannot tell "
		       "who wrote it";
	if (srt__watch_written_by_other(w->mv_opens == OPENS_UNKNOWN - 1 ? f->opens : w->mv_opens,
					f->iopens, f->iallow))
		return "the file the host renamed over it had been opened by another process besides "
		       "the program that made it (the command can write the host's temporary files)";
	return NULL;
}

/* The file moved from the last IN_MOVED_FROM arrived as name in dir. */
static void fresh_moved(struct watcher *w, size_t dir, const char *name, int is_dir, int known)
{
	long src = known ? w->mv_fresh : -1, t = fresh_find(w, dir, name);
	long k = find_name(w, dir, name);

	w->written = NULL;
	if (k >= 0 && w->names[k].kind == W_KEEP && !w->names[k].prot && !w->names[k].pre && !is_dir) {
		w->written = fresh_written(w, known, src);
		if (src >= 0)
			fresh_drop(w, src);
		return;
	}
	if (t >= 0 && t != src)
		fresh_drop(w, t); /* replaced: its counts went with the old file */
	if (src < 0)
		return;
	if (is_dir || !dir_keeps(w, dir)) {
		fresh_drop(w, src);
		return;
	}
	/* one temporary name renamed to another: its counts go with it */
	w->fresh[src].dir = dir;
	snprintf(w->fresh[src].name, sizeof(w->fresh[src].name), "%s", name);
}

/* What the directory event says about files made during the run. */
static void fresh_event(struct watcher *w, size_t dir, const char *name, unsigned mask, uint32_t cookie)
{
	long f;

	if (mask & IN_ISDIR)
		return;
	if (mask & IN_CREATE) {
		if (find_name(w, dir, name) < 0 && dir_keeps(w, dir))
			fresh_add(w, dir, name);
	} else if (mask & IN_OPEN) {
		f = fresh_find(w, dir, name);
		if (f >= 0 && w->fresh[f].opens < UINT_MAX)
			w->fresh[f].opens++;
	} else if (mask & IN_DELETE) {
		f = fresh_find(w, dir, name);
		if (f >= 0)
			fresh_drop(w, f);
	} else if (mask & IN_MOVED_FROM) {
		w->mv_have = 1;
		w->mv_cookie = cookie;
		w->mv_fresh = fresh_find(w, dir, name);
		w->mv_opens = fan_moved(w, dir, name);
	}
}

/* A write-protected file srt covered again during the run, checked after
 * events were lost: the lost ones may have told of a write through a
 * descriptor or a link taken before the cover (what inode_written judges
 * when it is told), so what is there now is compared with what srt last
 * accepted, and anything else is put back and reported. */
static void recheck_covered(struct watcher *w, struct wname *nm)
{
	struct wdir *d = &w->dirs[nm->dir];
	struct stat at, st;

	if (nm->kind != W_KEEP || nm->is_dir || nm->fd < 0 || !nm->have_snap)
		return;
	if (fstatat(d->fd, nm->name, &at, AT_SYMLINK_NOFOLLOW) != 0 || fstat(nm->fd, &st) != 0 ||
	    at.st_dev != st.st_dev || at.st_ino != st.st_ino) {
		/* covered, yet not by the file srt holds: nothing srt kept
		 * vouches for it */
		violation(w, "write", d->path, nm->name, "replaced during the run while srt lost events, and "
			  "what is at the name now is not the file srt covered: inspect it");
		return;
	}
	if (same_content(nm->fd, nm->snap, nm->snap_len))
		return;
	if (restore(nm->fd, nm->snap, nm->snap_len) != 0)
		stop_run(w, d->path, nm->name, "changed while srt lost events (a write through a descriptor "
			 "or link taken before srt covered it again), and srt could not put back the host's "
			 "content: inspect it");
	violation(w, "write", d->path, nm->name, "changed while srt lost events (a write through a "
		  "descriptor or link taken before srt covered it again); srt put back the content it last "
		  "saw from the host");
}

/* Every name checked as if its events were lost: one not covered (or
 * pending) is covered again and judged as written in the moment, one
 * covered again is compared by its content. */
static void recheck_name(struct watcher *w, size_t i)
{
	struct wname *nm = &w->names[i];

	if (nm->prot)
		quarantine_file(w, nm->dir, nm->name, nm->prot);
	else if (nm->pre)
		return;
	else if (nm->pending || ahead_of(w, nm) || !covered(w->dirs[nm->dir].fd, nm->name))
		arrival(w, nm, w->qlen, 1, 0); /* pending, ahead: its (newer file's) event was lost */
	else
		recheck_covered(w, nm);
}

static void recheck_names(struct watcher *w)
{
	size_t i;

	for (i = 0; i < w->n_names; i++)
		recheck_name(w, i);
}

/* The kernel's queue (or ours) overflowed, or the watcher ran out of time
 * to read the rest at the end: events were lost, so every name is checked
 * (by its content, not only whether it is covered) and every directory
 * listed again. */
static void recheck_all(struct watcher *w)
{
	size_t i, n;

	w->overflow = 0;
	fresh_clear(w);
	w->moved_lost = w->fan >= 0; /* renames' inotify events lost: the pairing is off */
	recheck_names(w);
	n = w->n_dirs;
	for (i = 0; i < n; i++)
		if (w->dirs[i].depth >= 0 || w->dirs[i].globbed)
			scan_dir(w, i, LISTED);
}

/* Past the time finish gave itself to read the queue? */
static int out_of_time(const struct watcher *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > w->finish_by.tv_sec ||
	       (now.tv_sec == w->finish_by.tv_sec && now.tv_nsec >= w->finish_by.tv_nsec);
}

static void handle_queue(struct watcher *w)
{
	while (w->qpos + sizeof(struct inotify_event) <= w->qlen) {
		const struct inotify_event *ev = event_at(w, w->qpos);
		size_t next = w->qpos + event_size(ev);
		char name[NAME_MAX + 1];
		unsigned mask = ev->mask;
		uint32_t cookie = ev->cookie;
		int wd = ev->wd;
		long k;

		if (next > w->qlen)
			break;
		if (w->finish_by.tv_sec && out_of_time(w)) {
			/* the command has ended and srt cannot wait for the
			 * rest: lost, as in an overflow */
			w->qpos = w->qlen;
			w->overflow = 1;
			say_lost(w, "it could not read them all in the time it takes once the command has ended");
			break;
		}
		snprintf(name, sizeof(name), "%s", ev->len ? ev->name : "");
		w->qpos = next; /* ev may move once the queue is read again */
		if (wd == w->sentinel_wd)
			continue;
		if (mask & IN_Q_OVERFLOW) {
			say_lost(w, "its inotify queue overflowed: fs.inotify.max_queued_events");
			if (w->finishing)
				/* the last pass lists and checks everything once the
				 * queue is handled; until then every window counts as
				 * written (window_mask) */
				w->overflow = w->end_rescan = 1;
			else
				recheck_all(w);
			continue;
		}
		if ((mask & INODE_MASK) && (k = find_inode_wd(w, wd)) >= 0) {
			inode_written(w, &w->names[k]);
			continue;
		}
		if ((mask & IN_OPEN) && !name[0] && (k = fresh_find_iwd(w, wd)) >= 0) {
			if (w->fresh[k].iopens < UINT_MAX)
				w->fresh[k].iopens++;
			continue;
		}
		if ((mask & IN_MOVE_SELF) && !name[0] && (k = find_dir_wd(w, wd)) >= 0) {
			dirs_follow(w, (size_t)k);
			continue;
		}
		if (!name[0] || (k = find_dir_wd(w, wd)) < 0)
			continue;
		if (mask & INODE_MASK) {
			/* by its name: the same write the inode watch reports,
			 * and the one report of it when that watch failed */
			long n = find_name(w, (size_t)k, name);

			if (n >= 0 && w->names[n].kind == W_KEEP && w->names[n].fd >= 0 && !w->names[n].prot)
				inode_written(w, &w->names[n]);
		}
		fresh_event(w, (size_t)k, name, mask, cookie);
		if (mask & IN_MOVED_TO) {
			fresh_moved(w, (size_t)k, name, !!(mask & IN_ISDIR), w->mv_have && w->mv_cookie == cookie);
			w->mv_have = 0;
		}
		if (mask & (IN_CREATE | IN_MOVED_TO))
			entry_arrived(w, (size_t)k, name, !!(mask & IN_ISDIR), w->qpos, !!(mask & IN_MOVED_TO), 0);
		else if ((mask & (IN_ATTRIB | IN_ISDIR)) == (IN_ATTRIB | IN_ISDIR))
			/* a directory's mode changed: one that could not be
			 * watched (mode 0) may be watchable now */
			entry_arrived(w, (size_t)k, name, 1, w->qpos, 0, 1);
		w->written = NULL;
	}
	if (w->overflow && w->finishing)
		w->end_rescan = 1;
	else if (w->overflow)
		recheck_all(w);
	fan_resync(w);
}

/* ---- the process --------------------------------------------------------- */

/* Keep CAP_SYS_ADMIN (mounting the covers), give up every other
 * capability, the bounding set too where we may. */
static int keep_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0 || !(data[0].effective & (1u << CAP_SYS_ADMIN)))
		return -1;
	if (data[0].effective & (1u << CAP_SETPCAP))
		for (cap = 0; cap <= 63; cap++)
			if (cap != CAP_SYS_ADMIN && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 &&
			    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
				return -1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = 1u << CAP_SYS_ADMIN;
	return (int)syscall(SYS_capset, &hdr, data);
}

static int setup(struct watcher *w)
{
	const struct srt__init_opts *o = w->o;
	struct rlimit rl;
	size_t i, n;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	w->dir_cap = MAX_DIRS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 * 3 < MAX_DIRS)
		w->dir_cap = (size_t)(rl.rlim_cur / 4 * 3);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->dirs = calloc(MAX_DIRS, sizeof(*w->dirs));
	w->dir_hash = calloc(DIR_HASH, sizeof(*w->dir_hash));
	w->names = calloc(MAX_NAMES, sizeof(*w->names));
	w->globs = calloc(o->n_watch_glob + 1, sizeof(*w->globs));
	w->fresh = calloc(FRESH_MAX, sizeof(*w->fresh));
	w->mv_fresh = -1;
	if (w->ifd < 0 || !w->dirs || !w->dir_hash || !w->names || !w->globs || !w->fresh) {
		srt__init_fail("watcher: inotify", w->ifd < 0 ? errno : ENOMEM);
		return -1;
	}
	{
		char self[64];

		w->sentinel = memfd_create("srt-watch-mark", MFD_CLOEXEC);
		snprintf(self, sizeof(self), "/proc/self/fd/%d", w->sentinel);
		w->sentinel_wd = w->sentinel < 0 ? -1 : inotify_add_watch(w->ifd, self, IN_MODIFY);
		if (w->sentinel_wd < 0) {
			srt__init_fail("watcher: the queue mark", errno);
			return -1;
		}
	}
	for (i = 0; i < o->n_watch_glob; i++) {
		if (srt__glob_compile(o->watch_glob[i], &w->globs[w->n_globs]) != 0) {
			srt__init_failf("srt-linux-init: --watch-glob: '%s' is not a pattern", o->watch_glob[i]);
			return -1;
		}
		w->n_globs++;
	}
	for (i = 0; i < o->n_watch_deny; i++)
		track_path(w, o->watch_deny[i], W_DENY);
	for (i = 0; i < o->n_watch_keep; i++)
		track_path(w, o->watch_keep[i], W_KEEP);
	for (i = 0; i < o->n_watch_glob; i++) {
		char base[PATH_MAX];
		size_t bl = srt__glob_base_len(o->watch_glob[i]);
		char *slash;

		if (bl == 0 || bl >= sizeof(base))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)bl, o->watch_glob[i]);
		if (add_dir_path(w, base, -1, 1) >= 0 && glob_below(w, base))
			scan_dir(w, w->n_dirs - 1, LISTED);
		/* and the directory above it, where a new base arrives
		 * (glob_base_arrived) */
		slash = strrchr(base, '/');
		if (slash && slash != base) {
			*slash = '\0';
			add_dir_path(w, base, -1, 0);
		}
	}
	for (i = 0; i < o->n_watch_tree && o->watch_depth > 0; i++)
		add_dir_path(w, o->watch_tree[i], 0, 0);
	/* the write roots' existing directories (scan_dir adds each one's
	 * subdirectories, down to the depth) */
	n = w->n_dirs;
	for (i = 0; i < n; i++)
		if (w->dirs[i].depth == 0)
			scan_dir(w, i, LISTED);
	if (w->setup_full)
		return -1; /* said by say_full */
	return fan_setup(w);
}

/* The command has ended: the empty files srt put at protected names it
 * made are taken away again (their cover first), so the host keeps only
 * the quarantined files. One that is not srt's inode any more, or not
 * empty, stays. */
static void drop_placeholders(struct watcher *w)
{
	size_t i;

	for (i = 0; i < w->n_names; i++) {
		struct wname *nm = &w->names[i];
		struct stat ours, now;
		char self[64];
		int mfd;

		if (!nm->prot || nm->fd < 0 || fstat(nm->fd, &ours) != 0 || !S_ISREG(ours.st_mode))
			continue;
		mfd = openat(w->dirs[nm->dir].fd, nm->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (mfd < 0)
			continue;
		snprintf(self, sizeof(self), "/proc/self/fd/%d", mfd);
		if (umount2(self, MNT_DETACH) != 0) {
			close(mfd);
			continue;
		}
		close(mfd);
		if (fstatat(w->dirs[nm->dir].fd, nm->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == ours.st_dev && now.st_ino == ours.st_ino && now.st_size == 0)
			unlinkat(w->dirs[nm->dir].fd, nm->name, 0);
	}
}

/* The command has ended, and with it every process of the sandbox (the
 * nested init's end takes its whole pid namespace): nothing can write a
 * protected name any more, so one last pass decides what the host keeps.
 * What is queued is handled first, for at most SRT__WATCH_FINISH_MS (a
 * watcher that lags far behind, the machine being loaded, would take as
 * long again as the run); past that, the rest is dropped as in an
 * overflow. Then, when events were lost, every watched directory is
 * listed again (protected names made while nobody looked), and every
 * name is checked by its content against what srt last accepted from the
 * host: one not covered any more (replaced, removed and made again) or
 * covered again by srt is put back and reported by name when it differs.
 * That pass has no time limit: it is the guarantee, the time limit only
 * bounds the backlog. A name srt cannot put right (stop_run) is reported
 * and the pass goes on with the next one. */
static void finish(struct watcher *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->finish_by);
	w->finish_by.tv_sec += SRT__WATCH_FINISH_MS / 1000;
	w->finish_by.tv_nsec += (SRT__WATCH_FINISH_MS % 1000) * 1000000L;
	if (w->finish_by.tv_nsec >= 1000000000L) {
		w->finish_by.tv_sec++;
		w->finish_by.tv_nsec -= 1000000000L;
	}
	w->finishing = 1;
	if (sigsetjmp(w->give_up, 0)) {
		/* back from a step that gave up (reported): what it left half
		 * done is dropped, the step after it goes on */
		w->want_dir_fd = 0;
		w->dir_fd = -1;
		w->written = NULL;
		ahead_scanning(NULL); /* a scan that gave up: the queue no longer read ahead */
	}
	if (w->end_step == 0) {
		read_events(w);
		handle_queue(w); /* from the event after one that gave up */
		w->end_step = 1;
		w->end_n_dirs = w->n_dirs;
	}
	if (w->end_step == 1) {
		if (w->end_rescan) {
			fresh_clear(w);
			w->moved_lost = w->fan >= 0;
			while (w->end_dir < w->end_n_dirs) {
				size_t i = w->end_dir++;

				if (w->dirs[i].depth >= 0 || w->dirs[i].globbed)
					scan_dir(w, i, LISTED);
			}
		}
		w->end_step = 2;
	}
	/* every name, the ones the listing added too */
	while (w->end_name < w->n_names)
		recheck_name(w, w->end_name++);
	drop_placeholders(w);
	if (write(w->done, "D", 1) != 1) {
		/* the outer helper is gone: nobody waits */
	}
	_exit(0);
}

/* The time left until *at, for ppoll (zero once it has passed). */
static struct timespec left_until(const struct timespec *at)
{
	struct timespec now, d = { 0, 0 };

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec))
		return d;
	d.tv_sec = at->tv_sec - now.tv_sec;
	d.tv_nsec = at->tv_nsec - now.tv_nsec;
	if (d.tv_nsec < 0) {
		d.tv_sec--;
		d.tv_nsec += 1000000000L;
	}
	return d;
}

/* Once it has read what inotify and fanotify had, the watcher lets the
 * next events gather for SRT__WATCH_BATCH_MS before it polls them again
 * (see watch.h); the control pipe is polled all along. */
static void run_watcher(struct watcher *w) __attribute__((noreturn));
static void run_watcher(struct watcher *w)
{
	struct timespec next = { 0, 0 }; /* the queues are polled again from then on */

	for (;;) {
		struct pollfd p[3] = { { w->ifd, POLLIN, 0 }, { w->ctl, POLLIN, 0 }, { w->fan, POLLIN, 0 } };
		struct timespec gap;
		int gathering;

		/* events already read from the kernel's queue and not handled:
		 * read by a step that reads it before its own mark or ahead
		 * during a scan (an arrival at setup, or in the check after lost
		 * events once that check has passed the name). The kernel does
		 * not wake the watcher for them: only a later event would (the
		 * check's own listing of the watched directories makes one, a
		 * run without them none). */
		if (w->qpos + sizeof(struct inotify_event) <= w->qlen || w->overflow)
			handle_queue(w);
		gap = left_until(&next);
		gathering = gap.tv_sec > 0 || gap.tv_nsec > 0;

		if (gathering)
			p[0].fd = p[2].fd = -1; /* poll(2) skips them: no wake-up per event */
		if (ppoll(p, 3, gathering ? &gap : NULL, NULL) < 0) {
			if (errno == EINTR)
				continue;
			stop_run(w, "watcher", NULL, "poll failed");
		}
		if (p[2].revents & POLLIN)
			fan_read(w); /* its opens first, as they were queued first */
		if (p[1].revents)
			finish(w); /* which handles what is queued, within its time */
		if (p[0].revents & POLLIN) {
			read_events(w);
			handle_queue(w);
		}
		if ((p[0].revents | p[2].revents) & POLLIN) {
			clock_gettime(CLOCK_MONOTONIC, &next);
			next.tv_nsec += SRT__WATCH_BATCH_MS * 1000000L;
			if (next.tv_nsec >= 1000000000L) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000L;
			}
		}
	}
}

int srt__watch_start(const struct srt__init_opts *o, int events_fd, struct srt__watch *out)
{
	int ctl[2], done[2];
	pid_t pid;

	out->pid = -1;
	out->ctl = out->done = -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL) != 0) {
		int err = errno;

		if (!o->watch_weaker) {
			srt__init_failf("srt-linux-init: the watcher that keeps protected and denied files "
					"covered when the host replaces them cannot run: the helper cannot "
					"mount (%s; bwrap is setuid or did not keep CAP_SYS_ADMIN for it); use "
					"a bwrap that is not setuid, or set "
					"filesystem.enableWeakerNameProtection to run without it",
					strerror(err));
			return -1;
		}
		srt__init_say("srt: warning: files the host replaces during the run lose their protection "
			      "in this sandbox (the helper cannot mount: %s; bwrap is setuid or did not keep "
			      "CAP_SYS_ADMIN for it; filesystem.enableWeakerNameProtection)", strerror(err));
		return 1;
	}
	if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(done, O_CLOEXEC) != 0) {
		srt__init_fail("watcher: pipe", errno);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		srt__init_fail("watcher: fork", errno);
		return -1;
	}
	if (pid == 0) {
		struct watcher w;
		int err;

		memset(&w, 0, sizeof(w));
		w.fan = -1;
		w.o = o;
		w.events_fd = events_fd;
		w.ctl = ctl[0];
		w.done = done[1];
		close(ctl[1]);
		close(done[0]);
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || keep_sys_admin() != 0) {
			srt__init_fail("watcher: capabilities", errno);
			_exit(EXIT_SETUP);
		}
		if (getppid() == 1)
			_exit(EXIT_SETUP);
		if ((err = ahead_start(&w)) != 0) {
			srt__init_fail("watcher: the thread that covers denied names during a scan", err);
			_exit(EXIT_SETUP);
		}
		if (setup(&w) != 0)
			_exit(EXIT_SETUP);
		srt__init_status_fd = -1; /* failures from here on go to stderr */
		own_stderr();
		w.running = 1;
		if (write(w.done, "R", 1) != 1)
			_exit(EXIT_SETUP);
		run_watcher(&w);
	}
	close(ctl[0]);
	close(done[1]);
	out->pid = pid;
	out->ctl = ctl[1];
	out->done = done[0];
	return 0;
}

int srt__watch_ready(struct srt__watch *w)
{
	char c;
	ssize_t n;

	if (w->pid <= 0)
		return 0;
	do
		n = read(w->done, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'R') {
		if (n == 0)
			srt__init_failf("srt-linux-init: the watcher of replaced files could not start");
		kill(w->pid, SIGKILL);
		return -1;
	}
	return 0;
}

int srt__watch_finish(struct srt__watch *w, int timeout_ms, const sigset_t *ends)
{
	struct pollfd p[2];
	char c;
	int rc = -1, sfd = ends ? signalfd(-1, ends, SFD_CLOEXEC) : -1;

	if (w->pid <= 0) {
		if (sfd >= 0)
			close(sfd);
		return 0;
	}
	if (write(w->ctl, "F", 1) == 1) {
		p[0].fd = w->done;
		p[0].events = POLLIN;
		p[1].fd = sfd;
		p[1].events = POLLIN;
		for (;;) {
			int n;

			p[0].revents = p[1].revents = 0;
			n = poll(p, sfd >= 0 ? 2 : 1, timeout_ms);
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0 && (p[0].revents & (POLLIN | POLLHUP))) {
				if (read(w->done, &c, 1) == 1 && c == 'D')
					rc = 0; /* it handled every event and checked every name */
				break;
			}
			if (n > 0 && (p[1].revents & POLLIN)) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
				    sigismember(ends, (int)si.ssi_signo) == 1) {
					rc = -2;
					break;
				}
				continue;
			}
			break; /* out of time, or poll failed */
		}
	}
	kill(w->pid, SIGKILL);
	close(w->ctl);
	close(w->done);
	if (sfd >= 0)
		close(sfd);
	w->pid = -1;
	return rc;
}
