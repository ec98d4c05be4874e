#!/bin/bash
# Unix sockets (I1, I2): a host daemon listening on a path or
# an abstract socket cannot be reached from the sandbox. The listeners here
# write whatever reaches them into a file on the host; the file must not
# appear. With network.allowAllUnixSockets the path socket does become
# reachable: that control shows the listener and the probe work.
. "$(dirname "$0")/lib.sh"

plan 15
# settings() always writes the same file: keep a copy of each
S=$(settings "$DEFAULT_SETTINGS")
cp "$S" "$WORK/default.json"; S="$WORK/default.json"
A=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')

if [ ! -x "$SYSPROBE" ] || ! command -v socat >/dev/null 2>&1; then
	for i in $(seq 15); do skip "needs sysprobe and socat"; done
	exit 0
fi
P=$SYSPROBE
SOCK="$WORK/host.sock"
DSOCK="$WORK/host-dgram.sock"
ABS="srt-it-$$-$RANDOM"

socat "UNIX-LISTEN:$SOCK,fork" "OPEN:$WORK/got-path,creat,append" 2>/dev/null &
L1=$!
socat "ABSTRACT-LISTEN:$ABS,fork" "OPEN:$WORK/got-abstract,creat,append" 2>/dev/null &
L2=$!
# a datagram daemon (syslog, journald, $NOTIFY_SOCKET): reached by sendto()
socat -u "UNIX-RECV:$DSOCK" "OPEN:$WORK/got-dgram,creat,append" 2>/dev/null &
L3=$!
trap 'main_shell || exit; kill $L1 $L2 $L3 2>/dev/null; _cleanup' EXIT
# wait for all three: the abstract name has no file, so it is looked for in
# /proc/net/unix (a probe sent before socat listens finds nobody, and the
# control below would fail for a reason that is not the sandbox's)
abstract_listening() { grep -q " @$ABS\$" /proc/net/unix; }
for i in $(seq 50); do
	[ -S "$SOCK" ] && [ -S "$DSOCK" ] && abstract_listening && break
	sleep 0.1
done

# the listeners work from the host (else the checks below prove nothing)
"$P" connect-abstract "$ABS" >/dev/null
for i in $(seq 100); do [ -s "$WORK/got-abstract" ] && break; sleep 0.1; done
check "control: the host reaches its own abstract listener" test -s "$WORK/got-abstract"
rm -f "$WORK/got-abstract"

# I1: pathname socket
out=$(srt__run -s "$S" -c "$P connect-unix $SOCK" 2>/dev/null)
check "I1 connect to a host Unix socket fails: EPERM ($out)" test "$out" = "connect-unix errno=EPERM"
out=$(srt__run -s "$S" -c "socat -u OPEN:/etc/hostname UNIX-CONNECT:$SOCK" 2>&1); rc=$?
check "I1 socat to the host socket fails (rc=$rc)" test "$rc" != 0
sleep 0.3
check "I1 nothing reached the host listener" test ! -e "$WORK/got-path"
found=0
for s in /var/run/docker.sock /run/dbus/system_bus_socket /run/systemd/private; do
	[ -S "$s" ] || continue
	found=1
	out=$(srt__run -s "$S" -c "$P connect-unix $s" 2>/dev/null)
	check "I1 $s unreachable ($out)" test "$out" = "connect-unix errno=EPERM"
	break
done
[ "$found" = 1 ] || skip "I1 no system daemon socket on this host"

# I1 through a datagram pair: socket(AF_UNIX) is refused, but an end of
# socketpair(AF_UNIX, SOCK_DGRAM) could sendto() any host path socket
out=$("$P" dgram-send "$DSOCK")
for i in $(seq 100); do [ -s "$WORK/got-dgram" ] && break; sleep 0.1; done
check "control: a datagram pair on the host reaches the datagram listener ($out)" \
	test "$out" = "dgram-send ok" -a -s "$WORK/got-dgram"
rm -f "$WORK/got-dgram"
out=$(srt__run -s "$S" -c "$P dgram-send $DSOCK" 2>/dev/null)
check "I1 a datagram pair cannot be made to reach a host socket: EPERM ($out)" \
	test "$out" = "dgram-send errno=EPERM"
sleep 0.3
check "I1 nothing reached the host datagram listener" test ! -e "$WORK/got-dgram"

# I2: abstract socket
out=$(srt__run -s "$S" -c "$P connect-abstract $ABS" 2>/dev/null)
check "I2 connect to a host abstract socket fails: EPERM ($out)" test "$out" = "connect-abstract errno=EPERM"
sleep 0.3
check "I2 nothing reached the host abstract listener" test ! -e "$WORK/got-abstract"

# allowAllUnixSockets: socket() allowed; the path socket is reachable (as
# in the reference), the abstract namespace still is not (own netns)
out=$(srt__run -s "$A" -c "$P connect-unix $SOCK" 2>/dev/null)
check "allowAllUnixSockets: connect to the path socket works ($out)" test "$out" = "connect-unix ok"
for i in $(seq 100); do [ -s "$WORK/got-path" ] && break; sleep 0.1; done
check "allowAllUnixSockets: the listener got the bytes" test -s "$WORK/got-path"
out=$(srt__run -s "$A" -c "$P dgram-send $DSOCK" 2>/dev/null)
check "allowAllUnixSockets: a datagram pair works too ($out)" test "$out" = "dgram-send ok"
out=$(srt__run -s "$A" -c "$P connect-abstract $ABS" 2>/dev/null)
check "allowAllUnixSockets: the host abstract socket is in another netns ($out)" \
	test "$out" = "connect-abstract errno=ECONNREFUSED"
sleep 0.3
check "allowAllUnixSockets: nothing reached the abstract listener" test ! -e "$WORK/got-abstract"
