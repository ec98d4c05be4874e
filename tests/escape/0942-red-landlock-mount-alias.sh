#!/bin/bash
# Escape class F1 (a second name of a denied file), linux-landlock: a bind
# mount. Landlock attaches a rule to the inode of the path it names, and
# the plan grants the entries beside a denied path one by one on its way to
# it. When one of them is a bind mount of $HOME (`mount --bind ~ /mnt/home`,
# a container's volume), that grant is on $HOME's own inode and reaches
# ~/.ssh under its own name: srt read the canary at ~/.ssh/id_canary (red
# team). A grant above a second path reaches the files there too. Each run
# must refuse, naming the second path, or hide the file by both names. An
# overlay with $HOME as its lower layer read ~/.ssh at its own path. The
# mounts live in a mount namespace of this script's own (unshare -rm).
if [ -z "${SRT_ESC_MNTNS:-}" ] && unshare -rm true 2>/dev/null; then
	SRT_ESC_MNTNS=1 exec unshare -rm bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
LL=$BACKEND_LL
if [ -z "${SRT_ESC_MNTNS:-}" ]; then
	skip_rest 30 "F1 bind mounts need a mount namespace of the script's own (unshare -rm)"
	echo "1..$_tap_n"
	exit 0
fi
P="$WORK/proj"
mkdir -p "$HOME/.ssh/keys" "$WORK/alias-home" "$WORK/alias-keys" "$WORK/alias-ov" "$WORK/ov-empty" "$P"
echo "$CANARY" > "$HOME/.ssh/keys/inner"
cd "$P" || exit 1
mounts=()
bind() { mount --bind "$1" "$2" && mounts=("$2" "${mounts[@]}"); }
unbind() { local m; for m in "${mounts[@]}"; do umount "$m"; done; mounts=(); }
trap 'main_shell || exit; unbind; _cleanup' EXIT
S="$WORK/s.json"
run() { timeout -k 5 60 "$SRT" --backend="$LL" -s "$S" -c "$1" >"$WORK/out" 2>&1; echo "rc=$?" >> "$WORK/out"; }
what() { tr '\n' ' ' < "$WORK/out" | head -c 300; }
refused_naming() { ! grep -q '^ran' "$WORK/out" && grep -qF "$1" "$WORK/out"; }

printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
run 'echo ran'
if ! grep -q '^ran' "$WORK/out"; then
	skip_rest 30 "F1 linux-landlock did not run here ($(what))"
	echo "1..$_tap_n"
	exit 0
fi

# 1-2: $HOME shown again beside the path to ~/.ssh: by its own name
bind "$HOME" "$WORK/alias-home"
run "cat ~/.ssh/id_canary ~/.ssh/keys/inner; echo ran"
attempt F1 "a bind mount of \$HOME does not open ~/.ssh by its own name ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the second path ($(what))" refused_naming "$WORK/alias-home/.ssh"
# 3: and at the second path
run "cat '$WORK/alias-home/.ssh/id_canary'; echo ran"
attempt F1 "nor at the second path ($(what))" no_leak "$WORK/out"
unbind

# 4-5: a directory inside ~/.ssh shown elsewhere
bind "$HOME/.ssh/keys" "$WORK/alias-keys"
run "cat ~/.ssh/keys/inner '$WORK/alias-keys/inner'; echo ran"
attempt F1 "a bind mount of a directory inside ~/.ssh shows it by neither name ($(what))" no_leak "$WORK/out"
attempt F1 "the run is refused, naming the mount ($(what))" refused_naming "$WORK/alias-keys"
unbind

# 6-7: an overlay with $HOME as a layer
if mount -t overlay overlay -o "lowerdir=$HOME:$WORK/ov-empty" "$WORK/alias-ov" 2>/dev/null; then
	mounts=("$WORK/alias-ov" "${mounts[@]}")
	run "cat '$WORK/alias-ov/.ssh/id_canary'; echo ran"
	attempt F1 "an overlay with \$HOME as a layer does not show ~/.ssh ($(what))" no_leak "$WORK/out"
	attempt F1 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/alias-ov/.ssh"
	unbind
else
	skip_rest 2 "F1 overlay mounts are not allowed in this mount namespace"
fi

# 8-11: the overlay's layer spelled as its mounter wrote it: the kernel
# shows lowerdir's words as given, so "$HOME/" and a link to $HOME name
# $HOME too (red team: both read ~/.ssh at the overlay's path)
ln -sfn "$HOME" "$WORK/home-link"
for spelling in "$HOME/" "$WORK/home-link"; do
	if mount -t overlay overlay -o "lowerdir=$spelling:$WORK/ov-empty" "$WORK/alias-ov" 2>/dev/null; then
		mounts=("$WORK/alias-ov" "${mounts[@]}")
		run "cat '$WORK/alias-ov/.ssh/id_canary'; echo ran"
		attempt F1 "an overlay with \$HOME as layer \"$spelling\" does not show ~/.ssh ($(what))" no_leak "$WORK/out"
		attempt F1 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/alias-ov/.ssh"
		unbind
	else
		skip_rest 2 "F1 overlay mounts are not allowed in this mount namespace"
	fi
done

# 12-13: a lowerdir+ word is one path, ':' and all (the kernel shows it
# so): a link "x:y" to $HOME read as the layers "x" and "y" hid $HOME
ln -sfn "$HOME" "$WORK/x:y"
if mount -t overlay overlay -o "lowerdir+=$WORK/x:y,lowerdir+=$WORK/ov-empty" "$WORK/alias-ov" 2>/dev/null; then
	mounts=("$WORK/alias-ov" "${mounts[@]}")
	run "cat '$WORK/alias-ov/.ssh/id_canary'; echo ran"
	attempt F1 "an overlay with \$HOME as layer lowerdir+=\"$WORK/x:y\" does not show ~/.ssh ($(what))" no_leak "$WORK/out"
	attempt F1 "the run is refused, naming the overlay's path ($(what))" refused_naming "$WORK/alias-ov/.ssh"
	unbind
else
	skip_rest 2 "F1 this mount(8) or kernel takes no lowerdir+ option"
fi

# 14: the second path denied too: the run goes on, and neither name reads
bind "$HOME" "$WORK/alias-home"
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh","%s"],"allowWrite":["."],"denyWrite":[]}}\n' \
	"$WORK/alias-home/.ssh" > "$S"
run "cat ~/.ssh/id_canary '$WORK/alias-home/.ssh/id_canary'; echo ran"
attempt F1 "with the second path denied, the command runs and reads the canary by neither name ($(what))" \
	sh -c "grep -q '^ran' '$WORK/out' && ! grep -q '$CANARY' '$WORK/out'"
unbind
# 15-16 (F6): a directory inside $HOME that holds a ~/ protected name
# (~/.config/systemd/user) shown in the write root: the write supervisor
# matches those names below $HOME only
mkdir -p "$HOME/.config" "$P/cfg"
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}\n' > "$S"
bind "$HOME/.config" "$P/cfg"
run "mkdir -p cfg/systemd/user && echo x > cfg/systemd/user/evil.service; echo ran"
attempt F6 "a bind mount of ~/.config in the write root adds no systemd user unit ($(what))" \
	test ! -e "$HOME/.config/systemd/user/evil.service"
attempt F6 "the run is refused, naming the second path ($(what))" refused_naming "$P/cfg/"
unbind
# 17-30: the cases both backends share
. "$TESTDIR/home-alias-cases.sh" || not_ok "F6 the shared cases (home-alias-cases.sh) could not be read"
echo "1..$_tap_n"
