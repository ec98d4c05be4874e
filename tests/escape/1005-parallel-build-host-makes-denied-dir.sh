#!/bin/bash
# Semantics (linux-bwrap), red team on 3f724f8 (watch.c,
# each_command_task): an ordinary parallel build in the sandbox (four
# workers, each starting a compiler-like process five times a second)
# beside a long-lived tool with 300 threads and 1500 descriptors (a
# language server, a node dev server), while the host replaces the
# denied ~/.ssh (`mv ~/.ssh ~/.ssh.old; mkdir ~/.ssh`, as ssh-keygen or
# a restore does). The watcher's scan of the command's tasks listed the
# one descriptor table of the tool once per thread (450,000 entries a
# round, seconds each), so every round met a new process of the build,
# the scan gave up ("it keeps making new processes") and the run was
# stopped, though nothing went near the directory (failed on 3f724f8).
# A table shared by consecutive threads (kcmp) is listed once now.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}')
rm -rf "$HOME"/.ssh* "$P/.ready"
mkdir -p "$HOME/.ssh"
echo "$CANARY" > "$HOME/.ssh/id_canary"
cat > "$P/build.sh" <<'EOF2'
#!/bin/sh
# a build: four workers, each starting a compiler-like process five
# times a second
# and a long-lived tool beside it with many threads and descriptors (a
# language server, a node dev server; busy_tool.py, in the directory
# given as $1): each round of the scan is long
python3 "$1/busy_tool.py" 13 &
while [ ! -e .ready ]; do sleep 0.1; done
end=$(( $(date +%s) + 12 ))
for w in 1 2 3 4; do
	( while [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done ) &
done
wait
echo "build ended normally"
EOF2
srt__bg -s "$S" -c "cd $P && sh $P/build.sh $BELOW_PY"
pid=$!
wait_for "$P/.ready" 100 || diag "the build did not start: $(cat "$WORK/bg.out")"
sleep 0.5
mv "$HOME/.ssh" "$HOME/.ssh.old"
mkdir -p "$HOME/.ssh"
echo "new key" > "$HOME/.ssh/id_new"
end_bg "$pid" 400
rc=$?
diag "srt status $rc: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-500)"
attempt S "a parallel build is not stopped when the host makes the denied ~/.ssh" \
	grep -q "build ended normally" "$WORK/bg.out"
echo "1..$_tap_n"
