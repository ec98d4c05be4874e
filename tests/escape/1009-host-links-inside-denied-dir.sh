#!/bin/bash
# Semantics (linux-bwrap), red team on 1703093 (watch.c, unwatch_dirs):
# the host moves onto the denied ~/.ssh a directory where a key has a
# second name beside it (`ln id_ed25519 id_ed25519.bak`, a tree copied
# with its links by `cp -a` or `rsync -H`), while the command does
# nothing near it. The watcher stopped the run for any file below with
# more than one link ("a file with another name (a hard link), through
# which the command would read what the host writes there"), though every
# name of that file is below the covered directory (failed on 1703093).
# A file whose links are all names below it is let be; one with a link
# elsewhere still stops the run (1002).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s "$S0_FS")
rm -rf "$HOME"/.ssh* "$P/.ready"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new/sub"
echo "$CANARY" > "$HOME/.ssh/id_canary"
echo "new key" > "$HOME/.ssh.new/id_ed25519"
ln "$HOME/.ssh.new/id_ed25519" "$HOME/.ssh.new/id_ed25519.bak"
ln "$HOME/.ssh.new/id_ed25519" "$HOME/.ssh.new/sub/id_ed25519"
srt__bg -s "$S" -c "touch $P/.ready; sleep 3; echo ran to its end"
pid=$!
wait_for "$P/.ready" 100 || diag "the command did not start: $(cat "$WORK/bg.out")"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
end_bg "$pid" 100
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
attempt S "a key and its hard links all in the new ~/.ssh: the run is not stopped" \
	grep -q "ran to its end" "$WORK/bg.out"
# the same with one more link outside the directory: stopped
rm -rf "$HOME"/.ssh.old "$P/.ready" "$HOME/kh"
mv "$HOME/.ssh" "$HOME/.ssh.new"
mkdir -p "$HOME/.ssh"
ln "$HOME/.ssh.new/id_ed25519" "$HOME/kh"
srt__bg -s "$S" -c "touch $P/.ready; sleep 3; echo ran to its end"
pid=$!
wait_for "$P/.ready" 100 || diag "the command did not start: $(cat "$WORK/bg.out")"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
end_bg "$pid" 100
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
attempt H1 "a key with a hard link outside the new ~/.ssh: the run is stopped" \
	sh -c "grep -q 'hard link' '$WORK/bg.out' && ! grep -q 'ran to its end' '$WORK/bg.out'"
rm -f "$HOME/kh"
echo "1..$_tap_n"
