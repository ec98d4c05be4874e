#!/bin/bash
# Escape class H1 (linux-landlock): 0974 and 0977 for the other backend.
# linux-landlock's write supervisor (backends/linux-common/supervisor.c)
# performs every call that creates, replaces, removes or write-opens a
# name in a directory write root, and every bind there, itself, as the
# exec helper's parent, outside the command's Landlock domain. A command
# that sandboxes part of itself with a Landlock domain of its own (an
# agent running tools under landlock, landrun, a nested srt with the
# linux-landlock backend) loses that layer for all of them: under a
# ruleset that handles reading, writing, making, removing, truncating and
# referring with no rule (so everything is refused, as on the host), the
# restricted process opened ./f read-write and read the canary, appended
# to ./g, made ./ll_new, truncated ./t, made a directory, a symbolic link,
# a FIFO, a hard link and (with allowUnixSockets, where the supervisor
# makes the socket) a socket file, removed ./victim and ./victim_dir and
# renamed ./r1, all on the host.
# Fixed since: whenever the supervisor may perform calls (a directory
# write root, or an allowed Unix socket path) the enforcement filter
# refuses landlock_restrict_self (EPERM), so the command is told it
# cannot restrict itself instead of believing a domain the supervisor's
# calls would not honour. Every run with filesystem rules has a directory
# write root (TMPDIR at least). Without the supervisor (filesystem.disabled
# and no allowUnixSockets) the kernel makes every call, and the command
# may still add its domain.
. "$(dirname "$0")/lib.sh"
P="$WORK/proj"
cd "$P" || exit 1
NET=$(printf '{"allowedDomains":[],"deniedDomains":[],"allowUnixSockets":["%s"]}' "$WORK/ok.sock")
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}' "$NET")
SR=$(fsjson sr '{"disabled":true,"denyRead":[],"allowWrite":[],"denyWrite":[]}')
cat > "$WORK/ll.py" <<'PYEOF'
import os, socket, sys
import landlock_self as ll
d = sys.argv[1]
ll.restrict(ll.READ_FILE | ll.WRITE_FILE | ll.MAKE_REG | ll.MAKE_DIR | ll.MAKE_SYM | ll.MAKE_FIFO |
            ll.MAKE_SOCK | ll.REMOVE_FILE | ll.REMOVE_DIR | ll.TRUNCATE | ll.REFER)
def read():
    f = os.open(d + "/f", os.O_RDWR)
    print(os.read(f, 4096).decode(errors="replace").strip())
    os.close(f)
def append():
    f = os.open(d + "/g", os.O_WRONLY | os.O_APPEND)
    os.write(f, b"written-under-landlock\n")
    os.close(f)
def create():
    os.close(os.open(d + "/ll_new", os.O_WRONLY | os.O_CREAT, 0o644))
def bind():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(d + "/ll_sock")
ll.attempts((("read", read), ("append", append), ("create", create),
             ("truncate", lambda: os.truncate(d + "/t", 0)),
             ("mkdir", lambda: os.mkdir(d + "/ll_dir")),
             ("symlink", lambda: os.symlink("x", d + "/ll_lnk")),
             ("mkfifo", lambda: os.mkfifo(d + "/ll_fifo")),
             ("link", lambda: os.link(d + "/g", d + "/ll_hard")),
             ("bind", bind),
             ("unlink", lambda: os.unlink(d + "/victim")),
             ("rmdir", lambda: os.rmdir(d + "/victim_dir")),
             ("rename", lambda: os.rename(d + "/r1", d + "/r2"))))
PYEOF
# stage DIR: the files the probe goes for, fresh
stage() {
	rm -rf "$1"/ll_* "$1"/r2 "$1"/victim_dir
	mkdir -p "$1/victim_dir"
	echo "$CANARY" > "$1/f"
	echo "orig" > "$1/g"
	echo "tttt" > "$1/t"
	: > "$1/victim"
	: > "$1/r1"
}
mkdir -p "$WORK/hostll"
stage "$WORK/hostll"
host=$($LL_PROBE "$WORK/hostll" 2>&1)
if ! echo "$host" | grep -qx "mkdir EACCES"; then
	skip_rest 14 "no Landlock on this kernel: $(echo "$host" | head -1)"
	echo "1..$_tap_n"
	exit 0
fi
if ! out=$(timeout -k 5 60 "$SRT" --backend="$BACKEND_LL" -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 14 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi
stage "$P"
ll_run() { timeout -k 5 60 "$SRT" --backend="$BACKEND_LL" -s "$1" -c "$LL_PROBE $P"; }
ll_run "$S" > "$WORK/out" 2>&1
diag "host: $(echo "$host" | tr '\n' ' ')" "sandbox: $(tr '\n' ' ' < "$WORK/out")"
diag "proj after the run: $(cd "$P" && ls -A | tr '\n' ' ')"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a read-write open the supervisor makes: ./f not read" \
	no_leak "$WORK/out"
attempt H1 "linux-landlock: the command's own Landlock domain holds for an appending open the supervisor makes: ./g not appended to" \
	sh -c "! grep -q written-under-landlock '$P/g'"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a creating open the supervisor makes: no ./ll_new" \
	test ! -e "$P/ll_new"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a truncate the supervisor makes: ./t intact" \
	grep -qx tttt "$P/t"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a mkdir the supervisor makes: no ./ll_dir" \
	test ! -e "$P/ll_dir"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a symlink the supervisor makes: no ./ll_lnk" \
	test ! -L "$P/ll_lnk"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a mknod the supervisor makes: no ./ll_fifo" \
	test ! -e "$P/ll_fifo"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a link the supervisor makes: no ./ll_hard" \
	test ! -e "$P/ll_hard"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a bind the supervisor makes: no ./ll_sock" \
	test ! -e "$P/ll_sock"
attempt H1 "linux-landlock: the command's own Landlock domain holds for an unlink the supervisor makes: ./victim stays" \
	test -e "$P/victim"
attempt H1 "linux-landlock: the command's own Landlock domain holds for an rmdir the supervisor makes: ./victim_dir stays" \
	test -d "$P/victim_dir"
attempt H1 "linux-landlock: the command's own Landlock domain holds for a rename the supervisor makes: ./r1 not renamed" \
	sh -c "test -e '$P/r1' && test ! -e '$P/r2'"
attempt H1 "linux-landlock: the command is told it cannot add a Landlock domain (landlock_restrict_self: EPERM)" \
	grep -qx 'no-restrict EPERM' "$WORK/out"
# no filesystem rules and no Unix socket path: there is no supervisor,
# the kernel makes every call, so the command's own domain holds and it
# may still add one
stage "$P"
ll_run "$SR" > "$WORK/out-nofs" 2>&1
diag "run without filesystem rules: $(tr '\n' ' ' < "$WORK/out-nofs")"
attempt H1 "linux-landlock: without the supervisor the command may add its own Landlock domain, and it holds" \
	sh -c "grep -qx 'mkdir EACCES' '$WORK/out-nofs' && ! grep -q '^no-' '$WORK/out-nofs' && test ! -e '$P/ll_dir'"
echo "1..$_tap_n"
