#!/bin/bash
# Violations a user can see, and live updates (issue 5): every denied host
# produces exactly one attributed event, written as a JSON line while the
# command runs and summarised on stderr afterwards; ignoreViolations hides
# matching ones; --control-fd changes the network lists of the running
# command; an invalid control line changes nothing.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"

net_server http WEB
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '["evil.test"]' \
	'"deniedDomainReasons":{"evil.test":"no evil here"}')

# --violations-log: one JSON object per denied action, attributed
srt__run -s "$S" --violations-log "$WORK/v.jsonl" -c "$CURLP http://evil.test/ >/dev/null 2>&1; $CURLP http://other.test/x >/dev/null 2>&1; true" 2>"$WORK/err"
check "two denied hosts: exactly two events in the log" test "$(wc -l < "$WORK/v.jsonl")" = 2
check "the event names the host and the configured reason" \
	grep -q '"line":"deny network-outbound evil.test:80 (no evil here)"' "$WORK/v.jsonl"
check "the event for an unlisted host" \
	grep -q '"line":"deny network-outbound other.test:80 (host is not on the allow list)"' "$WORK/v.jsonl"
check "events are attributed to the command" grep -q '"command":".*evil.test' "$WORK/v.jsonl"
check "every line is valid JSON" python3 -c '
import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$WORK/v.jsonl"
check "the summary on stderr lists the denials" grep -q 'srt: the sandbox denied 2 actions' "$WORK/err"

# a command whose text is not UTF-8 (the caller's bytes): every record is
# still strict JSON, the stray bytes as U+FFFD
srt__run -s "$S" --violations-log "$WORK/vu.jsonl" -c "$CURLP http://evil.test/ >/dev/null 2>&1; : $(printf '\377\300\257')" 2>/dev/null
check "a command text that is not UTF-8: the record is strict UTF-8 JSON with U+FFFD" python3 -c '
import json,sys
l=open(sys.argv[1],"rb").read().decode("utf-8")
assert l.count("\n") == 1
r=json.loads(l)
assert "\ufffd" in r["command"] and r["line"].startswith("deny network-outbound evil.test"), r' "$WORK/vu.jsonl"

# a command flooding the proxy with denied requests (six threads, so a
# sanitizer build keeps up too): the log is bounded (a
# burst of 1,000, then 20 a second) and says so; the summary gives the total
cat > "$WORK/flood.py" <<'PYF'
import os,socket,base64,threading
u=os.environ["HTTP_PROXY"]; creds=u.split("//",1)[1].rsplit("@",1)[0]
auth="Proxy-Authorization: Basic "+base64.b64encode(creds.encode()).decode()
req=("CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n%s\r\n\r\n"%auth).encode()
def worker():
    for i in range(500):
        try:
            s=socket.create_connection(("127.0.0.1",3128)); s.sendall(req); s.recv(100); s.close()
        except OSError: pass
ts=[threading.Thread(target=worker) for _ in range(6)]
for t in ts: t.start()
for t in ts: t.join()
PYF
srt__run -s "$S" --violations-log "$WORK/vf.jsonl" -c "python3 $WORK/flood.py" 2>"$WORK/err"
lines=$(wc -l < "$WORK/vf.jsonl")
check "3,000 denied requests: the log is bounded ($lines lines) and notes the rest" \
	test "$lines" -ge 1000 -a "$lines" -le 1500 -a "$(grep -c 'were not reported (rate limit' "$WORK/vf.jsonl")" -ge 1
check "the summary gives the total, not only the last 100" grep -q '^srt: the sandbox denied [0-9]* actions; the last 100:' "$WORK/err"

# --violations-fd
exec 7>"$WORK/v7.jsonl"
srt__run -s "$S" --violations-fd 7 -c "$CURLP http://evil.test/ >/dev/null 2>&1; true" 2>/dev/null
exec 7>&-
check "--violations-fd: one event" test "$(wc -l < "$WORK/v7.jsonl")" = 1

# --quiet
srt__run -s "$S" --quiet -c "$CURLP http://evil.test/ >/dev/null 2>&1; true" 2>"$WORK/err"
check "--quiet: no summary" test -z "$(grep 'srt: the sandbox denied' "$WORK/err")"

# ignoreViolations: the '*' rule hides matching lines
SI=$(settings "{\"network\":{\"allowedDomains\":[\"localhost:$WEB_PORT\"],\"deniedDomains\":[\"evil.test\"]},$NET_FS,\"ignoreViolations\":{\"*\":[\"evil.test\"]}}")
srt__run -s "$SI" --violations-log "$WORK/vi.jsonl" -c "$CURLP http://evil.test/ >/dev/null 2>&1; $CURLP http://other.test/ >/dev/null 2>&1; true" 2>"$WORK/err" || true
check "ignoreViolations hides the matching event only" \
	test "$(grep -c '"line":"deny network-outbound evil.test' "$WORK/vi.jsonl" 2>/dev/null)" = 0 -a \
	     "$(grep -c '"line":"deny network-outbound other.test' "$WORK/vi.jsonl" 2>/dev/null)" = 1

# --control-fd: refused, then allowed by a control line, in one command
mkfifo "$WORK/ctl"
SC=$(net_settings '[]' '[]')
( srt__run -s "$SC" --control-fd 3 -c "
	a=\$($CURLP -o /dev/null -w '%{http_code}' http://localhost:$WEB_PORT/before 2>/dev/null)
	echo \$a > before.txt
	echo go > ready.txt
	for i in \$(seq 100); do [ -e go.txt ] && break; sleep 0.1; done
	b=\$($CURLP -o /dev/null -w '%{http_code}' http://localhost:$WEB_PORT/after 2>/dev/null)
	echo \$b > after.txt
	ls -l /proc/self/fd/3 > fd3.txt 2>&1
" 3<"$WORK/ctl" 2>"$WORK/ctl-err" ) &
sp=$!
exec 8>"$WORK/ctl"
for i in $(seq 100); do [ -e ready.txt ] && break; sleep 0.1; done
# the update, then an invalid line: srt reads and applies the lines in
# order, so once the invalid one is reported the update is in force (and
# stays, the invalid line being ignored)
printf '%s\n' "{\"network\":{\"allowedDomains\":[\"localhost:$WEB_PORT\"],\"deniedDomains\":[]},$NET_FS}" >&8
echo 'this is not json' >&8
for i in $(seq 100); do grep -q 'invalid settings on control fd 3' "$WORK/ctl-err" && break; sleep 0.1; done
touch go.txt
wait $sp
exec 8>&-
check "control fd: refused before the update ($(cat before.txt 2>/dev/null))" test "$(cat before.txt 2>/dev/null)" = 403
check "control fd: allowed after the update ($(cat after.txt 2>/dev/null))" test "$(cat after.txt 2>/dev/null)" = 200
check "control fd: the server saw only the request after the update" \
	test "$(grep -c 'GET /after' "$WEB_LOG")" = 1 -a "$(grep -c 'GET /before' "$WEB_LOG")" = 0
check "control fd: an invalid line is reported and ignored" grep -q 'invalid settings on control fd 3' "$WORK/ctl-err"
check "control fd: the command sees /dev/null at that descriptor" grep -q '/dev/null' fd3.txt

# the proxy raises srt's own open-files limit; the command gets the caller's
out=$(bash -c "ulimit -Sn 1000; $(printf '%q' "$SRT") --backend=$(printf '%q' "$BACKEND") -s $(printf '%q' "$S") -c 'ulimit -Sn'" 2>/dev/null)
check "the command keeps the caller's open-files limit ($out)" test "$out" = 1000

# --control-fd validation
srt__run -s "$SC" --control-fd 2 -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "--control-fd 2 refused" test $rc = 1 -a ! -e "$WORK/ran"
srt__run -s "$SC" --control-fd 9 -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "--control-fd on a closed descriptor refused before running" test $rc = 1 -a ! -e "$WORK/ran"

# where the records go (review findings): a FIFO nobody reads is an
# error, not a hang with the signals blocked; a reader that stops reading
# costs srt a second, then records are dropped and counted; the log in a
# write root cannot be forged or cut by the command; one output only
SV=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
rm -f "$WORK/ran"; mkfifo "$WORK/vfifo"
timeout -k 2 10 "$SRT" --backend="$BACKEND" -s "$SV" --violations-log "$WORK/vfifo" -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "--violations-log on a FIFO with no reader: exit 1 at once, nothing ran (rc=$rc)" \
	test "$rc" = 1 -a ! -e "$WORK/ran" && grep -q 'a FIFO with no reader' "$WORK/err"
srt__run -s "$SV" --violations-log "$WORK/a.log" --violations-fd 7 -c "touch $WORK/ran" 7>/dev/null 2>"$WORK/err"; rc=$?
check "--violations-log with --violations-fd: refused, nothing ran (rc=$rc)" test "$rc" = 1 -a ! -e "$WORK/ran"
# 1,500 denials make far more records than a pipe holds (64 KiB). The
# same loop with no violation output, timed first, is the baseline: a
# stalled reader may add the one second srt waits, never more (the bound
# leaves 10 s for a loaded machine; a fixed bound failed on slow ones).
# `true`, a regular built-in, whose failed redirection ends neither the
# shell nor the loop: no process per denial (`:` is a special built-in,
# whose failed redirection would end sh)
loop='i=0; while [ $i -lt 1500 ]; do true 2>/dev/null > /etc/srt-v$i; i=$((i+1)); done; echo done'
start=$(date +%s)
srt__run -s "$SV" -c "$loop" >/dev/null 2>&1
base=$(( $(date +%s) - start ))
mkfifo "$WORK/vstall"
( exec 3<"$WORK/vstall"; sleep 60 ) & stall=$!
exec 7>"$WORK/vstall"
start=$(date +%s)
timeout -k 5 $((base + 30)) "$SRT" --backend="$BACKEND" -s "$SV" --violations-fd 7 -c "$loop" >"$WORK/out" 2>"$WORK/err"; rc=$?
secs=$(( $(date +%s) - start ))
exec 7>&-
kill $stall 2>/dev/null; wait $stall 2>/dev/null
check "--violations-fd whose reader stopped: the run ends (rc=$rc, ${secs}s, ${base}s without the reader)" \
	test "$rc" = 0 -a "$(cat "$WORK/out")" = done -a "$secs" -le $((base + 10))
check "and srt says how many records it could not write ($(grep -o '[0-9]* violation record(s) were not written' "$WORK/err"))" \
	grep -q 'violation record(s) were not written to --violations-fd' "$WORK/err"
(cd "$WORK" && srt__run -s "$SV" --violations-log "$WORK/own.log" -c ': > own.log; echo "{\"line\":\"forged\"}" >> own.log; : > /etc/srt-v-x; true') >/dev/null 2>&1
check "the log in a write root: the command can neither add to it nor cut it ($(wc -l < "$WORK/own.log") records)" \
	sh -c "! grep -qx '{\"line\":\"forged\"}' '$WORK/own.log' && grep -q '/etc/srt-v-x' '$WORK/own.log'"
echo old > "$WORK/hl.log"; ln "$WORK/hl.log" "$WORK/hl-alias"
rm -f "$WORK/ran"
srt__run -s "$SV" --violations-log "$WORK/hl.log" -c "touch $WORK/ran" 2>"$WORK/err"; rc=$?
check "a log with another hard link (the command could write it there): refused, nothing ran (rc=$rc)" \
	test "$rc" = 1 -a ! -e "$WORK/ran" && grep -q 'hard links' "$WORK/err"
# a pipe another user made (su, sudo, supervisors): srt cannot reopen it,
# and writes to the caller's descriptor with a poll first
U=${SRT_TEST_USER:-srt-test}
if is_root && id "$U" >/dev/null 2>&1; then
	chmod 755 "$WORK"; chmod 644 "$SV"
	# its own directory as the write root, not /tmp: there the git guard
	# also reports the directories of other runs it cannot read, and one
	# make check under load lost this record behind such a note (not
	# explained; the check prints everything that arrived)
	mkdir -p "$WORK/ucwd" && chown "$U" "$WORK/ucwd"
	out=$(su "$U" -s /bin/bash -c "cd '$WORK/ucwd' && timeout -k 5 30 '$SRT' --backend='$BACKEND' -s '$SV' --violations-fd 3 -c ': > /etc/srt-v-u; true' 3>&1 2>/dev/null" | cat)
	check "--violations-fd to another user's pipe: the record arrives ($(printf '%s' "$out" | tr '\n' ' ' | head -c 400))" \
		sh -c "printf '%s' '$out' | grep -q 'deny openat /etc/srt-v-u'"
else
	skip "--violations-fd to another user's pipe: needs root and the user $U"
fi

echo "1..$_tap_n"
