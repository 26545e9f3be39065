"""The kernel's names for the engine's threads, so ``/proc/PID/task/TID/comm`` says whose CPU it is.

Python 3.11 names a thread for Python alone (``threading.Thread.name``); the kernel's name (``comm``: what
``top -H``, ``perf`` and ``/proc/PID/task/TID/comm`` show) stays the process's, ``python``, for every
thread. Issue 15 needed "off the event loop" attributed by role (a 15-min WebRTC level spent 2.8 ms per
call-second in threads that all read ``python``), so each thread the engine starts names itself:

======================  =============================================================================
``stt_0``               whisper and the transcript cache's fingerprint search (``MeteredExecutor("stt")``)
``tts_0``, ``tts_1``    piper (``MeteredExecutor("tts")``)
``brain_0``             participant replies (``server/brain_lane.py``)
``journal``             the journal's file writes (``server/journal.py``)
``default_0``           ``run_in_executor(None, …)`` under ``serve``: ``malloc_trim``, the console's reads
``whisper``             CTranslate2's worker and its OpenMP team: whisper's decoding itself (``stt_0``
                        hands it the audio and waits); ``turn_whisper`` for ``--turn-whisper-model``
``piper``               onnxruntime's pools made when the voices load (``server/resources.py``)
======================  =============================================================================

Linux keeps 15 bytes of a name (longer ones are cut), hence the short roles. A thread started by
native code takes the name of the thread that started it, so the models load under
:func:`os_thread_named` (``whisper``, ``piper``) and their pools, and the threads those start, carry
it; any other thread the main thread starts carries the process's name.
``mockengine.loadtest.processes.thread_group`` maps a name to its role.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

PREFIX = "mockengine-"  # the Python names' prefix (``mockengine-stt_0``), left out of the kernel's name
COMM_BYTES = 15  # TASK_COMM_LEN 16, with the terminating NUL
_PR_SET_NAME, _PR_GET_NAME = 15, 16


def _load_prctl() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    # The running process's own symbols hold libc's: no ``find_library`` (which runs ``ldconfig -p`` in a
    # subprocess at import).
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def set_os_thread_name(name: str) -> bool:
    """Give the calling thread the kernel name ``name`` (cut to :data:`COMM_BYTES` bytes of UTF-8);
    False where that is not possible (off Linux, no libc), the thread left as it was."""
    if _PRCTL is None:
        return False
    raw = name.encode("utf-8", "replace")[:COMM_BYTES]
    return int(_PRCTL(_PR_SET_NAME, ctypes.c_char_p(raw), 0, 0, 0)) == 0  # type: ignore[operator]


def os_thread_name() -> str | None:
    """The calling thread's kernel name, None where it cannot be read."""
    if _PRCTL is None:
        return None
    buffer = ctypes.create_string_buffer(COMM_BYTES + 1)
    if int(_PRCTL(_PR_GET_NAME, buffer, 0, 0, 0)) != 0:  # type: ignore[operator]
        return None
    return buffer.value.decode("utf-8", "replace")


@contextmanager
def os_thread_named(role: str) -> Iterator[None]:
    """The calling thread named ``role`` for the kernel inside the block, its name given back after:
    threads native code starts inside (a model's pools) are named ``role`` for good."""
    before = os_thread_name()
    set_os_thread_name(role)
    try:
        yield
    finally:
        if before is not None:
            set_os_thread_name(before)


def name_os_thread() -> None:
    """``ThreadPoolExecutor(initializer=…)``: the kernel's name from the Python one, :data:`PREFIX` left
    out (``mockengine-stt_0`` → ``stt_0``)."""
    set_os_thread_name(threading.current_thread().name.removeprefix(PREFIX))


def named_executor(role: str, threads: int | None = None) -> ThreadPoolExecutor:
    """A plain thread pool whose threads are named ``mockengine-ROLE_N`` for Python and ``ROLE_N`` for the
    kernel (``threads``: ``ThreadPoolExecutor``'s default when None)."""
    return ThreadPoolExecutor(threads, thread_name_prefix=PREFIX + role, initializer=name_os_thread)
