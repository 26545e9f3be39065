"""Audio in Chat Completions through the official ``openai`` SDK against an engine on loopback, with the
fake engines (speech is a tone per sentence, every transcript is FAKE_TRANSCRIPT): shapes, streaming,
usage, determinism, the audio ids of earlier answers and the live service's errors. The real piper and
whisper round trip is in test_chat_audio_models.py."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import io
import json
import math
import threading
import wave

import av
import openai
import pytest
from openai import AsyncOpenAI

from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.sentences import split_sentences
from mockengine.engines.tts import SpeechSegment
from mockengine.server.app import create_app
from mockengine.server.executors import MeteredExecutor
from tests.conftest import FAKE_TRANSCRIPT
from tests.eventually import eventually
from tests.speech import DATA

HELLO = [{"role": "user", "content": "Hello, how are you today?"}]
WAV = {"voice": "alloy", "format": "wav"}
PCM16 = {"voice": "alloy", "format": "pcm16"}


@pytest.fixture
def chat_client(engine_url):
    async def start(**overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)

    return start


def wav_samples(data: bytes) -> tuple[int, int, int, int]:
    """(channels, sample width, rate, frames) of a WAV file."""
    with wave.open(io.BytesIO(data), "rb") as handle:
        return handle.getnchannels(), handle.getsampwidth(), handle.getframerate(), handle.getnframes()


def decoded_seconds(data: bytes, container: str) -> float:
    with av.open(io.BytesIO(data), "r", format=container) as audio:
        frames = list(audio.decode(audio=0))
    return sum(f.samples for f in frames) / frames[0].sample_rate


def question_wav_b64() -> str:
    return base64.b64encode((DATA / "question.wav").read_bytes()).decode()


async def test_spoken_reply_is_a_wav_with_its_transcript(chat_client):
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-audio-preview", modalities=["text", "audio"], audio=WAV, messages=HELLO
    )
    [choice] = completion.choices
    message = choice.message
    assert message.content is None and choice.finish_reason == "stop"
    audio = message.audio
    assert audio is not None and audio.id.startswith("audio_") and len(audio.id) == len("audio_") + 32
    assert audio.transcript and audio.expires_at == completion.created + 3600
    data = base64.b64decode(audio.data)
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    channels, width, rate, frames = wav_samples(data)
    assert (channels, width, rate) == (1, 2, 24_000)
    # The fake voice speaks each sentence of the transcript, 60 ms (1,440 samples) per character.
    assert frames == sum(round(len(s) * 1440) for s in split_sentences(audio.transcript)) > 0
    usage = completion.usage
    audio_tokens = usage.completion_tokens_details.audio_tokens
    assert audio_tokens == math.ceil(frames / 1200)  # one per 50 ms
    assert usage.completion_tokens > audio_tokens and usage.prompt_tokens_details.audio_tokens == 0


@pytest.mark.parametrize(
    ("fmt", "container", "head"),
    [("mp3", "mp3", b"ID3"), ("flac", "flac", b"fLaC"), ("opus", "ogg", b"OggS"), ("aac", "aac", b"\xff")],
)
async def test_compressed_formats_decode_to_the_same_length(chat_client, fmt, container, head):
    client = await chat_client(seed=4)
    asked = {"model": "gpt-audio", "modalities": ["text", "audio"], "messages": HELLO}
    wav = await client.chat.completions.create(**asked, audio=WAV)
    other = await client.chat.completions.create(**asked, audio={"voice": "alloy", "format": fmt})
    assert other.choices[0].message.audio.transcript == wav.choices[0].message.audio.transcript
    data = base64.b64decode(other.choices[0].message.audio.data)
    assert data.startswith(head)
    _, _, rate, frames = wav_samples(base64.b64decode(wav.choices[0].message.audio.data))
    # Encoders pad a little (AAC priming, whole frames).
    assert abs(decoded_seconds(data, container) - frames / rate) < 0.2


async def test_pcm16_is_the_raw_samples(chat_client):
    client = await chat_client(seed=4)
    asked = {"model": "gpt-audio-mini", "modalities": ["text", "audio"], "messages": HELLO}
    wav = await client.chat.completions.create(**asked, audio=WAV)
    raw = await client.chat.completions.create(**asked, audio=PCM16)
    with wave.open(io.BytesIO(base64.b64decode(wav.choices[0].message.audio.data))) as handle:
        samples = handle.readframes(handle.getnframes())
    assert base64.b64decode(raw.choices[0].message.audio.data) == samples


async def test_a_seeded_request_repeats_its_audio_bytes_and_id(chat_client):
    client = await chat_client()
    asked = {"model": "gpt-4o-mini-audio-preview", "modalities": ["text", "audio"], "messages": HELLO}
    first = await client.chat.completions.create(**asked, audio={"voice": "coral", "format": "mp3"}, seed=9)
    again = await client.chat.completions.create(**asked, audio={"voice": "coral", "format": "mp3"}, seed=9)
    assert first.choices[0].message.audio.data == again.choices[0].message.audio.data
    assert first.choices[0].message.audio.id == again.choices[0].message.audio.id


async def test_voices_sound_different(chat_client):
    client = await chat_client(seed=4)
    asked = {"model": "gpt-audio", "modalities": ["text", "audio"], "messages": HELLO}
    alloy = await client.chat.completions.create(**asked, audio=PCM16)
    nova = await client.chat.completions.create(**asked, audio={"voice": "nova", "format": "pcm16"})
    assert alloy.choices[0].message.audio.data != nova.choices[0].message.audio.data


async def test_stream_pieces_add_up_to_the_plain_answer(chat_client):
    client = await chat_client(seed=11)
    asked = {"model": "gpt-audio", "modalities": ["text", "audio"], "audio": PCM16, "messages": HELLO}
    plain = await client.chat.completions.create(**asked)
    stream = await client.chat.completions.create(
        **asked, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant" and deltas[0].content is None
    audio = [d.audio for d in deltas if d.audio is not None]
    ids = [a.id for a in audio if a.id is not None]
    assert ids == [plain.choices[0].message.audio.id], "the id comes once, first"
    assert audio[-1].model_dump(exclude_none=True) == {"expires_at": audio[-1].expires_at}
    assert [a.expires_at for a in audio if a.expires_at is not None] == [audio[-1].expires_at]
    pieces = [base64.b64decode(a.data) for a in audio if a.data is not None]
    assert len(pieces) > 1 and all(len(p) % 2 == 0 for p in pieces)
    assert b"".join(pieces) == base64.b64decode(plain.choices[0].message.audio.data)
    transcript = "".join(a.transcript or "" for a in audio)
    assert transcript == plain.choices[0].message.audio.transcript
    assert not any(d.content for d in deltas)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert chunks[-1].usage == plain.usage


async def test_sdk_stream_helper_rebuilds_the_audio(chat_client):
    client = await chat_client(seed=5)
    asked = {"model": "gpt-audio", "modalities": ["text", "audio"], "audio": PCM16, "messages": HELLO}
    plain = await client.chat.completions.create(**asked)
    async with client.chat.completions.stream(**asked) as stream:
        final = await stream.get_final_completion()
    rebuilt = final.choices[0].message.audio
    assert rebuilt is not None
    assert base64.b64decode(rebuilt.data) == base64.b64decode(plain.choices[0].message.audio.data)
    assert (rebuilt.id, rebuilt.transcript) == (
        plain.choices[0].message.audio.id,
        plain.choices[0].message.audio.transcript,
    )


async def test_a_tool_call_has_no_audio(chat_client):
    client = await chat_client()
    tool = {
        "type": "function",
        "function": {"name": "wait", "parameters": {"type": "object", "properties": {}}},
    }
    completion = await client.chat.completions.create(
        model="gpt-audio",
        modalities=["text", "audio"],
        audio=WAV,
        messages=HELLO,
        tools=[tool],
        tool_choice="required",
    )
    message = completion.choices[0].message
    assert message.tool_calls and message.audio is None
    assert completion.usage.completion_tokens_details.audio_tokens == 0
    # With the tool offered but not forced, the reply is spoken.
    spoken = await client.chat.completions.create(
        model="gpt-audio", modalities=["text", "audio"], audio=WAV, messages=HELLO, tools=[tool]
    )
    assert spoken.choices[0].message.tool_calls is None and spoken.choices[0].message.audio is not None


async def test_input_audio_is_heard_and_counted(chat_client):
    client = await chat_client()
    spoken = {"type": "input_audio", "input_audio": {"data": question_wav_b64(), "format": "wav"}}
    completion = await client.chat.completions.create(
        model="gpt-4o-audio-preview",
        modalities=["text"],
        messages=[{"role": "user", "content": [spoken]}],
    )
    assert completion.choices[0].message.content and completion.choices[0].message.audio is None
    # question.wav lasts 3.247 s: 33 prompt audio tokens at 100 ms each.
    assert completion.usage.prompt_tokens_details.audio_tokens == 33
    assert completion.usage.prompt_tokens > 33


async def test_input_audio_words_reach_the_brain(chat_client):
    """The fake whisper hears FAKE_TRANSCRIPT; the brain answers the same as for those words typed."""
    client = await chat_client(seed=2)
    spoken = {"type": "input_audio", "input_audio": {"data": question_wav_b64(), "format": "wav"}}
    heard = await client.chat.completions.create(
        model="mockengine-default", messages=[{"role": "user", "content": [spoken]}]
    )
    typed = await client.chat.completions.create(
        model="mockengine-default",
        messages=[{"role": "user", "content": [{"type": "text", "text": FAKE_TRANSCRIPT}]}],
    )
    assert heard.choices[0].message.content == typed.choices[0].message.content


async def test_an_earlier_answer_is_named_by_its_audio_id(chat_client):
    client = await chat_client(seed=3)
    asked = {"model": "gpt-audio", "modalities": ["text", "audio"], "audio": WAV}
    first = await client.chat.completions.create(**asked, messages=HELLO)
    audio = first.choices[0].message.audio
    history = [
        *HELLO,
        {"role": "assistant", "audio": {"id": audio.id}},
        {"role": "user", "content": "And then?"},
    ]
    second = await client.chat.completions.create(**asked, messages=history)
    assert second.choices[0].message.audio.transcript
    # The earlier answer's audio counts in the prompt as it counted in that answer.
    assert (
        second.usage.prompt_tokens_details.audio_tokens == first.usage.completion_tokens_details.audio_tokens
    )
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            **asked, messages=[*HELLO, {"role": "assistant", "audio": {"id": "audio_" + "0" * 32}}]
        )
    assert refused.value.body["param"] == "messages.[1].audio.id"
    assert refused.value.body["code"] == "invalid_value"


@pytest.mark.parametrize(
    ("body", "status", "param", "code", "message"),
    [
        (
            {"model": "gpt-audio", "modalities": ["text", "audio"], "messages": HELLO},
            400,
            "audio",
            "missing_required_parameter",
            "Missing required parameter: 'audio'.",
        ),
        (
            {
                "model": "gpt-audio",
                "modalities": ["text", "audio"],
                "audio": {"voice": "bob", "format": "wav"},
                "messages": HELLO,
            },
            400,
            "audio.voice",
            "invalid_value",
            "Invalid value: 'bob'. Supported values are: 'alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', "
            "'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'.",
        ),
        (
            {
                "model": "gpt-audio",
                "modalities": ["text", "audio"],
                "audio": {"voice": "ash", "format": "ogg"},
                "messages": HELLO,
            },
            400,
            "audio.format",
            "invalid_value",
            None,
        ),
        (
            {"model": "gpt-4o-mini", "modalities": ["text", "audio"], "audio": WAV, "messages": HELLO},
            400,
            "modalities",
            "invalid_value",
            None,
        ),
        (
            {"model": "gpt-4o-audio-preview", "messages": HELLO},
            400,
            "model",
            "invalid_value",
            "This model requires that either input content or output modality contain audio.",
        ),
        (
            {
                "model": "gpt-audio",
                "modalities": ["text", "audio"],
                "audio": WAV,
                "messages": HELLO,
                "stream": True,
            },
            400,
            "audio.format",
            "unsupported_value",
            "Unsupported value: 'audio.format' does not support 'wav' when stream=true. Supported values "
            "are: 'pcm16'.",
        ),
        (
            {
                "model": "gpt-audio",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
                        ],
                    }
                ],
            },
            400,
            "messages[0].content[0].input_audio",
            "invalid_value",
            "The audio file could not be decoded or its format is not supported.",
        ),
        (
            {
                "model": "gpt-audio",
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "input_audio", "input_audio": {"data": "%%%", "format": "mp3"}}],
                    }
                ],
            },
            400,
            "messages[0].content[0].input_audio",
            "invalid_value",
            "The audio file could not be decoded or its format is not supported.",
        ),
    ],
    ids=[
        "no-audio-param",
        "unknown-voice",
        "bad-format",
        "text-model",
        "audio-model-text-only",
        "stream-wav",
        "not-wav",
        "not-base64",
    ],
)
async def test_audio_errors_are_the_live_ones(chat_client, body, status, param, code, message):
    client = await chat_client()
    with pytest.raises(openai.APIStatusError) as refused:
        await client.chat.completions.create(**body)
    assert refused.value.status_code == status
    error = refused.value.body
    assert error["type"] == "invalid_request_error"
    assert (error["param"], error["code"]) == (param, code)
    if message is not None:
        assert error["message"] == message


async def test_traces_keep_the_size_of_audio_not_its_bytes(chat_client, tmp_path):
    client = await chat_client(trace_dir=str(tmp_path))
    spoken = {"type": "input_audio", "input_audio": {"data": question_wav_b64(), "format": "wav"}}
    await client.chat.completions.create(
        model="gpt-audio",
        modalities=["text", "audio"],
        audio=WAV,
        messages=[{"role": "user", "content": [spoken]}],
    )
    trace = tmp_path / "chat-completions.jsonl"
    await eventually(lambda: trace.exists() and trace.read_text().strip() != "", timeout_s=5)
    done = json.loads(trace.read_text().splitlines()[0])["data"]
    heard = done["request"]["messages"][0]["content"][0]["input_audio"]["data"]
    said = done["response"]["choices"][0]["message"]["audio"]
    assert heard == f"<base64 audio, {len(question_wav_b64())} chars>"
    assert said["data"].startswith("<base64 audio, ") and said["transcript"]


def quiet_wav_b64(minutes: float, rate_hz: int = 8_000) -> str:
    """A wav of silence, 8-bit mono at ``rate_hz``: many minutes in few bytes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(1)
        handle.setframerate(rate_hz)
        handle.writeframes(b"\x80" * int(minutes * 60 * rate_hz))
    return base64.b64encode(out.getvalue()).decode()


async def test_spoken_input_past_the_limit_is_refused_before_it_is_transcribed(chat_client):
    # Two 13-minute parts (8 MB of base64 each) pass 25 minutes together: a 72 MB body of low-rate
    # audio would otherwise decode to gigabytes and hold whisper's one worker for many minutes.
    part = {"type": "input_audio", "input_audio": {"data": quiet_wav_b64(13), "format": "wav"}}
    client = await chat_client()
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-audio",
            modalities=["text", "audio"],
            audio=WAV,
            messages=[{"role": "user", "content": [part, part]}],
        )
    error = refused.value.body
    assert (error["param"], error["code"]) == ("messages[0].content[1].input_audio", "invalid_value")
    assert (
        error["message"] == "audio duration is longer than 1500 seconds which is the maximum for this model"
    )
    # one part of that length is heard
    heard = await client.chat.completions.create(
        model="gpt-audio",
        modalities=["text", "audio"],
        audio=WAV,
        messages=[{"role": "user", "content": [part]}],
    )
    assert heard.usage.prompt_tokens_details.audio_tokens == 13 * 60 * 10


class HeldSynthesizer(FakeSynthesizer):
    """The fake voice, each call held until ``release`` is set: speech that takes as long as a test
    wants."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Semaphore(0)

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]:
        self.entered.release()
        self.release.wait(timeout=60)
        return super().synthesize(text, voice=voice, speed=speed)


async def test_a_burst_of_spoken_chat_replies_leaves_a_worker_for_the_realtime_sessions(
    aiohttp_server, fake_resources
):
    # Four spoken replies at once, each synthesis held: with two tts workers, the chat requests take at
    # most one, so a Realtime session's next sentence (a job on the same executor) still runs. Before,
    # two held chat syntheses filled both workers and the session's sentence queued behind all four.
    held = HeldSynthesizer()
    tts = MeteredExecutor("tts-test", 2)
    settings = dataclasses.replace(fake_resources.settings, tts_threads=2)
    resources = dataclasses.replace(fake_resources, settings=settings, synthesizer=held, tts_executor=tts)
    server = await aiohttp_server(create_app(settings, resources))
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)
    burst = [
        asyncio.create_task(
            client.chat.completions.create(
                model="gpt-audio", modalities=["text", "audio"], audio=WAV, messages=HELLO
            )
        )
        for _ in range(4)
    ]
    try:
        await asyncio.get_running_loop().run_in_executor(None, held.entered.acquire)  # one is speaking
        sentence = asyncio.get_running_loop().run_in_executor(tts, lambda: "the session's sentence")
        done, _ = await asyncio.wait({sentence}, timeout=30)  # a guard, not a measure: it runs at once
        assert sentence in done and tts.queue_depth == 0
    finally:
        held.release.set()
        replies = await asyncio.gather(*burst)
        await client.close()
        tts.shutdown(wait=True)
    assert all(reply.choices[0].message.audio for reply in replies)
