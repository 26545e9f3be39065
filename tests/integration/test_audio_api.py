"""The audio REST endpoints (``/v1/audio/transcriptions``, ``/translations``, ``/speech``) through the
official ``openai`` SDK against an engine on loopback, with the fake engines (every transcript is
FAKE_TRANSCRIPT, speech a tone per sentence, 60 ms per character): shapes per ``response_format``,
streaming, usage, determinism, limits and the live service's errors. The real whisper and piper round
trip is in test_audio_api_models.py."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import io
import json
import logging
import threading
import wave

import aiohttp
import av
import openai
import pytest
from openai import AsyncOpenAI
from openai.types.audio import Transcription, TranscriptionDiarized, TranscriptionVerbose

from mockengine.chat.speech import MAX_INPUT_CHARS
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.tts import SpeechSegment
from mockengine.server.app import create_app
from tests.conftest import FAKE_TRANSCRIPT
from tests.loopback import serve_on_loopback
from tests.speech import DATA

QUESTION = DATA / "question.wav"


@pytest.fixture
def audio_client(engine_url):
    async def start(**overrides) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)

    return start


def question_in(container: str, codec: str) -> bytes:
    """question.wav re-encoded in another container (PyAV), as a phone or browser would send it."""
    out = io.BytesIO()
    with av.open(str(QUESTION)) as source, av.open(out, "w", format=container) as target:
        stream = target.add_stream(codec, rate=48_000 if codec == "libopus" else 16_000, layout="mono")
        resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=stream.rate)
        for frame in source.decode(audio=0):
            for out_frame in resampler.resample(frame):
                for packet in stream.encode(out_frame):
                    target.mux(packet)
        for packet in stream.encode(None):
            target.mux(packet)
    return out.getvalue()


async def test_json_transcription_of_a_wav_file_with_token_usage(audio_client):
    client = await audio_client()
    result = await client.audio.transcriptions.create(model="gpt-4o-transcribe", file=QUESTION)
    assert isinstance(result, Transcription)
    assert result.text == FAKE_TRANSCRIPT
    usage = result.usage
    assert usage.type == "tokens"
    # question.wav is 3.247 s: 33 audio tokens at one per 100 ms, rounded up.
    assert usage.input_token_details.audio_tokens == 33 and usage.input_token_details.text_tokens == 0
    assert usage.input_tokens == 33 and usage.output_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens


async def test_whisper_1_is_billed_by_the_second(audio_client):
    client = await audio_client()
    result = await client.audio.transcriptions.create(model="whisper-1", file=QUESTION)
    assert result.text == FAKE_TRANSCRIPT
    assert result.usage.type == "duration" and result.usage.seconds == 4  # 3.247 s, rounded up


@pytest.mark.parametrize(
    ("container", "codec", "name"),
    [("mp3", "libmp3lame", "q.mp3"), ("ogg", "libopus", "q.ogg"), ("flac", "flac", "q.flac"),
     ("webm", "libopus", "q.webm"), ("mp4", "aac", "q.m4a")],
)  # fmt: skip
async def test_any_accepted_container_is_decoded(audio_client, container, codec, name):
    client = await audio_client()
    data = question_in(container, codec)
    result = await client.audio.transcriptions.create(model="whisper-1", file=(name, data))
    assert result.text == FAKE_TRANSCRIPT
    assert result.usage.seconds == 4


async def test_text_srt_and_vtt_formats(audio_client):
    client = await audio_client()
    text = await client.audio.transcriptions.create(model="whisper-1", file=QUESTION, response_format="text")
    assert text == FAKE_TRANSCRIPT + "\n"
    srt = await client.audio.transcriptions.create(model="whisper-1", file=QUESTION, response_format="srt")
    assert srt == f"1\n00:00:00,000 --> 00:00:03,247\n{FAKE_TRANSCRIPT}\n\n"
    vtt = await client.audio.transcriptions.create(model="whisper-1", file=QUESTION, response_format="vtt")
    assert vtt == f"WEBVTT\n\n00:00:00.000 --> 00:00:03.247\n{FAKE_TRANSCRIPT}\n"
    gpt_text = await client.audio.transcriptions.create(
        model="gpt-4o-mini-transcribe", file=QUESTION, response_format="text"
    )
    assert gpt_text == FAKE_TRANSCRIPT + "\n"


async def test_verbose_json_with_words_and_segments(audio_client):
    client = await audio_client()
    result = await client.audio.transcriptions.create(
        model="whisper-1",
        file=QUESTION,
        response_format="verbose_json",
        timestamp_granularities=["word", "segment"],
    )
    assert isinstance(result, TranscriptionVerbose)
    assert result.language == "english" and result.duration == pytest.approx(3.25)
    assert [w.word for w in result.words] == FAKE_TRANSCRIPT.split()
    starts = [w.start for w in result.words]
    assert starts == sorted(starts) and result.words[-1].end <= result.duration
    [segment] = result.segments
    assert segment.text == " " + FAKE_TRANSCRIPT and segment.start == 0 and segment.end == result.duration
    assert segment.id == 0 and segment.temperature == 0.0
    assert result.usage.seconds == 4
    # Without granularities: segments only, as live.
    plain = await client.audio.transcriptions.create(
        model="whisper-1", file=QUESTION, response_format="verbose_json"
    )
    assert plain.segments and plain.words is None


async def test_streamed_transcription_events(audio_client):
    client = await audio_client()
    stream = await client.audio.transcriptions.create(
        model="gpt-4o-mini-transcribe", file=QUESTION, stream=True, include=["logprobs"]
    )
    events = [event async for event in stream]
    deltas = [e for e in events if e.type == "transcript.text.delta"]
    assert "".join(d.delta for d in deltas) == FAKE_TRANSCRIPT
    assert len(deltas) == len(FAKE_TRANSCRIPT.split())
    done = events[-1]
    assert done.type == "transcript.text.done" and done.text == FAKE_TRANSCRIPT
    assert done.usage.input_tokens == 33 and done.usage.type == "tokens"
    assert "".join(lp.token for lp in done.logprobs) == FAKE_TRANSCRIPT
    assert [lp.token for d in deltas for lp in d.logprobs] == [lp.token for lp in done.logprobs]


async def test_diarized_json_of_the_diarize_model(audio_client):
    """``response_format="diarized_json"`` (gpt-4o-transcribe-diarize): openai-python's
    ``TranscriptionDiarized``, its segments cut as verbose_json's and the Realtime diarize events are,
    one speaker ``"A"``; token usage. The same request twice is the same answer."""
    client = await audio_client()
    asked = {"model": "gpt-4o-transcribe-diarize", "file": QUESTION, "response_format": "diarized_json"}
    result = await client.audio.transcriptions.create(**asked)
    assert isinstance(result, TranscriptionDiarized)
    assert result.task == "transcribe" and result.text == FAKE_TRANSCRIPT
    assert result.duration == pytest.approx(3.25)
    [segment] = result.segments
    assert (segment.type, segment.id, segment.speaker) == ("transcript.text.segment", "seg_0", "A")
    assert segment.text == FAKE_TRANSCRIPT and segment.start == 0 and segment.end == result.duration
    assert result.usage is not None and result.usage.type == "tokens"
    assert (await client.audio.transcriptions.create(**asked)) == result
    # Only the diarize model takes it; the diarize model refuses what the gpt models refuse.
    for model in ("gpt-4o-transcribe", "whisper-1"):
        with pytest.raises(openai.BadRequestError) as caught:
            await client.audio.transcriptions.create(
                model=model, file=QUESTION, response_format="diarized_json"
            )
        assert (caught.value.body["param"], caught.value.body["code"]) == (
            "response_format",
            "unsupported_value",
        )
        assert (
            f"response_format 'diarized_json' is not compatible with model '{model}'" in caught.value.message
        )
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.transcriptions.create(
            model="gpt-4o-transcribe-diarize", file=QUESTION, response_format="srt"
        )
    assert "Use 'json', 'text', or 'diarized_json' instead." in caught.value.body["message"]
    # Translations have no diarized_json (openai-python's TranslationCreateParams).
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.translations.create(
            model="whisper-1",
            file=QUESTION,
            response_format="diarized_json",  # type: ignore[arg-type]
        )
    assert (caught.value.body["param"], caught.value.body["code"]) == ("response_format", "invalid_value")


async def test_diarized_json_streamed_sends_its_segments(audio_client):
    """``stream=True`` with diarized_json: the word deltas, a ``transcript.text.segment`` as each segment
    ends (openai-python's ``TranscriptionTextSegmentEvent``), then ``transcript.text.done``."""
    client = await audio_client()
    stream = await client.audio.transcriptions.create(
        model="gpt-4o-transcribe-diarize", file=QUESTION, response_format="diarized_json", stream=True
    )
    events = [event async for event in stream]
    kinds = [e.type for e in events]
    assert kinds[-2:] == ["transcript.text.segment", "transcript.text.done"]
    assert kinds[:-2] == ["transcript.text.delta"] * len(FAKE_TRANSCRIPT.split())
    segment = events[-2]
    assert (segment.id, segment.speaker, segment.text) == ("seg_0", "A", FAKE_TRANSCRIPT)
    assert segment.start == 0 and segment.end == pytest.approx(3.25)
    assert events[-1].text == FAKE_TRANSCRIPT and events[-1].usage.type == "tokens"


async def test_gpt_transcribe_answers_the_languages_it_heard_and_takes_keywords(audio_client):
    """openai-python's ``Transcription.languages`` / ``TranscriptionTextDoneEvent.languages``: returned
    by gpt-transcribe, which takes ``languages[]`` and ``keywords[]`` (LiveKit's STT sends both and tags
    its transcript with ``languages[0].code``)."""
    client = await audio_client()
    plain = await client.audio.transcriptions.create(model="gpt-transcribe", file=QUESTION)
    assert [language.code for language in plain.languages] == ["en"]
    hinted = await client.audio.transcriptions.create(
        model="gpt-transcribe", file=QUESTION, languages=["fr"], keywords=["Paris", "France"]
    )
    assert [language.code for language in hinted.languages] == ["fr"]  # the fake echoes the hint
    assert hinted.usage.input_token_details.text_tokens > 0  # the keywords went to whisper's prompt
    stream = await client.audio.transcriptions.create(
        model="gpt-transcribe", file=QUESTION, stream=True, languages=["de"]
    )
    done = [event async for event in stream][-1]
    assert done.type == "transcript.text.done" and [lang.code for lang in done.languages] == ["de"]
    # Pipecat's OpenAISTTService sends keywords to whatever model it runs: taken, not answered.
    other = await client.audio.transcriptions.create(
        model="gpt-4o-transcribe", file=QUESTION, languages=["fr"], keywords=["Paris"]
    )
    assert other.languages is None and other.usage.input_token_details.text_tokens > 0


async def test_stream_is_ignored_for_whisper_1(audio_client):
    """The SDK's docstring: streaming is not supported for whisper-1 and will be ignored."""
    client = await audio_client()
    async with aiohttp.ClientSession() as session:
        form = aiohttp.FormData()
        form.add_field("file", QUESTION.read_bytes(), filename="question.wav", content_type="audio/wav")
        form.add_field("model", "whisper-1")
        form.add_field("stream", "true")
        url = str(client.base_url) + "audio/transcriptions"
        async with session.post(url, data=form, headers={"Authorization": "Bearer sk-test"}) as answer:
            assert answer.status == 200 and answer.content_type == "application/json"
            assert (await answer.json())["text"] == FAKE_TRANSCRIPT


async def test_logprobs_in_json(audio_client):
    client = await audio_client()
    result = await client.audio.transcriptions.create(
        model="gpt-4o-transcribe", file=QUESTION, include=["logprobs"]
    )
    assert "".join(lp.token for lp in result.logprobs) == FAKE_TRANSCRIPT
    assert all(
        lp.logprob <= 0 and bytes(int(b) for b in lp.bytes) == lp.token.encode() for lp in result.logprobs
    )


async def test_translation_is_english_text(audio_client):
    client = await audio_client()
    result = await client.audio.translations.create(
        model="whisper-1", file=QUESTION, response_format="verbose_json"
    )
    assert result.text == FAKE_TRANSCRIPT and result.language == "english"
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.translations.create(model="gpt-4o-transcribe", file=QUESTION)
    assert caught.value.body["param"] == "model"


@pytest.mark.parametrize(
    ("kwargs", "status", "param", "code", "words"),
    [
        ({"model": "gpt-4o-transcribe", "response_format": "verbose_json"}, 400, "response_format",
         "unsupported_value",
         "response_format 'verbose_json' is not compatible with model 'gpt-4o-transcribe'. Use 'json' "
         "or 'text' instead."),
        ({"model": "gpt-4o-mini-transcribe", "response_format": "srt"}, 400, "response_format",
         "unsupported_value", "Use 'json' or 'text' instead."),
        ({"model": "whisper-1", "response_format": "xml"}, 400, "response_format", "invalid_value", "'xml'"),
        ({"model": "whisper-1", "timestamp_granularities": ["word"]}, 400, "timestamp_granularities",
         "unsupported_value", "verbose_json"),
        ({"model": "whisper-1", "include": ["logprobs"]}, 400, "include", "unsupported_value", "logprobs"),
        ({"model": "whisper-1", "language": "english"}, 400, "language", "invalid_value",
         "Invalid language 'english'. Language parameter must be specified in ISO-639-1 format."),
        ({"model": "gpt-transcribe", "languages": ["en", "english"]}, 400, "languages", "invalid_value",
         "Invalid language 'english'."),
        ({"model": "whisper-1", "temperature": 1.5}, 400, "temperature", "decimal_above_max_value", "<= 1.0"),
        ({"model": "whisper-9"}, 404, None, "model_not_found", "whisper-9"),
        # a form's boolean: "maybe" was taken silently as false
        ({"model": "gpt-4o-transcribe", "extra_body": {"stream": "maybe"}}, 400, "stream", "invalid_value",
         "Invalid value: 'maybe'. Supported values are: 'true', 'false'."),
    ],
)  # fmt: skip
async def test_refused_transcription_requests(audio_client, kwargs, status, param, code, words):
    client = await audio_client()
    with pytest.raises(openai.APIStatusError) as caught:
        await client.audio.transcriptions.create(file=QUESTION, **kwargs)
    error = caught.value
    assert error.status_code == status and error.body["param"] == param and error.body["code"] == code
    assert words in error.body["message"] and error.body["type"] == "invalid_request_error"


async def test_refused_files(audio_client):
    client = await audio_client()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.transcriptions.create(model="whisper-1", file=("notes.txt", b"hello"))
    assert caught.value.body["message"].startswith("Invalid file format. Supported formats: ['flac', 'm4a'")
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.transcriptions.create(
            model="whisper-1", file=("broken.wav", b"RIFF" + b"\x00" * 100)
        )
    assert caught.value.body == {
        "message": "Audio file might be corrupted or unsupported",
        "type": "invalid_request_error",
        "param": "file",
        "code": "invalid_value",
    }
    too_big = 25 * 1024 * 1024 + 1
    with pytest.raises(openai.APIStatusError) as caught:
        await client.audio.transcriptions.create(model="whisper-1", file=("big.wav", b"\x00" * too_big))
    assert caught.value.status_code == 413
    assert (
        caught.value.body["message"]
        == f"Maximum content size limit (26214400) exceeded ({too_big} bytes read)"
    )


async def test_a_file_longer_than_the_limit_is_refused_not_decoded_whole(audio_client):
    """25 minutes of 8 kHz 8-bit audio fit in 12 MB (under the 25 MiB upload limit) and decode to
    72 MB of PCM16 24 kHz: decoding stops at the limit, as the live models' 1500-second limit reads."""
    seconds = 1501
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(1)
        handle.setframerate(8000)
        handle.writeframes(b"\x80" * 8000 * seconds)
    client = await audio_client()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.transcriptions.create(model="gpt-4o-transcribe", file=("long.wav", out.getvalue()))
    assert caught.value.body["param"] == "file" and caught.value.body["code"] == "invalid_value"
    assert "longer than 1500 seconds" in caught.value.body["message"]


async def test_a_missing_or_refused_key_is_401(audio_client):
    client = await audio_client(api_keys=("sk-good",))
    with pytest.raises(openai.AuthenticationError):
        await client.audio.transcriptions.create(model="whisper-1", file=QUESTION)
    with pytest.raises(openai.AuthenticationError):
        await client.audio.speech.create(model="tts-1", voice="alloy", input="Hi.")


def wav_frames(data: bytes) -> tuple[int, int, int, int]:
    with wave.open(io.BytesIO(data), "rb") as handle:
        return handle.getnchannels(), handle.getsampwidth(), handle.getframerate(), handle.getnframes()


async def test_speech_pcm_and_wav(audio_client):
    client = await audio_client()
    pcm = await client.audio.speech.create(
        model="tts-1", voice="alloy", input="Hello there.", response_format="pcm"
    )
    assert pcm.response.headers["content-type"] == "audio/pcm"
    # The fake voice: 60 ms per character of each sentence, at 24 kHz 16-bit mono.
    assert len(pcm.content) == round(len("Hello there.") * 60 * 24) * 2
    wav = await client.audio.speech.create(
        model="tts-1-hd", voice="nova", input="Hello there.", response_format="wav"
    )
    assert wav.response.headers["content-type"] == "audio/wav"
    assert wav_frames(wav.content) == (1, 2, 24_000, len(pcm.content) // 2)


@pytest.mark.parametrize(
    ("fmt", "container", "content_type"),
    [("mp3", "mp3", "audio/mpeg"), ("opus", "ogg", "audio/opus"), ("aac", "aac", "audio/aac"),
     ("flac", "flac", "audio/flac")],
)  # fmt: skip
async def test_speech_compressed_formats_decode(audio_client, fmt, container, content_type):
    client = await audio_client()
    answer = await client.audio.speech.create(
        model="gpt-4o-mini-tts", voice="coral", input="One. Two three.", response_format=fmt
    )
    assert answer.response.headers["content-type"] == content_type
    with av.open(io.BytesIO(answer.content), "r", format=container) as audio:
        frames = list(audio.decode(audio=0))
    seconds = sum(f.samples for f in frames) / frames[0].sample_rate
    assert seconds == pytest.approx(len("One.Two three.") * 0.06, abs=0.1)


async def test_speech_is_the_same_bytes_for_the_same_request(audio_client):
    client = await audio_client()
    kwargs = {
        "model": "gpt-4o-mini-tts",
        "voice": "ash",
        "input": "Same words, same bytes.",
        "response_format": "mp3",
    }
    first = await client.audio.speech.create(**kwargs)
    second = await client.audio.speech.create(**kwargs)
    assert first.content == second.content and len(first.content) > 1000


async def test_speed_above_piper_s_range_is_time_stretched(audio_client):
    client = await audio_client()
    normal = await client.audio.speech.create(
        model="tts-1", voice="alloy", input="Quick.", response_format="pcm"
    )
    fast = await client.audio.speech.create(
        model="tts-1", voice="alloy", input="Quick.", response_format="pcm", speed=3.0
    )
    assert len(fast.content) == pytest.approx(len(normal.content) / 3, rel=0.01)


async def test_speech_streamed_with_streaming_response(audio_client):
    client = await audio_client()
    async with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts",
        voice="sage",
        input="A longer sentence to stream in pieces.",
        response_format="pcm",
    ) as response:
        assert response.headers.get("transfer-encoding") == "chunked"
        chunks = [chunk async for chunk in response.iter_bytes()]
    assert len(b"".join(chunks)) == round(len("A longer sentence to stream in pieces.") * 60 * 24) * 2


async def test_speech_sse_events(audio_client):
    client = await audio_client()
    async with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts",
        voice="verse",
        input="Hi there. Bye.",
        response_format="pcm",
        stream_format="sse",
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line async for line in response.iter_lines()]
    events = [json.loads(line.removeprefix("data: ")) for line in lines if line.startswith("data: ")]
    *deltas, done = events
    assert {e["type"] for e in deltas} == {"speech.audio.delta"} and done["type"] == "speech.audio.done"
    audio = b"".join(base64.b64decode(e["audio"]) for e in deltas)
    assert len(audio) == round(len("Hi there.Bye.") * 60 * 24) * 2
    usage = done["usage"]
    assert usage["output_tokens"] == -(-len(audio) // 2400)  # one per 50 ms
    assert (
        usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] and usage["input_tokens"] > 0
    )


@pytest.mark.parametrize(
    ("kwargs", "param", "code"),
    [
        ({"model": "tts-1", "voice": "alloy", "input": "x" * (MAX_INPUT_CHARS + 1)}, "input",
         "string_above_max_length"),
        ({"model": "tts-1", "voice": "robot", "input": "Hi."}, "voice", "invalid_value"),
        ({"model": "tts-1", "voice": "alloy", "input": "Hi.", "speed": 4.5}, "speed",
         "decimal_above_max_value"),
        ({"model": "tts-1", "voice": "alloy", "input": "Hi.", "speed": 0.1}, "speed",
         "decimal_below_min_value"),
        ({"model": "tts-1", "voice": "alloy", "input": "Hi.", "response_format": "ogg"}, "response_format",
         "invalid_value"),
        ({"model": "tts-1", "voice": "alloy", "input": "Hi.", "stream_format": "sse"}, "stream_format",
         "unsupported_value"),
        ({"model": "tts-9", "voice": "alloy", "input": "Hi."}, "model", "invalid_value"),
    ],
)  # fmt: skip
async def test_refused_speech_requests(audio_client, kwargs, param, code):
    client = await audio_client()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.audio.speech.create(**kwargs)
    assert caught.value.body["param"] == param and caught.value.body["code"] == code


async def test_speech_input_of_the_limit_is_spoken(audio_client):
    client = await audio_client()
    text = ("Go. " * (MAX_INPUT_CHARS // 4))[:MAX_INPUT_CHARS]
    answer = await client.audio.speech.create(model="tts-1", voice="alloy", input=text, response_format="pcm")
    assert len(answer.content) > 0


async def test_custom_voice_ids_are_spoken(audio_client):
    client = await audio_client()
    custom = await client.audio.speech.create(
        model="gpt-4o-mini-tts", voice={"id": "voice_1234"}, input="Hi.", response_format="pcm"
    )
    alloy = await client.audio.speech.create(
        model="gpt-4o-mini-tts", voice="alloy", input="Hi.", response_format="pcm"
    )
    assert custom.content == alloy.content


async def test_cors_answers_a_browser_page(engine):
    running = await engine()
    origin = "http://localhost:5173"
    async with aiohttp.ClientSession() as session:
        headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
        async with session.options(running.http_url + "/v1/audio/speech", headers=headers) as answer:
            assert answer.status == 204
            assert answer.headers["Access-Control-Allow-Origin"] == origin
        body = {"model": "tts-1", "voice": "alloy", "input": "Hi.", "response_format": "wav"}
        headers = {"Origin": origin, "Authorization": "Bearer sk-test"}
        async with session.post(running.http_url + "/v1/audio/speech", json=body, headers=headers) as answer:
            assert answer.status == 200 and (await answer.read())[:4] == b"RIFF"
            assert answer.headers["Access-Control-Allow-Origin"] == origin


async def test_odd_bodies_get_openai_shaped_errors(engine):
    running = await engine()
    auth = {"Authorization": "Bearer sk-test"}
    base = running.http_url + "/v1/audio/"
    async with aiohttp.ClientSession() as session:
        async with session.post(base + "transcriptions", json={"model": "whisper-1"}, headers=auth) as answer:
            assert answer.status == 400
            assert "multipart/form-data" in (await answer.json())["error"]["message"]
        form = aiohttp.FormData({"model": "whisper-1"})
        async with session.post(base + "transcriptions", data=form, headers=auth) as answer:
            assert answer.status == 400 and (await answer.json())["error"]["param"] == "file"
        form = aiohttp.FormData({"model": "whisper-1", "file": "not a file"})
        async with session.post(base + "transcriptions", data=form, headers=auth) as answer:
            assert answer.status == 400 and (await answer.json())["error"]["param"] == "file"
        form = aiohttp.FormData()
        form.add_field("file", QUESTION.read_bytes(), filename="question.wav")
        async with session.post(base + "transcriptions", data=form, headers=auth) as answer:
            assert answer.status == 400
            assert (await answer.json())["error"]["message"] == "you must provide a model parameter"
        async with session.post(base + "speech", data=b"{not json", headers=auth) as answer:
            assert (
                answer.status == 400
                and "could not parse the JSON body" in (await answer.json())["error"]["message"]
            )
        # Not JSON to the live service either: NaN, a lone surrogate (piper's espeak raised on it: a 500),
        # nesting past the parser's depth.
        for raw in (
            b'{"model": "tts-1", "voice": "alloy", "input": "Hi.", "speed": NaN}',
            b'{"model": "tts-1", "voice": "alloy", "input": "\\ud800"}',
            b"[" * 100_000 + b"]" * 100_000,
        ):
            async with session.post(base + "speech", data=raw, headers=auth) as answer:
                assert answer.status == 400, raw[:80]
                assert "could not parse the JSON body" in (await answer.json())["error"]["message"]
        for body in ([1, 2], {"model": "tts-1", "voice": "alloy"}, {"model": "tts-1", "input": "Hi."}):
            async with session.post(base + "speech", json=body, headers=auth) as answer:
                assert answer.status == 400, body
                assert set((await answer.json())["error"]) == {"message", "type", "param", "code"}


async def test_speech_reads_null_as_not_given_and_quotes_values_as_json(engine):
    """An OpenAPI-generated client sends unset fields as null: they were refused (`speed`) or quoted as
    Python's `'None'`; a wrong value is quoted as JSON (`'true'`), never Python's `'True'`."""
    running = await engine()
    auth = {"Authorization": "Bearer sk-test"}
    url = running.http_url + "/v1/audio/speech"
    nulls = {"response_format": None, "speed": None, "stream_format": None, "instructions": None}
    async with aiohttp.ClientSession() as session:
        body = {"model": "tts-1", "voice": "alloy", "input": "Hi.", **nulls}
        async with session.post(url, json=body, headers=auth) as answer:
            assert answer.status == 200 and answer.content_type == "audio/mpeg"
        for field, value, quoted in (
            ("voice", True, "'true'"),
            ("model", None, None),
            ("model", [1], "'[1]'"),
        ):
            body = {"model": "tts-1", "voice": "alloy", "input": "Hi.", field: value}
            async with session.post(url, json=body, headers=auth) as answer:
                error = (await answer.json())["error"]
                assert answer.status == 400 and error["param"] == field, error
                assert quoted is None or error["message"].startswith(f"Invalid value: {quoted}."), error


async def test_empty_input_is_empty_audio(audio_client):
    client = await audio_client()
    pcm = await client.audio.speech.create(model="tts-1", voice="alloy", input="", response_format="pcm")
    assert pcm.content == b""
    mp3 = await client.audio.speech.create(model="tts-1", voice="alloy", input=" ", response_format="mp3")
    assert mp3.response.status_code == 200


class GatedSynthesizer(FakeSynthesizer):
    """Speaks the second sentence only once the client has the first (or after 10 s), and records
    which it was."""

    def __init__(self) -> None:
        super().__init__()
        self.first_heard = threading.Event()
        self.waited_for_client: list[bool] = []

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]:
        if text.startswith("Second"):
            self.waited_for_client.append(self.first_heard.wait(10))
        return super().synthesize(text, voice=voice, speed=speed)


@pytest.mark.parametrize("response_format", ["pcm", "mp3", "aac"])
async def test_speech_streams_each_sentence_once_it_is_spoken(aiohttp_server, resources, response_format):
    """Raw PCM, and the encodings whose container is written front to back: the first sentence reaches
    the client before the second is spoken. An encoded answer was spoken and encoded whole first (4.3 s
    to the first byte for three sentences)."""
    gated = GatedSynthesizer()
    app = create_app(resources.settings, dataclasses.replace(resources, synthesizer=gated))
    server = await aiohttp_server(app)
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)
    received = b""
    async with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="alloy", input="First one. Second one.", response_format=response_format
    ) as response:
        async for chunk in response.iter_bytes():
            received += chunk
            gated.first_heard.set()
    assert gated.waited_for_client == [True]  # the first sentence was out before the second was spoken
    spoken_s = len("First one.Second one.") * 0.06
    if response_format == "pcm":
        assert len(received) == round(spoken_s * 24_000) * 2
    else:  # the whole answer, one decodable stream
        with av.open(io.BytesIO(received), "r", format="mp3" if response_format == "mp3" else "aac") as audio:
            frames = list(audio.decode(audio=0))
        assert sum(f.samples for f in frames) / frames[0].sample_rate == pytest.approx(spoken_s, abs=0.1)


async def test_encoded_speech_streamed_is_the_same_bytes_as_read_whole(audio_client):
    """The sentence-by-sentence encoder is seeded by nothing but the speech: a streamed read and a whole
    read of the same request are the same bytes, and so are two streamed reads."""
    client = await audio_client()
    kwargs = {"model": "tts-1", "voice": "alloy", "input": "One. Two three. Four.", "response_format": "opus"}
    whole = (await client.audio.speech.create(**kwargs)).content
    async with client.audio.speech.with_streaming_response.create(**kwargs) as response:
        streamed = b"".join([chunk async for chunk in response.iter_bytes()])
    assert streamed == whole and whole.startswith(b"OggS")


async def test_pcm_events_stream_each_sentence_once_it_is_spoken(aiohttp_server, resources):
    """``stream_format="sse"`` with raw PCM (LiveKit's ``openai.TTS(response_format="pcm")``): the first
    sentence's deltas leave before the second sentence is spoken, as the bytes stream does; before, the
    whole input was spoken first. The done event's usage counts all of it."""
    gated = GatedSynthesizer()
    app = create_app(resources.settings, dataclasses.replace(resources, synthesizer=gated))
    server = await aiohttp_server(app)
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)
    received, events = b"", []
    async with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="alloy", input="First one. Second one.", response_format="pcm",
        stream_format="sse",
    ) as response:  # fmt: skip
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[len("data: ") :])
            events.append(event)
            if event["type"] == "speech.audio.delta":
                received += base64.b64decode(event["audio"])
                gated.first_heard.set()
    assert gated.waited_for_client == [True]
    assert len(received) == round(len("First one.Second one.") * 60 * 24) * 2
    assert [event["type"] for event in events][-1] == "speech.audio.done"
    usage = events[-1]["usage"]
    assert usage["output_tokens"] == -(-len(received) // 2400)  # one per 50 ms
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@pytest.mark.parametrize(
    ("response_format", "stream_format"),
    [("pcm", "sse"), ("wav", "audio"), ("pcm", "audio"), ("mp3", "audio"), ("aac", "sse")],
)
async def test_a_client_that_stops_reading_and_leaves_ends_the_answer_quietly(
    resources, caplog, response_format, stream_format
):
    """A barge-in: Pipecat and LiveKit close a speech request mid-answer. aiohttp reports a peer that
    goes away while a write waits to drain as ``ConnectionError("Connection lost")`` (not
    ``ConnectionResetError``); that is the client leaving, not a server failure (a 500 and a traceback).
    Served as ``mockengine serve`` serves (aiohttp's test server cancels the handler instead)."""
    caplog.set_level(logging.DEBUG, logger="mockengine")
    async with serve_on_loopback(create_app(resources.settings, resources)) as port:
        await _leave_mid_answer(port, response_format, stream_format)

        def ended() -> list[logging.LogRecord]:
            return [r for r in caplog.records if "went away" in r.getMessage() or r.levelno >= logging.ERROR]

        async with asyncio.timeout(30):  # waits for the handler's outcome, whichever it is
            while not ended():
                await asyncio.sleep(0.05)
    assert [r.getMessage() for r in ended()] == ["audio stream: client went away"]


async def _leave_mid_answer(port: int, response_format: str, stream_format: str) -> None:
    client = AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    # About 4 minutes of the fakes' speech (11 MB of PCM): far more than the socket buffers hold.
    long_input = ("This is a long answer. " * 178)[:MAX_INPUT_CHARS]
    async with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="alloy", input=long_input, response_format=response_format,
        stream_format=stream_format,
    ) as response:  # fmt: skip
        async for _chunk in response.iter_bytes():
            break
    await client.close()
