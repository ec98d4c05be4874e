#!/bin/bash
# filesystem.allowCaches: package managers' caches opened by name. The
# named caches' directories (and only they: never the rest of HOME) become
# write roots, created when missing; the protections inside write roots
# still apply to them; a cache directory reached through a symbolic link,
# or named by a variable outside HOME or in ~/.ssh, is refused before
# anything runs; an unknown name is refused naming the key and the value.
# Without the setting a refused write in a cache is followed, in the
# summary, by the setting that opens it. Every check looks at the host.
. "$(dirname "$0")/lib.sh"

need_bwrap_sandbox

# the tools' variables from the caller's environment must not move the
# caches away from the test HOME
unset npm_config_cache NPM_CONFIG_CACHE PIP_CACHE_DIR XDG_CACHE_HOME CARGO_HOME \
	GOMODCACHE GOPATH GOCACHE
# a TMPDIR of this test's own: the shared default can be large enough to
# stop the mandatory deny scan, which is not what this test is about
export CLAUDE_CODE_TMPDIR="$WORK/tmp"
# in the working directory, which every settings file here makes writable:
# a command that ran would leave it
MARK="$WORK/proj/ran"
caches() { fs "$1" "{\"denyRead\":[\"~/.ssh\"],\"allowWrite\":[\".\"],\"denyWrite\":[]${2:+,\"allowCaches\":$2}}"; }
S0=$(caches none)
SN=$(caches npm '["npm"]')

# --- without the setting: refused, and the summary names the setting
srt__run -s "$S0" -c 'mkdir -p ~/.npm/_cacache && echo x > ~/.npm/_cacache/f' >/dev/null 2>"$WORK/err"; rc=$?
check "F no allowCaches: a write into ~/.npm fails (rc=$rc), nothing on the host" \
	test $rc != 0 -a ! -e "$HOME/.npm"
srt__run -s "$S0" --debug -c true 2>"$WORK/dbg" >/dev/null
if grep -q 'violation monitor on' "$WORK/dbg"; then
	check "F no allowCaches: the summary names filesystem.allowCaches: [\"npm\"]" \
		grep -q '^srt: hint: .*npm.*filesystem.allowCaches: \["npm"\]' "$WORK/err"
	check "F the hint is said once" test "$(grep -c '^srt: hint:' "$WORK/err")" = 1
	srt__run -s "$S0" -c 'mkdir -p ~/.cache/pip/http; mkdir -p ~/.cargo/registry; mkdir -p ~/go/pkg/mod' >/dev/null 2>"$WORK/err"
	check "F pip, cargo and go: the summary names each cache's setting" \
		eval 'grep -q "filesystem.allowCaches: \[\"pip\"" "$WORK/err" && grep -q "filesystem.allowCaches: \[\"cargo\"\]" "$WORK/err" && grep -q "filesystem.allowCaches: \[\"go\"\]" "$WORK/err"'
	srt__run -s "$S0" -c 'echo x > ~/other' >/dev/null 2>"$WORK/err"
	check "F a refused write elsewhere in HOME: no cache hint" test "$(grep -c '^srt: hint:' "$WORK/err")" = 0
	srt__run -s "$SN" -c 'mkdir -p ~/.cache/pip/x; echo x > ~/.npm/ok' >/dev/null 2>"$WORK/err"
	check "F an opened cache is not hinted again, another one is" \
		eval '! grep -q "\"npm\"" "$WORK/err" && grep -q "filesystem.allowCaches: \[\"pip\"" "$WORK/err"'
	rm -rf "$HOME/.npm"
else
	skip "the kernel cannot run the seccomp observer here: no violations, so no summary hints"
fi

# --- allowCaches: ["npm"]: ~/.npm writable (created), nothing else in HOME
srt__run -s "$SN" -c 'mkdir -p ~/.npm/_cacache && echo cached > ~/.npm/_cacache/f' >/dev/null 2>&1; rc=$?
check "F allowCaches npm: ~/.npm is created and written (rc=$rc)" \
	test $rc = 0 -a "$(cat "$HOME/.npm/_cacache/f" 2>/dev/null)" = cached
srt__run -s "$SN" -c 'echo x > ~/other' >/dev/null 2>&1; rc=$?
check "F allowCaches npm: ~/other stays unwritable (rc=$rc)" test $rc != 0 -a ! -e "$HOME/other"
srt__run -s "$SN" -c 'mkdir -p ~/.cache/pip' >/dev/null 2>&1; rc=$?
check "F allowCaches npm: pip's cache stays closed (rc=$rc)" test $rc != 0 -a ! -e "$HOME/.cache"
srt__run -s "$SN" -c 'echo x > ~/.npmrc' >/dev/null 2>&1; rc=$?
check "F allowCaches npm: ~/.npmrc beside the cache stays unwritable" test $rc != 0 -a ! -e "$HOME/.npmrc"
if command -v npm >/dev/null; then
	rm -rf "$HOME/.npm"
	srt__run -s "$S0" -c 'npm cache verify' >/dev/null 2>&1; rc0=$?
	srt__run -s "$SN" -c 'npm cache verify' >/dev/null 2>&1; rc=$?
	check "F the real npm: cache verify fails without the setting ($rc0) and works with it ($rc)" \
		test $rc0 != 0 -a $rc = 0 -a -d "$HOME/.npm/_cacache"
else
	skip "npm is not installed: the real tool is not tried"
fi

# the protections inside a write root apply in the cache too
srt__run -s "$SN" -c 'echo x > ~/.npm/.bashrc; echo x > ~/.npm/.gitconfig' >/dev/null 2>&1
check "F protected names inside the cache stay unwritable" \
	test ! -s "$HOME/.npm/.bashrc" -a ! -s "$HOME/.npm/.gitconfig"
mkdir -p "$HOME/.npm/secret" && echo "$CANARY" >"$HOME/.npm/secret/token"
SD=$(fs deny '{"denyRead":["~/.npm/secret"],"allowWrite":["."],"denyWrite":["~/.npm/frozen"],"allowCaches":["npm"]}')
mkdir -p "$HOME/.npm/frozen"
out=$(srt__run -s "$SD" -c 'cat ~/.npm/secret/token; echo x > ~/.npm/frozen/f; echo y > ~/.npm/free' 2>/dev/null)
check "F denyRead inside the cache: the file stays unread" no_canary <(printf '%s\n' "$out")
check "F denyWrite inside the cache wins" test ! -e "$HOME/.npm/frozen/f" -a "$(cat "$HOME/.npm/free" 2>/dev/null)" = y
SH=$(fs hidden '{"denyRead":["~/.npm"],"allowWrite":["."],"denyWrite":[],"allowCaches":["npm"]}')
out=$(srt__run -s "$SH" -c 'cat ~/.npm/secret/token; echo z > ~/.npm/hidden-write' 2>/dev/null)
check "F a cache under denyRead stays hidden: not read, not written" \
	eval 'no_canary <(printf "%s\n" "$out") && test ! -e "$HOME/.npm/hidden-write"'
rm -rf "$HOME/.npm"

# --- the other caches, each exactly its directories
SA=$(caches all '["pip","cargo","go"]')
srt__run -s "$SA" -c 'echo p > ~/.cache/pip/f; echo r > ~/.cargo/registry/f; echo g > ~/.cargo/git/f; echo m > ~/go/pkg/mod/f; echo b > ~/.cache/go-build/f' >/dev/null 2>&1; rc=$?
check "F pip, cargo, go: their cache directories are written (rc=$rc)" \
	test $rc = 0 -a -s "$HOME/.cache/pip/f" -a -s "$HOME/.cargo/registry/f" -a -s "$HOME/.cargo/git/f" \
	     -a -s "$HOME/go/pkg/mod/f" -a -s "$HOME/.cache/go-build/f"
srt__run -s "$SA" -c 'mkdir -p ~/.cargo/bin && echo x > ~/.cargo/bin/cargo' >/dev/null 2>&1
srt__run -s "$SA" -c 'echo x > ~/.cargo/config.toml' >/dev/null 2>&1
srt__run -s "$SA" -c 'echo x > ~/.cache/other; echo x > ~/go/bin' >/dev/null 2>&1
check "F cargo's bin/ and config.toml, the rest of ~/.cache and ~/go stay unwritable" \
	test ! -e "$HOME/.cargo/bin" -a ! -e "$HOME/.cargo/config.toml" -a ! -e "$HOME/.cache/other" -a ! -e "$HOME/go/bin"

# the tools' variables are followed inside HOME (the tool sees the same)
out=$(npm_config_cache="$HOME/relocated-npm" srt__run -s "$SN" -c 'echo r > "$npm_config_cache/f" && echo done' 2>&1); rc=$?
check "F npm_config_cache inside HOME is the cache opened (rc=$rc)" \
	test $rc = 0 -a "$(cat "$HOME/relocated-npm/f" 2>/dev/null)" = r -a ! -e "$HOME/.npm"
mkdir -p "$WORK/outside"
rm -f "$MARK"; npm_config_cache="$WORK/outside" srt__run -s "$SN" -c "touch $MARK" >/dev/null 2>"$WORK/err"; rc=$?
check "F npm_config_cache outside HOME: refused before anything runs, names the variable" \
	eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "filesystem.allowCaches\[0\].*npm_config_cache" "$WORK/err"'
rm -f "$MARK"; XDG_CACHE_HOME="$HOME/.ssh" srt__run -s "$(caches pip '["pip"]')" -c "touch $MARK" >/dev/null 2>"$WORK/err"; rc=$?
check "F a cache variable pointing into ~/.ssh: refused, nothing runs, ~/.ssh unchanged" \
	test $rc = 1 -a ! -e "$MARK" -a ! -e "$HOME/.ssh/pip"
rm -rf "$HOME/go"
GOPATH="$HOME/gopath:/elsewhere" GOCACHE="$HOME/gocache" srt__run -s "$(caches go '["go"]')" \
	-c 'echo m > ~/gopath/pkg/mod/f; echo b > ~/gocache/f' >/dev/null 2>&1; rc=$?
check "F GOPATH (its first entry) and GOCACHE are followed (rc=$rc)" \
	test $rc = 0 -a -s "$HOME/gopath/pkg/mod/f" -a -s "$HOME/gocache/f" -a ! -e "$HOME/go"

# --- a cache directory that is a link: refused, never followed
mkdir -p "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$HOME/.npm"
rm -f "$MARK"; srt__run -s "$SN" -c "touch $MARK; echo x > ~/.npm/planted" >/dev/null 2>"$WORK/err"; rc=$?
check "F ~/.npm a link out of HOME: refused (rc=$rc), nothing ran, nothing written there" \
	test $rc = 1 -a ! -e "$MARK" -a ! -e "$WORK/elsewhere/planted"
check "F the refusal names the key and the link" grep -q 'filesystem.allowCaches\[0\].*symbolic link' "$WORK/err"
rm "$HOME/.npm"
ln -s "$HOME/.ssh" "$HOME/.npm"
rm -f "$MARK"; srt__run -s "$SN" -c "touch $MARK; echo key > ~/.npm/authorized_keys" >/dev/null 2>&1; rc=$?
check "F ~/.npm a link to ~/.ssh: refused, ~/.ssh unchanged" \
	test $rc = 1 -a ! -e "$MARK" -a ! -e "$HOME/.ssh/authorized_keys"
rm "$HOME/.npm"
rm -rf "$HOME/.cache/pip"
ln -s "$WORK/elsewhere" "$HOME/.cache/pip"
rm -f "$MARK"; srt__run -s "$(caches pip2 '["pip"]')" -c "touch $MARK" >/dev/null 2>"$WORK/err"; rc=$?
check "F a link deeper on the way (~/.cache/pip): refused" \
	eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "symbolic link" "$WORK/err"'
rm "$HOME/.cache/pip"

# --- bad names
SU=$(caches unknown '["npm","yarn"]')
rm -f "$MARK"; srt__run -s "$SU" -c "touch $MARK" >/dev/null 2>"$WORK/err"; rc=$?
check "F an unknown cache name: exit 1, nothing ran" test $rc = 1 -a ! -e "$MARK"
check "F the error names the key and the value" grep -q 'filesystem.allowCaches\[1\]: "yarn"' "$WORK/err"
SE=$(caches empty '[""]')
rm -f "$MARK"; srt__run -s "$SE" -c "touch $MARK" >/dev/null 2>&1; rc=$?
check "F an empty cache name is refused" test $rc = 1 -a ! -e "$MARK"
SS=$(caches str '"npm"')
rm -f "$MARK"; srt__run -s "$SS" -c "touch $MARK" >/dev/null 2>&1; rc=$?
check "F allowCaches that is not an array is refused" test $rc = 1 -a ! -e "$MARK"

echo "1..$_tap_n"
exit $_tap_failed
