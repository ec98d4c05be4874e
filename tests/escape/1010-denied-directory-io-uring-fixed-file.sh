#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 724304e (watch.c,
# held_below): with allowAllUnixSockets (as for a docker socket) the
# command may use io_uring. It registers a descriptor of the staged
# ~/.ssh.new as a fixed file of a ring (IORING_REGISTER_FILES) and closes
# the descriptor: the directory is then in no descriptor table, and the
# scan after the host's `mv ~/.ssh.new ~/.ssh` lists every table and
# finds nothing. Once the host has made its file there, the command puts
# the fixed file back in its table (IORING_OP_FIXED_FD_INSTALL, Linux
# 6.8), goes there and sees the host's names (stat is not judged).
# Left open (TODO): the files a ring holds are told only in its fdinfo
# (its "UserFiles:" lines, by path, unescaped), and the ring itself need
# be in no table either (IORING_REGISTER_RING_FDS, then close), so a
# scan of the tables cannot find them all; io_uring is let through only
# with allowAllUnixSockets, whose io_uring opens seccomp does not see at
# all (SECURITY.md, set-id modes).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}' '{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true}')
below_stage
LOOK="test -e host-made-name && echo stat-sees-name >> $P/res; cat host-made-name >> $P/res 2>/dev/null; echo done >> $P/res"
srt__bg -s "$S" -c "(sleep 0.5; touch $P/ready $P/in) & exec $ESYS uring-hold $HOME/.ssh.new $P/written sh -c '$LOOK'"
pid=$!
wait_for "$P/in" 100 || diag "the command did not start: $(cat "$WORK/bg.out")"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
below_host_writes "$pid"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
if grep -q 'uring-hold: setup\|uring-hold: register\|uring-hold: install' "$WORK/bg.out"; then
	skip_rest 4 "io_uring or IORING_OP_FIXED_FD_INSTALL not available"
else
	below_checks "a directory held as an io_uring fixed file" \
		"a ring's fixed files, and a registered ring, are in no descriptor table (SECURITY.md)"
fi
echo "1..$_tap_n"
