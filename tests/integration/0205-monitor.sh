#!/bin/bash
# The Linux violation monitor (issue "Violations you can see", item 2):
# srt-linux-init observes the command's file syscalls and refused Unix
# sockets through a seccomp user-notification listener and reports each
# denial as one line attributed to the command. Checked here: a denied
# read, a denied write (outside the write roots, and a mandatory deny in
# the working directory), a denied host and a denied Unix socket each give
# exactly one event for the right command; allowed work gives none; the
# monitor changes no outcome (same messages and errnos as with the monitor
# unavailable); a flood of denials neither hangs nor grows srt's memory;
# and when the kernel refuses the observer the helper falls back to the
# plain filters, says so under --debug, and the command is still filtered.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"

BUSY="$top_builddir/tests/helpers/notify-busy"
net_server http WEB
S=$(net_settings "[\"localhost:$WEB_PORT\"]" '["evil.test"]')
cp "$S" "$WORK/mon.json"; S="$WORK/mon.json"

# events FILE: the "line" of each JSON event, one per line
events() { [ -e "$1" ] && "$PY" -c '
import json, sys
for l in open(sys.argv[1]):
    print(json.loads(l)["line"])' "$1"; }
# keys FILE: the distinct "key" values
keys() { [ -e "$1" ] && "$PY" -c '
import json, sys
print("\n".join(sorted({json.loads(l)["key"] for l in open(sys.argv[1])})))' "$1"; }
# cmds FILE: the distinct "command" values
cmds() { [ -e "$1" ] && "$PY" -c '
import json, sys
print("\n".join(sorted({json.loads(l)["command"] for l in open(sys.argv[1])})))' "$1"; }
# keys100 FILE: the distinct keys on their first 100 characters (how the
# core compares them: the proxy carries only that much)
keys100() { [ -e "$1" ] && "$PY" -c '
import json, sys
print("\n".join(sorted({json.loads(l)["key"][:100] for l in open(sys.argv[1])})))' "$1"; }
nlines() { if [ -e "$1" ]; then wc -l < "$1"; else echo 0; fi; }

# Is the observer available on this kernel? Then "violation monitor on"
srt__run -s "$S" --debug -c true 2>"$WORK/dbg" >/dev/null
if ! grep -q 'violation monitor on' "$WORK/dbg"; then
	diag "$(grep -m1 'violation monitor' "$WORK/dbg")"
	skip "the kernel cannot run the seccomp observer here"
	echo "1..$_tap_n"
	exit 0
fi
ok "the helper starts the violation monitor"

# --- a denied read --------------------------------------------------------
C1="cat $HOME/.ssh/id_canary"
srt__run -s "$S" --violations-log "$WORK/v1" -c "$C1" >"$WORK/out1" 2>"$WORK/err1"
check "denied read: the secret stays unread" test -z "$(grep -F "$CANARY" "$WORK/out1")"
check "denied read: exactly one event ($(events "$WORK/v1" | tr '\n' '|'))" \
	test "$(events "$WORK/v1")" = "deny openat $HOME/.ssh/id_canary"
check "denied read: attributed to the command" test "$(keys "$WORK/v1")" = "$C1"
check "denied read: the summary on stderr names it" \
	grep -q "srt:   deny openat $HOME/.ssh/id_canary" "$WORK/err1"

# --- denied writes ----------------------------------------------------------
C2="echo x > $WORK/outside.txt"
srt__run -s "$S" --violations-log "$WORK/v2" -c "$C2" 2>/dev/null
check "write outside the roots: nothing on the host" test ! -e "$WORK/outside.txt"
check "write outside the roots: exactly one event ($(events "$WORK/v2" | tr '\n' '|'))" \
	test "$(events "$WORK/v2")" = "deny openat $WORK/outside.txt"
check "write outside the roots: attributed" test "$(keys "$WORK/v2")" = "$C2"

C3="echo x > .bashrc"
srt__run -s "$S" --violations-log "$WORK/v3" -c "$C3" 2>/dev/null
check "mandatory deny .bashrc: not written on the host" test ! -s "$WORK/proj/.bashrc"
check "mandatory deny .bashrc: exactly one event ($(events "$WORK/v3" | tr '\n' '|'))" \
	test "$(events "$WORK/v3")" = "deny openat $WORK/proj/.bashrc"

C4="mkdir $WORK/newdir; rm -f $HOME/.ssh/id_canary"
srt__run -s "$S" --violations-log "$WORK/v4" -c "$C4" 2>/dev/null
check "mkdir and unlink: nothing changed on the host" test ! -e "$WORK/newdir" -a -s "$HOME/.ssh/id_canary"
check "mkdir and unlink: one event each ($(events "$WORK/v4" | tr '\n' '|'))" \
	test "$(events "$WORK/v4" | grep -cE "^deny mkdir(at)? $WORK/newdir\$")" = 1 -a \
	     "$(events "$WORK/v4" | grep -cE "^deny (unlink|unlinkat) $HOME/.ssh/id_canary\$")" = 1 -a \
	     "$(nlines "$WORK/v4")" = 2

# --- a denied host and a denied read in one command --------------------------
C5="cat $HOME/.ssh/id_canary 2>/dev/null; $CURLP http://evil.test/ >/dev/null 2>&1; true"
srt__run -s "$S" --violations-log "$WORK/v5" -c "$C5" 2>/dev/null
check "denied host: exactly one network event ($(events "$WORK/v5" | tr '\n' '|'))" \
	test "$(events "$WORK/v5" | grep -c '^deny network-outbound evil.test:80')" = 1
check "denied host: two events in all (no resolver noise)" test "$(nlines "$WORK/v5")" = 2
check "denied host and denied read: both attributed to the same command" \
	test "$(cmds "$WORK/v5")" = "$C5" -a "$(keys100 "$WORK/v5")" = "${C5:0:100}"

# --- a denied Unix socket, io_uring -----------------------------------------
C6="$SYSPROBE socket-unix"
out=$(srt__run -s "$S" --violations-log "$WORK/v6" -c "$C6" 2>/dev/null)
check "Unix socket: still refused with EPERM ($out)" test "$out" = "socket-unix errno=EPERM"
check "Unix socket: exactly one event ($(events "$WORK/v6" | tr '\n' '|'))" \
	test "$(events "$WORK/v6")" = "deny socket AF_UNIX"
check "Unix socket: attributed" test "$(keys "$WORK/v6")" = "$C6"
out=$(srt__run -s "$S" --violations-log "$WORK/v6b" -c "$SYSPROBE socket-unix-hi; $SYSPROBE socket-vsock; $SYSPROBE io_uring_setup" 2>/dev/null)
check "high bits, vsock, io_uring: refused ($(echo $out))" \
	test "$(echo $out)" = "socket-unix-hi errno=EPERM socket-vsock errno=EPERM io_uring_setup errno=EPERM"
check "high bits, vsock, io_uring: reported ($(events "$WORK/v6b" | tr '\n' '|'))" \
	test "$(events "$WORK/v6b" | sort | tr '\n' '|')" = "deny io_uring_setup|deny socket AF_UNIX|deny socket AF_VSOCK|"
out=$(srt__run -s "$S" --violations-log "$WORK/v6c" -c "$SYSPROBE socketpair; $SYSPROBE socket-inet" 2>/dev/null)
check "socketpair and inet sockets: allowed, not reported ($(echo $out))" \
	test "$(echo $out)" = "socketpair ok socket-inet ok" -a "$(nlines "$WORK/v6c")" = 0
out=$(srt__run -s "$S" --violations-log "$WORK/v6e" -c "$SYSPROBE socketpair-dgram" 2>/dev/null)
check "datagram socketpair: refused and reported ($out; $(events "$WORK/v6e" | tr '\n' '|'))" \
	test "$out" = "socketpair-dgram errno=EPERM" -a "$(events "$WORK/v6e")" = "deny socketpair AF_UNIX datagram"

# allowAllUnixSockets: sockets allowed and not reported, files still observed
SU=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')
out=$(srt__run -s "$SU" --violations-log "$WORK/v6d" -c "$SYSPROBE socket-unix; cat $HOME/.ssh/id_canary" 2>/dev/null)
check "allowAllUnixSockets: the socket works ($out)" test "$out" = "socket-unix ok"
check "allowAllUnixSockets: only the denied read is reported ($(events "$WORK/v6d" | tr '\n' '|'))" \
	test "$(events "$WORK/v6d")" = "deny openat $HOME/.ssh/id_canary"

# --- names that exist already: EEXIST, not a denial ----------------------------
# mkdir -p walks every parent, read-only ones included; mkdir, ln and mknod
# of a name that is there fail with EEXIST before any mount flag is looked
# at, so only the new name under a read-only directory is a refusal
CX="mkdir -p \"\$PWD/p8/q\"; mkdir /usr; ln -s x /etc/hostname; mknod /etc/passwd p; mkdir /usr/srt-new-dir; true"
srt__run -s "$S" --violations-log "$WORK/vexist" -c "$CX" >/dev/null 2>&1
check "existing names: only the new directory under /usr is reported ($(events "$WORK/vexist" | tr '\n' '|'))" \
	test "$(events "$WORK/vexist")" = "deny mkdir /usr/srt-new-dir"

# --- allowed work: no events, outcomes kept -----------------------------------
C7="cat /etc/hostname >/dev/null; echo ok > allowed.txt; mkdir sub; mv allowed.txt sub/a.txt; ln -s a.txt sub/l; chmod 600 sub/a.txt; touch sub/a.txt; ls -la sub >/dev/null; rm -r sub; echo hi > kept.txt; echo log > \$TMPDIR/t.txt; cat \$TMPDIR/t.txt >/dev/null; echo > /dev/null"
srt__run -s "$S" --violations-log "$WORK/v7" -c "$C7" >/dev/null 2>"$WORK/err7"; rc=$?
check "allowed work: exit 0 (rc=$rc)" test "$rc" = 0
check "allowed work: the write happened on the host" test "$(cat "$WORK/proj/kept.txt" 2>/dev/null)" = hi
check "allowed work: no event ($(events "$WORK/v7" | tr '\n' '|'))" test "$(nlines "$WORK/v7")" = 0
check "allowed work: no summary" test -z "$(grep 'the sandbox denied' "$WORK/err7")"

# --- the status flags of a file the monitor opens for the command ------------
# With denyRead the monitor makes every open itself and hands the file over;
# a regular file is opened O_NONBLOCK (a lease must not make it wait) and
# the flag taken off again, so what F_GETFL shows must be what was asked
cat > "$WORK/flags.py" <<'PYEOF'
import fcntl, os
keep = os.O_APPEND | os.O_NONBLOCK | os.O_NOATIME | os.O_DIRECT
open("flags.txt", "w").write("x" * 4096)
for name, fl in (("rd", os.O_RDONLY), ("rd-nonblock", os.O_RDONLY | os.O_NONBLOCK),
                 ("wr-append", os.O_WRONLY | os.O_APPEND), ("rdwr", os.O_RDWR),
                 ("rd-noatime", os.O_RDONLY | os.O_NOATIME)):
    fd = os.open("flags.txt", fl)
    print(name, oct(fcntl.fcntl(fd, fcntl.F_GETFL) & keep))
    os.close(fd)
PYEOF
out=$(srt__run -s "$S" --quiet -c "$PY $WORK/flags.py" 2>&1 | tr '\n' ' ')
check "status flags of handed-over files: as asked ($out)" \
	test "$out" = "rd 0o0 rd-nonblock $(printf '0o%o' 2048) wr-append $(printf '0o%o' 1024) rdwr 0o0 rd-noatime $(printf '0o%o' 262144) "
rm -f "$WORK/proj/flags.txt"

# --- the monitor changes no outcome -----------------------------------------
# The same probes with the monitor (plain run) and without it (a listener
# above srt makes the kernel refuse ours): same messages, same errnos.
PROBE="echo x > $WORK/outside.txt; echo \"w=\$?\"; cat $HOME/.ssh/id_canary; echo \"r=\$?\"; echo x > .bashrc; echo \"m=\$?\"; $SYSPROBE socket-unix; $SYSPROBE mount-tmpfs /tmp; echo y > ok2.txt; echo \"a=\$?\""
if [ -x "$BUSY" ] && "$BUSY" true 2>/dev/null; then
	srt__run -s "$S" --quiet -c "$PROBE" >"$WORK/with" 2>&1
	rm -f "$WORK/proj/ok2.txt"
	"$BUSY" timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" --quiet --debug \
		--violations-log "$WORK/v8" -c "$PROBE" >"$WORK/dbg8" 2>&1
	grep -v '(debug)\|^\[srt debug\]' "$WORK/dbg8" > "$WORK/without"
	check "same outcomes with and without the monitor" cmp -s "$WORK/with" "$WORK/without"
	if ! cmp -s "$WORK/with" "$WORK/without"; then diag "$(diff "$WORK/with" "$WORK/without")"; fi
	check "denied write failed in both runs" grep -q '^w=1$' "$WORK/with"
	check "allowed write succeeded in both runs" grep -q '^a=0$' "$WORK/with"

	# --- fallback: the kernel refuses the observer ----------------------
	check "fallback: the helper says the monitor is unavailable" \
		grep -q 'violation monitor unavailable.*plain filters' "$WORK/dbg8"
	check "fallback: Unix sockets and mounts still refused" \
		test "$(grep -c 'socket-unix errno=EPERM\|mount-tmpfs errno=EPERM' "$WORK/without")" = 2
	check "fallback: nothing written outside the roots" test ! -e "$WORK/outside.txt" -a ! -s "$WORK/proj/.bashrc"
	check "fallback: no events (nothing observes)" test "$(nlines "$WORK/v8")" = 0
else
	for i in 1 2 3 4 5 6 7; do skip "notify-busy cannot make a listener here"; done
fi

# --- a flood of denials -------------------------------------------------------
# srt's peak RSS (VmHWM), sampled until it exits (peak only grows)
peak_rss() {
	local pid=$1 v=0 x
	while kill -0 "$pid" 2>/dev/null; do
		x=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$x" ] && v=$x
		sleep 0.1
	done
	echo "$v"
}
FLOOD='i=0; while [ $i -lt 100000 ]; do : < $HOME/.ssh/f$i; i=$((i+1)); done 2>/dev/null; echo flood-done'
"$SRT" --backend="$BACKEND" -s "$S" --violations-log "$WORK/v9a" \
	-c "cat $HOME/.ssh/id_canary; sleep 2" >/dev/null 2>&1 &
r0=$(peak_rss $!)
start=$(date +%s)
"$SRT" --backend="$BACKEND" -s "$S" --violations-log "$WORK/v9" -c "$FLOOD" >"$WORK/out9" 2>/dev/null &
fp=$!
# the watchdog's sleep must not hold the test's output open after the
# flood ends (the harness would wait for it): no output, and it is ended
( sleep 120 & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s; kill -9 $fp ) >/dev/null 2>&1 &
killer=$!
r1=$(peak_rss $fp)
wait $fp; rc=$?
kill $killer 2>/dev/null; wait $killer 2>/dev/null
secs=$(( $(date +%s) - start ))
check "flood of 100000 denied opens: finishes (rc=$rc, ${secs}s)" test "$rc" = 0 -a "$(cat "$WORK/out9")" = flood-done
n9=$(nlines "$WORK/v9")
# a burst of 1000, then 20 a second, and one note a minute at most
max9=$((1000 + 20 * (secs + 1) + 1 + secs / 60))
check "flood: events bounded ($n9 <= $max9) with a 'not reported' note" \
	test "$n9" -le "$max9" -a "$(events "$WORK/v9" | grep -c 'were not reported')" -ge 1 -a \
	     "$(events "$WORK/v9" | grep -c 'were not reported')" -le $((1 + secs / 60))
# 8 MiB of slack; under AddressSanitizer (the sanitizer pass sets
# ASAN_OPTIONS) its quarantine of freed blocks alone moves the peak by that
# much from one run to the next, so the bound there only catches growth
# with the flood's size, and the plain build's run holds the tight one
slack=8192
[ -n "${ASAN_OPTIONS:-}" ] && slack=32768
check "flood: srt's memory stays flat (peak RSS ${r0} KiB quiet, ${r1} KiB flooded, slack ${slack} KiB)" \
	test "$r0" -gt 0 -a "$r1" -gt 0 -a "$r1" -lt $((r0 + slack))
SAME='i=0; while [ $i -lt 20000 ]; do : < $HOME/.ssh/id_canary; i=$((i+1)); done 2>/dev/null'
srt__run -s "$S" --violations-log "$WORK/v10" -c "$SAME" 2>/dev/null
check "the same denial repeated: reported once ($(nlines "$WORK/v10"))" test "$(nlines "$WORK/v10")" = 1

# --- the weaker nested sandbox: the host's /proc, other pid numbers --------
SW=$(settings '{"enableWeakerNestedSandbox":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')
srt__run -s "$SW" --violations-log "$WORK/v11" -c "echo x > .bashrc; cat $HOME/.ssh/id_canary" >/dev/null 2>&1
check "weaker nested sandbox: relative and absolute denials reported ($(events "$WORK/v11" | tr '\n' '|'))" \
	test "$(events "$WORK/v11" | tr '\n' '|')" = "deny openat $WORK/proj/.bashrc|deny openat $HOME/.ssh/id_canary|"
check "weaker nested sandbox: nothing written" test ! -s "$WORK/proj/.bashrc"

# --- write-only opens, made by the monitor under denyRead ----------------
# Every open is judged by the denied names (and made by the monitor) when
# denyRead is set; a write-only one must end as the kernel ends it without
# the monitor: the same settings without denyRead are the reference.
cat > "$WORK/wprobe.py" <<'PYEOF'
import errno, os, threading, time
def t(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
def wr(path, data, flags=os.O_WRONLY):
    fd = os.open(path, flags)
    os.write(fd, data)
    os.close(fd)
t("comm", lambda: wr("/proc/self/comm", b"renamed"))
print("comm-now", open("/proc/self/comm").read().strip())
t("oom", lambda: wr("/proc/self/oom_score_adj", b"7"))
print("oom-now", open("/proc/self/oom_score_adj").read().strip())
# refused either way: by the kernel at the write (EPERM, the map is set),
# by the monitor at the open (EACCES: such a write is checked against the
# opener, which would be the monitor)
try:
    wr("/proc/self/uid_map", b"0 0 1")
    print("uid_map ok")
except OSError as e:
    print("uid_map", "refused" if e.errno in (errno.EPERM, errno.EACCES) else e.errno)
t("devnull", lambda: wr("/dev/null", b"x", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
r, w = os.pipe()
t("fd-reopen", lambda: wr("/proc/self/fd/%d" % w, b"via-proc", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
print("pipe-got", os.read(r, 64).decode())
t("etc", lambda: wr("/etc/srt-wprobe", b"x", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
open("f", "w").write("one\n")
t("append", lambda: wr("f", b"two\n", os.O_WRONLY | os.O_APPEND))
t("trunc", lambda: wr("g", b"new\n", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
print("f-now", open("f").read().replace("\n", "|"))
t("excl", lambda: wr("f", b"x", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
t("dirslash", lambda: wr("f/", b"x", os.O_WRONLY | os.O_CREAT))
t("dir", lambda: wr(".", b"x", os.O_WRONLY))
os.mkfifo("fifo")
got = []
def reader():
    time.sleep(0.3)
    got.append(open("fifo").read())
th = threading.Thread(target=reader)
th.start()
t("fifo-writer-first", lambda: wr("fifo", b"through-fifo", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
th.join()
print("fifo-got", got)
t("fifo-nonblock-noreader", lambda: wr("fifo", b"x", os.O_WRONLY | os.O_NONBLOCK))
os.umask(0o027)
t("umask", lambda: wr("h", b"x", os.O_WRONLY | os.O_CREAT, ))
print("h-mode", oct(os.stat("h").st_mode & 0o777))
PYEOF
SWD="$WORK/wd.json" SWN="$WORK/wn.json"
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}' > "$SWD"
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}' > "$SWN"
mkdir -p "$WORK/wd" "$WORK/wn"
(cd "$WORK/wd" && srt__run -s "$SWD" -c "$PY $WORK/wprobe.py") > "$WORK/wd.out" 2>&1
(cd "$WORK/wn" && srt__run -s "$SWN" -c "$PY $WORK/wprobe.py") > "$WORK/wn.out" 2>&1
grep -v '^srt:' "$WORK/wd.out" > "$WORK/wd.res"; grep -v '^srt:' "$WORK/wn.out" > "$WORK/wn.res"
diag "with denyRead: $(tr '\n' ' ' < "$WORK/wd.res")"
diag "without:       $(tr '\n' ' ' < "$WORK/wn.res")"
check "write-only opens made by the monitor end as the kernel's: /proc/self files, /dev/null, a pipe through /proc/self/fd, EROFS, O_APPEND, O_TRUNC, O_EXCL, a FIFO's writer first, umask" \
	test -s "$WORK/wn.res" -a "$(grep -c . "$WORK/wn.res")" -ge 20 -a "$(cat "$WORK/wd.res")" = "$(cat "$WORK/wn.res")"
check "and the probe's own writes went where it wrote them (comm, oom_score_adj, the FIFO)" \
	sh -c "grep -qx 'comm-now renamed' '$WORK/wd.res' && grep -qx 'oom-now 7' '$WORK/wd.res' && grep -q 'through-fifo' '$WORK/wd.res'"

echo "1..$_tap_n"
