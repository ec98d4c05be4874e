"""Python binding of libsrt, the sandbox runtime.

A :class:`Sandbox` is created from settings (a dict, a file or JSON text),
starts its proxy once, and then runs or wraps any number of commands, each
attributed to a key in one violation store. Commands are spawned by Python's
own :mod:`subprocess`, so pipes, pseudo-terminals and streaming work as
usual.
"""
from ._sandbox import (
    Sandbox,
    SandboxError,
    SandboxedPopen,
    Violation,
    Wrapped,
    version,
)

__all__ = ["Sandbox", "SandboxError", "SandboxedPopen", "Violation", "Wrapped", "version"]
