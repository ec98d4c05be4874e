#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 2ce8be5 (watch.c, the covers
# taken ahead during a scan): a cover stays on the directory it covers,
# not on the name. While the watcher scans for the replaced ~/.ssh (the
# probe's thousands of descriptors make that take most of a second), the
# host moves a directory the command stands in (~/aws-stage) onto the
# denied ~/.aws.next, which is covered ahead at once, and then moves
# ~/.aws.next onto the denied ~/.aws: the directory arrives there with its
# cover. At ~/.aws.next's turn the name held nothing any more, and at
# ~/.aws's turn the name looked covered already: nobody looked at what the
# command holds below that directory, and the command, standing in it,
# saw the names the host then made in the new ~/.aws for the rest of the
# run (failed on 2ce8be5: not stopped). Every directory covered ahead is
# now looked at at its name's turn, wherever it went since. (The command
# still sees the name by stat until the scan for ~/.ssh is over and the
# run stopped; opening it is refused by the monitor in any case.)
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
cat > "$WORK/probe.py" <<'PYEOF'
import os, sys, time
from below import hold_deep, wait_marker
p, deep, stage = sys.argv[1], sys.argv[2], sys.argv[3]
res = open(p + "/res", "a")
child = os.fork()
if child == 0:
    # stands in the staged directory, and looks for the host's name there
    os.chdir(stage)
    open(p + "/child-in", "w").close()
    wait_marker(p, "aws-made", 400)
    end, seen = time.time() + 6, False
    while time.time() < end:
        try:
            os.stat("host-made-name")
            if not seen:
                res.write("stat-sees-name\n"); res.flush()
            seen = True
        except OSError:
            pass
        time.sleep(0.05)
    res.write("done\n"); res.close()
    os._exit(0)
wait_marker(p, "child-in", 200)
res.write("fds %d\n" % hold_deep(deep)); res.flush()
open(p + "/in", "w").close()
os.waitpid(child, 0)
PYEOF
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","~/.aws.next"],"allowWrite":["."],"denyWrite":[]}')
rm -rf "$HOME"/.ssh* "$HOME/.aws.next" "$HOME/aws-stage" "$P/in" "$P/child-in" "$P/res" "$P/aws-made"
mkdir -p "$HOME/.ssh" "$HOME/.ssh.new" "$HOME/aws-stage" "$HOME/.aws"
echo "$CANARY" > "$HOME/.ssh/id_canary"
make_deep "$P/deep"
srt__bg --debug -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $P/deep $HOME/aws-stage"
pid=$!
wait_for "$P/in" 300 || diag "the probe did not start: $(cat "$WORK/bg.out")"
mv "$HOME/.ssh" "$HOME/.ssh.old"
mv "$HOME/.ssh.new" "$HOME/.ssh"
sleep 0.1
mv "$HOME/aws-stage" "$HOME/.aws.next"
sleep 0.05
mv "$HOME/.aws" "$HOME/.aws.old"
mv "$HOME/.aws.next" "$HOME/.aws"
echo "CANARY-AWS-$$" > "$HOME/.aws/host-made-name"
touch "$P/aws-made"
end_bg "$pid" 300
diag "res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
diag "srt: $(grep -v 'debug' "$WORK/bg.out" | tr '\n' ' ' | cut -c1-400)"
diag "scans: $(grep -o '[^ /]* covered again; what the command holds below it looked at in [0-9]* ms' "$WORK/bg.out" | tr '\n' ' ')"
if ! grep -q '/\.aws\.next covered ahead of its turn' "$WORK/bg.out"; then
	# the scan for ~/.ssh ended before the host's move (a fast machine,
	# or fewer descriptors): ~/.aws.next waited for its turn as before
	skip_rest 1 "H1 ~/.aws.next was not covered ahead of its turn here (the scan for ~/.ssh was over): not the case this test is for"
else
	attempt H1 "a directory the command stands in, covered ahead at a denied name and moved with its cover onto another: the run is stopped for it" \
		grep -qE '/\.aws(\.next)?: replaced on the host during the run by a directory that process [0-9]+ had entered' "$WORK/bg.out"
fi
rm -rf "$HOME/.aws.old" "$HOME/aws-stage" "$HOME/.aws.next"
echo "1..$_tap_n"
