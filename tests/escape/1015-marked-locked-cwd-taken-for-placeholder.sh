#!/bin/bash
# The working directory of one run is often a write root of another (an
# agent runs in the repository, then in one of its packages). The deepest
# existing directory above the mandatory names that are missing at the
# top of a working directory (.bashrc, .envrc, ...) is that directory
# itself, and adopt_foreign takes it for a live run's placeholder when it
# is locked (and, were the lock not enough, it carries srt's mark: a
# command can set user.srt.placeholder on any directory of its write
# root). Run A (in the project) marks and locks the package directory;
# run B (in the package, allowWrite ".") then binds its own working
# directory read-only onto itself with every mount below it dropped: the
# package's denied file, which A cannot read, is read. (Failed on
# 83d59b7; now a marked directory is taken only while it is empty.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
mkdir -p "$P/pkg"
echo "PKG-$CANARY" > "$P/pkg/secret.txt"
# one settings file for both runs: the package's secret is denied to A too
S=$(fsjson mark '{"denyRead":["~/.ssh","'"$P"'/pkg/secret.txt"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/lock.py" <<'PYEOF'
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
try:
    os.setxattr(fd, "user.srt.placeholder", b"1")
except OSError as e:
    print("no mark:", e, flush=True)
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
PYEOF

cd "$P" || exit 1
srt__run -s "$S" -c "cat pkg/secret.txt" > "$WORK/a0.out" 2>&1
check "run A's command alone cannot read the package's secret" no_leak "$WORK/a0.out"
fork_notrap srt__bg_exec -s "$S" -c "$PY $WORK/lock.py pkg 15"
a=$!
for i in $(seq 100); do grep -q locked "$WORK/bg.out" && break; sleep 0.1; done
check "run A's command holds its lock on pkg" grep -q locked "$WORK/bg.out"

cd "$P/pkg" || exit 1
srt__run -s "$S" -c "cat secret.txt" > "$WORK/b.out" 2>&1
diag "run B: $(tr '\n' ' ' < "$WORK/b.out" | cut -c1-300)"
kill "$a" 2>/dev/null
end_bg "$a" 50

attempt H2 "F1 the package's denied file is not read by a run in it planned beside a lock on it" \
	no_leak "$WORK/b.out"
check "the package directory is still there" test -f "$P/pkg/secret.txt"
check "the canary is unchanged" canary_intact
echo "1..$_tap_n"
