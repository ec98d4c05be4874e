# Cases 17-30 of 0941 (linux-bwrap) and 0942 (linux-landlock), sourced by
# both: a protected name of $HOME reached through another mount (a bind of
# a directory inside a protected one, an overlay layer, a bind of a single
# protected file or directory). Each write must stay off $HOME and the run
# must be refused, naming the second path. The caller has set P, S, bind,
# unbind, run, what and refused_naming.
# 17-18 (F6): ~/.config/systemd/user/<unit>.d, a drop-in directory inside
# a protected directory, shown in the write root: a drop-in there changes
# what systemd runs for the unit, as a unit file in ~/.config/systemd/user/
# would
mkdir -p "$HOME/.config/systemd/user/app.service.d" "$P/dropin"
bind "$HOME/.config/systemd/user/app.service.d" "$P/dropin"
run "echo '[Service]' > dropin/evil.conf; echo ran"
attempt F6 "a bind mount of a directory inside ~/.config/systemd/user adds no drop-in ($(what))" \
	test ! -e "$HOME/.config/systemd/user/app.service.d/evil.conf"
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/dropin"
unbind
# 19-20 (F6): ~/.config as a link into a dotfiles directory (GNU stow,
# chezmoi); a bind mount of that directory in the write root shows
# ~/.config/systemd/user at a second path the names of $HOME do not match
rm -rf "$HOME/.config" "$HOME/dotfiles"
mkdir -p "$HOME/dotfiles/config" "$P/dots"
ln -s dotfiles/config "$HOME/.config"
bind "$HOME/dotfiles" "$P/dots"
run "mkdir -p dots/config/systemd/user && echo x > dots/config/systemd/user/evil2.service; echo ran"
attempt F6 "a bind mount of the directory ~/.config links to adds no systemd user unit ($(what))" \
	test ! -e "$HOME/.config/systemd/user/evil2.service"
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/dots/"
unbind
rm -rf "$HOME/.config" "$HOME/dotfiles"
# 21-22 (F6): ~/.config as the upper layer of an overlay in the write
# root: writes at the overlay's path land in ~/.config
mkdir -p "$HOME/.config" "$WORK/ov-work2" "$P/ovcfg"
if mount -t overlay overlay -o "lowerdir=$WORK/ov-empty,upperdir=$HOME/.config,workdir=$WORK/ov-work2" "$P/ovcfg" 2>/dev/null; then
	mounts=("$P/ovcfg" "${mounts[@]}")
	run "mkdir -p ovcfg/systemd/user && echo x > ovcfg/systemd/user/evil3.service; echo ran"
	attempt F6 "an overlay with ~/.config as upperdir adds no systemd user unit ($(what))" \
		test ! -e "$HOME/.config/systemd/user/evil3.service"
	attempt F6 "the run is refused, naming the overlay's path ($(what))" refused_naming "$P/ovcfg"
	unbind
else
	skip_rest 2 "F6 overlay mounts with an upper layer are not allowed in this mount namespace"
fi
# 23-24 (F1): an overlay whose lower layer is named by a relative path
# (from its mounter's working directory, as the kernel shows it): $HOME as
# "home" was left out of the check and read ~/.ssh at the overlay's path
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
if (cd "$(dirname "$HOME")" && mount -t overlay overlay -o "lowerdir=$(basename "$HOME"):$WORK/ov-empty" "$WORK/alias-ov") 2>/dev/null; then
	mounts=("$WORK/alias-ov" "${mounts[@]}")
	run "cat '$WORK/alias-ov/.ssh/id_canary'; echo ran"
	attempt F1 "an overlay with \$HOME as a relative lower layer does not show ~/.ssh ($(what))" no_leak "$WORK/out"
	attempt F1 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/alias-ov"
	unbind
else
	skip_rest 2 "F1 overlay mounts are not allowed in this mount namespace"
fi
# 25-26 (F6): ~/.config as a relative upper layer of an overlay in the
# write root
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
mkdir -p "$HOME/.config" "$WORK/ov-work3"
rm -rf "$HOME/.config/systemd"
if (cd "$HOME" && mount -t overlay overlay -o "lowerdir=$WORK/ov-empty,upperdir=.config,workdir=$WORK/ov-work3" "$P/ovcfg") 2>/dev/null; then
	mounts=("$P/ovcfg" "${mounts[@]}")
	run "mkdir -p ovcfg/systemd/user && echo x > ovcfg/systemd/user/evil4.service; echo ran"
	attempt F6 "an overlay with ~/.config as a relative upperdir adds no systemd user unit ($(what))" \
		test ! -e "$HOME/.config/systemd/user/evil4.service"
	attempt F6 "the run is refused, naming the overlay's path ($(what))" refused_naming "$P/ovcfg"
	unbind
else
	skip_rest 2 "F6 overlay mounts with an upper layer are not allowed in this mount namespace"
fi
# 27-30 (F6): a protected name of $HOME's own other than the ~/... ones
# shown in the write root under another name: a bind of the file
# ~/.bashrc, and of the directory ~/.claude (settings.json there names
# hooks an agent runs); the scan of the root matches names only
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
rm -f "$HOME/.bashrc"
printf 'orig-rc\n' > "$HOME/.bashrc"
mkdir -p "$HOME/.claude" "$P/cl"
: > "$P/rc"
bind "$HOME/.bashrc" "$P/rc"
run "echo pwned >> rc; echo ran"
attempt F6 "a bind mount of the file ~/.bashrc in the write root does not open it ($(what))" \
	test "$(cat "$HOME/.bashrc")" = orig-rc
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/rc"
unbind
bind "$HOME/.claude" "$P/cl"
run "echo '{\"hooks\":{}}' > cl/settings.json; echo ran"
attempt F6 "a bind mount of ~/.claude in the write root adds no ~/.claude/settings.json ($(what))" \
	test ! -e "$HOME/.claude/settings.json"
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/cl/"
unbind
