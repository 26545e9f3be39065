"""The wire registry: one place names each client event type, and everything derives from it."""

from __future__ import annotations

import json

import pytest

from mockengine.protocol import client_events as ce
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.responses import Responses
from tests.conftest import make_session

# The live service's accepted-type list, verbatim (reference §8, "unknown event type").
LIVE_LIST_MESSAGE = (
    "Invalid value: 'nope'. Supported values are: 'session.update', 'session.close', "
    "'input_audio_buffer.append', 'session.input_audio_buffer.append', 'input_audio_buffer.commit', "
    "'input_audio_buffer.clear', 'conversation.item.create', 'conversation.item.truncate', "
    "'conversation.item.delete', 'conversation.item.retrieve', 'response.create', and 'response.cancel'."
)


def refusal(frame: dict, transport: ce.Transport = "websocket") -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        ce.parse_client_event(json.dumps(frame), transport)
    return caught.value


def test_an_unknown_type_quotes_the_live_list_verbatim() -> None:
    error = refusal({"type": "nope", "event_id": "e1"})
    assert (error.code, error.param, error.event_id) == ("invalid_value", "type", "e1")
    assert error.message == LIVE_LIST_MESSAGE


def test_output_audio_buffer_clear_is_refused_over_websocket_and_accepted_over_webrtc() -> None:
    error = refusal({"type": "output_audio_buffer.clear"})
    assert error.message == LIVE_LIST_MESSAGE.replace("'nope'", "'output_audio_buffer.clear'")
    event = ce.parse_client_event('{"type": "output_audio_buffer.clear", "event_id": "x"}', "webrtc")
    assert event == ce.OutputAudioBufferClear(event_id="x")
    assert "output_audio_buffer.clear" in refusal({"type": "nope"}, "webrtc").message


@pytest.mark.parametrize("wire_type", list(ce.REGISTRY))
def test_every_wire_type_parses_to_its_class_and_names_it(wire_type: str) -> None:
    cls = ce.REGISTRY[wire_type]
    assert wire_type in (cls.type, *cls.aliases)
    frames = {
        "session.update": {"session": {"type": "realtime"}},
        "input_audio_buffer.append": {"audio": "AAAA"},
        "session.input_audio_buffer.append": {"audio": "AAAA"},
        "conversation.item.create": {
            "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        },
        "conversation.item.truncate": {"item_id": "i", "content_index": 0, "audio_end_ms": 0},
        "conversation.item.delete": {"item_id": "i"},
        "conversation.item.retrieve": {"item_id": "i"},
    }
    transport = next(iter(sorted(cls.transports)))
    event = ce.parse_client_event(json.dumps({"type": wire_type, **frames.get(wire_type, {})}), transport)
    assert type(event) is cls
    assert event.type == cls.type


def test_the_session_has_a_handler_named_after_each_wire_type() -> None:
    session = make_session()
    for cls in set(ce.REGISTRY.values()):
        handler = session._handlers[cls]
        assert handler.__name__ == "on_" + cls.type.replace(".", "_")
        assert handler.__self__ in (session, session.items, session.responses, session.turns)


def test_a_type_registered_twice_is_refused() -> None:
    class Duplicate(ce.WireEvent):
        type = "response.cancel"

    with pytest.raises(ValueError, match="registered twice"):
        ce.client_event(Duplicate)
    assert ce.REGISTRY["response.cancel"] is ce.ResponseCancel


def test_null_is_not_given_except_where_it_means_something_and_inside_client_data() -> None:
    tool = {"type": "function", "name": "f", "parameters": {"type": "object", "default": None}}
    frame = {
        "type": "session.update",
        "event_id": None,
        "session": {
            "type": "realtime",
            "instructions": None,
            "tools": [tool],
            "audio": {"input": {"turn_detection": None, "transcription": None, "format": None}},
        },
    }
    event = ce.parse_client_event(json.dumps(frame))
    assert event.event_id is None
    assert event.session == {
        "type": "realtime",
        "tools": [tool],  # a JSON Schema's null is the schema's own data
        "audio": {"input": {"turn_detection": None, "transcription": None}},
    }


@pytest.mark.parametrize(
    ("role", "part"),
    [
        ("user", {"type": "input_text"}),
        ("user", {"type": "input_text", "text": None}),
        ("assistant", {"type": "output_text"}),
    ],
)
def test_a_text_part_without_its_text_is_a_missing_parameter(role: str, part: dict) -> None:
    """{"type": "input_text", "text": null} was accepted: an empty user turn went into the conversation."""
    frame = {"type": "conversation.item.create", "item": {"type": "message", "role": role, "content": [part]}}
    with pytest.raises(ProtocolError) as raised:
        ce.parse_client_event(json.dumps(frame))
    payload = raised.value.payload()
    assert (payload["code"], payload["param"]) == ("missing_required_parameter", "item.content[0].text")
    assert payload["message"] == "Missing required parameter: 'item.content[0].text'."


def test_a_handler_defined_on_two_parts_of_the_session_fails_at_construction(monkeypatch) -> None:
    monkeypatch.setattr(Responses, "on_session_update", lambda self, event, now_ms: None, raising=False)
    with pytest.raises(TypeError, match="session.update: 2 handlers named on_session_update"):
        make_session()
