#!/bin/bash
# Escape class H1 (linux-bwrap), the other side of 0964: since the
# watcher reads a non-dumpable process's place as a tracer (CAP_SYS_PTRACE
# of bwrap's user namespace, its fdinfo list and pidfd_getfd in place of
# the fd list it may not read), a command process that makes itself not
# dumpable must still be found below a directory the host moves to a
# denied name, and the run stopped: with its working directory there, a
# directory descriptor, or an O_PATH descriptor of it. Before, for an
# unprivileged user, the run was stopped because srt could not tell; the
# check is that it now tells who is there. Run as an unprivileged user
# (srt-test or srtuser) when started as root, as 0964.
. "$(dirname "$0")/lib.sh"
need_bwrap
unprivileged_setup 6
chmod 755 "$U"
cat > "$U/probe.py" <<'PYEOF'
import ctypes, os, sys, time
p, stage, how = sys.argv[1], sys.argv[2], sys.argv[3]
if os.fork() == 0:  # not dumpable, then at the stage that becomes ~/.ssh
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    if how == "cwd":
        os.chdir(stage)
    else:
        fd = os.open(stage, os.O_PATH if how == "opath" else os.O_RDONLY)
        os.dup2(fd, 40)
        os.close(fd)
        os.chdir("/")
    open(p + "/ready", "w").close()
    time.sleep(30)
    os._exit(0)
for i in range(100):
    if os.path.exists(p + "/made"):
        break
    time.sleep(0.05)
# the watcher's time to stop the run: 5 s, not 1, for a loaded machine
# (a run srt stops never gets here, so a passing case does not wait)
time.sleep(5)
open(p + "/done", "w").close()
PYEOF
cat > "$U/s.json" <<'EOF2'
{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}
EOF2
for how in cwd fd opath; do
	rm -rf "$U/home"
	mkdir -p "$U/home/proj" "$U/home/stage"
	[ -n "$as" ] && chown -R "$as" "$U"
	(cd "$U/home/proj" && as_user "$as" env HOME="$U/home" timeout -k 5 30 "$SRT" --backend="$BACKEND" \
		-s "$U/s.json" -c "$PY $U/probe.py $U/home/proj $U/home/stage $how" >"$WORK/bg.out" 2>&1 </dev/null) &
	pid=$!
	wait_for "$U/home/proj/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	sleep 0.3
	as_user "$as" mv "$U/home/stage" "$U/home/.ssh" # a tool's `mv ~/.ssh.new ~/.ssh`
	touch "$U/home/proj/made"
	for i in $(seq 100); do [ -e "$U/home/proj/done" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	wait "$pid"
	diag "$how: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
	attempt H1 "a non-dumpable process with its $how below the new ~/.ssh: the run is stopped" \
		test ! -e "$U/home/proj/done"
	attempt H1 "srt names the process below it (not: cannot tell)" \
		grep -q "that process [0-9]* had entered or opened before srt covered it" "$WORK/bg.out"
done
echo "1..$_tap_n"
