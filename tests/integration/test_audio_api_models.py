"""The audio REST endpoints with the real models, through the official ``openai`` SDK: a spoken question
(espeak-ng speech, not the engine's voice) is transcribed by the engine's whisper with real word
timings, and what ``/v1/audio/speech`` says (piper) is heard back by ``/v1/audio/transcriptions`` as its
input words, in each container the SDK asks for."""

from __future__ import annotations

import pytest
from openai import AsyncOpenAI

from tests.speech import DATA, word_error_rate

pytestmark = pytest.mark.models
QUESTION_TEXT = "What is the capital of France?"
SPOKEN = "The quick brown fox jumps over the lazy dog."


@pytest.fixture
async def client(engine_url) -> AsyncOpenAI:
    base = (await engine_url()).replace("ws://", "http://")
    return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)


async def test_a_spoken_question_is_transcribed_with_word_timings(client):
    result = await client.audio.transcriptions.create(
        model="whisper-1",
        file=DATA / "question.wav",
        response_format="verbose_json",
        timestamp_granularities=["word"],
    )
    assert word_error_rate(QUESTION_TEXT, result.text) <= 0.2
    words = result.words
    assert [w.word for w in words] == result.text.split()
    # question.json: the speech runs from 0.5 s to 2.247 s of the 3.247 s file (whisper's alignment
    # starts the first word at the start of the audio). Whisper's own timings, not the words spread
    # over the whole file, which would end the last at 3.25 s: its alignment makes "?" a word of its
    # own, which joins "France" as the text writes it.
    assert words[0].end <= 1.0 and 1.8 <= words[-1].end <= 2.8
    assert all(a.start <= b.start for a, b in zip(words, words[1:], strict=False))


async def test_streamed_transcript_of_a_spoken_question(client):
    stream = await client.audio.transcriptions.create(
        model="gpt-4o-transcribe", file=DATA / "question.wav", stream=True, include=["logprobs"]
    )
    events = [event async for event in stream]
    done = events[-1]
    assert word_error_rate(QUESTION_TEXT, done.text) <= 0.2
    assert "".join(e.delta for e in events[:-1]) == done.text
    assert all(-20 < lp.logprob <= 0 for lp in done.logprobs)
    # whisper's word probabilities (tiny.en is not certain of every word), not 1.0 for want of a match
    assert any(lp.logprob < 0 for lp in done.logprobs)


@pytest.mark.parametrize(
    ("fmt", "name"), [("mp3", "speech.mp3"), ("opus", "speech.ogg"), ("wav", "speech.wav")]
)
async def test_whisper_hears_the_synthesised_speech(client, fmt, name):
    speech = await client.audio.speech.create(
        model="gpt-4o-mini-tts", voice="alloy", input=SPOKEN, response_format=fmt
    )
    heard = await client.audio.transcriptions.create(
        model="gpt-4o-mini-transcribe", file=(name, speech.content)
    )
    assert word_error_rate(SPOKEN, heard.text) <= 0.2, heard.text


async def test_speech_is_deterministic_with_a_seed(client):
    kwargs = {"model": "tts-1", "voice": "coral", "input": SPOKEN, "response_format": "flac"}
    first = await client.audio.speech.create(**kwargs)
    second = await client.audio.speech.create(**kwargs)
    assert first.content == second.content


async def test_fast_speech_is_shorter_and_still_heard(client):
    normal = await client.audio.speech.create(
        model="tts-1", voice="alloy", input=SPOKEN, response_format="pcm"
    )
    fast = await client.audio.speech.create(
        model="tts-1", voice="alloy", input=SPOKEN, response_format="pcm", speed=2.0
    )
    assert len(fast.content) == pytest.approx(len(normal.content) / 2, rel=0.1)
    wav = await client.audio.speech.create(
        model="tts-1", voice="alloy", input=SPOKEN, response_format="wav", speed=2.0
    )
    heard = await client.audio.transcriptions.create(model="whisper-1", file=("fast.wav", wav.content))
    assert word_error_rate(SPOKEN, heard.text) <= 0.34, heard.text
