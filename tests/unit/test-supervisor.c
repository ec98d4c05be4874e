/* linux-landlock's write supervisor (backends/linux-common/supervisor.h):
 * the plan, the decision on a path, and a live supervisor answering a
 * child that runs under its filter (no Landlock here: what the supervisor
 * continues, the kernel does unchecked, so the cases below only use paths
 * the supervisor itself must act on or refuse).
 *
 * Every case works in its own root below a fresh temporary directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/supervisor.h"
#include "tests/unit/tap.h"

static char top[] = "/tmp/srt-test-super-XXXXXX";
static char root[256];

static void run_sh(const char *cmd)
{
	if (system(cmd) != 0)
		printf("# command failed: %s\n", cmd);
}

/* A plan for root: .git/config protected as a path, .bashrc and
 * .claude/commands as name patterns, extra records appended. */
static struct srt__super *plan(const char *extra)
{
	char buf[8192], err[256];
	struct stat st;
	struct srt__super *s = NULL;
	size_t len = 0;

	if (stat(root, &st) != 0)
		return NULL;
#define REC(...) (len += (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__) + 1)
	REC("%s", SRT_SUPER_PLAN_MAGIC);
	REC("root %llu %llu %s", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, root);
	REC("deny mandatory deny .git/config\t%s/.git/config", root);
	REC("deny mandatory deny .git/hooks\t%s/.git/hooks", root);
	REC("name mandatory deny .bashrc\t.bashrc");
	REC("name mandatory deny .claude/commands\t.claude/commands");
	REC("repo mandatory deny .git/config\t.git/config");
	REC("repo mandatory deny .git/hooks\t.git/hooks");
	if (extra)
		REC("%s", extra);
	REC("end");
#undef REC
	if (srt__super_parse(buf, len, &s, err, sizeof(err)) != 0)
		printf("# parse: %s\n", err);
	return s;
}

static void fresh_root(const char *name)
{
	snprintf(root, sizeof(root), "%s/%s", top, name);
	mkdir(root, 0755);
	{
		char cmd[PATH_MAX * 3];
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.git/hooks' && printf '[core]\\n' > '%s/.git/config'",
			 root, root);
		run_sh(cmd);
	}
}

static void case_plan(void)
{
	char err[256], bad[] = "not a plan";
	struct srt__super *s = NULL;

	ok(srt__super_parse(bad, sizeof(bad), &s, err, sizeof(err)) != 0 && !s, "a buffer without the magic is refused");
	fresh_root("plan");
	s = plan(NULL);
	ok(s != NULL, "a plan parses");
	srt__super_free(s);
	s = plan("bogus record");
	ok(!s, "an unknown record is refused");
}

static void case_decision(void)
{
	char p[PATH_MAX];
	struct srt__super *s;

	fresh_root("decide");
	s = plan(NULL);
	if (!s) {
		ok(0, "plan");
		return;
	}
#define REF(rel, holds) (snprintf(p, sizeof(p), "%s/%s", root, rel), srt__super_refused(s, p, holds) != NULL)
	ok(REF(".git/config", 0), ".git/config is refused");
	ok(REF(".GIT/CONFIG", 0), "another spelling of it too");
	ok(REF(".git/hooks/pre-commit", 0), "a new hook is refused");
	ok(!REF(".git/HEAD", 0), ".git/HEAD is not");
	ok(REF(".git", 1), "removing or renaming .git, which holds them, is refused");
	ok(!REF(".git", 0), "but .git itself may be opened");
	ok(REF(".bashrc", 0), ".bashrc at the top is refused");
	ok(REF("a/b/.bashrc", 0), "at depth 2 too");
	ok(REF("a/b/c/d/e/f/.bashrc", 0) && REF("a/b/c/d/e/.claude/commands/x.md", 0),
	   "and at depth 6: the names hold at any depth");
	ok(!REF("node_modules/pkg/a/.bashrc", 0) && !REF("a/node_modules/.claude/commands", 0),
	   "but not below node_modules (package content)");
	ok(REF(".claude/commands", 0) && REF(".claude/commands/x.md", 0), ".claude/commands and below are refused");
	ok(!REF(".claude", 1), "moving .claude away is not");
	ok(!REF("node_modules", 0) && !REF("build/out.o", 0), "ordinary names are not");
#undef REF
	srt__super_free(s);
}

struct live {
	pid_t child;
	int events[2];
	struct srt__super *s;
};

static int send_fd(int sock, int fd)
{
	char c = 'L', buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof(m));
	memset(buf, 0, sizeof(buf));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = buf;
	m.msg_controllen = sizeof(buf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m;
	struct cmsghdr *cm;
	int fd = -1;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = buf;
	m.msg_controllen = sizeof(buf);
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Run body in a child under the supervisor's filter, with this process
 * serving; the child's exit status is returned (its own ok() lines are
 * printed from the child). Violation lines end up in lines. */
static int run_live(struct srt__super *s, unsigned flags, void (*body)(void), int serve,
		    char *lines, size_t cap)
{
	int sock[2], ev[2], listener, ws = 0;
	ssize_t n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock) != 0 || pipe(ev) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char step[128];
		int l, rc;

		close(sock[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(90);
		rc = srt__seccomp_install_supervisor(flags, &l, step, sizeof(step));
		if (rc < 0) {
			printf("# install: %s: %s\n", step, strerror(-rc));
			_exit(91);
		}
		if (send_fd(sock[1], l) != 0)
			_exit(92);
		close(l);
		close(sock[1]);
		if (chdir(root) != 0)
			_exit(93);
		body();
		_exit(0);
	}
	close(sock[1]);
	listener = recv_fd(sock[0]);
	close(sock[0]);
	if (listener >= 0 && serve) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		srt__super_serve(s, listener, pfd, ev[1]);
		close(pfd);
	}
	if (listener >= 0)
		close(listener);
	close(ev[1]);
	waitpid(pid, &ws, 0);
	n = read(ev[0], lines, cap - 1);
	lines[n > 0 ? n : 0] = '\0';
	close(ev[0]);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static void body_core(void)
{
	int fd;
	char buf[64];

	fd = open("top.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && write(fd, "hello", 5) == 5, "a file is created and written at the top of the root");
	if (fd >= 0)
		close(fd);
	ok(mkdir("build", 0755) == 0, "mkdir at the top works");
	ok(mkdir("build/obj", 0755) == 0, "and below");
	ok(rename("top.txt", "build/moved.txt") == 0, "rename works");
	ok(symlink("moved.txt", "build/link") == 0, "symlink works");
	ok(link("build/moved.txt", "build/hard") == 0, "link works");
	ok(unlink("build/hard") == 0, "unlink works");
	ok(truncate("build/moved.txt", 2) == 0, "truncate works");
	fd = open("build/link", O_RDWR | O_APPEND);
	ok(fd >= 0, "a write-open through a symbolic link inside the root works");
	if (fd >= 0) {
		ok(write(fd, "!", 1) == 1, "and writes");
		close(fd);
	}
	fd = open("build/moved.txt", O_RDONLY);
	memset(buf, 0, sizeof(buf));
	ok(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 3 && !strcmp(buf, "he!"), "what was written is there");
	if (fd >= 0)
		close(fd);
	fd = open(".", O_TMPFILE | O_WRONLY, 0600);
	ok(fd >= 0, "an O_TMPFILE file can be made in the root");
	if (fd >= 0) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		ok(linkat(AT_FDCWD, p, AT_FDCWD, "tmpnamed", AT_SYMLINK_FOLLOW) == 0, "and given an ordinary name");
		errno = 0;
		ok(linkat(AT_FDCWD, p, AT_FDCWD, ".bashrc", AT_SYMLINK_FOLLOW) != 0 && errno == EACCES,
		   "but not a protected one");
		close(fd);
	}
	ok(unlink("build/link") == 0 && rmdir("build/obj") == 0, "rmdir works");
	{
		struct sockaddr_un a;
		int sk = socket(AF_UNIX, SOCK_STREAM, 0);
		struct stat st;

		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		strcpy(a.sun_path, "top.sock");
		ok(sk >= 0 && bind(sk, (struct sockaddr *)&a, sizeof(a)) == 0 && lstat("top.sock", &st) == 0 &&
		   S_ISSOCK(st.st_mode), "a socket file is bound at the top of the root");
		if (sk >= 0)
			close(sk);
		sk = socket(AF_UNIX, SOCK_STREAM, 0);
		strcpy(a.sun_path, ".bashrc");
		errno = 0;
		ok(sk >= 0 && bind(sk, (struct sockaddr *)&a, sizeof(a)) != 0 && errno == EACCES,
		   "but not under a protected name");
		if (sk >= 0)
			close(sk);
	}
}

static void case_core(void)
{
	char lines[4096], p[PATH_MAX];
	struct srt__super *s;
	struct stat st;
	int rc;

	fresh_root("core");
	s = plan(NULL);
	if (!s) {
		ok(0, "plan");
		return;
	}
	rc = run_live(s, 0, body_core, 1, lines, sizeof(lines));
	ok(rc == 0, "the child ran to its end");
	snprintf(p, sizeof(p), "%s/build/moved.txt", root);
	ok(stat(p, &st) == 0 && st.st_size == 3, "the host sees the file the child made");
	snprintf(p, sizeof(p), "%s/.bashrc", root);
	ok(lstat(p, &st) != 0, "no .bashrc on the host");
	ok(contains(lines, "deny linkat ") && contains(lines, "/.bashrc"), "the refusal is reported");
	srt__super_free(s);
}

static int refused(int rc)
{
	return rc < 0 && (errno == EACCES || errno == EPERM);
}

static void body_attacks(void)
{
	int fd;

	fd = open(".git/config", O_WRONLY | O_APPEND);
	ok(fd < 0 && errno == EACCES, "writing .git/config is refused");
	ok(refused(open(".bashrc", O_WRONLY | O_CREAT, 0644)), "creating .bashrc is refused");
	ok(refused(open("sub/../.bashrc", O_WRONLY | O_CREAT, 0644)) || errno == ENOENT,
	   "through .. too");
	ok(mkdir("sub", 0755) == 0 && refused(open("sub/../.bashrc", O_WRONLY | O_CREAT, 0644)),
	   "through an existing directory and .. too");
	ok(symlink(".bashrc", "lnk") == 0 && refused(open("lnk", O_WRONLY | O_CREAT, 0644)),
	   "a symbolic link to a protected name is followed and refused");
	ok(symlink("../" ".git/config", "sub/up") == 0 && refused(open("sub/up", O_WRONLY)),
	   "a relative link climbing back to a protected file is refused");
	ok(refused(symlink("x", ".bashrc")), "a link named .bashrc is refused");
	ok(refused(link(".git/config", "hard")), "a hard link of .git/config is refused");
	ok(refused(truncate(".git/config", 0)), "truncate of it is refused");
	ok(refused(open(".git/config", O_RDONLY | O_TRUNC)), "O_RDONLY|O_TRUNC of it is refused");
	ok(refused(unlink(".git/config")), "unlinking it is refused");
	ok(refused(rename(".git", "old.git")), "renaming .git away is refused");
	ok(mkdir("evil", 0755) == 0 && close(open("evil/config", O_WRONLY | O_CREAT, 0644)) == 0 &&
	   refused(rename("evil", ".git/hooks")), "a directory renamed onto .git/hooks is refused");
	ok(refused(open(".git/hooks/pre-commit", O_WRONLY | O_CREAT, 0755)), "a new hook is refused");
	ok(mkdir(".claude", 0755) == 0, ".claude itself may be made");
	ok(mkdir("stage", 0755) == 0 && mkdir("stage/commands", 0755) == 0 &&
	   rename("stage", "stage2") == 0, "a directory holding commands/ may move elsewhere");
	ok(refused(rename("stage2", ".claude")), "but not onto .claude, which would make .claude/commands appear");
	ok(refused(syscall(SYS_renameat2, AT_FDCWD, "stage2", AT_FDCWD, ".claude", RENAME_EXCHANGE)),
	   "nor exchanged with it");
}

static void case_attacks(void)
{
	char lines[8192], p[PATH_MAX], buf[64];
	struct srt__super *s;
	struct stat st;
	int fd, rc;
	ssize_t n;

	fresh_root("attacks");
	s = plan(NULL);
	if (!s) {
		ok(0, "plan");
		return;
	}
	rc = run_live(s, 0, body_attacks, 1, lines, sizeof(lines));
	ok(rc == 0, "the child ran to its end");
	snprintf(p, sizeof(p), "%s/.git/config", root);
	fd = open(p, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	ok(n == 7 && !memcmp(buf, "[core]\n", 7), ".git/config is untouched on the host");
	snprintf(p, sizeof(p), "%s/.bashrc", root);
	ok(lstat(p, &st) != 0, "no .bashrc on the host");
	snprintf(p, sizeof(p), "%s/.git/hooks/config", root);
	ok(lstat(p, &st) != 0, "nothing moved into .git/hooks");
	snprintf(p, sizeof(p), "%s/.claude/commands", root);
	ok(lstat(p, &st) != 0, "no .claude/commands appeared");
	ok(contains(lines, "deny openat ") || contains(lines, "deny open "), "refusals are reported");
	srt__super_free(s);
}

/* Mode and time changes: Landlock has no right for them, so the supervisor
 * judges the object itself (a hook made executable would run on the host). */
static char outside[PATH_MAX];

static void body_meta(void)
{
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	struct timeval tv[2] = { { 2000, 0 }, { 2000, 0 } };
	char p[64];
	int fd;

	fd = open("tool.sh", O_WRONLY | O_CREAT, 0644);
	ok(fd >= 0, "an ordinary file is made");
	ok(fd >= 0 && fchmod(fd, 0700) == 0, "fchmod of it works");
	ok(fd >= 0 && futimens(fd, old) == 0, "futimens of it works");
	if (fd >= 0)
		close(fd);
	ok(chmod("tool.sh", 0755) == 0, "chmod +x of it works");
	ok(utimensat(AT_FDCWD, "tool.sh", NULL, 0) == 0 && utimes("tool.sh", tv) == 0, "touch of it works");
	ok(mkdir("a", 0755) == 0 && mkdir("a/b", 0755) == 0 && mkdir("a/b/c", 0755) == 0 &&
	   mkdir("a/b/c/d", 0755) == 0 && mkdir("a/b/c/d/e", 0755) == 0, "a tree five deep is made");
	ok(refused(open("a/b/c/d/e/.bashrc", O_WRONLY | O_CREAT, 0644)), "a .bashrc at depth 6 is refused");
	ok(refused(mkdir("a/b/c/d/e/.claude", 0755) == 0 ? mkdir("a/b/c/d/e/.claude/commands", 0755) : -1),
	   "a .claude/commands at depth 6 is refused");
	ok(mkdir("node_modules", 0755) == 0 && mkdir("node_modules/pkg", 0755) == 0 &&
	   mkdir("node_modules/pkg/.vscode", 0755) == 0, "below node_modules protected names may be made");
	ok(refused(chmod(".git/hooks/post-checkout", 0755)), "chmod +x of a hook is refused");
	ok(refused(syscall(SYS_fchmodat, AT_FDCWD, ".git/hooks/post-checkout", 0755)), "fchmodat too");
	ok(symlink(".git/hooks/post-checkout", "hooklink") == 0 && refused(chmod("hooklink", 0755)),
	   "through a symbolic link too");
	fd = open(".git/hooks/post-checkout", O_RDONLY);
	ok(fd >= 0 && refused(fchmod(fd, 0755)), "fchmod on a descriptor opened for reading too");
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ok(fd >= 0 && refused(chmod(p, 0755)), "chmod of /proc/self/fd/N too");
	ok(fd >= 0 && refused(futimens(fd, old)), "futimens of it too");
	if (fd >= 0)
		close(fd);
	fd = open(".git/hooks/post-checkout", O_PATH);
	ok(fd >= 0 && refused(syscall(452, fd, "", 0755, AT_EMPTY_PATH)) &&
	   refused(utimensat(fd, "", old, AT_EMPTY_PATH)), "fchmodat2 and utimensat with AT_EMPTY_PATH too");
	if (fd >= 0)
		close(fd);
	ok(refused(utimensat(AT_FDCWD, ".git/config", old, 0)) && refused(utimes(".git/config", tv)) &&
	   refused(utime(".git/config", NULL)), "utimensat, utimes and utime of .git/config are refused");
	ok(refused(chmod(outside, 0755)) && refused(utimensat(AT_FDCWD, outside, NULL, 0)),
	   "chmod and touch outside the write root are refused");
	errno = 0;
	ok(chmod("missing", 0755) != 0 && errno == ENOENT, "a missing name is ENOENT");
	ok(refused(open("deep/1/2/3/4/repo/.git/config", O_WRONLY | O_APPEND)),
	   "a repository's .git/config six levels down is refused");
	ok(refused(open("deep/1/2/3/4/repo/.git/hooks/post-merge", O_WRONLY | O_CREAT, 0755)),
	   "a new hook in it too");
	ok(refused(rename("deep/1/2/3/4/repo/.git", "deep/1/2/3/4/repo/old")), "and renaming its .git away");
	ok(rename("deep/1/2/3/4/repo", "deep/1/2/3/4/moved") == 0 &&
	   refused(open("deep/1/2/3/4/moved/.git/config", O_WRONLY | O_APPEND)),
	   "its parent may move, the repository stays held");
	ok(refused(open("deep/1/2/3/4/moved/.git/config.lock", O_WRONLY | O_CREAT, 0644)),
	   "and the lock git renames over its config is refused too");
	ok(mkdir("deep/fresh", 0755) == 0 && mkdir("deep/fresh/.git", 0755) == 0 &&
	   close(open("deep/fresh/.git/config", O_WRONLY | O_CREAT, 0644)) == 0 &&
	   mkdir("deep/fresh/.git/hooks", 0755) == 0, "a repository the command makes is its own (git init)");
	ok(mkdir("deep/stage", 0755) == 0 && close(open("deep/stage/config", O_WRONLY | O_CREAT, 0644)) == 0 &&
	   rename("deep/stage", "deep/1/.git") == 0 && close(open("deep/1/.git/config", O_WRONLY)) == 0,
	   "so is a directory it moves to .git");
}

static void case_meta(void)
{
	char lines[8192], p[PATH_MAX * 2];
	struct srt__super *s;
	struct stat st;
	int rc, fd;

	fresh_root("meta");
	snprintf(p, sizeof(p), "%s/.git/hooks/post-checkout", root);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "mkdir -p '%s/deep/1/2/3/4/repo/.git/hooks' && printf '[core]\\n' > '%s/deep/1/2/3/4/repo/.git/config'",
		 root, root);
	run_sh(p);
		snprintf(outside, sizeof(outside), "%s/outside-meta", top);
	fd = open(outside, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	s = plan(NULL);
	if (!s) {
		ok(0, "plan");
		return;
	}
	rc = run_live(s, SRT_SUPER_META, body_meta, 1, lines, sizeof(lines));
	ok(rc == 0, "the child ran to its end");
	snprintf(p, sizeof(p), "%s/tool.sh", root);
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0755 && st.st_mtime == 2000,
	   "the host sees tool.sh's new mode and times");
	snprintf(p, sizeof(p), "%s/.git/hooks/post-checkout", root);
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_mtime > 1000,
	   "the hook stayed 0644 with its own times");
	snprintf(p, sizeof(p), "%s/.git/config", root);
	ok(stat(p, &st) == 0 && st.st_mtime > 2000, ".git/config kept its times");
	ok(stat(outside, &st) == 0 && (st.st_mode & 07777) == 0644, "the file outside the root kept its mode");
	snprintf(p, sizeof(p), "%s/deep/1/2/3/4/moved/.git/config", root);
	ok(stat(p, &st) == 0 && st.st_size == 7, "the deep repository's config is untouched");
	snprintf(p, sizeof(p), "%s/deep/1/2/3/4/moved/.git/hooks/post-merge", root);
	ok(lstat(p, &st) != 0, "and it got no hook");
	snprintf(p, sizeof(p), "%s/a/b/c/d/e/.bashrc", root);
	ok(lstat(p, &st) != 0, "no .bashrc at depth 6 on the host");
	ok(contains(lines, "deny chmod ") && contains(lines, "deny fchmod ") && contains(lines, "deny utimensat ") &&
	   contains(lines, "/.git/hooks/post-checkout"), "the refusals are reported");
	srt__super_free(s);
}

static void body_dead(void)
{
	errno = 0;
	ok(open("after.txt", O_WRONLY | O_CREAT, 0644) < 0 && errno == ENOSYS,
	   "with the supervisor gone a supervised call fails with ENOSYS");
	errno = 0;
	ok(mkdir("after", 0755) != 0 && errno == ENOSYS, "mkdir too");
}

static void case_dead(void)
{
	char lines[256], p[PATH_MAX];
	struct srt__super *s;
	struct stat st;
	int rc;

	fresh_root("dead");
	s = plan(NULL);
	if (!s) {
		ok(0, "plan");
		return;
	}
	rc = run_live(s, 0, body_dead, 0, lines, sizeof(lines));
	ok(rc == 0, "the child ran to its end");
	snprintf(p, sizeof(p), "%s/after.txt", root);
	ok(lstat(p, &st) != 0, "nothing was created");
	srt__super_free(s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(top))
		return 1;
	TAP_RUN(case_plan);
	TAP_RUN(case_decision);
	TAP_RUN(case_core);
	TAP_RUN(case_attacks);
	TAP_RUN(case_meta);
	TAP_RUN(case_dead);
	{
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		run_sh(cmd);
	}
	return tap_done();
}
