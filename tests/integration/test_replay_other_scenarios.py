"""A recording made against an engine with scenarios this one has not loaded: the recorded client asked
for ``?scenario=parrot`` (or the model ``mockengine-parrot``), and ``serve --replay`` refused that client
``unknown_scenario`` although the recording, not the scenario, answers a replay. It now replays, and a
divergence falls back to the default scenario (docs/record-replay.md, "Scenarios under replay"). A
recording with no WebSocket session leaves sessions to the engine, where the name is still checked.
Real sockets: an upstream engine with the scenario, ``mockengine record`` in front of it, a replaying
engine without it."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import aiohttp
import pytest

from mockengine.record.app import create_record_app
from mockengine.record.proxy import Recorder
from mockengine.server.app import create_app
from mockengine.settings import Settings
from tests.eventually import eventually
from tests.integration.conftest import UPSTREAM_KEY

SCENARIO = """
name: parrot
rules:
  - id: squawk
    when: {heard_contains: cracker}
    say: Polly wants a cracker, squawk.
"""
ASKED = "Do you want a cracker?"


async def typed_turn(url: str, text: str) -> list[dict[str, Any]]:
    """A typed turn over a WebSocket: every event up to ``response.done``, or up to the close."""
    events: list[dict[str, Any]] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-client"}) as ws,
    ):
        content = [{"type": "input_text", "text": text}]
        item = {"type": "message", "role": "user", "content": content}
        await ws.send_json({"type": "conversation.item.create", "item": item})
        await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})
        while not events or events[-1]["type"] != "response.done":
            message = await ws.receive(timeout=30)
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            events.append(json.loads(message.data))
    return events


def said(events: list[dict[str, Any]]) -> str:
    return next(e["text"] for e in events if e["type"] == "response.output_text.done")


@pytest.mark.parametrize("query", ["model=gpt-realtime&scenario=parrot", "model=mockengine-parrot"])
async def test_a_scenario_only_the_recorded_engine_had_still_replays(
    query, engine, aiohttp_server, resources, tmp_path
) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "parrot.yaml").write_text(SCENARIO)
    settings = dataclasses.replace(resources.settings, api_keys=(UPSTREAM_KEY,), scenarios_dir=str(scenarios))
    upstream = await aiohttp_server(create_app(settings, resources.with_settings(settings)))
    out = tmp_path / "rec"
    recorder = Recorder(f"http://127.0.0.1:{upstream.port}/v1", out, Settings(), UPSTREAM_KEY)
    proxy = await aiohttp_server(create_record_app(recorder))
    recorded = await typed_turn(f"ws://127.0.0.1:{proxy.port}/v1/realtime?{query}", ASKED)
    assert said(recorded) == "Polly wants a cracker, squawk."
    written = out / "realtime-0001" / "session.json"
    await eventually(written.exists, message=f"{written} was not written")

    replay = await engine(replay_dir=str(out), replay_speed=0.0)  # no parrot here
    replayed = await typed_turn(f"{replay.url}/realtime?{query}", ASKED)
    assert [e for e in replayed if e["type"] == "error"] == []
    assert said(replayed) == said(recorded)
    # A divergence (other words) is answered by the default scenario, not refused.
    fallback = await typed_turn(f"{replay.url}/realtime?{query}", "What is the capital of Italy?")
    assert fallback[-1]["type"] == "response.done"
    assert "Rome" in said(fallback)


async def test_without_recorded_sessions_an_unknown_scenario_is_still_refused(engine, recording) -> None:
    """A recording of chat completions only: the engine serves each session itself, so the scenario it
    names must be one it has."""
    rec = await recording()
    async with aiohttp.ClientSession() as http:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}]}
        headers = {"Authorization": "Bearer sk-client"}
        async with http.post(f"{rec.http_url}/v1/chat/completions", json=body, headers=headers) as answer:
            assert answer.status == 200
    await eventually((rec.out / "http" / "0001.json").is_file, timeout_s=5, message="not written")
    replay = await engine(replay_dir=str(rec.out), replay_speed=0.0)
    refused = await typed_turn(f"{replay.url}/realtime?model=gpt-realtime&scenario=parrot", ASKED)
    assert [e["error"]["code"] for e in refused] == ["unknown_scenario"]
