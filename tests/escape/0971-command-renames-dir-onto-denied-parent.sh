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
p = sys.argv[1]
cfg = os.path.join(os.environ["HOME"], ".config")
mine = os.path.join(os.environ["HOME"], "mycfg")
os.makedirs(mine + "/gh")
f = open(mine + "/gh/hosts.yml", "w+")
open(mine + "/gh/.mine", "w").close()

res = open(p + "/res", "a")
open(p + "/ready", "w").close()
made = None
end = time.time() + 10
while not made and time.time() < end:
    try:
        os.rename(mine, cfg)
        made = "renamed"
    except OSError as e:
        err = e
res.write("%s\n" % (made or "not-moved %s" % err))
for i in range(100):
    if os.path.exists(p + "/written"):
        break
    time.sleep(0.05)
time.sleep(0.2)
f.seek(0)
res.write("fd: " + f.read())
try:
    res.write("path: " + open(cfg + "/gh/hosts.yml").read())
except OSError as e:
    res.write("path read-failed %s\n" % e)
res.write("done\n")
PYEOF

rm -rf "$HOME"/.config* "$HOME/mycfg" "$P/ready" "$P/written" "$P/res"
mkdir -p "$HOME/.config/gh"
echo "oauth_token: old-$CANARY" > "$HOME/.config/gh/hosts.yml"
srt__bg -s "$S" -c "$PY $WORK/probe.py $P"
pid=$!
wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
sleep 0.3
mv "$HOME/.config" "$HOME/.config.bak"
sleep 0.3
mkdir -p "$HOME/.config/gh"
echo "oauth_token: $CANARY" > "$HOME/.config/gh/hosts.yml"
touch "$P/written"
end_bg "$pid"
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-400)"
diag "host ~/.config after the run: $(ls -ld "$HOME/.config" 2>&1)"
attempt H1 "directory renamed onto the removed parent of the denied ~/.config/gh: the host's new token is not read" \
	no_leak "$P/res"
attempt H1 "directory renamed onto the removed parent of the denied ~/.config/gh: the host's ~/.config/gh is not the command's directory after the run" \
	test ! -e "$HOME/.config/gh/.mine"
echo "1..$_tap_n"
