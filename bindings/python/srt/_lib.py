"""ctypes declarations of libsrt's public API (include/srt/srt.h)."""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_int, c_longlong,
                    c_size_t, c_uint, c_ulong, c_ulonglong, c_void_p)


class Diag(Structure):
    _fields_ = [("message", c_char * 1024), ("key", c_char * 256), ("saved_errno", c_int)]


class Options(Structure):
    _fields_ = [
        ("backend", c_char_p),
        ("cwd", c_char_p),
        ("debug", c_int),
        ("live_updates", c_int),
        ("log", c_void_p),
        ("log_ctx", c_void_p),
        ("protect_file", c_char_p),
        # the last field of struct srt_options: without it libsrt reads
        # past the end of this structure, and whatever follows it in
        # memory turns every sandbox into one that only prints its plan
        ("plan_only", c_int),
    ]


class CViolation(Structure):
    _fields_ = [("line", c_char_p), ("command", c_char_p), ("key", c_char_p),
                ("time_ms", c_longlong)]


class CWrapped(Structure):
    _fields_ = [
        ("argv", POINTER(c_char_p)),
        ("envp", POINTER(c_char_p)),
        ("shell_command", c_char_p),
        ("fds", POINTER(c_int)),
        ("n_fds", c_int),
        ("cwd", c_char_p),
        ("new_pgrp", c_int),
        ("key", c_char_p),
    ]


class WrapOptions(Structure):
    _fields_ = [("command_id", c_char_p), ("command_text", c_char_p),
                ("custom_config", c_char_p)]


class AskRequest(Structure):
    _fields_ = [("ticket", c_ulonglong), ("host", c_char_p), ("port", c_int),
                ("command_id", c_char_p)]


# int (*srt_ask_fn)(void *ctx, const struct srt_ask_request *req)
ASK_FN = CFUNCTYPE(c_int, c_void_p, POINTER(AskRequest))
ASK_DENY, ASK_ALLOW, ASK_FAIL = 0, 1, 2
ASK_REMEMBER = 1

SETTINGS_JSON = 0


def _declare(lib):
    sb = c_void_p
    d = POINTER(Diag)
    sigs = {
        "srt_version": (c_char_p, []),
        "srt_sandbox_new_from_file": (c_int, [POINTER(sb), c_char_p, c_int, POINTER(Options), d]),
        "srt_sandbox_new_from_text": (c_int, [POINTER(sb), c_char_p, c_size_t, c_int,
                                              POINTER(Options), d]),
        "srt_sandbox_start": (c_int, [sb, d]),
        "srt_sandbox_free": (None, [sb]),
        "srt_sandbox_wrap": (c_int, [sb, POINTER(c_char_p), POINTER(WrapOptions),
                                     POINTER(POINTER(CWrapped)), d]),
        "srt_sandbox_wrap_shell": (c_int, [sb, c_char_p, c_char_p, POINTER(WrapOptions),
                                           POINTER(POINTER(CWrapped)), d]),
        "srt_command_started": (c_int, [POINTER(CWrapped), c_int, d]),
        "srt_command_signal_pid": (c_int, [POINTER(CWrapped)]),
        "srt_command_finished": (None, [POINTER(CWrapped), c_int]),
        "srt_sandbox_violations": (c_int, [sb, c_char_p, POINTER(POINTER(CViolation)),
                                           POINTER(c_size_t)]),
        "srt_violations_free": (None, [POINTER(CViolation), c_size_t]),
        "srt_sandbox_violation_total": (c_ulong, [sb]),
        "srt_sandbox_annotate_stderr": (c_int, [sb, c_char_p, c_char_p, POINTER(c_void_p)]),
        "srt_sandbox_update_settings": (c_int, [sb, c_char_p, c_size_t, d]),
        "srt_sandbox_set_command_domains": (c_int, [sb, c_char_p, POINTER(c_char_p), d]),
        "srt_sandbox_set_ask": (c_int, [sb, ASK_FN, c_void_p, c_uint]),
        "srt_ask_answer": (c_int, [sb, c_ulonglong, c_int, c_char_p, c_uint]),
        "srt_default_shell": (c_char_p, []),
        "srt_strerror": (c_char_p, [c_int]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def _candidates():
    env = os.environ.get("SRT_LIBRARY")
    if env:
        return [env]
    names = ["libsrt.so.0"]
    found = ctypes.util.find_library("srt")
    if found and found not in names:
        names.append(found)
    return names


def load():
    """libsrt, checked to be the sandbox runtime (another project ships a
    libsrt too)."""
    errors = []
    for name in _candidates():
        try:
            # global: the backend modules libsrt loads take srt_diag_set
            # and the other srt_ symbols from it
            lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            errors.append(f"{name}: {e}")
            continue
        if not hasattr(lib, "srt_sandbox_wrap"):
            errors.append(f"{name}: not the sandbox runtime's libsrt (no srt_sandbox_wrap)")
            continue
        return _declare(lib)
    raise OSError("cannot load libsrt (" + "; ".join(errors) +
                  "): install srt, or set SRT_LIBRARY to the path of libsrt.so")


libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None
