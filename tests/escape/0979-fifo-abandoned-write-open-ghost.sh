#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor now opens the write end of a FIFO itself, in a thread that
# waits for a reader. When the caller stops waiting (killed, or a signal
# makes its open fail with EINTR), that thread keeps waiting: it is a
# writer the kernel counts. The next reader's open then succeeds at once
# against it, the thread finds the caller gone and closes its end, and
# the reader reads end of file, while the writer that comes for it after
# waits forever for a reader. In the kernel (before a61f400, and
# without denyRead) the abandoned open counts nothing: the reader waits
# for the real writer and reads what it wrote. (The read end has had the
# same flaw since the monitor opened reads itself: a killed reader's
# thread makes a later writer's open succeed against a reader that goes
# away.) Fix: the FIFO thread must not outlive the notification (wake it
# with a signal, or open O_NONBLOCK in a loop checking
# SECCOMP_IOCTL_NOTIF_ID_VALID).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
rm -f f
srt__run -s "$S" -c '
mkfifo f
sh -c "echo lost > f" & p=$!
sleep 0.5
kill -9 $p; wait $p 2>/dev/null
(sleep 1; echo real > f) & w=$!
timeout 5 cat f > got; echo "cat $?" >> got
sleep 1.5
if kill -0 $w 2>/dev/null; then echo "writer still waiting" >> got; kill -9 $w; fi
' > "$WORK/out" 2>&1
diag "got: $(tr '\n' ' ' < "$P/got" 2>/dev/null)" "srt: $(tr '\n' ' ' < "$WORK/out" | cut -c1-300)"
attempt S "after a FIFO writer was killed in its open, the next reader waits for the real writer and reads what it wrote" \
	grep -qx real "$P/got"
attempt S "after a FIFO writer was killed in its open, the next writer finds the reader (it does not wait forever)" \
	sh -c "! grep -q 'writer still waiting' '$P/got'"
echo "1..$_tap_n"
