"""Pipecat's ``OpenAIRealtimeLLMService`` against mockengine, only ``base_url`` changed: the service in a
pipeline between the context aggregators, as Pipecat's realtime examples build it, fed frames the way
Pipecat's test utilities feed a processor (no transport). Asserts with Pipecat's own objects (its
``LLMContext`` messages, function-call callbacks, frames) and that no ``ErrorFrame`` was pushed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    FunctionCallCancelFrame,
    InputAudioRawFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMMessagesAppendFrame,
    LLMRunFrame,
    TTSAudioRawFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import FunctionCallParams
from pipecat.services.openai.realtime import events
from pipecat.services.openai.realtime.llm import OpenAIRealtimeLLMService
from pipecat.workers.runner import WorkerRunner

from tests.integration.compat.speech import (
    BYTES_PER_MS,
    clear_question,
    other_speaker,
    spoken_question,
    stream,
)

pytestmark = pytest.mark.models
TIMEOUT_S = 60
SAMPLE_RATE_HZ = 24_000
WEATHER = FunctionSchema(
    name="get_weather",
    description="Get the weather for a city.",
    properties={"city": {"type": "string", "description": "The city name"}},
    required=["city"],
)


class Recorder(FrameProcessor):
    """Passes every frame on and keeps those going ``direction``, so a test can wait for one."""

    def __init__(self, direction: FrameDirection) -> None:
        super().__init__()
        self.direction = direction
        self.frames: list[Frame] = []
        self.changed = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if direction == self.direction:
            self.frames.append(frame)
            self.changed.set()
        await self.push_frame(frame, direction)

    def of(self, kind: type) -> list[Any]:
        return [f for f in self.frames if isinstance(f, kind)]

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait for ``condition``; rechecked on each frame and every 50 ms, since the aggregators after
        this recorder update the context when no further frame may pass here."""
        async with asyncio.timeout(TIMEOUT_S):
            while not condition():
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 0.05)


class Bot:
    """A running pipeline: upstream recorder, user aggregator, the realtime service, downstream recorder,
    assistant aggregator."""

    def __init__(self, url: str, turn_detection: Any = None, tools: ToolsSchema | None = None) -> None:
        properties = events.SessionProperties(
            instructions="You are a helpful assistant.",
            audio=events.AudioConfiguration(
                input=events.AudioInput(
                    transcription=events.InputAudioTranscription(), turn_detection=turn_detection
                )
            ),
        )
        self.llm = OpenAIRealtimeLLMService(
            api_key="sk-test",
            base_url=url,  # the only change from the real service
            settings=OpenAIRealtimeLLMService.Settings(session_properties=properties),
        )
        self.context = LLMContext([], tools) if tools else LLMContext([])
        aggregators = LLMContextAggregatorPair(self.context)
        self.up = Recorder(FrameDirection.UPSTREAM)
        self.down = Recorder(FrameDirection.DOWNSTREAM)
        pipeline = Pipeline([self.up, aggregators.user(), self.llm, self.down, aggregators.assistant()])
        self.worker = PipelineWorker(
            pipeline,
            cancel_on_idle_timeout=False,
            params=PipelineParams(audio_in_sample_rate=SAMPLE_RATE_HZ, audio_out_sample_rate=SAMPLE_RATE_HZ),
        )
        self._run: asyncio.Task | None = None

    async def __aenter__(self) -> Bot:
        self._run = asyncio.create_task(self._runner())
        return self

    async def _runner(self) -> None:
        runner = WorkerRunner()
        await runner.add_workers(self.worker)
        await runner.run()

    async def __aexit__(self, *_exc: object) -> None:
        await self.worker.cancel()
        assert self._run is not None
        await asyncio.wait_for(self._run, TIMEOUT_S)

    async def say(self, text: str) -> None:
        await self.worker.queue_frame(
            LLMMessagesAppendFrame([{"role": "user", "content": text}], run_llm=True)
        )

    async def send_audio(self, chunk: bytes) -> None:
        await self.worker.queue_frame(InputAudioRawFrame(chunk, SAMPLE_RATE_HZ, 1))

    def replies(self) -> int:
        return len(self.down.of(LLMFullResponseEndFrame))

    def texts_of(self, role: str) -> list[str]:
        return [str(m.get("content")) for m in self.context.get_messages() if m.get("role") == role]

    def assistant_texts(self) -> list[str]:
        return self.texts_of("assistant")

    def errors(self) -> list[ErrorFrame]:
        return self.up.of(ErrorFrame) + self.down.of(ErrorFrame)


async def url_of(start_engine, pace: float = 0.0) -> str:
    eng = await start_engine(audio_pace=pace)
    return f"{eng.url}/realtime"


async def test_typed_turn(framework_engine) -> None:
    async with Bot(await url_of(framework_engine)) as bot:
        await bot.say("What is the capital of France?")
        await bot.down.until(lambda: bot.replies() >= 1 and any("Paris" in t for t in bot.assistant_texts()))
        assert bot.down.of(TTSAudioRawFrame)
        assert not bot.errors()


async def test_declared_tool_called_then_its_output_answered(framework_engine) -> None:
    calls: list[dict[str, Any]] = []

    async def get_weather(params: FunctionCallParams) -> None:
        calls.append(dict(params.arguments))
        await params.result_callback({"weather": f"The weather in {params.arguments['city']} is sunny."})

    async with Bot(await url_of(framework_engine), tools=ToolsSchema(standard_tools=[WEATHER])) as bot:
        bot.llm.register_function("get_weather", get_weather)
        await bot.say("What is the weather like in Paris?")
        await bot.down.until(lambda: bool(calls) and bot.replies() >= 2)
        messages = bot.context.get_messages()
        assert not bot.errors()
    assert calls == [{"city": "Paris"}]
    roles = [m.get("role") for m in messages]
    assert "tool" in roles and roles[-1] == "assistant"
    assert "sunny" in str(next(m for m in messages if m.get("role") == "tool")["content"])
    # the output's one field is a sentence: said as written (it was "The weather in Paris is The weather
    # in Paris is sunny..")
    assert messages[-1]["content"] == "The weather in Paris is sunny."


@pytest.mark.parametrize(
    "turn_detection",
    [events.TurnDetection(silence_duration_ms=500), events.SemanticTurnDetection(eagerness="high")],
    ids=["server_vad", "semantic_vad"],
)
async def test_spoken_turn(framework_engine, turn_detection) -> None:
    # semantic_vad's turn transcript hangs on the CPU's maths for the espeak clip (clear_question)
    is_semantic = isinstance(turn_detection, events.SemanticTurnDetection)
    pcm = clear_question() if is_semantic else spoken_question()[0]
    async with Bot(await url_of(framework_engine), turn_detection) as bot:
        await stream(bot.send_audio, pcm, silence_ms=2000)
        await bot.down.until(lambda: bot.replies() >= 1 and any("Paris" in t for t in bot.assistant_texts()))
        # The user aggregator takes the transcript (a TranscriptionFrame) into the context.
        await bot.down.until(lambda: any("capital" in t.lower() for t in bot.texts_of("user")))
        assert not bot.errors()
    assert any("france" in t.lower() for t in bot.texts_of("user"))


STORY = "Tell me a long story about a lighthouse keeper."


async def test_barge_in(framework_engine) -> None:
    turn_detection = events.TurnDetection(silence_duration_ms=500)
    async with Bot(await url_of(framework_engine, pace=1.0), turn_detection) as bot:
        await bot.say(STORY)
        await bot.down.until(lambda: bool(bot.down.of(TTSAudioRawFrame)))
        # Speech over the reply: the server's VAD cuts it, Pipecat truncates what it played and the
        # speech gets its own reply.
        await stream(bot.send_audio, other_speaker(), silence_ms=1500)
        await bot.down.until(lambda: bot.replies() >= 2 and len(bot.assistant_texts()) >= 2)
        assert not bot.errors()


async def test_pipecats_own_interruption_then_a_spoken_turn(framework_engine) -> None:
    turn_detection = events.TurnDetection(silence_duration_ms=500)
    pcm, _ = spoken_question()
    async with Bot(await url_of(framework_engine, pace=1.0), turn_detection) as bot:
        await bot.say(STORY)
        await bot.down.until(lambda: bool(bot.down.of(TTSAudioRawFrame)))
        await bot.worker.queue_frame(InterruptionFrame())
        await bot.down.until(lambda: bot.replies() >= 1)
        await stream(bot.send_audio, pcm, silence_ms=2000)
        await bot.down.until(lambda: any("Paris" in t for t in bot.assistant_texts()))
        assert not bot.errors()


async def test_a_saved_conversation_is_read_as_the_conversation(framework_engine) -> None:
    """A context of several messages, which Pipecat sends packed into one user message (an introduction,
    the messages as JSON, a closing line), is answered as the conversation it holds: its last question,
    from what was said before it (it was echoed: 'You said [ { "role": "user", …')."""
    async with Bot(await url_of(framework_engine)) as bot:
        bot.context.add_messages(
            [
                {"role": "user", "content": "My name is Ada."},
                {"role": "assistant", "content": "Nice to meet you, Ada."},
                {"role": "user", "content": "What's my name?"},
            ]
        )
        await bot.worker.queue_frame(LLMRunFrame())
        await bot.down.until(lambda: bot.replies() >= 1 and len(bot.assistant_texts()) >= 2)
        assert not bot.errors()
    assert bot.assistant_texts()[-1] == "Your name is Ada."


async def append_at_the_service(bot: Bot, text: str) -> None:
    """An ``LLMMessagesAppendFrame`` reaching the service (from a processor after the user aggregator,
    which keeps such frames to itself): Pipecat sends its message as a ``system`` item and asks for a
    response."""
    await bot.llm.queue_frame(LLMMessagesAppendFrame([{"role": "user", "content": text}], run_llm=True))


async def test_a_message_appended_after_a_reply_is_answered(framework_engine) -> None:
    """The appended words are answered; the earlier question was answered again ("So you're asking what
    is the capital of France.")."""
    async with Bot(await url_of(framework_engine)) as bot:
        await bot.say("What is the capital of France?")
        await bot.down.until(lambda: any("Paris" in t for t in bot.assistant_texts()))
        await append_at_the_service(bot, "What is the capital of Italy?")
        await bot.down.until(lambda: bot.replies() >= 2 and len(bot.assistant_texts()) >= 2)
        assert not bot.errors()
    assert "Rome" in bot.assistant_texts()[-1] and "France" not in bot.assistant_texts()[-1]


async def test_a_call_cancelled_by_an_interruption_then_new_words(framework_engine, server_events) -> None:
    """``register_function(…, cancel_on_interruption=True)`` and an interruption while the function runs:
    Pipecat answers the call ``CANCELLED``; the words appended next are answered (the reply was "The
    weather in Paris is CANCELLED.")."""
    calls: list[dict[str, Any]] = []
    release = asyncio.Event()

    async def get_weather(params: FunctionCallParams) -> None:
        calls.append(dict(params.arguments))
        await release.wait()
        await params.result_callback({"weather": "sunny"})

    async with Bot(await url_of(framework_engine), tools=ToolsSchema(standard_tools=[WEATHER])) as bot:
        bot.llm.register_function("get_weather", get_weather, cancel_on_interruption=True)
        await bot.say("What is the weather like in Paris?")
        await bot.down.until(lambda: bool(calls) and bot.replies() >= 1)
        await bot.worker.queue_frame(InterruptionFrame())
        await bot.down.until(lambda: bool(bot.down.of(FunctionCallCancelFrame)))
        await append_at_the_service(bot, "What is the capital of France?")
        await bot.down.until(lambda: any("capital" in t for t in bot.assistant_texts()))
        release.set()
        assert not bot.errors()
    outputs = [
        event["item"]["output"]
        for event in server_events
        if event["type"] == "conversation.item.added" and event["item"]["type"] == "function_call_output"
    ]
    assert outputs == ["CANCELLED"]
    answer = bot.assistant_texts()[-1]
    assert "Paris is the capital of France" in answer and "CANCELLED" not in answer


async def test_manual_turns_from_pipecats_own_vad(framework_engine, server_events) -> None:
    """``turn_detection=False`` (Pipecat's manual mode, its own VAD deciding turns): the user's stop
    commits the buffer and asks for a response; its interruption of a reply clears the buffer, appends
    the speech onset again (its pre-roll), cancels the response and truncates what was played. The reply
    is cut, the question spoken over it is heard whole and answered, and no ``error`` is sent."""
    question = clear_question()  # a second of silence, then the question
    onset = (1000 + 300) * BYTES_PER_MS  # the local VAD hears the speech 300 ms in
    async with Bot(await url_of(framework_engine, pace=1.0), turn_detection=False) as bot:
        await bot.say(STORY)
        await bot.down.until(lambda: len(bot.down.of(TTSAudioRawFrame)) > 10)
        await stream(bot.send_audio, question[:onset])
        await bot.worker.queue_frame(UserStartedSpeakingFrame())
        await bot.worker.queue_frame(InterruptionFrame())
        await stream(bot.send_audio, question[onset:], silence_ms=500)
        await bot.worker.queue_frame(UserStoppedSpeakingFrame())
        await bot.down.until(lambda: any("Paris" in t for t in bot.assistant_texts()))
        assert not bot.errors()
    kinds = [e["type"] for e in server_events]
    assert "input_audio_buffer.speech_started" not in kinds  # no server VAD
    cancelled = [e for e in server_events if e["type"] == "response.done"][0]["response"]
    assert cancelled["status"] == "cancelled"
    assert "conversation.item.truncated" in kinds
    heard = [
        e["transcript"]
        for e in server_events
        if e["type"] == "conversation.item.input_audio_transcription.completed"
    ]
    assert heard == ["What is the capital of France?"]


async def test_a_response_asked_for_while_the_tool_runs_does_not_call_it_again(
    framework_engine, server_events
) -> None:
    """An append with no words while the tool runs: Pipecat sends no item but asks for a response (held
    for ``response.done`` while the call's response runs) before the tool's output is sent. That
    response does not call ``get_weather`` again (it did: the same call, the tool run twice, as in a
    9-minute Pipecat run); it says it is waiting, and the output, once sent, is answered (docs/tools.md,
    "A response while a call is pending")."""
    calls: list[dict[str, Any]] = []
    release = asyncio.Event()

    async def get_weather(params: FunctionCallParams) -> None:
        calls.append(dict(params.arguments))
        await append_at_the_service(bot, "")  # no words: Pipecat sends no item, only asks for a response
        await release.wait()
        await params.result_callback({"weather": "The weather in Paris is sunny."})

    async with Bot(await url_of(framework_engine), tools=ToolsSchema(standard_tools=[WEATHER])) as bot:
        bot.llm.register_function("get_weather", get_weather)
        await bot.say("What is the weather like in Paris?")
        await bot.down.until(lambda: bool(calls) and bot.replies() >= 2)
        release.set()
        await bot.down.until(lambda: bot.replies() >= 3 and "sunny" in bot.assistant_texts()[-1])
        assert not bot.errors()
    function_calls = [
        event["item"]
        for event in server_events
        if event["type"] == "conversation.item.added" and event["item"]["type"] == "function_call"
    ]
    assert calls == [{"city": "Paris"}] and len(function_calls) == 1, function_calls
    assert "One moment, I'm still waiting for that result." in bot.assistant_texts()
