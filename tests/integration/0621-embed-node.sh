#!/bin/bash
# The Node package (bindings/node) with node's own test runner, against
# this build's srt-service and backends, as whichever user runs the script
# (the harness runs it as root and as srt-test): the SandboxManager surface,
# 200 commands in one sandbox each with its own violations, the service's
# death failing commands closed, `npm pack`, and the same scenarios through
# the reference from the npm registry (skipped, with the reason, when the
# registry cannot be reached). One TAP line per test file's case.
set -u
. "$(dirname "$0")/lib.sh"
# The Debian packages do not ship the language bindings: against an
# installed srt they are not what is tested (the build-tree passes run them).
if [ -n "${SRT_TEST_SRT:-}" ]; then
	plan 1; skip "the language bindings are not in the Debian packages; the build-tree passes test them"; exit 0
fi
if ! command -v node >/dev/null 2>&1; then
	plan 1; skip "node is not installed (tests/run installs nodejs)"; exit 0
fi
need_bwrap_sandbox
SVC="$top_builddir/srt-service"
[ -x "$top_builddir/.libs/srt-service" ] && SVC="$top_builddir/.libs/srt-service"
cp -r "$top_srcdir/bindings/node" "$WORK/node"
cd "$WORK"
LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SRT_SERVICE=$SVC \
	npm_config_cache="$WORK/npm-cache" \
	timeout -k 10 1500 node --test --test-reporter=tap "$WORK/node/test/" > "$WORK/node.log" 2>&1
# one line per case of the runner's TAP
grep -E '^(not )?ok [0-9]+ - ' "$WORK/node.log" > "$WORK/cases"
n=$(wc -l < "$WORK/cases")
if [ "$n" = 0 ]; then
	plan 1; not_ok "node --test ran no case"; sed 's/^/# /' "$WORK/node.log" | tail -40; exit 1
fi
plan "$n"
while read -r line; do
	name=$(printf '%s\n' "$line" | sed -E 's/^(not )?ok [0-9]+ - //')
	case "$line" in
	"not ok"*) not_ok "node: $name" ;;
	*"# SKIP"*) skip "node: ${name%% # SKIP*}: ${name#*# SKIP}" ;;
	*) ok "node: $name" ;;
	esac
done < "$WORK/cases"
grep -q '^not ok' "$WORK/node.log" && sed 's/^/# /' "$WORK/node.log" | grep -v '^#     ok' | tail -80
grep -E '# SKIP' "$WORK/node.log" | sed 's/^ */# skipped: /'
exit 0
