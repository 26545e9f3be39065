"""Tool arguments a new user's app gets, over the wire with the official ``openai`` SDK and openai-agents
as clients against a real engine on loopback (fake speech engines: the brain and protocol are real):
forced and required ``tool_choice`` on a ``pattern`` string, a strict ``response_format`` with one,
strict-mode optional parameters passed as null, a free string said next to its name, and forced calls
that use the address heard."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import jsonschema
import openai
from agents import function_tool
from agents.realtime import RealtimeAgent, RealtimeRunner
from openai import AsyncOpenAI

from tests.tool_schemas import SET_ALARM, TIME_PATTERN, chat_tool, realtime_tool

ALARM = realtime_tool(SET_ALARM)
CHAT_ALARM = chat_tool(SET_ALARM)
SEND_EMAIL = {
    "type": "function",
    "function": {
        "name": "send_email",
        "description": "Send an email.",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string", "format": "email"}, "subject": {"type": "string"}},
            "required": ["to", "subject"],
        },
    },
}
TIMEOUT_S = 30


async def test_realtime_forced_tool_choice_on_a_pattern_string(engine_url) -> None:
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=await engine_url()) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await connection.session.update(
            session={"type": "realtime", "tools": [ALARM], "output_modalities": ["text"]}  # type: ignore[list-item]
        )
        found = []
        for words in ["Wake me up at seven thirty on weekdays", "Set an alarm", "hello"]:
            content = [{"type": "input_text", "text": words}]
            await connection.conversation.item.create(
                item={"type": "message", "role": "user", "content": content}
            )
            await connection.response.create(
                response={"tool_choice": {"type": "function", "name": "set_alarm"}}
            )
            async with asyncio.timeout(TIMEOUT_S):
                async for event in connection:
                    assert event.type != "error", event
                    if event.type == "response.done":
                        break
            response = event.response
            assert response.status == "completed", response.status_details
            [call] = [o for o in response.output or [] if o.type == "function_call"]
            arguments = json.loads(call.arguments or "")
            jsonschema.validate(arguments, ALARM["parameters"])
            found.append(arguments)
            output = {"type": "function_call_output", "call_id": call.call_id, "output": "ok"}
            await connection.conversation.item.create(item=output)  # type: ignore[arg-type]
    assert found[0]["time"] == "07:30"
    assert all(re.search(TIME_PATTERN, arguments["time"]) for arguments in found)


async def test_chat_required_and_named_tool_choice_on_a_pattern_string(engine_url) -> None:
    base_url = (await engine_url()).replace("ws://", "http://")
    async with AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0) as client:
        for words, choice in [
            ("Wake me up at seven thirty", "required"),
            ("hello", "required"),
            ("hello", {"type": "function", "function": {"name": "set_alarm"}}),
        ]:
            completion = await client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": words}],
                tools=[CHAT_ALARM],  # type: ignore[list-item]
                tool_choice=choice,  # type: ignore[arg-type]
            )
            [call] = completion.choices[0].message.tool_calls or []
            arguments = json.loads(call.function.arguments)  # type: ignore[union-attr]
            jsonschema.validate(arguments, ALARM["parameters"])
            if words.startswith("Wake"):
                assert arguments["time"] == "07:30"


async def test_chat_strict_response_format_with_a_pattern(engine_url) -> None:
    base_url = (await engine_url()).replace("ws://", "http://")
    schema = {
        "type": "object",
        "properties": {
            "colour": {"type": "string", "enum": ["red", "green"]},
            "hex": {"type": "string", "pattern": "^#[0-9a-f]{6}$"},
        },
        "required": ["colour", "hex"],
        "additionalProperties": False,
    }
    async with AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0) as client:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Name a colour"}],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "c", "strict": True, "schema": schema},
            },
        )
        jsonschema.validate(json.loads(completion.choices[0].message.content or ""), schema)
        impossible = {
            "type": "object",
            "properties": {"x": {"type": "string", "pattern": "^a$", "minLength": 3}},
        }
        impossible["required"] = ["x"]
        try:
            await client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "Name a colour"}],
                response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": impossible}},
            )
        except openai.InternalServerError as error:
            assert error.status_code == 500
        else:
            raise AssertionError("a schema no value satisfies must fail with a server_error")


async def test_chat_forced_call_uses_the_address_heard(engine_url) -> None:
    base_url = (await engine_url()).replace("ws://", "http://")
    async with AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0) as client:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "write to bob@example.com please"}],
            tools=[SEND_EMAIL],  # type: ignore[list-item]
            tool_choice={"type": "function", "function": {"name": "send_email"}},
        )
    [call] = completion.choices[0].message.tool_calls or []
    assert json.loads(call.function.arguments) == {"to": "bob@example.com", "subject": "Hello"}  # type: ignore[union-attr]


CALLS: list[tuple[str, Any]] = []


@function_tool
def play_music(genre: str, artist: str | None = None) -> str:
    """Play music of a genre, optionally by an artist."""
    CALLS.append(("play_music", {"genre": genre, "artist": artist}))
    return "playing"


@function_tool
def add_item(text: str, priority: str) -> str:
    """Add an item to the to-do list."""
    CALLS.append(("add_item", {"text": text, "priority": priority}))
    return "added"


async def agent_calls(base_url: str, words: str) -> list[tuple[str, Any]]:
    """What the openai-agents SDK's tools were called with after ``words`` were typed."""
    CALLS.clear()
    agent = RealtimeAgent(name="Assistant", instructions="You help.", tools=[play_music, add_item])
    config = {"model_settings": {"model_name": "gpt-realtime", "modalities": ["text"]}}
    runner = RealtimeRunner(starting_agent=agent, config=config)  # type: ignore[arg-type]
    url = f"{base_url}/realtime?model=gpt-realtime"
    async with await runner.run(model_config={"url": url, "api_key": "sk-test"}) as session:
        await session.send_message(words)
        async with asyncio.timeout(TIMEOUT_S):
            async for event in session:
                assert event.type != "error", event
                if event.type == "tool_end":
                    break
    return list(CALLS)


async def test_agents_strict_optional_parameter_is_passed_as_null(engine_url) -> None:
    base_url = await engine_url()
    assert await agent_calls(base_url, "Play some jazz") == [
        ("play_music", {"genre": "jazz", "artist": None})
    ]


async def test_agents_free_string_said_next_to_its_name(engine_url) -> None:
    base_url = await engine_url()
    for words in ["Add buy milk with high priority", "Add a high priority item: buy milk"]:
        assert await agent_calls(base_url, words) == [("add_item", {"text": "buy milk", "priority": "high"})]


async def test_agents_handoff_on_the_words_of_its_description(engine_url) -> None:
    """An Agents SDK handoff (``transfer_to_Billing``, described "Handoff to the Billing agent to handle
    the request. Refunds and billing questions.") over Chat Completions: "I want a refund" stayed with the
    triage agent (its words only in the description), though "a refund on my bill" was handed off."""
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled

    set_tracing_disabled(True)
    base_url = (await engine_url()).replace("ws://", "http://")
    client = AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)
    billing = Agent(
        name="Billing",
        instructions="Handle refunds.",
        handoff_description="Refunds and billing questions.",
        model=model,
    )
    triage = Agent(name="Triage", instructions="Route the user.", model=model, handoffs=[billing])
    for words in ("I want a refund for order 4471.", "I have a question about a refund on my bill."):
        result = await Runner.run(triage, words, max_turns=4)
        assert result.last_agent.name == "Billing", (words, result.final_output)


REFUNDS: list[tuple[str, str]] = []


@function_tool
def refund(order_id: str, reason: str) -> str:
    """Refund an order."""
    REFUNDS.append((order_id, reason))
    return f"Refund issued for order {order_id}."


async def test_agents_handoff_then_the_new_agent_acts_on_the_request(engine_url) -> None:
    """After the handoff the Billing agent takes up the user's words with its own tool, as a model does
    (its reply was "Done." and nothing was refunded); "because …" gives the ``reason``."""
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled

    set_tracing_disabled(True)
    REFUNDS.clear()
    base_url = (await engine_url()).replace("ws://", "http://")
    client = AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0)
    model = OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client)
    billing = Agent(
        name="Billing",
        instructions="Handle refunds.",
        handoff_description="Refunds and billing questions.",
        model=model,
        tools=[refund],
    )
    triage = Agent(name="Triage", instructions="Route the user.", model=model, handoffs=[billing])
    billing.handoffs = [triage]  # a way back, never taken for the same words
    result = await Runner.run(
        triage, "I want a refund for order 4471 because it arrived broken.", max_turns=6
    )
    assert result.last_agent.name == "Billing"
    assert REFUNDS == [("4471", "arrived broken")]
    assert result.final_output == "Refund issued for order 4471."
