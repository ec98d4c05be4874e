/* srt-linux-init: making the sandbox's /dev and /proc: with
 * --make-dev-proc the /dev bwrap's --dev would make and a /proc for bwrap's
 * pid namespace, and in the nested namespaces the read-only covers of the
 * fresh /proc. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/linux-bwrap/init/devproc.h"
#include "backends/linux-bwrap/init/mount-api.h"
#include "backends/linux-bwrap/init/report.h"

/* bwrap covers these with read-only binds of themselves; our fresh /proc
 * must too: a uid-0 caller's command is uid 0 for sysctl permission checks
 * and could otherwise write host-wide sysctls. */
static const char *const proc_covers[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus" };

int srt__init_cover_proc(int required, int debug)
{
	size_t i;

	for (i = 0; i < sizeof(proc_covers) / sizeof(proc_covers[0]); i++) {
		const char *p = proc_covers[i];
		char step[64];

		if (access(p, F_OK) != 0)
			continue;
		if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) != 0 ||
		    mount(NULL, p, NULL,
			  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) != 0) {
			snprintf(step, sizeof(step), "read-only %s", p);
			if (!required) {
				if (debug)
					srt__init_say("srt-linux-init: (debug) %s: %s", step, strerror(errno));
				continue;
			}
			srt__init_fail(step, errno);
			return -1;
		}
	}
	return 0;
}

/* --make-dev-proc: bwrap's --dev /dev, node for node (the same host
 * devices, modes, links and devpts options), and a /proc for bwrap's pid
 * namespace (no covers there: see the mount below). */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
#define N_DEV_NODES (sizeof(dev_nodes) / sizeof(dev_nodes[0]))
static const char *const dev_links[][2] = {
	{ "/proc/self/fd/0", "/dev/stdin" },  { "/proc/self/fd/1", "/dev/stdout" },
	{ "/proc/self/fd/2", "/dev/stderr" }, { "/proc/self/fd", "/dev/fd" },
	{ "/proc/kcore", "/dev/core" },
};

/* A detached copy of the mount that holds the host's character device
 * PATH, usable as a device: nosuid, and without the nodev and read-only
 * flags that bwrap's --ro-bind / / put on its copy of the host's /dev
 * (as bwrap's --dev binds them). Where the host's own mount has one of
 * them locked (a read-only or nodev /dev, then copied into bwrap's user
 * namespace) it stays, as it does on bwrap's bind. -1 with errno. */
static int clone_node(const char *path)
{
	static const uint64_t clear[] = {
		MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV, MOUNT_ATTR_NODEV, MOUNT_ATTR_RDONLY, 0,
	};
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} attr = { MOUNT_ATTR_NOSUID, 0, 0, 0 };
	struct stat st;
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC);
	int err = 0;
	size_t i;

	if (tree < 0)
		return -1;
	if (fstat(tree, &st) != 0)
		err = errno;
	else if (!S_ISCHR(st.st_mode))
		err = ENODEV;
	for (i = 0; !err && i < sizeof(clear) / sizeof(clear[0]); i++) {
		attr.attr_clr = clear[i];
		if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == 0)
			break;
		/* EPERM: a flag to clear is locked; anything else is an error */
		if (errno != EPERM || i + 1 == sizeof(clear) / sizeof(clear[0]))
			err = errno;
	}
	if (err) {
		close(tree);
		errno = err;
		return -1;
	}
	return tree;
}

/* TREE onto a new empty file TARGET in our own fresh tmpfs. 0 or errno. */
static int attach_node(int tree, const char *target)
{
	int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);

	if (fd < 0)
		return errno;
	close(fd);
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return errno;
	return 0;
}

/* Not the host's user namespace: bwrap always makes one for srt
 * (--unshare-user). The initial one has a fixed inode number
 * (PROC_USER_INIT_INO); unreadable counts as the host's. */
int srt__init_in_new_userns(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) == 0 && st.st_ino != 0xEFFFFFFDu;
}

int srt__init_make_dev_proc(void)
{
	int trees[N_DEV_NODES], console = -1, err = 0;
	char step[PATH_MAX + 32], tty[PATH_MAX];
	size_t i;

	for (i = 0; i < N_DEV_NODES; i++)
		trees[i] = -1;
	/* the sources first: the tmpfs below hides the host's /dev */
	for (i = 0; i < N_DEV_NODES && !err; i++) {
		snprintf(step, sizeof(step), "copy the host's /dev/%s", dev_nodes[i]);
		snprintf(tty, sizeof(tty), "/dev/%s", dev_nodes[i]);
		if ((trees[i] = clone_node(tty)) < 0)
			err = errno;
	}
	/* as bwrap: a terminal on stdout is also /dev/console, for ttyname */
	if (!err && isatty(1) && ttyname_r(1, tty, sizeof(tty)) == 0 && !strncmp(tty, "/dev/", 5)) {
		snprintf(step, sizeof(step), "copy the terminal %s", tty);
		if ((console = clone_node(tty)) < 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "mount a tmpfs on /dev");
		if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
			err = errno;
	}
	for (i = 0; i < N_DEV_NODES && !err; i++) {
		snprintf(tty, sizeof(tty), "/dev/%s", dev_nodes[i]);
		snprintf(step, sizeof(step), "mount %s", tty);
		err = attach_node(trees[i], tty);
	}
	for (i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]) && !err; i++) {
		snprintf(step, sizeof(step), "link %s", dev_links[i][1]);
		if (symlink(dev_links[i][0], dev_links[i][1]) != 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "make /dev/shm and /dev/pts");
		if (mkdir("/dev/shm", 0755) != 0 || mkdir("/dev/pts", 0755) != 0)
			err = errno;
	}
	if (!err) {
		snprintf(step, sizeof(step), "mount a new devpts instance on /dev/pts");
		if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
			  "newinstance,ptmxmode=0666,mode=620") != 0 ||
		    symlink("pts/ptmx", "/dev/ptmx") != 0)
			err = errno;
	}
	if (!err && console >= 0) {
		snprintf(step, sizeof(step), "mount /dev/console");
		err = attach_node(console, "/dev/console");
	}
	/* no covers on this one: a fresh /proc can be mounted in a user
	 * namespace only where a proc mount with no locked mount over a
	 * directory in it is visible (the setuid-bwrap fallback nests one),
	 * and this one ends up below the nested /proc, locked in the
	 * command's copy, out of its reach */
	if (!err) {
		snprintf(step, sizeof(step), "mount /proc for bwrap's pid namespace");
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			err = errno;
	}
	for (i = 0; i < N_DEV_NODES; i++)
		if (trees[i] >= 0)
			close(trees[i]);
	if (console >= 0)
		close(console);
	if (err) {
		srt__init_failf("srt-linux-init: make the sandbox's /dev and /proc: %s: %s", step, strerror(err));
		return -1;
	}
	return 0;
}
