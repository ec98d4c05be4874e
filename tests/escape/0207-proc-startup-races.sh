#!/bin/bash
# Escape class: races while srt starts. srt is killed (SIGKILL) or
# signalled (TERM, HUP, USR1) at random points of its startup, many times,
# with the proxy running and placeholders for missing denied paths and
# mandatory-deny files in the plan. Afterwards (and after one normal run,
# which sweeps what a SIGKILLed run could not remove) nothing may be left:
# no sandboxed process, no bwrap or helper of this run, no placeholder in
# the project, no proxy directory or socket in TMPDIR, no host mount.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
MARK="srt-esc-race-$$-$RANDOM"
T="$WORK/tmp"; mkdir -p "$T"
S=$(fsjson race '{"denyRead":["~/.ssh","./missing-secret"],"allowWrite":["."],"denyWrite":["./missing-lock","./gen/out"]}' \
	'{"allowedDomains":["example.com"],"deniedDomains":[]}')
# mount points of this test's tree (other work on the machine mounts too)
mounts() { awk '{print $5}' /proc/self/mountinfo | grep -F "$WORK" | LC_ALL=C sort; }
before=$(snapshot "$P"); mnt_before=$(mounts)

# (INT and QUIT are left out: a non-interactive shell starts background
# jobs with both ignored, so srt would inherit that, not decide it)
n=0 sigs="KILL TERM HUP USR1 KILL"
race_run() { TMPDIR="$T" exec "$SRT" --backend="$BACKEND" -s "$S" -c "exec -a $MARK sleep 30" >/dev/null 2>&1 </dev/null; }
# (the job-kill notices bash prints are noise: stderr of the loop dropped)
for i in $(seq 24); do
	sig=$(echo $sigs | cut -d' ' -f$((i % 5 + 1)))
	# (fork_notrap: a signal sent before the child's exec would run an
	# inherited EXIT trap, rm -rf $WORK)
	fork_notrap race_run
	r=$!
	# 0 to ~240 ms: from option parsing to the command running
	delay="0.$(printf '%03d' $(( (RANDOM % 25) * 10 )))"
	sleep "$delay"
	kill -"$sig" "$r" 2>/dev/null && n=$((n + 1))
	# a TERM/INT/HUP that lands after startup is forwarded: give it time
	for j in $(seq 30); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$r" 2>/dev/null
	wait "$r" 2>/dev/null
	# note (for the report) the first signal and delay that left something
	if [ -z "${first_bad:-}" ]; then
		for j in $(seq 20); do [ "$before" = "$(snapshot "$P")" ] && break; sleep 0.1; done
		[ "$before" = "$(snapshot "$P")" ] || first_bad="SIG$sig after ${delay}s left $(snapshot "$P" | grep -v '^\. ' | cut -d' ' -f1 | tr '\n' ' ')"
	fi
done 2>/dev/null
[ -n "${first_bad:-}" ] && diag "first leftover: $first_bad"
# a SIGKILLed srt's bwrap dies with it, asynchronously: 5 s grace
for j in $(seq 50); do pgrep -f "$MARK" >/dev/null || break; sleep 0.1; done
left=$(pgrep -f "$MARK" | wc -l)
helpers=$(pgrep -f "bwrap.*$P|srt-linux-init.*$MARK" | wc -l)
[ "$left$helpers" = 00 ] || ps -o pid,ppid,etimes,args -p "$(pgrep -d, -f "$MARK|bwrap.*$P")" 2>/dev/null | cut -c1-160 | sed 's/^/# /'
attempt K10 "after $n signals during startup no sandboxed process is left ($left)" test "$left" = 0
attempt K10 "no bwrap or helper of these runs is left ($helpers)" test "$helpers" = 0
for p in $(pgrep -f "$MARK"); do kill -KILL "$p" 2>/dev/null; done

# one normal run sweeps the proxy directories of SIGKILLed runs (those
# nothing changed for 2 s: a younger one may be a start's that has not
# taken its lock yet, common/rmtree.h)
sleep 2.5
TMPDIR="$T" srt__run -s "$S" -c true >/dev/null 2>&1
for j in $(seq 30); do [ "$before" = "$(snapshot "$P")" ] && break; sleep 0.1; done
attempt F7 "no placeholder left in the project" test "$before" = "$(snapshot "$P")"
[ "$before" = "$(snapshot "$P")" ] || diff <(echo "$before") <(snapshot "$P") | head | sed 's/^/# /'
attempt N14 "no proxy directory or socket left in TMPDIR ($(ls "$T" | tr '\n' ' '))" test -z "$(ls -A "$T")"
attempt K10 "no mount left on the host below the test tree" test "$mnt_before" = "$(mounts)"
attempt F1 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
