"""Audio in Chat Completions with the real models: the reply the ``openai`` SDK gets back is piper's
speech of its transcript (whisper hears the transcript's words in it), and a spoken question (espeak-ng
speech, not the engine's voice) sent as ``input_audio`` is answered from its words."""

from __future__ import annotations

import base64
import io
import wave

import av
import numpy as np
import pytest
from openai import AsyncOpenAI

from mockengine.chat.audio import decode_input_audio
from tests.speech import DATA, load_wav_24k, word_error_rate

pytestmark = pytest.mark.models
QUESTION_TEXT = "What is the capital of France?"
HELLO = [{"role": "user", "content": "Hello, how are you today?"}]


@pytest.fixture
async def client(engine_url) -> AsyncOpenAI:
    base = (await engine_url()).replace("ws://", "http://")
    return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)


def heard(real_resources, pcm16_24k: bytes) -> str:
    return str(real_resources.transcriber.transcribe(pcm16_24k).text)


def plausible_seconds(transcript: str) -> tuple[float, float]:
    """Speech runs at roughly 10–25 characters a second."""
    return len(transcript) / 25, len(transcript) / 10 + 1


async def test_the_spoken_reply_says_its_transcript(client, real_resources):
    completion = await client.chat.completions.create(
        model="gpt-4o-audio-preview",
        modalities=["text", "audio"],
        audio={"voice": "alloy", "format": "wav"},
        messages=HELLO,
    )
    audio = completion.choices[0].message.audio
    with wave.open(io.BytesIO(base64.b64decode(audio.data)), "rb") as handle:
        assert (handle.getnchannels(), handle.getsampwidth(), handle.getframerate()) == (1, 2, 24_000)
        pcm16 = handle.readframes(handle.getnframes())
    low, high = plausible_seconds(audio.transcript)
    assert low < len(pcm16) / 48_000 < high
    assert np.abs(np.frombuffer(pcm16, "<i2")).max() > 3000, "speech, not silence"
    assert word_error_rate(audio.transcript, heard(real_resources, pcm16)) <= 0.25


async def test_streamed_pcm16_pieces_are_the_speech(client, real_resources):
    stream = await client.chat.completions.create(
        model="gpt-audio",
        modalities=["text", "audio"],
        audio={"voice": "coral", "format": "pcm16"},
        messages=HELLO,
        stream=True,
    )
    pieces: list[bytes] = []
    transcript = ""
    async for chunk in stream:
        audio = chunk.choices[0].delta.audio if chunk.choices else None
        if audio is not None:
            pieces.extend([base64.b64decode(audio.data)] if audio.data else [])
            transcript += audio.transcript or ""
    pcm16 = b"".join(pieces)
    assert len(pieces) > 1 and all(len(p) % 2 == 0 for p in pieces)
    low, high = plausible_seconds(transcript)
    assert low < len(pcm16) / 48_000 < high
    assert word_error_rate(transcript, heard(real_resources, pcm16)) <= 0.25


async def test_an_mp3_reply_decodes_to_the_speech(client, real_resources):
    completion = await client.chat.completions.create(
        model="gpt-audio-mini",
        modalities=["text", "audio"],
        audio={"voice": "verse", "format": "mp3"},
        messages=HELLO,
    )
    audio = completion.choices[0].message.audio
    pcm16 = decode_input_audio(audio.data, "mp3")
    assert word_error_rate(audio.transcript, heard(real_resources, pcm16)) <= 0.25


def question_as(fmt: str) -> str:
    """tests/data/question.wav as base64 ``wav`` (the file) or ``mp3`` (encoded here with PyAV)."""
    if fmt == "wav":
        return base64.b64encode((DATA / "question.wav").read_bytes()).decode()
    samples = np.frombuffer(load_wav_24k(DATA / "question.wav"), "<i2").reshape(1, -1)
    out = io.BytesIO()
    with av.open(out, "w", format="mp3") as container:
        stream = container.add_stream("libmp3lame", rate=24_000, layout="mono")
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = 24_000
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            container.mux(packet)
    return base64.b64encode(out.getvalue()).decode()


@pytest.mark.parametrize("fmt", ["wav", "mp3"])
async def test_a_spoken_question_is_answered_from_its_words(client, fmt):
    """The same seed answers the recorded question as it answers the question typed."""
    spoken = {"type": "input_audio", "input_audio": {"data": question_as(fmt), "format": fmt}}
    asked = {"model": "gpt-4o-audio-preview", "seed": 7}
    by_voice = await client.chat.completions.create(
        **asked,
        modalities=["text", "audio"],
        audio={"voice": "alloy", "format": "wav"},
        messages=[{"role": "user", "content": [spoken]}],
    )
    typed = await client.chat.completions.create(
        **asked,
        modalities=["text", "audio"],
        audio={"voice": "alloy", "format": "wav"},
        messages=[{"role": "user", "content": QUESTION_TEXT}],
    )
    answer = by_voice.choices[0].message.audio.transcript
    assert "Paris" in answer and answer == typed.choices[0].message.audio.transcript
    assert by_voice.usage.prompt_tokens_details.audio_tokens == 33  # 3.247 s at 100 ms a token
