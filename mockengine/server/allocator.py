"""Serve with Python's objects on the C library's ``malloc`` so that memory freed when sessions end goes
back to the system (issue 15, docs/memory.md).

Measured (200 sessions for 5 minutes, ``/proc/PID/smaps``, ``malloc_info``, ``sys._debugmallocstats``):
after every session had ended the engine kept 31 MiB more than idle, nearly all of it in CPython's own
small-object allocator, pymalloc. pymalloc takes memory for objects of ≤ 512 bytes in 1 MiB arenas and
gives an arena back only once every object in it is freed. Sessions fill new arenas at their peak (66
arenas against 35 idle); when they end, ~140 kB more live objects than idle remain (bounded tables grown
to the peak, caches, interned strings), spread so that no arena is empty: "arenas reclaimed 0", 31 MiB
kept, 20 MiB of it in wholly unused pools that stay resident. ``malloc_trim`` cannot reach them.

With ``PYTHONMALLOC=malloc`` those objects come from glibc's malloc, whose ``malloc_trim(0)`` (run by the
reclaimer, ``server/reclaim.py``) returns every free page, so what survives pins 4 kB pages, not 1 MiB
arenas: the same soak kept 17 MiB. The price is some CPU (pymalloc is faster for small objects; measured
in docs/memory.md), so ``--python-malloc pymalloc`` keeps CPython's default.

``PYTHONMALLOC`` is read only when the interpreter starts, so ``mockengine serve`` run from the command
line replaces itself (``execv``: same process id, same arguments, same environment plus
``PYTHONMALLOC=malloc``) before it loads anything. It does not when ``PYTHONMALLOC`` is already set (the
user's choice wins, and the new process does not loop), when the interpreter ignores the environment
(``-E``, ``-I``), when the program is frozen, and off glibc (no ``malloc_trim``: nothing to gain).
Worker processes (``--workers``) inherit the environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from mockengine.server.reclaim import MALLOC_TRIM
from mockengine.server.settings_checks import PYTHON_MALLOCS

ENV = "PYTHONMALLOC"
CHOICES = PYTHON_MALLOCS


def active_python_malloc() -> str:
    """The allocator this interpreter runs Python's objects on: ``PYTHONMALLOC`` as it started (CPython's
    default ``pymalloc`` when unset or ignored); ``/healthz`` reports it as ``python_malloc``."""
    chosen = None if sys.flags.ignore_environment else os.environ.get(ENV)
    return chosen or "pymalloc"


def should_reexec(choice: str) -> bool:
    """Whether ``serve`` must restart itself to run Python's objects on ``malloc`` (``choice`` from
    ``--python-malloc``); raises ValueError for a choice outside ``CHOICES``."""
    if choice not in CHOICES:
        raise ValueError(f"--python-malloc must be one of {', '.join(CHOICES)}, got {choice!r}")
    return (
        choice == "malloc"
        and ENV not in os.environ
        and not sys.flags.ignore_environment
        and not getattr(sys, "frozen", False)
        and MALLOC_TRIM is not None
    )


def use_python_malloc(
    choice: str, *, may_restart: bool, execv: Callable[[str, list[str]], None] = os.execv
) -> None:
    """Re-execute this process with ``PYTHONMALLOC=malloc`` when :func:`should_reexec` says so and
    ``may_restart`` (``serve`` run from the command line: it re-runs ``sys.orig_argv``, so never inside a
    test or another program); returns only when it does not. Raises ValueError for an unknown choice."""
    if not should_reexec(choice) or not may_restart:
        return
    os.environ[ENV] = "malloc"
    sys.stdout.flush()
    sys.stderr.flush()
    execv(sys.executable, list(sys.orig_argv))
