"""Microsoft Semantic Kernel's ``OpenAIRealtimeWebsocket`` (``semantic-kernel`` 1.45, GA interface: it
connects through openai-python's ``client.realtime.connect`` and sends ``session.type: "realtime"``) against
mockengine, as its realtime samples use it, with only the OpenAI client's ``websocket_base_url`` changed: a
kernel function offered as a tool and auto-invoked (``FunctionChoiceBehavior.Auto()``) on a typed turn, a
spoken turn that server_vad ends and whisper transcribes, and a reply cancelled mid-audio.

Semantic Kernel pins ``mcp<2`` and ``pydantic<2.14``, which the engine's own MCP client (``mcp>=2.3``)
excludes, so ``make test`` installs it with ``--no-deps`` beside the few packages its realtime path imports
(pyproject.toml's ``test`` extra); this test shows that path runs on the newer pair. Without it the test is
skipped with that reason, except on CI (``CI=true``), where it fails."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest
from openai import AsyncOpenAI

from tests.integration.compat.speech import spoken_question, stream

try:
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai import FunctionChoiceBehavior
    from semantic_kernel.connectors.ai.open_ai import (
        InputAudioTranscription,
        OpenAIRealtimeExecutionSettings,
        OpenAIRealtimeWebsocket,
        TurnDetection,
    )
    from semantic_kernel.contents import (
        AudioContent,
        ChatHistory,
        RealtimeAudioEvent,
        RealtimeEvent,
        RealtimeFunctionCallEvent,
        RealtimeFunctionResultEvent,
        RealtimeTextEvent,
    )
    from semantic_kernel.functions import kernel_function
except ImportError as missing:  # pragma: no cover - depends on the machine
    reason = f"semantic-kernel is not installed ({missing}); `make test` installs it"
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)

pytestmark = pytest.mark.models
TIMEOUT_S = 60


class WeatherPlugin:
    def __init__(self) -> None:
        self.calls: list[str] = []

    @kernel_function(description="Get the weather for a city.")
    def get_weather(self, city: Annotated[str, "The city name"]) -> str:
        self.calls.append(city)
        return f"The weather in {city} is sunny."


def realtime_client(eng: Any) -> OpenAIRealtimeWebsocket:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url)  # the only change
    return OpenAIRealtimeWebsocket(client=client, ai_model_id="gpt-realtime")


def settings(**options: Any) -> OpenAIRealtimeExecutionSettings:
    return OpenAIRealtimeExecutionSettings(
        instructions="You are a helpful assistant.",
        voice="alloy",
        turn_detection=TurnDetection(type="server_vad", silence_duration_ms=500),
        input_audio_transcription=InputAudioTranscription(model="gpt-4o-mini-transcribe"),
        **options,
    )


async def events_until(rt: OpenAIRealtimeWebsocket, responses: int, seen: list[Any]) -> AsyncIterator[Any]:
    """Semantic Kernel's events (appended to ``seen`` too) until ``responses`` ``response.done``s."""
    done = 0
    async for event in rt.receive():
        seen.append(event)
        yield event
        if event.service_type == "response.done":
            done += 1
            if done == responses:
                return


def text_of(events: list[Any]) -> str:
    return "".join(e.text.text for e in events if isinstance(e, RealtimeTextEvent))


def server_errors(events: list[Any]) -> list[Any]:
    return [e.service_event for e in events if e.service_type == "error"]


async def test_kernel_function_called_as_a_tool(framework_engine) -> None:
    eng = await framework_engine(audio_pace=0.0)
    weather = WeatherPlugin()
    kernel = Kernel()
    kernel.add_plugin(weather, "weather")
    history = ChatHistory()
    history.add_user_message("What is the weather like in Paris?")
    rt = realtime_client(eng)
    seen: list[Any] = []
    options = settings(function_choice_behavior=FunctionChoiceBehavior.Auto())
    async with rt(settings=options, chat_history=history, kernel=kernel, create_response=True):

        async def run() -> None:
            # the call's response, then the one Semantic Kernel asks for after sending the output
            async for _ in events_until(rt, 2, seen):
                pass

        await asyncio.wait_for(run(), TIMEOUT_S)
    assert not server_errors(seen), server_errors(seen)
    updated = next(e.service_event.session for e in seen if e.service_type == "session.updated")
    assert [tool.name for tool in updated.tools] == ["weather-get_weather"]  # plugin-function
    call = next(
        e.function_call
        for e in seen
        if isinstance(e, RealtimeFunctionCallEvent)
        and e.service_type == "response.function_call_arguments.done"
    )
    assert (call.plugin_name, call.function_name) == ("weather", "get_weather")
    assert weather.calls == ["Paris"]
    result = next(e.function_result for e in seen if isinstance(e, RealtimeFunctionResultEvent))
    assert result.result == "The weather in Paris is sunny."
    assert "sunny" in text_of(seen)


async def test_spoken_turn_and_cancel(framework_engine) -> None:
    eng = await framework_engine(audio_pace=1.0)  # real-time reply audio, so there is something to cancel
    pcm, _ = spoken_question()
    rt = realtime_client(eng)
    seen: list[Any] = []
    async with rt(settings=settings()):

        async def send(chunk: bytes) -> None:
            audio = AudioContent(data=base64.b64encode(chunk).decode(), data_format="base64")
            await rt.send(RealtimeAudioEvent(audio=audio))

        async def spoken() -> None:
            async for _ in events_until(rt, 1, seen):
                pass

        speaking = asyncio.create_task(stream(send, pcm, silence_ms=1500))
        await asyncio.wait_for(spoken(), TIMEOUT_S)
        await speaking
        answer = text_of(seen)

        # A long reply, cancelled at its first audio as an app's "stop" button would.
        await rt.send(RealtimeEvent(service_type="response.create"))
        cancelled: list[Any] = []

        async def cancel_at_first_audio() -> None:
            sent_cancel = False
            async for event in events_until(rt, 1, cancelled):
                if isinstance(event, RealtimeAudioEvent) and not sent_cancel:
                    sent_cancel = True
                    await rt.send(RealtimeEvent(service_type="response.cancel"))

        await asyncio.wait_for(cancel_at_first_audio(), TIMEOUT_S)
    assert not server_errors(seen + cancelled), server_errors(seen + cancelled)
    heard = next(
        e.service_event.transcript
        for e in seen
        if e.service_type == "conversation.item.input_audio_transcription.completed"
    )
    assert "capital" in heard.lower() and "france" in heard.lower()
    assert "Paris" in answer
    done = next(e.service_event.response for e in cancelled if e.service_type == "response.done")
    assert done.status == "cancelled" and done.status_details.reason == "client_cancelled"
