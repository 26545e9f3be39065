"""Realtime translation sessions with the real models (webrtcvad, whisper tiny.en, piper), openai-python's
``client.realtime.translations.connect`` as the client: recorded speech in, the spoken words out as input
and output transcript deltas, piper's PCM16 as output audio, elapsed_ms in 200 ms steps, session.close
flushing a phrase cut short, and a seeded session repeating its events and audio bytes."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from openai import AsyncOpenAI

from mockengine.realtime.translation import FRAME_BYTES
from tests.speech import DATA, load_wav_24k, word_error_rate

pytestmark = pytest.mark.models

SILENCE_MS = 1000
CLIPS = [
    ("01_my_favourite_colour_is_blue.wav", "blue"),
    ("09_the_meeting_starts_at_ten.wav", "meeting"),
    ("10_i_would_like_some_coffee.wav", "coffee"),
]


def _client(base: str) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base)


def clip(name: str) -> bytes:
    return load_wav_24k(DATA / "utterances" / name)


async def translate(
    base: str, pcm: bytes, *, seed: int | None = None, chunk_bytes: int = FRAME_BYTES
) -> list[dict]:
    """Stream ``pcm`` (in ``chunk_bytes`` appends), close, and return every event up to session.closed."""
    query = {} if seed is None else {"seed": str(seed)}
    events: list[dict[str, Any]] = []
    async with (
        _client(base) as client,
        client.realtime.translations.connect(model="gpt-realtime-translate", extra_query=query) as conn,
    ):
        await conn.send(
            {
                "type": "session.update",
                "session": {"audio": {"input": {"transcription": {"model": "gpt-realtime-whisper"}}}},
            }
        )
        for start in range(0, len(pcm), chunk_bytes):
            audio = base64.b64encode(pcm[start : start + chunk_bytes]).decode()
            await conn.send({"type": "session.input_audio_buffer.append", "audio": audio})
        await conn.send({"type": "session.close"})
        async for event in conn:
            events.append(event.model_dump(exclude_unset=True))
            if event.type == "session.closed":
                break
    return events


def text_of(events: list[dict], kind: str) -> str:
    return "".join(e["delta"] for e in events if e["type"] == kind)


@pytest.mark.parametrize(("name", "word"), CLIPS)
async def test_spoken_words_come_back_as_transcripts_and_speech(engine, name, word) -> None:
    eng = await engine()
    spoken = name[3:-4].replace("_", " ")
    events = await translate(eng.url, bytes(48 * 400) + clip(name) + bytes(48 * SILENCE_MS))
    assert events[-1]["type"] == "session.closed"
    assert not [e for e in events if e["type"] == "error"]
    heard, said = (
        text_of(events, "session.input_transcript.delta"),
        text_of(events, "session.output_transcript.delta"),
    )
    assert word in heard.lower() and word in said.lower()
    assert word_error_rate(spoken, said) <= 0.5  # the clip names hold the first 6 words
    assert heard == said  # identity "translation"
    assert not heard.startswith(" ") and "  " not in heard  # append-only, no spaces to insert
    audio = [base64.b64decode(e["delta"]) for e in events if e["type"] == "session.output_audio.delta"]
    pcm = b"".join(audio)
    assert len(pcm) > 24_000 and len(pcm) % 2 == 0  # more than half a second of PCM16
    assert (
        max(abs(int.from_bytes(pcm[i : i + 2], "little", signed=True)) for i in range(0, len(pcm), 200))
        > 1000
    )
    elapsed = [e["elapsed_ms"] for e in events if "elapsed_ms" in e]
    assert all(ms % 200 == 0 for ms in elapsed) and elapsed == sorted(elapsed)
    audio_ms = [e["elapsed_ms"] for e in events if e["type"] == "session.output_audio.delta"]
    assert [b - a for a, b in zip(audio_ms, audio_ms[1:], strict=False)] == [200] * (len(audio_ms) - 1)
    # the output starts once the phrase has ended: after the speech, within the pause that ends it
    speech_end_ms = 400 + len(clip(name)) // 48
    assert speech_end_ms <= audio_ms[0] <= speech_end_ms + 1000


async def test_close_flushes_a_phrase_cut_short(engine) -> None:
    eng = await engine()
    events = await translate(eng.url, clip("10_i_would_like_some_coffee.wav"), chunk_bytes=4800)  # no pause
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "session.closed" and "session.output_audio.delta" in kinds
    assert "coffee" in text_of(events, "session.output_transcript.delta").lower()


async def test_two_phrases_stream_as_one_transcript(engine) -> None:
    eng = await engine()
    pcm = clip("01_my_favourite_colour_is_blue.wav") + bytes(48 * SILENCE_MS)
    pcm += clip("10_i_would_like_some_coffee.wav") + bytes(48 * SILENCE_MS)
    said = text_of(await translate(eng.url, pcm), "session.output_transcript.delta")
    assert "blue" in said.lower() and "coffee" in said.lower()
    assert "blue. I" in said or "blue I" in said  # the second phrase's first word brings its space


async def test_a_seeded_session_repeats_its_events_and_audio_bytes(engine) -> None:
    eng = await engine()
    pcm = clip("09_the_meeting_starts_at_ten.wav") + bytes(48 * SILENCE_MS)
    runs = [await translate(eng.url, pcm, seed=5) for _ in range(2)]
    strip = [[{k: v for k, v in e.items() if k != "session"} for e in run] for run in runs]
    assert strip[0] == strip[1]
    assert any(e["type"] == "session.output_audio.delta" for e in strip[0])


async def test_webrtc_translation_call_speaks_on_the_track(engine) -> None:
    """The guide's browser flow: a translation secret, the offer posted to
    /v1/realtime/translations/calls, the microphone as a track, events on oai-events, speech back on
    the remote track (no session.output_audio.delta on the channel)."""
    from tests.webrtc_client import CallClient

    eng = await engine()
    async with _client(eng.url) as server_side:
        secret = await server_side.realtime.translations.client_secrets.create(
            session={
                "model": "gpt-realtime-translate",
                "audio": {"input": {"transcription": {"model": "gpt-realtime-whisper"}}},
            }
        )
    client = CallClient()
    try:
        await client.connect(
            eng.http_url,
            secret.value,
            path="/v1/realtime/translations/calls",
            session={"audio": {"output": {"language": "de"}}},
        )
        created = await client.wait_for("session.created")
        assert created["session"]["type"] == "translation"
        assert created["session"]["audio"]["output"]["language"] == "de"
        assert created["session"]["audio"]["input"]["transcription"] == {"model": "gpt-realtime-whisper"}
        client.mic.say(clip("10_i_would_like_some_coffee.wav") + bytes(48 * SILENCE_MS))
        await client.wait_for("session.output_transcript.delta", timeout_s=30)
        while "coffee" not in text_of(client.events, "session.output_transcript.delta").lower():
            await client.wait_for("session.output_transcript.delta", after=len(client.events), timeout_s=30)
        client.send({"type": "response.create"})
        error = await client.wait_for("error")
        assert error["error"]["param"] == "type"
        client.send({"type": "session.close"})
        await client.wait_for("session.closed", timeout_s=30)
        assert "coffee" in text_of(client.events, "session.input_transcript.delta").lower()
        assert "session.output_audio.delta" not in client.kinds()
        elapsed = [e["elapsed_ms"] for e in client.events if "elapsed_ms" in e]
        assert all(ms % 200 == 0 for ms in elapsed) and elapsed == sorted(elapsed)
        for _ in range(100):  # the track plays the speech at real-time pace
            if client.voiced_bytes > 48 * 500:
                break
            await asyncio.sleep(0.1)
        assert client.voiced_bytes > 48 * 500  # more than half a second of voiced audio heard
    finally:
        await client.close()


async def test_a_media_stall_on_a_translation_call_ends_the_phrase_being_spoken(engine) -> None:
    """``media_stall`` loses the microphone's packets, and the session hears what a voice-agent call's
    does: silence in real time, so the phrase being spoken when the stall came ends after its pause
    and is transcribed and translated, with no more audio from the client and no ``session.close``. (The
    translation call ignored its microphone outright: the open phrase waited for the rest of the call.)"""
    from tests.webrtc_client import CallClient

    eng = await engine()
    client = CallClient()
    loop = asyncio.get_running_loop()
    try:
        await client.connect(
            eng.http_url,
            path="/v1/realtime/translations/calls",
            query="?fault=media_stall:5000",
            session={"audio": {"input": {"transcription": {"model": "gpt-realtime-whisper"}}}},
        )
        opened_by = loop.time()  # the call opened before this: the stall is due by opened_by + 5.1 s
        await client.wait_for("session.created")
        await asyncio.sleep(max(0.0, opened_by + 2.4 - loop.time()))
        coffee = clip("10_i_would_like_some_coffee.wav")  # 2.2 s: the stall cuts its second saying
        client.mic.say(coffee + coffee)
        await client.wait_for("session.input_transcript.delta", timeout_s=15)
        while "coffee" not in text_of(client.events, "session.input_transcript.delta").lower():
            await client.wait_for("session.input_transcript.delta", after=len(client.events), timeout_s=10)
        heard_s = loop.time() - opened_by
        assert client.pc.connectionState == "connected" and client.channel.readyState == "open"
        assert "session.closed" not in client.kinds()
    finally:
        await client.close()
    assert heard_s < 14, heard_s  # the stall (5 s), its 600 ms pause, whisper on a loaded machine
