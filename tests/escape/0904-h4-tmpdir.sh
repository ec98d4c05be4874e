#!/bin/bash
# Escape class H4: a write root that an unrelated run filled cannot stop
# later runs. The default TMPDIR is a directory of the run's own below the
# shared base (/tmp/claude, or /tmp/claude-UID when another user owns
# that), removed at the end of the run; the base is no write root. With
# 250,000 files left in the base, later runs still start (with either
# backend), and what one run writes to its TMPDIR is gone afterwards.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL=$BACKEND_LL
unset CLAUDE_CODE_TMPDIR CLAUDE_TMPDIR
S=$(fsjson plain "$S0_FS")

tmp=$(srt__run -s "$S" -c 'printf %s "$TMPDIR"' 2>"$WORK/err")
case $tmp in
*/srt-run.*) base=${tmp%/*} ;;
/*) base=$tmp ;;
*) base= ;;
esac
if [ -z "$base" ] || [ ! -d "$base" ] || [ ! -O "$base" ]; then
	skip_rest 6 "H4 cannot find this user's default TMPDIR base ($tmp): $(head -1 "$WORK/err")"
	echo "1..$_tap_n"
	exit 0
fi

# what one run writes to its TMPDIR
srt__run -s "$S" -c 'echo x > "$TMPDIR/h4-left-'$$'"; printf %s "$TMPDIR"' >"$WORK/t1" 2>"$WORK/err"
t1=$(cat "$WORK/t1")
attempt H4 "the run's TMPDIR ($t1) is a directory of its own below $base" \
	sh -c "case '$t1' in '$base'/srt-run.*) exit 0;; esac; exit 1"
attempt H4 "the run's TMPDIR and what the command left there are removed at its end" \
	test -n "$t1" -a ! -e "$t1/h4-left-$$" -a ! -e "$t1"

# 250,000 files left behind in the shared base, created fast and removed
# at the end (other runs of this user meet them only for these seconds)
FILL="$base/h4-fill-$$"
cleanup_fill() { main_shell || return 0; rm -rf "$FILL"; _cleanup; }
trap cleanup_fill EXIT
"$PY" - "$FILL" <<'EOF'
import os, sys
d = sys.argv[1]
os.mkdir(d, 0o700)
fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
for i in range(250000):
    os.close(os.open("f%06d" % i, os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
os.close(fd)
EOF
n=$(ls -f "$FILL" 2>/dev/null | wc -l)
out=$(srt__run -s "$S" -c 'echo started' 2>"$WORK/err"); rc=$?
attempt H4 "linux-bwrap: a run starts with $((n - 2)) files left in $base (rc=$rc: $(head -c 200 "$WORK/err"))" \
	test "$rc" = 0 -a "$out" = started
attempt H4 "linux-bwrap: no mandatory deny scan stopped on the files left behind" \
	sh -c "! grep -q 'scan .* stopped' '$WORK/err'"
ll_err=$(timeout 30 "$SRT" --backend="$LL" -s "$S" -c true 2>&1 >/dev/null)
if [ ! -e "$LL" ] || grep -qi 'landlock is not available\|Landlock ABI' <<<"$ll_err"; then
	skip_rest 2 "H4 linux-landlock cannot run here: $ll_err"
else
	out=$(timeout -k 5 60 "$SRT" --backend="$LL" -s "$S" -c 'echo started' 2>"$WORK/err"); rc=$?
	attempt H4 "linux-landlock: a run starts with the files left in $base (rc=$rc: $(head -c 200 "$WORK/err"))" \
		test "$rc" = 0 -a "$out" = started
	attempt H4 "linux-landlock: no mandatory deny scan stopped on the files left behind" \
		sh -c "! grep -q 'scan .* stopped' '$WORK/err'"
fi
rm -rf "$FILL"
echo "1..$_tap_n"
