#!/bin/bash
# Escape class H1 (linux-bwrap), the read observer's cost: with denyRead the
# monitor makes every read open itself, and the open must hold the
# command's Landlock layer. It was made by a thread restricted with that
# layer, at the price of a hand-over (two context switches) per open. The
# monitor now makes a plain read open of a file or a directory on its own
# thread through an io_uring ring, with the credentials that thread
# registered on it (backends/linux-bwrap/init/cred-ring.h). Checked here:
#  - the layer still holds for those opens: a directory the host makes
#    beside a denied one after the start has no read rule (the planner
#    grants the entries there one by one), no denied name covers it, and
#    the command's read of a file in it is refused. Made with the monitor's
#    own credentials (a ring without the registered ones), it was read;
#  - a file there at the start, and the late directory's listing, still
#    read as before;
#  - a plain read open's descriptor does not say O_NONBLOCK (the ring's
#    open asks for it, against a lease, and gives it back), one that asked
#    for it does;
#  - with io_uring on this kernel, the helper's threads block fewer than
#    1.5 times per read open (2.7 with the hand-over on every open, see
#    0918).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
O="$WORK/ringside"
rm -rf "$O" && mkdir -p "$O/sec" "$O/early"
echo "$CANARY" > "$O/sec/key"
echo "EARLY" > "$O/early/f"
S=$(fsjson s "{\"denyRead\":[\"~/.ssh\",\"$O/sec\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
cat > "$WORK/ringread.py" <<'PYEOF'
import fcntl, os, sys
o = sys.argv[1]
def tell(what, fn):
    try:
        print(what, fn())
    except OSError as e:
        print(what, "errno", e.errno)
def flags(path, extra):
    fd = os.open(path, os.O_RDONLY | extra)
    try:
        return "nonblock" if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK else "block"
    finally:
        os.close(fd)
tell("early", lambda: open(o + "/early/f").read().strip())
tell("late", lambda: open(o + "/late/f").read().strip())
tell("latelist", lambda: ",".join(sorted(os.listdir(o + "/late"))))
tell("flags-plain", lambda: flags(o + "/early/f", 0))
tell("flags-asked", lambda: flags(o + "/early/f", os.O_NONBLOCK))
tell("flags-dir", lambda: flags(o + "/early", os.O_DIRECTORY))
PYEOF
rm -rf "$O/late" "$P/started" "$P/go"
srt__bg -s "$S" -c "touch started; while [ ! -e go ]; do sleep 0.02; done; $PY $WORK/ringread.py $O"
pid=$!
wait_for "$P/started" 100
mkdir "$O/late" && echo "$CANARY" > "$O/late/f"
touch "$P/go"
end_bg "$pid" 150
diag "sandbox: $(tr '\n' ' ' < "$WORK/bg.out")"
attempt H1 "a read open the monitor makes holds the command's layer: a late directory's file is refused" \
	grep -qx 'late errno 13' "$WORK/bg.out"
attempt H1 "a read open the monitor makes holds the command's layer: the late file's content not read" \
	no_leak "$WORK/bg.out"
attempt H1 "read opens with denyRead: a file there at the start reads, and the late directory lists" \
	sh -c "grep -qx 'early EARLY' '$WORK/bg.out' && grep -qx 'latelist f' '$WORK/bg.out'"
attempt H1 "read opens with denyRead: a plain read open is not left O_NONBLOCK, one that asked is" \
	sh -c "grep -qx 'flags-plain block' '$WORK/bg.out' && grep -qx 'flags-asked nonblock' '$WORK/bg.out' &&
		grep -qx 'flags-dir block' '$WORK/bg.out'"
rm -rf "$O/late" "$P/started" "$P/go"

# the hand-over saved: voluntary context switches of the helper's threads
# during a burst of read opens
srt__run -s "$S" --debug -c true > "$WORK/dbg" 2>&1
if grep -q 'no io_uring ring' "$WORK/dbg"; then
	skip "the monitor has no io_uring ring here ($(grep -o 'no io_uring ring: [^)]*' "$WORK/dbg")): every read open is handed over, as 0918 checks"
else
	N=3000
	for i in $(seq 8); do echo "content-$i" > "$P/r$i"; done
	srt__bg -s "$S" -c "touch started; while [ ! -e go ]; do sleep 0.02; done
		$PY -c '
import os
for i in range($N):
    fd = os.open(\"r%d\" % (i % 8 + 1), os.O_RDONLY)
    os.close(fd)
'
		touch burst; while [ ! -e stop ]; do sleep 0.02; done"
	pid=$!
	wait_for "$P/started" 100
	helper=$(monitor_helper "$pid")
	sleep 0.2
	before=$(blocked "$helper")
	touch "$P/go"; wait_for "$P/burst" 600
	after=$(blocked "$helper")
	touch "$P/stop"; end_bg "$pid" 100
	if [ -z "$helper" ]; then
		attempt H1 "read opens by the ring: found the helper's monitor" false
	else
		per=$(awk -v a="$after" -v b="$before" -v n="$N" 'BEGIN { printf "%.2f", (a - b) / n }')
		echo "# the helper's threads blocked $((after - before)) times for $N read opens: $per a read open"
		attempt H1 "read opens by the ring: the helper's threads block fewer than 1.5 times per open ($per)" \
			awk -v p="$per" 'BEGIN { exit !(p < 1.5) }'
	fi
	rm -f "$P"/started "$P"/go "$P"/burst "$P"/stop "$P"/r[0-9]
fi
echo "1..$_tap_n"
