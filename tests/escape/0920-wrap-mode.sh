#!/bin/bash
# The filesystem and network escape scripts again, with every command
# spawned by the caller through the library's wrap mode
# (srt_sandbox_wrap + srt_wrapped_child_setup + srt_command_started /
# srt_command_finished, in tests/helpers/wrap-run) instead of by srt: a
# command spawned that way must be held exactly like one srt spawns. One
# TAP line per attempt of the inner scripts, renamed "wrap: <attempt>";
# the string form (/bin/sh -c shell_command) runs the read battery too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
WRAP_RUN=$(libtool_binary "$top_builddir/tests/helpers/wrap-run")
if [ ! -x "$WRAP_RUN" ]; then
	plan 1; skip "wrap-run not built"; exit 0
fi
# wrap-run in place of srt: the scripts take their modules and helpers
# from SRT_TEST_MODULES when SRT_TEST_SRT is set
mods="$WORK/modules"
mkdir -p "$mods"
ln -s "$BACKEND" "$INIT_HELPER" "$mods/"
[ -e "$BACKEND_LL" ] && ln -s "$BACKEND_LL" "$LL_HELPER" "$mods/"
chmod -R o+rX "$WORK" 2>/dev/null

inner() { # FORM SCRIPT: runs it, prints its TAP lines renamed
	local form=$1 script=$2 name
	name=$(basename "$script" .sh)
	top_builddir=$top_builddir top_srcdir=$top_srcdir SRT_TEST_SRT=$WRAP_RUN \
	SRT_TEST_MODULES=$mods WRAP_RUN_FORM=$form \
		timeout -k 5 600 bash "$script" 2>&1 |
		sed -n -e "s/^\(not ok\|ok\) [0-9]* - \(.*\)/\1 \2/p" \
		       -e "s/^\(ok\) [0-9]* # SKIP \(.*\)/\1 # SKIP \2/p" |
		while read -r line; do printf '%s\t%s %s\n' "$line" "$form" "$name"; done
}

out="$WORK/lines"
: > "$out"
for s in 0101-fs-read 0102-fs-write 0103-fs-links 0105-fs-missing 0401-net-direct 0402-net-spellings; do
	inner argv "$here/$s.sh" >> "$out"
done
inner string "$here/0101-fs-read.sh" >> "$out"

n=$(wc -l < "$out")
if [ "$n" -lt 10 ]; then
	plan 1
	not_ok "wrap: the inner scripts printed $n attempts (expected dozens)"
	exit 1
fi
plan "$n"
while IFS=$'\t' read -r line where; do
	case "$line" in
	"not ok "*) not_ok "wrap ($where): ${line#not ok }" ;;
	"ok # SKIP "*) skip "wrap ($where): ${line#ok # SKIP }" ;;
	*) ok "wrap ($where): ${line#ok }" ;;
	esac
done < "$out"
