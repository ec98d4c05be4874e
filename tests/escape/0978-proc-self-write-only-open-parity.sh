#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor now makes every write-only open itself, and a file of /proc is
# opened only when proc_open_ok allows it: of the caller's own
# /proc/<pid> directory only read opens (and mem). A write-only open of
# the caller's own /proc/self/oom_score_adj, comm, thread-self/comm,
# timerslack_ns now fails with EACCES (`echo 500 > /proc/self/oom_score_adj`,
# as Chromium and Electron do for their renderers; `echo name >
# /proc/self/comm`), and /proc/sys answers EACCES where the read-only
# mount answers EROFS. Before a61f400 those opens went to the kernel, and
# in a run without denyRead they still do: the same probe, both ways,
# must answer alike.
. "$(dirname "$0")/lib.sh"
need_bwrap
monitor_pair
cat > "$WORK/procw.py" <<'PYEOF'
import errno, os
def t(what, path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        r = "ok"
    except OSError as e:
        r = "errno " + errno.errorcode.get(e.errno, str(e.errno))
    print(what, r)
cur = open("/proc/self/oom_score_adj").read().strip()
t("self/oom_score_adj", "/proc/self/oom_score_adj", cur.encode())
t("self/comm", "/proc/self/comm", b"probe")
t("thread-self/comm", "/proc/thread-self/comm", b"probe")
t("self/timerslack_ns", "/proc/self/timerslack_ns", b"50000")
t("PID/comm", "/proc/%d/comm" % os.getpid(), b"probe")
t("sys/kernel/hostname", "/proc/sys/kernel/hostname", b"x")
PYEOF
with=$(srt__run -s "$SD" -c "$PY $WORK/procw.py" 2>/dev/null)
without=$(srt__run -s "$SN" -c "$PY $WORK/procw.py" 2>/dev/null)
diag "with denyRead: $(echo "$with" | tr '\n' ' ')" "without: $(echo "$without" | tr '\n' ' ')"
for w in self/oom_score_adj self/comm thread-self/comm self/timerslack_ns PID/comm sys/kernel/hostname; do
	a=$(printf '%s\n' "$with" | grep "^$w " | head -1)
	b=$(printf '%s\n' "$without" | grep "^$w " | head -1)
	attempt S "a write-only open of /proc/$w answers as without denyRead ($b)" \
		test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
