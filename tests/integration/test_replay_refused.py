"""Replay after refused events: a client that sends truncates refused at the parse boundary (bad
``content_index``, negative or fractional ``audio_end_ms``), good truncates, a frame that is not JSON and
a retrieve is recorded through ``mockengine record`` against an upstream engine on loopback, then replayed
by ``serve --replay``: it gets the same answers in the same order (a refused event moved the replay walk
not at all before, so every later answer was the recorded one of the event before it)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

ANSWERS = ("error", "conversation.item.truncated", "conversation.item.retrieved")


async def answer(ws: aiohttp.ClientWebSocketResponse, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The next answer to a truncate / retrieve / bad frame (an error or its success event)."""
    while True:
        message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        event = json.loads(message.data)
        events.append(event)
        if event["type"] in ANSWERS:
            return event


def summary(event: dict[str, Any]) -> tuple[Any, ...]:
    if event["type"] == "error":
        error = event["error"]
        return ("error", error["code"], error["param"], error["event_id"], error["message"].split(" ")[:3])
    if event["type"] == "conversation.item.truncated":
        return ("truncated", event["audio_end_ms"])
    return ("retrieved", event["item"]["type"], event["item"]["role"])


async def client(url: str) -> tuple[list[tuple[Any, ...]], list[str]]:
    """One typed turn with an audio reply, then truncates good and bad, a bad frame, a retrieve: each
    answer summarised, and every event type received."""
    events: list[dict[str, Any]] = []
    answers = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-client"}) as ws,
    ):
        text = [{"type": "input_text", "text": "Tell me about the weather."}]
        await ws.send_json(
            {"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": text}}
        )
        await ws.send_json({"type": "response.create"})
        while True:
            event = json.loads((await ws.receive(timeout=30)).data)
            events.append(event)
            if event["type"] == "response.done":
                item_id = event["response"]["output"][0]["id"]
                break
        truncate = {"type": "conversation.item.truncate", "item_id": item_id, "content_index": 0}
        frames = [
            {**truncate, "content_index": 1, "audio_end_ms": 100, "event_id": "evt_bad_index"},
            {**truncate, "audio_end_ms": 300, "event_id": "evt_good_1"},
            {**truncate, "audio_end_ms": -5, "event_id": "evt_negative"},
            "not json at all",
            {**truncate, "audio_end_ms": 10.7},
            {**truncate, "audio_end_ms": 200, "event_id": "evt_good_2"},
            {"type": "conversation.item.retrieve", "item_id": item_id, "event_id": "evt_retrieve"},
        ]
        for frame in frames:
            await ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))
            answers.append(summary(await answer(ws, events)))
    return answers, [e["type"] for e in events]


async def test_a_replay_answers_each_event_after_refused_ones_as_recorded(engine, recording):
    rec = await recording()
    recorded, recorded_types = await client(rec.realtime)
    assert [a[0] for a in recorded] == [
        "error",
        "truncated",
        "error",
        "error",
        "error",
        "truncated",
        "retrieved",
    ]
    assert recorded[0][3] == "evt_bad_index" and recorded[5] == ("truncated", 200)
    await rec.written()

    for speed in (0.0, 4.0):
        replay = await engine(replay_dir=str(rec.out), replay_speed=speed, replay_strict=True)
        replayed, replayed_types = await client(replay.realtime)
        assert replayed == recorded, speed
        assert replayed_types == recorded_types
