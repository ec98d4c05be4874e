"""The Sandbox class: one proxy and one violation store for many commands."""
import ctypes
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _lib

_LIB = None
_LIB_LOCK = threading.Lock()

Command = Union[str, Sequence[str]]
Settings = Union[None, Mapping[str, Any], str, "os.PathLike[str]"]
# ask(host, port) -> True (allow), False or None (deny), a str (deny with
# that reason) or a tuple (allow: bool, reason: str)
AskAnswer = Union[bool, None, str, Tuple[bool, str]]
AskCallback = Callable[[str, int], AskAnswer]


def _ask_verdict(answer: AskAnswer) -> Tuple[int, Optional[bytes]]:
    if answer is True:
        return _lib.ASK_ALLOW, None
    if answer is False or answer is None:
        return _lib.ASK_DENY, None
    if isinstance(answer, str):
        return _lib.ASK_DENY, answer.encode("utf-8", "replace")
    if isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], bool):
        if answer[0]:
            return _lib.ASK_ALLOW, None
        return _lib.ASK_DENY, str(answer[1]).encode("utf-8", "replace")
    raise TypeError(f"ask callback returned {answer!r}: want a bool, a str or (bool, str)")


def _libsrt():
    global _LIB
    with _LIB_LOCK:
        if _LIB is None:
            _LIB = _lib.load()
        return _LIB


def version() -> str:
    """libsrt's version string."""
    return _libsrt().srt_version().decode()


class SandboxError(RuntimeError):
    """A sandbox could not be created, started, or asked to run a command.
    `key` names the settings key concerned, when there is one."""

    def __init__(self, message: str, key: str = "", code: int = 0):
        super().__init__(message)
        self.key = key
        self.code = code


def _raise(rc: int, d: _lib.Diag) -> None:
    msg = d.message.decode(errors="replace") or _libsrt().srt_strerror(rc).decode()
    raise SandboxError(msg, d.key.decode(errors="replace"), rc)


def _b(s: Optional[str]) -> Optional[bytes]:
    return None if s is None else os.fsencode(s)


@dataclass(frozen=True)
class Violation:
    """One denied action: the line (e.g. "deny network-outbound evil.com:443
    (host is on the deny list)"), the command text and key it is attributed
    to, and when (milliseconds since the epoch)."""
    line: str
    command: Optional[str]
    key: Optional[str]
    time_ms: int


def _status_of(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


class Wrapped:
    """A command srt has wrapped and the caller spawns: `argv`, `env`, the
    descriptors `fds` the child must inherit at the same numbers, `cwd`.
    Call :meth:`started` with the pid right after the spawn, and
    :meth:`finished` once the process has been reaped (or the spawn failed).
    """

    def __init__(self, sandbox: "Sandbox", ptr):
        self._sb = sandbox
        self._ptr = ptr
        w = ptr.contents
        self.argv: List[str] = _strv(w.argv)
        env = {}
        for kv in _strv(w.envp):
            k, _, v = kv.partition("=")
            env[k] = v
        self.env: Dict[str, str] = env
        self.fds: List[int] = [w.fds[i] for i in range(w.n_fds)]
        self.cwd: str = os.fsdecode(w.cwd)
        self.key: str = os.fsdecode(w.key)
        self.shell_command: str = os.fsdecode(w.shell_command)
        self.new_pgrp: bool = bool(w.new_pgrp)
        self.pid: Optional[int] = None

    def popen_kwargs(self, **kwargs) -> Dict[str, Any]:
        """Arguments for subprocess.Popen that spawn this command; kwargs
        (stdin, stdout, start_new_session, ...) are merged in."""
        kw: Dict[str, Any] = dict(kwargs)
        kw.setdefault("cwd", self.cwd)
        kw["env"] = self.env
        kw["pass_fds"] = tuple(kw.get("pass_fds", ())) + tuple(self.fds)
        kw["close_fds"] = True
        if self.new_pgrp and not kw.get("start_new_session"):
            if sys.version_info >= (3, 11):
                kw["process_group"] = 0
            else:
                kw["preexec_fn"] = os.setpgrp  # before 3.11: no process_group
        return kw

    def started(self, pid: int) -> None:
        """Report the spawned pid. Waits until the sandbox is up; when srt
        cannot confirm it, the command is killed (reap it, then call
        finished) and SandboxError is raised."""
        d = _lib.Diag()
        self.pid = pid
        with self._sb._lock:
            rc = _libsrt().srt_command_started(self._ptr, pid, ctypes.byref(d))
        if rc:
            _raise(rc, d)

    @property
    def signal_pid(self) -> int:
        """Where signals meant for the command go."""
        return _libsrt().srt_command_signal_pid(self._ptr)

    def finished(self, status: int) -> None:
        """Report the end (exit status, or 128+N for signal N): srt reads
        the command's last violations and cleans up. Idempotent."""
        if self._ptr is None:
            return
        with self._sb._lock:
            _libsrt().srt_command_finished(self._ptr, status)
        self._ptr = None
        self._sb._live.discard(self)


def _strv(p) -> List[str]:
    out = []
    i = 0
    while p[i] is not None:
        out.append(os.fsdecode(p[i]))
        i += 1
    return out


class SandboxedPopen(subprocess.Popen):
    """subprocess.Popen of a wrapped command: srt is told the pid at once and
    the end as soon as the process has been reaped (wait, poll,
    communicate, or the context manager)."""

    def __init__(self, wrapped: Wrapped, args, **kwargs):
        self.wrapped = wrapped
        try:
            super().__init__(args, **wrapped.popen_kwargs(**kwargs))
        except BaseException:
            wrapped.finished(-1)
            raise
        try:
            wrapped.started(self.pid)
        except SandboxError:
            super().wait()
            wrapped.finished(_status_of(self.returncode))
            raise

    def _report(self):
        if self.returncode is not None:
            self.wrapped.finished(_status_of(self.returncode))

    def wait(self, timeout=None):
        rc = super().wait(timeout)
        self._report()
        return rc

    def poll(self):
        rc = super().poll()
        self._report()
        return rc

    def send_signal(self, sig):
        """Signals go to the command inside the sandbox."""
        if self.returncode is None and self.wrapped._ptr is not None:
            try:
                os.kill(self.wrapped.signal_pid, sig)
            except ProcessLookupError:
                pass
            return
        super().send_signal(sig)


class Sandbox:
    """A started sandbox. `settings`: a dict (the settings object), a path
    (str or PathLike naming a JSON or YAML file), JSON text (a str starting
    with "{"), or None for ~/.srt-settings.json (built-in defaults when it
    does not exist). `backend`: a backend name or module path.

    `ask`: called as ask(host, port) for a host on neither allowedDomains
    nor deniedDomains (with strictAllowlist off), on a thread of libsrt's
    (one question at a time; other connections go on meanwhile). Return
    True to allow, False or None to deny, a str to deny with that reason,
    or (allow, reason). An exception denies ("permission prompt failed"),
    no answer within `ask_timeout` seconds denies. `ask_remember` keeps
    every answer for the host and port for the life of the sandbox.

    Use as a context manager, or call close(): it kills the commands still
    running and stops the proxy."""

    def __init__(self, settings: Settings = None, *, backend: Optional[str] = None,
                 cwd: Optional[str] = None, debug: bool = False, live_updates: bool = True,
                 ask: Optional[AskCallback] = None, ask_timeout: float = 30.0,
                 ask_remember: bool = False):
        lib = _libsrt()
        self._ask_cb = None
        self._lock = threading.RLock()
        self._live: set = set()
        self._sb = ctypes.c_void_p()
        opt = _lib.Options()
        opt.backend = _b(backend)
        opt.cwd = _b(cwd)
        opt.debug = int(debug)
        opt.live_updates = int(live_updates)
        d = _lib.Diag()
        if isinstance(settings, Mapping):
            settings = json.dumps(settings)
        if isinstance(settings, str) and settings.lstrip().startswith("{"):
            text = settings.encode()
            rc = lib.srt_sandbox_new_from_text(ctypes.byref(self._sb), text, len(text),
                                               _lib.SETTINGS_JSON, ctypes.byref(opt),
                                               ctypes.byref(d))
        else:
            path = None if settings is None else os.fsencode(settings)
            rc = lib.srt_sandbox_new_from_file(ctypes.byref(self._sb), path,
                                               int(path is not None), ctypes.byref(opt),
                                               ctypes.byref(d))
        if rc:
            self._sb = None
            _raise(rc, d)
        if ask is not None:
            self._install_ask(ask, ask_timeout, ask_remember)
        rc = lib.srt_sandbox_start(self._sb, ctypes.byref(d))
        if rc:
            self.close()
            _raise(rc, d)

    # -- lifecycle --------------------------------------------------------
    def close(self) -> None:
        if self._sb is None:
            return
        for w in list(self._live):
            if w.pid:
                try:
                    os.killpg(w.pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    _, st = os.waitpid(w.pid, 0)
                    w.finished(os.waitstatus_to_exitcode(st) & 0xff)
                except ChildProcessError:
                    w.finished(137)
            else:
                w.finished(-1)
        _libsrt().srt_sandbox_free(self._sb)
        self._sb = None

    def _install_ask(self, fn: AskCallback, timeout: float, remember: bool) -> None:
        lib = _libsrt()
        sb = self._sb
        flags = _lib.ASK_REMEMBER if remember else 0

        def trampoline(_ctx, req):
            # libsrt's ask thread; ctypes takes the GIL for the call. The
            # answer goes back before returning; any failure denies.
            r = req.contents
            ticket = r.ticket
            try:
                verdict, reason = _ask_verdict(fn(r.host.decode("utf-8", "replace"), r.port))
            except Exception as e:  # the prompt failed: deny
                print(f"srt: ask callback failed: {e!r}", file=sys.stderr)
                return 1
            lib.srt_ask_answer(sb, ticket, verdict, reason, flags)
            return 0

        # kept on the object: libsrt calls it until srt_sandbox_free
        self._ask_cb = _lib.ASK_FN(trampoline)
        ms = max(1, int(timeout * 1000))
        rc = lib.srt_sandbox_set_ask(sb, self._ask_cb, None, ms)
        if rc:
            self.close()
            raise SandboxError(f"cannot install the ask callback: "
                               f"{lib.srt_strerror(rc).decode()}", code=rc)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if self._sb is None:
            raise SandboxError("the sandbox is closed")
        return self._sb

    # -- commands ---------------------------------------------------------
    def wrap(self, command: Command, *, command_id: Optional[str] = None,
             command_text: Optional[str] = None,
             custom_config: Optional[Mapping[str, Any]] = None,
             shell: Optional[str] = None) -> Wrapped:
        """Wrap a command for a spawner of the caller's. A str runs with
        `shell -c` (default: bash, else sh) and is its own key; a sequence
        is an argv (argv[0] looked up on PATH)."""
        lib = _libsrt()
        wo = _lib.WrapOptions(_b(command_id), _b(command_text),
                              json.dumps(custom_config).encode() if custom_config else None)
        out = ctypes.POINTER(_lib.CWrapped)()
        d = _lib.Diag()
        with self._lock:
            sb = self._handle()
            if isinstance(command, str):
                rc = lib.srt_sandbox_wrap_shell(sb, command.encode(), _b(shell),
                                                ctypes.byref(wo), ctypes.byref(out),
                                                ctypes.byref(d))
            else:
                args = list(command)
                if not args:
                    raise SandboxError("no command to wrap")
                if "/" not in args[0]:
                    import shutil
                    found = shutil.which(args[0])
                    if not found:
                        raise SandboxError(f"{args[0]}: command not found")
                    args[0] = found
                argv = (ctypes.c_char_p * (len(args) + 1))(*[os.fsencode(a) for a in args], None)
                rc = lib.srt_sandbox_wrap(sb, argv, ctypes.byref(wo), ctypes.byref(out),
                                          ctypes.byref(d))
            if rc:
                _raise(rc, d)
            w = Wrapped(self, out)
            self._live.add(w)
            return w

    def popen(self, command: Command, *, command_id: Optional[str] = None,
              command_text: Optional[str] = None,
              custom_config: Optional[Mapping[str, Any]] = None,
              shell: Optional[str] = None, **popen_kwargs) -> SandboxedPopen:
        """Start a sandboxed command with subprocess.Popen's arguments
        (stdin/stdout/stderr, text, ...; a pty's slave as stdio for a
        terminal: the sandbox gives the command a session of its own)."""
        w = self.wrap(command, command_id=command_id, command_text=command_text,
                      custom_config=custom_config, shell=shell)
        return SandboxedPopen(w, w.argv, executable=w.argv[0], **popen_kwargs)

    def run(self, command: Command, *, input=None, timeout: Optional[float] = None,
            check: bool = False, **kwargs) -> subprocess.CompletedProcess:
        """Like subprocess.run, in the sandbox. The CompletedProcess's
        `args` is the command as given; `returncode` is 128+N for signal N."""
        if input is not None:
            kwargs["stdin"] = subprocess.PIPE
        if kwargs.pop("capture_output", False):
            kwargs["stdout"] = subprocess.PIPE
            kwargs["stderr"] = subprocess.PIPE
        with self.popen(command, **kwargs) as p:
            try:
                out, err = p.communicate(input, timeout=timeout)
            except BaseException:
                p.kill()
                p.wait()
                raise
        rc = _status_of(p.returncode)
        cp = subprocess.CompletedProcess(command, rc, out, err)
        if check:
            cp.check_returncode()
        return cp

    # -- violations and settings --------------------------------------------
    def violations(self, command_id: Optional[str] = None) -> List[Violation]:
        """The recorded violations of command_id (None: all), oldest first
        (the last 100 are kept)."""
        lib = _libsrt()
        arr = ctypes.POINTER(_lib.CViolation)()
        n = ctypes.c_size_t()
        rc = lib.srt_sandbox_violations(self._handle(), _b(command_id), ctypes.byref(arr),
                                        ctypes.byref(n))
        if rc:
            raise SandboxError(lib.srt_strerror(rc).decode(), code=rc)
        try:
            def s(v):
                return None if v is None else v.decode(errors="replace")
            return [Violation(s(arr[i].line), s(arr[i].command), s(arr[i].key),
                              arr[i].time_ms) for i in range(n.value)]
        finally:
            lib.srt_violations_free(arr, n)

    def violation_total(self) -> int:
        return _libsrt().srt_sandbox_violation_total(self._handle())

    def annotate_stderr(self, command_id: str, stderr: str) -> str:
        """stderr with the command's violations appended in a
        <sandbox_violations> block (unchanged when it has none)."""
        lib = _libsrt()
        out = ctypes.c_void_p()
        rc = lib.srt_sandbox_annotate_stderr(self._handle(), command_id.encode(),
                                             stderr.encode(), ctypes.byref(out))
        if rc:
            raise SandboxError(lib.srt_strerror(rc).decode(), code=rc)
        try:
            return ctypes.string_at(out.value).decode(errors="replace")
        finally:
            _lib.libc.free(out)

    def update_settings(self, settings: Union[Mapping[str, Any], str]) -> None:
        """Replace the live settings (a complete settings object): the
        network lists and ignoreViolations change for running commands too.
        An invalid object changes nothing and raises."""
        text = (json.dumps(settings) if isinstance(settings, Mapping) else settings).encode()
        d = _lib.Diag()
        rc = _libsrt().srt_sandbox_update_settings(self._handle(), text, len(text),
                                                   ctypes.byref(d))
        if rc:
            _raise(rc, d)

    def set_command_domains(self, command_id: str, allowed: Optional[Sequence[str]]) -> None:
        """Extra allowed domains for commands wrapped with this command_id
        (at least 22 characters); None or [] removes them."""
        lib = _libsrt()
        arr = None
        if allowed:
            arr = (ctypes.c_char_p * (len(allowed) + 1))(*[a.encode() for a in allowed], None)
        d = _lib.Diag()
        rc = lib.srt_sandbox_set_command_domains(self._handle(), command_id.encode(), arr,
                                                 ctypes.byref(d))
        if rc:
            _raise(rc, d)


def quote(argv: Sequence[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)
