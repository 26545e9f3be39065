"""A household thing moved, to an app that only switches things on or off.

"close the blinds" to a smart home whose one device tool is ``set_device(device, state: enum[on, off])``
names a device the tool takes, but neither option: closing blinds may be either (a motor switched on to
close them, or the blinds "off"), so a model asks rather than guess, and the device is kept for the
answer ("Should I turn it on or off?" → "off" → ``set_device {device: "blinds", state: "off"}``). A
move is open/close, shut, raise/lower, roll or pull up/down, said of a thing that moves (blinds, shades,
shutters, curtains, a garage door, a gate, an awning, a skylight, a window). An app that declares the
move (``control_blinds(action: enum[open, close])``) is matched by the words as any tool is; this is
read only when no tool matched (``acting.plan``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import lexicon, schema_values
from mockengine.brain.model import ToolSpec

_MOVE = re.compile(
    r"^\W*(?:(?:please|can you|could you|would you|just)\s+)*"
    r"(?:open|close|shut|raise|lower|roll (?:up|down)|pull (?:up|down))\s+(?:up\s+|down\s+)?"
    r"(?:the\s+|my\s+|our\s+|all\s+the\s+)?"
    r"(?P<thing>(?:[a-z]+\s+){0,2}?(?:blinds?|shades?|shutters?|curtains?|garage(?:\s+door)?|gate|awning"
    r"|skylight|windows?))\b",
    re.IGNORECASE,
)
# Parameter-name words for the thing a switch tool acts on.
_DEVICE = frozenset(("device", "appliance", "thing", "target", "entity", "name"))


def moved_thing(text: str) -> str | None:
    """The thing a move is said of ("blinds" of "close the blinds", "bedroom blinds"); None when the
    words are no such move."""
    found = _MOVE.search(text)
    return None if found is None else found.group("thing").lower()


def switch_tool(tools: list[ToolSpec]) -> tuple[ToolSpec, str, str] | None:
    """The one tool that takes a device by name and a required on/off enum: (tool, device parameter,
    state parameter); None when there is none or more than one."""
    found = []
    for tool in tools:
        properties = schema_values.properties_of(tool.parameters or {}) or {}
        required = schema_values.required_of(tool.parameters or {})
        device = next((n for n in required if _names_a_device(n, properties.get(n))), None)
        state = next((n for n in required if _on_off(properties.get(n))), None)
        if device is not None and state is not None:
            found.append((tool, device, state))
    return found[0] if len(found) == 1 else None


def _names_a_device(name: str, schema: Any) -> bool:
    return (
        isinstance(schema, Mapping)
        and schema.get("type") == "string"
        and not schema.get("enum")
        and bool(set(lexicon.identifier_words(name).split()) & _DEVICE)
    )


def _on_off(schema: Any) -> bool:
    options = schema.get("enum") if isinstance(schema, Mapping) else None
    return isinstance(options, list) and {str(o).lower() for o in options} == {"on", "off"}
