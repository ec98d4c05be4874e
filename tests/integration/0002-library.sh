#!/bin/bash
# The library as an agent framework embeds it: examples/embed.c built with
# `pkg-config --cflags --libs srt` against an installed copy, two sandboxes
# with different settings alive in one process.
. "$(dirname "$0")/lib.sh"

if [ -n "${SRT_TEST_SRT:-}" ]; then
	# testing an installed srt: its development files, found the way a
	# program built on this machine finds them
	PC=$(pkg-config --path srt 2>/dev/null)
	check "srt.pc is installed${PC:+ ($PC)}" test -n "$PC"
	check "srt.h is installed" test -e "$(pkg-config --variable=includedir srt 2>/dev/null)/srt/srt.h"
	LIBDIR=$(pkg-config --variable=libdir srt 2>/dev/null)
else
	INST="$WORK/inst"
	if ! make -s -C "$top_builddir" install DESTDIR="$INST" >"$WORK/install.log" 2>&1; then
		# an unprivileged run cannot write the build tree; use the copy
		# tests/run installed for this purpose, when present
		if [ -d "$top_builddir/../inst" ]; then
			INST=$(cd "$top_builddir/../inst" && pwd)
		else
			skip "cannot install into a DESTDIR from $top_builddir as $(id -un) and no prepared copy exists"
			echo "1..$_tap_n"; exit 0
		fi
	fi
	PC=$(find "$INST" -name srt.pc | head -1)
	check "srt.pc is installed" test -n "$PC"
	check "srt.h is installed" test -n "$(find "$INST" -path '*include/srt/srt.h')"
	LIBDIR=$(dirname "$(find "$INST" -name 'libsrt.so' | head -1)")
	export PKG_CONFIG_PATH=$(dirname "$PC") PKG_CONFIG_SYSROOT_DIR="$INST"
fi
flags=$(pkg-config --cflags --libs srt 2>"$WORK/pc.err")
check "pkg-config knows srt" test -n "$flags"
# a sanitizer build of the library needs the program built the same way
san=
if ldd "$LIBDIR/libsrt.so" 2>/dev/null | grep -q libasan; then
	san="-fsanitize=address,undefined"
fi
if cc $san -o "$WORK/embed" "$top_srcdir/examples/embed.c" $flags 2>"$WORK/cc.err"; then
	ok "examples/embed.c builds against the installed library"
else
	not_ok "examples/embed.c builds against the installed library: $(head -3 "$WORK/cc.err")"
fi
out=$(cd "$WORK/proj" && LD_LIBRARY_PATH="$LIBDIR" timeout 60 "$WORK/embed" "$BACKEND" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
check "two sandboxes in one process: each enforces its own settings" test $rc = 0
check "sandbox a (allowWrite .) wrote its file" test -f "$WORK/proj/from-a.txt"
check "sandbox b (no writes) did not" test ! -e "$WORK/proj/from-b.txt"
echo "1..$_tap_n"
