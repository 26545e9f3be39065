"""Replaying typed turns, and a strict replay that stops in the middle of a response.

Recorded through ``mockengine record`` from an upstream engine (fake speech engines) on loopback, then
replayed by ``serve --replay``:

- a typed message's words are matched (whitespace runs aside): typed in another order, the replies
  followed the recording regardless (each user got the other's answer); now a fallback replay answers
  what was typed and a strict one refuses the message, naming both texts;
- a strict replay never leaves a response open: a ``response.create`` it cannot answer (a diverged
  turn, a turn after the recording's end) was an ``error`` alone while the openai SDK waited for
  ``response.done`` forever; a divergence in the middle of a recorded response, or a recording that
  stops in the middle of one, left that response open. Each now ends with ``response.done``
  (``failed``, the error in ``status_details``; a fallback's cancel: ``cancelled``), and nothing of
  the ended response follows it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from openai import AsyncOpenAI

from mockengine.conformance.audio import load_clips

UPSTREAM_KEY = "sk-upstream-0123456789"
NAME, AGE = "What is your name?", "How old are you?"


async def record(recording: Any, script: Any, **upstream: Any) -> Path:
    """``script(url)`` run through a recorder in front of an upstream engine (``upstream`` its settings):
    the recording's directory, once written."""
    rec = await recording(**upstream)
    await script(rec.realtime)
    await rec.written()
    return rec.out


def user_text(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


async def sdk_turns(base_url: str, texts: list[str]) -> list[list[Any]]:
    """The openai SDK as a user writes it: per typed text, item.create, response.create, then every event
    up to ``response.done``."""
    client = AsyncOpenAI(
        api_key="sk-client", base_url=base_url.replace("ws://", "http://"), websocket_base_url=base_url
    )
    turns = []
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        for n, text in enumerate(texts):
            await conn.conversation.item.create(item=user_text(text), event_id=f"evt_item_{n}")  # type: ignore[arg-type]
            await conn.response.create(event_id=f"evt_create_{n}")
            events = []
            while True:
                event = await asyncio.wait_for(conn.recv(), 30)  # a response that never ends: fail
                events.append(event)
                if event.type == "response.done":
                    break
            turns.append(events)
    return turns


def reply_text(events: list[Any]) -> str:
    return "".join(e.text for e in events if e.type == "response.output_text.done")


async def test_typed_words_are_matched_and_a_strict_mismatch_ends_its_response(engine, recording):

    async def script(url: str) -> None:
        await sdk_turns(url.split("/realtime")[0], [NAME, AGE])

    out = await record(recording, script)

    fallback = await engine(replay_dir=str(out), replay_speed=0.0)
    same = await sdk_turns(fallback.url, [NAME, "  How old\n are   you? "])  # whitespace runs aside: the same
    assert [e.response.status for t in same for e in t if e.type == "response.done"] == ["completed"] * 2
    recorded = [reply_text(t) for t in same]
    assert "name" in recorded[0] and "old" in recorded[1]
    swapped = await sdk_turns(fallback.url, [AGE, NAME])
    # the scripted participant answers what was typed (the replay gave the recorded NAME reply to AGE)
    assert [reply_text(t) for t in swapped] != recorded[:2]
    assert "old" in reply_text(swapped[0]) and "name" in reply_text(swapped[1])
    assert not [e for t in swapped for e in t if e.type == "error"]

    strict = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=True)
    first, second, extra = await sdk_turns(strict.url, [AGE, NAME, "Where do you live?"])
    errors = [e.error for e in first if e.type == "error"]
    assert [(e.code, e.event_id) for e in errors] == [
        ("replay_divergence", "evt_item_0"),
        ("replay_divergence", "evt_create_0"),
    ]
    assert (
        f"(message user: {NAME!r})" in errors[0].message
        and f"text {AGE!r}, not {NAME!r}" in errors[0].message
    )
    created, done = (e for e in first if e.type.startswith("response."))
    assert created.type == "response.created" and done.response.id == created.response.id
    assert done.response.status == "failed" and done.response.output == []
    assert done.response.status_details.error.code == "replay_divergence"
    assert reply_text(second) == recorded[0]  # the replay kept its place: the recorded first turn
    # after the recording's end: an error, and the response asked for fails rather than never ending
    assert [e.error.code for e in extra if e.type == "error"] == ["replay_divergence"] * 2
    assert [e.response.status for e in extra if e.type == "response.done"] == ["failed"]


async def frames(ws: aiohttp.ClientWebSocketResponse, until: Any) -> list[dict[str, Any]]:
    events = []
    while True:
        message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        events.append(json.loads(message.data))
        if until(events[-1]):
            return events


async def typed_turn(ws: aiohttp.ClientWebSocketResponse, text: str) -> None:
    await ws.send_json({"type": "conversation.item.create", "item": user_text(text)})
    await ws.send_json({"type": "response.create"})


def of_type(kind: str) -> Any:
    return lambda event: event["type"] == kind


@contextlib.asynccontextmanager
async def connected(url: str, key: str) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A raw WebSocket session at ``url`` (an engine's or the recording proxy's) with ``key``."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": f"Bearer {key}"}) as ws,
    ):
        yield ws


async def send_audio(ws: aiohttp.ClientWebSocketResponse, pcm: bytes) -> None:
    """``pcm`` (PCM16 24 kHz) in 200 ms appends, unpaced."""
    for start in range(0, len(pcm), 9600):
        chunk = base64.b64encode(pcm[start : start + 9600]).decode()
        await ws.send_json({"type": "input_audio_buffer.append", "audio": chunk})


async def record_one_typed_turn(recording: Any) -> Path:
    """A recording of one typed turn (NAME) and its whole reply."""

    async def script(url: str) -> None:
        async with connected(url, "sk-c") as ws:
            await typed_turn(ws, NAME)
            await frames(ws, of_type("response.done"))

    return await record(recording, script)


async def record_clear_mid_reply(recording: Any) -> Path:
    """A typed turn; the recorded client clears its input buffer while the spoken reply streams."""

    async def script(url: str) -> None:
        async with connected(url, "sk-c") as ws:
            await typed_turn(ws, NAME)
            await frames(ws, of_type("response.output_audio.delta"))
            await ws.send_json({"type": "input_audio_buffer.clear"})
            await frames(ws, of_type("response.done"))

    return await record(recording, script, audio_pace=1.0, first_delta_delay_ms=20)


async def test_a_divergence_in_the_middle_of_a_recorded_response_ends_it(engine, recording):
    """The live client cancels the reply where the recorded one cleared its input buffer."""
    out = await record_clear_mid_reply(recording)

    strict = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=True)
    async with connected(strict.realtime, "k") as ws:
        await typed_turn(ws, NAME)
        began = await frames(ws, of_type("response.output_audio.delta"))
        response_id = next(e for e in began if e["type"] == "response.created")["response"]["id"]
        await ws.send_json({"type": "response.cancel", "event_id": "evt_cancel"})
        ended = await frames(ws, of_type("response.done"))
        assert ended[0]["type"] == "error" and ended[0]["error"]["event_id"] == "evt_cancel"
        done = ended[-1]["response"]
        assert (done["id"], done["status"]) == (response_id, "failed")
        assert done["status_details"]["error"]["code"] == "replay_divergence"
        assert done["output"] and all(item["status"] == "incomplete" for item in done["output"])
        # what was expected still moves the replay on; the ended response's recorded rest is not sent
        await ws.send_json({"type": "input_audio_buffer.clear"})
        await ws.send_json({"type": "conversation.item.delete", "item_id": "nope", "event_id": "evt_end"})
        rest = await frames(ws, lambda e: e.get("error", {}).get("event_id") == "evt_end")
        assert "input_audio_buffer.cleared" in [e["type"] for e in rest]
        assert [e for e in rest if e.get("response_id") == response_id or "response" in e] == []

    fallback = await engine(replay_dir=str(out), replay_speed=0.0)
    async with connected(fallback.realtime, "k") as ws:
        await typed_turn(ws, NAME)
        await frames(ws, of_type("response.output_audio.delta"))
        await ws.send_json({"type": "response.cancel"})
        ended = await frames(ws, of_type("response.done"))
        assert [e["type"] for e in ended if e["type"] == "error"] == []
        assert ended[-1]["response"]["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
        await typed_turn(ws, AGE)  # the scripted participant from here on
        after = await frames(ws, of_type("response.done"))
        assert after[-1]["response"]["status"] == "completed"
        assert [e for e in after if e["type"] == "error"] == []


async def test_a_recording_that_stops_in_the_middle_of_a_response_ends_it(engine, recording):
    """A recording cut after a reply's first delta (the recorder stopped, the file was cut)."""

    out = await record_one_typed_turn(recording)
    events_file = out / "realtime-0001" / "events.jsonl"
    lines = events_file.read_text().splitlines()
    first_delta = next(n for n, line in enumerate(lines) if '"response.output_audio.delta"' in line)
    events_file.write_text("\n".join(lines[: first_delta + 1]) + "\n")

    for strict in (True, False):
        replay = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=strict)
        async with connected(replay.realtime, "k") as ws:
            await typed_turn(ws, NAME)
            events = await frames(ws, of_type("response.done"))
            errors = [e["error"] for e in events if e["type"] == "error"]
            assert [e["code"] for e in errors] == (["replay_divergence"] if strict else [])
            done = events[-1]["response"]
            assert (
                done["status"] == "failed" and done["status_details"]["error"]["code"] == "replay_divergence"
            )
            assert "stops in the middle of that response" in done["status_details"]["error"]["message"]
            if not strict:  # the scripted participant carries the session on
                await typed_turn(ws, AGE)
                assert (await frames(ws, of_type("response.done")))[-1]["response"]["status"] == "completed"


async def test_a_spoken_turn_a_strict_replay_cannot_answer_gets_a_failed_response(engine, recording):
    """The recording holds a typed turn; the live client speaks instead, with server_vad (which creates
    a response at the turn's end). The engine's VAD finds the turn, a divergence; the response the
    client's turn detection asks for was never sent, nor its end."""

    out = await record_one_typed_turn(recording)
    replay = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=True)
    pcm = load_clips()["question"].pcm + bytes(24 * 2 * 1500)  # the question, then 1.5 s of silence
    async with connected(replay.realtime, "k") as ws:
        await send_audio(ws, pcm)
        events = await frames(ws, of_type("response.done"))
    errors = [e["error"] for e in events if e["type"] == "error"]
    assert len(errors) == 2 and "input_audio_buffer.speech_stopped" in errors[1]["message"]
    assert [e["type"] for e in events[-2:]] == ["response.created", "response.done"]
    assert events[-1]["response"]["status"] == "failed"


async def test_a_barge_in_during_a_recorded_reply_cancels_it_and_the_participant_answers(engine, recording):
    """Without --replay-strict, the live client speaks over the recorded reply (server_vad, which
    interrupts): the replay falls back, and the recorded reply ends as the engine ends one a user
    speaks over, ``cancelled`` / ``turn_detected`` after the live ``speech_started``; the participant
    answers the spoken turn. Before, the recorded reply was never ended."""
    out = await record_clear_mid_reply(recording)
    replay = await engine(replay_dir=str(out), replay_speed=0.0)
    pcm = load_clips()["question"].pcm + bytes(24 * 2 * 1500)
    async with connected(replay.realtime, "k") as ws:
        await typed_turn(ws, NAME)
        began = await frames(ws, of_type("response.output_audio.delta"))
        recorded_id = next(e for e in began if e["type"] == "response.created")["response"]["id"]
        await send_audio(ws, pcm)
        events = await frames(
            ws, lambda e: e["type"] == "response.done" and e["response"]["id"] != recorded_id
        )
    kinds = [e["type"] for e in events]
    ended = next(e for e in events if e["type"] == "response.done")
    assert ended["response"]["id"] == recorded_id
    assert ended["response"]["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    assert kinds.index("input_audio_buffer.speech_started") < events.index(ended)
    assert events[-1]["response"]["status"] == "completed" and "error" not in kinds
