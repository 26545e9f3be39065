"""numpy's OpenBLAS held to one thread in the engine.

numpy hands a float matrix product (the transcript cache's fingerprint, ``fingerprint._prints``; whisper's
mel filter bank) to OpenBLAS, which runs it on a pool of one thread per core. After each product those
threads spin, waiting for the next one, before they sleep: on the 2-core bench machine with 40 talking
WebRTC calls (a turn's fingerprint every ~100 ms), OpenBLAS's second thread spun 0.29 of a core
(``perf``: 34 % of the engine's samples in ``blas_thread_server``), more than the event loop took, for
products of a few hundred by 33 that take microseconds on one thread. The speech models run in their
own executors, so nothing waits on a product being spread over both cores.

The limit is set through OpenBLAS's own call on the library already loaded (found in
``/proc/self/maps``), so it holds whatever imported numpy first; ``OPENBLAS_NUM_THREADS`` would have to
be set before that import.
"""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path

log = logging.getLogger("mockengine.engines")

# numpy >= 2 wheels bundle scipy-openblas (64-bit ints, prefixed symbols); distribution builds export
# OpenBLAS's plain names.
_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads")


def _loaded_openblas() -> list[str]:
    """Paths of the OpenBLAS libraries mapped into this process (none before numpy is imported)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return []
    found: list[str] = []
    for line in maps.splitlines():
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if "openblas" in Path(path).name.lower() and path not in found:
            found.append(path)
    return found


def _function(path: str, names: tuple[str, ...]) -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    library = ctypes.CDLL(path)
    for name in names:
        function = getattr(library, name, None)
        if function is not None:
            return function
    return None


def blas_threads() -> list[int]:
    """The thread count of each OpenBLAS library loaded (empty when none is, or it says nothing)."""
    import numpy  # noqa: F401  (OpenBLAS is loaded with numpy)

    counts = []
    for path in _loaded_openblas():
        getter = _function(path, _GETTERS)
        if getter is not None:
            getter.restype = ctypes.c_int
            counts.append(int(getter()))
    return counts


def limit_blas_threads(threads: int = 1) -> list[int]:
    """Hold every loaded OpenBLAS to ``threads`` threads; the counts before, one per library."""
    before = blas_threads()
    for path in _loaded_openblas():
        setter = _function(path, _SETTERS)
        if setter is not None:
            setter.restype = None
            setter(ctypes.c_int(threads))
    if before:
        log.info("numpy's OpenBLAS held to %d thread(s) (had %s)", threads, before)
    return before
