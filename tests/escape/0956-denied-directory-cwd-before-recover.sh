#!/bin/bash
# Escape class H1 (linux-bwrap), red team: the moment between the host's
# replacement of a denied directory and the watcher's new cover. 0954's
# fix covers the new directory at ~/.ssh again, but a cover is a mount on
# the name's dentry: a process whose working directory is already the new
# directory stays below it. The command spins on chdir(~/.ssh) (chdir is
# no call the seccomp monitor sees; the cover's tmpfs, mode 0000, refuses
# it until the host swaps): the host's `mv ~/.ssh ~/.ssh.old; mkdir ~/.ssh`
# leaves the new directory bare until the watcher mounts its cover, and
# the spin gets in within that moment (7 of 8 single swaps here; the host
# swaps up to 10 times below, a rotation tool run again). From then on,
# for the whole run, whatever the host puts in the new ~/.ssh is:
#  - stat-able by its name relative to ".", and reported live by an
#    inotify watch on "." (inotify_add_watch is not judged either): its
#    names, sizes, times; opens by path are still refused by the monitor;
#  - writable when ~/.ssh lies in a write root (allowWrite "~"): a write
#    open is not judged (the monitor reports it and lets it go on), and
#    "." is on the writable bind of ~, below the cover: the command
#    plants ~/.ssh/authorized_keys on the host, and the run's summary says
#    "deny openat .../authorized_keys" although the write happened.
# So the watcher, once it has covered a directory at a denied name, looks
# for a process of the command whose working directory, root or a
# directory descriptor is at or below it, and stops the run when it finds
# one: either the spin never got in (the probe runs to its end), or srt
# ended the run and said why; the host's later name is seen by nobody.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
from below import look_below, wait_marker
p, mode = sys.argv[1], sys.argv[2]
ssh = os.path.join(os.environ["HOME"], ".ssh")
open(p + "/ready", "w").close()
inside = False
end = time.time() + 12
while not inside and time.time() < end and not os.path.exists(p + "/gave-up"):
    for _ in range(2000):
        try:
            os.chdir(ssh)
            inside = True
            break
        except OSError:
            pass
res = open(p + "/res", "a")
if inside:
    open(p + "/in", "w").close()
    res.write("inside\n")
wait_marker(p)
if inside:
    look_below(res, ssh, mode == "write")
res.write("done\n")
PYEOF

for mode in names write; do
	below_stage
	rmdir "$HOME/.ssh.new"
	if [ "$mode" = write ]; then
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	else
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
	fi
	srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $mode"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	sleep 0.3
	swaps=0
	for i in $(seq 10); do
		swaps=$i
		mv "$HOME/.ssh" "$HOME/.ssh.old$i"
		mkdir "$HOME/.ssh"
		wait_for "$P/in" 3 && break
	done
	wait_for "$P/in" 5 || touch "$P/gave-up"
	below_host_writes "$pid"
	diag "$mode, $swaps swaps: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "summary: $(grep deny "$WORK/bg.out" | tr '\n' ' ')"
	# the stop can come before the probe has said it got in
	if grep -qE "$STOPPED_RE" "$WORK/bg.out"; then
		attempt H1 "cwd in a replaced denied ~/.ssh before its cover ($mode): the probe got in, and srt stopped the run saying why" \
			sh -c "! grep -qx done '$P/res'"
	else
		attempt H1 "cwd in a replaced denied ~/.ssh before its cover ($mode): the probe never got in and ran to its end" \
			sh -c "[ ! -e '$P/in' ] && grep -qx done '$P/res'"
	fi
	below_checks "cwd in a replaced denied ~/.ssh before its cover ($mode)"
done
echo "1..$_tap_n"
