"""A whole cascaded Pipecat voice bot against mockengine, only ``base_url`` changed: speech in, STT
(``OpenAISTTService`` on ``/v1/audio/transcriptions``, or ``OpenAIRealtimeSTTService`` on a transcription
session), the context aggregators with Silero VAD, ``OpenAILLMService`` (Chat Completions) with a
``get_weather`` function registered the Pipecat way, ``OpenAITTSService`` (``/v1/audio/speech``), and an
output transport that plays the audio at real-time pace (no device), run by Pipecat's own runner.

The question is the engine's own speech in another voice, streamed at real-time pace at the 16 kHz
Silero takes. Asserts with Pipecat's objects (its context, its function call, its frames), that whisper
hears the played answer, and that nothing pushed an ``ErrorFrame``; prints the latency from the end of
the user's speech to the first audio played."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (
    ErrorFrame,
    InputAudioRawFrame,
    InterruptionFrame,
    MetricsFrame,
    OutputAudioRawFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
)
from pipecat.metrics.metrics import LLMUsageMetricsData, TTSUsageMetricsData
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.openai.stt import OpenAIRealtimeSTTService, OpenAISTTService
from pipecat.services.openai.tts import OpenAITTSService
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import TransportParams
from pipecat.workers.runner import WorkerRunner

from tests.integration.compat.speech import engine_speech, other_speaker, speech_end_ms, stream, to_16k
from tests.integration.compat.test_pipecat import Recorder
from tests.speech import word_error_rate

pytestmark = pytest.mark.models
TIMEOUT_S = 40
IN_RATE_HZ = 16_000  # what Silero VAD takes
OUT_RATE_HZ = 24_000  # what OpenAI TTS speaks
BYTES_PER_MS_16K = 32
# "London": the bundled tiny.en hears some voices' "Paris" as "pairs".
WEATHER_QUESTION = "What is the weather like in London?"
STORY_QUESTION = "Tell me a long story about a lighthouse keeper."
WEATHER = FunctionSchema(
    name="get_weather",
    description="Get the weather for a city.",
    properties={"city": {"type": "string", "description": "The city name"}},
    required=["city"],
)


class Speaker(BaseOutputTransport):
    """An output transport whose device takes each frame in its own time (a sleep as long as the
    audio), as a network transport paces its writes; keeps what it played and when."""

    def __init__(self) -> None:
        super().__init__(TransportParams(audio_out_enabled=True))
        self.played: list[tuple[float, bytes]] = []

    async def start(self, frame: Any) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        self.played.append((time.monotonic(), frame.audio))
        await asyncio.sleep(len(frame.audio) / 2 / frame.sample_rate)
        return True

    @property
    def audio(self) -> bytes:
        return b"".join(audio for _, audio in self.played)


class CascadeBot:
    """STT → user aggregator (Silero VAD) → LLM → TTS → speaker → assistant aggregator, with recorders
    for the frames going up from the STT's side and down after the STT and after the TTS."""

    def __init__(self, base_url: str, ws_url: str, realtime_stt: bool) -> None:
        self.calls: list[dict[str, Any]] = []
        stt: OpenAISTTService | OpenAIRealtimeSTTService
        if realtime_stt:  # gpt-realtime-whisper, turn detection off, committed on the VAD's stop
            stt = OpenAIRealtimeSTTService(api_key="sk-test", base_url=f"{ws_url}/realtime")
        else:  # gpt-transcribe, one request per VAD segment
            stt = OpenAISTTService(api_key="sk-test", base_url=base_url)
        self.llm = OpenAILLMService(
            api_key="sk-test",
            base_url=base_url,
            settings=OpenAILLMService.Settings(
                system_instruction="You are a helpful voice assistant. Be brief."
            ),
        )
        self.llm.register_function("get_weather", self._get_weather)
        tts = OpenAITTSService(
            api_key="sk-test",
            base_url=base_url,
            settings=OpenAITTSService.Settings(voice="coral", instructions="Speak in a cheerful tone."),
        )
        self.context = LLMContext(tools=ToolsSchema(standard_tools=[WEATHER]))
        aggregators = LLMContextAggregatorPair(
            self.context, user_params=LLMUserAggregatorParams(vad_analyzer=SileroVADAnalyzer())
        )
        self.up = Recorder(FrameDirection.UPSTREAM)
        self.heard = Recorder(FrameDirection.DOWNSTREAM)
        self.out = Recorder(FrameDirection.DOWNSTREAM)
        self.speaker = Speaker()
        pipeline = Pipeline(
            [self.up, stt, self.heard, aggregators.user(), self.llm, tts, self.out, self.speaker]
            + [aggregators.assistant()]
        )
        self.worker = PipelineWorker(
            pipeline,
            cancel_on_idle_timeout=False,
            params=PipelineParams(
                audio_in_sample_rate=IN_RATE_HZ,
                audio_out_sample_rate=OUT_RATE_HZ,
                enable_metrics=True,
                enable_usage_metrics=True,
            ),
        )
        self._run: asyncio.Task[None] | None = None

    async def _get_weather(self, params: FunctionCallParams) -> None:
        self.calls.append(dict(params.arguments))
        await params.result_callback({"city": params.arguments["city"], "conditions": "sunny", "celsius": 21})

    async def send(self, chunk: bytes) -> None:
        await self.worker.queue_frame(InputAudioRawFrame(chunk, IN_RATE_HZ, 1))

    def assistant_replies(self) -> list[str]:
        return [
            str(message["content"])
            for message in self.context.get_messages()
            if message.get("role") == "assistant" and message.get("content")
        ]

    def errors(self) -> list[Any]:
        return [*self.up.of(ErrorFrame), *self.heard.of(ErrorFrame), *self.out.of(ErrorFrame)]

    async def __aenter__(self) -> CascadeBot:
        runner = WorkerRunner()
        await runner.add_workers(self.worker)
        self._run = asyncio.create_task(runner.run())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.worker.cancel()
        assert self._run is not None
        await asyncio.wait_for(self._run, TIMEOUT_S)


def heard(real_resources: Any, pcm16_24k: bytes) -> str:
    return str(real_resources.transcriber.transcribe(pcm16_24k).text)


@pytest.mark.parametrize("realtime_stt", [False, True], ids=["rest_stt", "realtime_stt"])
async def test_a_spoken_question_is_answered_aloud_through_a_tool(
    engine, server_events, real_resources, realtime_stt
) -> None:
    eng = await engine()
    question = await engine_speech(eng.http_url, WEATHER_QUESTION)
    end_ms = speech_end_ms(question)
    async with CascadeBot(f"{eng.http_url}/v1", eng.url, realtime_stt) as bot:
        started = asyncio.get_running_loop().time()  # within a millisecond of stream's own start
        mic = asyncio.create_task(stream(bot.send, to_16k(question), 15_000, BYTES_PER_MS_16K))
        await bot.out.until(lambda: bool(bot.assistant_replies()))  # spoken, then added to the context
        mic.cancel()
    # The user's words reached the LLM; Pipecat ran the function and sent its result back.
    (transcription,) = bot.heard.of(TranscriptionFrame)
    assert word_error_rate(WEATHER_QUESTION, transcription.text) <= 0.25, transcription.text
    assert bot.calls == [{"city": "London"}]
    messages = bot.context.get_messages()
    (call,) = [m for m in messages if m.get("tool_calls")]
    assert call["tool_calls"][0]["function"]["name"] == "get_weather"
    (result,) = [m for m in messages if m.get("role") == "tool"]
    assert result["tool_call_id"] == call["tool_calls"][0]["id"] and "sunny" in result["content"]
    # The answer was spoken at the pipeline's rate and played: whisper hears it.
    (reply,) = bot.assistant_replies()
    assert "London" in reply and "sunny" in reply
    assert {frame.sample_rate for frame in bot.out.of(TTSAudioRawFrame)} == {OUT_RATE_HZ}
    played = heard(real_resources, bot.speaker.audio).lower()
    assert "london" in played and "sunny" in played, played
    # Pipecat's usage metrics, from the engine's streamed usage chunks: both LLM calls, the spoken text.
    metrics = [data for frame in bot.out.of(MetricsFrame) for data in frame.data]
    llm_usage = [data.value for data in metrics if isinstance(data, LLMUsageMetricsData)]
    assert len(llm_usage) == 2 and all(u.prompt_tokens > 0 and u.completion_tokens > 0 for u in llm_usage)
    assert sum(data.value for data in metrics if isinstance(data, TTSUsageMetricsData)) == len(reply)
    assert not bot.errors()
    assert not [event for event in server_events if event["type"] == "error"]
    latency_s = bot.speaker.played[0][0] - (started + end_ms / 1000)  # both monotonic clocks
    print(
        f"pipecat {'realtime' if realtime_stt else 'rest'} STT: end of speech → first audio {latency_s:.2f} s"
    )
    # The figure is printed, not held to a speed: a loaded 2-core machine took 8.3 s where a quiet one takes
    # 0.5-1.9 s. The bound only catches a stall (a request left waiting on a timeout).
    assert 0 < latency_s < 30


async def test_speaking_over_the_answer_interrupts_it_and_is_answered(engine, real_resources, caplog) -> None:
    eng = await engine()
    question = to_16k(await engine_speech(eng.http_url, STORY_QUESTION))
    async with CascadeBot(f"{eng.http_url}/v1", eng.url, realtime_stt=False) as bot:
        mic = asyncio.create_task(stream(bot.send, question, 1_000, BYTES_PER_MS_16K))
        await bot.out.until(lambda: len(bot.speaker.played) > 0)
        await mic
        # The story plays (its first sentence takes about 3 s); then the user talks over the second.
        await stream(bot.send, bytes(3_500 * BYTES_PER_MS_16K), bytes_per_ms=BYTES_PER_MS_16K)
        interrupted_at = time.monotonic()
        await stream(bot.send, to_16k(other_speaker()), 1_500, BYTES_PER_MS_16K)
        await bot.out.until(lambda: any("Chicago" in reply for reply in bot.assistant_replies()))
    # Cut where the user spoke: the context keeps the sentence that was spoken, the speaker stopped.
    assert bot.out.of(InterruptionFrame)
    story, answer = bot.assistant_replies()
    assert story.startswith("Here is a story") and "thank you" not in story, story
    users = [m["content"] for m in bot.context.get_messages() if m.get("role") == "user"]
    assert len(users) == 2 and word_error_rate("My sister lives in Chicago.", users[1]) <= 0.4, users
    story_played = b"".join(audio for at, audio in bot.speaker.played if at < interrupted_at + 1.0)
    assert len(story_played) < 10 * OUT_RATE_HZ * 2  # well short of the whole story (~17 s)
    assert "chicago" in heard(real_resources, bot.speaker.audio[len(story_played) :]).lower()
    assert not bot.errors()
    # The cut answer's requests (the speech streaming, the next sentences') ended quietly on the engine.
    assert not [
        r
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith(("mockengine", "aiohttp"))
    ]
