#!/bin/bash
# examples/ builds against this tree's headers and library, and the wrap
# mode example (examples/wrap.c: the program spawns the command itself
# under a pseudo-terminal) streams the output, holds the command and
# reports its violation.
set -u
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
flags="-I$top_srcdir/include -L$top_builddir/.libs -lsrt"
# the examples are built with the flags the tree was built with: a
# sanitizer build's libsrt needs its runtime loaded first, so a program
# linked against it without them cannot start at all
build_flag() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" 2>/dev/null; }
tree_cflags=$(build_flag CFLAGS) tree_ldflags=$(build_flag LDFLAGS)
for ex in embed wrap; do
	# shellcheck disable=SC2086
	if cc -Wall -Werror $tree_cflags -o "$WORK/$ex" "$top_srcdir/examples/$ex.c" $flags -lutil $tree_ldflags 2>"$WORK/cc.err"; then
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
