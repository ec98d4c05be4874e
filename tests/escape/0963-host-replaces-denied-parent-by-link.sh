#!/bin/bash
# Escape class H1 (linux-bwrap), red team on ce50c65's parent_arrived: 0958
# with the new ~/.config a symbolic link (a dotfile manager: stow, chezmoi
# symlink mode: `mv ~/.config ~/.config.bak; ln -s dot/config ~/.config`,
# with ~/dot/config/gh/hosts.yml). parent_arrived runs only for an arriving
# directory (a link is not one), and nothing else watches or covers
# ~/dot/config/gh: the new ~/.config/gh is bare, the monitor judges the
# resolved path (~/dot/config/gh/...), and the token is read.
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

host_swap() {
	mv "$HOME/.config" "$HOME/.config.bak"
	mkdir -p "$HOME/dot/config/gh"
	echo "oauth_token: $CANARY" > "$HOME/dot/config/gh/hosts.yml"
	ln -s dot/config "$HOME/.config"
}

for mode in names write; do
	rm -rf "$HOME"/.config* "$HOME/dot" "$P/ready" "$P/swapped" "$P/res"
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
	host_swap
	touch "$P/swapped"
	end_bg "$pid"
	diag "$mode: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-500)"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh by a link to ~/dot/config ($mode): stat sees no name in the new one" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh by a link to ~/dot/config ($mode): ls lists no name in the new one" \
		sh -c "! grep -q ls-sees-name '$P/res'"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh by a link to ~/dot/config ($mode): no file of it is read" \
		no_leak "$P/res"
	attempt H1 "the host replaces the parent of the denied ~/.config/gh by a link to ~/dot/config ($mode): nothing is written into it on the host" \
		sh -c "! grep -q planted '$P/res'"
done
echo "1..$_tap_n"
