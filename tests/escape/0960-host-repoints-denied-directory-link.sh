#!/bin/bash
# Escape class H1 (linux-bwrap), red team: a denied name that is a symbolic
# link to a directory (dotfile managers: ~/.ssh -> ~/dot/ssh-a), which the
# host points elsewhere during the run the way those tools switch a
# generation (`ln -sfn ~/dot/ssh-b ~/.ssh.tmp && mv -T ~/.ssh.tmp ~/.ssh`).
# The plan resolves the link at the start and hides its target (~/dot/
# ssh-a: "resolves to ...; enforced there"); the watcher keeps that
# target's name (in ~/dot), not the link's: nothing watches ~/.ssh in ~.
# Once the link is re-pointed, ~/.ssh is the other directory, bare: the
# command lists it and reads the key the host's ssh-keygen then writes
# through ~/.ssh (the monitor's records hold the old target only, and
# ~/dot/ssh-b, there at the start beside ssh-a, carries a read rule of the
# Landlock layer); no violation is reported.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
rm -rf "$HOME/.ssh"
mkdir -p "$HOME/dot/ssh-a" "$HOME/dot/ssh-b"
echo "$CANARY" > "$HOME/dot/ssh-a/id_canary"
ln -s "$HOME/dot/ssh-a" "$HOME/.ssh"
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')

cat > "$WORK/probe.sh" <<'EOF2'
p=$1
touch "$p/ready"
for i in $(seq 100); do [ -e "$p/switched" ] && break; sleep 0.05; done
# up to 5 s for the watcher to act on the new link (a loaded machine is
# slow to), then look
for i in $(seq 100); do ls -a "$HOME/.ssh/" 2>/dev/null | grep -q id_new || break; sleep 0.05; done
ls -a "$HOME/.ssh/" 2>/dev/null | grep -q id_new && echo "ls-sees-name" >> "$p/res"
cat "$HOME/.ssh/id_new" 2>/dev/null >> "$p/res"
cat "$HOME/.ssh/id_canary" 2>/dev/null >> "$p/res"
echo done >> "$p/res"
EOF2

srt__bg -s "$S" -c "sh $WORK/probe.sh $P"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
ln -sfn "$HOME/dot/ssh-b" "$HOME/.ssh.tmp"
mv -T "$HOME/.ssh.tmp" "$HOME/.ssh"
echo "NEW-KEY-$CANARY" > "$HOME/.ssh/id_new"
touch "$P/switched"
end_bg "$pid"
diag "probe: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "summary: $(grep deny "$WORK/bg.out" | tr '\n' ' ')"
attempt H1 "the host re-points the denied ~/.ssh link: the probe ran to its end" \
	grep -qx done "$P/res"
attempt H1 "the host re-points the denied ~/.ssh link: ls ~/.ssh/ lists no name" \
	sh -c "! grep -q ls-sees-name '$P/res'"
attempt H1 "the host re-points the denied ~/.ssh link: no key written through ~/.ssh is read" \
	no_leak "$P/res"
echo "1..$_tap_n"
