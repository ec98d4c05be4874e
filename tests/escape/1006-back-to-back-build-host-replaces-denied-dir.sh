#!/bin/bash
# Semantics (linux-bwrap), red team on b4fe8ce (watch.c,
# each_command_task): a build that starts processes back to back (eight
# workers running `true` and `sh -c :` in a loop, as `make -j8` of small
# steps or `xargs -P8` does, and a test runner forking a child for each
# case) beside a tool with 300 threads, while the
# host replaces the denied ~/.ssh. The scan of the command's tasks ended
# only with a round of /proc that met no task it had not met, and each
# round looked at every task again; a build like that starts one every
# few hundred microseconds, so no round was quiet, and after 64 rounds (or
# a second past three times what the first two took) the scan said
# "cannot tell ... it keeps making new processes" and the run was
# stopped, though nothing went near the directory (TODO here until
# each_command_task's later rounds looked only at what changed: the
# rounds take milliseconds now, and one goes by without a new task).
. "$(dirname "$0")/lib.sh"
need_bwrap
# the sanitized build's watcher reads /proc several times slower, and
# under the sanitizer pass's load a round that looks only at what changed
# still met a new process in every round in 1 run of 4 (CI, 873f011):
# the run is stopped, which fails closed; the plain build's passes (as
# root and as the unprivileged user) run the check
if ldd "$SRT" 2>/dev/null | grep -q libasan; then
	skip "the sanitized build: its watcher is too slow to see a quiet round beside a build starting processes back to back (the run is stopped: fails closed); the plain build runs this check"
	echo "1..$_tap_n"
	exit 0
fi
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
cat > "$P/build.sh" <<'EOF2'
#!/bin/sh
# a build: eight workers, each running many short compiler-like processes
# and a long-lived tool beside it with many threads and descriptors (a
# language server, a node dev server; busy_tool.py, in the directory
# given as $1): each round of the scan is long
python3 "$1/busy_tool.py" 7 &
while [ ! -e .ready ]; do sleep 0.1; done
end=$(( $(date +%s) + 6 ))
for w in 1 2 3 4 5 6 7 8; do
	( while [ "$(date +%s)" -lt "$end" ]; do /bin/true; sh -c ':'; done ) &
done
# and a test runner forking a child for each of many small cases
python3 -c '
import os, time
end = time.time() + 6
while time.time() < end:
    k = os.fork()
    if k == 0:
        os._exit(0)
    os.waitpid(k, 0)
' &
wait
echo "build ended normally"
EOF2
# a run can get a quiet round by chance: four runs, each must go on
stopped=0
for run in 1 2 3 4; do
	rm -rf "$HOME"/.ssh* "$P/.ready"
	mkdir -p "$HOME/.ssh"
	echo "$CANARY" > "$HOME/.ssh/id_canary"
	srt__bg -s "$S" -c "cd $P && sh $P/build.sh $BELOW_PY"
	pid=$!
	wait_for "$P/.ready" 100 || diag "the build did not start: $(cat "$WORK/bg.out")"
	sleep 0.5
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mkdir -p "$HOME/.ssh"
	echo "new key" > "$HOME/.ssh/id_new"
	end_bg "$pid" 200
	rc=$?
	diag "run $run: srt status $rc: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-300)"
	grep -q "build ended normally" "$WORK/bg.out" || stopped=$((stopped + 1))
done
attempt S "a build starting processes back to back is not stopped when the host replaces the denied ~/.ssh" \
	test "$stopped" = 0
echo "1..$_tap_n"
