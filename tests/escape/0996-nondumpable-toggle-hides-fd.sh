#!/bin/bash
# Escape class H1 (linux-bwrap), red team on a304772 (0995): held_below
# reads a task's descriptors through /proc/PID/task/TID/fd when it may
# open that directory, and through fdinfo and pidfd_getfd only when the
# open is refused (EACCES, a non-dumpable process of an unprivileged
# user). Whether the fd directory is open is decided at each look: a
# process that keeps switching itself between dumpable and not dumpable
# (prctl PR_SET_DUMPABLE 1 and 0, which anyone may) is often dumpable when
# the watcher opens its fd directory and not dumpable a moment later when
# the watcher stats each entry of it; that stat then fails with EACCES,
# not ENOENT, and task_below skipped the entry as if it were not a
# directory. The process holds a descriptor of the staged directory the
# host then moves to the denied ~/.ssh; the run goes on and it sees the
# names the host puts there. Up to 8 runs (about one in three got
# through). Run as an unprivileged user (srt-test or srtuser) when
# started as root, as 0964 and 0995.
. "$(dirname "$0")/lib.sh"
need_bwrap
unprivileged_setup 2
chmod 755 "$U"
cat > "$U/probe.py" <<'PYEOF'
import ctypes, os, sys, time
from below import look_below
p, stage = sys.argv[1], sys.argv[2]
prctl = ctypes.CDLL(None).prctl
ssh = os.path.join(os.environ["HOME"], ".ssh")
if os.fork() == 0:  # a descriptor of the stage, dumpable on and off
    fd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
    os.dup2(fd, 40)
    os.close(fd)
    os.chdir("/")
    open(p + "/ready", "w").close()
    while not os.path.exists(p + "/made"):
        for _ in range(2000):
            prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
            prctl(4, 1, 0, 0, 0)  # and 1
    time.sleep(0.3)
    res = open(p + "/res", "a")
    os.fchdir(40)
    look_below(res, ssh, write=False)
    res.write("done\n")
    res.close()
    os._exit(0)
os.wait()
open(p + "/done", "w").close()
PYEOF
cat > "$U/s.json" <<'EOF2'
{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}
EOF2
for try in $(seq 8); do
	rm -rf "$U/home"
	mkdir -p "$U/home/proj" "$U/home/stage"
	[ -n "$as" ] && chown -R "$as" "$U"
	(cd "$U/home/proj" && as_user "$as" env HOME="$U/home" timeout -k 5 30 "$SRT" --backend="$BACKEND" \
		-s "$U/s.json" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $U/probe.py $U/home/proj $U/home/stage" \
		>"$WORK/bg.out" 2>&1 </dev/null) &
	pid=$!
	wait_for "$U/home/proj/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	sleep 0.3
	as_user "$as" mv "$U/home/stage" "$U/home/.ssh" # a tool's `mv ~/.ssh.new ~/.ssh`
	settle_watch "$pid"
	as_user "$as" sh -c "echo 'SECRET-$CANARY' > '$U/home/.ssh/host-made-name'"
	touch "$U/home/proj/made"
	for i in $(seq 100); do [ -e "$U/home/proj/done" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	wait "$pid"
	diag "attempt $try: $(tr '\n' ' ' 2>/dev/null < "$U/home/proj/res")"
	[ -e "$U/home/proj/done" ] && break
done
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
W="a process switching itself between dumpable and not, with a descriptor below the new ~/.ssh"
attempt H1 "$W: the run is stopped ($try runs)" test ! -e "$U/home/proj/done"
attempt H1 "$W: no name the host puts there is seen" sh -c "! grep -qs stat-sees-name '$U/home/proj/res'"
echo "1..$_tap_n"
