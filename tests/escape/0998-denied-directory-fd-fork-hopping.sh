#!/bin/bash
# Escape class H1 (linux-bwrap), red team on held_below (watch.c): the
# watcher lists /proc once, then looks at each process it listed. A
# descriptor of the staged directory (0957's swap, allowWrite "~") is
# carried from process to process by fork, each parent ending at once
# (tests/helpers/escape-sys fork-hop): the process the list named is gone
# by the time it is looked at, and the one holding the descriptor then
# was born after the list was read. Nothing is found, the run goes on, and
# the last process enters the new ~/.ssh by the descriptor and sees the
# names the host puts there. Up to 8 runs (about two in three got
# through). /proc/PID/task is read once per process as well, so a thread
# that starts another with a copy of its descriptor table and ends would
# do the same one level down (not tried here).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

below_esys_hop fork-hop 8
W="directory descriptor carried by fork from process to process into the directory moved to the denied ~/.ssh"
below_stopped "$W ($try runs)"
below_checks "$W"
echo "1..$_tap_n"
