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
#  - each descriptor's F_GETFL and F_GETFD are those of the kernel's own
#    open with the same flags (the ring's open asks for O_NONBLOCK against
#    a lease and gives it back; it added O_NOFOLLOW, which a descriptor
#    keeps in its flags, until the red team's round on f933d0f);
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
import os, sys
o = sys.argv[1]
def tell(what, fn):
    try:
        print(what, fn())
    except OSError as e:
        print(what, "errno", e.errno)
tell("early", lambda: open(o + "/early/f").read().strip())
tell("late", lambda: open(o + "/late/f").read().strip())
tell("latelist", lambda: ",".join(sorted(os.listdir(o + "/late"))))
PYEOF
# F_GETFL and F_GETFD of a read open, by the flags it asked for: run on the
# host (the kernel's own open) and in the sandbox (the monitor's), the lines
# must be the same
cat > "$WORK/flags.py" <<'PYEOF'
import fcntl, os, sys
f, d, skip = sys.argv[1], sys.argv[2], sys.argv[3:]
asks = [("plain", 0), ("nonblock", os.O_NONBLOCK), ("nofollow", os.O_NOFOLLOW),
        ("cloexec", os.O_CLOEXEC), ("noatime", os.O_NOATIME), ("nonblock-nofollow", os.O_NONBLOCK | os.O_NOFOLLOW)]
for path, kind in ((f, "file"), (d, "dir")):
    for name, fl in asks + ([("directory", os.O_DIRECTORY)] if kind == "dir" else []):
        if name in skip or ("nofollow" in name and "nofollow" in skip):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | fl)
            print(kind, name, oct(fcntl.fcntl(fd, fcntl.F_GETFL)), fcntl.fcntl(fd, fcntl.F_GETFD))
            os.close(fd)
        except OSError as e:
            print(kind, name, "errno", e.errno)
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
rm -rf "$O/late" "$P/started" "$P/go"

srt__run -s "$S" --debug -c true > "$WORK/dbg" 2>&1
ring=yes
grep -q 'no io_uring ring' "$WORK/dbg" && ring=""
# without the ring a read open is reopened through /proc/self/fd/N, which
# cannot take O_NOFOLLOW (the descriptor then lacks it: known, SECURITY.md)
skipped=""
[ -z "$ring" ] && skipped=nofollow
$PY "$WORK/flags.py" "$O/early/f" "$O/early" $skipped > "$WORK/flags.host" 2>&1
srt__run -s "$S" -c "$PY $WORK/flags.py $O/early/f $O/early $skipped" > "$WORK/flags.in" 2>&1
diag "flags, host: $(tr '\n' ';' < "$WORK/flags.host")" "flags, sandbox: $(tr '\n' ';' < "$WORK/flags.in")"
attempt H1 "read opens with denyRead: each descriptor's F_GETFL and F_GETFD are the kernel's own open's${skipped:+ (but O_NOFOLLOW: no ring here)}" \
	cmp -s "$WORK/flags.host" "$WORK/flags.in"

# the hand-over saved: voluntary context switches of the helper's threads
# during a burst of read opens
if [ -z "$ring" ]; then
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
	burst_blocks "$pid"
	touch "$P/stop"; end_bg "$pid" 100
	if [ -z "$helper" ]; then
		attempt H1 "read opens by the ring: found the helper's monitor" false
	else
		per=$(awk -v b="$burst_blocked" -v n="$N" 'BEGIN { printf "%.2f", b / n }')
		echo "# the helper's threads blocked $burst_blocked times for $N read opens: $per a read open"
		attempt H1 "read opens by the ring: the helper's threads block fewer than 1.5 times per open ($per)" \
			awk -v p="$per" 'BEGIN { exit !(p < 1.5) }'
	fi
	rm -f "$P"/started "$P"/go "$P"/burst "$P"/stop "$P"/r[0-9]
fi
echo "1..$_tap_n"
