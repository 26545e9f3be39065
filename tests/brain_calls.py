"""The scripted participant as the brain tests drive it (default scenario, seed 3, ``TODAY``): a tool
declared, the calls for one user message, the replies or calls over a conversation, and the words said
for a response's own instructions."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema

from mockengine.brain import Reply, ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario

TODAY = date(2026, 12, 4)
# A Monday: the brk tests' today, so "this week", "on Friday" and "in 3 days" count from a known day.
MONDAY = date(2026, 12, 7)


def calls(tools: list[ToolSpec], text: str) -> list[tuple[str, Any]] | str:
    """The calls ``text`` gets with ``tools`` declared (default scenario, seed 3, ``TODAY``), each checked
    against its schema; the reply's text when there is none."""
    items = (TurnView("u", "user_text", text),)
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", tuple(tools), "auto", ("text",), items, 0)
    )
    schemas = {t.name: t.parameters for t in tools}
    for call in reply.tool_calls:
        jsonschema.validate(json.loads(call.arguments), schemas[call.name])
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] or (reply.text or "")


def tool(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None = None
) -> ToolSpec:
    """A function tool whose parameters are an object of ``properties``; ``required`` defaults to every
    property, in order."""
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }
    return ToolSpec(name, description, schema)


def spec(chat_tool: dict[str, Any]) -> ToolSpec:
    """The brain's ``ToolSpec`` of a tool in the Chat Completions shape (``tests.own_tools.chat_tool``),
    so that a unit test and its test over the wire declare one tool."""
    function = chat_tool["function"]
    return ToolSpec(function["name"], function["description"], function["parameters"])


def conversation_replies(tools: list[ToolSpec], turns: list[str], choice: str = "auto") -> list[Reply]:
    """Each user turn's reply in one conversation (the assistant's words kept, its calls not), seed 3."""
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    history: tuple[TurnView, ...] = ()
    replies = []
    for index, said in enumerate(turns):
        history += (TurnView(f"u{index}", "user_text", said),)
        reply = brain.reply(ReplyRequest("", tuple(tools), choice, ("text",), history, 0))
        replies.append(reply)
        history += (TurnView(f"a{index}", "assistant", reply.text or ""),)
    return replies


def conversation_calls(
    tools: list[ToolSpec], turns: list[str], choice: str = "auto"
) -> list[list[tuple[str, Any]]]:
    """Each user turn's calls in one conversation, each call answered ``{"status": "ok"}`` and the reply
    to those outputs kept, seed 3."""
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    history: tuple[TurnView, ...] = ()
    made = []
    for index, said in enumerate(turns):
        history += (TurnView(f"u{index}", "user_text", said),)
        reply = brain.reply(ReplyRequest("", tuple(tools), choice, ("text",), history, 0))
        made.append([(c.name, json.loads(c.arguments)) for c in reply.tool_calls])
        for n, call in enumerate(reply.tool_calls):
            history += (
                TurnView(
                    f"c{index}{n}", "function_call", call.arguments, name=call.name, call_id=f"k{index}{n}"
                ),
                TurnView(f"o{index}{n}", "function_call_output", '{"status": "ok"}', call_id=f"k{index}{n}"),
            )
        if reply.tool_calls:
            reply = brain.reply(ReplyRequest("", tuple(tools), choice, ("text",), history, 0))
        history += (TurnView(f"a{index}", "assistant", reply.text or ""),)
    return made


def spoken(own: str, instructions: str = "You are a receptionist.") -> str | None:
    """The words said for a response whose own instructions are ``own`` (``response.instructions``) in a
    session whose instructions are ``instructions``, before anyone has spoken; no tools."""
    request = ReplyRequest(instructions, (), "auto", ("text",), (), 0, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).text


# Two weather tools several brain tests declare: a location with a unit enum, and a bare city.
WEATHER_LOCATION_UNIT = tool(
    "get_weather",
    "Get the current weather",
    {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
)
WEATHER_CITY = tool("get_weather", "Get the current weather", {"city": {"type": "string"}})


def reply_to(history: tuple[TurnView, ...], tools: tuple[ToolSpec, ...], today: date = TODAY) -> Reply:
    """The reply to a conversation ``history`` with ``tools`` declared (default scenario, seed 3)."""
    request = ReplyRequest("", tools, "auto", ("text",), history, 0)
    return ScriptedBrain(load_scenario(None), 3, today=today).reply(request)


def calls_made(reply: Reply) -> list[tuple[str | None, dict[str, Any]]]:
    """``reply``'s calls as (name, arguments)."""
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


def said(words: str, tools: tuple[ToolSpec, ...], today: date = TODAY) -> Reply:
    """The reply to one user message ``words``."""
    return reply_to((TurnView("u1", "user_text", words),), tools, today)


def answered(
    words: str,
    name: str,
    arguments: dict[str, Any],
    output: str,
    tools: tuple[ToolSpec, ...],
    today: date = TODAY,
) -> Reply:
    """The reply once the call ``name(arguments)`` that ``words`` asked for has its ``output``."""
    history = (
        TurnView("u0", "user_text", words),
        TurnView("c0", "function_call", json.dumps(arguments), name=name, call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    return reply_to(history, tools, today)
