#!/bin/bash
# Escape class: /proc and /sys as side doors. The helper's descriptors
# through /proc/1/fd, other processes' cwd/root/environ, mountinfo as a
# disclosure channel, host-wide sysctls (core_pattern is a root code
# execution on the host), cgroup release_agent and cgroup moves, kernel
# memory files. Host state is checked afterwards (sysctl values, cgroup
# files, the canary); as root a changed sysctl is restored.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS" '{"allowedDomains":["example.com"],"deniedDomains":[]}')

# the helper (PID 1 of the command's pid namespace) holds srt's status,
# event and policy descriptors: none may be opened through /proc
srt__run -s "$S" -c '
	ls -l /proc/1/fd/ > fd1.list 2>&1; echo "ls=$?" >> fd1.list
	for f in /proc/1/fd/* /proc/1/task/*/fd/*; do
		[ -e "$f" ] || continue
		( echo "S" > "$f" ) 2>/dev/null && echo "wrote $f" >> fd1.opened
		( head -c 64 "$f" > /dev/null ) 2>/dev/null && echo "read $f" >> fd1.opened
	done
	cat /proc/1/environ /proc/1/cmdline /proc/1/maps > fd1.misc 2>&1
	readlink /proc/1/cwd /proc/1/root /proc/1/exe >> fd1.misc 2>&1
	true' >/dev/null 2>&1
attempt K1 "the helper's descriptors cannot be listed" grep -q '^ls=[1-9]' "$P/fd1.list"
attempt K1 "no helper descriptor could be opened for reading or writing" test ! -e "$P/fd1.opened"
attempt K1 "the helper's environment (proxy token) cannot be read" \
	sh -c "! grep -q 'PROXY=' '$P/fd1.misc'"

# mountinfo: it shows mount points, never what is below a mask
srt__run -s "$S" -c 'cat /proc/self/mountinfo /proc/1/mountinfo /proc/self/mounts 2>/dev/null' >"$WORK/out" 2>&1
attempt F1 "mountinfo names no file inside a denied directory" sh -c "! grep -q 'id_canary\\|credentials' '$WORK/out'"
attempt F1 "mountinfo carries no secret" no_leak "$WORK/out"
attempt F22 "mountinfo carries no proxy token" sh -c "! grep -Eq '[0-9a-f]{32}' '$WORK/out'"

# host-wide sysctls and kernel files (as root a success would matter most)
cp_before=$(cat /proc/sys/kernel/core_pattern)
hn_before=$(cat /proc/sys/kernel/hostname)
srt__run -s "$S" -c '
	echo "core.srt-escape" > /proc/sys/kernel/core_pattern
	echo srt-escape-host > /proc/sys/kernel/hostname
	echo h > /proc/sysrq-trigger
	head -c 16 /proc/kcore > kcore.out; head -c 16 /dev/kmsg > kmsg.out
	cat /proc/kmsg > kmsg2.out & sleep 0.2; kill $! 2>/dev/null
	true' >/dev/null 2>&1
cp_after=$(cat /proc/sys/kernel/core_pattern)
hn_after=$(cat /proc/sys/kernel/hostname)
if [ "$cp_after" != "$cp_before" ] && is_root; then printf '%s\n' "$cp_before" > /proc/sys/kernel/core_pattern; fi
if [ "$hn_after" != "$hn_before" ] && is_root; then printf '%s\n' "$hn_before" > /proc/sys/kernel/hostname; fi
attempt K3 "kernel.core_pattern unchanged on the host" test "$cp_after" = "$cp_before"
attempt K3 "kernel.hostname unchanged on the host" test "$hn_after" = "$hn_before"
attempt K3 "/proc/kcore and the kernel log unreadable" test ! -s "$P/kcore.out" -a ! -s "$P/kmsg.out" -a ! -s "$P/kmsg2.out"

# cgroups: release_agent (a host command run by the kernel) and moving
# the command out of its cgroup
cg_before=$(cat /proc/self/cgroup)
ra_before=$(cat /sys/fs/cgroup/*/release_agent 2>/dev/null | md5sum)
srt__run -s "$S" -c "
	for d in /sys/fs/cgroup /sys/fs/cgroup/*; do
		echo 1 > \$d/notify_on_release; echo '$P/agent' > \$d/release_agent
		echo \$\$ > \$d/cgroup.procs; echo \$\$ > \$d/tasks; mkdir \$d/srt-escape-$$
	done 2>/dev/null
	cat /proc/self/cgroup > cg.inside; true" >/dev/null 2>&1
attempt K3 "no cgroup release_agent changed" test "$(cat /sys/fs/cgroup/*/release_agent 2>/dev/null | md5sum)" = "$ra_before"
attempt K3 "no cgroup created on the host" test -z "$(ls -d /sys/fs/cgroup/srt-escape-$$ /sys/fs/cgroup/*/srt-escape-$$ 2>/dev/null)"
attempt K3 "the command did not leave its cgroup" test "$(cat "$P/cg.inside" 2>/dev/null)" = "$cg_before"
for d in /sys/fs/cgroup/srt-escape-$$ /sys/fs/cgroup/*/srt-escape-$$; do rmdir "$d" 2>/dev/null; done

echo "1..$_tap_n"
