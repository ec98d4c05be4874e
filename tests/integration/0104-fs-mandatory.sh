#!/bin/bash
# Mandatory write denies (shell startup files, git hooks and config, kept
# read-only whatever allowWrite says): in cwd, at depth, in every write root (F6),
# git hooks and config, allowGitConfig, and what stays writable.
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

P="$WORK/proj"
S=$(fs base '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')

# dangerous files in cwd
for f in .bashrc .gitconfig .zshrc .mcp.json .bash_profile .zprofile .profile .gitmodules .ripgreprc .zshenv .zlogin .bash_login; do
	echo orig > "$P/$f"
done
srt__run -s "$S" -c 'for f in .bashrc .gitconfig .zshrc .mcp.json .bash_profile .zprofile .profile .gitmodules .ripgreprc .zshenv .zlogin .bash_login; do echo MOD > $f; done' >/dev/null 2>&1
bad=
for f in .bashrc .gitconfig .zshrc .mcp.json .bash_profile .zprofile .profile .gitmodules .ripgreprc .zshenv .zlogin .bash_login; do
	[ "$(cat "$P/$f")" = orig ] || bad="$bad $f"
done
check "dangerous files in cwd stay unchanged${bad:+ (changed:$bad)}" test -z "$bad"

# git: hooks and config; other .git content writable
mkdir -p "$P/.git/hooks" "$P/.git/objects" "$P/.claude"
echo "[core]" > "$P/.git/config"
srt__run -s "$S" -c 'echo MOD > .git/config; echo x > .git/hooks/pre-commit' >/dev/null 2>&1
check ".git/config and .git/hooks are write-denied" \
	test "$(cat "$P/.git/config")" = "[core]" -a ! -e "$P/.git/hooks/pre-commit"
srt__run -s "$S" -c 'echo o > .git/objects/test-obj && echo c > .claude/other.txt && echo s > safe.txt' >/dev/null 2>&1; rc=$?
check "other .git and .claude files and plain files stay writable (rc=$rc)" \
	test $rc = 0 -a -e "$P/.git/objects/test-obj" -a -e "$P/.claude/other.txt" -a -e "$P/safe.txt"
# the git directories git also reads config and runs hooks from: a
# submodule's (.git/modules/<name>) and a worktree's pointer (commondir);
# a commondir the command adds to an existing repository is renamed aside
mkdir -p "$P/.git/modules/sub/hooks" "$P/.git/worktrees/wt"
echo "ref: refs/heads/main" > "$P/.git/modules/sub/HEAD"
echo "[core]" > "$P/.git/modules/sub/config"
echo "ref: refs/heads/main" > "$P/.git/worktrees/wt/HEAD"
echo "../.." > "$P/.git/worktrees/wt/commondir"
out=$(srt__run -s "$S" -c 'echo MOD >> .git/modules/sub/config; echo x > .git/modules/sub/hooks/post-checkout; echo ../../x > .git/worktrees/wt/commondir; echo ../x > .git/commondir' 2>&1)
check "a submodule's config and hooks are write-denied" \
	test "$(cat "$P/.git/modules/sub/config")" = "[core]" -a ! -e "$P/.git/modules/sub/hooks/post-checkout"
check "a worktree's commondir is write-denied" test "$(cat "$P/.git/worktrees/wt/commondir")" = "../.."
check "a new .git/commondir is renamed aside and reported" \
	test ! -e "$P/.git/commondir" -a -e "$P/.git/commondir.srt-quarantine"
case $out in *"deny git-repository $P/.git/commondir"*) r=0 ;; *) r=1 ;; esac
check "the commondir report names it" test $r = 0
rm -rf "$P/.git/modules" "$P/.git/worktrees" "$P/.git/commondir.srt-quarantine"

# a git directory kept apart (git init --separate-git-dir), a bare
# repository and config.worktree: hooks and config as well protected
if command -v git >/dev/null 2>&1; then
	GD="$WORK/gd"
	mkdir -p "$GD"
	git init -q --separate-git-dir="$GD/store/proj.git" "$GD/proj" 2>/dev/null
	git init -q --bare "$GD/bare.git" 2>/dev/null
	touch "$GD/store/proj.git/config.worktree"
	GS=$(fs gd "{\"denyRead\":[],\"allowWrite\":[\"$GD\"],\"denyWrite\":[]}")
	(cd "$GD" && srt__run -s "$GS" -c 'echo x > store/proj.git/hooks/pre-commit; echo "[core] fsmonitor = x" >> store/proj.git/config; echo x > bare.git/hooks/post-update; echo "[core] sshCommand = x" >> bare.git/config; echo "[core] fsmonitor = x" >> store/proj.git/config.worktree') >/dev/null 2>&1
	check "a separate git directory's hooks, config and config.worktree are write-denied" \
		test ! -e "$GD/store/proj.git/hooks/pre-commit" -a -z "$(grep -l fsmonitor "$GD/store/proj.git/config" "$GD/store/proj.git/config.worktree" 2>/dev/null)"
	check "a bare repository's hooks and config are write-denied" \
		test ! -e "$GD/bare.git/hooks/post-update" -a -z "$(grep -l sshCommand "$GD/bare.git/config")"
else
	skip "git missing"; skip "git missing"
fi

# srt SIGKILLed mid-run: a repository the command made, and a commondir it
# added to an existing one, would run a program at the host's next git
# command there; the cleanup guard, which outlives srt, sweeps them once
# the sandbox is gone, as srt does when the command ends. The guard runs
# srt-gitguard-sweep for it (SRT_HELPER_DIR, set by the harness, or the
# installed one); where that program is missing, the guard is a fork of
# srt that sweeps with srt's own code. Both ways are run.
killed_sweep() { # label, then VAR=value words for srt's environment
	local label=$1 GK="$WORK/gk-$1" KS kt K
	shift
	mkdir -p "$GK"
	git init -q "$GK/old" 2>/dev/null
	KS=$(fs "gk-$label" "{\"denyRead\":[],\"allowWrite\":[\"$GK\"],\"denyWrite\":[]}")
	(cd "$GK" && unset CLAUDE_CODE_TMPDIR CLAUDE_TMPDIR && exec env "$@" "$SRT" --backend="$BACKEND" -s "$KS" -c 'git init -q new && git -C new config core.fsmonitor "touch PWNED; false" && mkdir -p evil && printf "[core]\n\tfsmonitor = touch PWNED2\n" > evil/config && echo "$PWD/evil" > old/.git/commondir && git init -q "$TMPDIR/r" && echo "$TMPDIR" > tmpname && touch up && exec sleep 300') >/dev/null 2>&1 &
	K=$!
	for _ in $(seq 100); do [ -e "$GK/up" ] && break; sleep 0.1; done
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	for _ in $(seq 100); do [ -e "$GK/new/.git.srt-quarantine" ] && break; sleep 0.1; done
	check "srt SIGKILLed ($label): the command's new repository is quarantined by the guard" \
		test -e "$GK/up" -a ! -e "$GK/new/.git" -a -e "$GK/new/.git.srt-quarantine"
	check "srt SIGKILLed ($label): the commondir it added is moved aside" \
		test ! -e "$GK/old/.git/commondir" -a -e "$GK/old/.git/commondir.srt-quarantine"
	# the guard removes the TMPDIR after the sweep, so the quarantine
	# being there does not mean the removal is done yet
	kt=$(cat "$GK/tmpname" 2>/dev/null)
	for _ in $(seq 100); do [ -n "$kt" ] && [ ! -e "$kt" ] && break; sleep 0.1; done
	check "srt SIGKILLed ($label): the guard removes the run's TMPDIR too (${kt:-none})" \
		test -n "$kt" -a ! -e "$kt"
}
if command -v git >/dev/null 2>&1; then
	killed_sweep program
	killed_sweep fork SRT_HELPER_DIR="$WORK/no-helpers"
else
	for _ in 1 2 3 4 5 6; do skip "git missing"; done
fi

# The run's own TMPDIR is removed with everything in it, by srt at the
# run's end and by the cleanup guard if srt is SIGKILLed (once the sandbox
# is gone): a repository the command plants there never meets a host git,
# so it is no work for the git guard's sweep after srt's death. A run whose
# only write root is that TMPDIR (HOME here has no ~/.npm/_logs) leaves its
# guard nothing of srt's memory to run, and the guard is srt-linux-init
# started with posix_spawn (no copy of srt's page tables) instead of a
# fork of srt.
T0=$(fs tmponly '{"denyRead":[],"allowWrite":[],"denyWrite":[]}')
if command -v git >/dev/null 2>&1; then
	rm -f "$WORK/t0name"
	(unset CLAUDE_CODE_TMPDIR CLAUDE_TMPDIR; exec "$SRT" --backend="$BACKEND" -s "$T0" -c 'git init -q "$TMPDIR/r" && printf "#!/bin/sh\ntouch PWNED\n" > "$TMPDIR/r/.git/hooks/pre-commit" && git -C "$TMPDIR/r" config core.fsmonitor "touch PWNED2; false" && echo "$TMPDIR" && exec sleep 300') >"$WORK/t0name" 2>/dev/null &
	K=$!
	for _ in $(seq 100); do [ -s "$WORK/t0name" ] && break; sleep 0.1; done
	t0=$(cat "$WORK/t0name")
	up=no; [ -n "$t0" ] && [ -e "$t0/r/.git/hooks/pre-commit" ] && up=yes
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	for _ in $(seq 100); do [ -n "$t0" ] && [ ! -e "$t0" ] && break; sleep 0.1; done
	check "srt SIGKILLed, only its TMPDIR writable: the guard removes it with the repository planted there (${t0:-none}, planted: $up)" \
		test "$up" = yes -a ! -e "$t0"
else
	skip "git missing"
fi
out=$(unset CLAUDE_CODE_TMPDIR CLAUDE_TMPDIR; srt__run --debug -s "$T0" -c true 2>&1)
case $out in *"cleanup guard: srt-linux-init --guard"*) r=0 ;; *) r=1 ;; esac
check "only its TMPDIR writable: the guard is srt-linux-init --guard (srt --debug says so)" test $r = 0
# the same counted by the kernel: srt's own process makes no clone that
# copies its memory (fork: no CLONE_VM); with a write root of the
# project's, the sweep still needs one (the control)
if command -v strace >/dev/null 2>&1; then
	forks() { # settings: clones of srt's process without CLONE_VM
		(unset CLAUDE_CODE_TMPDIR CLAUDE_TMPDIR
		 timeout -k 5 30 strace -f -qq -e trace=execve,clone,clone3,fork -o "$WORK/st.txt" \
			env LD_LIBRARY_PATH="$SRT_LIBS" "$SRT" --backend="$BACKEND" -s "$1" -c true) >/dev/null 2>&1
		awk -v srt="$SRT" '
			$2 ~ /^execve\(/ && index($2, "\"" srt "\"") == 8 && / = 0$/ { me = $1 }
			me != "" && $1 == me && ($2 ~ /^(clone|clone3)\(/ && !/CLONE_VM/ || $2 ~ /^fork\(/) { n++ }
			END { print (me == "" ? "none" : n + 0) }' "$WORK/st.txt"
	}
	n0=$(forks "$T0")
	n1=$(forks "$S")
	n2=$(SRT_HELPER_DIR="$WORK/no-helpers" forks "$S")
	check "only its TMPDIR writable: srt's process forks nothing (strace: $n0 clones without CLONE_VM)" test "$n0" = 0
	check "with allowWrite [\".\"] the sweep is srt-gitguard-sweep's: srt's process forks nothing (strace: $n1)" \
		test "$n1" = 0
	check "control: without srt-gitguard-sweep the sweep's guard is a fork of srt (strace: $n2)" test "$n2" = 1
else
	skip "strace missing"; skip "strace missing"; skip "strace missing"
fi

srt__run -s "$S" -c 'mkdir -p .claude/commands && echo x > .claude/commands/t.md; mkdir -p .vscode && echo x > .vscode/settings.json' >/dev/null 2>&1
check "absent .claude/commands and .vscode cannot be created" \
	test ! -e "$P/.claude/commands/t.md" -a ! -e "$P/.vscode/settings.json"
G=$(fs gitcfg '{"denyRead":[],"allowWrite":["."],"denyWrite":[],"allowGitConfig":true}')
srt__run -s "$G" -c 'echo "[user]" >> .git/config; echo x > .git/hooks/post-commit' >/dev/null 2>&1
check "allowGitConfig: config writable, hooks still not" \
	test "$(tail -1 "$P/.git/config")" = "[user]" -a ! -e "$P/.git/hooks/post-commit"

# found at depth (directory depth 2 with the default depth 3), not beyond
mkdir -p "$P/x/y/z" "$P/node_modules/m"
echo orig > "$P/x/y/.bashrc"
echo orig > "$P/x/y/z/.bashrc"
mkdir -p "$P/x/.git/hooks"
srt__run -s "$S" -c 'echo MOD > x/y/.bashrc; echo MOD > x/.git/hooks/pre-push; echo MOD > x/y/z/.bashrc' >/dev/null 2>&1
check "mandatory deny found at depth 2" test "$(cat "$P/x/y/.bashrc")" = orig
check "nested repo hooks protected" test ! -e "$P/x/.git/hooks/pre-push"
check "depth rule: directory depth 3 is beyond mandatoryDenySearchDepth 3" \
	test "$(cat "$P/x/y/z/.bashrc")" = MOD
D5=$(fs deep '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
sed -i 's/}}$/},"mandatoryDenySearchDepth":5}/' "$D5"
echo orig > "$P/x/y/z/.bashrc"
srt__run -s "$D5" -c 'echo MOD > x/y/z/.bashrc' >/dev/null 2>&1
check "mandatoryDenySearchDepth 5 reaches directory depth 3" test "$(cat "$P/x/y/z/.bashrc")" = orig

# a second write root gets the same protection (the reference scans cwd only)
mkdir -p "$WORK/other/.git/hooks"
echo orig > "$WORK/other/.zshrc"
W2=$(fs second "{\"denyRead\":[],\"allowWrite\":[\".\",\"$WORK/other\"],\"denyWrite\":[]}")
srt__run -s "$W2" -c "echo MOD > '$WORK/other/.zshrc'; echo x > '$WORK/other/.git/hooks/pre-commit'; echo x > '$WORK/other/.bashrc'; echo ok > '$WORK/other/file'" >/dev/null 2>&1
check "second write root: existing rc file protected" test "$(cat "$WORK/other/.zshrc")" = orig
check "second write root: hooks and absent rc files protected" \
	test ! -e "$WORK/other/.git/hooks/pre-commit" -a ! -e "$WORK/other/.bashrc"
check "second write root: ordinary files writable" test "$(cat "$WORK/other/file" 2>/dev/null)" = ok

# A protected name that is a symbolic link (dotfile managers): the target is
# mounted read-only, and the helper mounts a read-only copy on the link
# itself, so the command can neither replace nor remove the name while it
# runs (it would be live on the host until the run ends); a link to a
# directory gets /dev/null. The restore after the run (test-mounts) stays
# behind it.
L="$WORK/links"
mkdir -p "$L/dotfiles/hooks"
echo "rc-target" > "$L/dotfiles/bashrc"
ln -s dotfiles/bashrc "$L/.bashrc"
ln -s dotfiles/zshrc-missing "$L/.zshrc"
mkdir -p "$L/.git"
ln -s ../dotfiles/hooks "$L/.git/hooks"
LS=$(fs links "{\"denyRead\":[],\"allowWrite\":[\"$L\"],\"denyWrite\":[]}")
(cd "$L" && srt__run -s "$LS" -c 'echo x >> .bashrc; cat .bashrc') >"$WORK/links.out" 2>"$WORK/links.err"
check "a symlinked rc file: readable through the link, writing refused, nothing to restore" \
	test "$(cat "$WORK/links.out")" = rc-target -a "$(cat "$L/dotfiles/bashrc")" = rc-target \
	-a ! -e "$L/.bashrc.srt-quarantine" -a "$(grep -c 'protected link was' "$WORK/links.err")" = 0
(cd "$L" && srt__run -s "$LS" -c '
	for n in .bashrc .zshrc .git/hooks; do
		rm -f "$n" 2>/dev/null && echo "removed $n"
		mv "$n" "$n.x" 2>/dev/null && echo "renamed $n"
	done
	echo "touch PWNED" > .bashrc 2>/dev/null && echo "replaced .bashrc"
	mkdir -p .git/hooks 2>/dev/null && echo x > .git/hooks/pre-commit 2>/dev/null && echo "hook planted"
	echo x > dotfiles/hooks/pre-commit 2>/dev/null && echo "hook written"
	for n in .bashrc .zshrc .git/hooks; do [ -L "$n" ] && echo "host sees $n"; done
	true') >"$WORK/links.out" 2>"$WORK/links.err"
check "the links cannot be removed, renamed or replaced during the run (no live window on the host)" \
	test -z "$(grep -v '^host sees' "$WORK/links.out")"
check "a symlinked rc file stays a link to its target" \
	test -L "$L/.bashrc" -a "$(readlink "$L/.bashrc")" = dotfiles/bashrc -a "$(cat "$L/.bashrc")" = rc-target \
	-a ! -e "$L/.bashrc.srt-quarantine"
check "a dangling symlinked rc file stays a link" test -L "$L/.zshrc" -a "$(readlink "$L/.zshrc")" = dotfiles/zshrc-missing
check "a symlinked .git/hooks stays a link, its target gets no hook" \
	test -L "$L/.git/hooks" -a "$(readlink "$L/.git/hooks")" = ../dotfiles/hooks -a ! -e "$L/dotfiles/hooks/pre-commit"
check "the refused attempts are reported" \
	test "$(grep -c '^srt:   deny \(unlinkat\|renameat2\|rename\|unlink\) .*/\(\.bashrc\|\.zshrc\|hooks\)\( (protected name .*)\)\?$' "$WORK/links.err")" -ge 3
# a protected link deeper in the root: its directory cannot be renamed away
# and replaced by a link to a directory of the command's
mkdir -p "$L/sub"
ln -s ../dotfiles/bashrc "$L/sub/cfg"
LD=$(fs linksd "{\"denyRead\":[],\"allowWrite\":[\"$L\"],\"denyWrite\":[\"$L/sub/cfg\"]}")
(cd "$L" && srt__run -s "$LD" -c 'mv sub sub2 && mkdir evil && echo EVIL > evil/cfg && ln -s evil sub') >/dev/null 2>&1
check "the directory of a protected link is pinned (no rename, the name still reaches the target)" \
	test ! -e "$L/sub2" -a "$(cat "$L/sub/cfg")" = rc-target

# $HOME below the top of a write root: its absent startup files are held
# like a root's (the shells read them wherever $HOME is), .zshenv too
HH="$WORK/hh/home"
mkdir -p "$HH/me/proj"
HS=$(fs hh "{\"denyRead\":[],\"allowWrite\":[\"$HH\"],\"denyWrite\":[]}")
(cd "$HH/me/proj" && HOME="$HH/me" srt__run -s "$HS" -c 'for f in .zshrc .zshenv .bash_login .profile; do echo "touch PWNED" > ~/$f; done; echo ok > ~/plain') >/dev/null 2>&1
bad=
for f in .zshrc .zshenv .bash_login .profile; do [ -e "$HH/me/$f" ] && bad="$bad $f"; done
check "absent startup files of a \$HOME inside a write root stay absent${bad:+ (created:$bad)}" test -z "$bad"
check "\$HOME inside a write root: ordinary files writable" test "$(cat "$HH/me/plain" 2>/dev/null)" = ok

# F6: run from ~/proj with allowWrite ["~"]
mkdir -p "$HOME/proj/a/.git"
echo "rc-orig" > "$HOME/.bashrc"
F6=$(fs f6 '{"denyRead":["~/.ssh"],"allowWrite":["~"],"denyWrite":[]}')
(cd "$HOME/proj" && srt__run -s "$F6" -c 'echo x>>~/.bashrc; mkdir -p ~/proj/a/.git/hooks; echo x>~/proj/a/.git/hooks/pre-commit; echo x > ~/.profile') >/dev/null 2>&1
check "F6 ~/.bashrc unchanged with ~ writable" test "$(cat "$HOME/.bashrc")" = rc-orig
check "F6 hook in an existing repo below cwd not written" test ! -e "$HOME/proj/a/.git/hooks/pre-commit"
check "F6 absent ~/.profile not created" test ! -e "$HOME/.profile"
check "F6 placeholders removed afterwards" test ! -e "$HOME/.zshrc" -a ! -e "$HOME/proj/a/.git/hooks"

echo "1..$_tap_n"
