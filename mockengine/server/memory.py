"""``GET /mockengine/memory``: where the engine's resident memory is, by owner (issue 15, docs/memory.md).

The figures that found what the engine kept after a soak's sessions ended, on demand (Linux; parts that
the platform lacks are ``null``):

- ``rss_bytes`` and ``mappings``: resident bytes by kind of mapping (``/proc/self/smaps``): ``heap``
  (glibc's main arena: the event loop thread's ``malloc``, and Python's objects under
  ``--python-malloc malloc``), ``anonymous`` (pymalloc's arenas, the model threads' glibc arenas, large
  ``mmap`` blocks such as model buffers and onnxruntime's arena), ``stacks`` and ``files`` (libraries,
  mapped model files).
- ``glibc``: ``malloc_info``'s arenas (``system_bytes`` taken from the system, ``free_bytes`` free inside
  them) and its ``mmap`` blocks.
- ``pymalloc`` (when Python's objects run on it): arenas now and at most, bytes in used blocks, in free
  blocks and in wholly unused pools (``sys._debugmallocstats``).
- ``python_objects``: objects the collector tracks (and the ten commonest types), frozen at start-up,
  and every allocated block; ``threads``.

Loopback clients only, or the control token (as ``/mockengine/faults``). Collecting takes tens of
milliseconds at a few hundred sessions (it walks every object), on the event loop: for diagnosis, not for
a tight polling loop.
"""

from __future__ import annotations

import collections
import ctypes
import ctypes.util
import gc
import os
import re
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from aiohttp import web

from mockengine.faults.control import forbidden, is_allowed
from mockengine.server.allocator import active_python_malloc

_MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def _mapping_kind(path: str) -> str:
    if path == "[heap]":
        return "heap"
    if path.startswith("[stack"):
        return "stacks"
    return "anonymous" if path == "" or path.startswith("[anon") else "files"


def resident_by_mapping(smaps: str) -> dict[str, int]:
    """Resident bytes per kind of mapping (``heap``, ``anonymous``, ``stacks``, ``files``; the kernel's
    own ``[vdso]``-like mappings count as files) from the text of ``/proc/PID/smaps``."""
    totals = dict.fromkeys(("heap", "anonymous", "stacks", "files"), 0)
    kind = "files"
    for line in smaps.splitlines():
        if _MAPPING.match(line):
            fields = line.split(maxsplit=5)
            kind = _mapping_kind(fields[5].strip() if len(fields) > 5 else "")
        elif line.startswith("Rss:"):
            totals[kind] += int(line.split()[1]) * 1024
    return totals


def glibc_arenas(xml: str) -> dict[str, Any]:
    """``malloc_info``'s XML → arenas' system and free bytes (main arena first) and the ``mmap`` blocks."""
    arenas = []
    for body in re.findall(r'<heap nr="\d+">(.*?)</heap>', xml, re.S):
        free = sum(int(m) for m in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', body))
        system = re.search(r'<system type="current" size="(\d+)"', body)
        arenas.append({"system_bytes": int(system.group(1)) if system else 0, "free_bytes": free})
    tail = xml[xml.rfind("</heap>") :]
    mmap = re.search(r'<total type="mmap" count="(\d+)" size="(\d+)"', tail)
    return {
        "arenas": arenas,
        "mmap_blocks": int(mmap.group(1)) if mmap else 0,
        "mmap_bytes": int(mmap.group(2)) if mmap else 0,
    }


def _malloc_info_xml() -> str | None:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "malloc_info") or not hasattr(libc, "open_memstream"):
        return None
    libc.open_memstream.restype = ctypes.c_void_p
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    # open_memstream's buffer comes from whichever malloc the process runs on (an LD_PRELOADed one such as
    # mimalloc included): free it through the process's own symbol, not libc's, or that allocator aborts
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    buffer, size = ctypes.c_void_p(), ctypes.c_size_t()
    stream = libc.open_memstream(ctypes.byref(buffer), ctypes.byref(size))
    if not stream:
        return None
    libc.malloc_info(0, stream)
    libc.fclose(stream)  # sets buffer and size
    try:
        return ctypes.string_at(buffer.value, size.value).decode() if buffer.value else None
    finally:
        free(buffer)


_PYMALLOC_FIGURES = {
    "arenas": "# arenas allocated current",
    "arenas_highwater": "# arenas highwater mark",
    "arenas_reclaimed": "# arenas reclaimed",
    "allocated_block_bytes": "# bytes in allocated blocks",
    "free_block_bytes": "# bytes in available blocks",
}


def pymalloc_figures(stats: str) -> dict[str, int]:
    """The arena and block figures of ``sys._debugmallocstats()``'s text."""
    figures = {}
    for key, label in _PYMALLOC_FIGURES.items():
        found = re.search(re.escape(label) + r"\s*=\s*([\d,]+)", stats)
        if found:
            figures[key] = int(found.group(1).replace(",", ""))
    pools = re.search(r"(\d+) unused pools \* (\d+) bytes", stats)
    if pools:
        figures["unused_pool_bytes"] = int(pools.group(1)) * int(pools.group(2))
    return figures


def _debugmallocstats_text() -> str:
    """``sys._debugmallocstats()`` writes to the C stderr: caught in a temp file. It runs on the event
    loop's thread, which is then not logging; a model thread's write in those milliseconds lands in
    the file too (and is dropped)."""
    with tempfile.TemporaryFile() as capture:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(capture.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode(errors="replace")


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except OSError:
        return None


def memory_breakdown() -> dict[str, Any]:
    """Every figure of ``GET /mockengine/memory`` (see the module's docstring)."""
    smaps = _read("/proc/self/smaps")
    status = _read("/proc/self/status") or ""
    rss = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    threads = re.search(r"^Threads:\s+(\d+)", status, re.M)
    xml = _malloc_info_xml()
    python_malloc = active_python_malloc()
    objects = gc.get_objects()
    types = collections.Counter(type(o).__qualname__ for o in objects).most_common(10)
    return {
        "rss_bytes": int(rss.group(1)) * 1024 if rss else None,
        "python_malloc": python_malloc,
        "mappings": resident_by_mapping(smaps) if smaps else None,
        "glibc": glibc_arenas(xml) if xml else None,
        "pymalloc": pymalloc_figures(_debugmallocstats_text()) if python_malloc == "pymalloc" else None,
        "python_objects": {
            "gc_tracked": len(objects),
            "gc_frozen": gc.get_freeze_count(),
            "allocated_blocks": sys.getallocatedblocks(),
            "commonest_types": dict(types),
        },
        "threads": int(threads.group(1)) if threads else None,  # native ones too (onnxruntime, whisper)
        "python_threads": threading.active_count(),
    }


async def memory_handler(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    return web.json_response(memory_breakdown())


def add_routes(app: web.Application) -> None:
    app.router.add_get("/mockengine/memory", memory_handler)
