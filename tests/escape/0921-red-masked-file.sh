#!/bin/bash
# Escape class: a masked credential file (credentials.files, mode mask)
# is served under linux-bwrap as a read-only copy with sentinels at its
# path. The command must not learn the real value by another name of the
# same file: a hard link the host already had, /proc/self/root, a symlink,
# the directory opened by descriptor, or srt's private directory. Each
# attempt's output is checked for the real value.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
REAL="realmasksecret-$$"
mkdir -p "$P/cfg" "$P/other"
printf 'user: keep\ntoken: %s\n' "$REAL" > "$P/cfg/cred.yml"
# names the host already had for the same file
ln "$P/cfg/cred.yml" "$P/other/hardlink.yml"
ln -s "$P/cfg/cred.yml" "$P/other/symlink.yml"
S="$WORK/mask.json"
cat > "$S" <<EOF
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,
  "files":[{"path":"$P/cfg/cred.yml","mode":"mask","extract":"token:\\\\s*(\\\\S+)"}]}}
EOF
run() { srt__run -s "$S" -c "$1" >"$WORK/out" 2>&1; }
nothing_real() { ! grep -qF "$REAL" "$WORK/out"; }

run "cat '$P/cfg/cred.yml'"
if ! grep -q '^token: fake_' "$WORK/out"; then
	skip_rest 8 "this backend does not serve masked copies ($(head -c 200 "$WORK/out" | tr '\n' ' '))"
	echo "1..$_tap_n"
	exit 0
fi
attempt C1 "the masked path reads as the sentinel copy" nothing_real
run "cat '$P/other/hardlink.yml'"
attempt C2 "a hard link the host already had does not show the real value" nothing_real
# one the host had outside every write root (readable, not writable
# inside), where the walk of the write roots does not look: the run is
# refused, naming the file and the fix
ln "$P/cfg/cred.yml" "$HOME/outside/ro-hardlink.yml"
run "cat '$HOME/outside/ro-hardlink.yml'; echo ran"
attempt C2b "a hard link outside the write roots does not show the real value: refused, naming the file ($(head -c 300 "$WORK/out"))" \
	sh -c "! grep -qF '$REAL' '$WORK/out' && ! grep -qx ran '$WORK/out' && grep -q 'cfg/cred.yml.*hard link.*samefile' '$WORK/out'"
rm -f "$HOME/outside/ro-hardlink.yml"
# the same for a denyRead file; a file of a denied directory whose other
# name lies in that directory too is hidden whole, and runs
DS="$WORK/deny.json"
printf 'SECRET-DENIED-%s\n' "$$" > "$P/cfg/denied.env"
ln "$P/cfg/denied.env" "$HOME/outside/denied-link.env"
ln "$HOME/.aws/credentials" "$HOME/.aws/credentials.bak"
fsjson deny "{\"denyRead\":[\"~/.ssh\",\"~/.aws\",\"$P/cfg/denied.env\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}" >/dev/null
srt__run -s "$DS" -c "cat '$HOME/outside/denied-link.env'; echo ran" >"$WORK/out" 2>&1
cp "$WORK/out" "$WORK/out.denied"
rm -f "$HOME/outside/denied-link.env"
srt__run -s "$DS" -c "cat ~/.aws/credentials.bak; echo ran" >"$WORK/out" 2>&1
attempt C2c "a denyRead file's hard link outside the write roots: refused, naming the file ($(head -c 300 "$WORK/out.denied")); its links inside a denied directory run ($(head -c 200 "$WORK/out"))" \
	sh -c "! grep -q SECRET-DENIED '$WORK/out.denied' && ! grep -qx ran '$WORK/out.denied' && grep -q 'cfg/denied.env.*hard link.*samefile' '$WORK/out.denied' && grep -qx ran '$WORK/out' && ! grep -q CANARY-AWS '$WORK/out'"
rm -f "$HOME/.aws/credentials.bak"
# a file of a denied directory deeper than the listing goes (8 levels)
# is not counted: --explain must say so (it said nothing: the note was
# written for the entry bound only)
mkdir -p "$HOME/.aws/1/2/3/4/5/6/7/8/9"
echo deep > "$HOME/.aws/1/2/3/4/5/6/7/8/9/deep"
srt__run -s "$DS" --explain -c true >"$WORK/out" 2>&1
attempt C2d "--explain says that files deeper than the hard-link listing are not checked ($(grep -i 'hard links' "$WORK/out" | head -c 200))" \
	grep -q 'levels deep.*not checked' "$WORK/out"
rm -rf "$HOME/.aws/1"
run "cat '$P/other/symlink.yml'; cat /proc/self/root'$P/cfg/cred.yml'"
attempt C3 "a symlink and /proc/self/root show the copy" nothing_real
run "cd '$P/cfg' && exec 3<. && cat /proc/self/fd/3/cred.yml; $PY -c 'import os; d=os.open(\"$P/cfg\", os.O_RDONLY); print(os.read(os.open(\"cred.yml\", os.O_RDONLY, dir_fd=d), 4096))'"
attempt C4 "the directory opened by descriptor shows the copy" nothing_real
run "cat \${TMPDIR:-/tmp}/srt-*/masked/* /proc/[0-9]*/root'$P/cfg/cred.yml'; find / -xdev -samefile '$P/cfg/cred.yml' 2>/dev/null | xargs cat"
attempt C5 "srt's private directory, other processes' roots and a search by inode" nothing_real
attempt C6 "the real file is intact on the host" grep -qx "token: $REAL" "$P/cfg/cred.yml"
echo "1..$_tap_n"
