#!/bin/bash
# Escape class: inherited descriptors. srt's own descriptors (proxy socket,
# bwrap info and status pipes, monitor, control and violations fds) must
# not reach the command; a descriptor the command does get must not open
# what the mounts hide (an open directory is a way around every mask:
# openat(dirfd, ".ssh/id_canary") resolves on the host's tree).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
N=$(fsjson net "$S0_FS" '{"allowedDomains":["example.com"],"deniedDomains":[]}')
# closed: run a command with every descriptor above 2 closed
closed() { "$PY" -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }

# srt's own descriptors: with nothing above 2 inherited, the command holds
# nothing above 2 either (the listing's own directory fd aside)
list='exec /usr/bin/python3 -c "
import os
for n in sorted(os.listdir(\"/proc/self/fd\"), key=int):
    try:
        print(n, os.readlink(\"/proc/self/fd/\" + n))
    except OSError:
        pass
"'
closed timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$N" --violations-log "$WORK/viol.log" \
	-c "$list" </dev/null >"$WORK/fds" 2>"$WORK/err"
attempt K1 "no descriptor of srt reaches the command ($(grep -cv '^[012] ' "$WORK/fds") extra)" \
	test -s "$WORK/fds" -a -z "$(grep -v '^[012] ' "$WORK/fds")"
grep -v '^[012] ' "$WORK/fds" | sed 's/^/# leaked: /'

# --control-fd: the command sees /dev/null there, and cannot feed srt
# settings through it (a wider allow list would be an escape; the target
# is a closed loopback port, so even a success goes nowhere: 502, not 403)
rm -f "$WORK/ctl"; mkfifo "$WORK/ctl"
closed timeout -k 5 30 bash -c 'exec 5<>"$1"; shift; exec "$@"' _ "$WORK/ctl" \
	"$SRT" --backend="$BACKEND" -s "$N" --control-fd 5 -c '
	readlink /proc/self/fd/5 > ctl.target
	echo "{\"network\":{\"allowedDomains\":[\"localhost:9\"],\"deniedDomains\":[]}}" >&5
	sleep 0.3
	curl -s -o /dev/null -w "%{http_code}" --noproxy "" --max-time 5 http://localhost:9/ > ctl.code; true' \
	</dev/null >/dev/null 2>&1
attempt K1 "--control-fd is /dev/null inside ($(cat "$P/ctl.target" 2>/dev/null))" \
	test "$(cat "$P/ctl.target" 2>/dev/null)" = /dev/null
attempt N17 "writing settings to the control fd from inside changes nothing (got $(cat "$P/ctl.code" 2>/dev/null))" \
	test "$(cat "$P/ctl.code" 2>/dev/null)" = 403

# a directory descriptor the caller left open: the command must not get
# through it to what the mounts hide, nor write through it
S=$(fsjson s0 "$S0_FS")
(
	exec 7<"$HOME" 8<"$HOME/outside"
	timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c '
		cat /proc/self/fd/7/.ssh/id_canary
		/usr/bin/python3 -c "import os; print(open(os.open(\".ssh/id_canary\", os.O_RDONLY, dir_fd=7)).read())"
		/usr/bin/python3 -c "import os; os.write(os.open(\"via-fd\", os.O_CREAT|os.O_WRONLY, 0o644, dir_fd=8), b\"x\")"
		echo x > /proc/self/fd/8/via-proc
		true' </dev/null
) >"$WORK/out" 2>&1
attempt F1 "inherited directory fd: the masked secret is not read through it" no_leak "$WORK/out"
attempt F4 "inherited directory fd: nothing written outside through it" \
	test ! -e "$HOME/outside/via-fd" -a ! -e "$HOME/outside/via-proc"
attempt F1 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
