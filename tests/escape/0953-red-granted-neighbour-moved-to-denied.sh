#!/bin/bash
# Escape class H1 (linux-bwrap), red team: why the violation monitor makes
# every judged read open itself, even where srt's Landlock layer refuses
# the denied names too (a variant that let them go on to the kernel, on the
# strength of the layer, read thousands of secrets here).
# The layer's rules hold inodes, and the planner grants every entry beside
# a denied path one by one: a directory beside ~/.ssh (~/pub here) carries
# a read rule of its own. When the host moves that directory to the denied
# name (`mv ~/.ssh ~/.ssh.old && mv ~/pub ~/.ssh`, or a RENAME_EXCHANGE of
# the two), the rule travels with it: every file the host then writes in
# the new ~/.ssh is readable under the layer. The cover of ~/.ssh (a tmpfs
# on the old directory) followed the old directory, and a denied directory
# has no watcher to cover the name again, so for the rest of the run only
# the violation monitor keeps ~/.ssh/... unread. A direct open is refused
# by the monitor; but when it lets a judged read open go on to the kernel,
# another thread rewrites the path between the judgement and the kernel's
# own walk, and the kernel opens ~/.ssh/key (red team: 4053 secrets in 6 s;
# 0 when the monitor makes the open itself, as with a denied name inside a
# write root). No secret the host writes under the denied name may reach
# the command, whichever way the host swapped the directory in. A denied
# file is the same with a file beside it: the host renames ~/.aws/staged-N
# (there when the run started, so granted) over ~/.aws/credentials and
# writes the new secret into it at once; the watcher covers the name again
# a moment later, and in that moment a rewritten path read 1418 secrets in
# 8 s (0 when the monitor makes the open).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
echo "SAFE" > "$P/safe"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws/credentials"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/reader.py" <<'PYEOF'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
mode, target, safe, out, secs = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode(), sys.argv[4], float(sys.argv[5])
# the host touches this once it has swapped and written: the readers go
# on for 2 s more (the red team's variant read hundreds of secrets a
# second), or to the end of secs
done = sys.argv[6]
buf = ctypes.create_string_buffer(1024)
buf.value = safe
stop = False
def flip():
    a, b, mv = target + b"\0", safe + b"\0", ctypes.memmove
    while not stop:
        mv(buf, a, len(a))
        mv(buf, b, len(b))
if mode == "rewrite":
    threading.Thread(target=flip, daemon=True).start()
open(out + ".started", "w").close()
tries = hits = refused = 0
r = ctypes.create_string_buffer(64)
t0 = time.time()
end, look = t0 + secs, t0
while True:
    now = time.time()
    if now >= end:
        break
    if now >= look:
        look = now + 0.05
        if end > now + 2 and os.path.exists(done):
            end = now + 2
    tries += 1
    fd = libc.open(buf if mode == "rewrite" else target, 0)
    if fd < 0:
        refused += 1
        continue
    if libc.read(fd, r, 63) > 0 and r.raw.startswith(b"SECRET-"):
        hits += 1
    libc.close(fd)
stop = True
with open(out, "w") as f:
    f.write("%s tries %d hits %d refused %d\n" % (mode, tries, hits, refused))
PYEOF

# swap: exchange (RENAME_EXCHANGE of ~/.ssh and ~/pub) or move (~/.ssh
# moved aside, ~/pub moved to ~/.ssh), then the host writes a new key
# there; file: 500 granted files renamed in turn over ~/.aws/credentials,
# each written at once
for swap in exchange move file; do
	rm -rf "$HOME/.ssh" "$HOME/.ssh.old" "$HOME/pub" "$HOME"/.aws/staged-*
	mkdir -p "$HOME/.ssh" "$HOME/pub"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
	echo "OLD-$CANARY" > "$HOME/.aws/credentials"
	for i in $(seq 0 499); do echo "cfg" > "$HOME/.aws/staged-$i"; done
	T="$HOME/.ssh/key"
	[ "$swap" = file ] && T="$HOME/.aws/credentials"
	rm -f "$P"/res-* "$P/host-done"
	srt__bg -s "$S" -c "$PY $WORK/reader.py rewrite $T $P/safe $P/res-rewrite 8 $P/host-done & $PY $WORK/reader.py direct $T $P/safe $P/res-direct 8 $P/host-done; wait"
	pid=$!
	wait_for "$P/res-rewrite.started" 100 && wait_for "$P/res-direct.started" 100 ||
		diag "the readers did not start: $(cat "$WORK/bg.out")"
	"$PY" - "$HOME" "$swap" <<'PYEOF'
import ctypes, os, sys, time
home, swap = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
ssh, pub = os.path.join(home, ".ssh"), os.path.join(home, "pub")
if swap == "file":
    aws = os.path.join(home, ".aws")
    for i in range(500):
        os.rename(os.path.join(aws, "staged-%d" % i), os.path.join(aws, "credentials"))
        with open(os.path.join(aws, "credentials"), "w") as f:
            f.write("SECRET-%d\n" % i)
        time.sleep(0.005)
    sys.exit(0)
if swap == "exchange":
    if libc.renameat2(-100, ssh.encode(), -100, pub.encode(), 2) != 0:
        sys.exit("renameat2 RENAME_EXCHANGE: errno %d" % ctypes.get_errno())
else:
    os.rename(ssh, ssh + ".old")
    os.rename(pub, ssh)
with open(os.path.join(ssh, "key"), "w") as f:
    f.write("SECRET-written-after-the-swap\n")
PYEOF
	touch "$P/host-done"
	end_bg "$pid" 300
	for mode in rewrite direct; do
		line=$(cat "$P/res-$mode" 2>/dev/null)
		hits=$(echo "$line" | awk '{print $5}')
		diag "$swap, $mode reads of $T: $line"
		attempt H1 "$swap of a granted object to a denied name: no secret written there is read by $mode opens ($line)" \
			sh -c "[ -n '$hits' ] && [ '$hits' -eq 0 ]"
	done
done
echo "1..$_tap_n"
