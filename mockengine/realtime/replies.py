"""Pure helpers between the session, its responses and the brain: effective response parameters, the
brain's view of the context."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mockengine.brain.model import ForcedTool, ReplyRequest, ToolChoice, ToolSpec
from mockengine.protocol import errors
from mockengine.protocol.session_config import SessionConfig
from mockengine.realtime.conversation import Item
from mockengine.realtime.response import ResponseParams


def response_params(
    session: SessionConfig, overrides: dict[str, Any], input_items: tuple[Item, ...] | None = None
) -> ResponseParams:
    """Session defaults overlaid by a ``response.create``'s ``response`` object (reference §1.1)."""
    audio_override = overrides.get("audio", {}).get("output", {})
    voice = audio_override.get("voice", session.voice)
    if isinstance(voice, dict):  # custom voice ids are not emulated: speak with the default voice
        voice = SessionConfig.voice
    tools = tuple(overrides.get("tools", session.tools))
    tool_choice = overrides.get("tool_choice", session.tool_choice)
    if isinstance(tool_choice, dict) and tool_choice["name"] not in {t["name"] for t in tools}:
        # Name where the forced function came from: a session's tool_choice fails every response.create
        # until the session changes, and "response.tool_choice" sent its author to an event without one.
        where = "response" if "tool_choice" in overrides else "session"
        raise errors.ProtocolError(
            "invalid_value",
            f"Invalid '{where}.tool_choice': the function '{tool_choice['name']}' is not among the "
            f"declared tools{'' if where == 'response' else ' of the session'}.",
            f"{where}.tool_choice",
        )
    return ResponseParams(
        output_modalities=tuple(overrides.get("output_modalities", session.output_modalities)),
        voice=voice,
        speed=session.speed,
        output_format=dict(audio_override.get("format", session.output_format.wire())),
        instructions=overrides.get("instructions", session.instructions),
        tools=tools,
        tool_choice=tool_choice,
        max_output_tokens=overrides.get("max_output_tokens", session.max_output_tokens),
        metadata=overrides.get("metadata"),
        conversation=overrides.get("conversation", "auto"),
        input_items=input_items,
    )


def _tool_choice(value: Any) -> ToolChoice:
    if isinstance(value, dict):
        return ForcedTool(value["name"])
    return value  # type: ignore[no-any-return]


def build_reply_request(params: ResponseParams, context: Iterable[Item], response_index: int) -> ReplyRequest:
    return ReplyRequest(
        instructions=params.instructions,
        tools=tuple(
            ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in params.tools
        ),
        tool_choice=_tool_choice(params.tool_choice),
        output_modalities=params.output_modalities,
        history=tuple(item.view() for item in context),
        response_index=response_index,
    )
