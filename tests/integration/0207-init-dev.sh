#!/bin/bash
# The sandbox's /dev and /proc when srt-linux-init makes them itself
# (--make-dev-proc, backends/linux-bwrap/init/init.c) instead of bwrap's
# --dev /dev --proc /proc: the same device nodes, links, flags and fresh
# devpts and proc instances; nothing of the host's /dev shows through; every
# mount the command inherits is locked (the command's own user namespace);
# and a failure to build any of it stops the run.
. "$(dirname "$0")/lib.sh"

plan 25
S=$(settings "$DEFAULT_SETTINGS")
cp "$S" "$WORK/default.json"; S="$WORK/default.json"
H=$INIT_HELPER
MARK="$WORK/proj/ran"

# which of the two builds this kernel gets; the mount API came in 5.12
argv=$("$SRT" --backend="$BACKEND" -s "$S" --dry-run -c true 2>&1 | grep '^bwrap argv:')
kv=$(uname -r | awk -F. '{ printf "%d", $1 * 1000 + $2 }')
if grep -q -- ' --make-dev-proc ' <<<"$argv"; then
	ok "the helper makes /dev and /proc (--make-dev-proc)"
	check "bwrap is given neither --dev /dev nor --proc /proc" \
		test -z "$(grep -E -- ' --dev /dev | --proc /proc ' <<<"$argv")"
elif [ "$kv" -lt 5012 ]; then
	skip "kernel $(uname -r) has no open_tree/move_mount: bwrap makes /dev and /proc"
	skip "kernel $(uname -r) has no open_tree/move_mount: bwrap makes /dev and /proc"
else
	not_ok "the helper makes /dev and /proc on kernel $(uname -r): $argv"
	skip "the argv check needs --make-dev-proc"
fi
W=$(settings '{"enableWeakerNestedSandbox":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}')
wargv=$("$SRT" --backend="$BACKEND" -s "$W" --dry-run -c true 2>&1 | grep '^bwrap argv:')
check "the weaker nested sandbox leaves /dev and /proc to bwrap, the host's /proc bound" \
	test -n "$(grep -- ' --dev /dev ' <<<"$wargv")" -a -n "$(grep -- ' --bind /proc /proc ' <<<"$wargv")" \
	-a -z "$(grep -- '--make-dev-proc' <<<"$wargv")"

# what the command finds in /dev: bwrap's list, node for node
out=$(srt__run -s "$S" -c 'ls -A /dev | tr "\n" " "' </dev/null 2>"$WORK/err")
check "/dev holds bwrap's nodes and links, no more ($out)" \
	test "$out" = "core fd full null ptmx pts random shm stderr stdin stdout tty urandom zero "
out=$(srt__run -s "$S" -c 'for n in null zero full random urandom tty; do stat -c "%n %F %t:%T" /dev/$n; done' 2>&1 </dev/null)
check "the nodes are the host's character devices" \
	test "$out" = "$(for n in null zero full random urandom tty; do stat -c "%n %F %t:%T" /dev/$n; done)"
out=$(srt__run -s "$S" -c 'printf x > /dev/null && head -c 8 /dev/zero | wc -c && head -c 8 /dev/urandom | wc -c; { echo x > /dev/full; } 2>/dev/null || echo full-refused' 2>&1 </dev/null)
check "the nodes work: null takes writes, zero and urandom give bytes, full refuses ($(echo $out))" \
	test "$(echo $out)" = "8 8 full-refused"
out=$(srt__run -s "$S" -c 'for p in /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev /dev/pts; do awk -v p=$p "\$5 == p { o = \$6 } END { print p, o }" /proc/self/mountinfo; done' 2>&1 </dev/null)
bad=$(printf '%s\n' "$out" | awk '$1 ~ /^\/dev\/[a-z]/ && $1 != "/dev/pts" && ($2 !~ /(^|,)nosuid(,|$)/ || $2 ~ /(^|,)nodev(,|$)/ || $2 ~ /(^|,)ro(,|$)/) { print }
	$1 == "/dev" && ($2 !~ /nosuid/ || $2 !~ /nodev/) { print }
	$1 == "/dev/pts" && ($2 !~ /nosuid/ || $2 !~ /noexec/) { print }
	$2 == "" { print }')
check "mount flags as bwrap's: nodes nosuid and writable, /dev nosuid+nodev, devpts nosuid+noexec ($(echo $bad))" test -z "$bad"

# nothing of the host's /dev: its shared memory, its other devices, its ptys
touch "/dev/shm/srt-0207-$$" 2>/dev/null
if [ -e "/dev/shm/srt-0207-$$" ]; then
	out=$(srt__run -s "$S" -c "ls -A /dev/shm; test -e /dev/shm/srt-0207-$$ && echo visible" 2>&1 </dev/null)
	check "the host's /dev/shm is not behind the sandbox's ($out)" test -z "$out"
	rm -f "/dev/shm/srt-0207-$$"
else
	skip "no writable /dev/shm on this host"
fi
host_dev=$(ls /dev | grep -vxE 'core|fd|full|null|ptmx|pts|random|shm|stderr|stdin|stdout|tty|urandom|zero|console' | head -3 | tr '\n' ' ')
if [ -n "$host_dev" ]; then
	out=$(srt__run -s "$S" -c "cd /dev && ls -d $host_dev 2>/dev/null" 2>&1 </dev/null)
	check "host devices ($host_dev) are not in the sandbox ($out)" test -z "$out"
else
	skip "the host's /dev has nothing beyond bwrap's list"
fi
if command -v python3 >/dev/null; then
	out=$(srt__run -s "$S" -c 'python3 -c "import os; m, s = os.openpty(); print(os.ttyname(s))"; ls -A /dev/pts | tr "\n" " "' 2>&1 </dev/null)
	check "a pty comes from a new devpts instance, which shows none of the host's ($(echo $out))" \
		test "$(echo $out)" = "/dev/pts/0 ptmx"
else
	skip "no python3 to open a pty"
fi
if command -v script >/dev/null; then
	out=$(script -qec "timeout 30 $SRT --backend=$BACKEND -s $S -c 'test -c /dev/console && tty'" /dev/null </dev/null 2>&1 | tr -d '\r')
	check "a terminal on stdout is /dev/console inside, as with bwrap ($out)" test "$out" = "/dev/console"
else
	skip "no script(1) to give srt a terminal"
fi

# /proc: a fresh instance, sysctls read-only (bwrap's own /proc below it too)
out=$(srt__run -s "$S" -c 'awk "\$5 == \"/proc/sys\" { o = \$6 } END { print o }" /proc/self/mountinfo; { echo 1 > /proc/sys/kernel/ns_last_pid; } 2>/dev/null || echo refused' 2>&1 </dev/null)
check "/proc/sys is read-only ($(echo $out))" test "$(echo $out | cut -d, -f1)" = "ro" -a "$(echo $out | awk '{print $2}')" = refused
out=$(srt__run -s "$S" -c 'awk "\$5 == \"/proc\"" /proc/self/mountinfo | wc -l' 2>&1 </dev/null)
check "the command's /proc is stacked on bwrap's and the host's, never the host's alone ($out mounts)" test "${out:-0}" -ge 2

# a host /dev whose flags bwrap's user namespace cannot change (read-only
# or nodev, locked when copied into it): the run goes on with that flag
# kept, as on bwrap's own binds
if is_root && command -v unshare >/dev/null; then
	out=$(unshare -m --propagation private sh -c "mount -o remount,bind,ro /dev && timeout 30 $SRT --backend=$BACKEND -s $S -c 'echo x > /dev/null && awk \"\\\$5 == \\\"/dev/null\\\" { print \\\$6 }\" /proc/self/mountinfo'" 2>&1 </dev/null)
	check "a read-only host /dev: the run goes on, /dev/null writable on a read-only mount ($(echo $out))" \
		test "$(echo $out | cut -d, -f1)" = ro
	out=$(unshare -m --propagation private sh -c "mount -o remount,bind,nodev /dev && timeout 30 $SRT --backend=$BACKEND -s $S -c 'awk \"\\\$5 == \\\"/dev/null\\\" { print \\\$6 }\" /proc/self/mountinfo'" 2>&1 </dev/null)
	check "a nodev host /dev: the run goes on, nodev kept as bwrap keeps it ($(echo $out))" \
		test -n "$(echo "$out" | grep -E '(^|,)nodev(,|$)')"
else
	skip "locked host /dev flags: needs root for a private mount namespace"
	skip "locked host /dev flags: needs root for a private mount namespace"
fi

# the covers are locked: the command's mount namespace is a copy made in a
# user namespace of its own, so nothing in it can come off, even for
# something holding CAP_SYS_ADMIN there (simulated from outside by joining
# the command's namespaces as their owner): /dev and its nodes, the plan's
# binds (the write root, the denied ~/.ssh), the cover on a denied file
# inside a write root, /proc and its read-only /proc/sys. Control: a tmpfs
# the probe mounts there itself comes off.
echo top-secret > secret.txt
L=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh","./secret.txt"],"allowWrite":["."],"denyWrite":[]}}')
cp "$L" "$WORK/lock.json"; L="$WORK/lock.json"
largv=$("$SRT" --backend="$BACKEND" -s "$L" --dry-run -c true 2>&1 | grep '^bwrap argv:')
if [ -x "$SYSPROBE" ] && grep -q -- ' --make-dev-proc ' <<<"$largv" && grep -q -- "--hide-file $(pwd -P)/secret.txt" <<<"$largv"; then
	# a duration no other sleep on the machine has, to find this one
	dur="19.$$$RANDOM"
	srt__run -s "$L" -c "exec sleep $dur" </dev/null >/dev/null 2>&1 &
	spid=""
	for i in $(seq 100); do
		spid=$(pgrep -u "$(id -u)" -f -x "sleep $dur" | head -1)
		[ -n "$spid" ] && break
		sleep 0.1
	done
	if [ -n "$spid" ]; then
		# no leak check: it cannot run in the joined namespaces
		probe() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$SYSPROBE" umount-in "$spid" "$@"; }
		out=$(for x in /dev/null /dev "$(pwd -P)" "$HOME/.ssh" "$(pwd -P)/secret.txt" /proc/sys /proc; do
			probe "$x"; done | awk '{print $2}' | tr '\n' ' ')
		check "with CAP_SYS_ADMIN in the command's namespaces: /dev/null, /dev, the write root, the ~/.ssh cover, a hidden file's cover, /proc/sys's cover and /proc stay ($out)" \
			test "$out" = "errno=EINVAL errno=EINVAL errno=EINVAL errno=EINVAL errno=EINVAL errno=EINVAL errno=EINVAL "
		out=$(probe /tmp tmpfs)
		check "control: a tmpfs the probe mounts there itself comes off ($out)" test "$out" = "umount-in ok"
		kill "$spid" 2>/dev/null
	else
		not_ok "the sandboxed sleep for the lock check did not start"
		skip "no sandboxed sleep for the control"
	fi
	wait
else
	skip "no sysprobe, or the helper does not make /dev or hide files here"
	skip "no sysprobe, or the helper does not make /dev or hide files here"
fi

# fail closed
# a user-namespace budget of one below srt: bwrap's takes it, the
# command's own cannot be made; the run stops and says what it needs.
# Control: a budget of two runs it.
if command -v unshare >/dev/null && unshare -Ur true 2>/dev/null && grep -q -- ' --make-dev-proc ' <<<"$argv"; then
	budget() { unshare -Ur sh -c "echo $1 > /proc/sys/user/max_user_namespaces && exec timeout 30 $SRT --backend=$BACKEND -s $S -- sh -c 'touch $MARK; exit 5'" 2>"$WORK/err" </dev/null; }
	budget 1; rc=$?
	check "a budget of one user namespace: exit 1, nothing ran, the command's namespace named (rc=$rc, $(head -c 200 "$WORK/err"))" \
		test "$rc" = 1 -a ! -e "$MARK" -a -n "$(grep "the command gets a user namespace of its own below bwrap's" "$WORK/err")"
	budget 2; rc=$?
	check "control: a budget of two runs the command (rc=$rc)" test "$rc" = 5 -a -e "$MARK"
	rm -f "$MARK"
else
	skip "no unshare -Ur here to set a user-namespace budget, or bwrap makes /dev"
	skip "no unshare -Ur here to set a user-namespace budget, or bwrap makes /dev"
fi
if [ -x "$H" ]; then
	"$H" --make-dev-proc --weaker-nested-sandbox -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "--make-dev-proc with the weaker sandbox: exit 125, nothing ran, named (rc=$rc)" \
		test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'exclude each other' "$WORK/err")"
	before=$(md5sum < /proc/self/mountinfo)
	"$H" --make-dev-proc -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "--make-dev-proc outside a new pid namespace: exit 125, nothing ran, named (rc=$rc)" \
		test "$rc" = 125 -a ! -e "$MARK" -a -n "$(grep 'not the first of a new pid namespace' "$WORK/err")"
	check "... and the host's mounts are untouched" test "$before" = "$(md5sum < /proc/self/mountinfo)"
	# without CAP_SYS_ADMIN the helper cannot copy the host's nodes
	bwrap --ro-bind / / --bind "$WORK" "$WORK" --unshare-pid --unshare-user --cap-drop ALL \
		-- "$H" --make-dev-proc -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "no CAP_SYS_ADMIN for the helper: exit 125, nothing ran (rc=$rc)" test "$rc" = 125 -a ! -e "$MARK"
	check "... and the step is named ($(head -c 160 "$WORK/err"))" \
		grep -q "^srt-linux-init: make the sandbox's /dev and /proc: copy the host's /dev/null: " "$WORK/err"
	# control: the same bwrap with the capability runs the command
	bwrap --ro-bind / / --bind "$WORK" "$WORK" --unshare-pid --unshare-user --cap-drop ALL \
		--cap-add CAP_SYS_ADMIN --cap-add CAP_SETFCAP -- "$H" --make-dev-proc -- touch "$MARK" 2>"$WORK/err"; rc=$?
	check "control: with CAP_SYS_ADMIN (and CAP_SETFCAP, to map uid 0 into its nested user namespace) the same helper runs the command (rc=$rc)" test "$rc" = 0 -a -e "$MARK"
	rm -f "$MARK"
else
	for i in 1 2 3 4 5 6; do skip "srt-linux-init not built"; done
fi
