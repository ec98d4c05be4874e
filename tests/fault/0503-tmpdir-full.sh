#!/bin/bash
# A full disk where srt needs room: TMPDIR (the proxy's private directory),
# the sandbox's temporary directory (CLAUDE_CODE_TMPDIR) and the work dir
# (placeholders for missing deny paths), each with no free blocks or no
# free inodes (tiny tmpfs mounts, so root only). srt either runs the
# command with every restriction in place or fails with one clear line;
# it never crashes and never runs the command with less isolation. Checked
# on the host: the canary is not read, nothing is written outside the work
# dir, no connection reaches a loopback listener, the denied file in the
# work dir keeps its content, nothing of srt is left behind.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/net-lib.sh"
. "$top_srcdir/tests/fault/fault-lib.sh"

if ! is_root; then
	plan 1
	skip "mounting the small tmpfs file systems needs root"
	exit 0
fi
MNTS=
trap 'main_shell || exit; for m in $MNTS; do umount -l "$m" 2>/dev/null; done; for p in $NET_PIDS; do kill "$p" 2>/dev/null; done; _cleanup' EXIT

# tiny_fs NAME blocks|inodes: a full tmpfs at $WORK/NAME
tiny_fs() {
	local m="$WORK/$1" i=0
	mkdir -p "$m"
	if [ "$2" = blocks ]; then
		mount -t tmpfs -o size=64k,mode=1777 srt-fault "$m" || return 1
		dd if=/dev/zero of="$m/fill" bs=4k 2>/dev/null
	else
		mount -t tmpfs -o size=1m,nr_inodes=8,mode=1777 srt-fault "$m" || return 1
		while touch "$m/fill$i" 2>/dev/null; do i=$((i + 1)); done
	fi
	MNTS="$MNTS $m"
}

net_server raw RAW
# an allowed domain, so srt starts its proxy (and needs TMPDIR)
S=$(settings '{"network":{"allowedDomains":["example.invalid"],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":["./secret-missing","./keep"]}}')
PROBE='echo RAN
[ -n "$HTTPS_PROXY" ] && echo PROXY
cat "$HOME/.ssh/id_canary" 2>/dev/null && echo LEAK-READ
touch "$OUTSIDE" 2>/dev/null && echo LEAK-WRITE
(echo x >/dev/tcp/127.0.0.1/'"$RAW_PORT"') 2>/dev/null && echo LEAK-NET
rm -f fill fill0 2>/dev/null
(echo pwn >secret-missing) 2>/dev/null && echo LEAK-DENY
(echo pwn >keep) 2>/dev/null && echo LEAK-DENY-KEEP
exit 0'

M_BLK=$WORK/blk M_INO=$WORK/ino M_CWDB=$WORK/cwdb M_CWDI=$WORK/cwdi
if ! { tiny_fs blk blocks && tiny_fs ino inodes && tiny_fs cwdb blocks && tiny_fs cwdi inodes; }; then
	plan 1
	skip "cannot mount tmpfs here"
	exit 0
fi
mkdir -p "$WORK/tmp"
plan 8
# every work dir holds a file the settings protect ("keep"), made before
# the file system is filled up again
echo original >"$WORK/proj/keep"
rm -f "$M_CWDI/fill0" && echo original >"$M_CWDI/keep"
rm -f "$M_CWDB/fill" && echo original >"$M_CWDB/keep" &&
	dd if=/dev/zero of="$M_CWDB/fill" bs=4k 2>/dev/null

# one_case LABEL CWD VAR=VALUE...: run srt once, judge the outcome
n_case=0
one_case() {
	local label=$1 cwd=$2 out err rc lines verdict=
	shift 2
	n_case=$((n_case + 1))
	local outside="$WORK/outside-$n_case" before_raw
	before_raw=$(count_lines raw "$RAW_LOG")
	out=$(cd "$cwd" && env "$@" OUTSIDE="$outside" timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" \
		-- bash -c "$PROBE" 2>"$WORK/err")
	rc=$?
	err=$(cat "$WORK/err")
	lines=$(printf '%s' "$err" | grep -c '')
	sleep 0.2
	if [ $rc -ge 124 ] || printf '%s' "$err" | grep -qiE 'segmentation|abort|core dumped|sanitizer|assert'; then
		verdict="crashed or hung (exit $rc)"
	elif printf '%s\n' "$out" | grep -qx RAN; then
		if [ $rc -ne 0 ]; then
			verdict="the command ran but srt exited $rc"
		elif printf '%s\n' "$out" | grep -q LEAK; then
			verdict="ran with less isolation: $(printf '%s\n' "$out" | grep LEAK | tr '\n' ' ')"
		fi
	elif [ $rc -ne 1 ] || [ "$lines" != 1 ] || ! printf '%s' "$err" | grep -q '^srt: '; then
		verdict="failed without one clear line (exit $rc, $lines lines)"
	fi
	[ -e "$outside" ] && verdict="$verdict; wrote outside the work dir"
	[ "$(count_lines raw "$RAW_LOG")" != "$before_raw" ] && verdict="$verdict; a connection reached the host"
	grep -q pwn "$cwd/secret-missing" 2>/dev/null && verdict="$verdict; the missing denied path was written"
	[ "$(cat "$cwd/keep" 2>/dev/null)" = original ] || verdict="$verdict; the denied file was changed"
	[ -e "$cwd/secret-missing" ] && verdict="$verdict; placeholder left"
	if [ -z "$verdict" ]; then
		if printf '%s\n' "$out" | grep -qx RAN; then
			printf '%s\n' "$out" | grep -qx PROXY || diag "$label: ran without the proxy"
			ok "$label: runs with every restriction in place"
		else
			ok "$label: fails with one line: $err"
		fi
	else
		not_ok "$label: $verdict"
		diag "stdout: $out" "stderr: $err"
	fi
}

one_case "TMPDIR with no free blocks" "$WORK/proj" TMPDIR="$M_BLK"
one_case "TMPDIR with no free inodes" "$WORK/proj" TMPDIR="$M_INO"
one_case "sandbox temporary dir with no free blocks" "$WORK/proj" TMPDIR="$WORK/tmp" CLAUDE_CODE_TMPDIR="$M_BLK/claude"
one_case "sandbox temporary dir with no free inodes" "$WORK/proj" TMPDIR="$WORK/tmp" CLAUDE_CODE_TMPDIR="$M_INO/claude"
one_case "both on a file system with no free inodes" "$WORK/proj" TMPDIR="$M_INO" CLAUDE_CODE_TMPDIR="$M_INO/claude"
one_case "work dir with no free blocks (placeholders still possible)" "$M_CWDB" TMPDIR="$WORK/tmp"
one_case "work dir with no free inodes (no placeholder possible)" "$M_CWDI" TMPDIR="$WORK/tmp"
left=$(find "$M_BLK" "$M_INO" "$WORK/tmp" -maxdepth 1 -name 'srt-*' 2>/dev/null | wc -l)
check "no proxy directory left in any TMPDIR ($left)" test "$left" = 0
exit 0
