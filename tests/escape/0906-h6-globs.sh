#!/bin/bash
# Escape class H6: denyRead globs cover the files that match and appear
# during the run, on the host (created in place, renamed into place, in a
# directory made during the run) or in the sandbox; an existing secret
# cannot be made readable under a new name by a hard link or a rename.
# The globs lie in a write root, where nothing below the mounts refuses a
# new file. Every attempt asserts on what the command's output holds.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
mkdir -p "$P/secrets" "$P/keys"
echo "OLD-$CANARY" > "$P/secrets/a.pem"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws","./secrets/*.pem","./keys/**/*.key"],"allowWrite":["."],"denyWrite":[]}')
bg_wait() { local i; for i in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; kill "$1"; wait "$1"; }

srt__bg -s "$S" -c 'touch started; while [ ! -e go ]; do sleep 0.05; done
	cat secrets/created.pem secrets/renamed.pem keys/new/deep/k.key
	echo SANDBOX-OWN > secrets/own.pem; sleep 0.5; cat secrets/own.pem
	ln secrets/a.pem linked.txt; mv secrets/a.pem moved.txt; cat linked.txt moved.txt
	cp secrets/a.pem copied.txt; cat copied.txt; true'
pid=$!
wait_for "$P/started" 100
echo "NEW-CREATED-SECRET" > "$P/secrets/created.pem"
echo "NEW-RENAMED-SECRET" > "$P/secrets/tmp.x" && mv "$P/secrets/tmp.x" "$P/secrets/renamed.pem"
mkdir -p "$P/keys/new/deep" && echo "NEW-DEEP-SECRET" > "$P/keys/new/deep/k.key"
sleep 0.5; touch "$P/go"; bg_wait "$pid"
attempt H6 "a matching file the host created during the run is unreadable" \
	sh -c "! grep -q NEW-CREATED-SECRET '$WORK/bg.out'"
attempt H6 "a matching file the host renamed into place during the run is unreadable" \
	sh -c "! grep -q NEW-RENAMED-SECRET '$WORK/bg.out'"
attempt H6 "a matching file in a directory made during the run (**) is unreadable" \
	sh -c "! grep -q NEW-DEEP-SECRET '$WORK/bg.out'"
attempt H6 "a matching file the command made is covered once made" \
	sh -c "! grep -q SANDBOX-OWN '$WORK/bg.out'"
attempt H6 "an existing secret: no hard link, rename or copy reads it" \
	sh -c "! grep -q -e '$CANARY' '$WORK/bg.out' && test \"\$(cat '$P/secrets/a.pem')\" = 'OLD-$CANARY'"

# linux-landlock cannot cover a file that appears during the run (its rules
# name the inodes that exist at start): it must say so at start, on one line
# naming the glob, rather than leave the user to believe the glob holds
ll_err=$(cd "$P" && timeout 30 "$SRT" --backend="$BACKEND_LL" -s "$S" -c true 2>&1 >/dev/null)
if [ ! -e "$BACKEND_LL" ] || grep -qi 'landlock is not available\|Landlock ABI' <<<"$ll_err"; then
	skip "H6 linux-landlock cannot run here: $ll_err"
else
	attempt H6 "linux-landlock says at start that a glob does not cover files made during the run" \
		grep -q "warning: linux-landlock: denyRead glob .*/secrets/\*\.pem covers only the files that match it at start" <<<"$ll_err"
fi
echo "1..$_tap_n"
