"""The reclaimer trims the heap only once the load has fallen away (server/reclaim.py)."""

from __future__ import annotations

import asyncio

import pytest

from mockengine.server import reclaim
from mockengine.server.reclaim import Reclaimer
from tests.eventually import eventually


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(reclaim, "MALLOC_TRIM", lambda pad: calls.append(pad) or 1)
    return calls


def _end_sessions(reclaimer: Reclaimer, active: list[int], remaining: list[int]) -> None:
    for count in remaining:
        active[0] = count
        reclaimer.session_ended()


async def test_no_trim_while_sessions_come_and_go_at_a_steady_level(trims: list[int]) -> None:
    active = [200]
    reclaimer = Reclaimer(0.001, active=lambda: active[0])
    for _ in range(3):
        _end_sessions(reclaimer, active, [199, 198, 197])
        await asyncio.sleep(0.02)
        active[0] = 200  # new sessions joined
    assert reclaimer.runs == 3 and trims == [] and reclaimer.trims == 0
    assert reclaimer.collections == 0  # nor a full collection: the last was under STEADY_COLLECT_S ago


async def test_a_steady_load_gets_one_full_collection_per_steady_interval(trims: list[int]) -> None:
    clock = [1000.0]
    active = [200]
    reclaimer = Reclaimer(0.001, active=lambda: active[0], clock_s=lambda: clock[0])
    for step_s in (10.0, 10.0, reclaim.STEADY_COLLECT_S, 10.0):
        clock[0] += step_s
        _end_sessions(reclaimer, active, [199])
        await asyncio.sleep(0.02)
        active[0] = 200
    assert reclaimer.runs == 4 and reclaimer.collections == 1 and trims == []


async def test_trims_once_every_session_has_ended(trims: list[int]) -> None:
    active = [200]
    reclaimer = Reclaimer(0.001, active=lambda: active[0])
    _end_sessions(reclaimer, active, list(range(199, -1, -1)))
    # The trim runs on the default executor's thread: wait for the run to finish, not a fixed 20 ms a
    # loaded machine may not schedule that thread in.
    await eventually(lambda: reclaimer.runs == 1)
    assert trims == [0] and reclaimer.trims == 1 and reclaimer.collections == 1


async def test_trims_when_the_load_falls_to_a_quarter_and_the_peak_restarts_after(trims: list[int]) -> None:
    active = [100]
    reclaimer = Reclaimer(0.001, active=lambda: active[0])
    _end_sessions(reclaimer, active, list(range(99, 24, -1)))  # 25 left: a quarter of 100
    await eventually(lambda: reclaimer.runs == 1)  # the trim is on the executor's thread
    assert len(trims) == 1
    _end_sessions(reclaimer, active, [24, 23, 22])  # 22 of a new peak of 25: not a fall to a quarter
    await eventually(lambda: reclaimer.runs == 2)
    assert len(trims) == 1 and reclaimer.runs == 2


async def test_interval_zero_turns_it_off(trims: list[int]) -> None:
    reclaimer = Reclaimer(0, active=lambda: 0)
    reclaimer.session_ended()
    await asyncio.sleep(0.01)
    assert reclaimer.runs == 0 and trims == []
