#!/bin/bash
# Escape class: hard and symbolic link games: links made inside to denied or read-only files, /proc/self/fd links,
# a symlink planted by one sandboxed run to become a write grant in the
# next, and a concurrent sandboxed run flipping a link while srt plans and
# mounts (TOCTOU). Host state asserted afterwards.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
echo keep > "$HOME/outside/existing"
echo locked > "$P/locked"
echo rc-orig > "$P/.bashrc"
L=$(fsjson lock '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":["./locked"]}')
inode_links() { find "$P" -xdev -samefile "$1" 2>/dev/null | grep -v "^$1\$" | head -3; }

# F15: hard links to denied, read-only and write-denied files
srt__run -s "$L" -c "
	ln ~/.ssh/id_canary k1; cat k1
	ln /etc/passwd k2; ln ~/outside/existing k3 && echo x >> k3
	/usr/bin/python3 -c 'import os; os.link(os.path.expanduser(\"~/outside/existing\"), \"k4\")'
	exec 7< ~/outside/existing; ln -L /proc/self/fd/7 k5 && echo x >> k5
	ln locked k6 && echo x >> k6; ln -L /proc/self/root$P/locked k7 && echo x > k7
	ln .bashrc k8 && echo x >> k8
	true" >"$WORK/out" 2>&1
attempt F15 "no canary in the output" no_leak "$WORK/out"
attempt F15 "no file in the project shares an inode with an outside file" \
	test -z "$(inode_links "$HOME/outside/existing")$(inode_links /etc/passwd)"
attempt F15 "the outside file is unchanged" test "$(cat "$HOME/outside/existing")" = keep
attempt F15 "the write-denied file is unchanged and has no new name" \
	test "$(cat "$P/locked")" = locked -a -z "$(inode_links "$P/locked")"
attempt F15 "the mandatory-deny .bashrc is unchanged and has no new name" \
	test "$(cat "$P/.bashrc")" = rc-orig -a -z "$(inode_links "$P/.bashrc")"

# row 44/48: a symlink planted by one run must not become a write grant (or
# a read of a denied tree) in the next run that names it in its settings
mkdir -p "$P/out" "$P/pub"
W=$(fsjson plant '{"denyRead":["~/.ssh"],"allowRead":[],"allowWrite":["./out"],"denyWrite":[]}')
srt__run -s "$S" -c "rm -rf out pub && ln -s '$HOME/outside' out && ln -s '$HOME/.ssh' pub" >/dev/null 2>&1
planted=no; [ -L "$P/out" ] && planted=yes
srt__run -s "$W" -c "echo pwn > out/planted-write; echo pwn > '$HOME/outside/planted-write2'; true" >/dev/null 2>&1
attempt F11 "planted link (planted=$planted) in a write root: no write grant outside" \
	test ! -e "$HOME/outside/planted-write" -a ! -e "$HOME/outside/planted-write2"
R=$(fsjson plantr '{"denyRead":["~"],"allowRead":["./pub"],"allowWrite":[],"denyWrite":[]}')
srt__run -s "$R" -c "cat pub/id_canary; cat '$HOME/.ssh/id_canary'" >"$WORK/out" 2>&1
attempt F10 "planted link named by allowRead does not re-open a denied tree" no_leak "$WORK/out"
rm -f "$P/out" "$P/pub"; mkdir -p "$P/out"

# TOCTOU: a concurrent sandboxed run flips ./out between a real directory
# and a link to ~/outside while srt plans and mounts allowWrite ./out
# flipper NAME TARGET: shell words for a sandboxed python loop that keeps
# swapping ./NAME between a directory and a symlink to TARGET
flipper() {
	printf '%s' "/usr/bin/python3 -c '
import os, sys
n, t = sys.argv[1], sys.argv[2]
i = 0
while not os.path.exists(\"stop\") and i < 200000:
    try:
        os.rename(n, n + \".d\"); os.symlink(t, n); os.unlink(n); os.rename(n + \".d\", n)
    except OSError:
        pass
    i += 1
open(\"flips\", \"w\").write(\"flips=%d\" % i)
' $1 $2"
}
srt__bg -s "$S" -c "$(flipper out "$HOME/outside")"
fl=$!
for i in $(seq 12); do
	srt__run -s "$W" -c "echo race > out/raced-$i; true" >/dev/null 2>&1
done
touch "$P/stop"; wait $fl
attempt F11 "flipped link ($(cat "$P/flips" 2>/dev/null)) during 12 starts: nothing written outside" \
	test -z "$(ls "$HOME/outside" | grep raced)"
rm -rf "$P/out" "$P/out.d" "$P/out.l" "$P/stop"

# the same race against a read deny: ./pub flips between a harmless
# directory and a link to ~/.ssh while srt masks ~/.ssh
mkdir -p "$P/pub"; echo public > "$P/pub/id_canary"
rm -f "$P/flips"
srt__bg -s "$S" -c "$(flipper pub "$HOME/.ssh")"
fl=$!
: > "$WORK/race.out"
for i in $(seq 12); do
	srt__run -s "$S" -c "cat pub/id_canary; cat ~/.ssh/id_canary" >>"$WORK/race.out" 2>&1
done
touch "$P/stop"; wait $fl
attempt F10 "flipped link ($(cat "$P/flips" 2>/dev/null)) to a denied tree during 12 starts: never read" no_leak "$WORK/race.out"
attempt F10 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
