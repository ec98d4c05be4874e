# Shared helpers for the escape battery (sourced after nothing else).
# Builds on tests/integration/lib.sh (SRT, BACKEND, WORK, fake HOME with a
# canary at ~/.ssh/id_canary, ok/not_ok/skip/check, srt__run) and adds:
#   ESYS       the raw-syscall attacker (tests/helpers/escape-sys)
#   PRELOAD    the hostile LD_PRELOAD library
#   PY         a system python3 (readable by every user; not a pyenv shim)
#   fsjson NAME FS-JSON [NET-JSON]   writes $WORK/NAME.json, echoes the path
#   attempt CLASS WHAT COMMAND...    one TAP line "<CLASS> <WHAT>": ok when
#                                    COMMAND succeeds (COMMAND checks the host)
#   open_route WHY CLASS WHAT CMD... the same for a route known to be open (TODO)
#   leaks FILE                       the canary is in FILE
#   canary_intact                    ~/.ssh/id_canary unchanged on the host
#   snapshot DIR                     sorted listing with sizes, for before/after
#   listen_any < PYTHON              a host listener of the script's making on
#                                    $PORT, logging to $WORK/any.log
#   requests_for WAYS PORT HOST...   proxyclient.py batch lines
#   proxy_batch SRT-ARGS...          proxyclient.py batch < requests, in srt
#   find_watcher PID                 the watcher of replaced names below srt PID
#   monitor_helper PID, blocked PID  the monitor's process below srt PID; how
#                                    often its threads blocked so far
#   burst_blocks PID                 how often the monitor blocked in a burst
#                                    (the started/go/burst protocol: 0918, 1025)
#   need_leases                      skips the rest where fs.leases-enable is off
#   end_bg PID [TENTHS]              srt__bg's srt ended (waited for, then killed)
#   LL_PROBE                         runs $WORK/ll.py, a probe importing
#                                    landlock_self.py (0974, 0977, 0992)
#   below_stage, below_run, below_host_writes, below_stopped, below_checks
#                                    a command below a directory the host
#                                    moves onto the denied ~/.ssh (0956-0966)
# Every attempt is a hostile command; each TAP line asserts on host state
# (a canary, a marker file, a listener's log), not only on an exit status.
. "$(dirname "$0")/../integration/lib.sh"

ESYS="$top_builddir/tests/helpers/escape-sys"
PRELOAD="$top_builddir/tests/helpers/.libs/escape-preload.so"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo /usr/bin/python3)
mkdir -p "$HOME/.aws" "$HOME/outside"
echo "CANARY-AWS-$$" > "$HOME/.aws/credentials"

NONET='{"allowedDomains":[],"deniedDomains":[]}'
fsjson() {
	printf '{"network":%s,"filesystem":%s}\n' "${3:-$NONET}" "$2" > "$WORK/$1.json"
	echo "$WORK/$1.json"
}
# the base settings of the escape scripts, without the network part
S0_FS='{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}'

attempt() { local c=$1 w=$2; shift 2; check "$c $w" "$@"; }
# open_route WHY CLASS WHAT COMMAND...: an attempt at a route known to be
# open (SECURITY.md says which and why): a TAP TODO line, which the suite
# lists as an expected failure, and counts as a failure (an unexpected
# pass) once the route is closed, so the TODO is taken away then
open_route() {
	local why=$1 c=$2 w=$3
	shift 3
	_tap_n=$((_tap_n + 1))
	if "$@"; then
		echo "ok $_tap_n - $c $w # TODO $why"
	else
		echo "not ok $_tap_n - $c $w # TODO $why"
	fi
}
leaks() { grep -q -e "$CANARY" -e "CANARY-AWS-$$" "$1" 2>/dev/null; }
no_leak() { ! leaks "$1"; }
canary_intact() { test "$(cat "$HOME/.ssh/id_canary")" = "$CANARY"; }
snapshot() { (cd "$1" && find . -printf '%p %y %s %m\n' 2>/dev/null | LC_ALL=C sort); }
# skip_rest N REASON: N skip lines
skip_rest() { local i; for i in $(seq "$1"); do skip "$2"; done; }
need_bwrap() {
	if ! command -v bwrap >/dev/null 2>&1 || [ ! -x "$ESYS" ]; then
		skip "bwrap or tests/helpers/escape-sys missing"
		echo "1..$_tap_n"
		exit 0
	fi
}
# srt__bg ARGS...: srt itself in the background (so $! is srt); output to
# $WORK/bg.out. A forked shell inherits the EXIT trap (rm -rf $WORK) and
# runs it when a signal kills it before its exec, even one whose first
# command is `trap - EXIT` (a signal sent right after the fork lands
# before that: 0207 lost its whole tree so). The trap is dropped in the
# parent for the fork instead (and set back as the script had it).
# fork_notrap CMD...: CMD in the background, so forked.
fork_notrap() {
	local t
	t=$(trap -p EXIT)
	trap - EXIT
	"$@" &
	eval "${t:-trap - EXIT}"
}
srt__bg_exec() { exec "$SRT" --backend="$BACKEND" "$@" >"$WORK/bg.out" 2>&1 </dev/null; }
srt__bg() { fork_notrap srt__bg_exec "$@"; }
# unprivileged_user: as root, the name of a user without privilege to run
# srt as (SRT_TEST_USER, srtuser or srt-test), empty when there is none;
# empty too when not root (the tests run as the caller then)
unprivileged_user() {
	is_root || return 0
	local u
	for u in "${SRT_TEST_USER:-}" srtuser srt-test; do
		[ -n "$u" ] && [ "$u" != root ] && id "$u" >/dev/null 2>&1 && echo "$u" && return 0
	done
}
# unprivileged_setup N (0964, 0995, 0996): as root, the unprivileged user
# to run srt as in $as, or, without one, the test's N checks skipped and
# the test ended; $U a fresh directory below /tmp for a home that user
# can use (removed at exit, as $WORK is)
unprivileged_setup() {
	as=$(unprivileged_user)
	if is_root && [ -z "$as" ]; then
		skip_rest "$1" "needs an unprivileged user (srtuser or srt-test) when run as root"
		echo "1..$_tap_n"
		exit 0
	fi
	U=$(mktemp -d /tmp/srt-nd.XXXXXX) || exit 1
	trap 'main_shell || exit; rm -rf "$U"; _cleanup' EXIT
}
# as_user USER COMMAND...: COMMAND as USER, or as the caller when USER is empty
as_user() { local u=$1; shift; if [ -n "$u" ]; then runuser -u "$u" -- "$@"; else "$@"; fi; }
wait_for() { local i; for i in $(seq "${2:-100}"); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
# gone PATTERN: no host process has PATTERN in its command line, within 5 s
# (srt returns before the killed processes of its sandbox are reaped; on a
# loaded machine that takes a while)
gone() { local i; for i in $(seq 50); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done; return 1; }
# end_bg PID [TENTHS]: wait up to TENTHS tenths of a second (100) for the
# background srt PID to end by itself, then end it and reap it
end_bg() {
	local i
	for i in $(seq "${2:-100}"); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill "$1" 2>/dev/null
	wait "$1"
}

# host_case NAME SETTINGS COMMAND HOST: run COMMAND in the sandbox in $P;
# it touches $P/started and waits for $P/go before it reads; meanwhile HOST
# runs on the host in $P (eval'd), then go is given. The command's output
# is in $WORK/bg.out (shown as a diag line).
host_case() {
	local name=$1 s=$2 cmd=$3 host=$4 pid
	rm -f "$P/started" "$P/go"
	srt__bg -s "$s" -c "$cmd"
	pid=$!
	wait_for "$P/started" 300 || diag "$name: the command did not start: $(head -c 300 "$WORK/bg.out")"
	(cd "$P" && eval "$host")
	sleep 0.5
	touch "$P/go"
	end_bg "$pid" 300
	diag "$name: $(tr '\n' ' ' < "$WORK/bg.out" | head -c 300)"
}

# A command below a directory the host moves onto the denied ~/.ssh (0956
# to 0966): the probe ($WORK/probe.py, importing below.py) gets below the
# staged directory and touches $P/ready and $P/in; the host swaps, makes
# host-made-name there and touches $P/written; the probe then looks
# (below.py's look_below) and writes its findings to $P/res.
BELOW_PY="$top_srcdir/tests/escape"
STOPPED_RE='had entered or opened before srt covered it again|cannot tell whether a process of the command is inside'
# below_stage: a fresh ~/.ssh with the canary and an empty ~/.ssh.new
below_stage() {
	rm -rf "$HOME"/.ssh* "$P/ready" "$P/in" "$P/gave-up" "$P/written" "$P/res"
	mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
}
# below_run SETTINGS WHAT ARGS...: the probe in srt with ARGS, staged
# ~/.ssh.new moved onto ~/.ssh once the probe is in (WHAT names that in
# the diagnostics), the host's file made, the run ended
below_run() {
	local s=$1 what=$2 pid
	shift 2
	srt__bg -s "$s" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $*"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not get $what: $(cat "$P/res" 2>/dev/null)"
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	below_host_writes "$pid"
}
# settle_watch PID: after the host's swap, wait until srt PID has ended or
# 2 s have passed. That is the time the watcher gets to cover the new
# ~/.ssh and end its scan for processes already below it: a fixed 0.5 s
# was seen to be too short beside the sanitizer pass (see 1002). A run that
# srt stops ends here at once, so a passing case does not wait; a run that
# goes on gets the full 2 s before the host writes.
settle_watch() {
	local i
	for i in $(seq 20); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
}
# below_host_writes PID: the host's file in the new ~/.ssh (or in the
# directory BELOW_WRITE names below $HOME) once the watcher's cover is on
# it, the marker, and the end of srt PID
below_host_writes() {
	settle_watch "$1"
	echo "SECRET-$CANARY" > "$HOME/${BELOW_WRITE:-.ssh}/host-made-name"
	touch "$P/written"
	end_bg "$1" 150
}
# below_esys_hop MODE TRIES: the staged ~/.ssh.new's descriptor kept
# moving by tests/helpers/escape-sys MODE (fork-hop: carried down a fork
# chain; fd-hop: moved among descriptor numbers that are all open) until
# the host's file is written, then used to look below it (below.py); up
# to TRIES runs, until one sees the host's name. try is left at the number
# of runs made.
below_esys_hop() {
	local mode=$1 tries=$2 s
	cat > "$WORK/look.py" <<'PYEOF'
import os, sys
from below import look_below
p = sys.argv[1]
res = open(p + "/res", "a")
look_below(res, os.path.join(os.environ["HOME"], ".ssh"))
res.write("done\n")
PYEOF
	cat > "$WORK/probe.py" <<'PYEOF'
import os, subprocess, sys, time
p, stage, esys, mode, look = sys.argv[1:6]
subprocess.Popen([esys, mode, stage, p + "/written", sys.executable, look, p])
time.sleep(0.3)
open(p + "/ready", "w").close()
open(p + "/in", "w").close()
for _ in range(150):
    if os.path.exists(p + "/res") and "done" in open(p + "/res").read():
        break
    time.sleep(0.1)
PYEOF
	s=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	for try in $(seq "$tries"); do
		below_stage
		below_run "$s" "its descriptor of ~/.ssh.new" "$P" "$HOME/.ssh.new" "$ESYS" "$mode" "$WORK/look.py"
		diag "attempt $try: $(tr '\n' ' ' 2>/dev/null < "$P/res")"
		grep -qs stat-sees-name "$P/res" && break
	done
	diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
}
# below_stopped WHAT [TODO-WHY]: srt stopped the run, saying why, before
# the probe's end
below_stopped() {
	below_check "${2:-}" H1 "$1: srt stopped the run" \
		sh -c "grep -qE '$STOPPED_RE' '$WORK/bg.out' && ! grep -qx done '$P/res'"
}
# below_checks WHAT [SEEN-TODO-WHY]: the host's name not seen (a TODO line
# when SEEN-TODO-WHY is given), its file not read, nothing made in the
# directory and the host's file not written
below_checks() {
	below_check "${2:-}" H1 "$1: no name the host puts there is seen" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "$1: no file of it is read" no_leak "$P/res"
	attempt H1 "$1: no file is made in it on the host" test ! -e "$HOME/.ssh/authorized_keys"
	attempt H1 "$1: the host's file in it is not written" \
		sh -c "! grep -q appended-by-the-command '$HOME/.ssh/host-made-name'"
}
# below_check TODO-WHY CLASS WHAT COMMAND...: attempt, or open_route when
# TODO-WHY is not empty
below_check() {
	local why=$1
	shift
	if [ -n "$why" ]; then open_route "$why" "$@"; else attempt "$@"; fi
}

# A Landlock domain the command adds to itself (0974, 0977, 0992): the
# probe $WORK/ll.py imports landlock_self.py (restrict, attempts) from
# here; LL_PROBE is the command line that runs it, on the host or as
# srt's -c in the sandbox (the arguments follow).
LL_PROBE="env PYTHONPATH=$top_srcdir/tests/escape PYTHONDONTWRITEBYTECODE=1 $PY $WORK/ll.py"

# monitor_pair: into $WORK/proj (P), with SD (denyRead ~/.ssh, the project
# writable: the monitor makes the calls) and SN (the same without denyRead:
# the kernel does), for the tests that compare the two answers
monitor_pair() {
	P="$WORK/proj"
	cd "$P" || exit 1
	SD=$(fsjson sd '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
	SN=$(fsjson sn '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
}

# The host moves the parent of the denied ~/.config/gh away and makes it
# again (`mv ~/.config ~/.config.bak; mkdir -p ~/.config/gh` and a new
# token) while the command tries to put something of its own at ~/.config
# (0968 to 0971). config_stage NAMES...: ~/.config/gh with an old token,
# the markers and NAMES removed. config_moved_run SETTINGS: the probe
# ($WORK/probe.py P) in srt and the host's move.
config_stage() {
	rm -rf "$HOME"/.config* "$P/ready" "$P/written" "$P/res" "$@"
	mkdir -p "$HOME/.config/gh"
	echo "oauth_token: old-$CANARY" > "$HOME/.config/gh/hosts.yml"
}
config_moved_run() {
	local pid
	srt__bg -s "$1" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	sleep 0.3
	mv "$HOME/.config" "$HOME/.config.bak"
	sleep 0.3
	mkdir -p "$HOME/.config/gh"
	echo "oauth_token: $CANARY" > "$HOME/.config/gh/hosts.yml"
	touch "$P/written"
	end_bg "$pid"
	diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
	diag "host ~/.config after the run: $(ls -ld "$HOME/.config" 2>&1)"
}

# Network scripts run the whole test (srt, its proxy, the listeners) in a
# network namespace of their own (`unshare -rn`), so that even a proxy
# that wrongly connects to a metadata or other non-loopback address sends
# nothing off this machine; there the addresses an attacker aims at
# (169.254.169.254, fd00:ec2::254) are put on lo with a listener behind
# them, which makes a leak visible. Call netns_setup first thing.
CLIENT="$top_srcdir/tests/escape/proxyclient.py"
IPCMD=$(command -v ip || ls /usr/sbin/ip /sbin/ip /bin/ip 2>/dev/null | head -1)
netns_setup() {
	[ -n "${SRT_ESC_NETNS:-}" ] || return 1
	[ -n "$IPCMD" ] || return 1
	"$IPCMD" link set lo up || return 1
	"$IPCMD" addr add 169.254.169.254/32 dev lo 2>/dev/null
	"$IPCMD" -6 addr add fd00:ec2::254/128 dev lo nodad 2>/dev/null
	return 0
}

# listen_any < PYTHON: picks $PORT and runs the Python listener body read
# from stdin on the host, in the background (its pid joins NET_PIDS), and
# returns once it listens. The body starts its own daemon threads; it
# finds port and log (the path of $WORK/any.log) set, ANY (the IPv4 and
# IPv6 wildcard addresses), note(LINE) appending a line to the log,
# bound(FAMILY, TYPE, ADDRESS, PORT), a socket bound there (address
# reusable, IPv6 sockets IPv6 only), and accepting(FN), a thread body
# calling FN(connection, peer) for each connection its listener accepts.
listen_any() {
	PORT=$(( 20000 + $$ % 20000 ))
	{
		cat <<'PYEOF'
import socket, sys, threading
port, log = int(sys.argv[1]), sys.argv[2]
ANY = ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::"))
def note(line):
    open(log, "a").write(line + "\n")
def bound(fam, typ, addr, p):
    s = socket.socket(fam, typ)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((addr, p))
    return s
def accepting(fn):
    def loop(s):
        while True:
            c, a = s.accept()
            fn(c, a)
    return loop
PYEOF
		cat
		printf '%s\n' 'open(log + ".up", "w").close()' 'threading.Event().wait(120)'
	} > "$WORK/any.py"
	"$PY" "$WORK/any.py" "$PORT" "$WORK/any.log" & NET_PIDS="$NET_PIDS $!"
	wait_for "$WORK/any.log.up" 50
}

# requests_for WAYS PORT HOST...: for each HOST, one proxyclient.py batch
# line per way of WAYS (http, connect, socks) to HOST on PORT.
requests_for() {
	local ways=$1 port=$2 h w
	shift 2
	for h in "$@"; do
		for w in $ways; do
			case $w in
			socks) printf 'socks %s %s\n' "$h" "$port" ;;
			*) printf '%s %s:%s\n' "$w" "$h" "$port" ;;
			esac
		done
	done
}

# proxy_batch SRT-ARGS...: srt__run with SRT-ARGS running proxyclient.py on
# the batch file requests of the project directory.
proxy_batch() { srt__run "$@" -c "/usr/bin/python3 $CLIENT batch < requests"; }

# make_deep DIR (1008, 1017): a chain of 4,000 directories "d" below DIR,
# which below.py's hold_deep goes down
make_deep() {
	rm -rf "$1"
	mkdir -p "$1"
	"$PY" -c '
import os, sys
os.chdir(sys.argv[1])
for i in range(4000):
    os.mkdir("d"); os.chdir("d")
' "$1"
}
# stall_swap PID TENTHS (1007, 1008): once the probe of the srt PID has
# touched $P/in, the host moves ~/.ssh.new onto the denied ~/.ssh, and a
# fifth of a second later, while the watcher is still busy with the first
# (looking at what the command holds below it takes the best part of a
# second with the probe's thousands of descriptors), puts a new ~/.aws
# (holding host-made-name) in place and touches $P/aws-made; then srt is
# ended as end_bg does. STALL_SECONDS: how long that took.
stall_swap() {
	local t0
	wait_for "$P/in" 300 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	t0=$(date +%s)
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	sleep 0.2
	mv "$HOME/.aws" "$HOME/.aws.old"
	mkdir "$HOME/.aws"
	echo "CANARY-AWS-$$" > "$HOME/.aws/host-made-name"
	touch "$P/aws-made"
	end_bg "$1" "$2"
	STALL_SECONDS=$(($(date +%s) - t0))
	diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null), $STALL_SECONDS s"
	diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
}
# find_watcher PID: the watcher of replaced names (linux-bwrap) below the
# srt whose pid is PID, or nothing: a child of the outer helper
# (srt-linux-init) that kept CAP_SYS_ADMIN and no other capability (the
# nested init, the proxy relay and the command have none)
descendants() { # the processes below $1
	ps -eo pid=,ppid= | awk -v top="$1" '{ up[$1] = $2 } END {
		for (p in up) { q = p; while (q in up && q != top && q > 1) q = up[q]; if (q == top && p != top) print p } }'
}
find_watcher() {
	local c pp
	for c in $(descendants "$1"); do
		[ "$(ps -o comm= -p "$c" 2>/dev/null)" = srt-linux-init ] || continue
		pp=$(ps -o ppid= -p "$c" | tr -d ' ')
		[ "$(ps -o comm= -p "$pp" 2>/dev/null)" = srt-linux-init ] || continue
		grep -q '^CapEff:[[:space:]]*0*200000$' "/proc/$c/status" 2>/dev/null && echo "$c"
	done
}
# burst_blocks PID: for srt__bg's run PID whose command touches $P/started,
# waits for $P/go, makes a burst of calls and touches $P/burst: gives go and
# sets helper (the monitor's process, empty when not found) and
# burst_blocked (how often its threads blocked during the burst). The
# caller gives $P/stop and ends the run.
burst_blocks() {
	local before
	wait_for "$P/started" 100
	helper=$(monitor_helper "$1")
	sleep 0.2
	before=$(blocked "$helper")
	touch "$P/go"; wait_for "$P/burst" 600
	burst_blocked=$(($(blocked "$helper") - before))
}
# need_leases: end the test here, skipped with the reason, where the host
# has file leases switched off (fs.leases-enable)
need_leases() {
	[ "$(cat /proc/sys/fs/leases-enable 2>/dev/null)" = 1 ] && return 0
	skip "file leases are disabled on this host (fs.leases-enable)"
	echo "1..$_tap_n"
	exit 0
}
# monitor_helper PID: the outer helper below srt PID (the watcher's parent),
# whose threads are the violation monitor's; empty when not found
monitor_helper() {
	local w
	w=$(find_watcher "$1")
	[ -n "$w" ] && ps -o ppid= -p "$w" | tr -d ' '
}
# blocked PID: how often every thread of PID blocked so far (voluntary
# context switches)
blocked() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }'; }
