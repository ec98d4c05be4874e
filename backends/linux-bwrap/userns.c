/* linux-bwrap: whether user namespaces can be made here (bwrap needs
 * one), and if not, the likeliest reason and its fix. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/linux-common/sibling.h"
#include "userns.h"

const char *srt__bwrap_userns_diagnosis(void)
{
	if (srt__read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1 && getuid() != 0)
		return "AppArmor forbids unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1); "
		       "allow them for bwrap with an AppArmor profile, or run `sysctl kernel.apparmor_restrict_unprivileged_userns=0`";
	if (srt__read_long_file("/proc/sys/user/max_user_namespaces") == 0)
		return "user namespaces are disabled (user.max_user_namespaces=0); run `sysctl user.max_user_namespaces=15000`";
	if (srt__read_long_file("/proc/sys/kernel/unprivileged_userns_clone") == 0 && getuid() != 0)
		return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0); run `sysctl kernel.unprivileged_userns_clone=1`";
	if (access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0)
		return "this looks like a container whose seccomp profile forbids namespaces; start it with a profile that allows unshare/clone of user namespaces (e.g. --security-opt seccomp=unconfined)";
	return "see bwrap's message above";
}

/* Can this process create a user namespace? Tried in a throwaway child,
 * because that is what bwrap will do; a container's seccomp profile or a
 * disabled sysctl makes it fail with EPERM/ENOSPC/EINVAL. */
int srt__bwrap_userns_works(int *err)
{
	int st = 0;
	pid_t p = fork();

	if (p < 0) {
		*err = errno;
		return 0;
	}
	if (p == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	*err = WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The throwaway child costs about a millisecond on every run. It can only
 * tell something the kernel's switches do not when a seccomp filter (a
 * container's profile) or an AppArmor restriction sits between us and
 * unshare; without either, and with the sysctls allowing it, the kernel
 * creates the namespace. Should bwrap still fail, srt fails with bwrap's
 * own message: the probe only chooses a backend, it does not guard one. */
int srt__bwrap_userns_needs_trial(void)
{
	char line[128];
	int filtered = 1;
	FILE *f = fopen("/proc/self/status", "re");

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Seccomp:", 8)) {
				filtered = strtol(line + 8, NULL, 10) != 0;
				break;
			}
		fclose(f);
	}
	if (filtered || srt__read_long_file("/proc/sys/user/max_user_namespaces") <= 0)
		return 1;
	if (getuid() == 0)
		return 0;
	return srt__read_long_file("/proc/sys/kernel/unprivileged_userns_clone") == 0 ||
	       srt__read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1;
}
