#!/bin/bash
# Escape class: denies on paths that do not exist yet (F7) and
# glob rules (F9). Every way to bring a denied name into existence from
# inside (create, O_EXCL, rename onto it, link onto it, remove the
# placeholder first, create the parent first) must fail, nothing may be
# read back, and nothing may be left on the host. A glob rule is enforced
# or refused before anything runs, never silently dropped.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s '{"denyRead":["~/.ssh","./credentials.json","./newdir/secret"],"allowWrite":["."],"denyWrite":["./credentials.json","./gen/out","./newdir/secret"]}')
: > "$WORK/out"; : > "$WORK/err"
before=$(snapshot "$WORK" | grep -v "^\./\(out\|err\) ")

try_create() { # try_create WHAT SHELL
	srt__run -s "$S" -c "$2; cat credentials.json newdir/secret gen/out/x 2>/dev/null; true" >"$WORK/out" 2>&1
	attempt F7 "$1: nothing created on the host" \
		test ! -s "$P/credentials.json" -a ! -e "$P/newdir/secret" -a ! -e "$P/gen/out/x"
	attempt F7 "$1: nothing read back" sh -c "! grep -q PWN '$WORK/out'"
}
try_create "plain create" 'echo PWN > credentials.json; mkdir -p newdir; echo PWN > newdir/secret; mkdir -p gen/out; echo PWN > gen/out/x'
try_create "O_CREAT|O_EXCL and O_TRUNC" '/usr/bin/python3 -c "
import os
for f in (\"credentials.json\", \"newdir/secret\"):
    for fl in (os.O_CREAT|os.O_EXCL|os.O_WRONLY, os.O_CREAT|os.O_TRUNC|os.O_WRONLY):
        try:
            os.write(os.open(f, fl, 0o644), b\"PWN\")
        except OSError:
            pass
"'
try_create "rename onto the name" 'echo PWN > t1 && mv -f t1 credentials.json; mkdir -p newdir; echo PWN > t2 && mv -f t2 newdir/secret; mkdir -p t3 && echo PWN > t3/x && mv -T t3 gen/out; rm -rf t1 t2 t3'
try_create "link onto the name" 'echo PWN > t1 && ln -f t1 credentials.json; ln -sf t1 credentials.json; mkdir -p newdir; ln -f t1 newdir/secret; rm -f t1'
try_create "remove the placeholder first" 'rm -rf credentials.json newdir gen; echo PWN > credentials.json; mkdir -p newdir gen/out; echo PWN > newdir/secret; echo PWN > gen/out/x'
try_create "exchange with a prepared file" 'echo PWN > t1; /usr/bin/python3 -c "import ctypes; l=ctypes.CDLL(None); l.renameat2(-100, b\"t1\", -100, b\"credentials.json\", 2)"; rm -f t1'
after=$(snapshot "$WORK" | grep -v "^\./\(out\|err\) ")
attempt F7 "no placeholder or file left on the host afterwards" test "$before" = "$after"
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20 | sed 's/^/# /'

# F9: glob rules
mkdir -p "$P/a/b"
echo "$CANARY" > "$P/a/b/k.pem"
echo orig > "$P/a/b/w.lock"
G=$(fsjson g '{"denyRead":["**/*.pem"],"allowWrite":["."],"denyWrite":[]}')
srt__run -s "$G" -c 'cat a/b/k.pem; cat ./a/../a/b/k.pem; find . -name "*.pem" -exec cat {} +' >"$WORK/out" 2>&1; rc=$?
attempt F9 "denyRead glob: existing match not read (rc=$rc)" no_leak "$WORK/out"
for rule in '"denyWrite":["**/*.lock"]' '"denyWrite":["a/*/w.lock"]' '"denyWrite":["./a/b/w.l?ck"]'; do
	G=$(fsjson g "{\"denyRead\":[],\"allowWrite\":[\".\"],$rule}")
	rm -f "$P/ran"
	srt__run -s "$G" -c 'touch ran; echo PWN > a/b/w.lock; echo PWN > a/b/new.lock' >/dev/null 2>"$WORK/err"; rc=$?
	if [ -e "$P/ran" ]; then
		attempt F9 "${rule#*:} enforced: the matching file is unchanged" test "$(cat "$P/a/b/w.lock")" = orig
	else
		attempt F9 "${rule#*:} refused before running (rc=$rc), with a message" test "$rc" = 1 -a -s "$WORK/err"
	fi
done
G=$(fsjson g '{"denyRead":[],"allowWrite":["./a/*"],"denyWrite":[]}')
rm -f "$P/ran"
srt__run -s "$G" -c "touch ran; echo PWN > '$HOME/outside/glob'" >/dev/null 2>&1; rc=$?
attempt F9 "allowWrite glob: enforced or refused, never widened (rc=$rc)" test ! -e "$HOME/outside/glob"

echo "1..$_tap_n"
