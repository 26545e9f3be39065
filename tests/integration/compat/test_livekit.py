"""LiveKit Agents with ``livekit-plugins-openai`` against mockengine, driven as LiveKit's own docs and
tests do, with only the URL changed: ``AgentSession.run(user_input=…)`` with its ``RunResult``
assertions (LiveKit's documented testing API, no room), and the plugin's ``RealtimeSession`` fed audio
frames for spoken turns and interruptions (as LiveKit's tests/test_realtime do). Asserts with LiveKit's
own objects and that no ``error`` event was emitted. A commit while the user speaks (LiveKit's
push-to-talk) ends LiveKit's "user speaking"."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from livekit import rtc
from livekit.agents import Agent, AgentSession, RunContext, function_tool, llm, utils
from livekit.plugins import openai
from openai.types import realtime
from pydantic import BaseModel

from tests.integration.compat.speech import CHUNK_MS, clear_question, other_speaker, spoken_question, stream
from tests.speech import question

pytestmark = pytest.mark.models
TIMEOUT_S = 60
SAMPLE_RATE_HZ = 24_000


@pytest.fixture
async def http_context():
    """What a LiveKit job process sets up for plugins (LiveKit's tests: the ``job_process`` fixture)."""
    utils.http_context._new_session_ctx()
    yield
    await utils.http_context._close_http_ctx()


def model(base_url: str, **options: Any) -> openai.realtime.RealtimeModel:
    return openai.realtime.RealtimeModel(
        base_url=base_url,  # the only change from the real service
        api_key="sk-test",
        voice="alloy",
        input_audio_transcription=realtime.AudioTranscription(model="gpt-4o-mini-transcribe"),
        **options,
    )


async def base_url(start_engine, pace: float = 0.0) -> str:
    eng = await start_engine(audio_pace=pace)
    return f"{eng.http_url}/v1"


class Assistant(Agent):
    def __init__(self, chat_ctx: llm.ChatContext | None = None) -> None:
        super().__init__(instructions="You are a helpful assistant.", chat_ctx=chat_ctx)
        self.weather_calls: list[str] = []

    @function_tool
    async def get_weather(self, context: RunContext, city: str) -> str:
        """Get the weather for a city.

        Args:
            city: The city name
        """
        self.weather_calls.append(city)
        return f"The weather in {city} is sunny."


def record_errors(emitter: Any) -> list[Any]:
    """The ``error`` events LiveKit emits, and every ``error`` the server sent (LiveKit passes over some,
    such as a failed cancel, without emitting them)."""
    errors: list[Any] = []
    emitter.on("error", errors.append)
    if isinstance(emitter, llm.RealtimeSession):
        emitter.on("openai_server_event_received", lambda ev: ev.get("type") == "error" and errors.append(ev))
    return errors


def watch_sessions(realtime_model: openai.realtime.RealtimeModel, errors: list[Any]) -> None:
    """Record server errors on the realtime session an ``AgentSession`` opens."""
    open_session = realtime_model.session

    def session(**options: Any) -> llm.RealtimeSession:
        created = open_session(**options)
        created.on("openai_server_event_received", lambda ev: ev.get("type") == "error" and errors.append(ev))
        return created

    realtime_model.session = session  # type: ignore[method-assign]


@contextlib.asynccontextmanager
async def started_session(url: str, agent: Agent) -> AsyncIterator[tuple[AgentSession, list[Any]]]:
    """An ``AgentSession`` on the engine's realtime model at ``url``, started with ``agent``, and the list
    of errors the session and the model's sessions record (``record_errors``, ``watch_sessions``)."""
    async with model(url) as realtime_model, AgentSession(llm=realtime_model) as session:
        errors = record_errors(session)
        watch_sessions(realtime_model, errors)
        await session.start(agent)
        yield session, errors


async def test_agent_session_run_typed_turn(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    async with started_session(url, Assistant()) as (session, errors):
        result = await asyncio.wait_for(session.run(user_input="What is the capital of France?"), TIMEOUT_S)
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert "Paris" in reply.event().item.text_content
    assert not errors


async def test_agent_session_run_tool_call_and_follow_up(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        result = await asyncio.wait_for(
            session.run(user_input="What is the weather like in Paris?"), TIMEOUT_S
        )
        # The participant may say a short clause while it acts ("Checking the weather —").
        result.expect.skip_next_event_if(type="message", role="assistant")
        result.expect.next_event().is_function_call(name="get_weather", arguments={"city": "Paris"})
        # LiveKit records that clause when its playout ends, which may come after the call it records
        # as soon as the arguments are done (seen when another framework's test ran first).
        result.expect.skip_next_event_if(type="message", role="assistant")
        output = result.expect.next_event().is_function_call_output()
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert agent.weather_calls == ["Paris"]
    assert output.event().item.output == f"The weather in {agent.weather_calls[0]} is sunny."
    assert reply.event().item.text_content
    assert not errors


def frames_sender(session: llm.RealtimeSession):
    async def send(chunk: bytes) -> None:
        samples = len(chunk) // 2
        session.push_audio(
            rtc.AudioFrame(
                data=chunk, sample_rate=SAMPLE_RATE_HZ, num_channels=1, samples_per_channel=samples
            )
        )

    return send


async def collect_text(generation: llm.GenerationCreatedEvent) -> str:
    parts: list[str] = []
    async for message in generation.message_stream:
        async for chunk in message.text_stream:
            parts.append(chunk)
    return "".join(parts)


@pytest.mark.parametrize(
    "turn_detection",
    [
        realtime.realtime_audio_input_turn_detection.ServerVad(type="server_vad", silence_duration_ms=500),
        realtime.realtime_audio_input_turn_detection.SemanticVad(type="semantic_vad", eagerness="high"),
    ],
    ids=["server_vad", "semantic_vad"],
)
async def test_spoken_turn(framework_engine, http_context, turn_detection) -> None:
    url = await base_url(framework_engine)
    # semantic_vad's turn transcript hangs on the CPU's maths for the espeak clip (clear_question)
    pcm = clear_question() if turn_detection.type == "semantic_vad" else spoken_question()[0]
    async with model(url, turn_detection=turn_detection) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        transcripts: list[str] = []
        generations: asyncio.Queue[llm.GenerationCreatedEvent] = asyncio.Queue()
        session.on("input_audio_transcription_completed", lambda ev: transcripts.append(ev.transcript))
        session.on("generation_created", generations.put_nowait)
        await stream(frames_sender(session), pcm, silence_ms=2000)
        generation = await asyncio.wait_for(generations.get(), TIMEOUT_S)
        text = await asyncio.wait_for(collect_text(generation), TIMEOUT_S)
        await session.aclose()
    assert not generation.user_initiated and "Paris" in text
    heard = " ".join(transcripts).lower()
    assert "capital" in heard and "france" in heard
    assert not errors


async def test_barge_in_and_interrupt(framework_engine, http_context) -> None:
    url = await base_url(framework_engine, pace=1.0)
    turn_detection = realtime.realtime_audio_input_turn_detection.ServerVad(
        type="server_vad", silence_duration_ms=500, interrupt_response=True
    )
    async with model(url, turn_detection=turn_detection) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        sent: list[str] = []
        session.on("openai_client_event_queued", lambda ev: sent.append(_client_type(ev)))
        started = asyncio.Event()
        session.on("input_speech_started", lambda _: started.set())
        story = "Tell me a long story about a lighthouse keeper."

        # Speech over a long reply: the server's VAD cuts it and LiveKit sees the speech start.
        generation = await asyncio.wait_for(session.generate_reply(instructions=story), TIMEOUT_S)
        message = await asyncio.wait_for(anext(aiter(generation.message_stream)), TIMEOUT_S)
        await asyncio.wait_for(anext(aiter(message.audio_stream)), TIMEOUT_S)
        await stream(frames_sender(session), other_speaker(), silence_ms=CHUNK_MS)
        await asyncio.wait_for(started.wait(), TIMEOUT_S)
        await asyncio.wait_for(drain(message), TIMEOUT_S)  # the cut reply's streams end

        # LiveKit's own interrupt: cancel, then truncate what was played (as AgentSession does).
        generation = await asyncio.wait_for(session.generate_reply(instructions=story), TIMEOUT_S)
        message = await asyncio.wait_for(anext(aiter(generation.message_stream)), TIMEOUT_S)
        first = await asyncio.wait_for(anext(aiter(message.audio_stream)), TIMEOUT_S)
        session.interrupt()
        played_ms = int(first.duration * 1000)
        session.truncate(
            message_id=message.message_id, modalities=["audio"], audio_end_ms=played_ms, audio_transcript=""
        )
        await asyncio.wait_for(drain(message), TIMEOUT_S)
        generation = await asyncio.wait_for(session.generate_reply(), TIMEOUT_S)
        text = await asyncio.wait_for(collect_text(generation), TIMEOUT_S)
        await session.aclose()
    assert text
    assert sent.index("response.cancel") < sent.index("conversation.item.truncate")
    assert not errors, errors


def _client_type(event: Any) -> str:
    return event["type"] if isinstance(event, dict) else event.type


async def drain(message: llm.MessageGeneration) -> None:
    async for _ in message.audio_stream:
        pass
    async for _ in message.text_stream:
        pass


async def test_a_commit_while_the_user_speaks_ends_livekits_user_speech(
    framework_engine, http_context
) -> None:
    """LiveKit's push-to-talk (``AgentSession.commit_user_turn`` → ``RealtimeSession.commit_audio``) over
    server_vad mid-speech: LiveKit's "user speaking" (``input_speech_started`` / ``_stopped``) ends at
    the commit, and the speech after it is a new turn that server_vad ends and answers."""
    url = await base_url(framework_engine)
    pcm, label = question()
    cut = (label["speech_start_ms"] + 900) * 48  # mid-question
    turn_detection = realtime.realtime_audio_input_turn_detection.ServerVad(
        type="server_vad", silence_duration_ms=500
    )
    async with model(url, turn_detection=turn_detection) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        speech: list[str] = []
        stopped = asyncio.Event()
        generations: asyncio.Queue[llm.GenerationCreatedEvent] = asyncio.Queue()
        session.on("input_speech_started", lambda _: speech.append("started"))
        session.on("input_speech_stopped", lambda _: (speech.append("stopped"), stopped.set()))
        session.on("generation_created", generations.put_nowait)
        await stream(frames_sender(session), pcm[:cut])
        session.commit_audio()
        await asyncio.wait_for(stopped.wait(), TIMEOUT_S)
        assert speech == ["started", "stopped"] and generations.empty()  # a commit asks for no reply
        await stream(frames_sender(session), pcm[cut:], silence_ms=2000)
        generation = await asyncio.wait_for(generations.get(), TIMEOUT_S)
        text = await asyncio.wait_for(collect_text(generation), TIMEOUT_S)
        await session.aclose()
    assert speech == ["started", "stopped", "started", "stopped"]
    assert not generation.user_initiated and text
    assert not errors


async def test_a_question_about_the_user_calls_no_tool(framework_engine, http_context) -> None:
    """A question about the user, "What's my name?", with LiveKit's weather example tool (``city``: "The
    city name") is answered, not sent to ``get_weather {"city": "name"}`` (it was, from the word "name"
    of the parameter's description)."""
    url = await base_url(framework_engine)
    history = llm.ChatContext()
    history.add_message(role="user", content="My name is Ada and I live in Lisbon.")
    history.add_message(role="assistant", content="Nice to meet you, Ada.")
    agent = Assistant(chat_ctx=history)
    async with started_session(url, agent) as (session, errors):
        result = await asyncio.wait_for(session.run(user_input="What's my name?"), TIMEOUT_S)
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert agent.weather_calls == []
    # answered from the history LiveKit sent as items (it was "I don't know that one, sorry.")
    assert reply.event().item.text_content == "Your name is Ada."
    assert not errors


class Forecaster(Agent):
    """A ``function_tool`` returning a dict, which LiveKit sends as ``str(output)``: a Python literal."""

    def __init__(self) -> None:
        super().__init__(instructions="You are a helpful assistant.")

    @function_tool
    async def get_forecast(self, context: RunContext, city: str) -> dict[str, Any]:
        """Get tomorrow's weather forecast for a city.

        Args:
            city: The city name
        """
        return {"city": city, "conditions": "light rain", "high_c": 14}

    @function_tool
    async def book_table(self, context: RunContext, restaurant: str, people: int) -> dict[str, Any]:
        """Book a table at a restaurant.

        Args:
            restaurant: The restaurant name
            people: How many people
        """
        return {"error": f"{restaurant} has no table for {people} tonight"}


async def test_a_dict_a_tool_returns_is_read_as_its_fields(framework_engine, http_context) -> None:
    """The reply after a tool's dict output says its fields, and a dict with an ``error`` is a refusal;
    neither is read back as ``{'conditions': 'light rain', …}`` (it was: not JSON, so said as text)."""
    url = await base_url(framework_engine)
    async with started_session(url, Forecaster()) as (session, errors):
        replies = []
        for said in ("What's the forecast for Oslo tomorrow?", "Book a table at Nopa for 4 people."):
            result = await asyncio.wait_for(session.run(user_input=said), TIMEOUT_S)
            output = next(e.item for e in result.events if e.type == "function_call_output")
            assert output.output.startswith("{'")  # LiveKit's str() of the dict
            replies.append(next(e.item for e in reversed(result.events) if e.type == "message").text_content)
    forecast, booking = replies
    assert "light rain" in forecast and "{" not in forecast
    assert booking == "I couldn't book the table at Nopa: Nopa has no table for 4 tonight."
    assert not errors


async def test_generate_reply_instructions_after_an_answered_turn(framework_engine, http_context) -> None:
    """``AgentSession.generate_reply(instructions=…)`` mid-session says what its instructions say (LiveKit
    sends the session's instructions, a newline, then its own); it answered the last question again."""
    url = await base_url(framework_engine)
    async with started_session(url, Assistant()) as (session, errors):
        await asyncio.wait_for(session.run(user_input="What is the capital of France?"), TIMEOUT_S)
        handle = session.generate_reply(instructions="Tell the user the call will end in one minute.")
        await asyncio.wait_for(handle, TIMEOUT_S)
        said = [item.text_content for item in handle.chat_items if item.type == "message"]
    assert said == ["The call will end in one minute."]
    assert not errors


async def test_generate_reply_instructions_after_a_tools_result_was_answered(
    framework_engine, http_context
) -> None:
    """The same after a turn answered through a tool: it read the tool's result out again ("The weather
    in Paris is sunny."), whatever the instructions said."""
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        await asyncio.wait_for(session.run(user_input="What is the weather like in Paris?"), TIMEOUT_S)
        handle = session.generate_reply(instructions="Tell the user the call will end in one minute.")
        await asyncio.wait_for(handle, TIMEOUT_S)
        said = [item.text_content for item in handle.chat_items if item.type == "message"]
    assert agent.weather_calls == ["Paris"]
    assert said == ["The call will end in one minute."]
    assert not errors


async def test_a_reconnected_session_replays_the_conversation_without_id_clashes(
    framework_engine, http_context
) -> None:
    """The engine drops the connection; LiveKit re-creates the session and replays its chat context, the
    replies with the ids the engine gave them. A seeded engine makes the same ids in every session: the
    next reply got the replayed reply's id (LiveKit: "failed to insert item `item_…`: Item with ID … already
    exists", and both replies merged into one message of its chat context)."""
    eng = await framework_engine(seed=3)
    history = llm.ChatContext()
    history.add_message(role="user", content="My name is Ada.")
    async with model(f"{eng.http_url}/v1") as realtime_model:
        session = realtime_model.session()
        server_errors: list[Any] = []
        session.on(
            "openai_server_event_received", lambda ev: ev["type"] == "error" and server_errors.append(ev)
        )
        reconnected = asyncio.Event()
        session.on("session_reconnected", lambda _: reconnected.set())
        await asyncio.wait_for(session.update_chat_ctx(history), TIMEOUT_S)
        first = await asyncio.wait_for(session.generate_reply(), TIMEOUT_S)
        assert await asyncio.wait_for(collect_text(first), TIMEOUT_S) == "Nice to meet you, Ada."

        question = session.chat_ctx.copy()
        question.add_message(role="user", content="What's my name?")
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{eng.http_url}/mockengine/sessions") as answer:
                (live,) = (await answer.json())["live"]
            async with http.post(f"{eng.http_url}/mockengine/sessions/{live['handle']}/kill") as answer:
                assert answer.status == 200
        await asyncio.wait_for(reconnected.wait(), TIMEOUT_S)
        async with asyncio.timeout(TIMEOUT_S):  # the replayed items confirmed
            while len(session.chat_ctx.items) < 2:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(session.update_chat_ctx(question), TIMEOUT_S)
        second = await asyncio.wait_for(session.generate_reply(), TIMEOUT_S)
        assert await asyncio.wait_for(collect_text(second), TIMEOUT_S) == "Your name is Ada."
        await asyncio.sleep(0)  # response.done, which writes the reply into LiveKit's chat context
        said = [(item.role, item.text_content) for item in session.chat_ctx.items if item.type == "message"]
        await session.aclose()
    assert said == [
        ("user", "My name is Ada."),
        ("assistant", "Nice to meet you, Ada."),
        ("user", "What's my name?"),
        ("assistant", "Your name is Ada."),
    ]
    assert not server_errors


async def test_agent_session_interrupts_a_story_it_was_told_to_tell(
    engine, server_events, http_context
) -> None:
    """``AgentSession.generate_reply(instructions="Tell the user a long story …")`` with the session's
    audio played out, then ``AgentSession.interrupt()``: the story is told (it was the request said back,
    "A long story about a lighthouse keeper."), cut where the speaker got to, and the engine truncates
    its item there. LiveKit sends ``response.cancel`` twice (``interrupt()`` and the cancelled reply's
    own), and the second gets the live service's ``response_cancel_not_active``, which LiveKit passes
    over: the only error allowed."""
    from tests.integration.compat.test_cascade_livekit import Voice

    eng = await engine(audio_pace=1.0)
    async with model(f"{eng.http_url}/v1") as realtime_model, AgentSession(llm=realtime_model) as session:
        errors = record_errors(session)
        voice = await Voice(session, Assistant()).start()  # type: ignore[arg-type]
        handle = session.generate_reply(instructions="Tell the user a long story about a lighthouse keeper.")
        await voice.until(lambda: sum(frame.duration for _, frame in voice.speaker.played) > 1.0)
        session.interrupt()
        await asyncio.wait_for(handle, TIMEOUT_S)
        await voice.until(lambda: bool(voice.messages("assistant")))
        await voice.until(lambda: any(e["type"] == "conversation.item.truncated" for e in server_events))
    (story,) = voice.messages("assistant")
    assert handle.interrupted and story.interrupted
    assert story.text_content.startswith("Here is a story"), story.text_content
    (truncated,) = [e for e in server_events if e["type"] == "conversation.item.truncated"]
    # LiveKit truncates at its own playback position, which trails the frames handed to the speaker
    assert truncated["item_id"] == story.id and 500 <= truncated["audio_end_ms"] < 20_000
    assert not errors, errors
    codes = {e["error"]["code"] for e in server_events if e["type"] == "error"}
    assert codes <= {"response_cancel_not_active"}, codes


async def test_half_cascade_text_replies_spoken_by_the_speech_endpoint(
    engine, server_events, http_context, real_resources
) -> None:
    """``RealtimeModel(modalities=["text"])`` with ``openai.TTS`` (the engine's ``/v1/audio/speech``): a
    spoken question goes in as audio (server_vad, transcribed), the reply comes back as text, a tool is
    called on the way, and the TTS speaks the answer, which whisper hears back."""
    from tests.integration.compat.speech import engine_speech
    from tests.integration.compat.test_cascade_livekit import Voice, heard

    eng = await engine()
    url = f"{eng.http_url}/v1"
    turn_detection = realtime.realtime_audio_input_turn_detection.ServerVad(
        type="server_vad", silence_duration_ms=500
    )
    agent = Assistant()
    async with (
        model(url, modalities=["text"], turn_detection=turn_detection) as realtime_model,
        openai.TTS(base_url=url, api_key="sk-test") as tts,
        AgentSession(llm=realtime_model, tts=tts) as session,
    ):
        voice = await Voice(session, agent).start()  # type: ignore[arg-type]
        question = await engine_speech(eng.http_url, "What is the weather like in London?")
        mic = asyncio.create_task(stream(voice.mic.send, question, 6000))
        await voice.until(lambda: len(voice.messages("assistant")) >= 2)
        mic.cancel()
    (user,) = voice.messages("user")
    assert "london" in user.text_content.lower()
    assert agent.weather_calls == ["London"]
    answer = voice.messages("assistant")[-1]
    assert answer.text_content == "The weather in London is sunny." and not answer.interrupted
    assert {e["response"]["output_modalities"][0] for e in server_events if e["type"] == "response.done"} == {
        "text"
    }
    assert "sunny" in heard(real_resources, voice.speaker.audio())
    assert not voice.events.get("error")
    assert not [event for event in server_events if event["type"] == "error"]


class Traveller(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="You are a helpful travel assistant.")
        self.calls: list[tuple[str, str]] = []

    @function_tool
    async def get_weather(self, context: RunContext, city: str) -> str:
        """Get the weather for a city."""
        self.calls.append(("get_weather", city))
        return f"The weather in {city} is sunny."

    @function_tool
    async def get_time(self, context: RunContext, city: str) -> str:
        """Get the current time in a city."""
        self.calls.append(("get_time", city))
        return f"It is 3 pm in {city}."


async def test_text_agent_makes_both_calls_two_requests_ask_for(engine, server_events, http_context) -> None:
    """``AgentSession(llm=openai.LLM(base_url=…))`` (Chat Completions, LiveKit's documented test set-up):
    "the weather in Paris and the time in Tokyo" calls both tools in one reply. Only ``get_weather`` was
    called, and the turn ended without the time."""
    eng = await engine()
    agent = Traveller()
    chat_model = openai.LLM(model="gpt-4o-mini", base_url=f"{eng.http_url}/v1", api_key="sk-test")
    async with chat_model, AgentSession(llm=chat_model) as session:
        errors = record_errors(session)
        await session.start(agent)
        result = await asyncio.wait_for(
            session.run(user_input="What is the weather in Paris and the time in Tokyo?"), TIMEOUT_S
        )
        result.expect.contains_function_call(name="get_weather", arguments={"city": "Paris"})
        result.expect.contains_function_call(name="get_time", arguments={"city": "Tokyo"})
        reply = result.expect[-1].is_message(role="assistant")
    assert sorted(agent.calls) == [("get_time", "Tokyo"), ("get_weather", "Paris")]
    assert "Paris" in reply.event().item.text_content and "Tokyo" in reply.event().item.text_content
    assert not errors


async def test_turn_detection_turned_off_mid_session_then_manual_turns(
    framework_engine, http_context, server_events
) -> None:
    """``update_options(turn_detection=None, input_audio_transcription=…)`` after a reply (push-to-talk
    switched on mid-conversation): the speech pushed next starts no turn by itself; LiveKit's
    ``commit_audio()`` and ``generate_reply()`` make the turn, transcribed with the new model and
    answered, and a voice change after audio gets the live ``cannot_update_voice``."""
    url = await base_url(framework_engine)
    pcm, _ = spoken_question()
    async with model(url) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        transcripts: list[str] = []
        session.on(
            "input_audio_transcription_completed",
            lambda ev: ev.is_final and transcripts.append(ev.transcript),
        )
        greeting = await asyncio.wait_for(session.generate_reply(instructions="Greet the user."), TIMEOUT_S)
        await asyncio.wait_for(collect_text(greeting), TIMEOUT_S)

        session.update_options(
            turn_detection=None, input_audio_transcription=realtime.AudioTranscription(model="whisper-1")
        )
        await stream(frames_sender(session), pcm, silence_ms=1500)
        assert not any(e["type"] == "input_audio_buffer.speech_started" for e in server_events)
        session.commit_audio()
        generation = await asyncio.wait_for(session.generate_reply(), TIMEOUT_S)
        text = await asyncio.wait_for(collect_text(generation), TIMEOUT_S)
        assert not errors
        session.update_options(voice="cedar")
        async with asyncio.timeout(TIMEOUT_S):
            while not errors:
                await asyncio.sleep(0.05)
        await session.aclose()
    assert generation.user_initiated and "Paris" in text
    assert transcripts == ["What is the capital of France?"]
    updated = [e["session"] for e in server_events if e["type"] == "session.updated"][-1]
    assert updated["audio"]["input"]["turn_detection"] is None
    assert updated["audio"]["input"]["transcription"]["model"] == "whisper-1"
    refused = [e for e in server_events if e["type"] == "error"]
    assert [e["error"]["code"] for e in refused] == ["cannot_update_voice"]
    # the refusal is the one error this test expects (asserted above): not one for the fixture to fail on
    server_events[:] = [e for e in server_events if e["type"] != "error"]


class Passenger(BaseModel):
    name: str
    age: int


class TripAgent(Agent):
    """A ``function_tool`` whose parameter is a Pydantic model (a nested object) beside a string."""

    def __init__(self) -> None:
        super().__init__(instructions="You are a helpful travel assistant.")
        self.trips: list[dict[str, Any]] = []

    @function_tool
    async def book_trip(self, context: RunContext, traveller: Passenger, destination: str) -> str:
        """Book a trip for a traveller.

        Args:
            traveller: Who travels: their name and age
            destination: The city to travel to
        """
        self.trips.append({"traveller": traveller.model_dump(), "destination": destination})
        return f"Booked {destination} for {traveller.name}."


async def test_a_nested_object_is_not_filled_with_another_arguments_words(
    framework_engine, http_context
) -> None:
    """The words of a spoken request as whisper writes them ("ADA" in capitals): the traveller is ADA,
    not the destination's "Lisbon" (it was ``{"name": "Lisbon", "age": 36}``)."""
    url = await base_url(framework_engine)
    agent = TripAgent()
    async with started_session(url, agent) as (session, errors):
        await asyncio.wait_for(
            session.run(user_input="Book a trip to Lisbon for ADA, who was 36 years old."), TIMEOUT_S
        )
    assert agent.trips == [{"traveller": {"name": "ADA", "age": 36}, "destination": "Lisbon"}]
    assert not errors
