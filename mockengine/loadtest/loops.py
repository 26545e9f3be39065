"""``mockengine bench --only loops``: the engine on asyncio's loop and on uvloop, side by side.

Two engines (``serve --loop asyncio`` and ``--loop uvloop``) take the same load in turn, twice each
(lockstep: A B A B, so the shared machine's drifting speed reaches both alike). Per run: engine CPU per
session-second from ``/proc`` (independent of what else the machine runs), p95 onset and response start.
"""

from __future__ import annotations

from typing import Any

from mockengine.loadtest.capacity import measured
from mockengine.loadtest.driver import run_load
from mockengine.loadtest.processes import start_server
from mockengine.loadtest.profile import LoadProfile

ROUNDS = 2
LOOPS = ("asyncio", "uvloop")  # serve --loop (mockengine.server.event_loop)


async def compare_loops(
    engine_args: list[str], sessions: int, duration_s: float, seed: int
) -> dict[str, Any]:
    """CPU ms per session-second and p95s per loop and round, and each loop's mean CPU figure."""
    children = {name: await start_server([*engine_args, "--loop", name]) for name in LOOPS}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in LOOPS}
    try:
        for child in children.values():  # warm-up, not measured
            await run_load(child.url, LoadProfile("steady", 4, 12.0), turn_every_s=3.0, progress=False)
        for _ in range(ROUNDS):
            for name, child in children.items():
                profile = LoadProfile("steady", sessions, duration_s)
                report, _ = await measured(child, run_load(child.url, profile, seed=seed, progress=False))
                summary = report.summary()
                runs[name].append(
                    {
                        "cpu_ms_per_session_s": summary.get("server_cpu_ms_per_session_s"),
                        "onset_p95_ms": summary["onset_to_speech_started_ms"]["p95"],
                        "response_p95_ms": summary["speech_stopped_to_first_audio_ms"]["p95"],
                        "dropped": summary["sessions_dropped"],
                        "lost": summary["lost_events"],
                    }
                )
    finally:
        for child in children.values():
            child.stop()
    means = {
        name: round(sum(r["cpu_ms_per_session_s"] or 0 for r in rows) / len(rows), 3)
        for name, rows in runs.items()
    }
    return {"sessions": sessions, "duration_s": duration_s, "runs": runs, "mean_cpu_ms_per_session_s": means}
