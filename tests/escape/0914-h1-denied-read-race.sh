#!/bin/bash
# Escape class H1 (linux-bwrap): the read window of a denied file the host
# replaces. The host renames a new .env (its secret made in a directory the
# command cannot read) over the denied .env 1,000 times while the command
# tries to read it in a tight loop, by every route it has: its name, a
# symbolic link to it made before the race, /proc/self/cwd/.env, and a hard
# link or a rename of the name to one it may read. The kernel drops the
# sandbox's cover of the old .env at each rename and the watcher covers the
# new one again; the violation monitor refuses each of those calls before
# the kernel runs it, covered or not, so no secret may be read, by any
# route, and after the race a read still finds nothing. linux-landlock
# runs a shorter race: its rules name inodes, and the new file has none.
# The figures (reads, secrets read, refusals reported) go to the TAP
# diagnostics.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/reader.py" <<'EOF'
import os, time
os.symlink(".env", "lnk")
open("started", "w").close()
reads = hits = 0
per = [0] * 5
def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""
def moved(how, name):
    # a hard link or a rename of the name: a second name to read it by
    try:
        how(".env", name)
    except OSError:
        return b""
    b = read(name)
    try:
        os.unlink(name)
    except OSError:
        pass
    return b
routes = [lambda: read(".env"), lambda: read("lnk"), lambda: read("/proc/self/cwd/.env"),
          lambda: moved(os.link, "hl"), lambda: moved(os.rename, "mv")]
while not os.path.exists("stop"):
    for i, r in enumerate(routes):
        reads += 1
        if r().startswith(b"SECRET-"):
            hits += 1
            per[i] += 1
time.sleep(0.5)  # the watcher catches up with the last rename
last = read(".env")
print("reads %d hits %d last %s (by name, link, /proc/self/cwd, hard link, rename: %s)" %
      (reads, hits, "secret" if last.startswith(b"SECRET-") else "none", " ".join(map(str, per))))
EOF
# race BACKEND RENAMES: the host's renames against the reader; sets line,
# hits and reported
race() {
	rm -f "$P/started" "$P/stop" "$P/lnk"
	echo "OLD-$CANARY" > "$P/.env"
	( trap - EXIT; exec "$SRT" --backend="$1" -s "$S" -c "$PY $WORK/reader.py" >"$WORK/bg.out" 2>&1 </dev/null ) &
	pid=$!
	wait_for "$P/started" 100 || diag "the reader did not start: $(cat "$WORK/bg.out")"
	"$PY" - "$HOME/.ssh" "$P" "$2" <<'EOF'
import os, sys
hidden, proj, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    t = os.path.join(hidden, "env.tmp")
    with open(t, "w") as f:
        f.write("SECRET-%d\n" % i)
    os.rename(t, os.path.join(proj, ".env"))
EOF
	touch "$P/stop"
	for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill "$pid" 2>/dev/null
	wait "$pid"
	line=$(grep '^reads ' "$WORK/bg.out")
	hits=$(echo "$line" | awk '{print $4}')
	reported=$(grep -c 'deny .*\.env' "$WORK/bg.out")
}
race "$BACKEND" 1000
diag "1,000 host renames over a denied .env: $line; reported: $reported"
attempt H1 "the race ran ($line)" test -n "$line"
attempt H1 "no secret read by any route during the race ($hits of the reads)" \
	sh -c "[ -n '$hits' ] && [ '$hits' -eq 0 ]"
attempt H1 "the refusals were reported ($reported lines)" sh -c "[ '$reported' -gt 0 ]"
attempt H1 "after the race the replaced .env is covered again" sh -c "echo '$line' | grep -q 'last none'"
attempt H1 "the first secret never left the host" sh -c "! grep -q 'OLD-$CANARY' '$WORK/bg.out'"
# linux-landlock: its rules name inodes (the directory holding the denied
# name is granted entry by entry), so the new file has no rule; a shorter
# race keeps the script cheap
if [ -f "$BACKEND_LL" ]; then
	race "$BACKEND_LL" 100
	diag "linux-landlock, 100 host renames: $line"
	attempt H1 "linux-landlock: no secret read by any route during the race ($line)" \
		sh -c "[ -n '$hits' ] && [ '$hits' -eq 0 ] && ! grep -q 'OLD-$CANARY' '$WORK/bg.out'"
else
	skip "linux-landlock module not built"
fi
echo "1..$_tap_n"
