"""After a divergence a replay falls back to the scripted participant, over a real socket against
``serve --replay``: it knows the recorded replies (the function call whose changed output caused the
divergence is grounded, not made again), and it has the turn detection the client asked for (an update
naming only some fields included), so a barge-in interrupts and the spoken turn is answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_record_replay import CLIENT_KEY, QUERY, UPSTREAM_KEY, start_recorder, written
from tests.record_client import run_script
from tests.speech import question

pytestmark = pytest.mark.models
PARTIAL = {"type": "server_vad"}  # create_response and interrupt_response left at their defaults (true)


async def record(engine: Any, aiohttp_server: Any, out: Path, pcm: bytes) -> None:
    upstream = await engine(api_keys=(UPSTREAM_KEY,), audio_pace=4.0, first_delta_delay_ms=50)
    proxy = await start_recorder(aiohttp_server, upstream.http_url, out)
    await run_script(f"ws://{proxy}/v1/realtime?{QUERY}", CLIENT_KEY, pcm, turn_detection=PARTIAL)
    await upstream.wait_until_idle()
    await written(out / "realtime-0001")


async def test_after_a_fallback_the_output_is_grounded_and_a_barge_in_interrupts_and_is_answered(
    engine, aiohttp_server, tmp_path
):
    pcm, _ = question()
    await record(engine, aiohttp_server, tmp_path / "rec", pcm)
    replay = await engine(replay_dir=str(tmp_path / "rec"), replay_speed=0.0)
    events = await run_script(
        f"{replay.realtime}&scenario=conformance", "sk-any", pcm, tool_output='"nope"', turn_detection=PARTIAL
    )
    done = [e["response"] for e in events if e["type"] == "response.done"]
    assert [o["type"] for o in done[1]["output"]] == ["function_call"]  # recorded: the call
    assert [o["type"] for o in done[2]["output"]] == ["message"]  # the fallback's answer to its output
    assert [r["status"] for r in done[-2:]] == ["cancelled", "completed"]  # the barge-in, then its answer
