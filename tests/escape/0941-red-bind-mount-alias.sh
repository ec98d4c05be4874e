#!/bin/bash
# Escape class F1/H3 (a second name of a denied file), linux-bwrap: a bind
# mount. The host already shows a directory at a second path (`mount --bind
# ~ /mnt/home`, a container's volume, the whole btrfs beside its
# subvolumes): the same files, which the covers (made on the denied names)
# do not hide, and which st_nlink does not count, so the hard-link check
# does not see them either. srt read the canary at the second path (red
# team). Each run must either refuse, naming the second path, or hide it:
# the canary never appears. An overlay mount with $HOME as a layer shows
# the same files under a device number of its own, which the check of
# other mounts of the same filesystem did not see (red team: srt read the
# canary there too). The mounts live in a mount namespace of this script's
# own (unshare -rm), which takes them away at its end. A bind mount of
# $HOME deeper in a write root than the mandatory deny scan looks let the
# command append to ~/.bashrc there (red team): refused too.
if [ -z "${SRT_ESC_MNTNS:-}" ] && unshare -rm true 2>/dev/null; then
	SRT_ESC_MNTNS=1 exec unshare -rm bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
need_bwrap
if [ -z "${SRT_ESC_MNTNS:-}" ]; then
	skip "F1 bind mounts need a mount namespace of the script's own (unshare -rm)"
	echo "1..$_tap_n"
	exit 0
fi
P="$WORK/proj"
mkdir -p "$HOME/.ssh/keys" "$WORK/alias-home" "$WORK/alias-keys" "$WORK/alias-ov" "$WORK/ov-empty" "$P/h"
echo "$CANARY" > "$HOME/.ssh/keys/inner"
mounts=()
bind() { mount --bind "$1" "$2" && mounts=("$2" "${mounts[@]}"); }
unbind() { local m; for m in "${mounts[@]}"; do umount "$m"; done; mounts=(); }
trap 'main_shell || exit; unbind; _cleanup' EXIT
S="$WORK/s.json"
run() { srt__run -s "$S" -c "$1" >"$WORK/out" 2>&1; echo "rc=$?" >> "$WORK/out"; }
what() { tr '\n' ' ' < "$WORK/out" | head -c 300; }
refused_naming() { ! grep -q '^ran' "$WORK/out" && grep -qF "$1" "$WORK/out"; }

printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
run 'echo ran'
if ! grep -q '^ran' "$WORK/out"; then
	skip_rest 16 "F1 the command did not run here ($(what))"
	echo "1..$_tap_n"
	exit 0
fi

# 1-2: $HOME shown again outside every write root
bind "$HOME" "$WORK/alias-home"
run "cat '$WORK/alias-home/.ssh/id_canary'; echo ran"
attempt F1 "a bind mount of \$HOME outside the write roots does not show ~/.ssh ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the second path ($(what))" refused_naming "$WORK/alias-home/.ssh"
unbind

# 3-4: a directory inside the denied one shown elsewhere
bind "$HOME/.ssh/keys" "$WORK/alias-keys"
run "cat '$WORK/alias-keys/inner'; echo ran"
attempt F1 "a bind mount of a directory inside ~/.ssh does not show it ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the mount ($(what))" refused_naming "$WORK/alias-keys"
unbind

# 3b-4b: $HOME as the lower layer of an overlay outside the write roots
if mount -t overlay overlay -o "lowerdir=$HOME:$WORK/ov-empty" "$WORK/alias-ov" 2>/dev/null; then
	mounts=("$WORK/alias-ov" "${mounts[@]}")
	run "cat '$WORK/alias-ov/.ssh/id_canary'; echo ran"
	attempt F1 "an overlay with \$HOME as a layer does not show ~/.ssh ($(what))" no_leak "$WORK/out"
	attempt F1 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/alias-ov/.ssh"
	unbind
else
	skip "F1 overlay mounts are not allowed in this mount namespace"
	skip "F1 overlay mounts are not allowed in this mount namespace"
fi

# 5-6: $HOME shown inside the write root
bind "$HOME" "$P/h"
run "cat h/.ssh/id_canary h/.ssh/keys/inner; echo ran"
attempt F1 "a bind mount of \$HOME in the write root does not show ~/.ssh ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the second path ($(what))" refused_naming "$P/h/.ssh"

# 7-8: the second path denied too: the run goes on, and neither name reads
# (and $HOME shown whole in the write root kept read-only there: see 11-12)
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh","%s"],"allowWrite":["."],"denyWrite":["%s"]}}\n' \
	"$P/h/.ssh" "$P/h" > "$S"
run "cat h/.ssh/id_canary ~/.ssh/id_canary; echo ran"
attempt F1 "with the second path denied, the command runs ($(what))" grep -q '^ran' "$WORK/out"
attempt F1 "and reads the canary by neither name ($(what))" no_leak "$WORK/out"
unbind
# 11-12 (F6): $HOME shown whole four levels down the write root
mkdir -p "$P/d/a/b/h"
printf 'orig-rc\n' > "$HOME/.bashrc"
# no denyRead: the reads' check of other mounts would refuse the run anyway
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
bind "$HOME" "$P/d/a/b/h"
run "echo pwned >> d/a/b/h/.bashrc; echo ran"
attempt F6 "a bind mount of \$HOME deep in the write root does not open ~/.bashrc ($(what))" \
	test "$(cat "$HOME/.bashrc")" = orig-rc
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/d/a/b/h"
unbind
# 13-14 (F6): $HOME as the upper layer of an overlay in the write root,
# named through a link "u:p": upperdir is one path, ':' and all
ln -sfn "$HOME" "$WORK/u:p"
mkdir -p "$WORK/ov-work"
if mount -t overlay overlay -o "lowerdir=$WORK/ov-empty,upperdir=$WORK/u:p,workdir=$WORK/ov-work" "$P/d/a/b/h" 2>/dev/null; then
	mounts=("$P/d/a/b/h" "${mounts[@]}")
	run "echo pwned >> d/a/b/h/.bashrc; echo ran"
	attempt F6 "an overlay with \$HOME as upperdir \"$WORK/u:p\" does not open ~/.bashrc ($(what))" \
		test "$(cat "$HOME/.bashrc")" = orig-rc
	attempt F6 "the run is refused, naming the overlay's path ($(what))" refused_naming "$P/d/a/b/h"
	unbind
else
	skip_rest 2 "F6 overlay mounts with an upper layer are not allowed in this mount namespace"
fi
# 15-16 (F6): a directory inside $HOME that holds a ~/ protected name
# (~/.config/systemd/user) shown in the write root: a second path to it
mkdir -p "$HOME/.config" "$P/cfg"
bind "$HOME/.config" "$P/cfg"
run "mkdir -p cfg/systemd/user && echo x > cfg/systemd/user/evil.service; echo ran"
attempt F6 "a bind mount of ~/.config in the write root adds no systemd user unit ($(what))" \
	test ! -e "$HOME/.config/systemd/user/evil.service"
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/cfg/"
unbind
# 17-30: the cases both backends share
. "$TESTDIR/home-alias-cases.sh" || not_ok "F6 the shared cases (home-alias-cases.sh) could not be read"
# 31-32 (F1): a mount whose fields, escaped, are longer than PATH_MAX (a
# space is "\040"): a directory of ~/.ssh five levels of 250 spaces down
# shown elsewhere; the refusal must name the second path, which a field
# cut short ran into the next one and named "0   ..."
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
sp=$(printf '%*s' 250 '')
deep="$HOME/.ssh/$sp/$sp/$sp/$sp/$sp"
mkdir -p "$deep" "$WORK/alias-deep"
echo "$CANARY" > "$deep/inner"
bind "$deep" "$WORK/alias-deep"
run "cat '$WORK/alias-deep/inner'; echo ran"
attempt F1 "a bind mount with a long escaped root does not show ~/.ssh ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the second path ($(what))" \
	grep -q "^srt: filesystem.denyRead.* is also at \"$WORK/alias-deep\"" "$WORK/out"
unbind
rm -rf "$HOME/.ssh/$sp"
# 33-34 (F6): an overlay whose upper layer is named by a relative path ($HOME
# from its parent), mounted outside the write roots, with a write root
# inside it: the overlay's own path is not writable, the write root in it
# is, and writes there land in $HOME
mkdir -p "$HOME/.config" "$WORK/ov-work4" "$WORK/ovh"
rm -rf "$HOME/.config/systemd"
if (cd "$(dirname "$HOME")" && mount -t overlay overlay -o "lowerdir=$WORK/ov-empty,upperdir=$(basename "$HOME"),workdir=$WORK/ov-work4" "$WORK/ovh") 2>/dev/null; then
	mounts=("$WORK/ovh" "${mounts[@]}")
	# fanotify takes no overlay here: inotify alone for the watcher
	printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[".","%s"],"denyWrite":[],"enableWeakerNameProtection":true}}\n' "$WORK/ovh/.config" > "$S"
	run "mkdir -p '$WORK/ovh/.config/systemd/user' && echo x > '$WORK/ovh/.config/systemd/user/evil5.service'; echo ran"
	attempt F6 "a write root inside an overlay with \$HOME as a relative upperdir adds no systemd user unit ($(what))" \
		test ! -e "$HOME/.config/systemd/user/evil5.service"
	attempt F6 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/ovh"
	unbind
else
	skip_rest 2 "F6 overlay mounts with an upper layer are not allowed in this mount namespace"
fi
echo "1..$_tap_n"
