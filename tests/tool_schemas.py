"""Function tools several tests declare, each defined once: as the brain's ``ToolSpec``, and through
``realtime_tool`` / ``chat_tool`` in the wire shapes of the Realtime and Responses APIs (flat) and of Chat
Completions (nested under ``function``)."""

from __future__ import annotations

import copy
from typing import Any

from mockengine.brain.model import ToolSpec

BOOK_TABLE = ToolSpec(
    "book_table",
    "Book a table at the restaurant",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Name for the booking"},
            "party_size": {"type": "integer"},
            "time": {"type": "string", "description": "HH:MM"},
        },
        "required": ["name", "party_size"],
    },
)
TIME_PATTERN = "^[0-2][0-9]:[0-5][0-9]$"
SET_ALARM = ToolSpec(
    "set_alarm",
    "Set an alarm.",
    {
        "type": "object",
        "properties": {
            "time": {"type": "string", "pattern": TIME_PATTERN},
            "days": {
                "type": "array",
                "items": {"type": "string", "enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
                "minItems": 1,
                "uniqueItems": True,
            },
            "volume": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["time", "days", "volume"],
        "additionalProperties": False,
    },
)


def _function(tool: ToolSpec) -> dict[str, Any]:
    # A copy: a test that edits what it sends must not change the tool for the tests after it.
    return {"name": tool.name, "description": tool.description, "parameters": copy.deepcopy(tool.parameters)}


def realtime_tool(tool: ToolSpec) -> dict[str, Any]:
    """The tool as a Realtime session or a Responses request declares it (``{"type": "function", "name",
    …}``)."""
    return {"type": "function", **_function(tool)}


def chat_tool(tool: ToolSpec) -> dict[str, Any]:
    """The tool as a Chat Completions request declares it (``{"type": "function", "function": {"name",
    …}}``)."""
    return {"type": "function", "function": _function(tool)}
