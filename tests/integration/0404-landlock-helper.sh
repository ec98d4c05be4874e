#!/bin/bash
# srt-landlock-exec on its own: a plan that is not exactly what srt writes
# stops it with status 125 before the command runs, and a granted path that
# changed since planning is not granted.
. "$(dirname "$0")/lib.sh"

H=$LL_HELPER
MARK="$WORK/ran"

plan 9

if [ ! -x "$H" ]; then
	for i in $(seq 9); do skip "no $H"; done
	exit 0
fi
# Only file writes and creation are handled here, so the command can run.
HDR='srt-landlock-plan 1\0abi 3\0fs 4102\0net 0\0scope 0\0seccomp 0\0inet-block 1\0meta-block 1\0stdio 0\0'
# run_plan NAME PRINTF-FORMAT [command...]: exit status of the helper
run_plan() {
	local name=$1 fmt=$2
	shift 2
	printf "$fmt" > "$WORK/$name.plan"
	timeout -k 5 30 "$H" --plan-fd 3 -- "$@" 3<"$WORK/$name.plan" 2>"$WORK/$name.err"
}

run_plan probe "${HDR}end\\0" true
if [ $? != 0 ] && grep -q 'landlock' "$WORK/probe.err"; then
	for i in $(seq 9); do skip "landlock cannot run here: $(head -1 "$WORK/probe.err")"; done
	exit 0
fi

run_plan good "${HDR}end\\0" touch "$MARK"; rc=$?
check "control: a complete plan runs the command (nothing granted: the touch fails)" test "$rc" = 1 -a ! -e "$MARK"
run_plan magic 'srt-landlock-plan 2\0end\0' touch "$MARK"; rc=$?
check "another plan version: 125, nothing ran" test "$rc" = 125 -a ! -e "$MARK"
run_plan missing 'srt-landlock-plan 1\0abi 3\0end\0' touch "$MARK"; rc=$?
check "a plan missing its headers: 125, nothing ran" test "$rc" = 125 -a ! -e "$MARK"
check "the helper names the step and the reason" grep -q '^srt-landlock-exec: parse plan: ' "$WORK/missing.err"
run_plan trunc "${HDR}rule 4102 1 1 /tmp" touch "$MARK"; rc=$?
check "a truncated plan: 125, nothing ran" test "$rc" = 125 -a ! -e "$MARK"
run_plan unknown "${HDR}allow-everything 1\\0end\\0" touch "$MARK"; rc=$?
check "an unknown record: 125, nothing ran" test "$rc" = 125 -a ! -e "$MARK"
"$H" --plan-fd 9 -- touch "$MARK" 2>/dev/null; rc=$?
check "no plan on the descriptor: 125, nothing ran" test "$rc" = 125 -a ! -e "$MARK"

# a rule whose object is not the one planned (wrong inode) is not granted
mkdir -p "$WORK/w"
ino=$(stat -c %i "$WORK/w"); dev=$(stat -c %d "$WORK/w")
run_plan swapped "${HDR}rule 4102 $dev $((ino + 1)) $WORK/w\\0end\\0" sh -c "echo x > $WORK/w/f"
check "a granted path that changed since planning is not granted" test ! -e "$WORK/w/f"
run_plan same "${HDR}rule 4102 $dev $ino $WORK/w\\0end\\0" /bin/sh -c "echo x > $WORK/w/g"; rc=$?
check "control: the same rule with the planned inode grants" test "$rc" = 0 -a -e "$WORK/w/g"
