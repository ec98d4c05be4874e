#!/bin/bash
# Escape class H7: linux-landlock write roots stay usable and the protected
# names stay closed. Inside the write root "." the command creates, renames
# and removes files and directories at every level, the top included (the
# shapes of npm install, git init, mkdir build, sed -i and an editor's
# atomic save), while every route to a protected name fails: a symbolic
# link to it, "..", a hard link, a /proc/self/fd path, an unnamed file
# linked in, a directory renamed onto .git, a tree made elsewhere and
# renamed into place, and another thread rewriting the path buffer while
# the call is in flight. Each line asserts on host state.
. "$(dirname "$0")/lib.sh"
LL=$BACKEND_LL
ll() { timeout -k 5 60 "$SRT" --backend="$LL" "$@"; }
P="$WORK/proj"
mkdir -p "$P/.git/hooks" "$P/deep/a/b/c"
printf '[core]\n\tbare = false\n' > "$P/.git/config"
echo ref > "$P/.git/HEAD"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
cfg_before=$(cat "$P/.git/config")
if ! out=$(ll -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 12 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi

# the ordinary work of a build, at the top of the write root
ll -s "$S" -c '
	mkdir -p node_modules/pkg/lib && echo "module.exports=1" > node_modules/pkg/lib/index.js
	mkdir build && echo obj > build/a.o && mv build/a.o build/b.o
	echo one > notes.txt && sed -i s/one/two/ notes.txt
	echo v1 > doc.txt && echo v2 > .doc.txt.swp && mv .doc.txt.swp doc.txt
	mkdir .libs && echo lib > .libs/libx.so && rm -rf .libs
	mkdir fresh && cd fresh && git init -q . && git config user.name t' >"$WORK/out" 2>&1
attempt H7 "npm install shape: node_modules made at the top" \
	test "$(cat "$P/node_modules/pkg/lib/index.js" 2>/dev/null)" = "module.exports=1"
attempt H7 "mkdir build and a rename in it" test -f "$P/build/b.o" -a ! -e "$P/build/a.o"
attempt H7 "sed -i at the top" test "$(cat "$P/notes.txt" 2>/dev/null)" = two
attempt H7 "an editor's atomic save (write aside, rename over)" test "$(cat "$P/doc.txt" 2>/dev/null)" = v2
attempt H7 "libtool's .libs made and removed" test ! -e "$P/.libs" -a -f "$P/notes.txt"
attempt H7 "git init in a new directory" test -f "$P/fresh/.git/HEAD"

# the routes to a protected name
cat > "$WORK/tmpfile.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644)
os.write(fd, b"PWNED-TMPFILE\n")
libc.linkat(-100, ("/proc/self/fd/%d" % fd).encode(), -100, sys.argv[1].encode(), 0x400)
EOF
ll -s "$S" -c "
	ln -s .bashrc lnk; echo PWNED-LINK > lnk
	mkdir -p up; ln -s ../.git/config up/cfg; echo PWNED-UP >> up/cfg
	echo PWNED-DOTDOT > build/../.zshrc
	ln .git/config hard; echo PWNED-HARD >> hard
	$PY -c 'import os; d = os.open(\".\", os.O_RDONLY); open(\"/proc/self/fd/%d/.profile\" % d, \"w\").write(\"PWNED-PROC\")'
	$PY $WORK/tmpfile.py .bash_profile
	mkdir -p x && printf '[core]\\n\\tfsmonitor = touch $WORK/PWNED\\n' > x/config && mv -T x .git/hooks
	mv -T .git old.git; mkdir -p stage/.git && cp -r old.git/. stage/.git/ 2>/dev/null; mv stage/.git .git2; mv -T .git2 .git
	mkdir -p deep/a/b/c/.vscode && echo '{}' > deep/a/b/c/.vscode/tasks.json && mv deep/a/b/c/.vscode .vscode
	mv deep/a/b/c top-c
	truncate -s 0 .git/config; rm -f .git/config
	true" >"$WORK/out2" 2>&1
attempt H7 "no .bashrc, .zshrc, .profile or .bash_profile appeared (link, .., /proc/self/fd, O_TMPFILE)" \
	test ! -e "$P/.bashrc" -a ! -e "$P/.zshrc" -a ! -e "$P/.profile" -a ! -e "$P/.bash_profile"
attempt H7 ".git/config unchanged (link climbing back, hard link, truncate, rm)" \
	test "$(cat "$P/.git/config" 2>/dev/null)" = "$cfg_before" -a "$(stat -c %h "$P/.git/config")" = 1
attempt H7 ".git not replaced, nothing renamed into .git/hooks" \
	test ! -e "$P/old.git" -a ! -e "$P/.git/hooks/config" -a -f "$P/.git/HEAD"
attempt H7 "no .vscode brought to the top by a rename" test ! -e "$P/.vscode" -a ! -e "$P/top-c/.vscode"
attempt H7 "the refusals were reported as violations" grep -q "deny .*\.bashrc" "$WORK/out2"

# another thread flips the path between an allowed name and .bashrc while
# the main thread opens it: the supervisor acts on the copy it read once
cat > "$WORK/race.py" <<'EOF'
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(64)
good, bad = b"race-ok.txt\0", b".bashrc\0\0\0\0\0"
stop = False
def flip():
    while not stop:
        ctypes.memmove(buf, bad, len(bad)); ctypes.memmove(buf, good, len(good))
t = threading.Thread(target=flip); t.start()
for i in range(2000):
    fd = libc.open(buf, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    if fd >= 0:
        os.write(fd, b"x"); os.close(fd)
stop = True; t.join()
EOF
ll -s "$S" -c "$PY $WORK/race.py" >"$WORK/out3" 2>&1
attempt H7 "a path rewritten by another thread during the call: no .bashrc" \
	test ! -e "$P/.bashrc" -a -s "$P/race-ok.txt"
# the supervisor is the command's parent: tracing it, writing its memory or
# killing it must gain nothing (killing it is refused from Landlock ABI 6;
# before, its end fails every supervised call)
cat > "$WORK/sup.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
sup = int(sys.argv[1])
print("ptrace", libc.ptrace(16, sup, 0, 0))
try:
    open("/proc/%d/mem" % sup, "r+b"); print("MEM-OPEN")
except OSError:
    pass
try:
    os.kill(sup, 9)
except OSError:
    pass
try:
    open(".bashrc", "w").write("PWNED-AFTER-KILL")
except OSError:
    pass
EOF
ll -s "$S" -c "$PY $WORK/sup.py \$PPID" >"$WORK/out4" 2>&1
attempt H7 "the supervisor cannot be traced or its memory opened, and no .bashrc after trying to kill it" \
	sh -c "grep -q 'ptrace -1' '$WORK/out4' && ! grep -q MEM-OPEN '$WORK/out4' && test ! -e '$P/.bashrc'"
test ! -e "$WORK/PWNED" || not_ok "H7 a planted fsmonitor ran"
echo "1..$_tap_n"
