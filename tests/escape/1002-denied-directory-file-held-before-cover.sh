#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 28637d4 and 335102c
# (watch.c, unwatch_below) and the held_below scan before it: after the
# host moves a staged directory onto the denied ~/.ssh and the watcher
# covers it, the watcher takes off the command's inotify watches and
# fanotify marks on the directories there, and stops the run for a
# working directory, root or directory descriptor below it. A file of the
# staged directory is none of these: the host staged ~/.ssh.new with a
# known_hosts (`cp -a ~/.ssh ~/.ssh.new`, an edit, `mv`), which the
# command could read then; it keeps (a) an inotify watch or a fanotify
# mark on the file, (b) a descriptor of it, or a shared mapping of it,
# (c) a hard link to it elsewhere in the home. After
# the cover the host appends a line to ~/.ssh/known_hosts: the watch
# told the command each write of the host, and the descriptor, the
# mapping and the link read the host's new line (all five failed on the
# code of 335102c). A mapping in a process whose first thread ended alone
# (its maps list is empty then) is looked for in its other threads.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, sys
from below import note_inotify, wait_marker
p, stage, how = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
res = open(p + "/res", "a")
f = os.path.join(stage, "known_hosts")
if how == "watch":
    ifd = libc.inotify_init1(os.O_NONBLOCK)
    if ifd < 0 or libc.inotify_add_watch(ifd, f.encode(), 0x2 | 0x8 | 0x20) < 0:  # MODIFY|CLOSE_WRITE|OPEN
        res.write("watch-failed %d\n" % ctypes.get_errno()); res.flush()
        sys.exit(0)
elif how == "fanfile":
    ifd = libc.fanotify_init(0x200 | 0x2, os.O_RDONLY)  # REPORT_FID | NONBLOCK
    if ifd < 0 or libc.fanotify_mark(ifd, 1, ctypes.c_uint64(0x2), -100, f.encode()) < 0:  # FAN_MODIFY
        res.write("mark-failed %d\n" % ctypes.get_errno()); res.flush()
        sys.exit(0)
elif how == "fd":
    fd = os.open(f, os.O_RDONLY)
elif how in ("mmap", "mmap-thread"):
    # by mmap(2) itself: Python's mmap keeps a copy of the descriptor
    fd = os.open(f, os.O_RDONLY)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    mm = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    os.close(fd)
else:
    os.link(f, os.environ["HOME"] + "/kh")
open(p + "/ready", "w").close()
open(p + "/in", "w").close()
if how == "mmap-thread":
    # the first thread ends alone (exit, not exit_group): its
    # /proc/PID/task/PID/maps is empty from then on, while the process
    # and its mapping go on in the other thread
    import threading
    def rest():
        wait_marker(p)
        res.write(ctypes.string_at(mm, 4096).decode(errors="replace").replace("#", "") + "\n")
        res.write("done\n")
        res.flush()
    threading.Thread(target=rest).start()
    libc.syscall({"x86_64": 60, "aarch64": 93}.get(os.uname().machine, 60), 0)
wait_marker(p)
if how == "watch":
    note_inotify(res, ifd)
elif how == "fanfile":
    try:
        if os.read(ifd, 65536):
            res.write("host-write-seen\n")
    except BlockingIOError:
        pass
elif how == "mmap":
    res.write(ctypes.string_at(mm, 4096).decode(errors="replace").replace("#", "") + "\n")
elif how == "fd":
    res.write(os.pread(fd, 65536, 0).decode(errors="replace"))
else:
    try:
        with open(os.environ["HOME"] + "/kh") as k:
            res.write(k.read())
    except OSError as e:
        res.write("link-read-failed %s\n" % e)
res.write("done\n")
res.flush()
PYEOF

S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[]}')
for how in watch fanfile fd mmap mmap-thread link; do
	below_stage
	rm -f "$HOME/kh"
	echo "github.com ssh-ed25519 AAAA-staged" > "$HOME/.ssh.new/known_hosts"
	case $how in mmap*) head -c 4096 /dev/zero | tr '\0' '#' > "$HOME/.ssh.new/known_hosts" ;; esac
	srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME/.ssh.new $how"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not get its $how: $(cat "$P/res" 2>/dev/null)"
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	# the watcher's cover is on the new ~/.ssh by now, and its scan done:
	# what the host writes before the scan ends is 1004's open window,
	# which a loaded machine (a parallel test pass) widens past 0.5 s
	sleep 2
	if [ "$how" != "${how#mmap}" ]; then
		# rewritten in place, as a tool that keeps the file's inode does
		printf 'SECRET-%s' "$CANARY" | dd of="$HOME/.ssh/known_hosts" conv=notrunc status=none
	else
		echo "SECRET-$CANARY" >> "$HOME/.ssh/known_hosts"
	fi
	touch "$P/written"
	end_bg "$pid" 150
	diag "$how: res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "$how: srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
	W="$how on a file of the directory moved to the denied ~/.ssh, taken before the cover"
	if [ "$how" = watch ] || [ "$how" = fanfile ]; then
		attempt H1 "$W: no write of the host is told after the cover" \
			sh -c "! grep -qx host-write-seen '$P/res'"
	else
		attempt H1 "$W: what the host writes there after the cover is not read" no_leak "$P/res"
	fi
done
echo "1..$_tap_n"
