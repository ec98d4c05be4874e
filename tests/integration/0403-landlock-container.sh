#!/bin/bash
# linux-landlock where user namespaces are refused (Docker's default seccomp
# profile, Ubuntu's AppArmor restriction): srt runs under no-userns, a
# filter refusing CLONE_NEWUSER, and must still block a denied read and a
# write outside the roots, while writes inside the roots work.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/landlock-lib.sh"

NOUSERNS="$top_builddir/tests/helpers/no-userns"
cr_run() { timeout -k 5 30 "$NOUSERNS" "$SRT" --backend="$LL" "$@"; }

plan 7

S=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')
mkdir -p "$WORK/proj/out"
if [ ! -x "$NOUSERNS" ]; then
	for i in $(seq 7); do skip "no $NOUSERNS"; done
	exit 0
fi

# the simulated container really refuses user namespaces
if command -v unshare >/dev/null; then
	"$NOUSERNS" unshare -U true 2>/dev/null; rc=$?
	check "control: no-userns refuses a new user namespace" test "$rc" != 0
else
	skip "no unshare(1)"
fi

# and linux-bwrap cannot start there, which is why linux-landlock exists
BW=$BACKEND
if [ -e "$BW" ]; then
	timeout -k 5 30 "$NOUSERNS" "$SRT" --backend="$BW" -s "$S" -c "touch $WORK/bwrap-ran" 2>/dev/null; rc=$?
	check "control: linux-bwrap refuses to start without user namespaces" test "$rc" != 0 -a ! -e "$WORK/bwrap-ran"
else
	skip "linux-bwrap not built"
fi

ll_alive 5 cr_run "$S"
check "srt with linux-landlock starts without user namespaces" test "$out" = alive

out=$(cr_run -s "$S" -c 'cat ~/.ssh/id_canary' 2>/dev/null); rc=$?
check "no userns: denied read still blocked" test "$rc" != 0 -a "${out#*CANARY}" = "$out"
cr_run -s "$S" -c "echo x > $WORK/outside" 2>/dev/null
check "no userns: write outside the roots leaves nothing on the host" test ! -e "$WORK/outside"
cr_run -s "$S" -c 'echo inside > out/f' 2>/dev/null
check "no userns: write inside a root lands on the host" test "$(cat "$WORK/proj/out/f" 2>/dev/null)" = inside
out=$(cr_run -s "$S" -c 'unshare -U true 2>&1 || echo refused' 2>/dev/null)
check "no userns: the command cannot make a user namespace either" grep -q refused <<<"$out"
