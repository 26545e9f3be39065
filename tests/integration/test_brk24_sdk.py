"""Found by a new user (stop brk24) driving LiveKit Agents' and Pipecat's realtime plugins with the app's
own tools and interruptions, only the URL changed.

LiveKit's ``AgentSession.run``: a question answered through the agent's ``get_weather``, then "What did I
just say?". A model quotes the user's newest words from its context; the participant echoed the request
as content ("So you're asking what did I just say. I'm not sure, to be honest.").

Pipecat's ``OpenAIRealtimeLLMService``: "What did you just say?" spoken over a story, which Pipecat's own
interruption cuts (it cancels the response and truncates the item at what it played). A model still hears
the audio it kept and says those words again; the participant said "I haven't said anything yet. What can
I do for you?" (the cut item kept no words for it).

LiveKit's ``AgentSession.generate_reply(instructions="Ask the user which city they want the weather
for.")``, then the user's answer "Berlin, please.": a model calls the agent's ``get_weather`` for Berlin
and says its result; the participant echoed the answer ("I heard you say Berlin, please. Tell me more."),
since no request of the user's waited on the question.

Pipecat's ``LLMSetToolsFrame`` mid-call (a ``session.update`` adding ``get_time``), then words the app
appends at the service (``LLMMessagesAppendFrame``, sent as ``system`` items): "And what time is it
there?" calls ``get_time`` for Paris; "What did I just say?" quoted the first question ("You asked “What is
the weather like in Paris?”"): only the newest appended message was read as the user's words."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import (
    InterruptionFrame,
    LLMSetToolsFrame,
    TTSAudioRawFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.services.llm_service import FunctionCallParams

from tests.integration.compat.conftest import framework_engine, server_events
from tests.integration.compat.speech import BYTES_PER_MS, engine_speech, stream
from tests.integration.compat.test_livekit import (
    TIMEOUT_S,
    Assistant,
    base_url,
    http_context,
    started_session,
)
from tests.integration.compat.test_pipecat import STORY, WEATHER, Bot, append_at_the_service, url_of

pytestmark = pytest.mark.models
__all__ = ["framework_engine", "http_context", "server_events"]  # the fixtures, used by name


async def test_livekit_what_did_i_just_say_after_a_tool_answer(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        await asyncio.wait_for(session.run(user_input="What is the weather like in Paris?"), TIMEOUT_S)
        result = await asyncio.wait_for(session.run(user_input="What did I just say?"), TIMEOUT_S)
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
        said = [(item.role, item.text_content) for item in session.history.items if item.type == "message"]
    assert agent.weather_calls == ["Paris"]
    assert reply.event().item.text_content == "You asked “What is the weather like in Paris?”"
    assert said[0] == ("user", "What is the weather like in Paris?")
    assert said[-2:] == [("user", "What did I just say?"), ("assistant", reply.event().item.text_content)]
    assert not errors


async def test_pipecat_what_did_you_just_say_over_the_reply(framework_engine, server_events) -> None:
    """``turn_detection=False`` (Pipecat's own VAD decides turns), the question spoken over the story:
    Pipecat's interruption cancels the response and truncates the item at what it played, and the user's
    stop commits the question and asks for a response."""
    eng = await framework_engine(audio_pace=1.0)
    question = await engine_speech(eng.http_url, "What did you just say?")
    onset = 1300 * BYTES_PER_MS  # engine_speech leads with a second of silence; the local VAD hears 300 ms in
    async with Bot(f"{eng.url}/realtime", turn_detection=False) as bot:
        await bot.say(STORY)
        # about a second and a half of the story played before the user speaks
        await bot.down.until(lambda: sum(len(f.audio) for f in bot.down.of(TTSAudioRawFrame)) > 72_000)
        await stream(bot.send_audio, question[:onset])
        await bot.worker.queue_frame(UserStartedSpeakingFrame())
        await bot.worker.queue_frame(InterruptionFrame())
        await stream(bot.send_audio, question[onset:], silence_ms=500)
        await bot.worker.queue_frame(UserStoppedSpeakingFrame())
        await bot.down.until(lambda: len([e for e in server_events if e["type"] == "response.done"]) >= 2)
        await bot.down.until(lambda: len(bot.assistant_texts()) >= 2)
        assert not bot.errors()
    cut, answer = [e["response"] for e in server_events if e["type"] == "response.done"]
    (truncated,) = [e for e in server_events if e["type"] == "conversation.item.truncated"]
    assert cut["status"] == "cancelled" and truncated["audio_end_ms"] > 0
    again = answer["output"][0]["content"][0]["transcript"]
    # the words said before the cut, again; not the story's unheard rest
    assert again.startswith(("Sure. Here is a story", "Of course. Here is a story")), again
    told = cut["output"][0]["content"][0]["transcript"]
    heard = again.split(". ", 1)[1]
    assert told.startswith(heard), (again, told)
    assert bot.assistant_texts()[-1] == again


async def test_livekit_the_answer_to_a_question_its_instructions_put_calls_the_tool(
    framework_engine, http_context
) -> None:
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        asked = session.generate_reply(instructions="Ask the user which city they want the weather for.")
        await asyncio.wait_for(asked, TIMEOUT_S)
        question = [item.text_content for item in asked.chat_items if item.type == "message"]
        result = await asyncio.wait_for(session.run(user_input="Berlin, please."), TIMEOUT_S)
        result.expect.skip_next_event_if(type="message", role="assistant")  # "Checking weather —"
        result.expect.next_event().is_function_call(name="get_weather", arguments={"city": "Berlin"})
        result.expect.skip_next_event_if(type="message", role="assistant")
        result.expect.next_event().is_function_call_output()
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert question == ["Could you tell me which city you want the weather for?"]
    assert agent.weather_calls == ["Berlin"]
    assert reply.event().item.text_content == "The weather in Berlin is sunny."
    assert not errors


TIME = FunctionSchema(
    name="get_time",
    description="Get the current time in a city.",
    properties={"city": {"type": "string", "description": "The city name"}},
    required=["city"],
)


async def test_pipecat_tools_set_mid_call_then_appended_words_recalled(
    framework_engine, server_events
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    async def run(params: FunctionCallParams) -> None:
        calls.append((params.function_name, dict(params.arguments)))
        await params.result_callback({"result": "sunny" if params.function_name == "get_weather" else "3 pm"})

    async with Bot(await url_of(framework_engine), tools=ToolsSchema(standard_tools=[WEATHER])) as bot:
        bot.llm.register_function(None, run)
        await bot.say("What is the weather like in Paris?")
        await bot.down.until(lambda: len(calls) == 1 and bot.replies() >= 2)
        await bot.worker.queue_frame(LLMSetToolsFrame(tools=ToolsSchema(standard_tools=[WEATHER, TIME])))
        await bot.down.until(lambda: len([e for e in server_events if e["type"] == "session.updated"]) >= 3)
        await append_at_the_service(bot, "And what time is it there?")
        await bot.down.until(lambda: len(calls) == 2 and bot.replies() >= 4)
        await append_at_the_service(bot, "What did I just say?")
        await bot.down.until(lambda: bot.replies() >= 5)
        await bot.down.until(lambda: bot.context.get_messages()[-1].get("role") == "assistant")
        assert not bot.errors()
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})]
    assert bot.assistant_texts()[-1] == "You asked “And what time is it there?”"
