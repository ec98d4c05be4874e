#!/bin/bash
# Red team on 952b74f (read-only review): a symbolic link in a directory
# this user owns but has made read-only passed the "could a sandboxed run
# have planted it" check, which asked only whether the directory was
# writable now. Run A (allowWrite ".") makes d, plants d/out -> ~/outside
# and drops d's write bit; run B, with allowWrite ["./d/out"], then wrote
# into ~/outside (the mount plan, the Landlock grants and the linux-landlock
# supervisor asked alike). The owner of a directory may make it writable
# again whenever, so a link there counts as planted now, and such a rule is
# left out. Root can write every directory, so as root the link was always
# refused: the route is the unprivileged user's (the user pass).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
A=$(fsjson plant '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
B=$(fsjson use '{"denyRead":["~/.ssh"],"allowWrite":["./d/out"],"denyWrite":[]}')
LL=$BACKEND_LL
backends="bwrap:$BACKEND"
if [ -e "$LL" ] && timeout -k 5 30 "$SRT" --backend="$LL" -s "$A" -c true >/dev/null 2>"$WORK/ll.err"; then
	backends="$backends landlock:$LL"
else
	diag "linux-landlock cannot run here ($(head -1 "$WORK/ll.err" 2>/dev/null)): its case is skipped"
	skip "linux-landlock cannot run here"
fi
[ "$(id -u)" = 0 ] && diag "as root every directory is writable: the link was refused before the fix too"

# control: the settings of run B, with d/out a real directory, do let B write
mkdir -p d/out
timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$B" -c "echo x > d/out/ctl && echo wrote" > "$WORK/ctl.out" 2>&1
diag "control: $(tr '\n' ' ' < "$WORK/ctl.out" | cut -c1-300)"
attempt F12 "control: with d/out a directory, run B writes there" test -f d/out/ctl
rm -rf d

for b in $backends; do
	name=${b%%:*} be=${b#*:}
	rm -f "$HOME/outside/planted-$name"
	chmod -R u+w d 2>/dev/null
	rm -rf d
	timeout -k 5 30 "$SRT" --backend="$be" -s "$A" \
		-c "mkdir d && ln -s '$HOME/outside' d/out && chmod 555 d && echo planted" > "$WORK/a.out" 2>&1
	diag "$name, run A: $(tr '\n' ' ' < "$WORK/a.out" | cut -c1-300)"
	timeout -k 5 30 "$SRT" --backend="$be" -s "$B" \
		-c "echo escaped > d/out/planted-$name; echo done" > "$WORK/b.out" 2>&1
	diag "$name, run B: $(tr '\n' ' ' < "$WORK/b.out" | cut -c1-300)"
	attempt F12 "$name: a write root through a link in a read-only directory a run made writes nothing outside" \
		test ! -e "$HOME/outside/planted-$name"
	attempt F12 "$name: run A did plant the link (else the check above proves nothing)" \
		sh -c "test -L d/out && ! test -w d || test \"\$(id -u)\" = 0"
	rm -f "$HOME/outside/planted-$name"
	chmod u+w d 2>/dev/null
	rm -rf d
done
echo "1..$_tap_n"
