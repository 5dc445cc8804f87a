"""Cancelling runs: a token the caller cancels from any thread, and what happens at exit.

Every call that runs replications (:func:`gpucap.run`, :func:`gpucap.sweep`,
:func:`gpucap.select_best`, :func:`gpucap.robust_plan`) runs the engine on a worker thread with
the GIL released, and stops at its next replication (the CPU) or batch (a device) when

- Ctrl-C arrives while it runs in the main thread (``KeyboardInterrupt`` is raised once it
  has stopped);
- the :class:`CancelToken` given as ``cancel=`` is cancelled, from any thread
  (:class:`gpucap.RunCancelled` is raised);
- :func:`cancel_runs` is called, from any thread (:class:`gpucap.RunCancelled`);
- the interpreter exits: runs on daemon threads are cancelled, and so are runs on other
  threads when the main thread ended with ``KeyboardInterrupt`` (Ctrl-C); exit then waits at
  most :data:`EXIT_WAIT_S` seconds for them to stop. Runs on non-daemon threads otherwise go on
  to their end, as Python waits for those threads.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Optional

from . import _core

CancelToken = _core.CancelToken
RunCancelled = _core.RunCancelled

#: Seconds the interpreter's exit waits for the runs it cancelled to stop (a CPU run stops
#: within milliseconds, a device run after its current batch).
EXIT_WAIT_S = 30.0


def cancel_runs() -> int:
    """Cancels every run in progress in this process, on any thread; returns how many. Each
    stops at its next replication or batch and raises :class:`gpucap.RunCancelled`. Runs that
    start afterwards are not affected (a :class:`CancelToken` covers those too)."""
    return _core.cancel_runs()


def runs_in_progress() -> int:
    """How many runs are in progress in this process (on any thread)."""
    return _core.runs_in_progress()


def check_token(cancel: Any, caller: str) -> Optional[CancelToken]:
    """``cancel=`` checked: None or a :class:`CancelToken` (TypeError naming `caller`)."""
    if cancel is None or isinstance(cancel, CancelToken):
        return cancel
    raise TypeError(f"{caller}: cancel must be a gpucap.CancelToken or None, got {cancel!r} "
                    f"({type(cancel).__name__})")


def _at_exit() -> None:
    """At interpreter exit, before Python waits for its non-daemon threads: cancel the runs of
    daemon threads (the interpreter would stop those threads inside the engine), and every run
    when the main thread ended with KeyboardInterrupt; wait for them to stop."""
    interrupted = isinstance(getattr(sys, "last_value", None), KeyboardInterrupt)
    if _core.cancel_runs(daemon_only=not interrupted, at_exit=True):
        _core.wait_for_runs(EXIT_WAIT_S)


# threading's own exit hooks run before Python joins the non-daemon threads (and so before
# atexit's, which run after); concurrent.futures uses the same. An interpreter without them
# falls back to atexit, which covers daemon threads.
_register = getattr(threading, "_register_atexit", None)
try:
    if _register is None:
        raise RuntimeError
    _register(_at_exit)
except RuntimeError:
    import atexit

    atexit.register(_at_exit)

__all__ = ["EXIT_WAIT_S", "CancelToken", "RunCancelled", "cancel_runs", "check_token",
           "runs_in_progress"]
