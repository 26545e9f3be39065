"""A session's memory goes when the session ends, over real sockets (issue 15).

Waves of spoken sessions against an engine run the way ``serve`` runs it. After each wave: no session,
runner, buffer, spill file or task is left (``gc``), the memory the wave allocated is released
(``tracemalloc``) — its bulk by reference counting alone, at close, without waiting for the cycle
collector that ``serve`` makes rare — and the process's resident memory does not grow from wave to wave.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import tracemalloc
from pathlib import Path

import aiohttp
import pytest

from mockengine.realtime.audio_store import AudioSpill, SpilledAudio
from mockengine.realtime.input_buffer import InputAudioBuffer
from mockengine.realtime.session import RealtimeSession
from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.state import RECLAIMER
from tests.eventually import eventually
from tests.integration.test_silent_peers import served  # noqa: F401 (fixture)
from tests.speech import question

pytestmark = pytest.mark.models
AUTH = {"Authorization": "Bearer sk-test"}
SESSION_TYPES = (RealtimeSession, SessionRunner, InputAudioBuffer, AudioSpill, SpilledAudio)


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def spoken_session(http: aiohttp.ClientSession, url: str, turns: int = 2) -> None:
    """Speak ``turns`` questions (faster than real time: turn detection counts samples), hear each reply
    and retrieve the first turn (its audio is spilled by then), then leave."""
    pcm, _ = question()
    audio = pcm + bytes(48_000)  # the question, then 1 s of silence ends the turn
    ws = await http.ws_connect(url, headers=AUTH)
    first_item = None
    for _ in range(turns):
        for offset in range(0, len(audio), 4800):
            chunk = base64.b64encode(audio[offset : offset + 4800]).decode()
            await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
        while (event := json.loads((await ws.receive(timeout=30)).data))["type"] != "response.done":
            if event["type"] == "input_audio_buffer.committed" and first_item is None:
                first_item = event["item_id"]
    await ws.send_str(json.dumps({"type": "conversation.item.retrieve", "item_id": first_item}))
    while (event := json.loads((await ws.receive(timeout=30)).data))["type"] != "conversation.item.retrieved":
        pass
    assert len(base64.b64decode(event["item"]["content"][0]["audio"])) > 48_000  # > 1 s, read back
    await ws.close()


async def wave(eng, sessions: int = 2) -> None:
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(spoken_session(http, eng.realtime) for _ in range(sessions)))
    await eng.wait_until_idle()


def left_behind() -> dict[str, int]:
    counts: dict[str, int] = {}
    for obj in gc.get_objects():
        kind = type(obj)  # not isinstance(): that wakes lazy proxies (openai's), which import modules
        if kind in SESSION_TYPES:
            counts[kind.__name__] = counts.get(kind.__name__, 0) + 1
    return counts


async def test_waves_of_sessions_leave_nothing_behind(served, tmp_path):  # noqa: F811
    eng = await served(seed=5, audio_memory_s=1.0, audio_spill_dir=str(tmp_path), reclaim_interval_s=0.1)
    await wave(eng, 2)  # warm: the replies' speech and the transcripts are cached from here on
    tasks_before = len(asyncio.all_tasks())
    tracemalloc.start()
    try:
        gc.collect()
        rss, traced = [rss_mib()], [tracemalloc.get_traced_memory()[0]]
        for _ in range(3):
            await wave(eng)
            runs = eng.app[RECLAIMER].runs
            await eventually(lambda runs=runs: eng.app[RECLAIMER].runs != runs)
            gc.collect()
            assert left_behind() == {}
            assert len(asyncio.all_tasks()) <= tasks_before
            rss.append(rss_mib())
            traced.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert list(tmp_path.iterdir()) == []  # spill files are unlinked from the start
    # Each wave allocated megabytes (audio in and out); what stays after it is small change.
    assert max(traced) - traced[0] < 1_000_000, f"traced memory kept: {[t - traced[0] for t in traced]}"
    assert rss[-1] - rss[1] < 20, f"RSS across waves (MiB): {rss}"


async def test_a_closed_session_frees_its_audio_without_the_cycle_collector(served, tmp_path):  # noqa: F811
    eng = await served(seed=5, audio_memory_s=-1, reclaim_interval_s=0)  # all audio in memory, no reclaim
    await wave(eng, 1)
    gc.collect()
    tracemalloc.start()
    gc.disable()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await wave(eng, 2)

        def kept() -> int:
            return tracemalloc.get_traced_memory()[0] - before

        # Two sessions held ~1.5 MB of audio each; without close() it stayed until a full collection,
        # which never comes here (gc disabled). Waited for, not slept: the sessions' last tasks finish
        # after the server counts them gone, later on a loaded machine than a fixed 0.2 s.
        await eventually(
            lambda: kept() < 1_000_000,
            timeout_s=10,
            message=lambda: f"{kept() / 1e6:.2f} MB still held after the sessions closed",
        )
    finally:
        gc.enable()
        tracemalloc.stop()
