#!/bin/bash
# Escape class: the terminal (K4, as in bubblewrap CVE-2017-5226). Run
# srt on a real pseudo-terminal (script(1)); the command pushes bytes into
# the terminal's input queue (TIOCSTI, with high bits, on fds 0-2 and on a
# freshly opened /dev/tty) and tries TIOCLINUX. The shell that started srt
# then reads its input for a second: it must read nothing, and the
# injected command's marker must not exist on the host. TIOCSETD (another
# line discipline) and TIOCEXCL (the terminal made exclusive, so prompts
# that open /dev/tty fail after srt exits) are refused too; outside, on the
# same terminal, they work (the control).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
if ! command -v script >/dev/null 2>&1; then
	skip "K4 script(1) missing: no pseudo-terminal to test with"; echo "1..$_tap_n"; exit 0
fi
INJ="$WORK/INJECTED"
cat > "$WORK/tty-attack.py" <<PYEOF
import fcntl, os, termios
cmd = b"touch $INJ\n"
res = []
targets = [0, 1, 2]
try:
    targets.append(os.open("/dev/tty", os.O_RDWR))
except OSError as e:
    res.append("open /dev/tty: %s" % e.strerror)
for fd in targets:
    for req in (termios.TIOCSTI, termios.TIOCSTI | (1 << 32)):
        n = 0
        for ch in cmd:
            try:
                fcntl.ioctl(fd, req, bytes([ch]))
                n += 1
            except (OSError, OverflowError):
                break
        res.append("fd %d req %#x pushed %d" % (fd, req, n))
try:
    fcntl.ioctl(0, 0x541C, bytes([12]))
    res.append("TIOCLINUX ok")
except OSError as e:
    res.append("TIOCLINUX refused")
open("tty.result", "w").write("\n".join(res) + "\n")
PYEOF
cat > "$WORK/tty-outer.sh" <<EOF2
/usr/bin/python3 -c 'import fcntl, termios; [fcntl.ioctl(0, termios.TIOCSTI, bytes([c])) for c in b"ctl-line\\n"]'
if read -t 1 line; then echo "control-read: \$line"; else echo "control-read: nothing"; fi
"$ESYS" tiocsetd; "$ESYS" tiocexcl
timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" -c '/usr/bin/python3 $WORK/tty-attack.py; "$ESYS" tiocsetd >tty.ld; "$ESYS" tiocexcl >>tty.ld'
if read -t 1 line; then echo "outer-read: \$line"; else echo "outer-read: nothing"; fi
EOF2
# script's input stays open (a pipe from sleep): at EOF it would end the
# terminal's input and hide what was pushed. First a control: outside the
# sandbox the same push does reach the shell (else this host blocks
# TIOCSTI anyway and the test could not fail).
sleep 4 | timeout -k 5 40 script -q -e -c "bash $WORK/tty-outer.sh" /dev/null >"$WORK/tty.out" 2>&1
if ! grep -q 'control-read: ctl-line' "$WORK/tty.out"; then
	skip "K4 TIOCSTI does not work on this host even unsandboxed (dev.tty.legacy_tiocsti=0?)"
	echo "1..$_tap_n"; exit 0
fi
pushed=$(grep -c 'pushed [1-9]' "$P/tty.result" 2>/dev/null)
attempt K4 "the attack ran on a terminal ($(wc -l < "$P/tty.result" 2>/dev/null) results)" test -s "$P/tty.result"
attempt K4 "TIOCSTI pushed no byte on any fd ($pushed fd/request pairs did)" test -s "$P/tty.result" -a "$pushed" = 0
attempt K4 "the shell that ran srt read nothing injected" grep -q 'outer-read: nothing' "$WORK/tty.out"
attempt K4 "the injected command never ran on the host" test ! -e "$INJ"
attempt K4 "TIOCLINUX refused" grep -q 'TIOCLINUX refused' "$P/tty.result"
if grep -q '^tiocsetd ok' "$WORK/tty.out" && grep -q '^tiocexcl ok' "$WORK/tty.out"; then
	attempt K4 "TIOCSETD refused ($(grep '^tiocsetd' "$P/tty.ld"))" grep -q '^tiocsetd errno=EPERM' "$P/tty.ld"
	attempt K4 "TIOCEXCL refused ($(grep '^tiocexcl' "$P/tty.ld"))" grep -q '^tiocexcl errno=EPERM' "$P/tty.ld"
else
	skip "K4 TIOCSETD/TIOCEXCL do not work here even unsandboxed ($(grep -E '^tioc' "$WORK/tty.out" | tr '\n' ' '))"
	skip "K4 TIOCSETD/TIOCEXCL do not work here even unsandboxed"
fi

echo "1..$_tap_n"
