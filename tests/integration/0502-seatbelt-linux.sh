#!/bin/sh
# macos-seatbelt off macOS: asked to run a command, srt refuses with one
# message naming the backend and that it needs macOS, and nothing runs
# (the command would leave a file behind); --explain prints the Seatbelt
# profile it would use, with the settings' rules in it.
. "$(dirname "$0")/lib.sh"
plan 10

if [ "$(uname -s)" = Darwin ]; then
	for i in $(seq 10); do skip "this is macOS: the refusal is for other systems"; done
	exit 0
fi
if [ -n "${SRT_TEST_MODULES:-}" ]; then
	SB="$SRT_TEST_MODULES/macos_seatbelt.so"
else
	SB="$top_builddir/backends/macos-seatbelt/.libs/macos_seatbelt.so"
fi
if [ ! -f "$SB" ]; then
	for i in $(seq 10); do skip "macos-seatbelt not built (configure --without-macos-seatbelt)"; done
	exit 0
fi
S=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":["secret.txt"]},"allowPty":true}')

timeout -k 5 30 "$SRT" --backend="$SB" -s "$S" -c "touch '$WORK/proj/ran'" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "K macos-seatbelt on $(uname -s) refuses to run (rc=$rc)" [ "$rc" != 0 ]
check "K the command did not run" [ ! -e "$WORK/proj/ran" ]
check "K one message naming the backend and macOS ($(head -c 160 "$WORK/err"))" \
	sh -c "[ \$(wc -l < '$WORK/err') = 1 ] && grep -q 'macos-seatbelt needs macOS' '$WORK/err'"

timeout -k 5 30 "$SRT" --backend="$SB" -s "$S" --explain -c "touch '$WORK/proj/ran'" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "F --explain prints the plan (rc=$rc $(head -c 200 "$WORK/err"))" [ "$rc" = 0 ]
check "F the plan is a Seatbelt profile that denies by default" \
	sh -c "grep -q '^(version 1)' '$WORK/out' && grep -q '^(deny default' '$WORK/out'"
check "F the profile denies reading ~/.ssh and writing secret.txt" \
	sh -c "grep -q '(subpath \"$HOME/.ssh\")' '$WORK/out' && grep -q '(subpath \"$WORK/proj/secret.txt\")' '$WORK/out' && grep -q '(allow pseudo-tty)' '$WORK/out'"
check "F --explain ran nothing" [ ! -e "$WORK/proj/ran" ]
check "F --explain says the backend cannot run here" \
	grep -q '^runs here: no, only its plan is printed (macos-seatbelt needs macOS' "$WORK/out"

# a command that may reach loopback gets Java onto IPv4 sockets, which
# Seatbelt's "localhost" matches
L=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[],"allowLocalBinding":true},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
JAVA_TOOL_OPTIONS=-Xmx1g timeout -k 5 30 "$SRT" --backend="$SB" -s "$L" --explain -- /bin/true >"$WORK/out" 2>"$WORK/err"
check "N allowLocalBinding: JAVA_TOOL_OPTIONS keeps the caller's and adds the IPv4 flag" \
	grep -q '^macos-seatbelt: runs /usr/bin/env JAVA_TOOL_OPTIONS=-Xmx1g -Djava.net.preferIPv4Stack=true /usr/bin/sandbox-exec -p PROFILE /bin/true$' "$WORK/out"
check "N the profile lets the command bind any local address and reach only loopback" \
	sh -c "grep -q '(allow network-bind (local ip \"\*:\*\"))' '$WORK/out' && grep -q '(allow network-outbound (remote ip \"localhost:\*\"))' '$WORK/out' && ! grep -q '(allow network\*)' '$WORK/out'"
