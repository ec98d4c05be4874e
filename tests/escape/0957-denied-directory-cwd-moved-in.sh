#!/bin/bash
# Escape class H1 (linux-bwrap), red team: 0956 without the race. When the
# directory the host puts at a denied name was somewhere the command could
# go before (0954's RENAME_EXCHANGE with ~/pub; or a tool that prepares
# ~/.ssh.new and renames it over: `mv ~/.ssh ~/.ssh.old; mv ~/.ssh.new
# ~/.ssh`), the command simply makes that directory its working directory
# first. The watcher covers the denied name again, but a cover is a mount
# on the name's dentry, and "." is below it: whatever the host then puts in
# the new ~/.ssh is stat-able by its name relative to "." (stat and chdir
# are no calls the monitor judges; opens by path are still refused), and
# in a write root (allowWrite "~") the command writes into it on the host
# (a write open is only reported), e.g. ~/.ssh/authorized_keys.
# So the watcher, once it has covered a directory at a denied name, looks
# for a process of the command whose working directory, root or a
# directory descriptor is at or below it, and stops the run, saying why.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
p, stage, write = sys.argv[1], sys.argv[2], sys.argv[3] == "write"
ssh = os.path.join(os.environ["HOME"], ".ssh")
open(p + "/ready", "w").close()
inside = False
for i in range(200):
    try:
        os.chdir(stage)
        inside = True
        break
    except OSError:
        time.sleep(0.05)
res = open(p + "/res", "a")
if inside:
    open(p + "/in", "w").close()
for i in range(200):
    if os.path.exists(p + "/written"):
        break
    time.sleep(0.05)
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
if write:
    try:
        fd = os.open("authorized_keys", os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, b"ssh-ed25519 AAAA planted-by-the-command\n")
        os.close(fd)
        res.write("planted\n")
    except OSError:
        pass
res.write("done\n")
PYEOF

for swap in exchange staged; do
	rm -rf "$HOME"/.ssh* "$HOME/pub" "$P/ready" "$P/in" "$P/written" "$P/res"
	mkdir -p "$HOME/.ssh"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
	if [ "$swap" = exchange ]; then
		stage="$HOME/pub" mode=names
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
	else
		stage="$HOME/.ssh.new" mode=write
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	fi
	mkdir -p "$stage"
	srt__bg -s "$S" -c "$PY $WORK/probe.py $P $stage $mode"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not enter $stage"
	"$PY" - "$HOME" "$swap" <<'PYEOF'
import ctypes, os, sys
home, swap = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(home, ".ssh")
if swap == "exchange":
    if libc.renameat2(-100, ssh.encode(), -100, os.path.join(home, "pub").encode(), 2) != 0:
        sys.exit("renameat2 RENAME_EXCHANGE: errno %d" % ctypes.get_errno())
else:
    os.rename(ssh, ssh + ".old")
    os.rename(ssh + ".new", ssh)
PYEOF
	sleep 0.5 # the watcher's cover is on the new ~/.ssh by now
	echo "SECRET-$CANARY" > "$HOME/.ssh/host-made-name"
	touch "$P/written"
	end_bg "$pid" 150
	diag "$swap: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "summary: $(grep deny "$WORK/bg.out" | tr '\n' ' ')"
	attempt H1 "cwd in the directory the host puts at the denied ~/.ssh ($swap): srt stopped the run saying why" \
		sh -c "grep -qE 'had entered or opened before srt covered it again|cannot tell whether a process of the command is inside' '$WORK/bg.out' && ! grep -qx done '$P/res'"
	attempt H1 "cwd in the directory the host puts at the denied ~/.ssh ($swap): no name the host puts there is seen" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "cwd in the directory the host puts at the denied ~/.ssh ($swap): no file of it is read" \
		no_leak "$P/res"
	attempt H1 "cwd in the directory the host puts at the denied ~/.ssh ($swap): nothing is written into it on the host" \
		test ! -e "$HOME/.ssh/authorized_keys"
done
echo "1..$_tap_n"
