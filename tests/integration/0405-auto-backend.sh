#!/bin/bash
# Automatic backend choice (no --backend) in a simulated container: with
# user namespaces refused (as Docker's default seccomp profile does) srt
# picks linux-landlock and still blocks a denied read, a write outside the
# roots and a direct connection; with Landlock unavailable too it refuses
# with the diagnosis and runs nothing. The automatic choice looks for the
# backends in one directory: the installed one, or the build tree's when
# the harness sets SRT_BACKEND_DIR (make check, tests/run). Without that
# variable this uses the installed srt (./quickstart.sh installs it) and
# skips, saying so, when there is none or it is not this build.
. "$(dirname "$0")/lib.sh"

NOUSERNS="$top_builddir/tests/helpers/no-userns"
if [ -n "${SRT_BACKEND_DIR:-}" ] && [ -e "$SRT_BACKEND_DIR/linux_bwrap.so" ]; then
	INSTALLED=$SRT
else
	INSTALLED=$(command -v srt 2>/dev/null)
fi
want=$("$SRT" -V 2>/dev/null)
if [ -z "$INSTALLED" ] || [ "$("$INSTALLED" -V 2>/dev/null)" != "$want" ] || [ ! -x "$NOUSERNS" ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "no installed srt $want on PATH (run ./quickstart.sh), or no-userns helper missing"; done
	echo "1..$_tap_n"; exit 0
fi
if ! "$INSTALLED" doctor --backend=linux-landlock >/dev/null 2>&1; then
	for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "this kernel offers no Landlock: the container fallback cannot be shown"; done
	echo "1..$_tap_n"; exit 0
fi

S=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')

out=$("$INSTALLED" -d -s "$S" -c 'echo alive' 2>"$WORK/err")
check "normal host: the automatic choice is linux-bwrap" grep -q 'backend linux-bwrap' "$WORK/err"

out=$("$NOUSERNS" "$INSTALLED" -d -s "$S" -c 'echo alive' 2>"$WORK/err")
check "container: srt runs without user namespaces ($out)" test "$out" = alive
check "container: the automatic choice is linux-landlock, and --debug says why" \
	grep -q 'backend linux-landlock chosen: linux-bwrap could not run' "$WORK/err"
out=$("$NOUSERNS" "$INSTALLED" -s "$S" -c 'echo alive' 2>"$WORK/err")
check "container: without --debug the weaker choice is still a warning on stderr" \
	grep -q '^srt: warning: backend linux-landlock chosen: .* is weaker: .*pass --backend=linux-bwrap to refuse' "$WORK/err"
out=$("$NOUSERNS" "$INSTALLED" -s "$S" -c 'cat ~/.ssh/id_canary' 2>/dev/null)
check "container: a denied read is still blocked" test "${out#*CANARY}" = "$out"
"$NOUSERNS" "$INSTALLED" -s "$S" -c "echo x > $WORK/outside" 2>/dev/null
check "container: a write outside the roots leaves nothing on the host" test ! -e "$WORK/outside"
python3 -c '
import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1]); sys.stdout.flush()
s.settimeout(8)
try:
    c,_=s.accept(); open(sys.argv[1],"w").write("connected")
except Exception: pass' "$WORK/conn" > "$WORK/port" &
lp=$!
for i in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
port=$(cat "$WORK/port")
"$NOUSERNS" "$INSTALLED" -s "$S" -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null
sleep 0.3; kill $lp 2>/dev/null; wait $lp 2>/dev/null
check "container: a direct connection to a loopback listener is refused (nothing connected)" test ! -e "$WORK/conn"

"$NOUSERNS" --no-landlock "$INSTALLED" -s "$S" -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "no namespaces and no Landlock: srt refuses (exit 1) and runs nothing" test $rc = 1 -a ! -e "$WORK/ran"
check "the refusal names both backends and points at srt doctor" \
	grep -q 'no sandbox backend can run here.*linux-bwrap.*linux-landlock.*srt doctor' "$WORK/err"

# srt doctor: exit 0 only when a backend can run, every layer reported
"$INSTALLED" doctor >"$WORK/doc" 2>&1; rc=$?
uses_bwrap() { test $rc = 0 && grep -q 'srt will use: linux-bwrap' "$WORK/doc"; }
check "doctor: exit 0 here, names the backend it would use" uses_bwrap
"$NOUSERNS" "$INSTALLED" doctor >"$WORK/doc" 2>&1
has_fix() { grep -A1 'FAIL\] user namespaces' "$WORK/doc" | grep -q 'fix:'; }
check "doctor in a container: user namespaces reported as failing, with a fix" has_fix
"$NOUSERNS" --no-landlock "$INSTALLED" doctor --json >"$WORK/doc.json" 2>&1; rc=$?
json_none() { test $rc = 1 && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["chosen"] is None and len(d["backends"]) >= 2' "$WORK/doc.json"; }
check "doctor --json with nothing usable: exit 1, valid JSON, chosen null" json_none
echo "1..$_tap_n"
