"""Transcription sessions with the clients that open them, real whisper and speech (espeak-ng, not the
engine's voice) streamed at real-time pace: the ``openai`` SDK (``intent=transcription``), Pipecat's
``OpenAIRealtimeSTTService`` in a pipeline (no transport), and LiveKit's ``openai.STT(use_realtime=True)``
stream (no room). Each must hear the question's words, and the engine must send no ``error``."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from livekit import rtc
from livekit.agents import stt as lk_stt
from livekit.agents import utils
from livekit.plugins import openai as lk_openai
from openai import AsyncOpenAI
from pipecat.frames.frames import ErrorFrame, InputAudioRawFrame, TranscriptionFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.openai.stt import OpenAIRealtimeSTTService
from pipecat.workers.runner import WorkerRunner

from tests.integration.compat.speech import CHUNK_MS, spoken_question, stream
from tests.integration.compat.test_pipecat import Recorder
from tests.speech import validate_server_event

pytestmark = pytest.mark.models
TIMEOUT_S = 60
SAMPLE_RATE_HZ = 24_000


def _heard_the_question(transcript: str) -> bool:
    words = transcript.lower()
    return "capital" in words and "france" in words


async def test_openai_sdk_transcription_session_hears_the_question(framework_engine) -> None:
    eng = await framework_engine()
    pcm, _ = spoken_question()
    events: list[dict] = []
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)
    async with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
        await conn.session.update(
            session={
                "type": "transcription",
                "audio": {
                    "input": {
                        "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                        "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
                    }
                },
            }
        )

        async def send(chunk: bytes) -> None:
            await conn.input_audio_buffer.append(audio=base64.b64encode(chunk).decode())

        streamer = asyncio.create_task(stream(send, pcm, silence_ms=1500))
        async with asyncio.timeout(TIMEOUT_S):
            while not any(e["type"].endswith("input_audio_transcription.completed") for e in events):
                events.append(json.loads(await conn.recv_bytes()))
        await streamer
    for event in events:
        validate_server_event(event)
    kinds = [event["type"] for event in events]
    assert events[0]["session"]["object"] == "realtime.transcription_session"
    for expected in (
        "session.updated",
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "conversation.item.input_audio_transcription.delta",
    ):
        assert expected in kinds, f"missing {expected} in {kinds}"
    assert not [kind for kind in kinds if kind.startswith("response.") or kind == "rate_limits.updated"]
    assert _heard_the_question(events[-1]["transcript"])


async def test_pipecat_realtime_stt_service_transcribes_a_spoken_question(framework_engine) -> None:
    eng = await framework_engine()
    pcm, _ = spoken_question()
    stt = OpenAIRealtimeSTTService(
        api_key="sk-test",
        base_url=f"{eng.url}/realtime",  # the only change from the real service
        settings=OpenAIRealtimeSTTService.Settings(model="gpt-4o-transcribe"),
        turn_detection={"type": "server_vad", "silence_duration_ms": 500},
    )
    up, down = Recorder(FrameDirection.UPSTREAM), Recorder(FrameDirection.DOWNSTREAM)
    worker = PipelineWorker(
        Pipeline([up, stt, down]),
        cancel_on_idle_timeout=False,
        params=PipelineParams(audio_in_sample_rate=SAMPLE_RATE_HZ),
    )
    runner = WorkerRunner()
    await runner.add_workers(worker)
    run = asyncio.create_task(runner.run())
    try:
        await down.until(lambda: stt._session_ready)

        async def send(chunk: bytes) -> None:
            await worker.queue_frame(InputAudioRawFrame(chunk, SAMPLE_RATE_HZ, 1))

        await stream(send, pcm, silence_ms=1500)
        await down.until(lambda: bool(down.of(TranscriptionFrame)))
    finally:
        await worker.cancel()
        await asyncio.wait_for(run, TIMEOUT_S)
    (transcription,) = down.of(TranscriptionFrame)
    assert _heard_the_question(transcription.text)
    assert not up.of(ErrorFrame) and not down.of(ErrorFrame)


@pytest.fixture
async def http_context():
    """What a LiveKit job process sets up for plugins (LiveKit's tests: the ``job_process`` fixture)."""
    utils.http_context._new_session_ctx()
    yield
    await utils.http_context._close_http_ctx()


async def test_livekit_realtime_stt_transcribes_a_spoken_question(framework_engine, http_context) -> None:
    eng = await framework_engine()
    pcm, _ = spoken_question()
    # A non-OpenAI host: LiveKit puts ?model=gpt-4o-mini-transcribe on the URL beside the intent.
    speech_to_text = lk_openai.STT(base_url=f"{eng.http_url}/v1", api_key="sk-test", use_realtime=True)
    speech = speech_to_text.stream()

    async def send(chunk: bytes) -> None:
        speech.push_frame(rtc.AudioFrame(chunk, SAMPLE_RATE_HZ, 1, len(chunk) // 2))

    finals: list[str] = []

    async def listen() -> None:
        async for event in speech:
            if event.type == lk_stt.SpeechEventType.FINAL_TRANSCRIPT:
                finals.append(event.alternatives[0].text)
                return

    listener = asyncio.create_task(listen())
    try:
        await stream(send, pcm, silence_ms=1500)
        await asyncio.wait_for(listener, TIMEOUT_S)
    finally:
        await speech.aclose()
        await speech_to_text.aclose()
    assert CHUNK_MS and len(finals) == 1 and _heard_the_question(finals[0])
