#!/bin/bash
# examples/ builds against this tree's headers and library, and the wrap
# mode example (examples/wrap.c: the program spawns the command itself
# under a pseudo-terminal) streams the output, holds the command and
# reports its violation.
set -u
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
flags="-I$top_srcdir/include -L$top_builddir/.libs -lsrt"
for ex in embed wrap; do
	if cc -Wall -Werror -o "$WORK/$ex" "$top_srcdir/examples/$ex.c" $flags -lutil 2>"$WORK/cc.err"; then
		ok "examples/$ex.c builds"
	else
		not_ok "examples/$ex.c builds: $(head -3 "$WORK/cc.err")"
	fi
done
mkdir -p "$WORK/proj"
out=$(cd "$WORK/proj" && LD_LIBRARY_PATH="$top_builddir/.libs" timeout 60 "$WORK/wrap" "$BACKEND" 2>&1)
printf '%s\n' "$out" | sed 's/^/# /'
check "F wrap example: the output streamed through the terminal" \
	grep -q 'line 3' <<<"$out"
check "K wrap example: the command's output is a terminal" grep -q 'on-a-terminal' <<<"$out"
check "F wrap example: the write outside the write roots failed on the host" test ! -e /etc/srt-example
check "F wrap example: and is reported for the command" \
	grep -q 'deny .* /etc/srt-example' <<<"$out"
echo "1..$_tap_n"
