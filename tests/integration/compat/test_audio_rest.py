"""The STT → LLM → TTS building blocks of LiveKit Agents and Pipecat against mockengine's audio REST
endpoints, only ``base_url`` changed, driven without a room or transport: LiveKit's
``openai.STT(use_realtime=False).recognize`` and ``openai.TTS().synthesize``, Pipecat's
``OpenAISTTService.run_stt`` and ``OpenAITTSService.run_tts``. Speech from each framework's TTS is
heard back by the engine's whisper as the words it was given, and a spoken question (espeak-ng) is
transcribed by each framework's STT."""

from __future__ import annotations

import io
import wave

import pytest
from livekit import rtc
from livekit.agents import utils
from livekit.plugins import openai as lk_openai
from pipecat.frames.frames import ErrorFrame, TranscriptionFrame, TTSAudioRawFrame
from pipecat.services.openai.stt import OpenAISTTService
from pipecat.services.openai.tts import OpenAITTSService

from tests.speech import DATA, load_wav_24k, word_error_rate

pytestmark = pytest.mark.models
QUESTION_TEXT = "What is the capital of France?"
SPOKEN = "The quick brown fox jumps over the lazy dog."
RATE_HZ = 24_000


@pytest.fixture
async def http_context():
    """What a LiveKit job process sets up for plugins (LiveKit's tests: the ``job_process`` fixture)."""
    utils.http_context._new_session_ctx()
    yield
    await utils.http_context._close_http_ctx()


async def base_url(engine) -> str:
    return f"{(await engine()).http_url}/v1"


def heard(resources, pcm16_24k: bytes) -> str:
    return str(resources.transcriber.transcribe(pcm16_24k).text)


def wav_bytes(pcm16: bytes, rate_hz: int = RATE_HZ) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate_hz)
        handle.writeframes(pcm16)
    return out.getvalue()


@pytest.mark.parametrize("model", ["whisper-1", "gpt-4o-mini-transcribe"])
async def test_livekit_stt_recognizes_a_spoken_question(engine, http_context, model):
    stt = lk_openai.STT(base_url=await base_url(engine), api_key="sk-test", model=model, use_realtime=False)
    pcm16 = load_wav_24k(DATA / "question.wav")
    frame = rtc.AudioFrame(pcm16, RATE_HZ, 1, len(pcm16) // 2)
    event = await stt.recognize(buffer=[frame])
    [alternative] = event.alternatives
    assert word_error_rate(QUESTION_TEXT, alternative.text) <= 0.2, alternative.text
    if model == "whisper-1":  # verbose_json: the language whisper decoded in
        assert alternative.language == "english" or str(alternative.language).startswith("en")
    await stt.aclose()


async def test_livekit_stt_with_gpt_transcribe_tags_the_language_it_detected(engine, http_context):
    """gpt-transcribe answers ``languages``; with detection on LiveKit sends no language hint and tags
    the transcript with ``languages[0].code`` (else the empty code)."""
    stt = lk_openai.STT(
        base_url=await base_url(engine), api_key="sk-test", model="gpt-transcribe", detect_language=True,
        prompt="A geography quiz.", use_realtime=False,
    )  # fmt: skip
    pcm16 = load_wav_24k(DATA / "question.wav")
    event = await stt.recognize(buffer=[rtc.AudioFrame(pcm16, RATE_HZ, 1, len(pcm16) // 2)])
    [alternative] = event.alternatives
    assert word_error_rate(QUESTION_TEXT, alternative.text) <= 0.2, alternative.text
    assert str(alternative.language).startswith("en")
    await stt.aclose()


@pytest.mark.parametrize(
    ("model", "fmt"), [("gpt-4o-mini-tts", "mp3"), ("tts-1", "pcm"), ("gpt-4o-mini-tts", "opus")]
)
async def test_livekit_tts_speaks_the_text(engine, http_context, real_resources, model, fmt):
    tts = lk_openai.TTS(
        base_url=await base_url(engine), api_key="sk-test", model=model, voice="alloy", response_format=fmt
    )
    frames = [event.frame async for event in tts.synthesize(SPOKEN)]
    combined = rtc.combine_audio_frames(frames)
    assert combined.sample_rate == RATE_HZ and combined.num_channels == 1
    pcm16 = bytes(combined.data)
    assert word_error_rate(SPOKEN, heard(real_resources, pcm16)) <= 0.2
    await tts.aclose()


@pytest.mark.parametrize("model", ["whisper-1", "gpt-4o-transcribe"])
async def test_pipecat_stt_transcribes_a_spoken_question(engine, model):
    stt = OpenAISTTService(
        api_key="sk-test", base_url=await base_url(engine), settings=OpenAISTTService.Settings(model=model)
    )
    audio = wav_bytes(load_wav_24k(DATA / "question.wav"))
    frames = [frame async for frame in stt.run_stt(audio)]
    assert not [f for f in frames if isinstance(f, ErrorFrame)], frames
    [transcription] = [f for f in frames if isinstance(f, TranscriptionFrame)]
    assert word_error_rate(QUESTION_TEXT, transcription.text) <= 0.2, transcription.text


async def test_pipecat_stt_with_probability_metrics(engine):
    """Pipecat asks gpt models for ``include=["logprobs"]`` with ``json`` (its probability metrics)."""
    stt = OpenAISTTService(
        api_key="sk-test",
        base_url=await base_url(engine),
        settings=OpenAISTTService.Settings(model="gpt-4o-mini-transcribe"),
        include_prob_metrics=True,
    )
    audio = wav_bytes(load_wav_24k(DATA / "question.wav"))
    frames = [frame async for frame in stt.run_stt(audio)]
    [transcription] = [f for f in frames if isinstance(f, TranscriptionFrame)]
    assert transcription.result.logprobs, transcription.result


@pytest.mark.parametrize("model", ["tts-1", "gpt-4o-mini-tts"])
async def test_pipecat_tts_speaks_the_text(engine, real_resources, model):
    settings = OpenAITTSService.Settings(model=model, voice="nova")
    tts = OpenAITTSService(api_key="sk-test", base_url=await base_url(engine), settings=settings)
    tts._sample_rate = RATE_HZ  # what a StartFrame's audio_out_sample_rate sets in a pipeline
    frames = [frame async for frame in tts.run_tts(SPOKEN, "context-1")]
    assert not [f for f in frames if isinstance(f, ErrorFrame)], frames
    pcm16 = b"".join(f.audio for f in frames if isinstance(f, TTSAudioRawFrame))
    assert word_error_rate(SPOKEN, heard(real_resources, pcm16)) <= 0.2
