#!/bin/bash
# Escape class H2: the protected names cover every file that makes the
# host run code or leak later, in $HOME, the working directory and every
# write root. With the working directory and $HOME both write roots, the
# command tries to write (or create) each name; the host must keep none of
# its writes, with linux-bwrap and with linux-landlock. One name released
# with filesystem.allowProtectedNames becomes writable (and only it), an
# unknown name there is an error naming the key and value, --explain lists
# each name with its reason, and the summary names the rule a refused
# write hit and the setting that releases it.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
P="$WORK/proj"
cd "$WORK"

# host state before the run: a repository with core.hooksPath and one
# nested in it, a .envrc below the top, and the directories the names
# live in where a tool would have made them. (A name the command creates
# in a subdirectory, and a repository deeper than
# mandatoryDenySearchDepth, are not what this script tries.)
setup() {
	rm -rf "$P" "$HOME/.config" "$HOME/.cargo" "$HOME/.ssh/config" "$HOME/.ssh/authorized_keys"
	mkdir -p "$P/sub/deeper" "$P/.claude" "$P/sub/.claude" \
		"$HOME/.config/git" "$HOME/.config/systemd/user" "$HOME/.config/autostart" "$HOME/.cargo"
	git -C "$P" init -q . && git -C "$P" config core.hooksPath githooks
	git -C "$P/sub" init -q .
	echo 'export A=1' > "$P/.envrc"
	echo 'export A=1' > "$P/sub/.envrc"
	echo '[user]' > "$HOME/.config/git/config"
}

# NAME: a path relative to proj (or ~/... for $HOME)
NAMES=(.bash_logout .zlogout .zlogin .envrc sub/.envrc .husky/pre-commit
	.claude/settings.json .claude/settings.local.json .claude/hooks/pre.sh
	sub/.claude/settings.json .mcp.json .npmrc .yarnrc.yml
	githooks/pre-commit sub/.git/config
	'~/.config/git/config' '~/.config/git/attributes' '~/.ssh/config'
	'~/.ssh/authorized_keys' '~/.npmrc' '~/.yarnrc.yml' '~/.cargo/config.toml'
	'~/.config/systemd/user/x.service' '~/.config/autostart/x.desktop' '~/.bash_logout')
host_path() { case $1 in '~/'*) echo "$HOME/${1#\~/}" ;; *) echo "$P/$1" ;; esac; }
attack() {
	local n q=
	for n in "${NAMES[@]}"; do
		q="$q mkdir -p \"\$(dirname '$(host_path "$n")')\" 2>/dev/null;"
		q="$q echo PWNED-H2 >> '$(host_path "$n")' 2>/dev/null;"
	done
	echo "$q true"
}

S=$(fsjson list '{"denyRead":[],"allowWrite":[".","~"],"denyWrite":[]}')
run_names() { # run_names LABEL SRT-ARGS...
	local label=$1 n; shift
	setup
	( cd "$P" && timeout -k 5 60 "$SRT" "$@" -s "$S" -c "$(attack)" ) >"$WORK/out" 2>&1
	for n in "${NAMES[@]}"; do
		attempt H2 "$label: $n is not written on the host" \
			sh -c "! grep -qs PWNED-H2 '$(host_path "$n")'"
	done
}
run_names linux-bwrap --backend="$BACKEND"
ll_err=$(cd "$P" && timeout 30 "$SRT" --backend="$LL" -s "$S" -c true 2>&1 >/dev/null)
if [ ! -e "$LL" ] || grep -qi 'landlock is not available\|Landlock ABI' <<<"$ll_err"; then
	skip_rest ${#NAMES[@]} "H2 linux-landlock cannot run here: $ll_err"
else
	run_names linux-landlock --backend="$LL"
fi

# the summary of a refused write names the rule and what releases it (a
# hint after the summary; the violation line itself keeps its format)
summary_names_rule() {
	grep -q 'deny openat .*/\.envrc$' "$WORK/out" &&
	grep -q 'srt: hint: .*/\.envrc: protected name \.envrc (direnv .*); filesystem.allowProtectedNames releases it' "$WORK/out"
}
setup
(cd "$P" && srt__run -s "$S" -c 'echo PWNED-H2 >> .envrc') >"$WORK/out" 2>&1
attempt H2 "the summary names the protected name, its reason and filesystem.allowProtectedNames" \
	summary_names_rule


# --explain shows every name with its reason
(cd "$P" && srt__run -s "$S" --explain -c true) >"$WORK/explain" 2>&1
listed() { local n; for n in .envrc .husky core.hooksPath '~/.ssh/authorized_keys' .claude/hooks .npmrc; do
	grep -q "^protected  *$n  *<- ." "$WORK/explain" || return 1; done; }
attempt H2 "--explain lists the protected names with a reason each" listed

# one name released on purpose: only it becomes writable
R=$(fsjson rel '{"denyRead":[],"allowWrite":[".","~"],"denyWrite":[],"allowProtectedNames":[".envrc"]}')
setup
(cd "$P" && srt__run -s "$R" -c 'echo RELEASED >> .envrc; echo PWNED-H2 >> .npmrc') >"$WORK/out" 2>&1
attempt H2 "allowProtectedNames [\".envrc\"]: .envrc is writable" grep -q RELEASED "$P/.envrc"
attempt H2 "allowProtectedNames [\".envrc\"]: .npmrc stays protected" sh -c "! grep -qs PWNED-H2 '$P/.npmrc'"
B=$(fsjson bad '{"denyRead":[],"allowWrite":["."],"denyWrite":[],"allowProtectedNames":[".bashrcx"]}')
rm -f "$WORK/ran"
(cd "$P" && srt__run -s "$B" -c "touch '$WORK/ran'") >"$WORK/out" 2>&1; rc=$?
attempt H2 "an unknown name in allowProtectedNames is an error naming the key and value (rc=$rc)" \
	sh -c "test $rc != 0 -a ! -e '$WORK/ran' && grep -q 'filesystem.allowProtectedNames\[0\]: \".bashrcx\"' '$WORK/out'"
echo "1..$_tap_n"
