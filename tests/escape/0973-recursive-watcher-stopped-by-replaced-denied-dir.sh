#!/bin/bash
# Semantics (linux-bwrap), red team on d438bd4's held_below: an ordinary
# recursive file watcher in the sandbox (what chokidar, watchdog, tsc
# --watch or cargo watch do: inotify on the project, and on each directory
# that appears) adds a watch on a directory the host makes at a denied
# name (denyRead "./secrets"; the host's `rm -rf secrets && mkdir
# secrets`, as a branch switch or a secrets sync does) as soon as
# IN_CREATE reports it, before the watcher's cover. inotify_add_watch is
# not judged by the monitor, so the watch lands on the host's directory;
# the scan after the cover finds it and stops the run (status 137), every
# time. Judging inotify_add_watch (and fanotify_mark) like a read open,
# EACCES at a denied name, would keep the watch off the directory and the
# run going (and the new directory's names out of the event queue).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s "{\"denyRead\":[\"$P/secrets\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
cat > "$WORK/watch.py" <<'PYEOF'
import ctypes, os, struct, sys, time, select
libc = ctypes.CDLL(None, use_errno=True)
root = sys.argv[1]; dur = float(sys.argv[2])
fd = libc.inotify_init1(os.O_NONBLOCK)
M = 0x100 | 0x200 | 0x40 | 0x80 | 0x2
wd = {}
def add(p):
    w = libc.inotify_add_watch(fd, p.encode(), M)
    if w >= 0:
        wd[w] = p
for dp, dns, fns in os.walk(root):
    add(dp)
open(os.path.join(root, ".ready"), "w").close()
end = time.time() + dur
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if not r:
        continue
    buf = os.read(fd, 65536); i = 0
    while i < len(buf):
        w, mask, ck, ln = struct.unpack_from("iIII", buf, i)
        name = buf[i+16:i+16+ln].rstrip(b"\0").decode()
        i += 16 + ln
        if mask & 0x40000000 and mask & (0x100 | 0x80) and w in wd:
            add(os.path.join(wd[w], name))
print("watcher ended normally")
PYEOF
rm -rf "$P/secrets" "$P/src" "$P/.ready"
mkdir -p "$P/src" "$P/secrets"
echo "k" > "$P/secrets/key"
srt__bg -s "$S" -c "$PY $WORK/watch.py $P 3"
pid=$!
wait_for "$P/.ready" 100 || diag "the watcher did not start: $(cat "$WORK/bg.out")"
sleep 0.3
rm -rf "$P/secrets"
mkdir "$P/secrets"
echo "k2" > "$P/secrets/key"
touch "$P/src/a.c"
end_bg "$pid" 100
rc=$?
diag "srt status $rc: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
attempt S "a recursive watcher in the project is not stopped when the host replaces the denied ./secrets" \
	grep -q "watcher ended normally" "$WORK/bg.out"
echo "1..$_tap_n"
