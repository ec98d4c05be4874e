#!/bin/bash
# The test scripts' own cleanup must run only in the script's shell. bash
# runs the EXIT trap in a copy of the shell it forked for a background
# command when a signal ends that copy before its exec: a test that sends
# SIGINT right after `cmd &` (0208's sweep of srt killed at moments of its
# start) had the copy remove $WORK under the script, and every check after
# it failed for want of its files. The same copy running a trap that kills
# the script's servers would take them from the checks after it.
. "$(dirname "$0")/lib.sh"

plan 3

# 1: signals that land before the exec leave $WORK to the script
lost=
for i in $(seq 100); do
	/bin/sleep 0.02 </dev/null >/dev/null 2>&1 &
	p=$!
	kill -INT "$p" 2>/dev/null
	wait "$p"
	[ -d "$WORK/proj" ] || { lost=$i; break; }
done 2>/dev/null
check "100 background commands interrupted at once: \$WORK is still there (lost at ${lost:-none})" test -z "$lost"

# 2: a trap that also stops the script's servers, written as the scripts
# write theirs: the servers outlive the interrupted copies
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
SRV=$!
trap 'main_shell || exit; kill $SRV 2>/dev/null; _cleanup' EXIT
for i in $(seq 100); do
	/bin/sleep 0.02 </dev/null >/dev/null 2>&1 &
	p=$!
	kill -TERM "$p"
	wait "$p"
done 2>/dev/null
check "100 background commands ended by SIGTERM at once: the script's server is still running" kill -0 "$SRV"

# 3: every EXIT trap of the scripts built on lib.sh starts with that test
bad=$({ grep -l 'lib\.sh"$' "$top_srcdir"/tests/integration/*.sh "$top_srcdir"/tests/escape/*.sh "$top_srcdir"/tests/fault/*.sh
	echo "$top_srcdir/tests/integration/net-lib.sh"; } |
	xargs grep -n "^[[:space:]]*trap '.*' EXIT" | grep -v "trap 'main_shell || exit; " | sed 's|.*/tests/|tests/|')
check "every EXIT trap of the test scripts runs only in its script's shell (${bad:-all do})" test -z "$bad"
