#!/bin/bash
# A run killed with SIGKILL leaves its placeholders to its cleanup guard,
# which removes them once it gets to them. A second run planned before
# then took the dead run's placeholder directory ./gen for the project's
# own, made its own placeholder gen/out inside it, and so made the guard's
# rmdir fail (not empty): ./gen stayed in the project for good after both
# (0207's F7 once under load in CI). The guard is held stopped here so
# that order is certain. The second run must take the dead run's
# placeholders as its own (they carry srt's mark) and remove them itself.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
MA="srt-stale-a-$$-$RANDOM" MB="srt-stale-b-$$-$RANDOM"
S=$(fsjson stale '{"denyRead":["./missing-secret"],"allowWrite":["."],"denyWrite":["./gen/out"]}')
before=$(snapshot "$P")
# the command itself (exec -a): srt's own command line holds the mark too
running() { local i; for i in $(seq 100); do pgrep -f "^$1" >/dev/null && return 0; sleep 0.1; done; return 1; }
cd "$P" || exit 1

fork_notrap srt__bg_exec -s "$S" -c "exec -a $MA sleep 30"
a=$!
running "$MA" || diag "run A's command did not start: $(cat "$WORK/bg.out")"
# the guard: srt's child that is not bwrap (srt-linux-init --guard, or a
# copy of srt when the run has orphan work)
guard=$(ps -o pid=,comm= --ppid "$a" | awk '$2 != "bwrap" { print $1; exit }')
check "run A made its placeholders (./gen, ./missing-secret)" test -d gen -a -f missing-secret
check "run A's cleanup guard was found (a child of srt: $guard)" test -n "$guard"
[ -n "$guard" ] && kill -STOP "$guard"
kill -KILL "$a"
wait "$a" 2>/dev/null
pkill -KILL -f "^$MA"

# run B is planned and runs while A's guard has not cleaned up yet
fork_notrap srt__bg_exec -s "$S" -c "exec -a $MB sleep 2"
b=$!
running "$MB" || diag "run B's command did not start: $(cat "$WORK/bg.out")"
check "run B ran beside A's leftovers" running "$MB"
# A's guard goes on now, while B holds the names
[ -n "$guard" ] && kill -CONT "$guard"
for i in $(seq 100); do [ -n "$guard" ] && kill -0 "$guard" 2>/dev/null || break; sleep 0.1; done
check "run A's guard has ended" test -z "$guard" -o ! -d "/proc/$guard"
end_bg "$b"
check "run B ended by itself (rc=$?)" true
for i in $(seq 30); do [ "$before" = "$(snapshot "$P")" ] && break; sleep 0.1; done
check "F7 no placeholder of either run is left in the project" test "$before" = "$(snapshot "$P")"
[ "$before" = "$(snapshot "$P")" ] || diff <(echo "$before") <(snapshot "$P") | head | sed 's/^/# /'
check "F1 the canary is unchanged" canary_intact
echo "1..$_tap_n"
