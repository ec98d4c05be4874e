#!/bin/bash
# Escape class: writing where the policy says no: masked directories, mandatory-deny files, outside files through
# links, metadata changes (mode, times, xattrs), the rest of the host tree.
# Asserted on the host: a snapshot of everything outside the write root is
# identical afterwards, and each named target is untouched.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
echo keep > "$HOME/outside/existing"
chmod 644 "$HOME/outside/existing"
touch -d '2001-02-03 04:05:06' "$HOME/outside/existing"
echo rc-orig > "$HOME/.bashrc"
outside_before=$(snapshot "$HOME"; snapshot "$WORK" | grep -v '^\./proj')
etc_before=$(md5sum /etc/passwd /etc/hosts 2>/dev/null)
stamp="srt-esc-$$-$RANDOM"

# F4: a masked directory is not a writable tmpfs, whatever the route
srt__run -s "$S" -c "
	echo x > ~/.ssh/probe; mkdir ~/.ssh/d; echo x > /proc/self/root$HOME/.ssh/probe2
	chmod 700 ~/.ssh 2>/dev/null; echo x > ~/.ssh/after-chmod
	/usr/bin/python3 -c 'import os; os.open(os.path.expanduser(\"~/.ssh/py\"), os.O_CREAT|os.O_WRONLY, 0o600)'
	echo x > ~/.aws/credentials; : > ~/.aws/credentials
	ls -la ~/.ssh > ssh-listing 2>&1; true" >/dev/null 2>&1
attempt F4 "nothing was created in the masked directory (host)" \
	test "$(ls -A "$HOME/.ssh")" = id_canary
attempt F4 "a write into a masked directory did not succeed even invisibly" \
	sh -c "! grep -qE 'probe|after-chmod|py\$' '$P/ssh-listing'"
attempt F4 "~/.aws/credentials unchanged" test "$(cat "$HOME/.aws/credentials")" = "CANARY-AWS-$$"

# F11/F12: links planted on the host, and links made inside
ln -s "$HOME/.bashrc" "$P/l-bashrc"
ln -s "$HOME/outside/existing" "$P/l-existing"
ln -s "$HOME/outside/new" "$P/l-dangling"
ln -s "$HOME/outside" "$P/l-dir"
ln -s /etc/passwd "$P/l-passwd"
srt__run -s "$S" -c "
	echo x >> l-bashrc; echo x > l-existing; echo x > l-dangling; echo x > l-dir/new2
	echo x >> l-passwd; cp /etc/hostname l-dir/
	ln -s ~/outside/new3 in-dangling && echo x > in-dangling
	ln -s ~/outside in-dir && echo x > in-dir/new4
	ln -s ~/outside \"\$TMPDIR/$stamp\" && echo x > \"\$TMPDIR/$stamp/new5\"; rm -f \"\$TMPDIR/$stamp\"
	/usr/bin/python3 -c 'import os; os.symlink(os.path.expanduser(\"~/outside/new6\"), \"py-l\"); open(\"py-l\", \"w\").write(\"x\")'
	true" >/dev/null 2>&1
attempt F11 "~/.bashrc unchanged through a planted link" test "$(cat "$HOME/.bashrc")" = rc-orig
attempt F11 "an existing outside file unchanged through a planted link" \
	test "$(cat "$HOME/outside/existing")" = keep
attempt F11 "/etc/passwd unchanged through a planted link" test "$(md5sum /etc/passwd /etc/hosts 2>/dev/null)" = "$etc_before"
attempt F12 "dangling planted link: target not created" test ! -e "$HOME/outside/new"
attempt F12 "directory link: nothing created through it" test ! -e "$HOME/outside/new2" -a ! -e "$HOME/outside/hostname"
attempt F12 "links made inside (shell, TMPDIR, python): no target created" \
	test ! -e "$HOME/outside/new3" -a ! -e "$HOME/outside/new4" -a ! -e "$HOME/outside/new5" -a ! -e "$HOME/outside/new6"

# metadata is a write too: mode, owner, times, xattrs, truncation
srt__run -s "$S" -c "
	f=~/outside/existing
	chmod 777 \$f; touch \$f; touch -d 2020-01-01 \$f; truncate -s 0 \$f; chown 0:0 \$f
	/usr/bin/python3 -c 'import os; os.setxattr(os.path.expanduser(\"~/outside/existing\"), \"user.pwn\", b\"1\")'
	/usr/bin/python3 -c 'import os; os.utime(os.path.expanduser(\"~/outside/existing\"), (0, 0))'
	true" >/dev/null 2>&1
attempt F11 "outside file: mode, times, size, owner unchanged" \
	test "$(stat -c '%a %Y %s %u' "$HOME/outside/existing")" = "644 $(date -d '2001-02-03 04:05:06' +%s) 5 $(id -u)"
if command -v getfattr >/dev/null 2>&1; then
	attempt F11 "outside file: no xattr added" sh -c "! getfattr -n user.pwn '$HOME/outside/existing' 2>/dev/null | grep -q pwn"
else
	attempt F11 "outside file: no xattr added" "$PY" -c "import os,sys; sys.exit('user.pwn' in os.listxattr('$HOME/outside/existing'))"
fi

# the rest of the host: system directories, other temp dirs, shm, /run
srt__run -s "$S" -c "
	for d in /etc /usr/bin /var/tmp /tmp /dev/shm /run /opt /root /home /srv /mnt \"\$(dirname \"$P\")\"; do
		echo x > \$d/$stamp; mkdir \$d/$stamp.d
	done 2>/dev/null; true" >/dev/null 2>&1
left=
for d in /etc /usr/bin /var/tmp /tmp /dev/shm /run /opt /root /home /srv /mnt "$WORK"; do
	[ -e "$d/$stamp" ] || [ -e "$d/$stamp.d" ] && left="$left $d"
	rm -rf "${d:?}/$stamp" "${d:?}/$stamp.d" 2>/dev/null
done
attempt F4 "no marker created in any system or temp directory${left:+ (in$left)}" test -z "$left"

# (the F6 runs below write to ~ on purpose: compare before them)
after=$(snapshot "$HOME"; snapshot "$WORK" | grep -v '^\./proj')
attempt F4 "everything outside the write root is exactly as before" test "$outside_before" = "$after"
[ "$outside_before" = "$after" ] || diff <(echo "$outside_before") <(echo "$after") | head -20 | sed 's/^/# /'

# F6: allowWrite ~ and run from ~/proj: rc files and hooks by every route
mkdir -p "$HOME/proj/a/.git"
echo "[core]" > "$HOME/proj/a/.git/config"
F6=$(fsjson f6 '{"denyRead":["~/.ssh"],"allowWrite":["~"],"denyWrite":[]}')
(cd "$HOME/proj" && srt__run -s "$F6" -c '
	echo x >> ~/.bashrc; sed -i s/rc/PWN/ ~/.bashrc; cp /etc/hostname ~/.bashrc
	echo x > ~/new-rc && mv -f ~/new-rc ~/.bashrc; rm -f ~/.bashrc; ln -sf /tmp/x ~/.bashrc
	/usr/bin/python3 -c "import os; open(\"t\",\"w\").write(\"x\"); os.replace(\"t\", os.path.expanduser(\"~/.bashrc\"))"
	echo x > ~/.profile; echo x > ~/.zshrc; mkdir ~/.vscode; echo x > ~/.gitconfig
	mkdir -p a/.git/hooks; echo x > a/.git/hooks/pre-commit
	mkdir -p h/hooks && echo x > h/hooks/post-checkout && mv h/hooks a/.git/hooks
	mv a/.git a/git-old && mkdir -p a/.git/hooks && echo x > a/.git/hooks/pre-commit
	echo "[core] hooksPath = /tmp" >> a/.git/config
	true') >/dev/null 2>&1
attempt F6 "~/.bashrc unchanged (append, sed -i, cp, mv over, rm, ln, os.replace)" \
	test "$(cat "$HOME/.bashrc")" = rc-orig -a -f "$HOME/.bashrc" -a ! -L "$HOME/.bashrc"
attempt F6 "absent rc files and ~/.vscode not created" \
	test ! -e "$HOME/.profile" -a ! -e "$HOME/.zshrc" -a ! -e "$HOME/.vscode" -a ! -e "$HOME/.gitconfig"
attempt F6 "no hook written in the existing repo (direct, rename, replacing .git)" \
	test ! -e "$HOME/proj/a/.git/hooks/pre-commit" -a ! -e "$HOME/proj/a/.git/hooks/post-checkout" \
	-a ! -e "$HOME/proj/a/git-old" -a "$(cat "$HOME/proj/a/.git/config")" = "[core]"

# a repository created inside: its hooks would run at the host's next git
# command there
srt__run -s "$S" -c '
	mkdir -p .git/hooks && echo "touch PWNED" > .git/hooks/pre-commit
	mkdir -p n1 && cd n1 && git init -q . 2>/dev/null; echo x > .git/hooks/pre-commit; cd ..
	mkdir -p g/hooks && echo x > g/hooks/pre-commit && mv g n2.git
	mkdir -p n3 && mkdir -p gd/hooks && echo x > gd/hooks/pre-commit && mv gd n3/.git
	true' >/dev/null 2>&1
# Repositories the command creates are not covered by mounts (they did not
# exist when srt planned them); srt renames each one whose hooks or config
# could run a program to .git.srt-quarantine once the sandbox is gone.
attempt F6 "new repository in cwd: no .git/hooks/pre-commit on the host, the hook kept aside" \
	test ! -e "$P/.git/hooks/pre-commit" -a -f "$P/.git.srt-quarantine/hooks/pre-commit"
attempt F6 "git init in a subdirectory: no hook on the host" \
	test ! -e "$P/n1/.git/hooks/pre-commit" -a -f "$P/n1/.git.srt-quarantine/hooks/pre-commit"
attempt F6 "a prepared directory renamed to .git: no hook on the host" \
	test ! -e "$P/n3/.git/hooks/pre-commit" -a -d "$P/n3/.git.srt-quarantine"
mkdir -p "$P/clean"
srt__run -s "$S" -c 'cd clean && git init -q . && git config user.name x' >/dev/null 2>&1
attempt F6 "a plain git init (sample hooks, ordinary config) is left as it is" \
	test -d "$P/clean/.git/hooks" -a ! -e "$P/clean/.git.srt-quarantine"
srt__run -s "$S" -c 'mkdir -p n4 && cd n4 && git init -q . && git config core.fsmonitor "touch $HOME/PWNED-fsmonitor"' >/dev/null 2>&1
attempt F6 "a new repository with core.fsmonitor is renamed: a host git status runs nothing" \
	eval '! test -e "$P/n4/.git" && (cd "$P/n4" && git status >/dev/null 2>&1; true) && ! test -e "$HOME/PWNED-fsmonitor"'
mkdir -p "$P/n5"
srt__run -s "$S" -c 'mkdir -p gd5/hooks && echo x > gd5/hooks/pre-commit && echo "gitdir: ../gd5" > n5/.git; mkdir -p n7 && ln -s ../gd5 n7/.git' >/dev/null 2>&1
attempt F6 "a .git file naming a directory with a hook is renamed" test ! -e "$P/n5/.git"
attempt F6 "a .git symbolic link is renamed" test ! -e "$P/n7/.git" -a ! -L "$P/n7/.git"

attempt F4 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
