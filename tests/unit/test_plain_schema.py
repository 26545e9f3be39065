"""``plain_schema.verdict``: never says valid when jsonschema says invalid, nor the reverse; and a message
item of many plain parts, or a session of many plain tools, is passed without jsonschema (its cost per
part or tool held the event loop)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from mockengine.protocol import item_params, schema_errors
from mockengine.protocol.client_events import parse_client_event
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.item_params import ITEM_SCHEMA, RESPONSE_SCHEMA, validate_item
from mockengine.protocol.plain_schema import verdict
from mockengine.protocol.session_schema import SESSION_UPDATE_SCHEMA, TOOLS_SCHEMA

SEEDS = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}], "id": "i"},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_audio", "audio": "AAAA", "transcript": None},
            {"type": "input_image", "image_url": "data:image/png;base64,AA", "detail": "low"},
        ],
        "status": "completed",
        "object": "realtime.item",
    },
    {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "c", "output": "x"},
    {"type": "mcp_approval_response", "approval_request_id": "a", "approve": True, "reason": None},
    {"conversation": "none", "metadata": {"k": "v"}, "max_output_tokens": 5, "output_modalities": ["text"]},
    [{"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}}],
    {
        "type": "realtime",
        "instructions": "Be brief.",
        "output_modalities": ["text"],
        "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "max_output_tokens": 100,
        "truncation": {"type": "retention_ratio", "retention_ratio": 0.5},
        "tracing": {"workflow_name": "w"},
        "audio": {"output": {"voice": "marin", "speed": 1.2}},
    },
]
ODD_VALUES: list[Any] = [None, True, False, 0, 1, 1.0, 2.5, "", "x", "user", "message", [], {}, [1], {"a": 1}]


def _mutations(value: Any, rng: random.Random) -> Any:
    """``value`` with one node replaced, removed or given an extra key."""
    mutated = copy.deepcopy(value)
    containers = []
    stack = [mutated]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            containers.append(node)
            stack += node.values()
        elif isinstance(node, list):
            containers.append(node)
            stack += node
    node = rng.choice(containers)
    if isinstance(node, dict) and node and rng.random() < 0.7:
        key = rng.choice(sorted(node))
        if rng.random() < 0.2:
            del node[key]
        else:
            node[key] = rng.choice(ODD_VALUES)
    elif isinstance(node, dict):
        node[rng.choice(["extra", "type", "text", "role"])] = rng.choice(ODD_VALUES)
    elif node:
        node[rng.randrange(len(node))] = rng.choice(ODD_VALUES + SEEDS[:2])
    else:
        node.append(rng.choice(ODD_VALUES))
    return mutated


@pytest.mark.parametrize(
    "schema",
    [ITEM_SCHEMA, RESPONSE_SCHEMA, TOOLS_SCHEMA, SESSION_UPDATE_SCHEMA],
    ids=["item", "response", "tools", "session"],
)
def test_verdict_agrees_with_jsonschema_when_sure(schema: dict[str, Any]) -> None:
    rng = random.Random(7)
    validator = schema_errors.VALIDATOR_CLASS(schema)
    sure = 0
    for round_ in range(3000):
        instance = _mutations(rng.choice(SEEDS), rng) if round_ % 5 else rng.choice(SEEDS)
        said = verdict(instance, schema)
        if said is not None:
            sure += 1
            assert said == validator.is_valid(instance), json.dumps(instance)
    assert sure > 1000  # it does answer, not only defer


def test_verdict_compares_json_values_not_python_ones() -> None:
    assert verdict(True, {"enum": [1]}) is not True
    assert verdict(1, {"const": True}) is not True
    assert verdict(1.0, {"type": "integer"}) is None  # an integer to JSON Schema: jsonschema decides
    assert verdict("a", {"pattern": "b"}) is False
    assert verdict(5, {"pattern": "b"}) is True  # a pattern constrains only strings
    assert verdict(True, {"minimum": 3}) is True  # a boolean is no number to JSON Schema
    assert verdict(2, {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 3}]}) is False
    assert verdict("a", {"anyOf": [{"pattern": "a"}, {"$ref": "#"}]}) is True
    assert verdict("b", {"anyOf": [{"pattern": "a"}, {"$ref": "#"}]}) is None


def _jsonschema_asked(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The instances jsonschema is asked about from now on (appended as it is asked)."""
    asked: list[Any] = []
    real = schema_errors.VALIDATOR_CLASS

    class Counting(real):  # type: ignore[misc,valid-type]
        def iter_errors(self, instance: Any, *args: Any, **kwargs: Any) -> Any:
            asked.append(instance)
            return super().iter_errors(instance, *args, **kwargs)

    monkeypatch.setattr(schema_errors, "VALIDATOR_CLASS", Counting)
    return asked


def test_a_plain_message_of_many_parts_is_passed_without_jsonschema(monkeypatch) -> None:
    asked = _jsonschema_asked(monkeypatch)
    parts = [{"type": "input_text", "text": f"part {n}"} for n in range(20_000)]
    event = parse_client_event(
        json.dumps(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "user", "content": parts},
            }
        )
    )
    assert len(event.item["content"]) == 20_000  # type: ignore[attr-defined]
    assert asked == []


def test_a_session_of_many_plain_tools_is_passed_without_jsonschema(monkeypatch) -> None:
    """60,000 function tools (7 MB) held every session of the engine for ~40 s in jsonschema, on the
    event loop: a tool's ``name`` has a ``pattern`` and the session's fields ``anyOf``s, which the plain
    look deferred whole."""
    asked = _jsonschema_asked(monkeypatch)
    tools = [
        {
            "type": "function",
            "name": f"tool_{n}",
            "description": "d",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        }
        for n in range(2_000)
    ]
    session = {**SEEDS[-1], "tools": tools, "tool_choice": "required", "max_output_tokens": "inf"}
    event = parse_client_event(json.dumps({"type": "session.update", "session": session}))
    assert len(event.session["tools"]) == 2_000  # type: ignore[attr-defined]
    assert asked == []


@pytest.mark.parametrize(
    ("bad_tool", "param", "code"),
    [
        ({"type": "function", "name": "bad name!"}, "session.tools[3].name", "invalid_value"),
        ({"type": "function", "name": "x" * 65}, "session.tools[3].name", "invalid_value"),
        ({"type": "function"}, "session.tools[3].name", "missing_required_parameter"),
        ({"type": "function", "name": "f", "strict": True}, "session.tools[3].strict", "unknown_parameter"),
    ],
)
def test_a_bad_tool_among_plain_ones_gets_jsonschemas_error(bad_tool: Any, param: str, code: str) -> None:
    tools = [{"type": "function", "name": f"t{n}"} for n in range(3)] + [bad_tool]
    with pytest.raises(ProtocolError) as raised:
        parse_client_event(
            json.dumps({"type": "session.update", "session": {"type": "realtime", "tools": tools}})
        )
    assert (raised.value.param, raised.value.code) == (param, code)


@pytest.mark.parametrize(
    ("bad_part", "param"),
    [
        ({"type": "input_text"}, "item.content[3].text"),
        ({"type": "input_text", "text": 5}, "item.content[3].text"),
        ({"type": "input_text", "text": "x", "extra": 1}, "item.content[3].extra"),
        ({"type": "input_video"}, "item.content[3].type"),
        ("text", "item.content[3]"),
    ],
)
def test_a_bad_part_among_plain_ones_gets_jsonschemas_error(bad_part: Any, param: str) -> None:
    content = [{"type": "input_text", "text": "hi"}] * 3 + [bad_part]
    with pytest.raises(ProtocolError) as raised:
        validate_item({"type": "message", "role": "user", "content": content})
    assert raised.value.param == param
    assert item_params._has_plain_parts({"type": "message", "content": content}) is False
