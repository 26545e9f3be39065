"""How the bench prints its figures (rows of p50 / p95 / p99, MiB, CPU per session-second), and the
engine's own counters it reads back (``/healthz``)."""

from __future__ import annotations

import os
from typing import Any

MIB = 1024 * 1024


def fmt(value: float | None, unit: str = " ms") -> str:
    return "n/a" if value is None else f"{value:.0f}{unit}"


def row(title: str, dist: dict[str, Any], *, p99: bool = False) -> None:
    tail = f"   p99 {fmt(dist['p99']):>7}" if p99 else ""
    print(f"  {title:<40} p50 {fmt(dist['p50']):>7}   p95 {fmt(dist['p95']):>7}{tail}   (n={dist['count']})")


_TURN_FIGURES = (
    ("speech onset → speech_started", "onset_to_speech_started_ms"),
    ("speech_stopped → first audio delta", "speech_stopped_to_first_audio_ms"),
    ("response.cancel → response.done", "cancel_to_done_ms"),
    ("gap between events of a response", "event_gap_ms"),
)


def turn_rows(summary: dict[str, Any]) -> None:
    """The driver's per-turn figures, one row each (p50 / p95 / p99)."""
    for title, key in _TURN_FIGURES:
        row(title, summary[key], p99=True)


def mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / MIB:.2f} MiB"


def cpu(summary: dict[str, Any]) -> str:
    """Server and driver CPU per session-second (contention-independent) and cores held."""
    server = summary.get("server_cpu_ms_per_session_s")
    if server is None:
        return "n/a (server not started by the bench)"
    # A run too short for the process clock's 10 ms ticks can measure 0 ms (a 1 s baseline of one session)
    per_core = f"~{1000 / server:.0f}" if server > 0 else "n/a (too little CPU measured)"
    return (
        f"server {server:.2f} ms per session-second ({summary['server_cores']:.2f} cores on average, "
        f"→ {per_core} streaming sessions per free core); driver "
        f"{summary['driver_cpu_ms_per_session_s']:.2f} ms per session-second "
        f"({summary['driver_cores']:.2f} cores)"
    )


def cpu_note() -> str:
    return f"{os.cpu_count()} cores"


async def healthz(url: str) -> dict[str, Any] | None:
    import aiohttp

    http_url = url.replace("ws://", "http://").replace("wss://", "https://").split("/v1/")[0] + "/healthz"
    try:
        async with aiohttp.ClientSession() as http, http.get(http_url) as response:
            return dict(await response.json()) if response.status == 200 else None
    except (aiohttp.ClientError, ValueError):
        return None


def cache_rates(health: dict[str, Any] | None) -> dict[str, Any]:
    caches = (health or {}).get("caches", {})
    return {name: stats.get("hit_rate") for name, stats in caches.items()}
