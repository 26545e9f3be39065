"""A telephone bridge written as the Twilio samples write it (tests/phone_bridge.py), pointed at the engine
with only the URL changed, and a fake phone feeding it a spoken question as 20 ms G.711 frames at
real-time pace: what such a bridge depends on. The reference samples are
twilio-samples/speech-assistant-openai-realtime-api-python (main.py @d70e251) and its Node twin
(index.js @e0b6f63); openai/openai-realtime-twilio-demo speaks the beta protocol only (docs/
client-compatibility.md)."""

from __future__ import annotations

import asyncio
import base64
import io
import math
import time
import wave
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import numpy as np
import pytest
from openai import AsyncOpenAI

from mockengine.audio.g711 import alaw_to_pcm16, ulaw_to_pcm16
from tests.phone_bridge import GREETING, SYSTEM_MESSAGE, Bridge, Phone, g711_of, sample_session_update
from tests.speech import DATA, load_wav_24k, validate_server_event, word_error_rate

pytestmark = pytest.mark.models
QUESTION = "What is the capital of France?"
# The samples' URL: the Python one adds temperature and voice as query parameters.
QUERY = "?model=gpt-realtime&temperature=0.8&voice=alloy"


@asynccontextmanager
async def call(
    eng: Any, format_type: str, session: dict[str, Any] | None = None, *, clamp_truncate: bool = True
) -> AsyncIterator[Bridge]:
    """A bridge connected as the samples connect, its session set up, relaying for a fake phone; no
    `error` on the call (but with ``clamp_truncate=False``, where the test looks at them itself)."""
    phone = Phone(format_type)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{eng.url}/realtime{QUERY}", headers={"Authorization": "Bearer sk-phone"}) as ws,
    ):
        bridge = Bridge(phone, ws, clamp_truncate=clamp_truncate)
        await bridge.send(session or sample_session_update(format_type))
        tasks = [
            asyncio.create_task(bridge.receive_from_phone()),
            asyncio.create_task(bridge.send_to_phone()),
        ]
        try:
            yield bridge
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    for event in bridge.events:
        validate_server_event(event)
    if clamp_truncate:
        assert bridge.of_type("error") == []


def decoded(g711: bytes, format_type: str) -> np.ndarray:
    pcm = ulaw_to_pcm16(g711) if format_type == "audio/pcmu" else alaw_to_pcm16(g711)
    return np.frombuffer(pcm, "<i2")


async def heard(eng: Any, g711: bytes, format_type: str) -> str:
    """What whisper (the engine's transcription endpoint) hears in G.711 audio, sent as an 8 kHz WAV."""
    wav = io.BytesIO()
    with wave.open(wav, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(decoded(g711, format_type).tobytes())
    async with AsyncOpenAI(api_key="sk-phone", base_url=f"{eng.http_url}/v1") as client:
        result = await client.audio.transcriptions.create(
            model="whisper-1", file=("reply.wav", wav.getvalue())
        )
    return result.text


def reply_audio(bridge: Bridge, response_id: str) -> bytes:
    return b"".join(
        base64.b64decode(e["delta"])
        for e in bridge.of_type("response.output_audio.delta")
        if e["response_id"] == response_id
    )


@pytest.mark.parametrize("format_type", ["audio/pcmu", "audio/pcma"])
async def test_a_caller_is_answered_in_g711(engine, format_type) -> None:
    eng = await engine()
    session = sample_session_update(format_type)
    if format_type == "audio/pcma":  # as openai-realtime-twilio-demo asks (its beta config, in GA words)
        session["session"]["audio"]["input"]["transcription"] = {"model": "whisper-1"}
    async with call(eng, format_type, session) as bridge:
        bridge.phone.say(g711_of(load_wav_24k(DATA / "question.wav"), format_type), at_ms=400)
        await bridge.phone.run(
            lambda: (
                bool(bridge.of_type("response.done")) and not bridge.phone.unplayed and not bridge.mark_queue
            )
        )
        if format_type == "audio/pcma":
            await asyncio.wait_for(
                _until(lambda: bridge.of_type("conversation.item.input_audio_transcription.completed")), 30
            )

    # session.updated echoes the formats as given, and the rest of the samples' config
    updated = bridge.of_type("session.updated")[0]["session"]
    assert updated["audio"]["input"]["format"] == {"type": format_type}
    assert updated["audio"]["output"]["format"] == {"type": format_type}
    assert updated["audio"]["output"]["voice"] == "alloy"
    assert updated["audio"]["input"]["turn_detection"]["type"] == "server_vad"
    assert updated["output_modalities"] == ["audio"] and updated["instructions"] == SYSTEM_MESSAGE
    assert updated["model"] == "gpt-realtime"

    # the events the samples log, in the order a spoken turn has them
    logged = [
        e["type"]
        for e in bridge.events
        if e["type"].startswith("input_audio_buffer.")
        or e["type"] in ("response.done", "rate_limits.updated")
    ]
    assert logged == [
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "response.done",
        "rate_limits.updated",
    ]
    started = bridge.of_type("input_audio_buffer.speech_started")[0]
    assert 400 + 500 - 300 - 40 <= started["audio_start_ms"] <= 400 + 500 - 300 + 40  # speech 500 ms in

    done = bridge.of_type("response.done")[0]["response"]
    assert done["status"] == "completed"
    assert done["audio"]["output"]["format"] == {"type": format_type}
    audio = reply_audio(bridge, done["id"])
    deltas = [e for e in bridge.of_type("response.output_audio.delta") if e["response_id"] == done["id"]]
    assert all(0 < len(base64.b64decode(e["delta"])) <= 2000 * 8 for e in deltas)
    # the reply is speech at 8 kHz, as long as the usage counts it (one output audio token per 50 ms)
    usage = done["usage"]
    assert usage["output_token_details"]["audio_tokens"] == math.ceil(len(audio) / 8 / 50)
    assert usage["input_token_details"]["audio_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    samples = decoded(audio, format_type).astype(float)
    assert np.sqrt(np.mean(samples**2)) > 500  # not line silence
    transcript = bridge.of_type("response.output_audio_transcript.done")[0]["transcript"]
    assert "capital" in transcript  # whisper tiny.en hears the 8 kHz question as "capital o… France/friends"
    assert word_error_rate(transcript, await heard(eng, audio, format_type)) <= 0.35

    # the phone played all of it and acknowledged every mark
    assert bytes(bridge.phone.played).endswith(audio) and bridge.mark_queue == []
    if format_type == "audio/pcma":
        user_words = bridge.of_type("conversation.item.input_audio_transcription.completed")[0]["transcript"]
        assert word_error_rate(QUESTION, user_words) <= 0.4, user_words


async def _until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("audio_pace", [1.0, 3.0])
async def test_ai_speaks_first_and_the_caller_barges_in(engine, audio_pace) -> None:
    """The samples' "AI speaks first" greeting, then the caller talks over it: speech_started, the
    bridge's clear and its truncate at the elapsed line time since the greeting's first delta. At pace 1
    the greeting is still being written when the caller speaks (the engine cancels it, turn_detected);
    at 3, 5 s in, it was (on a machine that is not too loaded) written already, and only the truncate
    cuts it."""
    eng = await engine(audio_pace=audio_pace)
    async with call(eng, "audio/pcmu") as bridge:
        await bridge.greet()
        await bridge.phone.run(lambda: bool(bridge.phone.played.strip(b"\xff")), max_ms=20_000)
        speaks_at_ms = bridge.phone.timestamp_ms + (2_000 if audio_pace == 1.0 else 4_500)
        # The caller speaks over the greeting once 2 s of it reached the phone (a loaded machine
        # synthesises it slower than the line runs), and from the first word the phone plays no more: a
        # mark pends when speech_started comes, so the samples truncate. Playing on, a phone that ran dry
        # between two synthesised sentences had acknowledged every mark and the samples cut nothing (a
        # flake under load; "nothing to cut" is the samples' own choice, not what this test is about).
        await bridge.phone.run(
            lambda: bridge.phone.timestamp_ms >= speaks_at_ms and bridge.received_bytes >= 2_100 * 8,
            max_ms=30_000,
        )
        bridge.phone.playing = False
        question = g711_of(load_wav_24k(DATA / "question.wav"), "audio/pcmu")
        bridge.phone.say(question, at_ms=bridge.phone.timestamp_ms)
        await bridge.phone.run(lambda: len(bridge.of_type("response.done")) == 2, max_ms=60_000)

    greeting, answer = bridge.of_type("response.done")
    first_transcript = bridge.of_type("response.output_audio_transcript.done")[0]["transcript"]
    # the quoted greeting, up to where a cancel cut it
    assert first_transcript.startswith("Hello there!") and GREETING.split("'")[1].startswith(first_transcript)
    item_id = greeting["response"]["output"][0]["id"]
    truncate = next(e for e in bridge.sent if e["type"] == "conversation.item.truncate")
    truncated = bridge.of_type("conversation.item.truncated")[0]
    assert truncate["item_id"] == truncated["item_id"] == item_id
    assert truncated["audio_end_ms"] == truncate["audio_end_ms"] > 2_000
    assert bridge.phone.clears == 1 and bridge.phone.dropped_bytes > 0
    started = bridge.of_type("input_audio_buffer.speech_started")[0]
    assert bridge.events.index(started) < bridge.events.index(truncated)
    if audio_pace == 1.0 or greeting["response"]["status"] != "completed":
        assert greeting["response"]["status"] == "cancelled"
        assert greeting["response"]["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    assert answer["response"]["status"] == "completed"
    assert "capital" in answer["response"]["output"][0]["content"][0]["transcript"]


@pytest.mark.parametrize("clamp_truncate", [True, False], ids=["clamped", "as-the-samples"])
async def test_a_barge_in_after_the_reply_fell_behind_the_line_clock(engine, clamp_truncate) -> None:
    """A loaded machine starves the engine's real-time reply pacing: the audio sent falls behind the line
    clock (the pacing catches up at most 50 ms after a stall, streaming.py: a stall does not become a
    burst), so the samples' "elapsed time" asks for a cut past the audio the item holds. Here the
    whole process stalls 1.5 s (a blocking call: the engine, bridge and phone share one event loop) 400 ms
    into the greeting; the phone's line clock then catches up, the reply's audio does not: 1.45 s behind,
    which dwarfs a loaded machine's own jitter. The phone plays nothing from the stall on, so a mark is
    pending when the caller speaks (the samples truncate only then) however slowly a loaded machine
    synthesizes the greeting: the phone running dry is not what this test is about. The bridge,
    clamping to the audio it received, cuts at that and the call goes on without an error; the samples'
    unclamped truncate gets the service's `invalid_value` (the CI flake this reproduces)."""
    eng = await engine(audio_pace=1.0)
    async with call(eng, "audio/pcmu", clamp_truncate=clamp_truncate) as bridge:
        await bridge.greet()
        await bridge.phone.run(lambda: bool(bridge.phone.played.strip(b"\xff")), max_ms=20_000)
        # the machine starves: no task runs for 1.5 s, then the phone's line clock catches up
        asyncio.get_running_loop().call_later(0.4, time.sleep, 1.5)
        bridge.phone.playing = False
        speaks_at_ms = bridge.phone.timestamp_ms + 3_500
        bridge.phone.say(g711_of(load_wav_24k(DATA / "question.wav"), "audio/pcmu"), at_ms=speaks_at_ms)
        if clamp_truncate:
            await bridge.phone.run(lambda: len(bridge.of_type("response.done")) == 2, max_ms=60_000)
        else:
            await bridge.phone.run(lambda: bool(bridge.of_type("error")), max_ms=30_000)

    item_id = bridge.of_type("response.done")[0]["response"]["output"][0]["id"]
    received_ms = bridge.received_bytes // 8 if not clamp_truncate else None
    truncate = next(e for e in bridge.sent if e["type"] == "conversation.item.truncate")
    (elapsed_ms,) = bridge.line_elapsed_ms
    greeting_ms = (
        sum(
            len(base64.b64decode(e["delta"]))
            for e in bridge.of_type("response.output_audio.delta")
            if e["item_id"] == item_id
        )
        // 8
    )
    # the lag reproduced: the line clock ran past all the greeting's audio, a stall's worth
    assert elapsed_ms > greeting_ms + 500, (elapsed_ms, greeting_ms)
    if clamp_truncate:
        truncated = bridge.of_type("conversation.item.truncated")[0]
        assert truncate["item_id"] == truncated["item_id"] == item_id
        assert truncated["audio_end_ms"] == truncate["audio_end_ms"] == greeting_ms
        assert bridge.phone.clears == 1 and bridge.phone.dropped_bytes > 0
        answer = bridge.of_type("response.done")[1]["response"]
        assert answer["status"] == "completed"
        assert "capital" in answer["output"][0]["content"][0]["transcript"]
    else:
        assert truncate["audio_end_ms"] == elapsed_ms and received_ms == greeting_ms
        (error,) = [e["error"] for e in bridge.of_type("error")]
        assert error["code"] == "invalid_value" and error["param"] == "audio_end_ms"
        assert error["message"] == f"Audio content of {greeting_ms}ms is already shorter than {elapsed_ms}ms"
        assert bridge.of_type("conversation.item.truncated") == []


async def test_the_cut_greeting_keeps_what_was_played(engine) -> None:
    """After the samples' truncate, the item holds the audio up to the cut and no transcript, so the
    reply to the interruption knows nothing the caller did not hear (reference §3.7)."""
    eng = await engine(audio_pace=1.0)
    async with call(eng, "audio/pcmu") as bridge:
        await bridge.greet()
        await bridge.phone.run(lambda: bool(bridge.phone.played.strip(b"\xff")), max_ms=20_000)
        bridge.phone.say(
            g711_of(load_wav_24k(DATA / "question.wav"), "audio/pcmu"), bridge.phone.timestamp_ms + 1_500
        )
        await bridge.phone.run(lambda: bool(bridge.of_type("conversation.item.truncated")), max_ms=30_000)
        truncated = bridge.of_type("conversation.item.truncated")[0]
        await bridge.send({"type": "conversation.item.retrieve", "item_id": truncated["item_id"]})
        await bridge.phone.run(lambda: bool(bridge.of_type("conversation.item.retrieved")), max_ms=60_000)
    content = bridge.of_type("conversation.item.retrieved")[0]["item"]["content"][0]
    assert content["transcript"] is None
    assert len(base64.b64decode(content["audio"])) == truncated["audio_end_ms"] * 8  # μ-law, 8 bytes a ms
