#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 6fc1073 (watch.c,
# task_unwatch and find_entry): a fanotify mark on a file below the
# directory the host moved onto a denied name is taken off through an
# open descriptor of the directory holding it, which find_entry finds by
# walking the whole tree again from the top, once for each mark. A user
# without privilege may put 8,192 marks in a group, one per file of the
# staged ~/.ssh.new (made by the host with a few thousand files): the
# watcher walks thousands of names thousands of times, minutes in which it
# covers nothing else. The host replaces the denied ~/.aws meanwhile
# (`aws configure`): its new names are seen by stat, which the monitor
# does not judge (failed on 6fc1073: names seen, the watcher busy for
# minutes). The walks to find the marks' files are now bounded: past
# them srt cannot tell, and the run is stopped at once.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys
from below import watch_aws
p, stage, aws = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
res = open(p + "/res", "a")
fd = libc.fanotify_init(0x200 | 0x2, os.O_RDONLY)  # REPORT_FID | NONBLOCK
n = 0
for name in sorted(os.listdir(stage)):
    if libc.fanotify_mark(fd, 1, 0x2, -100, (stage + "/" + name).encode()) == 0:
        n += 1
res.write("marks %d\n" % n); res.flush()
open(p + "/in", "w").close()
watch_aws(res, p, aws, 30)
PYEOF
S=$(fsjson s "$S0_FS")
rm -rf "$HOME"/.ssh* "$P/in" "$P/res" "$P/aws-made"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
echo "$CANARY" > "$HOME/.ssh/id_canary"
"$PY" -c '
import sys
for i in range(8000):
    open("%s/f%05d" % (sys.argv[1], i), "w").close()
' "$HOME/.ssh.new"
srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME/.ssh.new $HOME/.aws"
pid=$!
stall_swap "$pid" 450
attempt H1 "fanotify marks on thousands of files of the new ~/.ssh: the new ~/.aws's names are not seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "fanotify marks on thousands of files of the new ~/.ssh: srt ends the run within 20 s" \
	test $STALL_SECONDS -lt 20
echo "1..$_tap_n"
