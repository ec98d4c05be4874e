#!/bin/bash
# --control-fd spammed with invalid and huge lines while the command polls
# a loopback origin through the proxy: the network policy never opens by
# mistake (the origin sees none of those requests), srt and the command
# survive, and a valid update sent afterwards does open it (the channel
# still works, so the test could see an opening).
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/net-lib.sh"
. "$top_srcdir/tests/fault/fault-lib.sh"

SPAM_SECS=${FAULT_SPAM_SECONDS:-8}
plan 5
net_server http WEB
mkdir -p "$WORK/tmp"
export TMPDIR="$WORK/tmp"
S=$(net_settings '["strict.invalid"]' '[]')

cat >"$WORK/feed.py" <<'PYEOF'
import os, sys, time
port, outfile, logfile = sys.argv[1], sys.argv[2], sys.argv[3]
# a complete settings object (a control line replaces the whole settings)
allow = ('{"network":{"allowedDomains":["127.0.0.1:%s"],"deniedDomains":[]},'
         '"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}' % port)
MAX = 1024 * 1024
deep = 200000
bad = [
    b"not json at all",
    b"{",
    b"}",
    b"\x00\x01\x02\xff\xfe",
    allow[:-1].encode(),                                   # truncated
    allow.encode() + b" trailing",                         # trailing garbage
    allow.encode() + b"\x00junk",                          # NUL then junk
    allow.encode() + b"}",                                 # one brace too many
    allow.replace("{", "[", 1).encode(),                   # wrong bracket
    allow.replace('"deniedDomains":[]', '"deniedDomains":[],"deniedDomains":["x"]').encode(),
    allow.replace(port, port + "\\u0000.invalid").encode(),  # NUL inside the name
    allow.replace('["127', '"127').replace('"],"d', '","d').encode(),  # a string, not a list
    allow.replace('"allowedDomains"', '"allowedDomains\\u0000"').encode(),
    allow.replace("127.0.0.1", "127.0.0.1\\n").encode(),
    allow.replace('"deniedDomains":[]', '"deniedDomains":"x"').encode(),
    allow.replace(',"filesystem"', ',"filesystem":1,"x"').encode(),
    ('{"network":{"allowedDomains":["127.0.0.1:%s"]}}' % port).encode(),  # incomplete
    allow.replace('"127.0.0.1:%s"' % port, ",".join('"n%d.invalid"' % i for i in range(20000))).encode()
        .replace(b'"n0.invalid"', b'"n0.invalid",1'),      # huge, one bad element
    b"[" * deep + b"]" * deep,
    b'{"a":' * deep + b"1" + b"}" * deep,
    allow.replace("127.0.0.1", "127.0.0\xc0\xae1").encode("latin-1"),  # overlong "."
    allow.replace("127.0.0.1", "127.0.0.1\xe2\x80\x8b").encode("latin-1"),  # zero-width space
    b'"' + b"A" * 500000 + b'"',
]
# longer than the line limit: the allow object at the start, in the middle,
# at the end, and split exactly at the limit
huge = [
    allow.encode() + b" " * (MAX + 10),
    b" " * (MAX - 5) + allow.encode(),
    b"x" * (MAX // 2) + allow.encode() + b"x" * (MAX // 2),
    b"y" * MAX + allow.encode(),
    b"z" * (2 * MAX) + b"\n" + b"q" * 10,  # the tail after the newline is garbage
]
out = os.fdopen(1, "wb", buffering=0)
log = open(logfile, "w")
sent = 0
def done():
    try:
        return "SPAM-DONE" in open(outfile).read()
    except OSError:
        return False
t0 = time.time()
while not done() and time.time() - t0 < 60:
    for line in bad + huge:
        out.write(line + b"\n")
        sent += 1
        if done():
            break
log.write("%d lines sent\n" % sent)
log.flush()
out.write(allow.encode() + b"\n")
log.write("valid update sent\n")
log.close()
time.sleep(30)
PYEOF

PROBE='i=0; end=$((SECONDS + '"$SPAM_SECS"'))
while [ $SECONDS -lt $end ]; do
	i=$((i + 1))
	echo "spam $i $(curl -s --max-time 3 --noproxy "" -o /dev/null -w "%{http_code}" http://127.0.0.1:'"$WEB_PORT"'/spam$i)"
	sleep 0.1
done
echo SPAM-DONE
for j in $(seq 50); do
	c=$(curl -s --max-time 3 --noproxy "" -o /dev/null -w "%{http_code}" http://127.0.0.1:'"$WEB_PORT"'/final$j)
	[ "$c" = 200 ] && { echo "final $j 200"; exit 0; }
	sleep 0.2
done
echo "final never 200"; exit 3'

: >"$WORK/out"
timeout -k 5 $((SPAM_SECS + 40)) "$SRT" --backend="$BACKEND" -s "$S" --control-fd 3 -- bash -c "$PROBE" \
	>"$WORK/out" 2>"$WORK/err" 3< <(exec "$PY" "$WORK/feed.py" "$WEB_PORT" "$WORK/out" "$WORK/feed.log")
rc=$?
polls=$(grep -c '^spam ' "$WORK/out")
opened=$(grep -c '^spam [0-9]* 200$' "$WORK/out")
leaked=$(grep -c 'GET /spam' "$WEB_LOG")
diag "$(cat "$WORK/feed.log" 2>/dev/null | tr '\n' ' ')" "$polls polls during the spam; srt said $(grep -c 'control fd' "$WORK/err") things about the control fd"
check "srt and the command survive the spam (exit $rc)" test "$rc" = 0
check "the command polled the origin during the spam ($polls polls)" test "$polls" -gt 5
check "no request reached the origin while invalid lines came in ($opened answered 200, origin saw $leaked)" \
	test "$opened" = 0 -a "$leaked" = 0
if grep -q '^final [0-9]* 200$' "$WORK/out" && grep -q 'GET /final' "$WEB_LOG"; then
	ok "a valid update after the spam opens the origin (the channel still works)"
else
	not_ok "a valid update after the spam opens the origin"; diag "$(tail -3 "$WORK/out")" "$(grep -v 'invalid settings' "$WORK/err" | tail -5)"
fi
check "srt printed no crash report" bash -c "! grep -qiE 'segmentation|abort|sanitizer|core dumped' '$WORK/err'"
exit 0
