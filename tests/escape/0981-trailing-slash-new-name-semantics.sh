#!/bin/bash
# Semantics (linux-bwrap), red team on a61f400: with denyRead set the
# monitor makes opens, mknod, link and rename itself, and answers some
# names ending in a slash unlike the kernel (which answers each of these
# before it makes anything):
#  - mknod/mkfifo("new/") and link("f", "new/") at a missing name: the
#    kernel answers ENOENT (filename_create: a slash asks for a
#    directory), the monitor makes "new";
#  - link("f", "dl/") at a dangling link: EEXIST (the name exists), the
#    monitor ENOTDIR;
#  - rename("f", "new/"): ENOTDIR (a file named as a directory), the
#    monitor renames f to new;
#  - open("sd/" or "f/", O_WRONLY|O_CREAT[|O_EXCL]): EISDIR (O_CREAT with
#    a trailing slash, before anything else), the monitor EEXIST or
#    ENOTDIR. The write-only opens are new with a61f400 (before it they
#    went to the kernel); the others were already so before it.
# Each case runs in a fresh directory, in srt and on the host.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/probe.py" <<'PYEOF'
import errno, os
W, C, E = os.O_WRONLY, os.O_CREAT, os.O_EXCL
cases = [
    ("mknod-new/", lambda: os.mknod("new/", 0o100644)),
    ("mkfifo-new/", lambda: os.mkfifo("new/")),
    ("link-f-new/", lambda: os.link("f", "new/")),
    ("link-f-dl/", lambda: os.link("f", "dl/")),
    ("rename-f-new/", lambda: os.rename("f", "new/")),
    ("open-sd/-wronly-creat-excl", lambda: os.close(os.open("sd/", W | C | E, 0o644))),
    ("open-f/-wronly-creat-excl", lambda: os.close(os.open("f/", W | C | E, 0o644))),
    ("open-f/-wronly-creat", lambda: os.close(os.open("f/", W | C, 0o644))),
]
top = os.getcwd()
for i, (what, fn) in enumerate(cases):
    os.chdir(top)
    os.mkdir("c%d" % i)
    os.chdir("c%d" % i)
    open("f", "w").close()
    os.mkdir("d")
    os.symlink("missing", "dl")
    os.symlink("d", "sd")
    try:
        fn()
        r = "made"
    except OSError as e:
        r = "errno " + errno.errorcode.get(e.errno, str(e.errno))
    print(what, r, ",".join(sorted(n for n in os.listdir(".") if not n.startswith("."))))
PYEOF
mkdir -p "$P/in" "$WORK/hostcmp"
out=$(cd "$P/in" && srt__run -s "$S" -c "$PY $WORK/probe.py" 2>&1)
host=$(cd "$WORK/hostcmp" && "$PY" "$WORK/probe.py" 2>&1)
diag "sandbox: $(echo "$out" | tr '\n' ';')" "host: $(echo "$host" | tr '\n' ';')"
for c in mknod-new/ mkfifo-new/ link-f-new/ link-f-dl/ rename-f-new/ open-sd/-wronly-creat-excl open-f/-wronly-creat-excl open-f/-wronly-creat; do
	a=$(printf '%s\n' "$out" | grep -F "$c " | head -1)
	b=$(printf '%s\n' "$host" | grep -F "$c " | head -1)
	attempt S "$c answers as in the kernel ($b)" test -n "$b" -a "$a" = "$b"
done
echo "1..$_tap_n"
