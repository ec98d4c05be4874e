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

# A sandbox started to print its plan (plan_only) plans without making
# anything a run needs (no placeholders, guard, TMPDIR, proxy socket), so
# it must never run a command: srt_sandbox_run refuses it.
cat > "$WORK/planonly.c" <<'C'
#include <srt/srt.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	static const char js[] = "{\"network\":{\"allowedDomains\":[\"example.com\"],\"deniedDomains\":[]},"
		"\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\"],\"denyWrite\":[]}}";
	struct srt_options opt;
	struct srt_diag diag;
	struct srt_sandbox *sb;
	const char *cmd[] = { "/bin/sh", "-c", argv[2], NULL };
	int st = 0, rc;
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	memset(&opt, 0, sizeof(opt));
	memset(&diag, 0, sizeof(diag));
	opt.backend = argv[1];
	opt.plan_only = 1;
	if (srt_sandbox_new_from_text(&sb, js, strlen(js), SRT_SETTINGS_JSON, &opt, &diag) ||
	    srt_sandbox_start(sb, &diag) || srt_sandbox_explain(sb, cmd, null, &diag)) {
		printf("setup failed: %s\n", diag.message);
		return 2;
	}
	struct srt_wrapped *w = NULL;
	int wrc;

	rc = srt_sandbox_run(sb, cmd, NULL, &st, &diag);
	printf("run: %d %s; ", rc, diag.message);
	wrc = srt_sandbox_wrap(sb, cmd, NULL, &w, &diag);
	printf("wrap: %d %s\n", wrc, diag.message);
	srt_sandbox_free(sb);
	return rc == SRT_E_STATE && wrc == SRT_E_STATE && !w ? 0 : 1;
}
C
if cc $san -o "$WORK/planonly" "$WORK/planonly.c" $flags 2>"$WORK/cc.err"; then
	out=$(cd "$WORK/proj" && LD_LIBRARY_PATH="$LIBDIR" timeout 60 "$WORK/planonly" "$BACKEND" "touch $WORK/plan-ran" 2>&1); rc=$?
	check "a plan_only sandbox refuses to run or wrap a command (rc=$rc: $out)" test $rc = 0 -a ! -e "$WORK/plan-ran"
else
	not_ok "the plan_only program builds: $(head -3 "$WORK/cc.err")"
fi
echo "1..$_tap_n"
