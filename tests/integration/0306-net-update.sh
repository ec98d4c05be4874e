#!/bin/sh
# Live settings updates over --control-fd change the proxy's lists for the
# running command, and never fail open (N17): an unrelated edit
# keeps every refusal, an invalid line keeps the previous rules.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 6

if ! command -v bwrap >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	for i in $(seq 6); do skip "bwrap or curl missing"; done
	exit 0
fi
net_server http WEB
FS='"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}'
S=$(net_settings '[]' '["evil.test"]')
fifo="$WORK/ctl"
mkfifo "$fifo"
# the command polls a marker file between phases; the test writes the
# next update line, then the marker. srt applies the lines in order and
# says nothing of a valid one, so each valid update is followed by a line
# that is not JSON: once srt has reported the Nth invalid line, every line
# before it is in force.
cmd="
	get() { $CURLP -o /dev/null -w \"\$1 %{http_code}\n\" \"\$2\"; }
	waitfor() { i=0; while [ ! -e \"$WORK/proj/\$1\" ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; }
	get start http://127.0.0.1:$WEB_PORT/a
	touch $WORK/proj/started; waitfor opened
	get opened http://127.0.0.1:$WEB_PORT/b
	get evil https://evil.test/
	touch $WORK/proj/checked; waitfor edited
	get edited-evil https://evil.test/
	get edited-other http://other.test/
	touch $WORK/proj/checked2; waitfor invalid
	get invalid-allowed http://127.0.0.1:$WEB_PORT/c
	get invalid-evil https://evil.test/"
(
	exec 4>"$fifo"
	w() { i=0; while [ ! -e "$WORK/proj/$1" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done; }
	synced() { # synced N: srt has reported N invalid lines (10 s at most)
		i=0
		while [ "$(grep -c 'invalid settings on control fd 3' "$WORK/err")" -lt "$1" ] && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i+1))
		done
	}
	w started
	printf '%s\n' "{\"network\":{\"allowedDomains\":[\"127.0.0.1:$WEB_PORT\"],\"deniedDomains\":[\"evil.test\"]},$FS}" >&4
	echo 'sync 1' >&4; synced 1; touch "$WORK/proj/opened"
	w checked
	# an unrelated edit (filesystem only), the network lists restated
	printf '%s\n' "{\"network\":{\"allowedDomains\":[\"127.0.0.1:$WEB_PORT\"],\"deniedDomains\":[\"evil.test\"]},\"filesystem\":{\"denyRead\":[\"~/.ssh\",\"~/.aws\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}}" >&4
	echo 'sync 2' >&4; synced 2; touch "$WORK/proj/edited"
	w checked2
	printf '%s\n' '{"network":{"allowedDomains":["*"]' >&4
	synced 3; touch "$WORK/proj/invalid"
	sleep 3
) &
NET_PIDS="$NET_PIDS $!"
srt__run --settings "$S" --control-fd 3 -c "$cmd" 3<"$fifo" >"$WORK/out" 2>"$WORK/err"
check "before the update the server is refused, after it reached" \
	grep -q '^start 403' "$WORK/out" && grep -q '^opened 200' "$WORK/out"
check "the update reached the server (host-side log)" grep -q '^GET /b ' "$WEB_LOG"
check "N17: an unrelated edit keeps refusing the denied and unlisted hosts" \
	grep -q '^edited-evil 000' "$WORK/out" && grep -q '^edited-other 403' "$WORK/out"
check "N17: an invalid update is refused and the previous rules stay" \
	grep -q '^invalid-allowed 200' "$WORK/out" && grep -q '^invalid-evil 000' "$WORK/out"
check "the invalid line was reported (after the two sync lines)" \
	[ "$(grep -c 'invalid settings on control fd 3' "$WORK/err")" = 3 ]
check "every evil.test attempt was a policy refusal (3 violations)" \
	[ "$(count_lines 'deny network-outbound evil.test:443 (host is on the deny list)' "$WORK/err")" = 3 ]
