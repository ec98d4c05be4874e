#!/bin/bash
# False positive (linux-bwrap), red team on ce50c65's held_below: when a
# directory arrives at a denied name, the watcher reads /proc/PID/cwd, root
# and fd of every command process and stops the run when it cannot. For a
# user without privilege, a command process that is not dumpable (ssh-agent,
# gpg-agent and others call prctl(PR_SET_DUMPABLE, 0)) cannot be inspected,
# so an ordinary run that has such an agent running is killed when the host
# makes a denied directory (the first ssh-keygen makes ~/.ssh, missing at
# the start) though nothing of the command is anywhere near it. As root the
# watcher can read the process and the run goes on; the check runs srt as
# an unprivileged user (srtuser or srt-test) when started as root.
. "$(dirname "$0")/lib.sh"
need_bwrap
unprivileged_setup 2
mkdir -p "$U/home/proj"
chmod 755 "$U"
cat > "$U/probe.py" <<'PYEOF'
import ctypes, os, sys, time
p = sys.argv[1]
if os.fork() == 0:  # an agent: not dumpable, idle in the project
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    time.sleep(30)
    os._exit(0)
open(p + "/ready", "w").close()
for i in range(100):
    if os.path.exists(p + "/made"):
        break
    time.sleep(0.05)
time.sleep(1)
open(p + "/done", "w").close()
PYEOF
cat > "$U/s.json" <<'EOF2'
{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}
EOF2
[ -n "$as" ] && chown -R "$as" "$U"
(cd "$U/home/proj" && as_user "$as" env HOME="$U/home" timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$U/s.json" \
	-c "$PY $U/probe.py $U/home/proj" >"$WORK/bg.out" 2>&1 </dev/null) &
pid=$!
wait_for "$U/home/proj/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
sleep 0.3
as_user "$as" mkdir -m 700 "$U/home/.ssh" # the host's first ssh-keygen
touch "$U/home/proj/made"
for i in $(seq 100); do [ -e "$U/home/proj/done" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
attempt FP "a run with a non-dumpable agent is not stopped when the host makes the missing denied ~/.ssh" \
	test -e "$U/home/proj/done"
attempt FP "no violation is reported for it" \
	sh -c "! grep -q 'cannot tell whether a process' '$WORK/bg.out'"
echo "1..$_tap_n"
