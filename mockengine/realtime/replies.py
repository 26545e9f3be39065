"""Pure helpers between the session, its responses and the brain: effective response parameters, the
brain's view of the context."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from mockengine.brain.model import ForcedTool, Reply, ReplyRequest, ToolChoice, ToolSpec
from mockengine.brain.window import HistoryWindow
from mockengine.protocol.session_config import (
    SessionConfig,
    check_reasoning,
    echoed_format,
    validate_tool_choice,
)
from mockengine.realtime.conversation import Item
from mockengine.realtime.mcp import brain_history
from mockengine.realtime.response import ResponseParams


def response_params(
    session: SessionConfig, overrides: dict[str, Any], input_items: tuple[Item, ...] | None = None
) -> ResponseParams:
    """Session defaults overlaid by a ``response.create``'s ``response`` object (reference §1.1)."""
    audio_override = overrides.get("audio", {}).get("output", {})
    # A custom voice {"id": …} is echoed in the response as set (the live service does: the Agents SDK
    # maps it to its id before validating response.created/.done); it is spoken by the default voice.
    voice = audio_override.get("voice", session.voice)
    tools = tuple(overrides.get("tools", session.tools))
    tool_choice = overrides.get("tool_choice", session.tool_choice)
    # The session's own tool_choice was checked by session.update; response.tools can still leave it
    # unobeyable, and the error names where the choice came from.
    validate_tool_choice(tool_choice, tools, "response" if "tool_choice" in overrides else "session")
    check_reasoning(session.model, overrides.get("reasoning"), "response")
    return ResponseParams(
        output_modalities=tuple(overrides.get("output_modalities", session.output_modalities)),
        voice=voice,
        speed=session.speed,
        output_format=echoed_format(audio_override.get("format", session.output_format.wire())),
        instructions=overrides.get("instructions", session.instructions),
        tools=tools,
        own_tools="tools" in overrides,
        tool_choice=tool_choice,
        max_output_tokens=overrides.get("max_output_tokens", session.max_output_tokens),
        metadata=overrides.get("metadata"),
        conversation=overrides.get("conversation", "auto"),
        input_items=input_items,
        parallel_tool_calls=overrides.get("parallel_tool_calls", session.parallel_tool_calls) is not False,
        own_instructions=_own_instructions(overrides.get("instructions"), session.instructions),
    )


def _own_instructions(given: str | None, session: str) -> str:
    """What a response's ``instructions`` add to the session's: all of them, less the session's when they
    start with those (LiveKit's ``generate_reply`` sends "<session's>\n<its own>"); "" when none."""
    if not given or given.strip() == session.strip():
        return ""
    if session.strip() and given.startswith(session):
        return given[len(session) :].strip()
    return given.strip()


def _tool_choice(value: Any) -> ToolChoice:
    if isinstance(value, dict) and value.get("type") == "mcp":
        # One tool of the server when named (the brain sees it as a function); else any tool: the brain
        # cannot be held to one server's tools, so this is "required" (docs/tools.md).
        return ForcedTool(value["name"]) if value.get("name") else "required"
    if isinstance(value, dict):
        return ForcedTool(value["name"])
    return value  # type: ignore[no-any-return]


def build_reply_request(
    params: ResponseParams,
    context: Iterable[Item],
    response_index: int,
    mcp_tools: tuple[ToolSpec, ...] = (),
    window: HistoryWindow | None = None,
) -> ReplyRequest:
    """What the brain reads for one response: the context's views, the older ones of a long conversation
    only as far as the brain's memory reads them (``brain.window``: the brain's walks per reply stay
    bounded however long the call), chosen by ``window`` (the session's, which keeps its choice between
    replies; None: chosen afresh). ``mcp_tools``: the tools the response's MCP servers listed
    (``McpServers.declared``), declared to the brain after the function tools, as functions."""
    functions = tuple(
        ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {}))
        for t in params.tools
        if t.get("type") != "mcp"
    )
    return ReplyRequest(
        instructions=params.instructions,
        tools=functions + mcp_tools,
        tool_choice=_tool_choice(params.tool_choice),
        output_modalities=params.output_modalities,
        history=(window or HistoryWindow()).views(brain_history(context)),
        response_index=response_index,
        parallel_tool_calls=params.parallel_tool_calls,
        response_instructions=params.own_instructions,
    )


# What a response says when the brain would only repeat a call whose output the app has not sent yet
# (docs/tools.md, "A response while a call is pending").
WAITING_FOR_RESULT = "One moment, I'm still waiting for that result."


def _call_key(name: str | None, arguments: str | None) -> tuple[str, str]:
    """A call as compared for repeats: its name and its arguments as canonical JSON (key order and
    spacing aside); arguments that are not JSON compare as sent."""
    try:
        canonical = json.dumps(json.loads(arguments or "{}"), sort_keys=True)
    except ValueError:
        canonical = arguments or ""
    return name or "", canonical


def pending_calls(context: Iterable[Item]) -> set[tuple[str, str]]:
    """The (name, canonical arguments) of each ``function_call`` in ``context`` that no
    ``function_call_output`` there answers."""
    items = list(context)
    answered = {item.call_id for item in items if item.type == "function_call_output"}
    return {
        _call_key(item.name, item.arguments)
        for item in items
        if item.type == "function_call" and item.call_id not in answered
    }


def without_pending_repeats(reply: Reply, context: Iterable[Item], tool_choice: Any) -> Reply:
    """``reply`` less the calls identical (name and arguments) to a call still waiting for its output.

    The live model sees such a call without a result; it is not known to re-issue it, and a client
    that asks for a response before sending the output (Pipecat holds a ``response.create`` for
    ``response.done``) must not get the same call again (its tool would run twice). Calls to other
    tools or with other arguments stand. When every call was a repeat, the reply is the one sentence
    ``WAITING_FOR_RESULT`` (no call). Under ``tool_choice`` ``required`` or a named tool the reply is
    left as the brain made it: the choice obliges a call."""
    if tool_choice != "auto" or not reply.tool_calls:
        return reply
    pending = pending_calls(context)
    kept = tuple(c for c in reply.tool_calls if _call_key(c.name, c.arguments) not in pending)
    if len(kept) == len(reply.tool_calls):
        return reply
    if kept:
        return dataclasses.replace(reply, tool_calls=kept)
    repeated = ", ".join(sorted({c.name for c in reply.tool_calls}))
    return Reply(
        WAITING_FOR_RESULT, (), rule="pending_call", why=f"{repeated} already called; output pending"
    )
