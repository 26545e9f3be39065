"""A call's arguments are written in the order of the tool's schema properties, as a model writes them
(whatever order the words filled them in)."""

from __future__ import annotations

import json
from datetime import date

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario

REMINDER = ToolSpec(
    "set_reminder",
    "Set a reminder.",
    {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "What to be reminded of"},
            "date": {"type": "string", "format": "date"},
            "time": {"type": "string", "description": "HH:MM"},
        },
        "required": ["text"],
    },
)


def test_arguments_follow_the_schema_s_property_order() -> None:
    said = TurnView("u", "user_audio", "Remind me to call mom tomorrow at 6 pm")
    request = ReplyRequest("", (REMINDER,), "auto", ("audio",), (said,), 0)
    reply = ScriptedBrain(load_scenario(None), 3, today=date(2026, 3, 2)).reply(request)
    (call,) = reply.tool_calls
    assert list(json.loads(call.arguments)) == ["text", "date", "time"]
    assert json.loads(call.arguments) == {"text": "call mom", "date": "2026-03-03", "time": "18:00"}
