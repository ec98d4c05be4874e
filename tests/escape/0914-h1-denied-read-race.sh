#!/bin/bash
# Escape class H1 (linux-bwrap): the read window of a denied file the host
# replaces. The host renames a new .env (its secret made in a directory the
# command cannot read) over the denied .env 1,000 times while the command
# reads .env in a tight loop. The kernel drops the sandbox's cover of the
# old .env at each rename and the watcher covers the new one again; what
# the command reads between the two is counted. Every secret it read must
# have been reported ("deny read ...env" in the run's summary), and after
# the race (the watcher has caught up) a read finds nothing. The figures
# (reads, secrets read, reports) go to the TAP diagnostics.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
echo "OLD-$CANARY" > "$P/.env"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./.env"],"allowWrite":["."],"denyWrite":[]}')
cat > "$WORK/reader.py" <<'EOF'
import os, time
open("started", "w").close()
reads = hits = 0
while not os.path.exists("stop"):
    try:
        with open(".env", "rb") as f:
            b = f.read()
    except OSError:
        b = b""
    reads += 1
    if b.startswith(b"SECRET-"):
        hits += 1
time.sleep(0.5)  # the watcher catches up with the last rename
try:
    with open(".env", "rb") as f:
        last = f.read()
except OSError:
    last = b""
print("reads %d hits %d last %s" % (reads, hits, "secret" if last.startswith(b"SECRET-") else "none"))
EOF
srt__bg -s "$S" -c "$PY $WORK/reader.py"
pid=$!
wait_for "$P/started" 100 || diag "the reader did not start: $(cat "$WORK/bg.out")"
"$PY" - "$HOME/.ssh" "$P" <<'EOF'
import os, sys
hidden, proj = sys.argv[1], sys.argv[2]
for i in range(1000):
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
reported=$(grep -c 'deny read.*\.env' "$WORK/bg.out")
diag "1,000 host renames over a denied .env: $line; reported: $reported"
attempt H1 "the race ran ($line)" test -n "$line"
attempt H1 "every secret the command read in the window was reported ($hits read, $reported reports)" \
	sh -c "[ -n '$hits' ] && { [ '$hits' -eq 0 ] || [ '$reported' -gt 0 ]; }"
attempt H1 "after the race the replaced .env is covered again" sh -c "echo '$line' | grep -q 'last none'"
attempt H1 "the first secret never left the host" sh -c "! grep -q 'OLD-$CANARY' '$WORK/bg.out'"
echo "1..$_tap_n"
