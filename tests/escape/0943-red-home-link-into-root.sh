#!/bin/bash
# Escape class F6 (a protected name at a second path), both Linux
# backends: a dotfile manager (GNU stow and the like) makes $HOME's startup
# files and ~/... names links into a repository, and the command runs with
# that repository as its write root. The protected names of $HOME are
# matched below $HOME and by their own names in the write roots, so the
# links' targets ("dots/bashrc", "dots/config/systemd/user") were plain
# files there: the command appended to the file bash runs at every start
# and added a systemd user unit (red team). Each write must stay off the
# host, with or without the run being refused.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL=$BACKEND_LL
D="$WORK/dots"
S=$(fsjson dots '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')

setup() {
	rm -rf "$D" "$HOME/.bashrc" "$HOME/.config" "$HOME/.ssh/config" "$HOME/.claude"
	mkdir -p "$D/config/git" "$D/claude" "$HOME/.ssh"
	echo orig > "$D/bashrc"
	echo orig > "$D/ssh_config"
	echo '[user]' > "$D/config/git/config"
	ln -s "$D/bashrc" "$HOME/.bashrc"
	ln -s "$D/ssh_config" "$HOME/.ssh/config"
	ln -s "$D/config" "$HOME/.config"
	ln -s "$D/claude" "$HOME/.claude"
}
ATTACK='echo PWNED >> bashrc; echo PWNED >> ssh_config; echo PWNED >> config/git/config;
mkdir -p config/systemd/user && echo PWNED > config/systemd/user/x.service;
echo PWNED > claude/settings.json; echo ran'
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	setup
	( cd "$D" && timeout -k 5 60 "$SRT" --backend="${be#*:}" -s "$S" -c "$ATTACK" ) >"$WORK/out" 2>&1
	what=$(tr '\n' ' ' < "$WORK/out" | head -c 300)
	attempt F6 "${be%%:*}: ~/.bashrc, a link into the write root, is not written ($what)" \
		sh -c "! grep -q PWNED '$D/bashrc'"
	attempt F6 "${be%%:*}: ~/.ssh/config, a link into the write root, is not written ($what)" \
		sh -c "! grep -q PWNED '$D/ssh_config'"
	attempt F6 "${be%%:*}: ~/.config/git/config through ~/.config, a link into the write root, is not written ($what)" \
		sh -c "! grep -q PWNED '$D/config/git/config'"
	attempt F6 "${be%%:*}: no systemd user unit through ~/.config, a link into the write root ($what)" \
		test ! -e "$D/config/systemd/user/x.service"
	attempt F6 "${be%%:*}: no ~/.claude/settings.json through ~/.claude, a link into the write root ($what)" \
		test ! -s "$D/claude/settings.json"
done
# 11-14: the links dangle: their targets do not exist yet, and the command
# makes them (a dotfile repository checked out without them)
setup_dangling() {
	rm -rf "$D" "$HOME/.config" "$HOME/.ssh/config" "$HOME/.bashrc" "$HOME/.claude"
	mkdir -p "$D" "$HOME/.ssh"
	ln -s "$D/ssh_config" "$HOME/.ssh/config"
	ln -s "$D/config" "$HOME/.config"
}
ATTACK2='echo PWNED > ssh_config; mkdir -p config/systemd/user && echo PWNED > config/systemd/user/x.service; echo ran'
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	setup_dangling
	( cd "$D" && timeout -k 5 60 "$SRT" --backend="${be#*:}" -s "$S" -c "$ATTACK2" ) >"$WORK/out" 2>&1
	what=$(tr '\n' ' ' < "$WORK/out" | head -c 300)
	attempt F6 "${be%%:*}: ~/.ssh/config, a link to a file the command may create, is not created ($what)" \
		test ! -e "$D/ssh_config"
	attempt F6 "${be%%:*}: no systemd user unit through ~/.config, a link to a directory the command may create ($what)" \
		test ! -e "$D/config/systemd/user/x.service"
done
# 15-18: a link in the write root on the way: ~/.config leads to dots/config,
# itself a link to dots/real; the command points dots/config elsewhere
# (a link it may replace, as any file in the write root) and writes there
setup_chain() {
	rm -rf "$D" "$HOME/.config" "$HOME/.ssh/config" "$HOME/.bashrc" "$HOME/.claude"
	mkdir -p "$D/real" "$D/ssh-real"
	ln -s real "$D/config"
	ln -s "$D/config" "$HOME/.config"
	echo orig > "$D/ssh-real/config"
	ln -s ssh-real "$D/ssh"
	ln -s "$D/ssh/config" "$HOME/.ssh/config"
}
ATTACK3='rm -f config ssh; mkdir -p other/systemd/user other-ssh; ln -s other config; ln -s other-ssh ssh;
echo PWNED > other/systemd/user/x.service; echo PWNED > other-ssh/config; echo ran'
for be in bwrap:"$BACKEND" landlock:"$LL"; do
	setup_chain
	( cd "$D" && timeout -k 5 60 "$SRT" --backend="${be#*:}" -s "$S" -c "$ATTACK3" ) >"$WORK/out" 2>&1
	what=$(tr '\n' ' ' < "$WORK/out" | head -c 300)
	attempt F6 "${be%%:*}: no systemd user unit through a link in the write root that ~/.config leads through ($what)" \
		test ! -e "$HOME/.config/systemd/user/x.service"
	attempt F6 "${be%%:*}: ~/.ssh/config not made through a link in the write root it leads through ($what)" \
		sh -c "! grep -qs PWNED '$HOME/.ssh/config'"
done
echo "1..$_tap_n"
