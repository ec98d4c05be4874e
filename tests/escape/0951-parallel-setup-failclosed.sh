#!/bin/bash
# Escape class K (linux-bwrap), the helper's start-up in parallel: the
# nested init and the worker set their own layers up while the outer
# helper still sets up network interception, drops its capabilities,
# starts the proxy bridge and the monitor and waits for the watcher; the
# worker execs the command only after the outer helper's go-ahead. Checked
# here: when the outer helper's part fails after the nested namespaces
# exist (interception required but not possible, the watcher unable to
# start), the command never runs, with and without the command's own
# user namespace (--make-dev-proc); a run through srt leaves the command
# no descriptor beyond its standard ones (none of the go-ahead, id-map or
# prebuilt-filter pipes), and the enforcement filter the outer helper
# built ahead still refuses what it must.
. "$(dirname "$0")/lib.sh"
need_bwrap
H="$INIT_HELPER"
MARK="$WORK/proj/ran"
if [ ! -x "$H" ] || ! bwrap --help 2>&1 | grep -q -- --as-pid-1; then
	skip_rest 8 "srt-linux-init not built, or bwrap without --as-pid-1"
	echo "1..$_tap_n"
	exit 0
fi
# the helper run by hand under bwrap, as srt runs it, with CAP_SYS_ADMIN,
# CAP_SETPCAP and CAP_SETFCAP but not the network capabilities
helper() {
	rm -f "$MARK"
	timeout -k 5 30 bwrap --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid \
		--unshare-user --unshare-net --as-pid-1 --cap-drop ALL --cap-add CAP_SYS_ADMIN \
		--cap-add CAP_SETPCAP --cap-add CAP_SETFCAP --proc /proc -- "$H" "$@" \
		-- touch "$MARK" 2>"$WORK/err"
}
# Control: with every layer possible the same helper runs the command. A
# mode it cannot run in here (--make-dev-proc copies the host's /dev/null,
# which takes root) is not tested for its failures either.
modes=""
for mdp in none --make-dev-proc; do
	helper $([ "$mdp" = none ] || echo "$mdp")
	rc=$?
	if [ "$rc" = 0 ] && [ -e "$MARK" ]; then
		ok "K control ($mdp): the helper runs the command when every layer is possible"
		modes="$modes $mdp"
	elif [ "$mdp" = none ]; then
		not_ok "K control ($mdp): the helper runs the command when every layer is possible (rc=$rc: $(head -c 200 "$WORK/err"))"
	else
		skip "K control ($mdp): not possible here ($(head -c 200 "$WORK/err"))"
	fi
done
"$PY" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[1] + ".up", "w").close(); time.sleep(120)' "$WORK/p.sock" &
sockpid=$!
wait_for "$WORK/p.sock.up" 50
ID="$(stat -c %d "$WORK/p.sock"):$(stat -c %i "$WORK/p.sock")"
for mdp in none --make-dev-proc; do
	case " $modes " in *" $mdp "*) ;; *) skip "K $mdp: the control did not run"; continue ;; esac
	[ "$mdp" = none ] && mdp=""
	helper --proxy-socket "$WORK/p.sock" --proxy-socket-id "$ID" --http-port 3128 --socks-port 1080 \
		--intercept required $mdp
	rc=$?
	check "K interception required and impossible ${mdp:-(no own user namespace)}: nothing ran (rc=$rc)" \
		eval 'test "$rc" = 125 -a ! -e "$MARK" && grep -q "interception could not be set up" "$WORK/err"'
done
kill "$sockpid" 2>/dev/null
wait "$sockpid" 2>/dev/null
touch "$WORK/proj/keep1"
for mdp in none --make-dev-proc; do
	case " $modes " in *" $mdp "*) ;; *) skip "K $mdp: the control did not run"; continue ;; esac
	[ "$mdp" = none ] && mdp=""
	# fanotify takes the initial namespace's CAP_SYS_ADMIN: this watcher
	# cannot set its watches up, which the helper learns after the clone
	helper --watch-keep "$WORK/proj/keep1" --watch-tree "$WORK/proj" --watch-depth 2 $mdp
	rc=$?
	if [ "$rc" = 0 ]; then
		skip "the watcher could set its watches up here: nothing failed"
	else
		check "K watcher unable to start ${mdp:-(no own user namespace)}: nothing ran (rc=$rc)" \
			eval 'test "$rc" = 125 -a ! -e "$MARK" && grep -q "watcher" "$WORK/err"'
	fi
done

cd "$WORK/proj" || exit 1
S=$(fsjson s "$S0_FS" '{"allowedDomains":["example.com"],"deniedDomains":[]}')
srt__run -s "$S" -c "$PY -c 'import os
for f in sorted(os.listdir(\"/proc/self/fd\"), key=int):
    try:
        print(f, os.readlink(\"/proc/self/fd/\" + f))
    except OSError as e:
        print(f, \"?\", e.errno)'" >"$WORK/fds" 2>"$WORK/fds.err"
# 0-2, and the directory listdir opened (closed again by the time it is
# read: "? 2", ENOENT)
extra=$(awk '$1 > 2 && !($2 == "?" && $3 == 2) && $2 !~ /^\/proc\/[0-9]+\/fd$/' "$WORK/fds")
check "K the command holds no descriptor beyond 0-2 ($(tr '\n' ' ' <"$WORK/fds"))" \
	test -s "$WORK/fds" -a -z "$extra"
srt__run -s "$S" -c "$SYSPROBE unshare-user; $SYSPROBE socket-unix" >"$WORK/sys" 2>&1
check "K the enforcement filter built ahead still refuses user namespaces and AF_UNIX ($(tr '\n' ' ' <"$WORK/sys" | head -c 300))" \
	test "$(grep -c ' ok$' "$WORK/sys")" = 0 -a "$(grep -cE '^(unshare-user|socket-unix) ' "$WORK/sys")" = 2
echo "1..$_tap_n"
