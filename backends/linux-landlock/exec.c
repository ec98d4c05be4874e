/* srt-landlock-exec: replay a linux-landlock rule plan on this process and
 * exec the command.
 *
 *   srt-landlock-exec --plan-fd N -- command [args...]
 *
 * Steps, in this order: read and check the plan (plan.h), no_new_privs,
 * the parent-death signal (the command dies with srt), open every granted
 * path and check it is still the object srt planned for, drop every
 * capability, restrict self with the ruleset, load the seccomp filters
 * (the shared one of linux-bwrap and ours: socket families, io_uring,
 * chown and xattrs), exec.
 *
 * Any failure before exec: one line "srt-landlock-exec: <step>: <why>" on
 * stderr and exit status 125; the command never runs with fewer layers
 * than planned. If exec itself fails the status is 127 (not found) or 126,
 * like a shell. A granted path that vanished or changed since planning is
 * not granted: that only ever takes access away. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/linux-common/landlock-abi.h"
#include "backends/linux-landlock/netfilter.h"
#include "backends/linux-common/landlock-plan.h"
#include "backends/linux-common/landlock-replay.h"
#include "backends/linux-common/seccomp.h"
#include "backends/linux-common/helper-defs.h"

static void die(const char *step, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void die(const char *step, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "srt-landlock-exec: %s: %s\n", step, why);
	_exit(EXIT_SETUP);
}

static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		die("clear ambient capabilities", "%s", strerror(errno));
	if (syscall(SYS_capset, &hdr, data) != 0)
		die("drop capabilities", "%s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct srt__ll_replay p;
	char step[128] = "";
	char *buf, *end;
	size_t len;
	long fd = -1;
	int i, rc;

	srt__ll_replay_init(&p);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--plan-fd") && i + 1 < argc) {
			errno = 0;
			fd = strtol(argv[++i], &end, 10);
			if (errno || *end || fd < 3 || fd > 65535)
				die("arguments", "bad --plan-fd \"%s\"", argv[i]);
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			die("arguments", "unknown option \"%s\" (usage: srt-landlock-exec --plan-fd N -- command...)",
			    argv[i]);
		}
	}
	if (fd < 0 || i >= argc)
		die("arguments", "usage: srt-landlock-exec --plan-fd N -- command...");

	if (srt__ll_replay_read(&p, (int)fd, &buf, &len) != 0)
		die(p.step, "%s", p.why);
	close((int)fd);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)", "%s", strerror(errno));
	/* no pid namespace: at least the command goes when srt goes */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		die("prctl(PR_SET_PDEATHSIG)", "%s", strerror(errno));

	/* "here" records are linux-bwrap's: there is no sandbox-made object
	 * to grant here, so a plan with one is not ours */
	if (srt__ll_replay_build(&p, buf, len, 0) != 0 || srt__ll_replay_stdio(&p) != 0)
		die(p.step, "%s", p.why);
	free(buf);
	drop_caps();
	if (srt__ll_replay_restrict(&p) != 0)
		die(p.step, "%s", p.why);
	rc = srt__seccomp_install(p.seccomp, step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	rc = srt__ll_seccomp_install((p.inet_block ? SRT_LL_SECCOMP_INET : 0) |
				     (p.meta_block ? SRT_LL_SECCOMP_META : 0),
				     step, sizeof(step));
	if (rc < 0)
		die("seccomp", "%s: %s", step, strerror(-rc));
	execvp(argv[i], argv + i);
	rc = errno;
	fprintf(stderr, "srt-landlock-exec: %s: %s\n", argv[i], strerror(rc));
	_exit(rc == ENOENT || rc == ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC);
}
