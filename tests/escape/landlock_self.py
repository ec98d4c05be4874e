"""Shared part of the escape tests' probes of a Landlock domain the command
adds to itself (0974, 0977, 0992): an agent that runs a tool under
Landlock, landrun, or a nested srt with the linux-landlock backend. The
probe restricts itself with a ruleset that handles some filesystem rights
and grants none, so every such access is refused (as on the host), then
tries its calls and prints one line per call: "WHAT done" or "WHAT ERRNO"
(EACCES when the domain held). When the probe cannot restrict itself it
prints "no-landlock ERRNO" (no ruleset) or "no-restrict ERRNO" (the
sandbox refused landlock_restrict_self) and exits 0, trying nothing."""
import ctypes
import errno
import struct
import sys

# The filesystem rights (include/uapi/linux/landlock.h), and the Landlock
# ABI version that first knows each: a ruleset that names a right its
# kernel does not know is refused with EINVAL.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13      # ABI 2
TRUNCATE = 1 << 14   # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

_SYS_CREATE_RULESET = 444
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)


def _errname(e):
    return errno.errorcode.get(e, str(e))


def abi():
    """This kernel's Landlock ABI version, or a negative number when it
    has none (or it is disabled)."""
    return _libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)


def known(handled):
    """handled without the rights this kernel's ABI does not know yet."""
    v = abi()
    if v < 2:
        handled &= ~REFER
    if v < 3:
        handled &= ~TRUNCATE
    if v < 5:
        handled &= ~IOCTL_DEV
    return handled


def restrict(handled):
    """Restrict this process with a ruleset that handles the rights in
    handled (those this ABI knows) and grants none of them. Returns only
    once the domain is in place; otherwise prints why and exits 0."""
    attr = ctypes.create_string_buffer(struct.pack("Q", known(handled)))
    fd = _libc.syscall(_SYS_CREATE_RULESET, attr, 8, 0)
    if fd < 0:
        print("no-landlock", _errname(ctypes.get_errno()))
        sys.exit(0)
    _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if _libc.syscall(_SYS_RESTRICT_SELF, fd, 0) != 0:
        print("no-restrict", _errname(ctypes.get_errno()))
        sys.exit(0)


def attempts(calls):
    """Run each (what, fn) of calls in turn, printing "WHAT done" or
    "WHAT ERRNO" (the OSError it raised)."""
    for what, fn in calls:
        try:
            fn()
            print(what, "done")
        except OSError as e:
            print(what, _errname(e.errno))
        sys.stdout.flush()
