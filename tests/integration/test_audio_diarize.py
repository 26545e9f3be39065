"""``gpt-4o-transcribe-diarize`` on ``POST /v1/audio/transcriptions`` through the official ``openai`` SDK
against an engine on loopback (fake engines): the fields the SDK documents as not supported with the
model refused, ``chunking_strategy`` required past 30 s of audio, and the known speakers
(``known_speaker_names[]`` / ``known_speaker_references[]``) read, checked and naming the speaker of
``diarized_json``'s segments."""

from __future__ import annotations

import base64
import io
import math
import struct
import wave

import openai
import pytest
from openai import AsyncOpenAI

from tests.conftest import FAKE_TRANSCRIPT
from tests.speech import DATA

QUESTION = DATA / "question.wav"
DIARIZE = "gpt-4o-transcribe-diarize"


@pytest.fixture
def audio_client(engine_url):
    async def start(**overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)

    return start


def tone_wav(seconds: float, rate: int = 16_000) -> bytes:
    """A 220 Hz tone of ``seconds``, as a WAV file."""
    samples = int(seconds * rate)
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * 220 * n / rate))) for n in range(samples)
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(frames)
    return out.getvalue()


def data_url(seconds: float) -> str:
    return "data:audio/wav;base64," + base64.b64encode(tone_wav(seconds)).decode()


async def refused(client: AsyncOpenAI, **kwargs) -> openai.APIStatusError:
    with pytest.raises(openai.APIStatusError) as caught:
        await client.audio.transcriptions.create(**{"model": DIARIZE, "file": QUESTION, **kwargs})
    assert caught.value.status_code == 400 and caught.value.body["type"] == "invalid_request_error"
    return caught.value


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"prompt": "Acme support call"}, "prompt"),
        ({"include": ["logprobs"]}, "include"),
        ({"timestamp_granularities": ["segment"], "response_format": "diarized_json"},
         "timestamp_granularities"),
        ({"timestamp_granularities": ["word"]}, "timestamp_granularities"),
    ],
)  # fmt: skip
async def test_fields_the_diarize_model_does_not_take_are_refused(audio_client, kwargs, param):
    """openai-python: prompt, include and timestamp_granularities are "not supported when using
    gpt-4o-transcribe-diarize"; they were taken silently. Now the live refusal of a parameter a model
    does not take, naming it."""
    client = await audio_client()
    error = await refused(client, **kwargs)
    assert error.body["param"] == param and error.body["code"] == "unsupported_parameter"
    assert error.body["message"] == f"Unsupported parameter: '{param}' is not supported with this model."
    # The other gpt models still take a prompt.
    taken = await client.audio.transcriptions.create(model="gpt-4o-transcribe", file=QUESTION, prompt="Acme")
    assert taken.text == FAKE_TRANSCRIPT


async def test_over_30_seconds_needs_a_chunking_strategy(audio_client):
    """The SDK's docstring: chunking_strategy is "Required when using gpt-4o-transcribe-diarize for
    inputs longer than 30 seconds"; the live refusal's words and code."""
    client = await audio_client()
    long_file = ("long.wav", tone_wav(31.0))
    error = await refused(client, file=long_file, response_format="diarized_json")
    assert error.body["param"] == "chunking_strategy" and error.body["code"] == "invalid_value"
    assert error.body["message"] == "chunking_strategy is required for diarization models"
    for strategy in ("auto", {"type": "server_vad", "threshold": 0.4, "silence_duration_ms": 300}):
        result = await client.audio.transcriptions.create(
            model=DIARIZE, file=long_file, response_format="diarized_json", chunking_strategy=strategy
        )
        assert result.text == FAKE_TRANSCRIPT and result.duration == 31.0
    # 30 s and less needs none; other models never need one.
    short = await client.audio.transcriptions.create(model=DIARIZE, file=("30.wav", tone_wav(30.0)))
    assert short.text == FAKE_TRANSCRIPT
    other = await client.audio.transcriptions.create(model="gpt-4o-transcribe", file=long_file)
    assert other.text == FAKE_TRANSCRIPT


@pytest.mark.parametrize(
    ("strategy", "param", "code"),
    [
        ({"type": "auto"}, "chunking_strategy.type", "invalid_value"),
        ({"type": "server_vad", "threshold": 1.5}, "chunking_strategy.threshold", "decimal_above_max_value"),
        ({"type": "server_vad", "prefix_padding_ms": -1}, "chunking_strategy.prefix_padding_ms",
         "integer_below_min_value"),
        ({"type": "server_vad", "eagerness": "low"}, "chunking_strategy.eagerness", "unknown_parameter"),
        ("sometimes", "chunking_strategy", "invalid_value"),
    ],
)  # fmt: skip
async def test_a_malformed_chunking_strategy_is_refused(audio_client, strategy, param, code):
    client = await audio_client()
    error = await refused(client, chunking_strategy=strategy)
    assert error.body["param"] == param and error.body["code"] == code


async def test_known_speakers_name_the_speaker_of_the_segments(audio_client):
    """known_speaker_names[] / known_speaker_references[] were not read (every segment "A"). Now the
    references are decoded and checked, and the one voice the engine hears is the first known
    speaker's (ours, deterministic), in the answer and in the stream's segment events."""
    client = await audio_client()
    speakers = {"known_speaker_names": ["agent", "customer"],
                "known_speaker_references": [data_url(3.0), data_url(2.5)]}  # fmt: skip
    result = await client.audio.transcriptions.create(
        model=DIARIZE, file=QUESTION, response_format="diarized_json", extra_body=speakers
    )
    assert result.segments and {segment.speaker for segment in result.segments} == {"agent"}
    again = await client.audio.transcriptions.create(
        model=DIARIZE, file=QUESTION, response_format="diarized_json", extra_body=speakers
    )
    assert again.model_dump() == result.model_dump()
    stream = await client.audio.transcriptions.create(
        model=DIARIZE, file=QUESTION, response_format="diarized_json", stream=True, extra_body=speakers
    )
    streamed = [event async for event in stream]
    assert {e.speaker for e in streamed if e.type == "transcript.text.segment"} == {"agent"}
    # Without known speakers the first live label.
    plain = await client.audio.transcriptions.create(
        model=DIARIZE, file=QUESTION, response_format="diarized_json"
    )
    assert {segment.speaker for segment in plain.segments} == {"A"}


@pytest.mark.parametrize(
    ("names", "references", "param", "code", "words"),
    [
        (["agent", "customer"], ["A"], "known_speaker_references", "invalid_value",
         "in pairs: got 2 name(s) and 1"),
        (["a", "b", "c", "d", "e"], ["A"] * 5, "known_speaker_names", "array_above_max_length",
         "maximum length 4"),
        (["agent", "agent"], ["A", "A"], "known_speaker_names[1]", "invalid_value", "given twice"),
        ([" "], ["A"], "known_speaker_names[0]", "empty_string", "empty string"),
        (["agent"], ["https://example.com/agent.wav"], "known_speaker_references[0]", "invalid_value",
         "base64 data URL"),
        (["agent"], ["data:audio/wav;base64,!!!"], "known_speaker_references[0]", "invalid_value",
         "does not decode"),
        (["agent"], ["data:audio/wav;base64," + base64.b64encode(b"not audio at all").decode()],
         "known_speaker_references[0]", "invalid_value", "corrupted or unsupported"),
        (["agent"], [1.0], "known_speaker_references[0]", "invalid_value", "between 2 and 10 seconds"),
        (["agent", "customer"], [3.0, 10.5], "known_speaker_references[1]", "invalid_value",
         "this one is 10.50 seconds"),
    ],
)  # fmt: skip
async def test_bad_known_speakers_are_refused(audio_client, names, references, param, code, words):
    client = await audio_client()
    urls = [data_url(r) if isinstance(r, float) else r for r in references]
    if urls and urls[0] == "A":
        urls = [data_url(3.0)] * len(urls)
    error = await refused(client, extra_body={"known_speaker_names": names, "known_speaker_references": urls})
    assert error.body["param"] == param and error.body["code"] == code, error.body
    assert words in error.body["message"]


async def test_known_speakers_are_the_diarize_model_s_only(audio_client):
    client = await audio_client()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.transcriptions.create(
            model="gpt-4o-transcribe", file=QUESTION,
            extra_body={"known_speaker_names": ["agent"], "known_speaker_references": [data_url(3.0)]},
        )  # fmt: skip
    assert caught.value.body["param"] == "known_speaker_names"
    assert caught.value.body["code"] == "unsupported_parameter"
