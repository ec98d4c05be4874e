/* srt-linux-init: the helper bwrap runs first in the sandbox's pid
 * namespace, under bwrap's own reaper (PID 1 there).
 *
 *   srt-linux-init [--proxy-socket PATH --proxy-socket-id DEV:INO
 *                   --http-port N --socks-port N]
 *                  [--allow-all-unix-sockets] [--allow-nested-userns]
 *                  [--weaker-nested-sandbox] [--status-fd N] [--debug]
 *                  [--events-fd N --monitor-policy-fd N] [--landlock-plan-fd N]
 *                  [--hide-file PATH]... [--pin-link PATH]... [--make-dev-proc]
 *                  [--watch-deny PATH]... [--watch-keep PATH]... [--watch-glob PATTERN]...
 *                  [--watch-tree ROOT]... [--watch-depth N] [--watch-weaker]
 *                  [--oom-score-min N]
 *                  -- command [args...]
 *   srt-linux-init --guard [--detach]   (srt's cleanup guard: guard-main.h)
 *
 * Process tree:
 *
 *   bwrap's reaper (PID 1 of bwrap's pid namespace; it reports our exit
 *   │                status to bwrap, which then exits without waiting
 *   │                for the namespaces to be torn down)
 *   outer (this process)
 *    ├─ bridge relay (srt__bridge_start, only with --proxy-socket)
 *    └─ nested init (PID 1 of a new pid + mount namespace)
 *        └─ worker: no_new_privs, seccomp, exec of the command (with
 *           --make-dev-proc in a user + mount namespace of its own)
 *
 * Start-up order: the outer helper makes /dev, /proc and the covers,
 * forks the watcher and reads the monitor's policy, then makes the nested
 * namespaces. From there the nested init and the worker set up their
 * layers while the outer helper finishes its own part (network
 * interception, its dumpability and capabilities, the proxy bridge, the
 * monitor's thread, the watcher's watches). The worker, every layer of its
 * own in place, waits for the outer helper's go-ahead before it execs the
 * command, and stops if the outer helper fails instead (EOF on that
 * pipe, or the outer helper kills the nested init): the command never
 * runs before every layer of both sides is there.
 *
 * The nested namespaces give the command a /proc that shows only its own
 * tree: the outer helper and the relay are not in it, so the command can
 * neither see nor signal nor ptrace them. Both init processes are
 * non-dumpable, forward INT TERM HUP QUIT USR1 USR2 downwards, reap every
 * child, and exit with the command's status (its exit code, or 128+N when
 * signal N killed it).
 *
 * Capabilities: srt asks bwrap to keep CAP_SYS_ADMIN for this helper (see
 * procargs.c), so the nested namespaces can be made without another user
 * namespace (with --make-dev-proc the command gets one of its own, below);
 * without it we fall back to a nested user namespace, which needs no
 * capability. Either way every process that the command can reach ends up with
 * no capabilities at all: the outer drops them before it starts the relay,
 * the nested init before the worker runs, the worker before it execs.
 *
 * Failures: one line "srt-linux-init: <step>: <reason>" on stderr and exit
 * status 125; the command never runs with fewer layers than asked for. If
 * exec itself fails the status is 127 (not found) or 126, like a shell.
 *
 * --status-fd N tells srt how the setup went, so it can tell a layer that
 * failed from a command that exits 125. The outer helper first writes "P":
 * N is a Unix socket whose reader asked for the sender's credentials, so
 * that byte tells srt this process's pid in srt's own pid namespace, where
 * srt sends the signals it forwards. Then the worker writes "S" on N just
 * before exec (every layer of both sides is in place), or a failing step
 * writes "E" and its message line there instead of on stderr. N is
 * close-on-exec: the command never holds it.
 *
 * --events-fd N --monitor-policy-fd M start the violation monitor
 * (monitor.h): the outer helper reads the policy from the sealed memfd M
 * before anything else runs, the worker loads the observe filter and hands
 * its listener to the outer over a socketpair made before the nested
 * namespaces, and the outer answers each notification while it forwards
 * signals, writing "deny <syscall> <path>" lines on N. The outer is not in
 * the command's pid namespace and not dumpable: the command can neither
 * see nor ptrace its supervisor. When the kernel cannot run the observer
 * the worker installs the plain filters (every refusal still in place) and
 * says so under --debug.
 *
 * --landlock-plan-fd N: a sealed memfd with the Landlock layer's plan
 * (backends/linux-bwrap/layer.h). The worker replays it after
 * no_new_privs and before the seccomp filters; a plan srt made must be
 * applied: any failure is a setup failure (125), never a silent skip.
 *
 * --hide-file PATH (repeated): the nested init (with --make-dev-proc the
 * outer helper, so the cover is locked) covers PATH, a file the
 * mount plan denies (mounts.h), with a read-only, nodev, nosuid /dev/null,
 * as bwrap's --ro-bind /dev/null PATH would: opening it fails with EACCES.
 * The target is opened without following a link, and the mount goes onto
 * that descriptor (move_mount), so a name swapped for a link or a
 * directory since srt planned it stops the run instead of mounting
 * elsewhere. Any failure is a setup failure.
 *
 * --pin-link PATH (repeated): in the same place, PATH, a denied name that
 * is a symbolic link inside a write root, gets a read-only mount on the
 * link itself (pin_one), so the command cannot replace it during the run.
 *
 * --watch-deny PATH, --watch-keep PATH, --watch-glob PATTERN,
 * --watch-tree ROOT (repeated) and --watch-depth N start the watcher
 * (watch.h) before anything else: a process that keeps the covers on
 * names the host replaces during the run (denied: /dev/null; kept:
 * read-only), covers new names that match a denyRead glob and new
 * .vscode, .idea and .claude directories in the write roots. The outer
 * helper's mounts become shared and the nested namespaces slaves, so its
 * covers reach the command. After the command ends the outer helper lets
 * it handle what is queued. Where the watcher cannot run (the helper
 * cannot mount: no CAP_SYS_ADMIN, a setuid bwrap; or fanotify is refused)
 * the run fails with one line naming the cause and the setting
 * (filesystem.enableWeakerNameProtection) that accepts the weaker
 * protection; with --watch-weaker, which that setting passes, srt says so
 * on one line and the run goes on without it.
 *
 * --make-dev-proc: srt left bwrap's --dev /dev and --proc /proc out, and
 * the outer helper makes the same /dev and /proc itself, in bwrap's
 * namespaces before the nested ones copy them (make_dev_proc). bwrap
 * re-reads /proc/self/mountinfo after each of its binds; the nine binds
 * of those two options were about 3 ms of every start. Refused outside a
 * new pid and user namespace. bwrap's --dev made it add a second user
 * namespace for unprivileged callers, which locked what the nested
 * namespaces copied; without it there is one, so the worker gets a user
 * and mount namespace of its own (start_locked_worker): mounts
 * copied across that boundary are locked, and nothing the command
 * inherits (bwrap's binds, this /dev, the covers on hidden files, the
 * nested /proc and its covers) can come off to show what is below. A
 * root caller's uid 0 is mapped into it, which takes CAP_SETFCAP: srt
 * asks bwrap to keep it, and every helper process drops it with every
 * other capability.
 *
 * This file runs the command (namespaces, supervision, the worker's
 * layers); the command line is opts.c, the messages report.c, the
 * --hide-file and --pin-link mounts hide.c, /dev and /proc devproc.c,
 * starting the violation monitor observer.c, and the watcher of replaced
 * names watch.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux-bwrap/guard-main.h"
#include "backends/linux-bwrap/init/bridge.h"
#include "backends/linux-bwrap/init/devproc.h"
#include "backends/linux-bwrap/init/hide.h"
#include "backends/linux-bwrap/init/monitor.h"
#include "backends/linux-bwrap/init/observer.h"
#include "backends/linux-bwrap/init/opts.h"
#include "backends/linux-bwrap/init/report.h"
#include "backends/linux-bwrap/init/watch.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/landlock-replay.h"
#include "backends/linux-common/helper-defs.h"
#include "common/platform.h"

/* The watcher runs (watch.h): the outer helper's mounts are shared, and
 * the nested namespaces take its covers as slaves. */
static int covers_propagate;

/* The read end of the pipe on which the outer helper writes the seccomp
 * filters it built for the worker (srt__seccomp_export), or -1. */
static int prebuilt_fd = -1;

/* Signals srt forwards to us and we forward to the command. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

/* fork(2) with namespace flags; the child returns 0 like fork. Only used
 * before anything else runs in the child, which execs or forks again. */
static pid_t clone_ns(unsigned long flags)
{
#if defined(__s390__) || defined(__s390x__)
	return (pid_t)syscall(SYS_clone, NULL, flags | SIGCHLD);
#else
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
#endif
}

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, text, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

/* Let the other side of a one-byte pipe go on (its byte written, both
 * ends closed): 0; on failure -1, said as `what`, the ends left to the
 * caller's cleanup. */
static int release(int p[2], const char *what)
{
	char one = 1;

	if (write(p[1], &one, 1) != 1) {
		srt__init_fail(what, errno);
		return -1;
	}
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
	return 0;
}

/* Map only our own ids into the child's new user namespace (the one
 * mapping an unprivileged process may write), with setgroups denied.
 * bwrap_caps: we are the outer helper, whose CAP_SETFCAP (needed to map
 * uid 0) comes from bwrap's --cap-add. */
static int write_id_maps(pid_t child, int bwrap_caps)
{
	static const char *const names[] = { "setgroups", "uid_map", "gid_map" };
	char path[64], text[64];
	int i, err;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, names[i]);
		if (i == 0)
			snprintf(text, sizeof(text), "deny");
		else
			snprintf(text, sizeof(text), "%u %u 1",
				 i == 1 ? (unsigned)geteuid() : (unsigned)getegid(),
				 i == 1 ? (unsigned)geteuid() : (unsigned)getegid());
		err = write_file(path, text);
		if (err && err == EPERM && i == 1 && geteuid() == 0 && bwrap_caps) {
			srt__init_failf("srt-linux-init: write uid_map of the nested user namespace: %s (mapping uid 0 "
			      "into it takes CAP_SETFCAP, which srt asks bwrap to keep: --cap-add CAP_SETFCAP)",
			      strerror(err));
			return -1;
		} else if (err) {
			char step[96];
			snprintf(step, sizeof(step), "write %s of the nested user namespace", names[i]);
			srt__init_fail(step, err);
			return -1;
		}
	}
	return 0;
}

/* Give up every capability: effective, permitted, inheritable, ambient. A
 * uid-0 process would get its permitted set back at exec, but not under
 * no_new_privs (the worker sets it before exec). The bounding set goes
 * too, first, when CAP_SETPCAP is ours to do it with: srt asks bwrap for
 * it, and the nested init of the user-namespace fallback holds every
 * capability of its namespace. Without it (the outer helper of that
 * fallback, which runs no command; a bwrap started by hand) the bounding
 * set stays as bwrap left it, which no_new_privs already keeps from
 * raising anything at exec. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & (1u << CAP_SETPCAP))) {
		/* dropping one that is not held succeeds; EINVAL past this
		 * kernel's last capability (they are numbered without gaps)
		 * ends the loop, one call per capability */
		for (cap = 0; cap <= 63; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
				continue;
			if (errno == EINVAL && cap > CAP_SETFCAP)
				break;
			srt__init_fail("drop the capability bounding set", errno);
			return -1;
		}
	}
	memset(data, 0, sizeof(data));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
		srt__init_fail("clear ambient capabilities", errno);
		return -1;
	}
	if (syscall(SYS_capset, &hdr, data) != 0) {
		srt__init_fail("drop capabilities", errno);
		return -1;
	}
	return 0;
}

static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_SETUP;
}

/* The watcher ended before it had checked everything the command may
 * have written (who: "srt stopped the watcher of replaced files", it did
 * not finish in time; or it ended during the run): one violation line, on
 * the events pipe (the run's summary) when there is one, and stderr. */
static void watch_unfinished(int events_fd, const char *who)
{
	char line[400];
	int n = snprintf(line, sizeof(line), "deny write watcher: %s before it had checked the protected "
			 "files the host replaced during the run: a write the command made to one may "
			 "remain: inspect them\n", who);

	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (events_fd >= 0 && write(events_fd, line, (size_t)n) == (ssize_t)n)
		return;
	srt__init_say("srt: %.*s", n - 1, line);
}

/* Forward the signals in set (all blocked) to child and reap every child
 * until child itself is gone; return its status as an exit code. The
 * watcher (watch, when it runs) ending before the command means the
 * covers of replaced files are no longer kept: the command is stopped and
 * the run fails. */
static int supervise(pid_t child, const sigset_t *set, struct srt__watch *watch, int events_fd)
{
	int watcher_gone = 0;

	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			srt__init_fail("sigwaitinfo", errno);
			kill(child, SIGKILL);
			return EXIT_SETUP;
		}
		if (sig != SIGCHLD) {
			kill(child, sig);
			/* a stopped command would keep a terminating signal
			 * pending for ever, and nothing outside can resume it
			 * in its hidden namespace (timeout(1) sends CONT to srt
			 * only): continue it, as kill(1) users expect */
			if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
				kill(child, SIGCONT);
			continue;
		}
		for (;;) {
			int st;
			pid_t p = waitpid(-1, &st, WNOHANG);

			if (p <= 0)
				break;
			if (p == child)
				return watcher_gone ? EXIT_SETUP : status_code(st);
			if (watch && p == watch->pid) {
				watch->pid = -1;
				watcher_gone = 1;
				/* before the message, which may wait on the
				 * terminal the command stopped */
				kill(child, SIGKILL);
				srt__init_say("srt-linux-init: the watcher that keeps replaced protected files "
					      "covered ended during the run (%s %d); the command was stopped",
					      WIFSIGNALED(st) ? "signal" : "exit status",
					      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
				watch_unfinished(events_fd, "the watcher of replaced files ended during the run");
			}
		}
	}
}

/* The Landlock layer, in the worker: the paths are the sandbox's now
 * (bwrap's binds keep the host's objects at their host paths; what bwrap
 * and we made here is granted by the plan's "here" records). */
static void apply_landlock(const struct srt__init_opts *o)
{
	struct srt__ll_replay p;
	size_t len = 0;
	char *buf = NULL;

	srt__ll_replay_init(&p);
	if (srt__ll_replay_read(&p, o->landlock_fd, &buf, &len) != 0 ||
	    srt__ll_replay_build(&p, buf, len, SRT_LL_REPLAY_HERE) != 0 ||
	    srt__ll_replay_stdio(&p) != 0) {
		srt__init_failf("srt-linux-init: landlock layer: %s: %s", p.step, p.why);
		_exit(EXIT_SETUP);
	}
	/* the monitor makes some of the command's calls itself: it gets the
	 * same ruleset, built here where the "here" paths are the command's */
	if (srt__init_monitor && p.ruleset_fd >= 0) {
		srt__init_ll_ruleset = fcntl(p.ruleset_fd, F_DUPFD_CLOEXEC, 3);
		if (srt__init_ll_ruleset < 0) {
			srt__init_fail("landlock layer: keep the ruleset for the violation monitor", errno);
			_exit(EXIT_SETUP);
		}
	}
	if (srt__ll_replay_restrict(&p) != 0) {
		srt__init_failf("srt-linux-init: landlock layer: %s: %s", p.step, p.why);
		_exit(EXIT_SETUP);
	}
	free(buf);
	close(o->landlock_fd);
	if (o->debug)
		srt__init_say("srt-linux-init: (debug) landlock layer: %zu rules applied (kernel ABI %d), "
		    "%zu planned objects absent or replaced here",
		    p.n_rules, p.kernel_abi, p.n_skipped);
}

/* Wait for the outer helper's go-ahead on go_fd (see run): 0 once it
 * came; -1 at EOF, when the outer helper failed (it said why) or is gone. */
static int wait_go(int go_fd)
{
	char c;
	ssize_t n;

	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(go_fd);
	return n == 1 ? 0 : -1;
}

/* The worker: its layers, then the command. ids_go: with --make-dev-proc,
 * where the nested init says it has mapped this process's ids and
 * dropped its own capabilities (else -1); go_fd: the outer helper's
 * go-ahead. */
static void worker(const struct srt__init_opts *o, int ids_go, int go_fd, const sigset_t *orig_mask)
	__attribute__((noreturn));
static void worker(const struct srt__init_opts *o, int ids_go, int go_fd, const sigset_t *orig_mask)
{
	struct srt__seccomp_prebuilt pb;
	char step[128] = "";
	unsigned flags = 0;
	int rc, have_pb = 0;

	if (sigprocmask(SIG_SETMASK, orig_mask, NULL) != 0) {
		srt__init_fail("restore signal mask", errno);
		_exit(EXIT_SETUP);
	}
	/* the first process of a user namespace holds every capability in
	 * it. Nothing below needs the id maps: Landlock's opens are checked
	 * with this process's own ids, which the maps only name, and with no
	 * capability left none of them can be overridden either way. */
	if (ids_go >= 0 && drop_caps() != 0)
		_exit(EXIT_SETUP);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		srt__init_fail("prctl(PR_SET_NO_NEW_PRIVS)", errno);
		_exit(EXIT_SETUP);
	}
	if (o->landlock_fd >= 0)
		apply_landlock(o);
	if (o->allow_unix)
		flags |= SRT_SECCOMP_ALLOW_UNIX;
	if (o->allow_userns)
		flags |= SRT_SECCOMP_ALLOW_USERNS;
	/* the filters the outer helper built while we set the rest up; each
	 * is loaded only when built for exactly the flags we would build it
	 * for, else (and when nothing came: EOF) built here */
	if (prebuilt_fd >= 0) {
		have_pb = srt__seccomp_read_prebuilt(prebuilt_fd, &pb) == 0;
		close(prebuilt_fd);
		prebuilt_fd = -1;
	}
	if (srt__init_monitor)
		flags |= srt__init_start_observer(o, have_pb ? &pb : NULL);
	if (have_pb && pb.flags == flags)
		rc = srt__seccomp_load_prebuilt(&pb, step, sizeof(step));
	else
		rc = srt__seccomp_install(flags, step, sizeof(step));
	if (have_pb)
		srt__seccomp_prebuilt_free(&pb);
	if (rc < 0) {
		char what[160];
		snprintf(what, sizeof(what), "seccomp: %s", step);
		srt__init_fail(what, -rc);
		_exit(EXIT_SETUP);
	}
	/* Every layer of this process is in place. The outer helper's part
	 * (its capabilities and dumpability, network interception, the proxy
	 * bridge, the violation monitor's thread, the watcher's watches) ran
	 * beside this one, and the command starts only once the outer helper
	 * has said all of it is there. A call of this process that the
	 * observe filter notifies waits in the kernel until the monitor's
	 * thread answers it, however late that thread comes up. */
	if (ids_go >= 0 && wait_go(ids_go) != 0)
		_exit(EXIT_SETUP); /* the nested init failed and said why */
	if (wait_go(go_fd) != 0)
		_exit(EXIT_SETUP); /* the outer helper failed and said why */
	if (srt__init_status_fd >= 0 && write(srt__init_status_fd, "S", 1) != 1) {
		/* srt is gone or stopped listening: nobody to run for */
		srt__init_fail("report to srt", errno);
		_exit(EXIT_SETUP);
	}
	execvp(o->argv[0], o->argv);
	rc = errno;
	srt__init_say("srt-linux-init: %s: %s", o->argv[0], strerror(rc));
	_exit(rc == ENOENT || rc == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/* --make-dev-proc: the worker gets a user and mount namespace of its own,
 * so that the nested init's /proc and its read-only covers, mounted in
 * the nested namespaces, are locked in the copy it gets, as every mount
 * from bwrap and the outer helper already is. The nested init maps the
 * worker's ids and drops its capabilities while the worker sets its
 * layers up; the worker waits for both before the command's exec.
 * Returns the worker's pid; exits on failure. */
static pid_t start_locked_worker(const struct srt__init_opts *o, int outer_go, const sigset_t *orig_mask)
{
	int go[2];
	char one = 1;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) != 0) {
		srt__init_fail("pipe", errno);
		_exit(EXIT_SETUP);
	}
	/* The worker's /proc files must be ours to write its id maps: a
	 * task that is not dumpable has them owned by its namespace's root,
	 * unmapped until then. So it starts dumpable (it execs the command
	 * soon, which is dumpable again anyway); we are not, a moment later. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
		srt__init_fail("prctl(PR_SET_DUMPABLE) for the command's namespaces", errno);
		_exit(EXIT_SETUP);
	}
	pid = clone_ns(CLONE_NEWUSER | CLONE_NEWNS);
	if (pid < 0 && (errno == ENOSPC || errno == EUSERS || errno == EPERM)) {
		srt__init_failf("srt-linux-init: create the command's user and mount namespaces: %s (the "
		      "command gets a user namespace of its own below bwrap's; check "
		      "user.max_user_namespaces and any limit set above srt); the command was not run",
		      strerror(errno));
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		_exit(EXIT_SETUP);
	}
	if (pid != 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		srt__init_fail("prctl(PR_SET_DUMPABLE) in the nested init", errno);
		if (pid > 0)
			kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (pid < 0) {
		srt__init_fail("create the command's user and mount namespaces", errno);
		_exit(EXIT_SETUP);
	}
	if (pid == 0) {
		/* its layers go on beside our id maps and capability drop;
		 * it waits for them before the command's exec */
		close(go[1]);
		worker(o, go[0], outer_go, orig_mask);
	}
	close(go[0]);
	if (write_id_maps(pid, 0) != 0) {
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (drop_caps() != 0) { /* it said why */
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	if (write(go[1], &one, 1) != 1) {
		srt__init_fail("start the command's namespaces", errno);
		kill(pid, SIGKILL);
		_exit(EXIT_SETUP);
	}
	close(go[1]);
	return pid;
}

/* PID 1 of the nested namespaces: with a nested user namespace, wait
 * until the outer helper has written its id maps (ids_fd); finish the
 * namespace setup while the outer helper does its own, run the worker,
 * which waits for the outer helper's go-ahead (go_fd) before the
 * command's exec, forward and reap. */
static void nested_init(const struct srt__init_opts *o, int ids_fd, int go_fd, int made_userns,
			const sigset_t *set, const sigset_t *orig_mask) __attribute__((noreturn));
static void nested_init(const struct srt__init_opts *o, int ids_fd, int go_fd, int made_userns,
			const sigset_t *set, const sigset_t *orig_mask)
{
	int fresh_proc = 0;
	pid_t pid;

	if (ids_fd >= 0 && wait_go(ids_fd) != 0)
		_exit(EXIT_SETUP); /* the outer helper failed and said why */
	/* the monitor's ends belong to the outer helper */
	if (srt__init_mon_sock[0] >= 0)
		close(srt__init_mon_sock[0]);
	if (o->events_fd >= 0)
		close(o->events_fd);

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		srt__init_fail("prctl(PR_SET_DUMPABLE) in the nested init", errno);
		_exit(EXIT_SETUP);
	}
	/* our mounts must not propagate back into bwrap's namespace; the
	 * watcher's covers, mounted there, must propagate into this one */
	if (mount(NULL, "/", NULL, MS_REC | (covers_propagate ? MS_SLAVE : MS_PRIVATE), NULL) != 0) {
		srt__init_fail(covers_propagate ? "make / a slave in the nested mount namespace"
						: "make / private in the nested mount namespace", errno);
		_exit(EXIT_SETUP);
	}
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
		fresh_proc = 1;
	} else {
		/* enableWeakerNestedSandbox is for hosts (unprivileged
		 * containers) where proc cannot be mounted; the user accepted
		 * the host's /proc there */
		if (!o->weaker) {
			srt__init_fail("mount /proc for the nested pid namespace", errno);
			_exit(EXIT_SETUP);
		}
		if (o->debug)
			srt__init_say("srt-linux-init: (debug) mount /proc: %s; keeping the bound one (weaker nested sandbox)",
			    strerror(errno));
	}
	if (made_userns && !o->allow_userns && !o->make_dev_proc) {
		/* a second lock besides seccomp: no user namespace can be made
		 * below this one. Best effort. Not with
		 * --make-dev-proc, where the command gets one of its own, which
		 * the limit would refuse. */
		int err = write_file("/proc/sys/user/max_user_namespaces", "0");
		if (err && o->debug)
			srt__init_say("srt-linux-init: (debug) max_user_namespaces=0 in the nested user namespace: %s",
			    strerror(err));
	}
	/* on the host's /proc that the weaker mode binds in, the container
	 * runtime decides what is writable; our covers are best effort there */
	if (srt__init_cover_proc(fresh_proc || !o->weaker, o->debug) != 0)
		_exit(EXIT_SETUP);
	/* with --make-dev-proc the outer helper covered them, before the
	 * copy that locks them */
	if (!o->make_dev_proc && srt__init_hide_files(o) != 0)
		_exit(EXIT_SETUP);
	if (o->make_dev_proc) {
		pid = start_locked_worker(o, go_fd, orig_mask);
	} else {
		if (drop_caps() != 0)
			_exit(EXIT_SETUP);
		pid = fork();
		if (pid < 0) {
			srt__init_fail("fork the command", errno);
			_exit(EXIT_SETUP);
		}
		if (pid == 0)
			worker(o, -1, go_fd, orig_mask);
	}
	close(go_fd);
	if (prebuilt_fd >= 0)
		close(prebuilt_fd);
	if (srt__init_status_fd >= 0)
		close(srt__init_status_fd);
	if (srt__init_mon_sock[1] >= 0)
		close(srt__init_mon_sock[1]); /* the worker's: EOF for the outer if it dies early */
	_exit(supervise(pid, set, NULL, -1));
}

static int run(int argc, char **argv)
{
	struct srt__init_opts o;
	sigset_t set, orig_mask;
	struct sigaction dfl;
	struct srt__watch watch = { -1, -1, -1 };
	struct srt__icept_fds icept = { -1, -1, -1, -1, -1, -1 };
	int go[2] = { -1, -1 }, ids[2] = { -1, -1 }, pre[2] = { -1, -1 };
	int made_userns = 0;
	pid_t child = -1;
	size_t i;
	int rc = EXIT_SETUP;

	if (srt__init_parse_opts(argc, argv, &o) != 0)
		return EXIT_SETUP;
	/* who to forward signals to: our pid travels with this byte */
	if (srt__init_status_fd >= 0 && write(srt__init_status_fd, "P", 1) != 1) {
		srt__init_fail("report to srt", errno);
		return EXIT_SETUP;
	}

	/* Block what we forward, and SIGCHLD, before any child exists: a
	 * signal that comes early stays pending and is forwarded once there
	 * is someone to forward it to. PID 1 gets signals it blocks (it would
	 * drop default-action ones it does not). */
	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	/* SIG_IGN inherited for SIGCHLD would make the kernel reap for us */
	if (sigaction(SIGCHLD, &dfl, NULL) != 0 || sigprocmask(SIG_BLOCK, &set, &orig_mask) != 0) {
		srt__init_fail("signal setup", errno);
		return EXIT_SETUP;
	}
	/* before the nested namespaces, which copy it. Only as bwrap's
	 * command (PID 2 beside its reaper, 1 with --as-pid-1): run by hand
	 * as root it would cover the host's own /dev and /proc. */
	if (o.make_dev_proc && getpid() > 2) {
		srt__init_failf("srt-linux-init: --make-dev-proc: this process (pid %ld) is not the first of a "
		      "new pid namespace; the option is for bwrap's command only",
		      (long)getpid());
		return EXIT_SETUP;
	}
	if (o.make_dev_proc && !srt__init_in_new_userns()) {
		srt__init_failf("srt-linux-init: --make-dev-proc: this process is in the host's user namespace "
		      "(or /proc/self/ns/user cannot be read); the option is for bwrap's command only");
		return EXIT_SETUP;
	}
	if (o.make_dev_proc && srt__init_make_dev_proc() != 0)
		return EXIT_SETUP;
	/* before any namespace is copied: the command's copy, made across a
	 * user namespace boundary, has them locked, so no cover comes off */
	if (o.make_dev_proc && srt__init_hide_files(&o) != 0)
		return EXIT_SETUP;
	/* once /proc is there and before anything is forked: every process
	 * of the sandbox comes before srt's guard for the OOM killer
	 * (include/srt/backend.h, SRT_GUARD_OOM_RAISE). A score that stays
	 * as it was does not stop the run. */
	if (o.oom_min >= -1000 && srt__os_oom_at_least(o.oom_min) != 0 && o.debug)
		srt__init_say("srt-linux-init: (debug) --oom-score-min %d: %s (the run goes on)", o.oom_min,
			      strerror(errno));
	/* before the capabilities go, before the nested namespaces copy the
	 * mounts it makes shared, and before the monitor holds anything the
	 * watcher must not. It sets its watches up beside what follows;
	 * srt__watch_ready waits for them before the command may start. */
	if (srt__watch_wanted(&o)) {
		int w = srt__watch_start(&o, o.events_fd, &watch);

		if (w < 0)
			return EXIT_SETUP;
		covers_propagate = w == 0;
	}
	if (o.events_fd >= 0) {
		char err[256];

		if (srt__monitor_load(o.policy_fd, o.events_fd, o.debug, &srt__init_monitor, err,
				      sizeof(err)) != 0) {
			srt__init_failf("srt-linux-init: violation monitor: %s", err);
			goto out;
		}
		if (!o.allow_userns)
			srt__monitor_one_root(srt__init_monitor);
		close(o.policy_fd);
		o.policy_fd = -1;
		/* before the filters and namespaces: the worker's end travels
		 * with it into the nested namespaces */
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, srt__init_mon_sock) != 0) {
			srt__init_fail("violation monitor: socketpair", errno);
			goto out;
		}
	}
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(pre, O_CLOEXEC) != 0) {
		srt__init_fail("pipe", errno);
		goto out;
	}

	child = clone_ns(CLONE_NEWPID | CLONE_NEWNS);
	if (child < 0 && errno == EPERM) {
		if (o.debug)
			srt__init_say("srt-linux-init: (debug) no CAP_SYS_ADMIN here, nesting a user namespace");
		made_userns = 1;
		if (pipe2(ids, O_CLOEXEC) != 0) {
			srt__init_fail("pipe", errno);
			goto out;
		}
		child = clone_ns(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS);
	}
	if (child < 0) {
		int err = errno;

		if (made_userns && (err == EPERM || err == ENOSPC || err == EUSERS))
			srt__init_failf("srt-linux-init: create the nested user, pid and mount namespaces: %s "
			      "(bubblewrap did not keep CAP_SYS_ADMIN for the helper and no user namespace "
			      "can be made inside the sandbox: user.max_user_namespaces, a seccomp profile "
			      "or bwrap --disable-userns); the command was not run",
			      strerror(err));
		else
			srt__init_fail(made_userns ? "create the nested user, pid and mount namespaces"
					 : "create the nested pid and mount namespaces",
			     err);
		goto out;
	}
	if (child == 0) {
		close(go[1]);
		close(pre[1]);
		prebuilt_fd = pre[0];
		if (ids[1] >= 0)
			close(ids[1]);
		nested_init(&o, ids[0], go[0], made_userns, &set, &orig_mask);
	}
	/* The nested init and the worker set their layers up from here on,
	 * beside what this process still does below; the worker waits for
	 * the byte on go before the command's exec, and reads EOF (and
	 * stops) if this process fails first. go[0] and ids[0] stay open
	 * here until their byte is written: a nested init that failed early
	 * takes the last other reader with it, and the write would raise
	 * SIGPIPE instead of leaving its exit status to supervise(). */
	if (srt__init_mon_sock[1] >= 0) {
		close(srt__init_mon_sock[1]);
		srt__init_mon_sock[1] = -1;
	}

	if (made_userns) {
		if (write_id_maps(child, 1) != 0)
			goto out;
		if (release(ids, "start the nested init") != 0)
			goto out;
	}
	/* From here on nothing from the sandbox may ptrace or read us. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		srt__init_fail("prctl(PR_SET_DUMPABLE)", errno);
		goto out;
	}
	/* The worker's enforcement filter, built here first, while the
	 * worker sets up its other layers and builds its observe filter:
	 * building a filter is most of what loading it takes. Only that
	 * one: with both built here the worker reached the point where it
	 * loads them before this process had written them, and waited. The
	 * same code builds it, and the worker loads it only when it was
	 * built for the flags it would build it for; a failure here only
	 * makes the worker build its own. A filter compiled into this
	 * program (seccomp.h, "filters built when srt was built") is not
	 * sent: the worker has the same copy. */
	{
		unsigned obs = srt__init_observe_flags(&o);
		unsigned fl = (o.allow_unix ? SRT_SECCOMP_ALLOW_UNIX : 0) |
			      (o.allow_userns ? SRT_SECCOMP_ALLOW_USERNS : 0) |
			      (obs & SRT_OBSERVE_UNIX ? SRT_SECCOMP_UNIX_OBSERVED : 0) |
			      (obs & SRT_OBSERVE_READS ? SRT_SECCOMP_NO_LANDLOCK_SELF : 0);
		char step[128] = "";

		/* never waits for a reader that may be gone: a program
		 * larger than the pipe holds (none is) is left to the
		 * worker to build */
		if (srt__seccomp_program_built(SRT_SECCOMP_KIND_ENFORCE, fl))
			; /* built with srt: the worker loads it from its own copy (EOF here) */
		else if (fcntl(pre[1], F_SETFL, O_NONBLOCK) != 0)
			snprintf(step, sizeof(step), "pipe");
		else if (srt__seccomp_export(0, fl, pre[1], step, sizeof(step)) == 0)
			step[0] = 0;
		if (step[0] && o.debug)
			srt__init_say("srt-linux-init: (debug) seccomp filters not built ahead (%s); the worker "
				      "builds them", step);
		close(pre[0]);
		close(pre[1]);
		pre[0] = pre[1] = -1;
	}
	/* the interception sockets and rules need CAP_NET_ADMIN and
	 * CAP_NET_BIND_SERVICE over this network namespace: before the drop */
	if (o.intercept) {
		char why[320];

		if (srt__icept_open(&icept, why, sizeof(why)) != 0) {
			if (o.intercept == 1) {
				srt__init_failf("srt-linux-init: network interception could not be set up: %s "
						"(set network.intercept to \"optional\" or \"off\" to run without it)",
						why);
				goto out;
			}
			fprintf(stderr, "srt: running without network interception (%s): only clients that use the proxy variables reach the network\n",
				why);
		}
	}
	if (drop_caps() != 0)
		goto out;
	if (o.proxy_socket) {
		struct srt__bridge_spec spec = {
			.socket_path = o.proxy_socket,
			.socket_dev = o.proxy_dev,
			.socket_ino = o.proxy_ino,
			.http_port = o.http_port,
			.socks_port = o.socks_port,
			.icept = icept.tcp >= 0 ? &icept : NULL,
			.token = o.token,
		};
		pid_t relay;

		if (srt__bridge_start(&spec, &relay) != 0) {
			/* the bridge said why on stderr */
			srt__init_failf("srt-linux-init: the proxy bridge could not start (see the bridge's message)");
			goto out;
		}
	}
	/* after the bridge's fork: no fork once there is a second thread */
	if (srt__init_monitor) {
		int err = srt__init_start_monitor_thread(&child);

		if (err) {
			srt__init_fail("start the violation monitor thread", err);
			goto out;
		}
	}
	/* before the go-ahead: the command must not start before every
	 * watch is in place */
	if (srt__watch_ready(&watch) != 0)
		goto out;
	if (release(go, "start the command") != 0)
		goto out;
	if (srt__init_status_fd >= 0)
		close(srt__init_status_fd);
	rc = supervise(child, &set, &watch, o.events_fd);
	/* The nested init has ended, and with it every process of its pid
	 * namespace: nothing writes any more. The watcher's last pass puts
	 * back each protected name the command wrote, however far behind a
	 * loaded machine left it, so it is waited for without a time limit;
	 * only a signal that ends srt (timeout(1), ^C) cuts it short. A
	 * watcher that could not finish leaves protected files unchecked:
	 * said as a violation, never passed over. */
	{
		sigset_t ends;
		int wr;

		sigemptyset(&ends);
		sigaddset(&ends, SIGINT);
		sigaddset(&ends, SIGTERM);
		sigaddset(&ends, SIGHUP);
		sigaddset(&ends, SIGQUIT);
		wr = srt__watch_finish(&watch, -1, &ends);
		if (wr == -2)
			watch_unfinished(o.events_fd, "srt was told to stop (a signal) and stopped the "
					 "watcher of replaced files");
		else if (wr != 0)
			watch_unfinished(o.events_fd, "the watcher of replaced files ended");
	}
	/* a note about dropped events may still be waiting for room */
	srt__monitor_finish(srt__init_monitor, 200);
	/* The last event is out: say so, so srt need not wait for EOF, which
	 * only comes when bwrap's own processes, holding copies of this
	 * descriptor, have exited. A NUL cannot occur in an event line. */
	if (srt__init_monitor && o.events_fd >= 0 && write(o.events_fd, "\0\n", 2) != 2 && o.debug)
		srt__init_say("srt-linux-init: (debug) end-of-events mark: %s", strerror(errno));
	return rc;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	srt__watch_finish(&watch, 0, NULL);
	for (i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ids[i] >= 0)
			close(ids[i]);
		if (pre[i] >= 0)
			close(pre[i]);
	}
	return rc;
}

int main(int argc, char **argv)
{
	/* srt's cleanup guard (guard-main.c): a mode of this program because
	 * srt already finds it where nothing sandboxed can plant it, and as a
	 * static program it starts at a fraction of a fork of srt */
	if (argc >= 2 && !strcmp(argv[1], "--guard"))
		_exit(srt__bwrap_guard_mode(argc, argv));
	/* _exit: no atexit work in a process that may be PID 1 of a namespace
	 * and is not dumpable (a leak checker's ptrace would fail and change
	 * the exit status the command's caller sees) */
	_exit(run(argc, argv));
}
