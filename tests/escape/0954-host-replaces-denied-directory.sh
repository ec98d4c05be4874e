#!/bin/bash
# Escape class H1 (linux-bwrap): a denied directory that the host replaces
# during the run. srt hides a denied directory (~/.ssh here) under an
# empty tmpfs; a mount sits on the directory itself, not on its name, so
# when a host tool moves the directory away (`mv ~/.ssh ~/.ssh.old` and a
# new ~/.ssh made, or a RENAME_EXCHANGE with another directory) the cover
# leaves with it and the new directory at the denied name is bare: its
# file names (`ls`, `stat`) and its mode reached the command, and only the
# violation monitor kept its contents unread. The watcher must cover the
# name again, as it does for a denied file: after the swap, the command
# sees no name the host put there, cannot list the directory, and reads
# no file of it.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')

# inside: wait for the host's swap, then up to 5 s for the cover to come
# back; then what the command can learn of the new ~/.ssh
cat > "$WORK/probe.sh" <<'EOF'
p=$1
touch "$p/ready"
for i in $(seq 100); do [ -e "$p/swapped" ] && break; sleep 0.05; done
for i in $(seq 100); do
	stat "$HOME/.ssh/host-made-name" >/dev/null 2>&1 || break
	sleep 0.05
done
stat "$HOME/.ssh/host-made-name" >/dev/null 2>&1 && echo "stat-sees-name" >> "$p/res"
ls -a "$HOME/.ssh" 2>/dev/null | grep -q host-made-name && echo "ls-sees-name" >> "$p/res"
cat "$HOME/.ssh/host-made-name" 2>/dev/null >> "$p/res"
echo done >> "$p/res"
EOF

for swap in move exchange; do
	rm -rf "$HOME/.ssh" "$HOME/.ssh.old" "$HOME/pub" "$P/ready" "$P/swapped" "$P/res"
	mkdir -p "$HOME/.ssh" "$HOME/pub"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
	srt__bg -s "$S" -c "sh $WORK/probe.sh $P"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	"$PY" - "$HOME" "$swap" "$CANARY" <<'PYEOF'
import ctypes, os, sys
home, swap, canary = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
ssh, pub = os.path.join(home, ".ssh"), os.path.join(home, "pub")
if swap == "exchange":
    if libc.renameat2(-100, ssh.encode(), -100, pub.encode(), 2) != 0:
        sys.exit("renameat2 RENAME_EXCHANGE: errno %d" % ctypes.get_errno())
else:
    os.rename(ssh, ssh + ".old")
    os.mkdir(ssh)
with open(os.path.join(ssh, "host-made-name"), "w") as f:
    f.write("SECRET-" + canary + "\n")
PYEOF
	touch "$P/swapped"
	end_bg "$pid" 150
	diag "$swap: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	attempt H1 "$swap of the denied ~/.ssh on the host: the probe ran to its end" \
		grep -qx done "$P/res"
	attempt H1 "$swap of the denied ~/.ssh on the host: stat sees no name the host put there" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "$swap of the denied ~/.ssh on the host: ls lists no name the host put there" \
		sh -c "! grep -q ls-sees-name '$P/res'"
	attempt H1 "$swap of the denied ~/.ssh on the host: no file of it is read" no_leak "$P/res"
done
echo "1..$_tap_n"
