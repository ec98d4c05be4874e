#!/bin/bash
# Escape class H3: hard links made on the host before the run to a denied
# or protected file. The walk of the write roots compares (device, inode)
# with the denyRead files (also inside a denied directory), the denyWrite
# files and the protected files ($HOME's and those it finds), and covers
# every other name: with linux-bwrap the link reads and writes like the
# file it names (hidden, read-only); linux-landlock, which cannot tell one
# link from another, refuses to run, so nothing leaks either way.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
P="$WORK/proj"
echo 'echo host-rc' > "$HOME/.bashrc"
echo 'KEEP' > "$WORK/keep.txt"
mkdir -p "$P/d/e"
if ! ln "$HOME/.ssh/id_canary" "$P/leak" 2>/dev/null; then
	skip_rest 8 "H3 cannot make a hard link here (protected_hardlinks or another filesystem)"
	echo "1..$_tap_n"; exit 0
fi
ln "$HOME/.aws/credentials" "$P/d/aws"
ln "$HOME/.bashrc" "$P/rc"
ln "$HOME/.bashrc" "$P/d/e/rc2"
ln "$WORK/keep.txt" "$P/d/keep"
S=$(fsjson links "{\"denyRead\":[\"~/.ssh\",\"~/.aws/credentials\"],\"allowWrite\":[\".\"],\"denyWrite\":[\"$WORK/keep.txt\"]}")
ATTACK='cat leak d/aws > out.txt 2>/dev/null; echo PWNED >> rc; echo PWNED >> d/e/rc2; echo PWNED >> d/keep; true'
try() { # try LABEL SRT-ARGS...
	local label=$1; shift
	rm -f "$P/out.txt"
	(cd "$P" && timeout -k 5 60 "$SRT" "$@" -s "$S" -c "$ATTACK") >"$WORK/out" 2>&1
	attempt H3 "$label: a hard link to a file of a denied directory (~/.ssh) does not read it" \
		sh -c "! grep -qs '$CANARY' '$P/out.txt'"
	attempt H3 "$label: a hard link to a denied file (~/.aws/credentials) does not read it" \
		sh -c "! grep -qs 'CANARY-AWS' '$P/out.txt'"
	attempt H3 "$label: hard links to ~/.bashrc (protected) do not write it" \
		sh -c "! grep -qs PWNED '$HOME/.bashrc'"
	attempt H3 "$label: a hard link to a denyWrite file does not write it" \
		sh -c "! grep -qs PWNED '$WORK/keep.txt'"
}
try linux-bwrap --backend="$BACKEND"
ll_err=$(cd "$P" && timeout 30 "$SRT" --backend="$LL" -s "$(fsjson plain "$S0_FS")" -c true 2>&1 >/dev/null)
if [ ! -e "$LL" ] || grep -qi 'landlock is not available\|Landlock ABI' <<<"$ll_err"; then
	skip_rest 4 "H3 linux-landlock cannot run here: $ll_err"
else
	try linux-landlock --backend="$LL"
fi
echo "1..$_tap_n"
