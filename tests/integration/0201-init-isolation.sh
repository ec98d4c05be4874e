#!/bin/bash
# In-sandbox helper, what the command can reach (K1 K2 K3 K4
# K6, plus the seccomp rules seen from a real sandboxed command). Each
# probe is a raw syscall made by tests/helpers/sysprobe inside the sandbox;
# where a probe could change the host, the host is checked afterwards.
. "$(dirname "$0")/lib.sh"

plan 40
S=$(settings "$DEFAULT_SETTINGS")

if [ ! -x "$SYSPROBE" ]; then
	for i in $(seq 40); do skip "sysprobe not built"; done
	exit 0
fi
P=$SYSPROBE

# K1: the command sees only its own process tree; the helpers above it are
# not in its pid namespace and PID 1 (the nested init) is not dumpable.
out=$(srt__run -s "$S" -c 'ls /proc | grep -c "^[0-9][0-9]*$"' 2>"$WORK/err"); rc=$?
check "K1 ls /proc runs (rc=$rc)" test "$rc" = 0
check "K1 /proc lists only the command's tree (got $out pids)" test -n "$out" -a "${out:-99}" -le 4
# with a proxy configured the bridge relay runs too; it must stay out of view
cp "$S" "$WORK/default.json"; S="$WORK/default.json"
NET=$(settings '{"network":{"allowedDomains":["example.com"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
cp "$NET" "$WORK/net.json"; NET="$WORK/net.json"
out=$(srt__run -s "$NET" -c 'test -n "$HTTP_PROXY" && ls /proc | grep -c "^[0-9][0-9]*$"' 2>/dev/null)
check "K1 with the bridge running, /proc still lists only the command's tree (got $out pids)" \
	test -n "$out" -a "${out:-99}" -le 4
out=$(srt__run -s "$NET" -c 'for p in /proc/[0-9]*; do tr "\0" " " < $p/cmdline; echo; done' 2>/dev/null)
check "K1 only PID 1 is a helper process" test "$(printf '%s\n' "$out" | grep -c 'srt-linux-init')" = 1
out=$(srt__run -s "$S" -c "$P proc-mem 1" 2>/dev/null)
check "K1 open /proc/1/mem fails ($out)" test "$out" = "proc-mem errno=EACCES" -o "$out" = "proc-mem errno=EPERM"
out=$(srt__run -s "$S" -c "$P ptrace 1" 2>/dev/null)
check "K1 ptrace attach to PID 1 fails ($out)" test "$out" = "ptrace errno=EPERM"
out=$(srt__run -s "$S" -c 'sleep 5 & p=$!; '"$P"' ptrace $p; kill $p' 2>/dev/null)
check "K1 the command may still trace its own children ($out)" test "$out" = "ptrace ok"

# K2: host processes cannot be signalled (and are still alive afterwards)
sleep 300 &
H=$!
out=$(srt__run -s "$S" -c "$P kill $H" 2>/dev/null)
check "K2 kill -0 of a host pid: ESRCH ($out)" test "$out" = "kill errno=ESRCH"
check "K2 the host process is still alive" kill -0 "$H"
kill "$H" 2>/dev/null; wait "$H" 2>/dev/null

# K3: no_new_privs, no capabilities, setuid programs do not elevate
out=$(srt__run -s "$S" -c 'grep "^NoNewPrivs:" /proc/self/status' 2>/dev/null)
check "K3 NoNewPrivs: 1 ($out)" test "$(echo $out)" = "NoNewPrivs: 1"
out=$(srt__run -s "$S" -c 'grep "^CapEff:" /proc/self/status' 2>/dev/null)
check "K3 no effective capabilities ($out)" test "$(echo $out)" = "CapEff: 0000000000000000"
out=$(srt__run -s "$S" -c 'grep "^CapBnd:" /proc/self/status' 2>/dev/null)
check "K3 an empty capability bounding set ($out)" test "$(echo $out)" = "CapBnd: 0000000000000000"
out=$(srt__run -s "$S" -c 'grep "^Seccomp:" /proc/self/status' 2>/dev/null)
check "K3 seccomp filter mode ($out)" test "$(echo $out)" = "Seccomp: 2"
if [ -u /usr/bin/sudo ] && ! is_root; then
	srt__run -s "$S" -c 'sudo -n id -u > sudo.out 2>/dev/null' >/dev/null 2>&1
	check "K3 sudo does not give uid 0" test ! -s "$WORK/proj/sudo.out" -o "$(cat "$WORK/proj/sudo.out" 2>/dev/null)" != 0
else
	skip "K3 sudo: no setuid sudo, or already root"
fi

# The fresh /proc keeps bwrap's read-only covers: a uid-0 caller's command
# is uid 0 for sysctl checks and must not write host-wide sysctls. (Writes
# back the current value, so the host is unchanged even if this failed.)
out=$(srt__run -s "$S" -c 'cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname && echo written' 2>/dev/null)
check "/proc/sys is read-only inside ($out)" test -z "$out"
check "the host's hostname is unchanged" test "$(cat /proc/sys/kernel/hostname)" = "$(hostname)"

# K4: terminal injection
out=$(srt__run -s "$S" -c "$P tiocsti 0; $P tiocsti-hi 0; $P tioclinux 0" 2>/dev/null </dev/null)
check "K4 TIOCSTI: EPERM" test "$(echo "$out" | sed -n 1p)" = "tiocsti errno=EPERM"
check "K4 TIOCSTI with high bits set: EPERM" test "$(echo "$out" | sed -n 2p)" = "tiocsti-hi errno=EPERM"
check "K4 TIOCLINUX: EPERM" test "$(echo "$out" | sed -n 3p)" = "tioclinux errno=EPERM"

# K6: io_uring (invisible to seccomp once a ring exists)
out=$(srt__run -s "$S" -c "$P io_uring_setup" 2>/dev/null)
check "K6 io_uring_setup: EPERM ($out)" test "$out" = "io_uring_setup errno=EPERM"

# The rest of the filter, from a real sandboxed command
out=$(srt__run -s "$S" -c "$P socket-unix; $P socket-vsock; $P socket-inet; $P socketpair" 2>/dev/null)
check "socket(AF_UNIX): EPERM" test "$(echo "$out" | sed -n 1p)" = "socket-unix errno=EPERM"
check "socket(AF_VSOCK): EPERM" test "$(echo "$out" | sed -n 2p)" = "socket-vsock errno=EPERM"
check "socket(AF_INET) works" test "$(echo "$out" | sed -n 3p)" = "socket-inet ok"
check "socketpair(AF_UNIX) works" test "$(echo "$out" | sed -n 4p)" = "socketpair ok"
out=$(srt__run -s "$S" -c "$P socketpair-seqpacket; $P socketpair-dgram; $P socketpair-dgram-hi; $P socketpair-raw" 2>/dev/null)
check "socketpair(AF_UNIX, SOCK_SEQPACKET) works" test "$(echo "$out" | sed -n 1p)" = "socketpair-seqpacket ok"
check "socketpair(AF_UNIX, SOCK_DGRAM): EPERM" test "$(echo "$out" | sed -n 2p)" = "socketpair-dgram errno=EPERM"
check "socketpair(AF_UNIX, SOCK_DGRAM) with high bits set: EPERM" \
	test "$(echo "$out" | sed -n 3p)" = "socketpair-dgram-hi errno=EPERM"
check "socketpair(AF_UNIX, SOCK_RAW), a datagram pair too: EPERM" \
	test "$(echo "$out" | sed -n 4p)" = "socketpair-raw errno=EPERM"
out=$(srt__run -s "$S" -c "$P unshare-user; $P unshare-ns; $P clone-user; $P clone3; $P open_tree; $P mount-tmpfs /tmp" 2>/dev/null)
check "unshare(CLONE_NEWUSER): EPERM" test "$(echo "$out" | sed -n 1p)" = "unshare-user errno=EPERM"
check "unshare(CLONE_NEWNS): EPERM" test "$(echo "$out" | sed -n 2p)" = "unshare-ns errno=EPERM"
check "clone(CLONE_NEWUSER): EPERM" test "$(echo "$out" | sed -n 3p)" = "clone-user errno=EPERM"
check "clone3: ENOSYS" test "$(echo "$out" | sed -n 4p)" = "clone3 errno=ENOSYS"
check "open_tree: EPERM" test "$(echo "$out" | sed -n 5p)" = "open_tree errno=EPERM"
check "mount tmpfs: EPERM" test "$(echo "$out" | sed -n 6p)" = "mount-tmpfs errno=EPERM"
check "plain fork still works" test "$(srt__run -s "$S" -c '(echo sub)' 2>/dev/null)" = sub
if [ "$(uname -m)" = x86_64 ]; then
	srt__run -s "$S" -c "$P x32" >/dev/null 2>&1; rc=$?
	check "x32 syscall kills the command with SIGSYS (rc=$rc)" test "$rc" = 159
else
	skip "x32 check is x86_64 only"
fi

# allowNestedUserNamespaces: nested namespaces become possible
N=$(settings '{"allowNestedUserNamespaces":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
out=$(srt__run -s "$N" -c "$P unshare-user; $P socket-unix" 2>/dev/null)
check "allowNestedUserNamespaces: unshare(CLONE_NEWUSER) works" test "$(echo "$out" | sed -n 1p)" = "unshare-user ok"
check "allowNestedUserNamespaces: unix sockets still filtered" test "$(echo "$out" | sed -n 2p)" = "socket-unix errno=EPERM"

# enableWeakerNestedSandbox: bwrap binds the host's /proc, the helper still
# mounts a fresh one over it where it can (here it can)
W=$(settings '{"enableWeakerNestedSandbox":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
out=$(srt__run -s "$W" --explain -c true 2>/dev/null)
check "weaker nested sandbox: bwrap binds /proc, the helper is told" \
	sh -c 'printf "%s" "$1" | grep -q -- "--bind /proc /proc .*--weaker-nested-sandbox"' sh "$out"
out=$(srt__run -s "$W" -c 'ls /proc | grep -c "^[0-9][0-9]*$"' 2>/dev/null)
check "weaker nested sandbox: /proc still lists only the command's tree (got $out pids)" \
	test -n "$out" -a "${out:-99}" -le 4
