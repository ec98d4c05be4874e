#!/bin/bash
# Run the whole escape battery: every tests/escape/[0-9]*.sh, as one TAP
# stream (renumbered, each line naming its script), then a plan and the
# closing line "N passed, N failed, N skipped". Exit 0 only when nothing
# failed. Environment as for the scripts: top_builddir, top_srcdir
# (defaults: this source tree, built in place).
#   tests/escape/run.sh [SCRIPT...]   only the named scripts
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
n=0 passed=0 failed=0 skipped=0
scripts=("$@")
[ ${#scripts[@]} = 0 ] && scripts=("$here"/[0-9]*.sh)
start=$(date +%s)
for t in "${scripts[@]}"; do
	name=$(basename "$t" .sh)
	out=$(cd /tmp && timeout -k 10 300 bash "$t" 2>&1); rc=$?
	got=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*"# SKIP"*)
			n=$((n + 1)); got=$((got + 1)); skipped=$((skipped + 1))
			echo "ok $n - $name:${line#ok [0-9]*}" ;;
		"ok "*)
			n=$((n + 1)); got=$((got + 1)); passed=$((passed + 1))
			echo "ok $n - $name:${line#ok [0-9]* -}" ;;
		"not ok "*)
			n=$((n + 1)); got=$((got + 1)); failed=$((failed + 1))
			echo "not ok $n - $name:${line#not ok [0-9]* -}" ;;
		"#"*|"Bail out!"*)
			echo "# $name: ${line#\#}" ;;
		esac
	done <<< "$out"
	if ! printf '%s\n' "$out" | grep -qE '^1\.\.[0-9]+'; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - $name: no TAP plan (exit $rc)"
	elif [ "$rc" != 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n - $name: exited $rc"
	fi
done
echo "1..$n"
echo "# escape battery as uid $(id -u): $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
