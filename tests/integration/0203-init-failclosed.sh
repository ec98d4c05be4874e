#!/bin/bash
# In-sandbox helper fails closed (K11): when a layer it was
# asked for cannot be set up, srt-linux-init says which one and exits 125
# without running the command. The marker file the command would create is
# checked on the host.
. "$(dirname "$0")/lib.sh"

plan 38
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

# Started before srt has planned (bwrap beside the plan), the helper takes
# its options from a memfd srt seals once they are all in it. One that is
# not sealed is a plan srt did not finish (it died while planning): nothing
# may run, whatever the memfd holds. opts_fd SEAL WORDS... :: ARGS...: run
# the helper with such a memfd and ARGS after it (SEAL 1: sealed against
# writing, growing, shrinking and further seals).
opts_fd() {
	python3 - "$H" "$@" <<'PY'
import fcntl, os, sys
h, seal, rest = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
cut = rest.index("::")
words, args = rest[:cut], rest[cut + 1:]
fd = os.memfd_create("opts", os.MFD_ALLOW_SEALING)
os.write(fd, b"".join(w.encode() + b"\0" for w in words))
if seal:
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
os.set_inheritable(fd, True)
os.execv(h, [h, "--options-fd", str(fd)] + args)
PY
}
opts_fd 0 --make-dev-proc :: -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "options memfd not sealed: exit 125, nothing ran, said (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'options are not sealed' "$WORK/err")"
python3 - "$H" "$MARK" 2>"$WORK/err" <<'PY'; rc=$?
import fcntl, os, sys
# sealed against writing only: srt seals all four at once
fd = os.memfd_create("opts", os.MFD_ALLOW_SEALING)
os.write(fd, b"--make-dev-proc\0")
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE)
os.set_inheritable(fd, True)
os.execv(sys.argv[1], [sys.argv[1], "--options-fd", str(fd), "--", "touch", sys.argv[2]])
PY
check "options memfd sealed against writing only: exit 125, nothing ran (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'options are not sealed' "$WORK/err")"
opts_fd 1 --hide-file "$WORK/x" -- touch "$MARK" :: -- true 2>"$WORK/err"; rc=$?
check "\"--\" among the memfd's options: exit 125, nothing ran, said (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep '"--" among the options' "$WORK/err")"
python3 - "$H" "$MARK" 2>"$WORK/err" <<'PY'; rc=$?
import fcntl, os, sys
fd = os.memfd_create("opts", os.MFD_ALLOW_SEALING)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
os.set_inheritable(fd, True)
os.execv(sys.argv[1], [sys.argv[1], "--options-fd", str(fd), "touch", sys.argv[2]])
PY
check "options memfd without \"--\" before the command: exit 125, nothing ran (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'the command must follow it' "$WORK/err")"
python3 - "$H" "$MARK" 2>"$WORK/err" <<'PY'; rc=$?
import fcntl, os, sys
fd = os.memfd_create("opts", os.MFD_ALLOW_SEALING)
os.write(fd, b"--make-dev-proc")
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
os.set_inheritable(fd, True)
os.execv(sys.argv[1], [sys.argv[1], "--options-fd", str(fd), "--", "touch", sys.argv[2]])
PY
check "options memfd whose last word has no NUL: exit 125, nothing ran (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'do not end with a NUL' "$WORK/err")"
"$H" --options-fd 99 -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "options memfd that is not open: exit 125, nothing ran (rc=$rc)" test "$rc" = 125 -a ! -e "$MARK"
opts_fd 1 --close-fd 98 :: -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "--close-fd of a descriptor that is not open: exit 125, nothing ran, named (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep -- "--close-fd: '98'" "$WORK/err")"
opts_fd 1 --bogus :: -- touch "$MARK" 2>"$WORK/err"; rc=$?
check "an unknown option in the memfd: exit 125, nothing ran, named (rc=$rc)" \
	test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep "'--bogus'" "$WORK/err")"

# srt starts bwrap before it plans: a plan that then fails must take that
# bwrap with it. A denyRead path under a loop of links cannot be planned.
ln -s loop "$WORK/loop"
L=$(settings "{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[\"$WORK/loop/x\"],\"allowWrite\":[],\"denyWrite\":[]}}")
"$SRT" --settings "$L" -c "touch $WORK/loop-ran" 2>"$WORK/err"; rc=$?
check "a plan that fails after bwrap started: exit 1, nothing ran, the path named (rc=$rc: $(head -c 200 "$WORK/err"))" \
	test "$rc" = 1 -a ! -e "$WORK/loop-ran" -a -n "$(grep -F "$WORK/loop" "$WORK/err")"
# The same through the library, in a process that lives on (an agent that
# embeds libsrt): the failed run leaves no bwrap behind, neither waiting
# for its options nor unreaped.
cat > "$WORK/left.c" <<'C'
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <srt/srt.h>

int main(int argc, char **argv)
{
	struct srt_sandbox *sb = NULL;
	struct srt_diag d;
	const char *cmd[] = { "/usr/bin/touch", argv[2], NULL };
	int status = 0, rc, left = 0;
	struct dirent *e;
	DIR *p;

	memset(&d, 0, sizeof(d));
	if (argc != 3 || srt_sandbox_new_from_file(&sb, argv[1], 1, NULL, &d) ||
	    srt_sandbox_start(sb, &d))
		return fprintf(stderr, "setup: %s\n", d.message), 2;
	rc = srt_sandbox_run(sb, cmd, NULL, &status, &d);
	fprintf(stderr, "run: %d %s\n", rc, d.message);
	p = opendir("/proc");
	while (p && (e = readdir(p))) {
		char path[64], buf[512], *c;
		FILE *f;
		int ppid;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) && (c = strrchr(buf, ')')) &&
		    sscanf(c + 2, "%*c %d", &ppid) == 1 && ppid == getpid() && strstr(buf, "(bwrap)"))
			left++;
		fclose(f);
	}
	if (p)
		closedir(p);
	printf("%s %d\n", rc ? "failed" : "ran", left);
	fflush(stdout);
	srt_sandbox_free(sb);
	return 0;
}
C
if libsrt_cc "$WORK/left" "$WORK/left.c"; then
	out=$(SRT_BACKEND_DIR=$(dirname "$BACKEND") "$WORK/left" "$L" "$WORK/lib-ran" 2>"$WORK/err")
	check "library: a plan that fails after bwrap started leaves no bwrap child, alive or unreaped ($out; $(head -c 160 "$WORK/err"))" \
		test "$out" = "failed 0" -a ! -e "$WORK/lib-ran"
else
	not_ok "library: the check program builds ($(head -c 300 "$WORK/cc.err"))"
fi
