#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor now makes every write-only open itself, and it never follows a
# magic link of another process than the caller (/proc/<pid>/fd/N, cwd,
# root): it holds every capability in the command's user namespace. The
# kernel lets a process follow those of a process it may inspect (same
# user, dumpable: every process of the command but its init), so
# `echo msg > /proc/$PPID/fd/1` (a child writing to its parent's
# output, as `> /proc/1/fd/1` in containers) and `> /proc/$PPID/cwd/f`
# worked before a61f400 and work without denyRead; now they fail with
# EACCES. (Read opens through them have been refused since the monitor
# made reads.) The same commands with and without denyRead must agree.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cmd='exec 3>out; sh -c "echo via-fd > /proc/\$PPID/fd/3; echo fd \$?; echo via-cwd > /proc/\$PPID/cwd/pc; echo cwd \$?" 2>/dev/null; exec 3>&-'
rm -f out pc
with=$(srt__run -s "$SD" -c "$cmd" 2>/dev/null; echo "out: $(cat out 2>/dev/null) pc: $(cat pc 2>/dev/null)")
rm -f out pc
without=$(srt__run -s "$SN" -c "$cmd" 2>/dev/null; echo "out: $(cat out 2>/dev/null) pc: $(cat pc 2>/dev/null)")
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in fd cwd; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	if is_root; then
		# root inside: the monitor cannot tell whether the other process
		# is dumpable (its /proc directory is root's either way), so it
		# refuses, as the kernel refuses a non-dumpable one (0985)
		open_route "the monitor cannot tell whether another process is dumpable for a root command: its magic links are refused (SECURITY.md)" \
			S "a write-only open through the parent's /proc/PID/$w answers as without denyRead ($b)" \
			test -n "$b" -a "$a" = "$b"
	else
		attempt S "a write-only open through the parent's /proc/PID/$w answers as without denyRead ($b)" \
			test -n "$b" -a "$a" = "$b"
	fi
done
echo "1..$_tap_n"
