#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's judge_symlink: it
# refuses a symlink whose new name reaches a denied name, not one at the
# name of a denied name's parent. 0958's host (allowWrite "~", denyRead
# "~/.config/gh": `mv ~/.config ~/.config.bak`, then `mkdir -p
# ~/.config/gh` and a new token) leaves ~/.config free for a moment; the
# command, spinning on symlink(~/proj/cfg, ~/.config), puts a link there.
# The host's mkdir -p follows it and the token lands in ~/proj/cfg/gh,
# which the command reads (no denied name on that path); the link stays on
# the host after the run, so every later token goes there too.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.config/gh"],"allowWrite":[".","~"],"denyWrite":[]}')

cat > "$WORK/probe.py" <<'PYEOF'
import os, sys
from below import spin, wait_marker
p = sys.argv[1]
cfg = os.path.join(os.environ["HOME"], ".config")
mine = os.path.join(p, "cfg")
os.mkdir(mine)
res = open(p + "/res", "a")
open(p + "/ready", "w").close()
made, err = spin(lambda: os.symlink(mine, cfg), until=p + "/written")
res.write("linked\n" if made else "not-linked %s\n" % err)
wait_marker(p, tenths=100)
try:
    res.write(open(mine + "/gh/hosts.yml").read())
except OSError as e:
    res.write("read-failed %s\n" % e)
res.write("done\n")
PYEOF

config_stage "$P/cfg"
config_moved_run "$S"
attempt H1 "link at the removed parent of the denied ~/.config/gh: the host's new token is not read" \
	no_leak "$P/res"
attempt H1 "link at the removed parent of the denied ~/.config/gh: no link of the command's making at ~/.config on the host" \
	test ! -L "$HOME/.config"
echo "1..$_tap_n"
