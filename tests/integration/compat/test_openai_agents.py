"""The OpenAI Agents SDK (``openai-agents``) against mockengine, driven as its documentation shows
(``RealtimeAgent`` + ``RealtimeRunner``, events from ``async for event in session``) with only the URL
changed. Asserts with the SDK's own objects: its history items, tool events, interruption events, and no
``error`` event of any kind.

Text agents (``Agent`` + ``Runner``) with the SDK's default model provider, whose default API is the
Responses API (``POST /v1/responses``): only the default client's base URL points at the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Literal

import pytest
from agents import (
    Agent,
    GuardrailFunctionOutput,
    OutputGuardrail,
    Runner,
    function_tool,
    set_default_openai_api,
    set_default_openai_client,
    set_tracing_disabled,
)
from agents.models import _openai_shared
from agents.realtime import RealtimeAgent, RealtimeRunner, realtime_handoff
from agents.realtime.items import AssistantMessageItem, UserMessageItem
from openai import AsyncOpenAI
from pydantic import BaseModel, Field

from tests.integration.compat.speech import clear_question, other_speaker, spoken_question, stream

pytestmark = pytest.mark.models
TIMEOUT_S = 60
WEATHER_CALLS: list[str] = []


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    WEATHER_CALLS.append(city)
    return f"The weather in {city} is sunny."


class Observed:
    """Every event of one session, and a way to wait for one that satisfies a condition."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.events: list[Any] = []
        self._changed = asyncio.Condition()
        self._task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for event in self.session:
            async with self._changed:
                self.events.append(event)
                self._changed.notify_all()

    def mark(self) -> int:
        """Where the events seen so far end: ``until(..., after=mark)`` waits for a later one."""
        return len(self.events)

    async def until(self, condition: Callable[[Any], bool], after: int = 0) -> Any:
        async with asyncio.timeout(TIMEOUT_S), self._changed:
            while True:
                found = next((e for e in self.events[after:] if condition(e)), None)
                if found is not None:
                    return found
                await self._changed.wait()

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]

    @property
    def history(self) -> list[Any]:
        updates = self.of("history_updated")
        return updates[-1].history if updates else []

    def assistant_transcripts(self) -> list[str]:
        return [
            part.transcript or getattr(part, "text", None) or ""
            for item in self.history
            if isinstance(item, AssistantMessageItem)
            for part in item.content
        ]

    def server_events(self, kind: str) -> list[dict[str, Any]]:
        """The wire events of ``kind`` the SDK passed on as raw model events."""
        raw = [e.data for e in self.of("raw_model_event") if e.data.type == "raw_server_event"]
        return [r.data for r in raw if r.data.get("type") == kind]

    def errors(self) -> list[Any]:
        model_errors = [e for e in self.of("raw_model_event") if e.data.type == "error"]
        return self.of("error") + model_errors + self.server_events("error")

    def close(self) -> None:
        self._task.cancel()


def settings(turn_detection: dict[str, Any] | None = None) -> dict[str, Any]:
    model_settings: dict[str, Any] = {
        "model_name": "gpt-realtime",
        "voice": "alloy",
        "modalities": ["audio"],
        "input_audio_transcription": {"model": "gpt-4o-mini-transcribe"},
    }
    if turn_detection is not None:
        model_settings["turn_detection"] = turn_detection
    return {"model_settings": model_settings}


async def run_agent(start_engine, agent: RealtimeAgent, config: dict[str, Any] | None = None, **engine: Any):
    """``agent``'s realtime session (``RealtimeRunner.run``, to enter with ``async with``) on an engine
    started with ``engine`` settings; ``config``: the runner's, ``settings()`` when None."""
    eng = await start_engine(**engine)
    runner = RealtimeRunner(starting_agent=agent, config=settings() if config is None else config)
    url = f"{eng.url}/realtime?model=gpt-realtime"  # the only change from the real service
    return await runner.run(model_config={"url": url, "api_key": "sk-test"})


async def open_session(start_engine, turn_detection: dict[str, Any] | None = None, pace: float = 0.0):
    agent = RealtimeAgent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    return await run_agent(start_engine, agent, settings(turn_detection), audio_pace=pace)


def turn_ended(event: Any) -> bool:
    return event.type == "agent_end"


async def test_typed_turn(framework_engine) -> None:
    async with await open_session(framework_engine) as session:
        observed = Observed(session)
        await session.send_message("What is the capital of France?")
        await observed.until(turn_ended)
        await observed.until(lambda e: any("Paris" in t for t in observed.assistant_transcripts()))
        observed.close()
    assert any(isinstance(item, UserMessageItem) for item in observed.history)
    assert observed.of("audio") and not observed.errors()


async def secret_session(start_engine, tracing: Any, model_tracing: Any = None) -> tuple[Any, Any]:
    """An agent's session opened with an ``ek_`` secret whose session has ``tracing`` on (the SDK then
    sends its own tracing on ``session.created``: ``"auto"``, or ``model_tracing`` when given)."""
    eng = await start_engine(audio_pace=0.0)
    async with AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test") as client:
        secret = await client.realtime.client_secrets.create(
            session={"type": "realtime", "model": "gpt-realtime", "tracing": tracing}
        )
    config = settings()
    if model_tracing is not None:
        config["model_settings"]["tracing"] = model_tracing
    agent = RealtimeAgent(name="Assistant", instructions="You are a helpful assistant.")
    runner = RealtimeRunner(starting_agent=agent, config=config)
    url = f"{eng.url}/realtime?model=gpt-realtime"
    return eng, await runner.run(model_config={"url": url, "api_key": secret.value})


async def test_tracing_set_by_a_secret_survives_the_sdks_auto(framework_engine) -> None:
    """Tracing cannot be modified once on; the ``"auto"`` the SDK sends on ``session.created`` is no
    modification: taken without an error, and the secret's configuration stays."""
    named = {"workflow_name": "from-secret", "group_id": "g1"}
    _, session_run = await secret_session(framework_engine, named)
    async with session_run as session:
        observed = Observed(session)
        await observed.until(lambda e: bool(observed.server_events("session.updated")))
        await session.send_message("What is the capital of France?")
        await observed.until(turn_ended)
        observed.close()
    assert all(s["session"]["tracing"] == named for s in observed.server_events("session.updated"))
    assert not observed.errors()


async def test_a_different_tracing_is_refused_and_the_agent_goes_on(engine) -> None:
    """The SDK configured with another trace than the secret's: its update is refused (an ``error`` the
    SDK passes on), and the conversation goes on with the secret's trace."""
    named = {"workflow_name": "from-secret"}
    _, session_run = await secret_session(engine, named, {"workflow_name": "from-agent"})
    async with session_run as session:
        observed = Observed(session)
        refused = await observed.until(lambda e: bool(observed.server_events("error")))
        await session.send_message("What is the capital of France?")
        await observed.until(turn_ended)
        await observed.until(lambda e: any("Paris" in t for t in observed.assistant_transcripts()))
        observed.close()
    assert refused is not None
    (error,) = observed.server_events("error")
    assert (error["error"]["code"], error["error"]["param"]) == ("invalid_value", "session.tracing")
    assert all(s["session"]["tracing"] == named for s in observed.server_events("session.updated"))


async def test_declared_tool_called_then_its_output_answered(framework_engine) -> None:
    WEATHER_CALLS.clear()
    async with await open_session(framework_engine) as session:
        observed = Observed(session)
        await session.send_message("What is the weather like in Paris?")
        start = await observed.until(lambda e: e.type == "tool_start")
        end = await observed.until(lambda e: e.type == "tool_end")
        # The SDK sends the output and asks for a reply; that reply acknowledges it.
        await observed.until(turn_ended, after=observed.events.index(end))
        observed.close()
    assert start.tool.name == "get_weather" and WEATHER_CALLS == ["Paris"]
    assert end.output == f"The weather in {WEATHER_CALLS[0]} is sunny."
    calls = [item for item in observed.history if item.type == "function_call"]
    assert calls and calls[0].name == "get_weather" and calls[0].output == end.output
    assert observed.assistant_transcripts()[-1]
    assert not observed.errors()


@pytest.mark.parametrize(
    "turn_detection",
    [
        {"type": "server_vad", "silence_duration_ms": 500, "interrupt_response": True},
        {"type": "semantic_vad", "eagerness": "high", "interrupt_response": True},
    ],
    ids=["server_vad", "semantic_vad"],
)
async def test_spoken_turn(framework_engine, turn_detection) -> None:
    # semantic_vad's turn transcript hangs on the CPU's maths for the espeak clip (clear_question)
    pcm, text = spoken_question()
    if turn_detection["type"] == "semantic_vad":
        pcm = clear_question()
    async with await open_session(framework_engine, turn_detection) as session:
        observed = Observed(session)
        await stream(session.send_audio, pcm, silence_ms=3000)
        await observed.until(turn_ended)
        await observed.until(lambda e: any("Paris" in t for t in observed.assistant_transcripts()))
        await observed.until(lambda e: any(_user_transcript(i) for i in observed.history))
        observed.close()
    heard = next(_user_transcript(i) for i in observed.history if _user_transcript(i))
    assert "capital" in heard.lower() and "france" in heard.lower(), (heard, text)
    assert not observed.errors()


def _user_transcript(item: Any) -> str | None:
    if not isinstance(item, UserMessageItem):
        return None
    return next((p.transcript for p in item.content if getattr(p, "transcript", None)), None)


async def test_barge_in(framework_engine) -> None:
    turn_detection = {"type": "server_vad", "silence_duration_ms": 500, "interrupt_response": True}
    async with await open_session(framework_engine, turn_detection, pace=1.0) as session:
        observed = Observed(session)
        await session.send_message("Tell me a long story about a lighthouse keeper.")
        await observed.until(lambda e: e.type == "audio")
        # Speech over the reply: the server's VAD cuts it; the SDK reports the interruption.
        await stream(session.send_audio, other_speaker(), silence_ms=1500)
        await observed.until(lambda e: e.type == "audio_interrupted")
        assert observed.server_events("input_audio_buffer.speech_started")
        await observed.until(lambda e: len(observed.server_events("response.done")) >= 2)
        observed.close()
    cut, answer = (e["response"] for e in observed.server_events("response.done")[:2])
    assert cut["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    assert answer["status"] == "completed"
    assert not observed.errors(), observed.errors()


async def test_the_sdks_own_interrupt_truncates_then_cancels(framework_engine) -> None:
    # Without the server cancelling on speech, session.interrupt() sends truncate and then cancel.
    turn_detection = {"type": "server_vad", "interrupt_response": False}
    async with await open_session(framework_engine, turn_detection, pace=1.0) as session:
        observed = Observed(session)
        await session.send_message("Tell me a long story about a lighthouse keeper.")
        await observed.until(lambda e: e.type == "audio")
        await session.interrupt()
        await observed.until(lambda e: e.type == "audio_interrupted")
        await observed.until(turn_ended)
        mark = observed.mark()
        await session.send_message("What is the capital of France?")
        await observed.until(turn_ended, after=mark)
        await observed.until(lambda e: "Paris" in observed.assistant_transcripts()[-1])
        observed.close()
    truncated = observed.server_events("conversation.item.truncated")
    cancelled = observed.server_events("response.done")[0]["response"]
    assert truncated and cancelled["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    assert not observed.errors(), observed.errors()


class Location(BaseModel):
    city: str
    country: str | None = None


class Item(BaseModel):
    name: str
    quantity: int = Field(ge=1)


PYDANTIC_CALLS: list[tuple[str, Any]] = []
FRUIT = [Item(name="apples", quantity=2), Item(name="bananas", quantity=3)]


@function_tool
def get_forecast(location: Location, days: int) -> str:
    """Get the weather forecast for a location for a number of days."""
    PYDANTIC_CALLS.append(("get_forecast", (location, days)))
    return f"Sunny in {location.city} for {days} days."


@function_tool
def place_order(items: list[Item], delivery: Literal["standard", "express"], note: str | None = None) -> str:
    """Place an order for grocery items with a delivery speed."""
    PYDANTIC_CALLS.append(("place_order", (items, delivery, note)))
    return f"Ordered {len(items)} kinds of item."


async def test_tools_taking_pydantic_models_are_called(framework_engine) -> None:
    """A ``function_tool`` whose parameters are Pydantic models (a ``$ref`` to an object, a list of
    them): the SDK parses the arguments into the models and runs the tool. Both turns were answered
    "Which location do you mean?" / "Which items do you mean?"."""
    PYDANTIC_CALLS.clear()
    agent = RealtimeAgent(name="Assistant", instructions="Help.", tools=[get_forecast, place_order])
    async with await run_agent(framework_engine, agent, audio_pace=0.0) as session:
        observed = Observed(session)
        for text in (
            "What's the forecast for Paris for the next 3 days?",
            "Order two apples and three bananas with express delivery.",
        ):
            mark = observed.mark()
            await session.send_message(text)
            end = await observed.until(lambda e: e.type == "tool_end", after=mark)
            await observed.until(turn_ended, after=observed.events.index(end))
        observed.close()
    assert [
        (
            "get_forecast",
            (Location(city="Paris", country="France"), 3),
        ),  # a city fills the country it implies
        (
            "place_order",
            ([Item(name="apples", quantity=2), Item(name="bananas", quantity=3)], "express", None),
        ),
    ] == PYDANTIC_CALLS
    assert not observed.errors(), observed.errors()


class Passenger(BaseModel):
    name: str
    age: int | None = None


@function_tool
def book_flight(
    origin: str, destination: str, cabin: Literal["economy", "business", "first"], passengers: list[Passenger]
) -> dict[str, Any]:
    """Book a flight for passengers."""
    PYDANTIC_CALLS.append(("book_flight", (origin, destination, cabin, passengers)))
    return {"confirmation": "ABC123"}


async def test_a_list_of_models_beside_plain_parameters_is_called(framework_engine) -> None:
    """A required ``list[Passenger]`` beside the route: the list took the route's words as well and the
    turn was answered "Where should I pick you up?" with no call."""
    PYDANTIC_CALLS.clear()
    agent = RealtimeAgent(name="Assistant", instructions="Help.", tools=[book_flight])
    async with await run_agent(framework_engine, agent, audio_pace=0.0) as session:
        observed = Observed(session)
        await session.send_message(
            "Book a business class flight from Boston to Denver for Ada aged 30 and Bob."
        )
        end = await observed.until(lambda e: e.type == "tool_end")
        await observed.until(turn_ended, after=observed.events.index(end))
        await observed.until(lambda e: "ABC123" in observed.assistant_transcripts()[-1])
        observed.close()
    passengers = [Passenger(name="Ada", age=30), Passenger(name="Bob")]
    assert [("book_flight", ("Boston", "Denver", "business", passengers))] == PYDANTIC_CALLS
    assert not observed.errors(), observed.errors()


@function_tool
def get_local_time(city: str) -> str:
    """Get the current time in a city."""
    REQUIRED_CALLS.append(("get_local_time", city))
    return f"It is 3 pm in {city}."


@function_tool
def get_city_weather(city: str) -> str:
    """Get the weather for a city."""
    REQUIRED_CALLS.append(("get_city_weather", city))
    return f"The weather in {city} is sunny."


REQUIRED_CALLS: list[tuple[str, str]] = []


async def test_tool_choice_required_keeps_calling_about_what_was_asked(framework_engine) -> None:
    """``tool_choice: "required"`` in the session: every response calls a tool, and the SDK answers each
    with its output and a new response, so the calls go on (as a model's would). Once both tools were
    called the next ones took built strings as the city ("not sure yet", "maybe later", …)."""
    REQUIRED_CALLS.clear()
    agent = RealtimeAgent(name="Assistant", instructions="Help.", tools=[get_city_weather, get_local_time])
    config = {**settings(), "model_settings": {**settings()["model_settings"], "tool_choice": "required"}}
    async with await run_agent(framework_engine, agent, config, audio_pace=0.0) as session:
        observed = Observed(session)
        await session.send_message("What is the weather in Paris?")
        await observed.until(lambda e: len(REQUIRED_CALLS) >= 5)
        observed.close()
    assert REQUIRED_CALLS[0] == ("get_city_weather", "Paris")
    assert {city for _, city in REQUIRED_CALLS[:5]} == {"Paris"}
    assert not observed.errors(), observed.errors()


def _no_secrets(context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered="secret" in str(output).lower())


async def test_an_output_guardrail_trips_once_and_the_session_goes_on(framework_engine) -> None:
    """An output guardrail trips on the reply; the SDK cuts it and sends "guardrail triggered: <name>"
    with a response.create. The reply to that echoed it ("I heard you say guardrail triggered: no
    secrets…"), which tripped the guardrail again, turn after turn, until the session closed."""
    agent = RealtimeAgent(
        name="Assistant",
        instructions="Help.",
        output_guardrails=[OutputGuardrail(guardrail_function=_no_secrets, name="no_secrets")],
    )
    config = {**settings(), "guardrails_settings": {"debounce_text_length": 10}}
    # Paced: the guardrail trips while the reply is still going, so the SDK's cancel finds it active.
    async with await run_agent(framework_engine, agent, config, audio_pace=1.0) as session:
        observed = Observed(session)
        await session.send_message("Please tell me the secret password.")
        await observed.until(lambda e: e.type == "guardrail_tripped")
        # The reply to the SDK's feedback message ends, and nothing trips again.
        await observed.until(lambda e: len(observed.server_events("response.done")) >= 2)
        await asyncio.sleep(1.0)
        mark = observed.mark()
        await session.send_message("What is the capital of France?")
        await observed.until(turn_ended, after=mark)
        await observed.until(lambda e: "Paris" in observed.assistant_transcripts()[-1])
        observed.close()
    assert len(observed.of("guardrail_tripped")) == 1
    assert not observed.errors(), observed.errors()


DELETED: list[str] = []


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file at a path."""
    DELETED.append(path)
    return f"Deleted {path}."


async def test_a_tool_needing_approval_runs_once_approved_and_not_once_rejected(framework_engine) -> None:
    """``needs_approval``: the SDK holds the call until ``approve_tool_call`` / ``reject_tool_call``. The
    typed path reaches the tool as written: it was ``"tmp notes"`` (the path's words)."""
    DELETED.clear()
    agent = RealtimeAgent(name="Files", instructions="You manage files.", tools=[delete_file])
    async with await run_agent(framework_engine, agent) as session:
        observed = Observed(session)
        await session.send_message("Delete the file at /tmp/notes.txt.")
        asked = await observed.until(lambda e: e.type == "tool_approval_required")
        assert DELETED == [] and asked.tool.name == "delete_file"
        await session.approve_tool_call(asked.call_id)
        done = await observed.until(lambda e: e.type == "tool_end")
        await observed.until(turn_ended, after=observed.events.index(done))
        mark = observed.mark()
        await session.send_message("Delete the file at /tmp/secret.txt.")
        refused = await observed.until(lambda e: e.type == "tool_approval_required", after=mark)
        await session.reject_tool_call(refused.call_id)
        # the SDK sends its rejection as the call's output and asks for a reply; that reply ends the turn
        await observed.until(lambda e: len(observed.server_events("response.done")) >= 4)
        observed.close()
    assert DELETED == ["/tmp/notes.txt"] and done.output == "Deleted /tmp/notes.txt."
    calls = [item for item in observed.history if item.type == "function_call"]
    assert [c.arguments for c in calls] == ['{"path": "/tmp/notes.txt"}', '{"path": "/tmp/secret.txt"}']
    assert calls[1].output == "Tool execution was not approved."
    assert "/tmp/secret.txt" not in observed.assistant_transcripts()[-1]
    assert not observed.errors(), observed.errors()


@function_tool
def get_exchange_rate(currency: str) -> str:
    """The exchange rate of a currency to the dollar."""
    raise RuntimeError("rates service down")


async def test_a_tool_that_raises_is_apologised_for(framework_engine) -> None:
    """The SDK sends "An error occurred while running the tool. Please try again." as the output of a tool
    that raised; the reply read it out."""
    agent = RealtimeAgent(name="Assistant", instructions="Help.", tools=[get_exchange_rate])
    async with await run_agent(framework_engine, agent) as session:
        observed = Observed(session)
        await session.send_message("What is the exchange rate of the euro?")
        done = await observed.until(lambda e: e.type == "tool_end")
        await observed.until(turn_ended, after=observed.events.index(done))
        await observed.until(lambda e: observed.assistant_transcripts()[-1].startswith("Sorry"))
        observed.close()
    assert done.output == "An error occurred while running the tool. Please try again."
    reply = observed.assistant_transcripts()[-1]
    assert reply.startswith("Sorry, I couldn't get the exchange rate") and "error occurred" not in reply
    assert not observed.errors(), observed.errors()


async def test_a_renamed_handoff_then_the_new_agents_tool(framework_engine) -> None:
    """``realtime_handoff(..., tool_name_override=...)``: the SDK sends session.update with the new agent's
    instructions and tools, whose tool is then called. The new agent answered "Done." (its handoff's
    output grounded): only ``transfer_to_<agent>`` was known as a handoff."""
    REFUNDS.clear()
    billing = RealtimeAgent(name="Billing", instructions="You handle refunds.", tools=[refund])
    handoff = realtime_handoff(billing, tool_name_override="escalate_to_billing")
    agent = RealtimeAgent(name="Assistant", instructions="Help.", handoffs=[handoff])
    async with await run_agent(framework_engine, agent) as session:
        observed = Observed(session)
        await session.send_message("Please transfer me to billing.")
        handed = await observed.until(lambda e: e.type == "handoff")
        await observed.until(lambda e: "billing agent" in observed.assistant_transcripts()[-1].lower())
        mark = observed.mark()
        await session.send_message("I want a refund for order 4471.")
        done = await observed.until(lambda e: e.type == "tool_end", after=mark)
        await observed.until(lambda e: "4471" in observed.assistant_transcripts()[-1], after=mark)
        observed.close()
    assert (handed.from_agent.name, handed.to_agent.name) == ("Assistant", "Billing")
    updated = observed.server_events("session.updated")[-1]["session"]
    assert updated["instructions"] == "You handle refunds." and [t["name"] for t in updated["tools"]] == [
        "refund"
    ]
    assert REFUNDS == ["4471"] and done.output == "Refund issued for order 4471."
    assert "Done." not in observed.assistant_transcripts()
    assert not observed.errors(), observed.errors()


@pytest.fixture
async def default_client(engine):
    """The Agents SDK's default OpenAI client pointed at a fresh engine (the Responses API, the SDK's
    default, made explicit; tracing off); the SDK's defaults are put back afterwards."""
    eng = await engine()
    saved = (_openai_shared.get_default_openai_client(), _openai_shared.get_use_responses_by_default())
    set_default_openai_client(
        AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test"), use_for_tracing=False
    )
    set_default_openai_api("responses")
    set_tracing_disabled(True)
    yield eng
    _openai_shared.set_default_openai_client(saved[0])  # type: ignore[arg-type]
    _openai_shared.set_use_responses_by_default(saved[1])


def responses_requests_seen(events: list[Any]) -> int:
    return sum(1 for e in events if e.type == "raw_response_event" and e.data.type == "response.completed")


async def test_text_agent_calls_its_tool_over_the_responses_api(default_client) -> None:
    WEATHER_CALLS.clear()
    agent = Agent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    result = await Runner.run(agent, "What is the weather in Paris?", max_turns=4)
    assert WEATHER_CALLS == ["Paris"]
    assert "sunny" in str(result.final_output).lower(), result.final_output
    assert [r.response_id.startswith("resp_") for r in result.raw_responses] == [True, True]


async def test_text_agent_streamed(default_client) -> None:
    WEATHER_CALLS.clear()
    agent = Agent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    result = Runner.run_streamed(agent, "What is the weather in Paris?", max_turns=4)
    events = [event async for event in result.stream_events()]
    assert result.is_complete and WEATHER_CALLS == ["Paris"]
    items = [e.item.type for e in events if e.type == "run_item_stream_event"]
    assert items == ["tool_call_item", "tool_call_output_item", "message_output_item"]
    deltas = [
        e.data.delta
        for e in events
        if e.type == "raw_response_event" and e.data.type == "response.output_text.delta"
    ]
    assert "".join(deltas) == result.final_output and "sunny" in result.final_output.lower()
    assert responses_requests_seen(events) == 2


REFUNDS: list[str] = []


@function_tool
def refund(order_id: str) -> str:
    """Refund an order."""
    REFUNDS.append(order_id)
    return f"Refund issued for order {order_id}."


async def test_text_agent_handoff(default_client) -> None:
    REFUNDS.clear()
    billing = Agent(
        name="Billing",
        instructions="Handle refunds.",
        handoff_description="Refunds and billing questions.",
        tools=[refund],
    )
    triage = Agent(name="Triage", instructions="Route the user.", handoffs=[billing])
    result = await Runner.run(triage, "I want a refund for order 4471.", max_turns=6)
    assert result.last_agent.name == "Billing"
    assert REFUNDS == ["4471"] and "4471" in str(result.final_output)


class CityWeather(BaseModel):
    city: str
    temperature_c: int
    summary: str


async def test_text_agent_structured_output(default_client) -> None:
    agent = Agent(name="Reporter", instructions="Report the weather.", output_type=CityWeather)
    result = await Runner.run(agent, "It is 21 degrees and sunny in Paris.")
    assert isinstance(result.final_output, CityWeather)
    assert (result.final_output.city, result.final_output.temperature_c) == ("Paris", 21)
    streamed = Runner.run_streamed(agent, "It is 21 degrees and sunny in Paris.")
    [event async for event in streamed.stream_events()]
    assert streamed.final_output == result.final_output


async def test_text_agent_chains_responses_by_id(default_client) -> None:
    """``auto_previous_response_id``: after the first turn the SDK sends only the new items and the last
    response's id; a second run continues from the first's ``last_response_id``."""
    WEATHER_CALLS.clear()
    agent = Agent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    first = await Runner.run(
        agent, "What is the weather in Paris?", max_turns=4, auto_previous_response_id=True
    )
    assert WEATHER_CALLS == ["Paris"] and "sunny" in str(first.final_output).lower()
    second = await Runner.run(agent, "Thank you!", previous_response_id=first.last_response_id)
    assert second.final_output and WEATHER_CALLS == ["Paris"]


async def test_a_phone_agent_on_g711_with_manual_turns_and_a_new_agent_mid_call(framework_engine) -> None:
    """A telephone agent as the SDK's docs set one up: ``g711_ulaw`` both ways and no turn detection (the
    caller's turns come from the telephony side), a typed tool turn, ``update_agent`` mid-call (its
    ``session.update`` repeats the voice: no ``cannot_update_voice`` for the same voice), then the
    caller's μ-law question sent with ``send_audio(commit=True)`` and answered on a raw
    ``response.create``: transcribed, answered, in μ-law (8 kHz, a byte a sample)."""
    from agents.realtime.model_inputs import RealtimeModelSendRawMessage

    from tests.phone_bridge import g711_of

    WEATHER_CALLS.clear()
    first = RealtimeAgent(name="Assistant", instructions="You are a helpful assistant.", tools=[get_weather])
    second = RealtimeAgent(name="Concierge", instructions="Be brief.", tools=[get_weather])
    model_settings = {
        **settings()["model_settings"],
        "input_audio_format": "g711_ulaw",
        "output_audio_format": "g711_ulaw",
        "turn_detection": None,
    }
    async with await run_agent(framework_engine, first, {"model_settings": model_settings}) as session:
        observed = Observed(session)
        await session.send_message("What is the weather like in Paris?")
        end = await observed.until(lambda e: e.type == "tool_end")
        await observed.until(turn_ended, after=observed.events.index(end))
        await session.update_agent(second)
        mark = observed.mark()
        await session.send_audio(g711_of(spoken_question()[0], "audio/pcmu"), commit=True)
        await session.model.send_event(RealtimeModelSendRawMessage(message={"type": "response.create"}))
        await observed.until(turn_ended, after=mark)
        await observed.until(lambda e: any("Paris is" in t for t in observed.assistant_transcripts()))
        heard = await observed.until(
            lambda e: any(
                isinstance(item, UserMessageItem) and "capital" in str(item.content)
                for item in observed.history
            )
        )
        observed.close()
    assert heard and WEATHER_CALLS == ["Paris"]
    assert observed.server_events("session.updated")[-1]["session"]["instructions"] == "Be brief."
    formats = {
        (e["session"]["audio"]["input"]["format"]["type"], e["session"]["audio"]["output"]["format"]["type"])
        for e in observed.server_events("session.updated")
    }
    assert formats == {("audio/pcmu", "audio/pcmu")}
    last_item = observed.of("audio")[-1].item_id
    reply = [e for e in observed.of("audio") if e.item_id == last_item]
    seconds = sum(len(e.audio.data) for e in reply) / 8000
    assert 1.0 < seconds < 15.0  # μ-law at 8 kHz: a sentence or two, not 3x as long as 24 kHz PCM16 reads
    assert not observed.errors()
