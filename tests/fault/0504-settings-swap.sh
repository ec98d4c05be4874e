#!/bin/bash
# The settings file is replaced (atomic rename) between a strict and a
# permissive version, as fast as possible, while srt starts again and
# again. Each run must enforce one complete file, never a mix: three
# independent observations (reading the canary, writing a second directory,
# reaching a loopback origin through the proxy), the plan srt prints with
# --debug, and host-side traces (the origin's log, the written file) all
# name the same file. --explain under the same churn prints exactly one of
# the two files' explanations. srt never crashes.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/net-lib.sh"
. "$top_srcdir/tests/fault/fault-lib.sh"

RUNS=${FAULT_SWAP_RUNS:-20}
EXPLAINS=${FAULT_SWAP_EXPLAINS:-40}
plan 6
net_server http WEB
mkdir -p "$WORK/w2" "$WORK/tmp"
chmod 777 "$WORK/w2"
export TMPDIR="$WORK/tmp"
# Padding (many denied names) makes each file span several reads.
pad=$(for i in $(seq 400); do printf '"pad%d.invalid",' "$i"; done)
STRICT="{\"network\":{\"allowedDomains\":[\"strict.invalid\"],\"deniedDomains\":[${pad}\"s.invalid\"]},\"filesystem\":{\"denyRead\":[\"~/.ssh\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}}"
PERM="{\"network\":{\"allowedDomains\":[\"127.0.0.1:$WEB_PORT\"],\"deniedDomains\":[${pad}\"p.invalid\"]},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\",\"$WORK/w2\"],\"denyWrite\":[]}}"
SF="$WORK/settings.json"
printf '%s\n' "$STRICT" >"$WORK/strict.json"
printf '%s\n' "$PERM" >"$WORK/perm.json"

# reference explanations of each file alone, without the per-run parts
norm() { sed -E 's#srt-[0-9]+-[A-Za-z0-9]{6}#srt-PID#g; s#srt-run\.[A-Za-z0-9]{6}#srt-run.X#g; s#(--[a-z-]+-fd) [0-9]+#\1 N#g; s#(--proxy-socket-id) [0-9]+:[0-9]+#\1 N#g; s#(landlock layer: applied: )[0-9]+ rules#\1N rules#'; }
cp "$WORK/strict.json" "$SF"
ref_strict=$(srt__run -s "$SF" --explain true 2>&1 | norm)
cp "$WORK/perm.json" "$SF"
ref_perm=$(srt__run -s "$SF" --explain true 2>&1 | norm)
if [ "$ref_strict" != "$ref_perm" ] && printf '%s' "$ref_perm" | grep -q "127.0.0.1:$WEB_PORT"; then
	ok "the two files explain differently"
else
	not_ok "the two files explain differently"; diag "$ref_strict"
fi

# the swapper: rename(2) a fresh copy of the other file over the path
cat >"$WORK/swap.py" <<'PYEOF'
import os, sys
sf, a, b, stop = sys.argv[1:5]
texts = [open(a).read(), open(b).read()]
i = n = 0
while not os.path.exists(stop):
    tmp = "%s.%d.tmp" % (sf, i)
    with open(tmp, "w") as f:
        f.write(texts[i])
    os.replace(tmp, sf)
    i ^= 1
    n += 1
print(n)
PYEOF
"$PY" "$WORK/swap.py" "$SF" "$WORK/strict.json" "$WORK/perm.json" "$WORK/stop" >"$WORK/swaps" &
SWAP_PID=$!
NET_PIDS="$NET_PIDS $SWAP_PID"

PROBE='cat "$HOME/.ssh/id_canary" >/dev/null 2>&1 && echo READ=1 || echo READ=0
(echo x >"$W2/f$RUN") 2>/dev/null && echo WRITE=1 || echo WRITE=0
curl -s --max-time 5 --noproxy "" -o /dev/null -w "%{http_code}" "http://127.0.0.1:$WEB_PORT/run$RUN" | grep -q 200 && echo NET=1 || echo NET=0'
mixed=0 crashed=0 nstrict=0 nperm=0 argv_bad=0
for i in $(seq "$RUNS"); do
	out=$(RUN=$i W2="$WORK/w2" WEB_PORT=$WEB_PORT timeout -k 5 30 "$SRT" --backend="$BACKEND" -d -s "$SF" \
		-- bash -c "$PROBE" 2>"$WORK/err")
	rc=$?
	if [ $rc -ne 0 ]; then
		crashed=$((crashed + 1)); diag "run $i: exit $rc: $(grep -v '^\[srt debug\]' "$WORK/err" | head -3)"
		continue
	fi
	sleep 0.05
	r=$(printf '%s\n' "$out" | sed -n 's/^READ=//p')
	w=$(printf '%s\n' "$out" | sed -n 's/^WRITE=//p')
	n=$(printf '%s\n' "$out" | sed -n 's/^NET=//p')
	hw=0; [ -e "$WORK/w2/f$i" ] && hw=1
	hn=0; grep -q "GET /run$i " "$WEB_LOG" && hn=1
	# the plan srt printed: the permissive file binds w2 read-write
	pa=0; grep -q -- "--bind $WORK/w2 $WORK/w2" "$WORK/err" && pa=1
	seen="$r$w$n$hw$hn"
	case "$seen" in
	00000) nstrict=$((nstrict + 1)); [ $pa = 0 ] || argv_bad=$((argv_bad + 1)) ;;
	11111) nperm=$((nperm + 1)); [ $pa = 1 ] || argv_bad=$((argv_bad + 1)) ;;
	*) mixed=$((mixed + 1)); diag "run $i: read/write/net/host-write/host-net = $seen (plan binds w2: $pa)" ;;
	esac
done
diag "$RUNS runs: $nstrict strict, $nperm permissive"
check "no run exits abnormally under settings churn ($crashed)" test "$crashed" = 0
check "every run enforces one complete file, never a mix ($mixed mixed)" test "$mixed" = 0
check "the plan srt reports (--debug) matches what it enforced ($argv_bad mismatches)" test "$argv_bad" = 0

odd=0 es=0 ep=0
for i in $(seq "$EXPLAINS"); do
	e=$(srt__run -s "$SF" --explain true 2>&1 | norm)
	if [ "$e" = "$ref_strict" ]; then es=$((es + 1))
	elif [ "$e" = "$ref_perm" ]; then ep=$((ep + 1))
	else
		odd=$((odd + 1))
		[ $odd -le 2 ] && diag "explain $i differs from both:" \
			"$(diff <(printf '%s\n' "$ref_strict") <(printf '%s\n' "$e") | head -6)"
	fi
done
touch "$WORK/stop"
wait "$SWAP_PID"
diag "$(cat "$WORK/swaps") renames; --explain: $es strict, $ep permissive, $odd neither"
check "--explain under churn prints exactly one file's explanation ($odd other)" test "$odd" = 0
check "both files were seen while swapping (strict $((nstrict + es)), permissive $((nperm + ep)))" \
	test $((nstrict + es)) -gt 0 -a $((nperm + ep)) -gt 0
exit 0
