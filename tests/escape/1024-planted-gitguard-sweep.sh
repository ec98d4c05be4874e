#!/bin/bash
# Escape class G (the cleanup guard): when srt is killed mid-run (SIGKILL,
# as an agent's timeout does), its cleanup guard runs the git guard's sweep
# as the program srt-gitguard-sweep, on the host, outside any sandbox.
#   1. srt installed where the command can write (its directory in a write
#      root): the command replaces the program, the run is killed, and the
#      guard would run the command's program on the host. srt must not take
#      a program the command can have put or changed: the sweep is then done
#      by a copy of srt, and nothing of the command's runs.
#   2. the host replaces the program by a rename during the run (a package
#      upgrade): what runs must be the file srt opened at the start, not
#      whatever has the name when srt dies.
# Each case checks a marker the replacement writes on the host, and that the
# sweep still quarantined the repository the command made.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
if ! command -v git >/dev/null 2>&1; then
	skip_rest 4 "G the sweep's program replaced: git is missing"
	echo "1..$_tap_n"; exit 0
fi
# the program srt runs for this tree: the harness's, else the installed one
# beside the modules' directory
if [ -n "${SRT_HELPER_DIR:-}" ]; then
	SWEEP=$SRT_HELPER_DIR/srt-gitguard-sweep
else
	SWEEP=$(dirname "$MODULE_TREE")/srt-gitguard-sweep
fi
if [ ! -x "$SWEEP" ]; then
	skip_rest 4 "G the sweep's program replaced: no srt-gitguard-sweep at $SWEEP"
	echo "1..$_tap_n"; exit 0
fi

# killed_run CASE HELPERS COMMAND-PREFIX HOST: srt with SRT_HELPER_DIR=HELPERS
# runs, in $WORK/CASE, COMMAND-PREFIX, then makes a repository with a
# program in its config and waits; once it is up, HOST runs (eval'd) and srt
# is killed; then the guard's work is waited for (the run's TMPDIR gone)
killed_run() {
	local c=$1 helpers=$2 pre=$3 host=$4 P=$WORK/$1 S K t here=$PWD
	mkdir -p "$P"
	S=$(fsjson "g$c" "{\"denyRead\":[],\"allowWrite\":[\"$P\"],\"denyWrite\":[]}")
	cd "$P" || return
	SRT_HELPER_DIR=$helpers srt__bg -s "$S" -c "$pre"'git init -q newrepo && git -C newrepo config core.fsmonitor "touch PWNED; false" && echo "$TMPDIR" > tmpname && touch up && exec sleep 300'
	K=$!
	cd "$here" || return
	wait_for "$P/up" 200 || diag "$c: the command did not start: $(head -c 400 "$WORK/bg.out")"
	eval "$host"
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	t=$(cat "$P/tmpname" 2>/dev/null)
	for _ in $(seq 150); do [ -n "$t" ] && [ ! -e "$t" ] && break; sleep 0.1; done
	for _ in $(seq 20); do [ -e "$P/newrepo/.git.srt-quarantine" ] && break; sleep 0.1; done
}
# what a replacement does when it runs: a marker on the host
plant() { printf '#!/bin/sh\ntouch %s\n' "$2" > "$1" && chmod 755 "$1"; }

# 1. the program in the write root: the command swaps it
mkdir -p "$WORK/c1/helpers"
cp -p "$SWEEP" "$WORK/c1/helpers/"
M1=$WORK/pwned-1
killed_run c1 "$WORK/c1/helpers" \
	"printf '#!/bin/sh\ntouch $M1\n' > helpers/new && chmod 755 helpers/new && mv -f helpers/new helpers/srt-gitguard-sweep && " ""
attempt G "a program the command replaced in its write root is not run when srt is killed" test ! -e "$M1"
check "G ... the sweep still quarantines the command's repository (by a copy of srt)" \
	test -e "$WORK/c1/up" -a ! -e "$WORK/c1/newrepo/.git" -a -e "$WORK/c1/newrepo/.git.srt-quarantine"

# 2. the program outside the write roots: the host renames another over it
mkdir -p "$WORK/h2"
cp -p "$SWEEP" "$WORK/h2/"
M2=$WORK/pwned-2
killed_run c2 "$WORK/h2" "" "plant '$WORK/h2/new' '$M2' && mv -f '$WORK/h2/new' '$WORK/h2/srt-gitguard-sweep'"
attempt G "a program renamed over the sweep's during the run is not what runs" test ! -e "$M2"
check "G ... the program srt opened at the start sweeps: the command's repository is quarantined" \
	test -e "$WORK/c2/up" -a ! -e "$WORK/c2/newrepo/.git" -a -e "$WORK/c2/newrepo/.git.srt-quarantine"
echo "1..$_tap_n"
