#!/bin/bash
# Escape class: what the command leaves behind or reaches past its own tree
# through calls that file and namespace rules do not see (review findings):
#  - set-id bits set with every chmod call on a file in a write root: a
#    set-uid copy of a shell outlives the sandbox (set-uid root for a root
#    caller), whatever nosuid and no_new_privs did inside; and files created
#    with such a mode (creat, open(at) with O_CREAT or O_TMPFILE, mknod,
#    openat2), which keep the bit when a root program writes them later;
#  - prlimit64 on another process: a uid match is its only check, so the
#    command could kill (RLIMIT_CPU) or starve (RLIMIT_NOFILE) the helper,
#    or under linux-landlock (no pid namespace) any process of the user;
#  - System V shared memory of the host: linux-landlock has no IPC
#    namespace.
# Each runs under linux-bwrap and, when it can run here, linux-landlock,
# with a control outside the sandbox where one makes sense; the verdict is
# the host's state afterwards.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
E=$ESYS
LL=$BACKEND_LL
VICTIM=
trap 'main_shell || exit; [ -n "$VICTIM" ] && kill $VICTIM 2>/dev/null; _cleanup' EXIT

backends="bwrap:$BACKEND"
if [ -e "$LL" ] && timeout -k 5 30 "$SRT" --backend="$LL" -s "$S" -c true >/dev/null 2>"$WORK/ll.err"; then
	backends="$backends landlock:$LL"
else
	diag "linux-landlock cannot run here ($(head -1 "$WORK/ll.err" 2>/dev/null)): its cases are skipped"
fi
setid_probes="chmod-suid chmod-sgid chmod-suid-hi fchmod-suid fchmodat-suid fchmodat2-sgid"

# control: outside the sandbox the same probes do set the bits (else the
# checks below could not fail)
cp /bin/true "$P/ctl"
out=$(for p in $setid_probes; do chmod 0755 "$P/ctl"; $E $p "$P/ctl"; done)
attempt K6 "control: outside, every set-id chmod works ($(echo $out))" \
	sh -c "[ \$(printf '%s\n' '$out' | grep -c ' ok\$') = 6 ]"
mkdir -p "$WORK/ctl-t"
out=$(cd "$WORK" && umask 0 && for p in creat-suid open-suid openat-sgid mknod-suid openat2; do $E $p "./ctl-$p"; done; $E tmpfile-suid ./ctl-t)
attempt K6 "control: outside, every set-id create works ($(echo $out))" \
	sh -c "[ \$(printf '%s\n' '$out' | grep -c ' ok\$') = 6 ] && [ \$(find '$WORK' -maxdepth 1 -name 'ctl-*' -type f -perm /6000 | wc -l) = 5 ] && [ -u '$WORK/ctl-t/tmpfile-suid' ]"
rm -rf "$WORK"/ctl-*

# refused NAME OUTPUT PROBES...: one TAP line per probe, which must have
# answered with anything but "ok"
refused() {
	local name=$1 out=$2 p line
	shift 2
	for p in "$@"; do
		line=$(grep "^$p " "$out" | head -1)
		attempt K6 "$name: $p refused (${line:-no answer})" \
			sh -c "[ -n '$line' ] && ! printf '%s' '$line' | grep -q ' ok\$'"
	done
}

for b in $backends; do
	name=${b%%:*} mod=${b#*:}
	run() { timeout -k 5 30 "$SRT" --backend="$mod" "$@"; }

	# set-id bits on a copy of a binary in the write root
	cp /bin/true "$P/t-$name"
	chmod 0755 "$P/t-$name"
	(cd "$P" && run -s "$S" -c "$E chmod-plain ./t-$name; for p in $setid_probes; do $E \$p ./t-$name; done") \
		>"$WORK/setid-$name" 2>&1
	refused "$name" "$WORK/setid-$name" $setid_probes
	attempt K6 "$name: a plain chmod still works ($(grep '^chmod-plain ' "$WORK/setid-$name"))" \
		grep -q '^chmod-plain ok' "$WORK/setid-$name"
	mode=$(stat -c %a "$P/t-$name")
	attempt K6 "$name: no set-id bit on the host afterwards (mode $mode)" test "$mode" = 755

	# files created with a set-id mode (umask 0 first): an empty set-uid
	# file keeps its bit when a root program on the host writes it later.
	# In a subdirectory: linux-landlock makes nothing directly in a write
	# root that lacks a mandatory-deny name (it could not protect it)
	mkdir -p "$P/n"
	(cd "$P" && run -s "$S" -c "umask 0; for p in creat-suid open-suid openat-sgid mknod-suid openat2; do $E \$p ./n/n-$name-\$p; done; $E tmpfile-suid ./n; $E open-plain ./n/n-$name-plain") \
		>"$WORK/create-$name" 2>&1
	refused "$name" "$WORK/create-$name" creat-suid open-suid openat-sgid mknod-suid openat2 tmpfile-suid
	attempt K6 "$name: a plain create still works ($(grep '^open-plain ' "$WORK/create-$name"))" \
		grep -q '^open-plain ok' "$WORK/create-$name"
	setid=$(find "$P/n" -maxdepth 1 -perm /6000 | wc -l)
	attempt K6 "$name: no set-id file was created on the host ($setid)" test "$setid" = 0

	# prlimit: the caller's own limits, and another process's
	VICTIM=
	sleep 60 & VICTIM=$!
	(cd "$P" && run -s "$S" -c "$E prlimit-self; $E prlimit-pid 1; $E prlimit-pid $VICTIM; $E prlimit-read \$\$") >"$WORK/prl-$name" 2>&1
	attempt K6 "$name: prlimit on itself works ($(grep '^prlimit-self ' "$WORK/prl-$name"))" \
		grep -q '^prlimit-self ok' "$WORK/prl-$name"
	attempt K6 "$name: prlimit on pid 1 refused ($(grep '^prlimit-pid ' "$WORK/prl-$name" | head -1))" \
		sh -c "grep '^prlimit-pid ' '$WORK/prl-$name' | head -1 | grep -q errno="
	attempt K6 "$name: prlimit on a host process refused ($(grep '^prlimit-pid ' "$WORK/prl-$name" | sed -n 2p))" \
		sh -c "grep '^prlimit-pid ' '$WORK/prl-$name' | sed -n 2p | grep -q errno="
	attempt K6 "$name: reading another process's limits still works (the shell's: $(grep '^prlimit-read ' "$WORK/prl-$name"))" \
		grep -q '^prlimit-read ok' "$WORK/prl-$name"
	kill $VICTIM 2>/dev/null; wait $VICTIM 2>/dev/null; VICTIM=
done
rm -rf "$P"/t-* "$P/n" "$P/ctl"

# System V shared memory of the host: a segment made outside, attached
# inside by its id (no shmget needed) and by its key
cat > "$WORK/shm.py" <<'PYEOF'
import ctypes, sys, time
l = ctypes.CDLL(None, use_errno=True)
l.shmat.restype = ctypes.c_void_p
key = int(sys.argv[1])
i = l.shmget(key, 4096, 0o1000 | 0o600)
if i < 0:
    sys.exit(1)
a = l.shmat(i, None, 0)
ctypes.memmove(a, b"SHM-CANARY\0", 11)
open(sys.argv[2], "w").write("%d\n" % i)
time.sleep(float(sys.argv[3]))
l.shmctl(i, 0, None)  # IPC_RMID
PYEOF
K=$(( 0x5e710000 + $$ % 65536 ))
"$PY" "$WORK/shm.py" "$K" "$WORK/shm.id" 20 & SHMP=$!
wait_for "$WORK/shm.id" 50
ID=$(cat "$WORK/shm.id" 2>/dev/null)
if [ -n "$ID" ]; then
	$E shm-read "$ID" >"$WORK/shm-ctl" 2>&1
	attempt I1 "control: outside, the segment is read by id ($(tr '\n' ' ' < "$WORK/shm-ctl"))" \
		grep -q 'got: SHM-CANARY' "$WORK/shm-ctl"
	for b in $backends; do
		name=${b%%:*} mod=${b#*:}
		(cd "$P" && timeout -k 5 30 "$SRT" --backend="$mod" -s "$S" -c "$E shm-read $ID; $E shm-get $K") \
			>"$WORK/shm-$name" 2>&1
		attempt I1 "$name: a host SysV segment is not readable ($(grep -E '^shm-' "$WORK/shm-$name" | tr '\n' ' '))" \
			sh -c "! grep -q 'SHM-CANARY' '$WORK/shm-$name' && ! grep -q '^shm-read ok' '$WORK/shm-$name' && ! grep -q '^shm-get ok' '$WORK/shm-$name'"
	done
else
	skip "I1 no SysV shared memory on this host"
	for b in $backends; do skip "I1 no SysV shared memory on this host"; done
fi
kill $SHMP 2>/dev/null; wait $SHMP 2>/dev/null

echo "1..$_tap_n"
