"""A recorded client that sent events the server refused for a bad field (a truncate with content_index 1,
a negative audio_end_ms) replays with the same answers: each refusal matches its recorded one. Before,
the engine answered them itself without moving the replay, so every later truncate got the recorded
answer of an earlier one (a fresh user saw errors where the recording had successes, then "item does not
exist"). Recorded through the recorder proxy from an engine with the fake speech engines."""

from __future__ import annotations

import json
from typing import Any

import aiohttp


async def client_run(url: str, key: str) -> list[tuple[str, str | None]]:
    """A typed turn, a retrieve, then truncates (refused ones between good ones) and a retrieve, one at a
    time; what came back for each, as (event type, error code)."""
    answers: list[tuple[str, str | None]] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": f"Bearer {key}"}) as ws,
    ):

        async def send_then(frame: dict[str, Any], *kinds: str) -> dict[str, Any]:
            await ws.send_str(json.dumps(frame))
            while True:
                event = json.loads((await ws.receive(timeout=30)).data)
                if event["type"] in kinds:
                    answers.append((event["type"], (event.get("error") or {}).get("code")))
                    return event

        assert json.loads((await ws.receive(timeout=30)).data)["type"] == "session.created"
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Hello there."}],
        }
        await send_then({"type": "conversation.item.create", "item": item}, "conversation.item.done")
        done = await send_then({"type": "response.create"}, "response.done")
        reply = done["response"]["output"][0]["id"]
        ends = ("conversation.item.truncated", "error")
        for index, (content_index, end_ms) in enumerate([(1, 10), (0, -5), (0, 300), (0, 200), (0, 10**9)]):
            truncate = {"item_id": reply, "content_index": content_index, "audio_end_ms": end_ms}
            await send_then(
                {"type": "conversation.item.truncate", "event_id": f"t{index}", **truncate}, *ends
            )
        await send_then(
            {"type": "conversation.item.retrieve", "item_id": reply}, "conversation.item.retrieved"
        )
    return answers


async def test_refused_events_replay_with_their_recorded_answers(engine, recording) -> None:
    rec = await recording(audio_pace=0.0)
    live = await client_run(rec.realtime, "sk-client")
    assert [code for _, code in live[2:7]] == [
        "invalid_value",
        "integer_below_min_value",
        None,
        None,
        "invalid_value",
    ]  # the two good truncates between refusals
    await rec.written()

    replay = await engine(replay_dir=str(rec.out), replay_speed=0.0, replay_strict=True)
    assert await client_run(replay.realtime, "sk-any") == live
