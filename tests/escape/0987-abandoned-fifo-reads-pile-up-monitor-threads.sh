#!/bin/bash
# Resources (linux-bwrap), red team on b02937d: with denyRead a FIFO's
# read open is finished by a monitor thread that blocks in open(2) until a
# writer comes; a caller killed meanwhile leaves that thread (and its pinned
# descriptor) there for the rest of the run (SECURITY.md lists the stolen
# first writer as open; this is the count). Nothing bounds them: a command
# that starts and kills readers of its own FIFO (cheap: the caller is gone
# at once) grows the monitor by one thread and one descriptor each, with
# none of its own processes left, up to the monitor's RLIMIT_NOFILE, after
# which every open the monitor makes for the command fails (EMFILE).
# Without denyRead the killed readers leave nothing. After 150 abandoned
# reads the monitor must not hold more than a handful of threads.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
SD=$(fsjson sd '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
rm -f ff ready
mkfifo ff
srt__bg --settings "$SD" -c 'for i in $(seq 150); do (exec 3<ff) & p=$!; sleep 0.01; kill -9 $p 2>/dev/null; wait $p 2>/dev/null; done; touch ready; sleep 20'
bg=$!
wait_for "$P/ready" 600
sleep 1
max=0
for c in $(descendants "$bg"); do
	[ "$(ps -o comm= -p "$c" 2>/dev/null)" = srt-linux-init ] || continue
	n=$(ls "/proc/$c/task" 2>/dev/null | wc -l)
	[ "$n" -gt "$max" ] && max=$n
done
diag "most threads in one srt-linux-init after 150 abandoned FIFO reads: $max"
attempt R "abandoned FIFO read opens leave no monitor threads behind ($max threads)" \
	test -f "$P/ready" -a "$max" -gt 0 -a "$max" -le 20
kill "$bg" 2>/dev/null
end_bg "$bg" 50
echo "1..$_tap_n"
