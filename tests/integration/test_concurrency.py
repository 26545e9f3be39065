"""Nothing lost under concurrent load: several sessions fire many events at once without waiting; every
client event is answered (its success event or an ``error`` echoing its ``event_id``), and each session's
answers arrive in the order its events were sent."""

from __future__ import annotations

import asyncio
import base64
import json
import random

import aiohttp
import pytest

pytestmark = pytest.mark.models
SESSIONS = 6
EVENTS_PER_SESSION = 300
SILENCE = base64.b64encode(bytes(48 * 20)).decode()


def plan(session: int, rng: random.Random) -> tuple[list[dict], list[tuple[str, str | None]]]:
    """Events to send, and the answers expected in order: (event type, the id or value it carries)."""
    events: list[dict] = []
    expected: list[tuple[str, str | None]] = []
    items: list[str] = []
    for n in range(EVENTS_PER_SESSION):
        eid = f"s{session}-e{n}"
        roll = rng.random()
        if roll < 0.25:
            events.append({"type": "input_audio_buffer.append", "audio": SILENCE, "event_id": eid})
        elif roll < 0.45:
            item_id = f"s{session}_item{n}"
            items.append(item_id)
            item = {
                "id": item_id,
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"note {n}"}],
            }
            events.append({"type": "conversation.item.create", "item": item, "event_id": eid})
            expected += [("conversation.item.added", item_id), ("conversation.item.done", item_id)]
        elif roll < 0.55 and items:
            item_id = items.pop(rng.randrange(len(items)))
            events.append({"type": "conversation.item.delete", "item_id": item_id, "event_id": eid})
            expected.append(("conversation.item.deleted", item_id))
        elif roll < 0.65 and items:
            item_id = rng.choice(items)
            events.append({"type": "conversation.item.retrieve", "item_id": item_id, "event_id": eid})
            expected.append(("conversation.item.retrieved", item_id))
        elif roll < 0.75:
            instructions = f"instructions {eid}"
            events.append(
                {
                    "type": "session.update",
                    "session": {"type": "realtime", "instructions": instructions},
                    "event_id": eid,
                }
            )
            expected.append(("session.updated", instructions))
        elif roll < 0.8:
            events.append({"type": "input_audio_buffer.clear", "event_id": eid})
            expected.append(("input_audio_buffer.cleared", None))
        else:
            bad = rng.choice(
                [
                    {"type": "conversation.item.retrieve", "item_id": "missing"},
                    {"type": "response.cancel"},
                    {"type": "nope"},
                    {"type": "input_audio_buffer.append", "audio": "%%"},
                    {"type": "session.update", "session": {"type": "realtime", "bogus": 1}},
                ]
            )
            events.append({**bad, "event_id": eid})
            expected.append(("error", eid))
    return events, expected


def answer_of(event: dict) -> tuple[str, str | None] | None:
    kind = event["type"]
    if kind == "error":
        return kind, event["error"]["event_id"]
    if kind in ("conversation.item.added", "conversation.item.done", "conversation.item.retrieved"):
        return kind, event["item"]["id"]
    if kind == "conversation.item.deleted":
        return kind, event["item_id"]
    if kind == "session.updated":
        return kind, event["session"]["instructions"]
    if kind == "input_audio_buffer.cleared":
        return kind, None
    return None


async def run_session(http: aiohttp.ClientSession, url: str, session: int) -> None:
    events, expected = plan(session, random.Random(session))
    async with http.ws_connect(url, headers={"Authorization": "Bearer sk-load"}, max_msg_size=0) as ws:
        first = json.loads((await ws.receive(timeout=10)).data)
        assert first["type"] == "session.created"
        for event in events:  # all at once, no waiting for answers
            await ws.send_str(json.dumps(event))
        answers: list[tuple[str, str | None]] = []
        async with asyncio.timeout(60):
            while len(answers) < len(expected):
                answer = answer_of(json.loads((await ws.receive()).data))
                if answer is not None:
                    answers.append(answer)
    assert answers == expected, (
        f"session {session}: first difference at {first_difference(answers, expected)}"
    )


def first_difference(got: list, want: list) -> str:
    for n, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"#{n}: got {a}, expected {b}"
    return f"lengths {len(got)} vs {len(want)}"


async def test_concurrent_sessions_lose_nothing_and_keep_order(engine):
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(run_session(http, eng.realtime, n) for n in range(SESSIONS)))
    await eng.wait_until_idle()
