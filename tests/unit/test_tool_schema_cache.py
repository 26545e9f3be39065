"""A tool's schema is checked against the metaschema once: the same tools sent again (every session of an
app, every ``session.update`` of a framework) reuse the verdict, valid or not."""

from __future__ import annotations

import pytest

import mockengine.protocol.session_config as session_config
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import validate_session_update


def _tools(count: int, marker: str, parameters: dict | None = None) -> list[dict]:
    schema = parameters or {
        "type": "object",
        "properties": {"city": {"type": "string", "description": f"a city ({marker})"}},
        "required": ["city"],
    }
    return [
        {"type": "function", "name": f"tool_{i}", "parameters": {**schema, "title": f"{marker} {i}"}}
        for i in range(count)
    ]


@pytest.fixture
def checks(monkeypatch) -> list[object]:
    seen: list[object] = []
    original = session_config.VALIDATOR_CLASS.check_schema

    def counting(schema: object) -> None:
        seen.append(schema)
        original(schema)

    monkeypatch.setattr(session_config.VALIDATOR_CLASS, "check_schema", counting)
    return seen


def test_the_same_tools_again_are_not_checked_again(checks) -> None:
    tools = _tools(300, "cache-test-valid")
    validate_session_update({"type": "realtime", "tools": tools})
    assert len(checks) == 300
    validate_session_update({"type": "realtime", "tools": list(reversed(tools))})
    assert len(checks) == 300


def test_a_bad_schema_is_refused_each_time_with_the_same_error(checks) -> None:
    bad = _tools(1, "cache-test-bad", {"type": "object", "properties": {"n": {"type": "nope"}}})
    messages = []
    for _ in range(2):
        with pytest.raises(ProtocolError) as refused:
            validate_session_update({"type": "realtime", "tools": bad})
        messages.append((refused.value.param, refused.value.message))
    assert messages[0] == messages[1] and messages[0][0] == "session.tools[0].parameters"
    assert "not a valid JSON Schema" in messages[0][1] and len(checks) == 1
