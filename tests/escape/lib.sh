# Shared helpers for the escape battery (sourced after nothing else).
# Builds on tests/integration/lib.sh (SRT, BACKEND, WORK, fake HOME with a
# canary at ~/.ssh/id_canary, ok/not_ok/skip/check, srt__run) and adds:
#   ESYS       the raw-syscall attacker (tests/helpers/escape-sys)
#   PRELOAD    the hostile LD_PRELOAD library
#   PY         a system python3 (readable by every user; not a pyenv shim)
#   fsjson NAME FS-JSON [NET-JSON]   writes $WORK/NAME.json, echoes the path
#   attempt CLASS WHAT COMMAND...    one TAP line "<CLASS> <WHAT>": ok when
#                                    COMMAND succeeds (COMMAND checks the host)
#   leaks FILE                       the canary is in FILE
#   canary_intact                    ~/.ssh/id_canary unchanged on the host
#   snapshot DIR                     sorted listing with sizes, for before/after
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
# $WORK/bg.out. The forked shell drops the EXIT trap before it execs srt:
# bash runs an inherited EXIT trap (rm -rf $WORK) in a child that a signal
# kills before its exec.
srt__bg() { ( trap - EXIT; exec "$SRT" --backend="$BACKEND" "$@" >"$WORK/bg.out" 2>&1 </dev/null ) & }
wait_for() { local i; for i in $(seq "${2:-100}"); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

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
