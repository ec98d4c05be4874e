#!/bin/bash
# linux-landlock, filesystem: denied reads (F1), writes outside and inside
# the write roots, denyWrite inside a root, the mandatory denies, truncate,
# rename and symlink tricks. Every case asserts on the host afterwards.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/landlock-lib.sh"

plan 40

S=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":["./locked"]}}')
P="$WORK/proj"
mkdir -p "$P/out" "$P/locked" "$P/sub"
echo keep > "$P/locked/file"
echo orig-rc > "$P/.bashrc"
echo nested-rc > "$P/sub/.bashrc"
echo before > "$P/out/existing"

ll_alive 40 ll_run "$S"
check "a command runs under linux-landlock" test "$out" = alive

# F1: the canary under a denied directory
out=$(ll_run -s "$S" -c 'cat ~/.ssh/id_canary' 2>/dev/null); rc=$?
check "F1 denied read: canary not printed" test "$rc" != 0 -a "${out#*CANARY}" = "$out"
out=$(ll_run -s "$S" -c "cat $WORK/home/./.ssh/../.ssh/id_canary; cat /proc/self/root$HOME/.ssh/id_canary" 2>/dev/null)
check "F1 other spellings and /proc/self/root: canary not printed" test "${out#*CANARY}" = "$out"
ll_run -s "$S" -c 'ln -s ~/.ssh out/l && cat out/l/id_canary' >"$WORK/o" 2>/dev/null
check "F1 through a symlink made in a write root: canary not printed" test "$(grep -c CANARY "$WORK/o")" = 0
ll_run -s "$S" -c 'ln ~/.ssh/id_canary out/hl' 2>/dev/null
check "F1 a hard link of the canary cannot be made" test ! -e "$P/out/hl"
out=$(ll_run -s "$S" -c 'ls ~/.ssh' 2>/dev/null); rc=$?
check "F1 the denied directory cannot be listed" test "$rc" != 0 -a -z "$out"
out=$(ll_run -s "$S" -c 'cat /etc/hostname >/dev/null && echo readable' 2>/dev/null)
check "reads elsewhere still work" test "$out" = readable

# writes outside the roots
ll_run -s "$S" -c "echo x > $WORK/outside" 2>/dev/null
check "write outside the write roots: nothing on the host" test ! -e "$WORK/outside"
ll_run -s "$S" -c "echo x > $HOME/dropped; mkdir $HOME/d" 2>/dev/null
check "write into \$HOME (not a root): nothing on the host" test ! -e "$HOME/dropped" -a ! -e "$HOME/d"

# writes inside the roots land on the host
ll_run -s "$S" -c 'echo data > out/new && echo more >> out/existing && mkdir out/dir && echo y > out/dir/f' 2>"$WORK/err"
check "write inside a root lands on the host" test "$(cat "$P/out/new" 2>/dev/null)" = data
check "append inside a root lands on the host" test "$(tail -1 "$P/out/existing" 2>/dev/null)" = more
check "new directories inside a root work" test "$(cat "$P/out/dir/f" 2>/dev/null)" = y
ll_run -s "$S" -c 'mv out/new out/dir/moved && rm out/existing' 2>/dev/null
check "rename and remove inside a root" test -e "$P/out/dir/moved" -a ! -e "$P/out/existing"

# denyWrite inside the root
ll_run -s "$S" -c 'echo evil > locked/file; echo evil >> locked/file; rm -f locked/file; touch locked/new' 2>/dev/null
check "denyWrite inside a root: file unchanged" test "$(cat "$P/locked/file")" = keep
check "denyWrite inside a root: nothing created" test ! -e "$P/locked/new"
ll_run -s "$S" -c 'mv locked out/stolen; mv locked/file out/f2' 2>/dev/null
check "denyWrite inside a root: cannot be moved away" test -d "$P/locked" -a ! -e "$P/out/stolen" -a ! -e "$P/out/f2"
ll_run -s "$S" -c 'truncate -s 0 locked/file' 2>/dev/null
check "denyWrite: truncate(2) refused" test "$(cat "$P/locked/file")" = keep
if [ -x "$PY" ]; then
	ll_run -s "$S" -c "$PY -c 'import os; os.open(\"locked/file\", os.O_RDONLY | os.O_TRUNC)'" 2>/dev/null
	check "denyWrite: open(O_RDONLY|O_TRUNC) refused" test "$(cat "$P/locked/file")" = keep
else
	skip "no $PY"
fi

# metadata Landlock cannot see: ownership and extended attributes (ACLs)
echo meta > "$HOME/meta"
if [ -x "$PY" ] && "$PY" -c "import os; os.setxattr('$HOME/meta', 'user.ctl', b'1'); os.removexattr('$HOME/meta', 'user.ctl')" 2>/dev/null; then
	ll_run -s "$S" -c "$PY -c 'import os; os.setxattr(\"$HOME/meta\", \"user.x\", b\"evil\")'" 2>/dev/null
	check "setxattr outside the write roots leaves no attribute on the host" \
		"$PY" -c "import os, sys; sys.exit('user.x' in os.listxattr('$HOME/meta'))"
else
	skip "no user xattrs on this filesystem"
fi
out=$(ll_run -s "$S" -c "$PY -c 'import os; os.chown(\"$HOME/meta\", os.getuid(), os.getgid())' 2>&1 || echo refused" 2>/dev/null)
check "chown outside the write roots is refused" grep -q refused <<<"$out"

chmod 644 "$HOME/meta"
ll_run -s "$S" -c "chmod 4755 $HOME/meta; chmod o+w $HOME/meta; chmod g+w $HOME/meta" 2>/dev/null
check "chmod to set-id or group/other-writable modes outside the roots refused" \
	test "$(stat -c %a "$HOME/meta")" = 644
ll_run -s "$S" -c 'touch out/tool && chmod 755 out/tool' 2>/dev/null
check "plain chmod inside a root still works (tools need it)" test "$(stat -c %a "$P/out/tool" 2>/dev/null)" = 755

# mandatory denies
ll_run -s "$S" -c 'echo evil >> .bashrc; echo evil > sub/.bashrc' 2>/dev/null
check "mandatory: .bashrc in the working directory unchanged" test "$(cat "$P/.bashrc")" = orig-rc
check "mandatory: a nested .bashrc unchanged" test "$(cat "$P/sub/.bashrc")" = nested-rc
ll_run -s "$S" -c 'rm -f .bashrc; mv .bashrc out/rc' 2>/dev/null
check "mandatory: .bashrc cannot be removed or moved" test "$(cat "$P/.bashrc" 2>/dev/null)" = orig-rc -a ! -e "$P/out/rc"
ll_run -s "$S" -c 'echo x > .zshrc; mkdir -p .git/hooks; echo x > .gitconfig' 2>/dev/null
# (a .git made here is a new repository: the repository guard's, as under
# linux-bwrap; the write supervisor no longer keeps the top read-only)
check "mandatory: absent .zshrc, .gitconfig are not created" \
	test ! -e "$P/.zshrc" -a ! -e "$P/.gitconfig"

# the settings file itself
ll_run -s "$S" -c "echo '{}' > $S" 2>/dev/null
check "the settings file stays unchanged" grep -q denyRead "$S"

# a regular file srt's caller gave as stdout can be reopened as /dev/stdout
ll_run -s "$S" -c 'echo via-dev-stdout > /dev/stdout' > "$WORK/stdout.txt" 2>/dev/null
check "/dev/stdout reopens the caller's output file" test "$(cat "$WORK/stdout.txt")" = via-dev-stdout

# exit status and the plan
ll_run -s "$S" -c 'exit 7' 2>/dev/null; rc=$?
check "the command's exit status is srt's" test "$rc" = 7
out=$(ll_run -s "$S" --explain -c "touch $WORK/explained" 2>&1)
check "--explain prints the rule plan and runs nothing" \
	test ! -e "$WORK/explained" -a "${out#*rule }" != "$out" -a "${out#*plan-fd}" != "$out"
mkdir -p "$HOME/keys"
echo "KEY-$CANARY" > "$HOME/keys/a.key"
echo public > "$HOME/keys/b.txt"
G=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/keys/*.key"],"allowWrite":["."],"denyWrite":[]}}')
out=$(ll_run -s "$G" -c 'cat ~/keys/a.key; cat ~/keys/b.txt' 2>/dev/null)
check "a denyRead glob is expanded: the match is denied, the rest readable" \
	test "${out#*CANARY}" = "$out" -a "${out#*public}" != "$out"
ln "$HOME/keys/b.txt" "$P/out/b-link"
H=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/keys/b.txt"],"allowWrite":["."],"denyWrite":[]}}')
ll_run -s "$H" -c "touch $P/out/refused" 2>"$WORK/err"; rc=$?
check "a rule Landlock cannot express (denied file with two links) is refused before the command runs" \
	test "$rc" = 1 -a ! -e "$P/out/refused"
check "the refusal names the entry" grep -q 'filesystem.denyRead\[0\]' "$WORK/err"

# Doors linux-bwrap keeps shut. A link planted in a write root (by an earlier
# run) does not carry an allowWrite elsewhere:
mkdir -p "$WORK/victim" "$P/sub"
echo keys > "$WORK/victim/authorized_keys"
ln -sfn "$WORK/victim" "$P/sub/build"
V=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[".","./sub/build"],"denyWrite":[]}}')
ll_run -s "$V" -c "echo PWN >> $WORK/victim/authorized_keys" 2>"$WORK/err"
check "an allowWrite through a planted link is not followed" test "$(cat "$WORK/victim/authorized_keys")" = keys
check "and it is said on stderr" grep -q "allowWrite\[1\] .*is not applied: it goes through a symbolic link" "$WORK/err"
rm -f "$P/sub/build"
# the host's other terminals are out of reach (a pty the host holds)
$PY -c 'import os,pty,sys,time
m,s=pty.openpty(); open(sys.argv[1],"w").write(os.ttyname(s)); time.sleep(15)' "$WORK/ptyname" &
ptyp=$!
for i in $(seq 50); do [ -s "$WORK/ptyname" ] && break; sleep 0.1; done
PTY=$(cat "$WORK/ptyname" 2>/dev/null)
if [ -n "$PTY" ] && [ -e "$PTY" ]; then
	out=$(ll_run -s "$S" -c "echo INJECT > $PTY && echo wrote" </dev/null 2>/dev/null)
	check "another terminal of this user cannot be written ($PTY)" test -z "$out"
else
	skip "no pty could be made on the host"
fi
kill $ptyp 2>/dev/null; wait $ptyp 2>/dev/null
# a writable $HOME gains no startup file
mkdir -p "$WORK/hh/me"
HW=$(settings "{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\",\"$WORK/hh\"],\"denyWrite\":[]}}")
echo before > "$WORK/hh/other"
echo before > "$WORK/hh/me/notes"
HOME="$WORK/hh/me" ll_run -s "$HW" -c 'echo x > ~/.zshenv; echo x > ~/.bash_login; echo ok > ~/../other; echo ok > ~/notes' 2>/dev/null
check "a writable \$HOME gains no startup file" test ! -e "$WORK/hh/me/.zshenv" -a ! -e "$WORK/hh/me/.bash_login"
check "what that write root holds stays writable" \
	test "$(cat "$WORK/hh/other" 2>/dev/null)" = ok -a "$(cat "$WORK/hh/me/notes" 2>/dev/null)" = ok

# no pid namespace here: what the command leaves running is ended with it
tag="srt-ll-orphan-$$-$RANDOM"
ll_run -s "$S" -c "setsid bash -c 'exec -a $tag-a sleep 300' & (bash -c 'exec -a $tag-b sleep 300' &); bash -c 'exec -a $tag-c sleep 300' & disown; echo started" >/dev/null 2>&1; rc=$?
sleep 0.3
left=$(pgrep -f "$tag" | wc -l)
check "a daemon, a double fork and a disowned job do not outlive srt ($left left)" test "$left" = 0
check "and the command's own exit status is srt's (rc=$rc)" test "$rc" = 0
pkill -KILL -f "$tag" 2>/dev/null || true
