#!/bin/bash
# Escape class H1 (linux-bwrap), red team on d438bd4: 0970 with a
# directory instead of a link. judge_link_rename lets a directory of the
# command's making (~/mycfg with gh/hosts.yml in it, the file held open)
# be renamed onto the removed parent ~/.config of the denied ~/.config/gh
# (0968's host: `mv ~/.config ~/.config.bak`, `mkdir -p ~/.config/gh`, a
# new token). The host's mkdir -p finds the command's gh, its `echo >
# hosts.yml` writes the command's own file, and the command reads the
# token through the descriptor it holds: the watcher's cover of the new
# ~/.config/gh and its scan (directories, cwds, inotify) do not reach an
# open regular file.
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
os.makedirs(mine + "/gh")
f = open(mine + "/gh/hosts.yml", "w+")
open(mine + "/gh/.mine", "w").close()

res = open(p + "/res", "a")
open(p + "/ready", "w").close()
made, err = spin(lambda: os.rename(mine, cfg), until=p + "/written")
res.write("renamed\n" if made else "not-moved %s\n" % err)
wait_marker(p, tenths=100)
time.sleep(0.2)
f.seek(0)
res.write("fd: " + f.read())
try:
    res.write("path: " + open(cfg + "/gh/hosts.yml").read())
except OSError as e:
    res.write("path read-failed %s\n" % e)
res.write("done\n")
PYEOF

config_stage "$HOME/mycfg"
config_moved_run "$S"
attempt H1 "directory renamed onto the removed parent of the denied ~/.config/gh: the host's new token is not read" \
	no_leak "$P/res"
attempt H1 "directory renamed onto the removed parent of the denied ~/.config/gh: the host's ~/.config/gh is not the command's directory after the run" \
	test ! -e "$HOME/.config/gh/.mine"
echo "1..$_tap_n"
