#!/bin/bash
# Escape class H1 (linux-bwrap), red team: a denied directory that does not
# exist when the run starts, and that the host makes during it (the first
# ssh-keygen makes ~/.ssh, the first `gh auth login` ~/.config/gh). The
# plan gives a missing denied path nothing the watcher keeps (list_watched
# lists only the M_TMPFS covers of directories there at the start):
#  - inside a write root (allowWrite "~" here) srt makes a placeholder
#    directory at the name (an empty 0700 directory: protected names such
#    as ~/.ssh/config lie below) and binds it read-only onto itself
#    (M_PH_DIR: --ro-bind P P), not an empty tmpfs; the host's tool finds
#    the directory there and writes its key into it, and the command reads
#    the key (the monitor's record for a placeholder says 'p', readable;
#    the Landlock layer grants the write root);
#  - outside the write roots there is no mount at all: the directory the
#    host makes is bare, and its names (ls, stat) reach the command (its
#    files' contents are refused by the Landlock layer, and no violation
#    is reported).
# Either way the command must learn nothing of what the host puts there.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.sh" <<'EOF2'
p=$1 d=$2
touch "$p/ready"
for i in $(seq 100); do [ -e "$p/made" ] && break; sleep 0.05; done
# up to 5 s for the cover to come (a loaded machine is slow to), then look
for i in $(seq 100); do stat "$d/hosts.yml" >/dev/null 2>&1 || break; sleep 0.05; done
stat "$d/hosts.yml" >/dev/null 2>&1 && echo "stat-sees-name" >> "$p/res"
ls -a "$d" 2>/dev/null | grep -q hosts.yml && echo "ls-sees-name" >> "$p/res"
cat "$d/hosts.yml" 2>/dev/null >> "$p/res"
echo done >> "$p/res"
EOF2

for where in write-root elsewhere; do
	rm -rf "$HOME/.ssh" "$HOME/.config" "$P/ready" "$P/made" "$P/res"
	mkdir -p "$HOME/.config"
	if [ "$where" = write-root ]; then
		D="$HOME/.ssh" N="~/.ssh"
		S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
	else
		D="$HOME/.config/gh" N="~/.config/gh"
		S=$(fsjson s '{"denyRead":["~/.config/gh"],"allowWrite":["."],"denyWrite":[]}')
	fi
	srt__bg -s "$S" -c "sh $WORK/probe.sh $P $D"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	# the host's tool: makes the directory (there already when srt put a
	# placeholder) and writes its secret in it
	mkdir -p "$D"
	echo "secret: $CANARY" > "$D/hosts.yml"
	touch "$P/made"
	end_bg "$pid"
	diag "$where: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	attempt H1 "a denied $N the host makes during the run ($where): the probe ran to its end" \
		grep -qx done "$P/res"
	attempt H1 "a denied $N the host makes during the run ($where): stat sees no name in it" \
		sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "a denied $N the host makes during the run ($where): ls lists no name in it" \
		sh -c "! grep -q ls-sees-name '$P/res'"
	attempt H1 "a denied $N the host makes during the run ($where): no file of it is read" \
		no_leak "$P/res"
	attempt H1 "a denied $N the host makes during the run ($where): the host's file is intact" \
		grep -q "$CANARY" "$D/hosts.yml"
done
echo "1..$_tap_n"
