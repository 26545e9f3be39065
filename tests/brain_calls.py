"""The scripted participant's tool calls for one user message, as the new-user brain tests read them."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario

TODAY = date(2026, 12, 4)


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
