"""``bench --only load`` takes the engine/baseline CPU ratio in one window: the engine and the bare
baseline are driven at the same time (``--baseline-window together``, the default), so both servers'
CPU per session-second comes from the same seconds of the machine, whose speed drifted ±18 % between
the two windows of the old sequential method (docs/cpu.md, nineteenth pass). ``after`` keeps that
method. A real engine on loopback (fake models) and the real baseline child process; short runs, no
CPU figures asserted."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from mockengine.bench import add_arguments
from mockengine.bench import load as load_section
from mockengine.bench.context import BenchContext

SESSIONS, SECONDS = 2, 2.0


async def _bench_load(engine, monkeypatch, *options: str) -> dict:
    # the warm-up before the measured window is not what is tested: one session for one second
    monkeypatch.setattr(load_section, "WARM_UP_SESSIONS", 1)
    monkeypatch.setattr(load_section, "WARM_UP_S", 1.0)
    server = await engine()
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        [
            "--only",
            "load",
            "--url",
            f"{server.url}/realtime?model=gpt-realtime",
            "--sessions",
            str(SESSIONS),
            "--duration",
            str(SECONDS),
            "--turn-every",
            "1",
            "--no-progress",
            *options,
        ]
    )
    ctx = BenchContext(args)
    # bench_load runs its own event loop (asyncio.run); the engine serves on this one
    await asyncio.to_thread(load_section.bench_load, ctx)
    return ctx.results["load"]


async def test_the_engine_and_the_baseline_are_driven_in_the_same_window_by_default(
    engine, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    result = await _bench_load(engine, monkeypatch)
    assert result["baseline_window"] == "together"
    (engine_start, engine_end), (base_start, base_end) = (
        result["windows_s"]["engine"],
        result["windows_s"]["baseline"],
    )
    # both driven for the profile's whole length, each starting before the other ended: the same seconds
    assert engine_end - engine_start >= SECONDS and base_end - base_start >= SECONDS
    assert base_start < engine_end and engine_start < base_end
    assert abs(base_start - engine_start) < SECONDS / 2
    for run in ("engine", "baseline"):
        assert result[run]["sessions_connected"] == SESSIONS, run
    # the baseline's driver ran in a process of its own, which measured its own CPU
    assert result["baseline"]["driver_cpu_ms_per_session_s"] is not None
    out = capsys.readouterr().out
    assert "the bare baseline driven at the same time" in out
    assert "(driven at the same time as the engine)" in out


async def test_after_drives_the_baseline_in_a_later_window(
    engine, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    result = await _bench_load(engine, monkeypatch, "--baseline-window", "after")
    assert result["baseline_window"] == "after"
    (_, engine_end), (base_start, _) = result["windows_s"]["engine"], result["windows_s"]["baseline"]
    assert base_start >= engine_end
    assert result["baseline"]["sessions_connected"] == SESSIONS
    out = capsys.readouterr().out
    assert "(driven after the engine, in a later window)" in out
