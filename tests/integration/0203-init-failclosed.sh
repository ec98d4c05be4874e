#!/bin/bash
# In-sandbox helper fails closed (K11): when a layer it was
# asked for cannot be set up, srt-linux-init says which one and exits 125
# without running the command. The marker file the command would create is
# checked on the host.
. "$(dirname "$0")/lib.sh"

plan 28
H=$INIT_HELPER
MARK="$WORK/proj/ran"

if [ ! -x "$H" ]; then
	for i in $(seq 22); do skip "srt-linux-init not built"; done
	exit 0
fi

"$H" --bogus -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "unknown helper option: exit 125 (rc=$rc)" test "$rc" = 125
check "unknown helper option: the command did not run" test ! -e "$MARK"
check "unknown helper option: named" grep -q "'--bogus'" "$WORK/err"

"$H" --proxy-socket "$WORK/p.sock" -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "proxy socket without ports: exit 125, nothing ran (rc=$rc)" test "$rc" = 125 -a ! -e "$MARK"
"$H" --proxy-socket "$WORK/p.sock" --proxy-socket-id 12:x --http-port 3128 --socks-port 1080 -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "malformed proxy socket identity: exit 125, nothing ran, named (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" && grep -q -- "--proxy-socket-id: '12:x'" "$WORK/err"
"$H" --proxy-socket "$WORK/p.sock" --http-port 3128 --socks-port 1080 -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "proxy socket without its identity: exit 125, nothing ran (rc=$rc)" test "$rc" = 125 -a ! -e "$MARK"

# No CAP_SYS_ADMIN from bwrap and no user namespaces allowed below it: the
# nested namespaces cannot be made, so the command must not run at all.
if bwrap --help 2>&1 | grep -q -- --disable-userns; then
	bwrap --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid --unshare-user \
		--disable-userns --as-pid-1 --cap-drop ALL --proc /proc \
		-- "$H" -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "K11 nested namespaces impossible: exit 125 (rc=$rc)" test "$rc" = 125
	check "K11 nested namespaces impossible: the command did not run" test ! -e "$MARK"
	check "K11 nested namespaces impossible: the step is named" \
		grep -q '^srt-linux-init: create the nested' "$WORK/err"
else
	skip "K11 bwrap has no --disable-userns (< 0.8)"
	skip "K11 bwrap has no --disable-userns (< 0.8)"
	skip "K11 bwrap has no --disable-userns (< 0.8)"
fi

# The seccomp filter cannot be installed: the command must not run.
if [ -x "$SYSPROBE" ]; then
	"$SYSPROBE" deny-seccomp "$H" -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "K11 seccomp unavailable: exit 125 (rc=$rc)" test "$rc" = 125
	check "K11 seccomp unavailable: the command did not run" test ! -e "$MARK"
	check "K11 seccomp unavailable: the step is named" grep -q '^srt-linux-init: seccomp' "$WORK/err"
else
	skip "sysprobe not built"
	skip "sysprobe not built"
	skip "sysprobe not built"
fi

# The same through srt: one clear line, nothing ran. With the helper's
# status channel wired (--status-fd in the bwrap argv) srt reports the
# layer as its own failure (exit 1, as for any setup error); without it the helper's 125
# passes through.
if [ -x "$SYSPROBE" ]; then
	S=$(settings "$DEFAULT_SETTINGS")
	if srt__run -s "$S" --explain -c true 2>/dev/null | grep -q -- '--status-fd'; then want=1; else want=125; fi
	"$SYSPROBE" deny-seccomp timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
	check "K11 via srt, seccomp unavailable: exit $want (rc=$rc)" test "$rc" = "$want"
	check "K11 via srt: the command did not run" test ! -e "$MARK"
	check "K11 via srt: one line naming the layer" test "$(grep -c seccomp "$WORK/err")" = 1
else
	skip "sysprobe not built"
	skip "sysprobe not built"
	skip "sysprobe not built"
fi

# Control: the same helper with the layers available does run the command,
# so the refusals above are the helper's doing.
if bwrap --help 2>&1 | grep -q -- --as-pid-1; then
	bwrap --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid --unshare-user \
		--as-pid-1 --cap-drop ALL --cap-add CAP_SYS_ADMIN --proc /proc \
		-- "$H" -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "control: with the layers available the command runs (rc=$rc)" test "$rc" = 0 -a -e "$MARK"
else
	skip "bwrap has no --as-pid-1"
fi
rm -f "$MARK"

# The nested init and the worker set their layers up while the outer
# helper still sets up its own (here the proxy bridge's listeners); the
# command may start only once the outer helper is done. Every bind(2) is
# held 1.5 s and then refused: the worker is ready long before, and the
# command must still not run. Then the same without the hold runs it.
HOLD="$top_builddir/tests/helpers/notify-hold"
if [ -x "$HOLD" ] && bwrap --help 2>&1 | grep -q -- --as-pid-1 &&
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$WORK/p.sock"; then
	id=$(stat -c '%d:%i' "$WORK/p.sock")
	bridge() {
		"$@" bwrap --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid --unshare-user \
			--unshare-net --as-pid-1 --cap-drop ALL --cap-add CAP_SYS_ADMIN --proc /proc \
			-- "$H" --proxy-socket "$WORK/p.sock" --proxy-socket-id "$id" --http-port 3128 \
			--socks-port 1080 -- touch "$MARK" 2>"$WORK/err"
	}
	bridge "$HOLD" 1500; rc=$?
	check "the outer helper fails after the worker is ready: exit 125, the command did not run, named (rc=$rc)" \
		test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'proxy bridge could not start' "$WORK/err")"
	bridge env; rc=$?
	check "control: the same without the hold runs the command (rc=$rc)" test "$rc" = 0 -a -e "$MARK"
	rm -f "$MARK"
else
	skip "notify-hold not built, bwrap has no --as-pid-1, or no Unix socket here"
	skip "notify-hold not built, bwrap has no --as-pid-1, or no Unix socket here"
fi

# --hide-file: the helper covers a denied file with a read-only /dev/null
# itself (mounts.h). It must hold, and a target that is not the planned
# file (a link, a path through a link, a directory, gone) must stop the run.
if bwrap --help 2>&1 | grep -q -- --as-pid-1; then
	mkdir -p "$WORK/hide/real"
	echo secret > "$WORK/hide/real/f"
	ln -s real "$WORK/hide/dirlink"
	ln -s real/f "$WORK/hide/filelink"
	hide() {
		bwrap --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid --unshare-user \
			--as-pid-1 --cap-drop ALL --cap-add CAP_SYS_ADMIN --proc /proc \
			-- "$H" --hide-file "$1" -- sh -c "$2" 2>"$WORK/err"
	}
	hide "$WORK/hide/real/f" "cat '$WORK/hide/real/f' || echo x > '$WORK/hide/real/f' || touch '$MARK'"; rc=$?
	check "hide-file: the file can be neither read nor written inside (rc=$rc)" \
		test "$rc" = 0 -a -e "$MARK" -a "$(cat "$WORK/hide/real/f")" = secret
	check "hide-file: the refusal is EACCES, as bwrap's /dev/null bind gives" \
		grep -q 'Permission denied' "$WORK/err"
	rm -f "$MARK"
	for t in "filelink:a link" "dirlink/f:a path through a link" "real:a directory" "real/gone:a missing file"; do
		hide "$WORK/hide/${t%%:*}" "touch '$MARK'"; rc=$?
		check "hide-file on ${t#*:}: exit 125, nothing ran, named (rc=$rc)" \
			test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep "^srt-linux-init: hide $WORK/hide/${t%%:*} " "$WORK/err")"
		rm -f "$MARK"
	done
	"$H" --hide-file relative -- true 2>"$WORK/err"; rc=$?
	check "hide-file with a relative path: exit 125, named (rc=$rc)" \
		test "$rc" = 125 -a -n "$(grep "'relative' is not an absolute path" "$WORK/err")"
else
	for i in $(seq 7); do skip "bwrap has no --as-pid-1"; done
fi

out=$("$H" 2>&1); rc=$?
check "no command: exit 125 with usage (rc=$rc)" test "$rc" = 125 -a -n "$out"

# a bwrapPath that ends without building anything: the run stops, and the
# message points at bwrap and the setting, not at namespaces that work
B=$(settings '{"bwrapPath":"/bin/false","network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}')
"$SRT" --settings "$B" -c "touch $WORK/bf-ran" 2>"$WORK/err"; rc=$?
check "bwrapPath /bin/false: exit 1 and nothing run (rc=$rc)" test "$rc" = 1 -a ! -e "$WORK/bf-ran"
check "bwrapPath /bin/false: the message names bwrap, not namespaces ($(head -c 200 "$WORK/err"))" \
	grep -q "bubblewrap (/bin/false) ended before it created the sandbox.*check bwrapPath" "$WORK/err"
