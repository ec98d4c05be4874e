#!/bin/bash
# CLI behaviour: flags, parsing, settings errors (F19), exit codes, signals,
# --explain. Every "refused" case also checks that the command did not run.
. "$(dirname "$0")/lib.sh"

S=$(settings "$DEFAULT_SETTINGS")
MARK="$WORK/ran"

out=$("$SRT" -V 2>&1); check "-V prints the version" test -n "$out" -a "$?" = 0
"$SRT" --help | grep -q 'usage: srt'; check "--help prints usage" test $? = 0

"$SRT" >/dev/null 2>"$WORK/err"; rc=$?
check "no command: exit 1" test $rc = 1
check "no command: one clear line" grep -q 'no command given' "$WORK/err"

srt__run --bogus -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "unknown option refused with exit 1" test $rc = 1 -a ! -e "$MARK"
check "unknown option is named" grep -q "'--bogus'" "$WORK/err"

out=$(srt__run -s "$S" echo -d --debug 2>/dev/null)
check "parsing stops at the first command word" test "$out" = "-d --debug"
out=$(srt__run -s "$S" -- echo -c x 2>/dev/null)
check "-- ends the options" test "$out" = "-c x"
out=$(srt__run -s "$S" echo "hello world" "it's" '$HOME' '=x' 2>/dev/null)
check "positional words are quoted, not expanded" test "$out" = "hello world it's \$HOME =x"
out=$(srt__run -s "$S" -c 'echo A' echo B 2>/dev/null)
check "-c wins over positional words" test "$out" = "A"

# F19: a settings file that cannot be used stops srt before anything runs.
srt__run -s "$WORK/typo.json" -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "F19 missing --settings: exit 1, nothing ran" test $rc = 1 -a ! -e "$MARK"
check "F19 missing --settings: names the file" grep -q "typo.json" "$WORK/err"
: > "$WORK/empty.json"
srt__run -s "$WORK/empty.json" -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "empty --settings refused" test $rc = 1 -a ! -e "$MARK"
echo '{"network": {' > "$WORK/bad.json"
srt__run -s "$WORK/bad.json" -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "invalid JSON refused" test $rc = 1 -a ! -e "$MARK"
check "invalid JSON: says so" grep -qi "json" "$WORK/err"
echo '{"network":{"allowedDomains":["ok.example","*.com"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' > "$WORK/broad.json"
srt__run -s "$WORK/broad.json" -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "schema failure refused" test $rc = 1 -a ! -e "$MARK"
check "schema failure names the key path" grep -q 'network.allowedDomains\[1\]' "$WORK/err"
mkdir "$WORK/dir.json"
srt__run -s "$WORK/dir.json" -c "touch $MARK" 2>"$WORK/err"; rc=$?
check "directory as --settings refused" test $rc = 1 -a ! -e "$MARK"
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[],"allowWrites":["/"]}}' > "$WORK/typo-key.json"
srt__run -s "$WORK/typo-key.json" -c true 2>"$WORK/err"; rc=$?
check "unknown key warns and names the key" grep -q 'allowWrites' "$WORK/err"
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},"credentials":{"envVars":[{"name":"X_TOKEN","mode":"deny"}]}}' > "$WORK/cred.json"
out=$(X_TOKEN=real-token srt__run -s "$WORK/cred.json" -c 'echo "[$X_TOKEN]"' 2>"$WORK/err"); rc=$?
check "credentials are enforced, not ignored: the command runs (rc=$rc)" test $rc = 0
check "a variable in mode deny does not reach the command ($out)" test "$out" = "[]"

# YAML with the same schema
printf 'network:\n  allowedDomains: []\n  deniedDomains: []\nfilesystem:\n  denyRead: ["~/.ssh"]\n  allowWrite: ["."]\n  denyWrite: []\n' > "$WORK/s.yaml"
out=$(srt__run -s "$WORK/s.yaml" -c 'cat ~/.ssh/id_canary 2>/dev/null; echo yaml-ran' 2>/dev/null)
check "YAML settings load and are enforced" test "$out" = "yaml-ran"

# git.safeDirectories reaches git through GIT_CONFIG_* (continuing an inherited count)
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]},"git":{"safeDirectories":["/srv/repo"]}}' > "$WORK/git.json"
out=$(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=me srt__run -s "$WORK/git.json" -c 'echo $GIT_CONFIG_COUNT $GIT_CONFIG_KEY_0 $GIT_CONFIG_KEY_1 $GIT_CONFIG_VALUE_1 $GIT_CONFIG_VALUE_2' 2>/dev/null)
check "git.safeDirectories continues the inherited GIT_CONFIG_COUNT ($out)" test "$out" = "3 user.name safe.directory /srv/repo /srv/repo/*"
out=$(GIT_CONFIG_COUNT=0 srt__run -s "$WORK/git.json" -c 'echo "[${GIT_CONFIG_COUNT}]"' 2>/dev/null)
check "an inherited GIT_CONFIG_COUNT=0 is the user's opt-out ($out)" test "$out" = "[0]"

# --explain runs nothing
out=$(srt__run -s "$S" --explain -c "touch $MARK" 2>&1); rc=$?
check "--explain exits 0 and runs nothing" test $rc = 0 -a ! -e "$MARK"
check "--explain shows the bwrap plan" grep -q 'bwrap argv:' <<<"$out"
check "--explain shows where a rule came from" grep -q 'filesystem.denyRead\[0\]' <<<"$out"
# --explain only plans: no cleanup guard starts, and nothing is made or
# removed in the project (a run makes placeholders for the protected names
# that do not exist yet; the plan names them, and the directory's mtime
# would move with each one made and removed)
mkdir "$WORK/plan"
before=$(stat -c %y "$WORK/plan")
out=$(cd "$WORK/plan" && srt__run -s "$S" --debug --explain -c true 2>&1); rc=$?
after=$(stat -c %y "$WORK/plan")
check "--explain leaves the project untouched (mtime before $before, after $after)" \
	test $rc = 0 -a "$before" = "$after" -a -z "$(ls -A "$WORK/plan")"
check "--explain names the placeholders a run would make" \
	grep -q "placeholder file $WORK/plan/.bashrc made by each run" <<<"$out"
check "--explain starts no cleanup guard" eval '! grep -q "cleanup guard" <<<"$out"'
# nor does it make the proxy's private directory or bind its socket (in
# $TMPDIR): the plan names what a run would make
mkdir "$WORK/tb"
before=$(stat -c %y "$WORK/tb")
out=$(TMPDIR="$WORK/tb" srt__run -s "$S" --explain -c true 2>&1); rc=$?
after=$(stat -c %y "$WORK/tb")
check "--explain makes no proxy directory (rc=$rc, $(ls -A "$WORK/tb" | head -3 | tr '\n' ' '))" \
	test $rc = 0 -a "$before" = "$after" -a -z "$(ls -A "$WORK/tb")"
check "--explain names the proxy socket a run would bind" \
	grep -q "proxy at $WORK/tb/srt-[0-9]*-XXXXXX/proxy.sock" <<<"$out"
# nor the run's own TMPDIR, whose bind the plan shows
check "--explain names the TMPDIR a run would make" \
	grep -q "^TMPDIR: /tmp/claude[-0-9]*/srt-run.XXXXXX\$" <<<"$out"
check "--explain plans the TMPDIR's bind" \
	grep -Eq -- "--bind (/tmp/claude[-0-9]*/srt-run.XXXXXX) \\1 " <<<"$out"

# exit status
srt__run -s "$S" -c 'exit 7'; check "exit 7 -> 7" test $? = 7
srt__run -s "$S" -c 'kill -TERM $$'; check "kill -TERM \$\$ -> 143" test $? = 143
srt__run -s "$S" -c 'kill -9 $$'; check "kill -9 \$\$ -> 137" test $? = 137
srt__run -s "$S" -- /nonexistent/cmd 2>/dev/null; check "missing command -> 127" test $? = 127

# -c with a plain `program args` line runs it without a shell: same status,
# and BASH_ENV (read by a non-interactive bash) is not sourced
# (only a bash inside the sandbox counts: the build tree's srt is a libtool
# wrapper script that reads BASH_ENV too)
printf '[ -n "$SANDBOX_RUNTIME" ] && echo sourced-bash-env\n' >"$WORK/bash-env"
out=$(BASH_ENV="$WORK/bash-env" srt__run -d -s "$S" -c 'false' 2>&1); rc=$?
check "-c false -> 1" test $rc = 1
check "-c with a simple command: no shell, so BASH_ENV is not read" \
	eval '! grep -q sourced-bash-env <<<"$out" && grep -q "run without a shell" <<<"$out"'
out=$(BASH_ENV="$WORK/bash-env" srt__run -s "$S" -c 'true; echo x' 2>&1)
check "-c with shell syntax still runs the shell" grep -q sourced-bash-env <<<"$out"
srt__run -s "$S" -c 'srt-no-such-program' 2>"$WORK/err"; rc=$?
check "-c with an unknown program: the shell's 127 and message" \
	eval 'test $rc = 127 && grep -q "command not found" "$WORK/err"'

# signals sent to srt reach the command
for sig in TERM INT HUP USR1; do
	rm -f "$WORK/proj/got"
	# srt itself in the background (not through a function or timeout), so
	# that $! is srt's pid
	"$SRT" --backend="$BACKEND" -s "$S" -c "trap 'echo $sig > got; exit 0' $sig; echo ready > ready; for i in \$(seq 100); do sleep 0.1; done" &
	p=$!
	for i in $(seq 100); do [ -e "$WORK/proj/ready" ] && break; sleep 0.1; done
	sleep 0.2
	kill -$sig $p
	wait $p; rc=$?
	check "SIG$sig to srt reaches the command (rc=$rc)" test "$(cat "$WORK/proj/got" 2>/dev/null)" = "$sig"
	rm -f "$WORK/proj/ready"
done

# srt killed with SIGKILL leaves no sandboxed process
# the tag is assembled inside, so only the sandboxed sleeps carry it (not
# srt's or bwrap's own command lines)
tag="srt-orphan-$$-$RANDOM"
half=${tag%-*}
"$SRT" --backend="$BACKEND" -s "$S" -c "t=$half-\${0:+}${tag##*-}; (exec -a \$t sleep 300) & exec -a \$t sleep 300" &
p=$!
for i in $(seq 50); do pgrep -f "$tag" >/dev/null && break; sleep 0.1; done
kill -9 $p; wait $p 2>/dev/null
for i in $(seq 50); do pgrep -f "$tag" >/dev/null || break; sleep 0.1; done
check "kill -9 srt leaves no sandboxed process" test -z "$(pgrep -f "$tag")"

# srt killed while bwrap is still setting up: no bwrap or helper is left
# (a bwrap child whose parent died mid-setup would wait forever)
for i in 1 2 3 4 5 6 7 8; do
	"$SRT" --backend="$BACKEND" -s "$S" -c "true $tag-setup" &
	p=$!
	sleep "0.0$i"
	kill -9 $p 2>/dev/null
	wait $p 2>/dev/null
done
for i in $(seq 50); do pgrep -f "$tag-setup" >/dev/null || break; sleep 0.1; done
check "kill -9 srt during startup leaves no bwrap or helper" test -z "$(pgrep -f "$tag-setup")"

# run from a directory that was removed: "." and relative rules cannot be
# read, so srt stops with a message that says why, and nothing runs (it
# said only "system call failed")
mkdir -p "$WORK/gone"
out=$(cd "$WORK/gone" && rmdir "$WORK/gone" && "$SRT" --backend="$BACKEND" -s "$S" -c "touch '$WORK/gone-ran'" 2>&1 </dev/null); rc=$?
check "a removed current directory: refused, naming it, and nothing ran (rc=$rc: $(tail -n1 <<<"$out"))" \
	test "$rc" != 0 -a ! -e "$WORK/gone-ran" -a -n "$(grep 'cannot tell the current directory: .*(it was removed)' <<<"$out")"

echo "1..$_tap_n"
