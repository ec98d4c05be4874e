#!/bin/bash
# Escape class H1 (linux-bwrap), red team: 0954 with the host replacing the
# denied directory's parent instead of the directory (a restore of
# ~/.config from a backup: `mv ~/.config ~/.config.bak`, then a new
# ~/.config/gh with a new token). The cover of ~/.config/gh, and the pin on
# ~/.config, are mounts on the old directories and leave with them; the
# watcher watches the old ~/.config by its descriptor (it follows the
# inode, not the path), so it never hears of the new ~/.config/gh, and that
# stays bare for the rest of the run: its names and sizes reach the command
# (stat; ls and reads by path are refused by the monitor), and in a write
# root (allowWrite "~") the command writes into it on the host (a write
# open is only reported). The same holds for a denied file whose parent
# the host replaces (~/.aws/credentials when ~/.aws is swapped).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.sh" <<'EOF2'
p=$1 d=$2 mode=$3
touch "$p/ready"
for i in $(seq 100); do [ -e "$p/swapped" ] && break; sleep 0.05; done
# up to 5 s for the cover to come (a loaded machine is slow to), then look
for i in $(seq 100); do stat "$d/hosts.yml" >/dev/null 2>&1 || break; sleep 0.05; done
stat "$d/hosts.yml" >/dev/null 2>&1 && echo "stat-sees-name" >> "$p/res"
ls -a "$d" 2>/dev/null | grep -q hosts.yml && echo "ls-sees-name" >> "$p/res"
cat "$d/hosts.yml" 2>/dev/null >> "$p/res"
[ "$mode" = write ] && echo "planted" 2>/dev/null > "$d/planted" && echo planted >> "$p/res"
echo done >> "$p/res"
EOF2

for mode in names write; do
	rm -rf "$HOME"/.config* "$P/ready" "$P/swapped" "$P/res"
	mkdir -p "$HOME/.config/gh"
	echo "oauth_token: old-$CANARY" > "$HOME/.config/gh/hosts.yml"
	if [ "$mode" = write ]; then
		S=$(fsjson s '{"denyRead":["~/.config/gh"],"allowWrite":[".","~"],"denyWrite":[]}')
	else
		S=$(fsjson s '{"denyRead":["~/.config/gh"],"allowWrite":["."],"denyWrite":[]}')
	fi
	srt__bg -s "$S" -c "sh $WORK/probe.sh $P $HOME/.config/gh $mode"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	mv "$HOME/.config" "$HOME/.config.bak"
	mkdir -p "$HOME/.config/gh"
	echo "oauth_token: $CANARY" > "$HOME/.config/gh/hosts.yml"
	touch "$P/swapped"
	end_bg "$pid"
	diag "$mode: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh ($mode): the probe ran to its end" \
		grep -qx done "$P/res"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh ($mode): stat sees no name in the new one" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh ($mode): ls lists no name in the new one" \
		sh -c "! grep -q ls-sees-name '$P/res'"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh ($mode): no file of it is read" \
		no_leak "$P/res"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh ($mode): nothing is written into it on the host" \
		test ! -e "$HOME/.config/gh/planted"
done
echo "1..$_tap_n"
