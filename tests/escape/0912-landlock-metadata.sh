#!/bin/bash
# Escape class H7 (linux-landlock): mode and time changes, and protected
# names deep in a write root. Landlock has no right for chmod or utimes, so
# before the supervisor judged them the command could make a git hook
# executable (git then runs it on the host), touch .git/config, or chmod
# and touch any file it owns outside the write roots (a private key made
# world-readable). And the supervisor's name patterns only held within
# mandatoryDenySearchDepth of a write root, so a .bashrc or a nested
# repository's .git/config six levels down could be written. Each line
# asserts on host state: modes, times, contents, and whether a file exists.
. "$(dirname "$0")/lib.sh"
LL=$BACKEND_LL
ll() { timeout -k 5 60 "$SRT" --backend="$LL" "$@"; }
P="$WORK/proj"
D="a/b/c/d/e"
mkdir -p "$P/.git/hooks" "$P/$D/repo/.git" "$HOME/outside"
printf '[core]\n\tbare = false\n' > "$P/.git/config"
printf '[core]\n\tbare = false\n' > "$P/$D/repo/.git/config"
printf '#!/bin/sh\ntouch %s/PWNED-HOOK\n' "$WORK" > "$P/.git/hooks/post-checkout"
chmod 644 "$P/.git/hooks/post-checkout"
echo tool > "$HOME/outside/tool"
chmod 644 "$HOME/outside/tool"
touch -d '2020-01-01 00:00:00' "$P/.git/config" "$HOME/outside/tool"
key_mode=$(stat -c %a "$HOME/.ssh/id_canary")
cfg_time=$(stat -c %Y "$P/.git/config")
out_time=$(stat -c %Y "$HOME/outside/tool")
nested=$(cat "$P/$D/repo/.git/config")
cd "$P" || exit 1
S=$(fsjson s "$S0_FS")
if ! out=$(ll -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 9 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi

cat > "$WORK/fdmeta.py" <<'EOF'
import os
fd = os.open(".git/hooks/post-checkout", os.O_RDONLY)
for f in (lambda: os.fchmod(fd, 0o755), lambda: os.chmod("/proc/self/fd/%d" % fd, 0o755),
          lambda: os.utime(fd, (0, 0))):
    try:
        f()
    except OSError:
        pass
EOF
ll -s "$S" -c "
	chmod +x .git/hooks/post-checkout
	ln -s .git/hooks/post-checkout via-link; chmod 755 via-link
	$PY $WORK/fdmeta.py
	touch .git/config; touch -d '2001-01-01' .git/config
	chmod 600 $HOME/outside/tool; touch $HOME/outside/tool
	chmod 604 $HOME/.ssh/id_canary
	echo PWNED-DEEP > $D/.bashrc
	printf '[core]\\n\\tfsmonitor = touch $WORK/PWNED-NESTED\\n' >> $D/repo/.git/config
	mkdir -p $D/f/.claude && echo '{\"hooks\":{}}' > $D/f/.claude/settings.json
	echo '#!/bin/sh' > tool.sh && chmod +x tool.sh && touch -d '2002-02-02' tool.sh
	true" >"$WORK/out" 2>&1
attempt H7 "chmod +x of a git hook (by name, link, descriptor, /proc/self/fd) did not reach it ($(stat -c %a "$P/.git/hooks/post-checkout"))" \
	test "$(stat -c %a "$P/.git/hooks/post-checkout")" = 644
attempt H7 "futimens on a read-only descriptor of the hook did not set its time" \
	test "$(stat -c %Y "$P/.git/hooks/post-checkout")" -gt 0
attempt H7 "touch of .git/config did not change its time" \
	test "$(stat -c %Y "$P/.git/config")" = "$cfg_time"
attempt H7 "chmod and touch outside the write roots did not reach the file ($(stat -c '%a %Y' "$HOME/outside/tool"))" \
	test "$(stat -c %a "$HOME/outside/tool")" = 644 -a "$(stat -c %Y "$HOME/outside/tool")" = "$out_time"
attempt H7 "a denied private key kept its mode ($(stat -c %a "$HOME/.ssh/id_canary"))" \
	test "$(stat -c %a "$HOME/.ssh/id_canary")" = "$key_mode"
attempt H7 "no .bashrc six levels down" test ! -e "$P/$D/.bashrc"
attempt H7 "a nested repository's .git/config six levels down is unchanged" \
	test "$(cat "$P/$D/repo/.git/config")" = "$nested"
attempt H7 "no .claude/settings.json seven levels down" test ! -e "$P/$D/f/.claude/settings.json"
attempt H7 "an ordinary file's mode and time still change ($(stat -c '%a %Y' "$P/tool.sh" 2>/dev/null))" \
	sh -c "[ \"\$(stat -c %a '$P/tool.sh')\" = 755 ] && [ \"\$(stat -c %Y '$P/tool.sh')\" = \"\$(date -d 2002-02-02 +%s)\" ] &&
	       grep -q 'deny chmod .*post-checkout' '$WORK/out'"
test ! -e "$WORK/PWNED-HOOK" -a ! -e "$WORK/PWNED-NESTED" || not_ok "H7 a planted hook or fsmonitor ran"
echo "1..$_tap_n"
