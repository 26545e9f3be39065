"""The OpenAI cookbook's out-of-band transcription ("Transcribing User Audio with a Separate Realtime
Request", examples/Realtime_out_of_band_transcription.ipynb) replayed over a real engine: its session
(server_vad with ``create_response``, input transcription for comparison), and after each user turn a
second ``response.create`` with ``conversation: "none"``, ``output_modalities: ["text"]``, ``metadata``
and its transcription prompt, sent on ``input_audio_buffer.committed`` (the whole conversation as input)
or on the user item's ``conversation.item.added`` (``input``: that item by reference). The notebook reads
the out-of-band text as the turn's transcript; the engine answered the question there instead."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp
import pytest

from tests.speech import question, validate_server_event

# The cookbook's REALTIME_MODEL_TRANSCRIPTION_PROMPT, its opening and its output rules.
TRANSCRIPTION_PROMPT = """
# Task: Verbatim Transcription of the Latest User Turn
You are a **strict transcription engine**. Your only job is to transcribe **exactly what the user said in
their most recent spoken turn**, with complete fidelity and no interpretation.
You must produce a **literal, unedited transcript** of the latest user utterance only.
## 6. Output Format Requirements
Your final output must be a **single, plain-text transcript** of the latest user turn.
"""
PURPOSE = {"purpose": "User turn transcription"}


def session_update() -> dict[str, Any]:
    """The notebook's ``build_session_update`` with its defaults."""
    turn_detection = {
        "type": "server_vad",
        "threshold": 0.6,
        "silence_duration_ms": 800,
        "prefix_padding_ms": 300,
        "create_response": True,
        "interrupt_response": True,
    }
    pcm = {"type": "audio/pcm", "rate": 24000}
    return {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "output_modalities": ["audio"],
            "instructions": "You are a calm, professional insurance claims intake voice agent.",
            "audio": {
                "input": {
                    "format": pcm,
                    "noise_reduction": {"type": "near_field"},
                    "turn_detection": turn_detection,
                    "transcription": {"model": "gpt-4o-transcribe"},
                },
                "output": {"format": pcm, "voice": "marin"},
            },
        },
    }


def transcription_request(item_ids: list[str] | None = None) -> dict[str, Any]:
    """The notebook's ``build_transcription_request``."""
    response: dict[str, Any] = {
        "conversation": "none",
        "output_modalities": ["text"],
        "metadata": PURPOSE,
        "instructions": TRANSCRIPTION_PROMPT,
    }
    if item_ids:
        response["input"] = [{"type": "item_reference", "id": item_id} for item_id in item_ids]
    return {"type": "response.create", "response": response}


async def events_until_both_done(ws: aiohttp.ClientWebSocketResponse, on_event: Any) -> list[dict[str, Any]]:
    """Every event until two ``response.done`` (the turn's reply and the out-of-band transcript)."""
    events: list[dict[str, Any]] = []
    while sum(e["type"] == "response.done" for e in events) < 2:
        event = json.loads((await ws.receive(timeout=60)).data)
        validate_server_event(event)
        events.append(event)
        await on_event(event)
    return events


def out_of_band(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The out-of-band response (by its metadata) and its text; checks it stayed out of the conversation."""
    assert [e for e in events if e["type"] == "error"] == []
    done = next(e["response"] for e in events if e["type"] == "response.done" and e["response"]["metadata"])
    assert done["metadata"] == PURPOSE and done["conversation_id"] is None and done["status"] == "completed"
    ids = {item["id"] for item in done["output"]}
    added = {e["item"]["id"] for e in events if e["type"] == "conversation.item.added"}
    assert not ids & added, "an out-of-band item was added to the conversation"
    return done, done["output"][0]["content"][0]["text"]


async def test_typed_turn_transcribed_out_of_band(engine) -> None:
    """A typed turn, answered in the conversation, and the out-of-band transcript of it: the user's
    words as typed (fake speech engines: no audio involved)."""
    eng = await engine()
    said = "Um, I had an auto accident yesterday, my policy number is 56B5-12C0."
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk"}) as ws,
    ):
        await ws.send_str(json.dumps(session_update()))
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        await ws.send_str(json.dumps({"type": "response.create"}))
        await ws.send_str(json.dumps(transcription_request()))

        async def nothing(_: dict[str, Any]) -> None:
            return None

        events = await events_until_both_done(ws, nothing)
    done, text = out_of_band(events)
    assert text == said
    assert done["output"][0]["type"] == "message" and done["output"][0]["role"] == "assistant"
    in_band = next(
        e["response"] for e in events if e["type"] == "response.done" and not e["response"]["metadata"]
    )
    assert in_band["conversation_id"] is not None and in_band["status"] == "completed"


@pytest.mark.models
@pytest.mark.parametrize("only_last_user_turn", [False, True])
async def test_spoken_turn_transcribed_out_of_band(engine, only_last_user_turn: bool) -> None:
    """The notebook's flow with speech: the out-of-band text is the turn's words (whisper's, as the input
    transcription has them), while the voice reply is the answer."""
    eng = await engine()
    pcm, _ = question()
    pcm += b"\0" * 48_000  # a second of silence after the question: server_vad ends the turn
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk"}) as ws,
    ):
        await ws.send_str(json.dumps(session_update()))

        async def microphone() -> None:
            for start in range(0, len(pcm), 4800):  # the notebook's 100 ms blocks
                chunk = base64.b64encode(pcm[start : start + 4800]).decode()
                await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
                await asyncio.sleep(0.02)

        async def on_event(event: dict[str, Any]) -> None:
            if not only_last_user_turn and event["type"] == "input_audio_buffer.committed":
                await ws.send_str(json.dumps(transcription_request()))
            added = event["type"] == "conversation.item.added" and event["item"].get("role") == "user"
            if only_last_user_turn and added:
                await ws.send_str(json.dumps(transcription_request([event["item"]["id"]])))

        sender = asyncio.create_task(microphone())
        events = await events_until_both_done(ws, on_event)
        await sender
    _, text = out_of_band(events)
    heard = next(e for e in events if e["type"] == "conversation.item.input_audio_transcription.completed")
    assert text == heard["transcript"] == "What is the capital of France?"
    spoken = next(e for e in events if e["type"] == "response.output_audio_transcript.done")
    assert "Paris" in spoken["transcript"]


async def test_out_of_band_announcement_says_the_dictated_words(engine) -> None:
    """An app announcing through an out-of-band response (public bridges send "Say exactly the following
    to the user in {language}, {tone} tone, and nothing else: {text}") hears its text, not an answer to
    the user's last words."""
    eng = await engine()
    text = "Your appointment is confirmed for Tuesday at 10."
    instructions = (
        f"Say exactly the following to the user in English, friendly tone, and nothing else: {text}"
    )
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk"}) as ws,
    ):
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Hello? Anyone?"}],
        }
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        response = {"conversation": "none", "output_modalities": ["audio"], "instructions": instructions}
        await ws.send_str(json.dumps({"type": "response.create", "response": response}))
        while True:
            event = json.loads((await ws.receive(timeout=60)).data)
            validate_server_event(event)
            assert event["type"] != "error", event
            if event["type"] == "response.done":
                break
    assert event["response"]["output"][0]["content"][0]["transcript"] == text
