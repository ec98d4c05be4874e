"""Shared parts of the escape tests' probes. A command below a directory
the host moved onto a denied name (tests 0956 to 0966): the host has made
a file there (host-made-name, holding the canary) and touched the marker
P/written; the probe, in that directory or holding it, tries to see the
name, read it, plant a file there and write into the host's file. Each
success is a line in P/res that the shell's checks (below_checks in
lib.sh) look for; the canary itself is looked for by no_leak. A command
that puts something of its own at the parent of a denied name while the
host moves that parent away (0968 to 0971) spins on the call."""
import os
import resource
import struct
import time


def wait_marker(p, name="written", tenths=200):
    """Wait up to tenths / 20 seconds for the file P/name."""
    for _ in range(tenths):
        if os.path.exists(os.path.join(p, name)):
            return True
        time.sleep(0.05)
    return False


def spin(fn, seconds=10, until=None):
    """Call fn until it does not raise OSError, for up to seconds, or until
    the file until exists (the host's marker that its last step is done:
    the name is taken again, so no later call can succeed; looked for
    every 50 ms, not between calls, so as not to slow the spin): (True,
    None) once it did, else (False, the last error)."""
    now = time.time()
    end, look = now + seconds, now
    err = None
    while now < end:
        try:
            fn()
            return True, None
        except OSError as e:
            err = e
        now = time.time()
        if until and now >= look:
            if os.path.exists(until):
                break
            look = now + 0.05
    return False, err


def look_below(res, ssh, write=True):
    """From a working directory that may be the new ~/.ssh: stat, read and
    (with write) plant and append, relative to "."."""
    try:
        os.stat(ssh + "/host-made-name")
    except OSError:
        res.write("full-path-covered\n")
    try:
        os.stat("host-made-name")
        res.write("stat-sees-name\n")
    except OSError:
        pass
    try:
        with open("host-made-name") as f:
            res.write(f.read())
    except OSError:
        pass
    if write:
        try:
            fd = os.open("authorized_keys", os.O_WRONLY | os.O_CREAT, 0o600)
            os.write(fd, b"ssh-ed25519 AAAA planted-by-the-command\n")
            os.close(fd)
            res.write("planted\n")
        except OSError:
            pass
        try:
            fd = os.open("host-made-name", os.O_WRONLY | os.O_APPEND)
            os.write(fd, b"appended-by-the-command\n")
            os.close(fd)
            res.write("appended\n")
        except OSError:
            pass
    res.flush()


def note_inotify(res, ifd, each=False):
    """Note in res what the non-blocking inotify descriptor ifd has queued
    (read once, without waiting): stat-sees-name for an event naming
    host-made-name, host-write-seen for a write (IN_MODIFY), watch-removed
    once the watch was taken off (IN_IGNORED), and with each, every
    event's name (event NAME)."""
    try:
        buf = os.read(ifd, 65536)
    except BlockingIOError:
        buf = b""
    while len(buf) >= 16:
        _, mask, _, ln = struct.unpack("iIII", buf[:16])
        name = buf[16:16 + ln].rstrip(b"\0").decode()
        if name == "host-made-name":
            res.write("stat-sees-name\n")
        if mask & 0x2:
            res.write("host-write-seen\n")
        if mask & 0x8000:
            res.write("watch-removed\n")
        if each:
            res.write("event %s\n" % name)
        buf = buf[16 + ln:]
    res.flush()


def hold_deep(deep, most=5000):
    """1008, 1017: go down the 4,000 levels make_deep (lib.sh) made below
    deep and hold as many descriptors of the last directory as the
    open-file limit allows, up to most: each is walked up by ".." in the
    watcher's scan, which makes the scan last most of a second. Returns
    how many are held."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    os.chdir(deep)
    for _ in range(4000):
        os.chdir("d")
    fd = os.open(".", os.O_PATH | os.O_DIRECTORY)
    n = 1
    for _ in range(min(hard, most) - 64):
        try:
            os.dup(fd)
            n += 1
        except OSError:
            break
    return n


def watch_aws(res, p, aws, seconds):
    """1007, 1008: once the host has put a new ~/.aws in place (P/aws-made),
    look for its host-made-name for seconds (stat-sees-name the first time
    it is seen), then say done."""
    wait_marker(p, "aws-made", 400)
    end, seen = time.time() + seconds, False
    while time.time() < end:
        try:
            os.stat(aws + "/host-made-name")
            if not seen:
                res.write("stat-sees-name\n")
                res.flush()
            seen = True
        except OSError:
            pass
        time.sleep(0.05)
    res.write("done\n")
    res.close()
