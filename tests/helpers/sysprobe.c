/* sysprobe: make one raw system call and say what the kernel answered.
 *
 *   sysprobe <probe> [args]   prints "<probe> ok" or "<probe> errno=<NAME>"
 *
 * Used by the integration tests from inside the sandbox, where no
 * interpreter may be at hand, and by people checking a host by hand. Raw
 * syscalls, so libc fallbacks (clone3 -> clone) do not hide the answer.
 * Exit status 0 whenever the probe ran; 2 on a usage error.
 *
 *   sysprobe deny-seccomp command [args...]
 *
 * runs command where installing a seccomp filter fails with EPERM (to
 * check that srt-linux-init then refuses to run its command). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "backends/linux-common/seccomp.h"

#define NR_IO_URING_SETUP 425
#define NR_OPEN_TREE 428
#define NR_FSOPEN 430
#define NR_CLONE3 435
#define NR_OPEN_TREE_ATTR 467
#define X32_SYSCALL_BIT 0x40000000
/* set in the high half of an argument the kernel reads as 32 bits (0 on
 * 32-bit longs, where there is no high half) */
#define HI_NOISE ((unsigned long)(UINT64_C(1) << 32))

static const struct {
	int e;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { EBADF, "EBADF" }, { ECHILD, "ECHILD" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENOTDIR, "ENOTDIR" }, { EINVAL, "EINVAL" },
	{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { EROFS, "EROFS" }, { ENOSYS, "ENOSYS" },
	{ EUSERS, "EUSERS" }, { ENOTSOCK, "ENOTSOCK" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EAFNOSUPPORT, "EAFNOSUPPORT" }, { EADDRINUSE, "EADDRINUSE" },
	{ ENETUNREACH, "ENETUNREACH" }, { ECONNREFUSED, "ECONNREFUSED" }, { ENODEV, "ENODEV" },
	{ ENXIO, "ENXIO" },
};

static int report(const char *probe, long rc)
{
	size_t i;
	int e = errno;

	if (rc >= 0) {
		printf("%s ok\n", probe);
	} else {
		for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
			if (errnames[i].e == e)
				break;
		if (i < sizeof(errnames) / sizeof(errnames[0]))
			printf("%s errno=%s\n", probe, errnames[i].name);
		else
			printf("%s errno=%d\n", probe, e);
	}
	/* out now: a sanitizer's exit-time check can end the process
	 * without flushing (LeakSanitizer cannot stop the world from
	 * another user namespace, as after umount-in) */
	fflush(stdout);
	return 0;
}

/* A child made by a raw clone/clone3 leaves at once; the parent reaps it. */
static long reap(long pid)
{
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long unix_connect(const char *name, int abstract)
{
	struct sockaddr_un sa;
	size_t len = strlen(name);
	socklen_t salen;
	long rc;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (len + (abstract ? 1 : 0) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path + (abstract ? 1 : 0), name, len);
	/* a path counts its NUL, an abstract name its leading NUL */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sa, salen);
	if (rc == 0 && write(fd, "sysprobe\n", 9) < 0)
		rc = -1;
	close(fd);
	return rc;
}

/* A datagram pair's end sent to a host pathname socket: the way past a
 * refused socket(AF_UNIX) when socketpair(AF_UNIX, SOCK_DGRAM) works. */
static long dgram_send(const char *path)
{
	struct sockaddr_un sa;
	size_t len = strlen(path);
	int sv[2];
	long rc;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (len >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, len);
	if (syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return -1;
	rc = sendto(sv[0], "sysprobe\n", 9, 0, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1));
	close(sv[0]);
	close(sv[1]);
	return rc < 0 ? -1 : 0;
}

/* Exec argv with seccomp(2) and prctl(PR_SET_SECCOMP) answering EPERM. */
static int deny_seccomp(char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
		perror("sysprobe: deny-seccomp");
		return 2;
	}
	execvp(argv[0], argv);
	perror("sysprobe: deny-seccomp: exec");
	return 2;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: sysprobe PROBE [ARG]\n"
		"probes: socket-unix socket-unix-hi socket-vsock socket-inet socketpair\n"
		"        socketpair-seqpacket socketpair-dgram socketpair-dgram-hi socketpair-raw\n"
		"        dgram-send PATH\n"
		"        io_uring_setup unshare-user unshare-ns clone-user clone-ns clone3\n"
		"        mount-tmpfs DIR open_tree open_tree_attr fsopen\n"
		"        tiocsti [FD] tiocsti-hi [FD] tioclinux [FD]\n"
		"        ptrace PID proc-mem PID kill PID connect-unix PATH\n"
		"        connect-abstract NAME x32 umount-in PID PATH [tmpfs]\n"
		"       sysprobe deny-seccomp command [args...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *p, *arg;
	long rc;
	int fd;

	if (argc < 2)
		return usage();
	p = argv[1];
	if (!strcmp(p, "deny-seccomp"))
		return argc > 2 ? deny_seccomp(argv + 2) : usage();
	arg = argc > 2 ? argv[2] : NULL;
	fd = arg ? atoi(arg) : 0;
	errno = 0;

	if (!strcmp(p, "socket-unix")) {
		rc = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	} else if (!strcmp(p, "socket-unix-hi")) {
		/* the kernel reads the domain as int: the high half is noise */
		rc = syscall(SYS_socket, (unsigned long)AF_UNIX | HI_NOISE,
			     SOCK_STREAM, 0);
	} else if (!strcmp(p, "socket-vsock")) {
		rc = syscall(SYS_socket, AF_VSOCK, SOCK_STREAM, 0);
	} else if (!strcmp(p, "socket-inet")) {
		rc = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	} else if (!strcmp(p, "socketpair")) {
		int sv[2];
		rc = syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv);
	} else if (!strcmp(p, "socketpair-seqpacket")) {
		int sv[2];
		rc = syscall(SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
	} else if (!strcmp(p, "socketpair-dgram")) {
		int sv[2];
		rc = syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv);
	} else if (!strcmp(p, "socketpair-dgram-hi")) {
		int sv[2];
		rc = syscall(SYS_socketpair, (unsigned long)AF_UNIX | HI_NOISE,
			     (unsigned long)SOCK_DGRAM | HI_NOISE, 0, sv);
	} else if (!strcmp(p, "socketpair-raw")) {
		/* AF_UNIX makes SOCK_RAW a datagram socket */
		int sv[2];
		rc = syscall(SYS_socketpair, AF_UNIX, SOCK_RAW, 0, sv);
	} else if (!strcmp(p, "dgram-send")) {
		if (!arg)
			return usage();
		rc = dgram_send(arg);
	} else if (!strcmp(p, "io_uring_setup")) {
		unsigned char params[120];
		memset(params, 0, sizeof(params));
		rc = syscall(NR_IO_URING_SETUP, 1, params);
	} else if (!strcmp(p, "unshare-user")) {
		rc = syscall(SYS_unshare, CLONE_NEWUSER);
	} else if (!strcmp(p, "unshare-ns")) {
		rc = syscall(SYS_unshare, CLONE_NEWNS);
	} else if (!strcmp(p, "clone-user") || !strcmp(p, "clone-ns")) {
		unsigned long fl = (!strcmp(p, "clone-user") ? CLONE_NEWUSER : CLONE_NEWNS) | SIGCHLD;
#if defined(__s390__) || defined(__s390x__)
		rc = reap(syscall(SYS_clone, 0, fl));
#else
		rc = reap(syscall(SYS_clone, fl, 0, 0, 0, 0));
#endif
	} else if (!strcmp(p, "clone3")) {
		uint64_t args[11];
		memset(args, 0, sizeof(args));
		args[4] = SIGCHLD; /* struct clone_args.exit_signal */
		rc = reap(syscall(NR_CLONE3, args, 88));
	} else if (!strcmp(p, "mount-tmpfs")) {
		if (!arg)
			return usage();
		rc = syscall(SYS_mount, "none", arg, "tmpfs", 0, NULL);
	} else if (!strcmp(p, "open_tree")) {
		rc = syscall(NR_OPEN_TREE, AT_FDCWD, "/", 0);
	} else if (!strcmp(p, "open_tree_attr")) {
		rc = syscall(NR_OPEN_TREE_ATTR, AT_FDCWD, "/", 0, NULL, 0);
	} else if (!strcmp(p, "fsopen")) {
		rc = syscall(NR_FSOPEN, "tmpfs", 0);
	} else if (!strcmp(p, "tiocsti")) {
		char c = '#';
		rc = syscall(SYS_ioctl, fd, TIOCSTI, &c);
	} else if (!strcmp(p, "tiocsti-hi")) {
		char c = '#';
		rc = syscall(SYS_ioctl, fd, (unsigned long)TIOCSTI | HI_NOISE, &c);
	} else if (!strcmp(p, "tioclinux")) {
		char sub = 12; /* TIOCL_GETSHIFTSTATE: harmless if it ever ran */
		rc = syscall(SYS_ioctl, fd, TIOCLINUX, &sub);
	} else if (!strcmp(p, "ptrace")) {
		if (!arg)
			return usage();
		rc = ptrace(PTRACE_ATTACH, (pid_t)atoi(arg), NULL, NULL);
		if (rc == 0) {
			int e = errno;
			waitpid((pid_t)atoi(arg), NULL, __WALL);
			ptrace(PTRACE_DETACH, (pid_t)atoi(arg), NULL, NULL);
			errno = e;
		}
	} else if (!strcmp(p, "proc-mem")) {
		char path[64];
		if (!arg)
			return usage();
		snprintf(path, sizeof(path), "/proc/%d/mem", atoi(arg));
		rc = open(path, O_RDONLY);
	} else if (!strcmp(p, "kill")) {
		if (!arg)
			return usage();
		rc = kill((pid_t)atoi(arg), 0);
	} else if (!strcmp(p, "connect-unix")) {
		if (!arg)
			return usage();
		rc = unix_connect(arg, 0);
	} else if (!strcmp(p, "connect-abstract")) {
		if (!arg)
			return usage();
		rc = unix_connect(arg, 1);
	} else if (!strcmp(p, "umount-in")) {
		/* run outside: join PID's user and mount namespaces (holding
		 * every capability there, as their owner) and unmount PATH, as
		 * a command that regained CAP_SYS_ADMIN inside could */
		char path[64];
		int u, m;

		if (!arg || argc < 4)
			return usage();
		snprintf(path, sizeof(path), "/proc/%d/ns/user", atoi(arg));
		u = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", atoi(arg));
		m = open(path, O_RDONLY | O_CLOEXEC);
		if (u < 0 || m < 0 || setns(u, CLONE_NEWUSER) != 0 || setns(m, CLONE_NEWNS) != 0) {
			printf("umount-in setns-failed errno=%d\n", errno);
			fflush(stdout);
			return 1;
		}
		/* "umount-in PID PATH tmpfs": a mount of our own there first,
		 * the control that unmounting works at all */
		if (argc > 4 && !strcmp(argv[4], "tmpfs") &&
		    mount("srt-probe", argv[3], "tmpfs", 0, "size=4k") != 0)
			rc = -1;
		else
			rc = umount2(argv[3], MNT_DETACH);
	} else if (!strcmp(p, "x32")) {
#if defined(__x86_64__)
		rc = syscall(X32_SYSCALL_BIT | SYS_getpid);
#else
		errno = ENOSYS;
		rc = -1;
#endif
	} else {
		return usage();
	}
	return report(p, rc);
}
