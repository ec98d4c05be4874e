#!/bin/bash
# adopt_foreign takes an existing empty file that another process locks
# for a concurrent run's placeholder file (the mark is not asked when a
# lock is seen), and the run that took it removes it at its end as its
# own placeholder. A sandboxed command can open a protected file that is
# only write-denied (read-only, so readable) and take a shared POSIX lock
# on it. Here the user's empty .npmrc (a mandatory-deny name the command
# cannot remove) is locked by run A's command while run B is planned; A
# then ends, and B's cleanup unlinks the user's file. (Failed on 83d59b7;
# now a lock is no evidence, and the command cannot mark a read-only file.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
: > .npmrc
S=$(fsjson locknpmrc '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/lock.py" <<'PYEOF'
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
PYEOF

# the command itself cannot remove the file
srt__run -s "$S" -c "rm -f .npmrc" >/dev/null 2>&1
check "the command alone cannot remove .npmrc" test -f .npmrc

# run A's command holds a shared lock on .npmrc for 3 s
fork_notrap srt__bg_exec -s "$S" -c "$PY $WORK/lock.py .npmrc 3"
a=$!
for i in $(seq 100); do grep -q locked "$WORK/bg.out" && break; sleep 0.1; done
check "run A's command holds its lock on .npmrc" grep -q locked "$WORK/bg.out"
# run B is planned meanwhile and outlives A
srt__run -s "$S" -c "sleep 5" > "$WORK/b.out" 2>&1
end_bg "$a" 50
diag "run B: $(tr '\n' ' ' < "$WORK/b.out" | cut -c1-300)"

attempt F2 "the user's empty protected .npmrc is not removed by a run planned beside a lock on it" \
	test -f .npmrc
check "the canary is unchanged" canary_intact
echo "1..$_tap_n"
