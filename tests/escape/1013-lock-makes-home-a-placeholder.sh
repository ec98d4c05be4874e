#!/bin/bash
# A placeholder another live run holds is recognised by a POSIX lock on
# it (adopt_foreign: srt__bwrap_locked_by_other), and any locked directory
# is taken, full or not. The first pass asks that of the deepest existing
# directory above every missing deny name, writable or not: $HOME for the
# protected ~/... names that are usually missing (~/.cargo/config.toml,
# ~/.config/autostart, ...). A sandboxed command can open $HOME (it is
# readable) and take a shared lock on it. A run planned while that
# command runs takes $HOME for a concurrent run's placeholder directory:
# $HOME is bound read-only onto itself and every mount below it is
# dropped (inh == M_PH_DIR): the project's write bind, the /dev/null over
# a denied file of the project, the tmpfs over ~/.ssh. In the project (a
# write root, whose denies the Landlock layer leaves to the mounts) the
# denied file's content is then read, and ~/.ssh is listed. (Failed on
# 83d59b7; now only srt's mark on an empty name makes it another run's
# placeholder, never a lock: see mount-placeholders.c.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$HOME/proj"
mkdir -p "$P/sub"
echo "PROJ-$CANARY" > "$P/sub/secret.txt"
cd "$P" || exit 1
S=$(fsjson lockhome '{"denyRead":["~/.ssh","./sub/secret.txt"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/lock.py" <<'PYEOF'
import fcntl, os, struct, sys, time
fd = os.open(os.environ["HOME"], os.O_RDONLY | os.O_DIRECTORY)
fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))
print("locked", flush=True)
time.sleep(float(sys.argv[1]))
PYEOF

srt__run -s "$S" -c "cat sub/secret.txt; ls -a ~/.ssh" > "$WORK/a0.out" 2>&1
check "a command alone reads neither" sh -c "! grep -q -e '$CANARY' -e id_canary '$WORK/a0.out'"
# run A: its command holds a shared lock on $HOME
fork_notrap srt__bg_exec -s "$S" -c "$PY $WORK/lock.py 15"
a=$!
for i in $(seq 100); do grep -q locked "$WORK/bg.out" && break; sleep 0.1; done
check "run A's command holds its lock on \$HOME" grep -q locked "$WORK/bg.out"

# run B, planned while A's command holds the lock, reads what it may not
srt__run -s "$S" -c "cat sub/secret.txt; ls -a ~/.ssh" > "$WORK/b.out" 2>&1
diag "run B: $(tr '\n' ' ' < "$WORK/b.out" | cut -c1-300)"
kill "$a" 2>/dev/null
end_bg "$a" 50

attempt H2 "F1 a denied file of the project is not read by a run planned beside a lock on \$HOME" \
	no_leak "$WORK/b.out"
attempt H2 "F2 ~/.ssh is not listed by that run" sh -c "! grep -q id_canary '$WORK/b.out'"
check "the canary is unchanged" canary_intact
echo "1..$_tap_n"
