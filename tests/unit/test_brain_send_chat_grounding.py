"""After a ``send_chat`` output, HyperStudy's words ("I've sent that message.") only for HyperStudy's own
``send_chat`` (its schema, or beside HyperStudy's other tools, ``declared.study_tools``); an app's own
``send_chat`` is grounded from the output's fields like any app tool, its refusal said plainly, and a
forced call of it takes its arguments from the words."""

from __future__ import annotations

import json
import random

import pytest

from mockengine.brain import ForcedTool, ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.phrases import acknowledge_output

MEETING_SEND_CHAT = ToolSpec(
    name="send_chat",
    description="Post a message in the meeting chat.",
    parameters={
        "type": "object",
        "properties": {"message": {"type": "string"}, "to": {"type": "string"}},
        "required": ["message"],
    },
)
MEETING = (
    MEETING_SEND_CHAT,
    ToolSpec(name="mute", description="Mute or unmute the microphone.", parameters={"type": "object"}),
)
HRP_SEND_CHAT = tuple(tool for tool in HRP_TOOLS if tool.name == "send_chat")
SENT = {acknowledge_output(None, "send_chat", random.Random(seed)) for seed in range(20)}


def _after_send_chat(tools: tuple[ToolSpec, ...], output: str) -> tuple[str | None, str]:
    history = (
        TurnView("item_user", "user_audio", "tell Dario the parcel is here"),
        TurnView(
            "item_fc",
            "function_call",
            '{"message": "the parcel is here", "to": "Dario"}',
            name="send_chat",
            call_id="call_1",
        ),
        TurnView("item_out", "function_call_output", output, call_id="call_1"),
    )
    request = ReplyRequest("You are a participant.", tools, "auto", ("audio",), history, 1)
    reply = ScriptedBrain(load_scenario(None), 7).reply(request)
    assert reply.tool_calls == ()
    return reply.text, reply.rule


def test_an_apps_own_send_chat_is_grounded_from_its_output() -> None:
    text, rule = _after_send_chat(MEETING, '{"ok": true, "to": "Dario", "title": "Parcel note"}')
    assert rule == "builtin.function_output.grounding"
    assert text == "I've sent the chat to Dario." and text not in SENT


def test_an_apps_own_send_chat_refused_is_said_plainly() -> None:
    text, rule = _after_send_chat(MEETING, '{"error": "Dario is not in this meeting"}')
    assert (text, rule) == (
        "I couldn't send the chat to Dario: Dario is not in this meeting.",
        "builtin.function_output.failed",
    )


@pytest.mark.parametrize(
    "tools", [HRP_TOOLS, HRP_SEND_CHAT], ids=["hyperstudy", "hyperstudy_send_chat_alone"]
)
def test_hyperstudys_send_chat_keeps_its_study_acknowledgement(tools: tuple[ToolSpec, ...]) -> None:
    text, rule = _after_send_chat(tools, '{"ok": true, "title": "Parcel note"}')
    assert rule == "builtin.function_output.accepted" and text in SENT


def test_a_meeting_send_chat_beside_hyperstudys_tools_is_hyperstudys() -> None:
    """Declared with HyperStudy's other tools, the name is HyperStudy's (``declared.study_tools``)."""
    others = tuple(tool for tool in HRP_TOOLS if tool.name != "send_chat")
    text, rule = _after_send_chat((MEETING_SEND_CHAT, *others), '{"ok": true, "title": "Parcel note"}')
    assert rule == "builtin.function_output.accepted" and text in SENT


def test_an_apps_own_send_chat_forced_takes_its_arguments_from_the_words() -> None:
    history = (TurnView("item_user", "user_audio", "message Dario saying the parcel is here"),)
    request = ReplyRequest("You are a participant.", MEETING, ForcedTool("send_chat"), ("audio",), history, 0)
    reply = ScriptedBrain(load_scenario(None), 7).reply(request)
    assert reply.rule == "forced_tool.from_words"
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("send_chat", {"message": "the parcel is here", "to": "Dario"})
    ]
