/* escape-sys: the escape battery's raw-syscall attacker.
 *
 *   escape-sys PROBE [ARG...]
 *
 * Each probe runs in a forked child (so a seccomp kill is an answer, not
 * the end of the run) and prints one line:
 *   "<probe> ok"          the kernel did it: an escape where a test says so
 *   "<probe> errno=NAME"  refused with that errno
 *   "<probe> sig=N"       the child was killed by signal N (SIGSYS = 31)
 * Raw syscalls throughout, so libc fallbacks do not hide the answer.
 *
 *   escape-sys key-exec NAME DATA CMD...  (host side) joins a fresh session
 *                                     keyring, adds a "user" key NAME=DATA
 *                                     to it and to the user keyring, runs CMD;
 *                                     the user-keyring key is revoked after
 *   escape-sys fork-hop DIR MARK CMD...  (sandbox) holds a descriptor of
 *                                     DIR while forking over and over, each
 *                                     parent ending at once, until MARK
 *                                     exists; then enters DIR by the
 *                                     descriptor and runs CMD there
 *   escape-sys fd-hop DIR MARK CMD...  (sandbox) holds a descriptor of DIR
 *                                     moving it among 64 numbers, all open
 *                                     (dup3), until MARK exists; then
 *                                     enters DIR by it and runs CMD there
 *   escape-sys handle-save PATH OUT   (host side) writes the file handle
 *                                     of PATH to OUT
 *   escape-sys handle-read OUT        (sandbox) open_by_handle_at + read;
 *                                     prints the first line it read
 *
 * Probes that outlive the run (all raw syscalls):
 *   chmod-suid / chmod-sgid / chmod-suid-hi / fchmod-suid / fchmodat-suid /
 *   fchmodat2-sgid PATH   set a set-id bit (-hi: with a high bit in the
 *                         mode argument as well); chmod-plain PATH: 0755
 *   creat-suid / open-suid / openat-sgid / mknod-suid PATH   create PATH
 *                         with a set-id mode; open-plain PATH: 0644
 *   openat2 PATH          openat2(O_CREAT, mode 04755)
 *   tmpfile-suid DIR      O_TMPFILE with mode 04755 in DIR, linked there
 *   prlimit-pid PID       prlimit64(PID, RLIMIT_NOFILE) set to its own value
 *                         (harmless when it works); prlimit-self: pid 0;
 *                         prlimit-read PID: only reads PID's limit
 *   tiocsetd / tiocexcl   on fd 0 (TIOCSETD to the line discipline it has)
 *   shm-read ID           shmat(ID) by id (no shmget) and print its text
 *   shm-get KEY           shmget(KEY) of a host segment
 *   i386-utimensat-time64 PATH / x32-utimensat PATH (x86_64)   set PATH's
 *                         times to now through the 32-bit or the x32 door */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#define NR_IO_URING_SETUP 425
#define NR_OPEN_TREE 428
#define NR_MOVE_MOUNT 429
#define NR_FSOPEN 430
#define NR_FSCONFIG 431
#define NR_FSMOUNT 432
#define NR_PIDFD_OPEN 434
#define NR_CLONE3 435
#define NR_MOUNT_SETATTR 442
#define X32_BIT 0x40000000UL
#define HI ((unsigned long)(UINT64_C(1) << 32))

struct errname {
	int e;
	const char *n;
};
static const struct errname errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { ENXIO, "ENXIO" }, { EBADF, "EBADF" }, { ECHILD, "ECHILD" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
	{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" }, { ENOTTY, "ENOTTY" },
	{ EROFS, "EROFS" }, { ENOSYS, "ENOSYS" }, { ENOTSOCK, "ENOTSOCK" },
	{ EPROTONOSUPPORT, "EPROTONOSUPPORT" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ EAFNOSUPPORT, "EAFNOSUPPORT" }, { ENETUNREACH, "ENETUNREACH" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ESTALE, "ESTALE" }, { ENAMETOOLONG, "ENAMETOOLONG" },
	{ EOVERFLOW, "EOVERFLOW" },
};

static const char *errname(int e)
{
	static char buf[32];

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].e == e)
			return errnames[i].n;
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

/* Result of a probe child: 0 ok, 100 + errno (capped) refused. */
static int done(long rc)
{
	if (rc >= 0)
		_exit(0);
	_exit(errno > 0 && errno < 150 ? 100 + errno : 99);
}

/* A raw clone child leaves at once; its parent (the probe child) reaps it. */
static long reaped(long pid)
{
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, __WALL);
	return pid;
}

static long raw_clone(unsigned long flags)
{
#if defined(__s390__) || defined(__s390x__)
	return reaped(syscall(SYS_clone, 0, flags));
#else
	return reaped(syscall(SYS_clone, flags, 0, 0, 0, 0));
#endif
}

#if defined(__x86_64__)
/* The i386 entry point from a 64-bit process: the filter sees
 * AUDIT_ARCH_I386 and i386 numbers. Arguments are 32-bit, so any memory
 * they point to must be below 4 GiB. */
static long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* utimensat_time64 (412 in the i386 table) through the i386 door: the
 * path in memory below 4 GiB, times NULL (now), flags 0. */
static long i386_utimensat_time64(const char *path)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long ret;

	if (p == MAP_FAILED || !path || strlen(path) >= 4096)
		return -1;
	strcpy(p, path);
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(412L), "b"((long)AT_FDCWD), "c"((long)(uintptr_t)p),
			 "d"(0L), "S"(0L) : "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}
#endif

static long probe(const char *p, char **arg, int nargs)
{
	const char *a1 = nargs > 0 ? arg[0] : NULL;

	if (!strcmp(p, "socket-unix-cloexec"))
		return syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (!strcmp(p, "socket-unix-dgram"))
		return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	if (!strcmp(p, "socket-unix-seqpacket"))
		return syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (!strcmp(p, "socket-unix-hi"))
		return syscall(SYS_socket, (unsigned long)AF_UNIX | HI, SOCK_STREAM, 0);
	if (!strcmp(p, "socket-unix-type-hi"))
		return syscall(SYS_socket, AF_UNIX, (unsigned long)SOCK_STREAM | HI, 0);
	if (!strcmp(p, "socket-unix-proto"))
		return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 1);
	if (!strcmp(p, "socket-vsock-cloexec"))
		return syscall(SYS_socket, AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!strcmp(p, "socket-packet"))
		return syscall(SYS_socket, AF_PACKET, SOCK_RAW, 0);
	if (!strcmp(p, "personality-socket")) {
		/* a changed personality must not change how the filter reads calls */
		syscall(SYS_personality, PER_LINUX32);
		return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	}
#if defined(__x86_64__)
	if (!strcmp(p, "i386-socket"))
		return int80(359, AF_UNIX, SOCK_STREAM, 0);
	if (!strcmp(p, "i386-socketcall")) {
		unsigned int *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (args == MAP_FAILED)
			return -1;
		args[0] = AF_UNIX;
		args[1] = SOCK_STREAM;
		args[2] = 0;
		return int80(102, 1 /* SYS_SOCKET */, (long)(uintptr_t)args, 0);
	}
	if (!strcmp(p, "i386-unshare"))
		return int80(310, CLONE_NEWUSER, 0, 0);
	if (!strcmp(p, "i386-mount"))
		return int80(21, 0, 0, 0);
	if (!strcmp(p, "x32-socket"))
		return syscall(X32_BIT | SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	if (!strcmp(p, "x32-unshare"))
		return syscall(X32_BIT | SYS_unshare, CLONE_NEWUSER);
	if (!strcmp(p, "i386-utimensat-time64"))
		return i386_utimensat_time64(a1);
	if (!strcmp(p, "x32-utimensat"))
		return a1 ? syscall(X32_BIT | SYS_utimensat, AT_FDCWD, a1, NULL, 0) : -1;
#endif
	if (!strcmp(p, "unshare-user-net"))
		return syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNET);
	if (!strcmp(p, "unshare-all"))
		return syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET |
				     CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP);
	if (!strcmp(p, "unshare-user-hi"))
		return syscall(SYS_unshare, (unsigned long)CLONE_NEWUSER | HI);
	if (!strcmp(p, "unshare-ns-files"))
		return syscall(SYS_unshare, CLONE_NEWNS | CLONE_FILES | CLONE_FS);
	if (!strcmp(p, "unshare-net"))
		return syscall(SYS_unshare, CLONE_NEWNET);
	if (!strcmp(p, "clone-user-hi"))
		return raw_clone((unsigned long)CLONE_NEWUSER | HI | SIGCHLD);
	if (!strcmp(p, "clone-user-vfork"))
		return raw_clone(CLONE_NEWUSER | CLONE_VFORK | SIGCHLD);
	if (!strcmp(p, "clone-ns-net"))
		return raw_clone(CLONE_NEWNS | CLONE_NEWNET | SIGCHLD);
	if (!strcmp(p, "clone3-user")) {
		uint64_t ca[11];
		memset(ca, 0, sizeof(ca));
		ca[0] = CLONE_NEWUSER;
		ca[4] = SIGCHLD;
		return reaped(syscall(NR_CLONE3, ca, sizeof(ca)));
	}
	if (!strcmp(p, "vfork-unshare")) {
		/* a child between fork and exec gets no more than its parent */
		pid_t c = fork();
		int st;
		if (c == 0)
			_exit(syscall(SYS_unshare, CLONE_NEWUSER) == 0 ? 0 : 100 + errno);
		if (c < 0 || waitpid(c, &st, 0) < 0)
			return -1;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
		errno = WIFEXITED(st) ? WEXITSTATUS(st) - 100 : EINTR;
		return -1;
	}
	if (!strcmp(p, "setns-pidfd")) {
		long fd = syscall(NR_PIDFD_OPEN, getppid(), 0);
		if (fd < 0)
			return -1;
		return syscall(SYS_setns, fd, CLONE_NEWUSER | CLONE_NEWNS);
	}
	if (!strcmp(p, "setns-proc1-mnt")) {
		int fd = open("/proc/1/ns/mnt", O_RDONLY);
		if (fd < 0)
			return -1;
		return syscall(SYS_setns, fd, 0);
	}
	if (!strcmp(p, "keyctl-read") && a1) {
		/* a key of the caller's session or user keyring, by description */
		char data[200];
		long k = syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -3 /* @s */, "user", a1, 0);
		if (k < 0)
			k = syscall(SYS_keyctl, 10, -4 /* @u */, "user", a1, 0);
		if (k < 0)
			return -1;
		memset(data, 0, sizeof(data));
		if (syscall(SYS_keyctl, 11 /* KEYCTL_READ */, k, data, sizeof(data) - 1) < 0)
			return -1;
		fprintf(stderr, "escape-sys: key %s holds %s\n", a1, data);
		return 0;
	}
	if (!strcmp(p, "io_uring-sqpoll")) {
		unsigned char params[120];
		memset(params, 0, sizeof(params));
		params[8] = 2; /* flags = IORING_SETUP_SQPOLL */
		return syscall(NR_IO_URING_SETUP, 8, params);
	}
	if (!strcmp(p, "io_uring_register"))
		return syscall(427, 0, 0, NULL, 0); /* fd 0 is no ring: EBADF/EOPNOTSUPP if unfiltered */
	if (!strcmp(p, "bpf-prog")) {
		/* BPF_PROG_LOAD of a 2-instruction socket filter */
		uint64_t insns[2] = { 0x00000000000000b7ULL /* r0 = 0 */, 0x0000000000000095ULL /* exit */ };
		union {
			uint32_t w[32];
			uint64_t q[16];
		} attr;
		memset(&attr, 0, sizeof(attr));
		attr.w[0] = 1; /* BPF_PROG_TYPE_SOCKET_FILTER */
		attr.w[1] = 2;
		attr.q[1] = (uint64_t)(uintptr_t)insns;
		attr.q[2] = (uint64_t)(uintptr_t)"GPL";
		return syscall(SYS_bpf, 5 /* BPF_PROG_LOAD */, &attr, 72);
	}
	if (!strcmp(p, "perf-cpu")) {
		/* a CPU-wide event sees every process on the host */
		uint32_t attr[32];
		memset(attr, 0, sizeof(attr));
		attr[0] = 1;   /* PERF_TYPE_SOFTWARE */
		attr[1] = 128; /* size */
		return syscall(SYS_perf_event_open, attr, -1, 0, -1, 0);
	}
	if (!strcmp(p, "userfaultfd"))
		return syscall(SYS_userfaultfd, O_CLOEXEC);
	if (!strcmp(p, "ptrace-seize-1"))
		return syscall(SYS_ptrace, PTRACE_SEIZE, 1, 0, 0);
	if (!strcmp(p, "vm-read-1")) {
		char buf[16];
		struct iovec l = { buf, sizeof(buf) }, r = { (void *)0x400000, sizeof(buf) };
		return syscall(SYS_process_vm_readv, 1, &l, 1, &r, 1, 0);
	}
	if (!strcmp(p, "proc1-environ")) {
		int fd = open("/proc/1/environ", O_RDONLY);
		char b[8];
		if (fd < 0)
			return -1;
		return read(fd, b, sizeof(b)) > 0 ? 0 : -1;
	}
	if (!strcmp(p, "fsopen"))
		return syscall(NR_FSOPEN, "tmpfs", 0);
	if (!strcmp(p, "fsopen-proc"))
		return syscall(NR_FSOPEN, "proc", 0);
	if (!strcmp(p, "open_tree-clone"))
		return syscall(NR_OPEN_TREE, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */ | 0x8000 /* AT_RECURSIVE */);
	if (!strcmp(p, "move_mount"))
		return syscall(NR_MOVE_MOUNT, AT_FDCWD, "/tmp", AT_FDCWD, "/", 0);
	if (!strcmp(p, "mount_setattr")) {
		uint64_t attr[4] = { 0, 1 /* clear MOUNT_ATTR_RDONLY */, 0, 0 };
		return syscall(NR_MOUNT_SETATTR, AT_FDCWD, "/", 0x8000, attr, sizeof(attr));
	}
	if (!strcmp(p, "umount") && a1)
		return syscall(SYS_umount2, a1, MNT_DETACH);
	if (!strcmp(p, "remount-rw") && a1)
		return syscall(SYS_mount, NULL, a1, NULL, MS_REMOUNT | MS_BIND, NULL);
	if (!strcmp(p, "bind-mount") && nargs > 1)
		return syscall(SYS_mount, a1, arg[1], NULL, MS_BIND, NULL);
	if (!strcmp(p, "chroot"))
		return syscall(SYS_chroot, a1 ? a1 : "/tmp");
	if (!strcmp(p, "chmod-suid") && a1)
		return syscall(SYS_chmod, a1, 04755);
	if (!strcmp(p, "chmod-sgid") && a1)
		return syscall(SYS_chmod, a1, 02755);
	if (!strcmp(p, "chmod-suid-hi") && a1)
		return syscall(SYS_chmod, a1, HI | 04755);
	if (!strcmp(p, "chmod-plain") && a1)
		return syscall(SYS_chmod, a1, 0755);
	if (!strcmp(p, "fchmod-suid") && a1) {
		int fd = open(a1, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -1 : syscall(SYS_fchmod, fd, 04755);
	}
	if (!strcmp(p, "fchmodat-suid") && a1)
		return syscall(SYS_fchmodat, AT_FDCWD, a1, 04755);
	if (!strcmp(p, "fchmodat2-sgid") && a1)
		return syscall(452 /* fchmodat2 */, AT_FDCWD, a1, 02755, 0);
	if (!strcmp(p, "creat-suid") && a1)
		return syscall(SYS_creat, a1, 04755);
	if (!strcmp(p, "open-suid") && a1)
		return syscall(SYS_open, a1, O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
	if (!strcmp(p, "openat-sgid") && a1)
		return syscall(SYS_openat, AT_FDCWD, a1, O_WRONLY | O_CREAT | O_CLOEXEC, 02755);
	if (!strcmp(p, "mknod-suid") && a1)
		return syscall(SYS_mknodat, AT_FDCWD, a1, S_IFREG | 04755, 0);
	if (!strcmp(p, "tmpfile-suid") && a1) {
		/* an unnamed set-uid file in directory a1, then named */
		char via[64], to[4096];
		long fd = syscall(SYS_openat, AT_FDCWD, a1, O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
		if (fd < 0)
			return -1;
		snprintf(via, sizeof(via), "/proc/self/fd/%ld", fd);
		snprintf(to, sizeof(to), "%s/tmpfile-suid", a1);
		return syscall(SYS_linkat, AT_FDCWD, via, AT_FDCWD, to, AT_SYMLINK_FOLLOW);
	}
	if (!strcmp(p, "open-plain") && a1)
		return syscall(SYS_openat, AT_FDCWD, a1, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (!strcmp(p, "openat2") && a1) {
		struct { uint64_t flags, mode, resolve; } how = { O_WRONLY | O_CREAT | O_CLOEXEC, 04755, 0 };
		return syscall(437 /* openat2 */, AT_FDCWD, a1, &how, sizeof(how));
	}
	if (!strcmp(p, "prlimit-pid") && a1) {
		struct rlimit rl;
		long pid = strtol(a1, NULL, 10);
		if (syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, NULL, &rl) < 0)
			return -1;
		return syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &rl, NULL);
	}
	if (!strcmp(p, "prlimit-read") && a1) {
		struct rlimit rl;
		return syscall(SYS_prlimit64, strtol(a1, NULL, 10), RLIMIT_NOFILE, NULL, &rl);
	}
	if (!strcmp(p, "prlimit-self")) {
		struct rlimit rl;
		if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
			return -1;
		return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
	}
	if (!strcmp(p, "tiocsetd")) {
		int ld = 0;
		if (ioctl(0, TIOCGETD, &ld) < 0)
			return -1;
		return syscall(SYS_ioctl, 0, TIOCSETD, &ld);
	}
	if (!strcmp(p, "tiocexcl")) {
		long rc = syscall(SYS_ioctl, 0, TIOCEXCL, 0);
		if (rc == 0)
			ioctl(0, TIOCNXCL, 0); /* leave the terminal as it was */
		return rc;
	}
	if (!strcmp(p, "shm-read") && a1) {
		long id = strtol(a1, NULL, 10);
		long at = syscall(SYS_shmat, id, NULL, SHM_RDONLY);
		if (at == -1)
			return -1;
		fprintf(stderr, "escape-sys: shm-read got: %.40s\n", (const char *)at);
		return 0;
	}
	if (!strcmp(p, "shm-get") && a1)
		return syscall(SYS_shmget, strtol(a1, NULL, 0), 0, 0);
	if (!strcmp(p, "pivot_root"))
		return syscall(SYS_pivot_root, "/", "/");
	if (!strcmp(p, "handle-read") && a1) {
		/* a handle saved by the host: open_by_handle_at bypasses paths */
		unsigned char h[200];
		FILE *f = fopen(a1, "rb");
		size_t n;
		long fd;
		char line[200];
		if (!f)
			return -1;
		n = fread(h, 1, sizeof(h), f);
		fclose(f);
		if (n < 8)
			return -1;
		fd = syscall(SYS_open_by_handle_at, open("/", O_RDONLY | O_DIRECTORY), h, O_RDONLY);
		if (fd < 0)
			return -1;
		n = (size_t)read((int)fd, line, sizeof(line) - 1);
		line[n < sizeof(line) ? n : 0] = '\0';
		fprintf(stderr, "escape-sys: handle-read got: %s\n", line);
		return 0;
	}
	errno = ENOSYS;
	fprintf(stderr, "escape-sys: unknown probe '%s'\n", p);
	return -2;
}

/* Host side: save the handle of PATH (no privilege needed for this half). */
static int handle_save(const char *path, const char *out)
{
	unsigned char buf[200];
	unsigned int *bytes = (unsigned int *)(void *)buf;
	int mount_id;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	*bytes = (unsigned int)(sizeof(buf) - 8);
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, path, buf, &mount_id, 0) < 0) {
		perror("escape-sys: name_to_handle_at");
		return 1;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, 8 + *bytes, f) != 8 + *bytes || fclose(f) != 0) {
		perror("escape-sys: write handle");
		return 1;
	}
	return 0;
}

/* Host side of the keyring probe: CMD runs with a session keyring and a
 * user keyring that both hold NAME=DATA. */
static int key_exec(char **a)
{
	long ks, ku;
	pid_t c;
	int st;

	if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0) {
		perror("escape-sys: join session keyring");
		return 2;
	}
	ks = syscall(SYS_add_key, "user", a[0], a[1], strlen(a[1]), -3);
	ku = syscall(SYS_add_key, "user", a[0], a[1], strlen(a[1]), -4);
	if (ks < 0 || ku < 0) {
		perror("escape-sys: add_key");
		return 2;
	}
	c = fork();
	if (c == 0) {
		execvp(a[2], a + 2);
		_exit(127);
	}
	if (c < 0 || waitpid(c, &st, 0) < 0)
		st = 2 << 8;
	syscall(SYS_keyctl, 3 /* KEYCTL_REVOKE */, ku);
	syscall(SYS_keyctl, 3, ks);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Sandbox side: a descriptor of a directory carried from process to
 * process by fork, each parent gone at once, so that whichever process
 * holds it now was not there a moment ago (held_below in
 * backends/linux-bwrap/init/watch.c lists /proc, then looks at each
 * process it listed). The last one enters the directory and runs CMD. */
static int fork_hop(char **a)
{
	int fd = open(a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	if (fd < 0 || chdir("/") != 0) {
		perror("escape-sys: fork-hop");
		return 2;
	}
	while (access(a[1], F_OK) != 0) {
		pid_t c = fork();

		if (c < 0) {
			nanosleep(&ts, NULL);
			continue;
		}
		if (c > 0)
			_exit(0);
	}
	nanosleep(&ts, NULL);
	if (fchdir(fd) != 0) {
		perror("escape-sys: fork-hop: fchdir");
		return 2;
	}
	close(fd);
	execvp(a[2], a + 2);
	perror("escape-sys: fork-hop: exec");
	return 127;
}

/* Sandbox side: a descriptor of a directory moved from number to number
 * among 64 numbers (200 to 263) that are all open at every moment: the
 * others hold /dev/null, and each move is two dup3 onto open numbers (the
 * directory onto the next one down, /dev/null back onto the one it
 * left). A listing of /proc/PID/fd names all 64 and none of them is ever
 * gone; the directory is at one of them only. */
static int fd_hop(char **a)
{
	int fd = open(a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC), null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int cur = 263, n;
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	if (fd < 0 || null < 0 || chdir("/") != 0) {
		perror("escape-sys: fd-hop");
		return 2;
	}
	for (n = 200; n < 263; n++)
		if (dup3(null, n, O_CLOEXEC) < 0)
			return 2;
	if (dup3(fd, cur, O_CLOEXEC) < 0)
		return 2;
	close(fd);
	while (access(a[1], F_OK) != 0) {
		for (n = 0; n < 100000; n++) {
			int next = cur == 200 ? 263 : cur - 1;

			if (dup3(cur, next, O_CLOEXEC) < 0 || dup3(null, cur, O_CLOEXEC) < 0)
				return 2;
			cur = next;
		}
	}
	nanosleep(&ts, NULL);
	if (fchdir(cur) != 0) {
		perror("escape-sys: fd-hop: fchdir");
		return 2;
	}
	execvp(a[2], a + 2);
	perror("escape-sys: fd-hop: exec");
	return 127;
}

/* Sandbox side: a descriptor of a directory kept only as an io_uring fixed
 * file (registered, then closed), which is in no descriptor table; once
 * the marker exists it is put back in the table (IORING_OP_FIXED_FD_INSTALL,
 * Linux 6.8), the process goes there and runs the command. */
#define URING_OP_FIXED_FD_INSTALL 54
static int uring_hold(char **a)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head;
	char *sq, *cq;
	size_t sq_len, cq_len;
	int fd = open(a[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC), ring, got;

	memset(&p, 0, sizeof(p));
	ring = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0 || ring < 0) {
		perror("escape-sys: uring-hold: setup");
		return 2;
	}
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES, &fd, 1) != 0) {
		perror("escape-sys: uring-hold: register");
		return 2;
	}
	close(fd);
	while (access(a[1], F_OK) != 0)
		nanosleep(&ts, NULL);
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqe = mmap(NULL, p.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		   IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqe == MAP_FAILED) {
		perror("escape-sys: uring-hold: mmap");
		return 2;
	}
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	memset(&sqe[0], 0, sizeof(sqe[0]));
	sqe[0].opcode = URING_OP_FIXED_FD_INSTALL;
	sqe[0].fd = 0;
	sqe[0].flags = IOSQE_FIXED_FILE;
	sq_array[*sq_tail & *sq_mask] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
		perror("escape-sys: uring-hold: enter");
		return 2;
	}
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (*cq_head & *(unsigned *)(cq + p.cq_off.ring_mask));
	got = cqe->res;
	if (got < 0 || fchdir(got) != 0) {
		fprintf(stderr, "escape-sys: uring-hold: install: %s\n", strerror(got < 0 ? -got : errno));
		return 2;
	}
	execvp(a[2], a + 2);
	perror("escape-sys: uring-hold: exec");
	return 127;
}

int main(int argc, char **argv)
{
	pid_t c;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: escape-sys PROBE [ARG...] | handle-save PATH OUT\n");
		return 2;
	}
	if (!strcmp(argv[1], "handle-save"))
		return argc == 4 ? handle_save(argv[2], argv[3]) : 2;
	if (!strcmp(argv[1], "key-exec"))
		return argc > 4 ? key_exec(argv + 2) : 2;
	if (!strcmp(argv[1], "fork-hop"))
		return argc > 4 ? fork_hop(argv + 2) : 2;
	if (!strcmp(argv[1], "fd-hop"))
		return argc > 4 ? fd_hop(argv + 2) : 2;
	if (!strcmp(argv[1], "uring-hold"))
		return argc > 4 ? uring_hold(argv + 2) : 2;
	fflush(stdout);
	c = fork();
	if (c < 0) {
		perror("escape-sys: fork");
		return 2;
	}
	if (c == 0) {
		long rc;
		errno = 0;
		rc = probe(argv[1], argv + 2, argc - 2);
		if (rc == -2)
			_exit(98);
		done(rc);
	}
	if (waitpid(c, &st, 0) < 0) {
		perror("escape-sys: waitpid");
		return 2;
	}
	if (WIFSIGNALED(st))
		printf("%s sig=%d\n", argv[1], WTERMSIG(st));
	else if (WEXITSTATUS(st) == 0)
		printf("%s ok\n", argv[1]);
	else if (WEXITSTATUS(st) == 98)
		return 2;
	else if (WEXITSTATUS(st) >= 100)
		printf("%s errno=%s\n", argv[1], errname(WEXITSTATUS(st) - 100));
	else
		printf("%s exit=%d\n", argv[1], WEXITSTATUS(st));
	return 0;
}
