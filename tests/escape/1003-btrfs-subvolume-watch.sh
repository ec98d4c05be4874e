#!/bin/bash
# Escape class H1 (linux-bwrap), red team on 28637d4 and 335102c
# (watch.c, unwatch_below): the watcher finds the command's watches on
# the directory the host moved onto the denied ~/.ssh by comparing the
# filesystem of each watch in fdinfo (sdev, the kernel's device number of
# the inode's superblock) with stat's st_dev of the directory. On btrfs
# the two differ for every subvolume (stat tells the subvolume's own
# anonymous device), and a home directory is a subvolume on Fedora's
# default install: no watch was ever matched, so the command's inotify
# watch on the staged ~/.ssh.new went on telling it each name the host
# made in the new ~/.ssh after the cover, as before 28637d4. The same for
# a shared mapping of a file there (its device in /proc/PID/maps is the
# superblock's too) and for a watch in a subvolume the command made
# itself in ~/.ssh.new (unprivileged users may create one: its names are
# on another st_dev, which the walk skipped without a word). srt runs
# there with filesystem.enableWeakerNameProtection only (it says so when
# it refuses to start without it). Needs root
# (a loop-mounted btrfs image) and mkfs.btrfs; skipped elsewhere.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
N=9
if ! is_root || ! command -v mkfs.btrfs >/dev/null 2>&1 || ! command -v btrfs >/dev/null 2>&1; then
	skip_rest $N "needs root and btrfs-progs (a loop-mounted btrfs image)"
	echo "1..$_tap_n"
	exit 0
fi
BT="$WORK/bt"
mkdir -p "$BT"
_cleanup() { main_shell || return 0; cd /; umount -l "$BT" 2>/dev/null; rm -rf "$WORK" 2>/dev/null || true; }
if ! truncate -s 300M "$WORK/b.img" || ! mkfs.btrfs -q -f "$WORK/b.img" >/dev/null 2>&1 ||
	! mount -o loop "$WORK/b.img" "$BT" || ! btrfs subvolume create "$BT/home" >/dev/null; then
	skip_rest $N "cannot mount a btrfs image here"
	echo "1..$_tap_n"
	exit 0
fi
export HOME="$BT/home"
mkdir -p "$HOME/.ssh" "$HOME/.aws"
echo "$CANARY" > "$HOME/.ssh/id_canary"
echo "CANARY-AWS-$$" > "$HOME/.aws/credentials"
chmod 755 "$BT" "$HOME"

cat > "$WORK/probe.py" <<'PYEOF'
import ctypes, os, subprocess, sys
from below import note_inotify, wait_marker
p, stage, how = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
res = open(p + "/res", "a")
if how == "mmap":
    # by mmap(2) itself: Python's mmap keeps a copy of the descriptor
    fd = os.open(os.path.join(stage, "known_hosts"), os.O_RDONLY)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    mm = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    os.close(fd)
else:
    if how == "subvol":
        # a subvolume of the command's own in the staged directory
        # (BTRFS_IOC_SUBVOL_CREATE: allowed without privilege)
        import fcntl
        args = bytearray(4096)
        args[8:8 + len(b"sv")] = b"sv"
        dfd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.ioctl(dfd, 0x5000940e, args)  # _IOW(0x94, 14, vol_args)
        except OSError as e:
            res.write("subvol-failed %s\n" % e)
        os.close(dfd)
        stage = os.path.join(stage, "sv")
    ifd = libc.inotify_init1(os.O_NONBLOCK)
    if ifd < 0 or libc.inotify_add_watch(ifd, stage.encode(), 0x100 | 0x80 | 0x8) < 0:
        res.write("watch-failed %d\n" % ctypes.get_errno()); res.flush()
        sys.exit(0)
open(p + "/ready", "w").close()
open(p + "/in", "w").close()
wait_marker(p)
if how == "mmap":
    res.write(ctypes.string_at(mm, 4096).decode(errors="replace").replace("#", "") + "\n")
else:
    note_inotify(res, ifd)
res.write("done\n")
res.flush()
PYEOF

# srt refuses a home on a btrfs subvolume without this (fanotify cannot
# mark a subvolume's filesystem: EXDEV), and says to set it
S=$(fsjson s '{"denyRead":["~/.ssh"],"allowWrite":[".","~"],"denyWrite":[],"enableWeakerNameProtection":true}')
for how in watch subvol mmap; do
	below_stage
	[ "$how" = mmap ] && head -c 4096 /dev/zero | tr '\0' '#' > "$HOME/.ssh.new/known_hosts"
	srt__bg -s "$S" -c "env PYTHONPATH=$BELOW_PY PYTHONDONTWRITEBYTECODE=1 $PY $WORK/probe.py $P $HOME/.ssh.new $how"
	pid=$!
	wait_for "$P/ready" 100 || diag "the probe did not start: $(cat "$WORK/bg.out")"
	wait_for "$P/in" 50 || diag "the probe did not get its $how: $(cat "$P/res" 2>/dev/null)"
	mv "$HOME/.ssh" "$HOME/.ssh.old"
	mv "$HOME/.ssh.new" "$HOME/.ssh"
	settle_watch "$pid"
	if [ "$how" = mmap ]; then
		printf 'SECRET-%s' "$CANARY" | dd of="$HOME/.ssh/known_hosts" conv=notrunc status=none
	else
		d="$HOME/.ssh"
		[ "$how" = subvol ] && d="$HOME/.ssh/sv"
		echo "SECRET-$CANARY" > "$d/host-made-name"
	fi
	touch "$P/written"
	end_bg "$pid" 150
	diag "$how: res: $(tr '\n' ' ' < "$P/res" 2>/dev/null)"
	diag "$how: srt: $(tr '\n' ' ' < "$WORK/bg.out" | cut -c1-600)"
	W="$how before the cover on the directory moved to the denied ~/.ssh, home on a btrfs subvolume"
	attempt H1 "$W: the probe ran (or srt stopped it)" \
		sh -c "grep -q '^done' '$P/res' || grep -qE '$STOPPED_RE|the command was stopped' '$WORK/bg.out'"
	attempt H1 "$W: no name the host puts there is seen" sh -c "! grep -q stat-sees-name '$P/res'"
	attempt H1 "$W: nothing the host writes there is read" no_leak "$P/res"
	[ "$how" = subvol ] && btrfs subvolume delete "$HOME"/.ssh*/sv >/dev/null 2>&1
done
echo "1..$_tap_n"
