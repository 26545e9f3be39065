"""What the engine kept after a soak, by owner: ``/mockengine/memory`` at idle and once every session
has ended, compared (docs/memory.md, "What the engine kept after sessions ended")."""

from __future__ import annotations

from typing import Any

import aiohttp

MIB = 1024 * 1024


async def fetch_memory(http_url: str) -> dict[str, Any] | None:
    """The engine's ``/mockengine/memory`` (loopback), or None when it does not answer."""
    timeout, url = aiohttp.ClientTimeout(total=30), http_url + "/mockengine/memory"
    try:
        async with aiohttp.ClientSession(timeout=timeout) as http, http.get(url) as reply:
            return await reply.json() if reply.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None


def _get(figures: dict[str, Any], *path: str) -> Any:
    value: Any = figures
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def owner_changes(idle: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Any] | None:
    """After the end minus idle: resident MiB per kind of mapping, glibc's ``mmap`` blocks (model buffers,
    onnxruntime's arena), pymalloc's arenas (counts) and the collector's objects; None without both."""
    if not idle or not after:
        return None
    changes: dict[str, Any] = {}
    for name, path in (
        ("heap_mib", ("mappings", "heap")),
        ("anonymous_mib", ("mappings", "anonymous")),
        ("files_mib", ("mappings", "files")),
        ("glibc_mmap_mib", ("glibc", "mmap_bytes")),
    ):
        before, now = _get(idle, *path), _get(after, *path)
        changes[name] = None if before is None or now is None else round((now - before) / MIB, 1)
    changes["pymalloc_arenas"] = [_get(idle, "pymalloc", "arenas"), _get(after, "pymalloc", "arenas")]
    before, now = _get(idle, "python_objects", "gc_tracked"), _get(after, "python_objects", "gc_tracked")
    changes["gc_tracked_objects"] = None if before is None or now is None else now - before
    return changes


def format_owner_changes(changes: dict[str, Any] | None) -> str:
    if changes is None:
        return "by owner: n/a (no /mockengine/memory)"
    arenas = changes["pymalloc_arenas"]
    pymalloc = "" if arenas[0] is None else f" (pymalloc arenas {arenas[0]} → {arenas[1]})"
    return (
        f"by owner, after the end − idle: heap {signed(changes['heap_mib'])} MiB, anonymous "
        f"{signed(changes['anonymous_mib'])} MiB{pymalloc}, of which glibc mmap blocks "
        f"{signed(changes['glibc_mmap_mib'])} MiB; files {signed(changes['files_mib'])} MiB; objects "
        f"the collector tracks {signed(changes['gc_tracked_objects'])}"
    )


def signed(value: float | None, spec: str = "+g") -> str:
    """``value`` with its sign (``spec``, a format spec), or "?" where it is unknown."""
    return "?" if value is None else format(value, spec)
