"""Bad input over a real socket: each gets the live service's error event and the session keeps working."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from tests.speech import validate_server_event


async def receive(ws, kind: str) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=10)).data)
        validate_server_event(event)
        if event["type"] == kind:
            return event


@asynccontextmanager
async def realtime_socket(
    url: str, **connect: Any
) -> AsyncIterator[tuple[aiohttp.ClientWebSocketResponse, dict]]:
    """A socket to the engine at ``url`` (ws base) with the test key, and its ``session.created``."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{url}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer sk-test"}, **connect
        ) as ws,
    ):
        yield ws, await receive(ws, "session.created")


@pytest.mark.parametrize(
    ("frame", "code", "param"),
    [
        ("not json", "invalid_json", None),
        (b"\x00\x01", "invalid_event", None),  # a binary frame
        (json.dumps({"type": "nope\ud800", "event_id": "e1"}), "invalid_json", None),
        (
            '{"type": "session.update", "event_id": "e1", "session": {"type": "realtime", '
            '"audio": {"output": {"speed": NaN}}}}',
            "invalid_json",
            None,
        ),
        (
            json.dumps(
                {
                    "type": "session.update",
                    "event_id": "e1",
                    "session": {"type": "realtime", "audio": {"input": {"format": {}}}},
                }
            ),
            "missing_required_parameter",
            "session.audio.input.format.type",
        ),
        (
            json.dumps(
                {
                    "type": "session.update",
                    "event_id": "e1",
                    "session": {
                        "type": "realtime",
                        "tools": [
                            {
                                "type": "function",
                                "name": "f",
                                "parameters": {"type": "object", "properties": 5},
                            }
                        ],
                    },
                }
            ),
            "invalid_value",
            "session.tools[0].parameters",
        ),
        (
            json.dumps(
                {
                    "type": "conversation.item.truncate",
                    "event_id": "e1",
                    "item_id": "x",
                    "content_index": 0,
                    "audio_end_ms": -5,
                }
            ),
            "integer_below_min_value",
            "audio_end_ms",
        ),
        (
            json.dumps({"type": "conversation.item.create", "event_id": "e1"}),
            "missing_required_parameter",
            "item",
        ),
        (
            json.dumps(
                {
                    "type": "conversation.item.create",
                    "event_id": "e1",
                    "item": {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "input_audio", "audio": ""}],
                    },
                }
            ),
            "invalid_value",
            "item.content[0].type",
        ),
        (
            json.dumps({"type": "response.create", "event_id": "e1", "response": {"conversation": "bogus"}}),
            "invalid_value",
            "response.conversation",
        ),
        (json.dumps({"type": "nope", "event_id": "e1"}), "invalid_value", "type"),
        (json.dumps({"event_id": "e1"}), "invalid_event", "type"),
        (
            json.dumps(
                {"type": "session.update", "event_id": "e1", "session": {"type": "realtime", "bogus": 1}}
            ),
            "unknown_parameter",
            "session.bogus",
        ),
        (
            json.dumps({"type": "session.update", "event_id": "e1", "session": {"instructions": "x"}}),
            "missing_required_parameter",
            "session.type",
        ),
        (
            json.dumps({"type": "input_audio_buffer.append", "event_id": "e1", "audio": "%%%not-base64"}),
            "invalid_value",
            "audio",
        ),
        (
            json.dumps(
                {
                    "type": "session.update",
                    "event_id": "e1",
                    "session": {"type": "realtime", "audio": {"output": {"voice": "bob"}}},
                }
            ),
            "invalid_value",
            "session.audio.output.voice",
        ),
    ],
)
async def test_bad_frame_gets_error_and_session_survives(engine_url, frame, code, param):
    url = await engine_url()
    async with realtime_socket(url) as (ws, created):
        await (ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_str(frame))
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["param"]) == (code, param)
        # An unparsable frame has no event_id.
        if isinstance(frame, str) and "e1" in frame and code != "invalid_json":
            assert error["event_id"] == "e1"
        await ws.send_str(
            json.dumps(
                {"type": "session.update", "session": {"type": "realtime", "instructions": "Still here."}}
            )
        )
        updated = await receive(ws, "session.updated")
        assert updated["session"]["instructions"] == "Still here."
        assert updated["session"]["audio"] == created["session"]["audio"]  # the bad frame changed nothing


def _vad(**fields: Any) -> dict:
    return {"audio": {"input": {"turn_detection": {"type": "server_vad", **fields}}}}


@pytest.mark.parametrize(
    ("session", "code", "param", "bound"),
    [
        # number parameters are "decimal" whatever the JSON literal (the live temperature: 200 capture)
        (
            _vad(threshold=5),
            "decimal_above_max_value",
            "session.audio.input.turn_detection.threshold",
            "<= 1, but got 5",
        ),
        (
            _vad(threshold=-1),
            "decimal_below_min_value",
            "session.audio.input.turn_detection.threshold",
            ">= 0, but got -1",
        ),
        (
            {"audio": {"output": {"speed": 3}}},
            "decimal_above_max_value",
            "session.audio.output.speed",
            "<= 1.5, but got 3",
        ),
        (
            {"audio": {"output": {"speed": 0.1}}},
            "decimal_below_min_value",
            "session.audio.output.speed",
            ">= 0.25, but got 0.1",
        ),
        # integer parameters stay "integer"
        (
            _vad(silence_duration_ms=-1),
            "integer_below_min_value",
            "session.audio.input.turn_detection.silence_duration_ms",
            ">= 0, but got -1",
        ),
        (
            _vad(idle_timeout_ms=40000),
            "integer_above_max_value",
            "session.audio.input.turn_detection.idle_timeout_ms",
            "<= 30000, but got 40000",
        ),
    ],
)
async def test_a_range_error_is_worded_after_the_parameter_type(engine_url, session, code, param, bound):
    url = await engine_url()
    async with realtime_socket(url) as (ws, _):
        update = {"type": "session.update", "session": {"type": "realtime", **session}}
        await ws.send_str(json.dumps(update))
        error = (await receive(ws, "error"))["error"]
        side = "above maximum" if "above" in code else "below minimum"
        word = code.split("_")[0]
        assert (error["code"], error["param"]) == (code, param)
        assert (
            error["message"] == f"Invalid '{param}': {word} {side} value. Expected a value {bound} instead."
        )


async def test_a_short_commit_is_an_error_and_the_audio_stays_for_the_next(engine_url):
    url = await engine_url()
    async with realtime_socket(url) as (ws, _):
        await ws.send_str(
            json.dumps(
                {"type": "input_audio_buffer.append", "audio": base64.b64encode(bytes(48 * 50)).decode()}
            )
        )
        await ws.send_str(json.dumps({"type": "input_audio_buffer.commit"}))
        error = (await receive(ws, "error"))["error"]
        assert error["code"] == "input_audio_buffer_commit_empty" and "50.00ms" in error["message"]
        await ws.send_str(
            json.dumps(
                {"type": "input_audio_buffer.append", "audio": base64.b64encode(bytes(48 * 60)).decode()}
            )
        )
        await ws.send_str(json.dumps({"type": "input_audio_buffer.commit"}))
        await receive(ws, "input_audio_buffer.committed")


@pytest.mark.parametrize(
    ("query", "headers", "code", "close_code"),
    [
        ("?model=gpt-realtime", {}, None, 3000),
        ("?model=gpt-nope", {"Authorization": "Bearer sk-test"}, "invalid_model", 4000),
        ("", {"Authorization": "Bearer sk-test"}, "missing_model", 4000),
        # A transcription intent with a model that is neither realtime nor transcription.
        ("?intent=transcription&model=gpt-nope", {"Authorization": "Bearer sk-test"}, "invalid_model", 4000),
    ],
)
async def test_refused_connections_get_error_then_close(engine_url, query, headers, code, close_code):
    url = await engine_url()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{url}/realtime{query}", headers=headers) as ws,
    ):
        error = json.loads((await ws.receive(timeout=5)).data)
        assert error["type"] == "error" and error["error"]["code"] == code
        closing = await ws.receive(timeout=5)
        assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == close_code


async def test_a_missing_model_is_refused_in_the_live_words(engine_url):
    """No ``model`` on the URL: the live ``missing_model`` message, verbatim (reference §0, live S6), whose
    example names ``gpt-realtime-1.5``."""
    url = await engine_url()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{url}/realtime", headers={"Authorization": "Bearer sk-test"}) as ws,
    ):
        error = json.loads((await ws.receive(timeout=5)).data)["error"]
        assert error["message"] == (
            "You must provide a model parameter, for example wss://api.openai.com/v1/realtime?model=gpt-realtime-1.5"
        )


async def test_browser_subprotocol_key_is_accepted(engine_url):
    url = await engine_url(api_key="sk-right")
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{url}/realtime?model=gpt-realtime-mini",
            protocols=("realtime", "openai-insecure-api-key.sk-right"),
        ) as ws,
    ):
        created = await receive(ws, "session.created")
        assert created["session"]["model"] == "gpt-realtime-mini"


async def test_beta_subprotocol_is_refused_and_header_case_does_not_matter(engine_url):
    url = await engine_url(api_key="sk-right")
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(
            f"{url}/realtime?model=gpt-realtime",
            protocols=("realtime", "openai-insecure-api-key.sk-right", "openai-beta.realtime-v1"),
        ) as ws:
            error = json.loads((await ws.receive(timeout=5)).data)["error"]
            assert error["code"] == "beta_api_shape_disabled"
        async with http.ws_connect(
            f"{url}/realtime?model=gpt-realtime", headers={"authorization": "Bearer sk-right"}
        ) as ws:
            await receive(ws, "session.created")


async def test_oversized_append_is_an_error_not_a_dropped_socket(engine_url):
    url = await engine_url()
    async with realtime_socket(url, max_msg_size=0) as (ws, _):
        audio = base64.b64encode(bytes(16 * 1024 * 1024)).decode()
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": audio}))
        error = (await receive(ws, "error"))["error"]
        assert error["param"] == "audio" and "15 MiB" in error["message"]
        await ws.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
        await receive(ws, "input_audio_buffer.cleared")


def _nested_list_schema(levels: int) -> dict:
    leaf: dict = {"type": "string"}
    for level in range(levels):
        entry = {"type": "object", "properties": {f"p{level}": leaf}, "required": [f"p{level}"]}
        leaf = {"anyOf": [{"type": "array", "items": entry}, {"type": "null"}]}
    return {"type": "object", "properties": {"root": leaf}, "required": ["root"]}


async def test_reused_item_ids_and_deep_nesting_do_not_break_the_session(engine_url):
    url = await engine_url()
    deep: dict = {"leaf": 1}
    for _ in range(200):
        deep = {"x": deep}
    async with realtime_socket(url) as (ws, _):
        await ws.send_str(
            json.dumps(
                {"type": "session.update", "session": {"type": "realtime", "tracing": {"metadata": deep}}}
            )
        )
        assert (await receive(ws, "error"))["error"]["code"] == "invalid_json"
        # Deep but real: 10 levels (strict mode's limit) of optional lists of objects was once refused
        # as invalid JSON, at 9 levels.
        await ws.send_str(
            json.dumps(
                {
                    "type": "session.update",
                    "session": {
                        "type": "realtime",
                        "tools": [
                            {
                                "type": "function",
                                "name": "save_outline",
                                "parameters": _nested_list_schema(10),
                            }
                        ],
                    },
                }
            )
        )
        await receive(ws, "session.updated")
        item = {
            "type": "message",
            "id": "dup1",
            "role": "user",
            "content": [{"type": "input_text", "text": "x"}],
        }
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        await ws.send_str(
            json.dumps({"type": "conversation.item.create", "item": item, "previous_item_id": "dup1"})
        )
        await ws.send_str(json.dumps({"type": "conversation.item.delete", "item_id": "dup1"}))
        await ws.send_str(
            json.dumps({"type": "response.create", "response": {"output_modalities": ["text"]}})
        )
        done = await receive(ws, "response.done")
        assert done["response"]["status"] == "completed"


async def test_a_tool_schema_whose_ref_resolves_to_nothing_is_refused_when_declared(engine_url):
    """It was accepted, and every response that tried to call the tool then failed with a server_error;
    Chat Completions refuses the same schema with a 400 when it is declared."""
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}, "required": ["a"]}
    defs = {"Colour": {"type": "string", "enum": ["red", "blue"]}}
    working = {"type": "object", "$defs": defs, "properties": {"colour": {"$ref": "#/$defs/Colour"}}}
    url = await engine_url()
    async with realtime_socket(url) as (ws, _):
        tool = {"type": "function", "name": "paint", "description": "Paint the wall a colour."}
        update = {
            "type": "realtime",
            "output_modalities": ["text"],
            "tools": [{**tool, "parameters": broken}],
        }
        await ws.send_str(json.dumps({"type": "session.update", "session": update, "event_id": "e1"}))
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_value",
            "session.tools[0].parameters",
            "e1",
        )
        assert "reference '#/$defs/Nope' cannot be resolved" in error["message"]
        override = {"tools": [{**tool, "parameters": broken}], "tool_choice": "required"}
        await ws.send_str(json.dumps({"type": "response.create", "response": override}))
        assert (await receive(ws, "error"))["error"]["param"] == "response.tools[0].parameters"
        update["tools"] = [{**tool, "parameters": working}]
        await ws.send_str(json.dumps({"type": "session.update", "session": update}))
        await receive(ws, "session.updated")
        await ws.send_str(json.dumps({"type": "response.create", "response": {"tool_choice": "required"}}))
        done = (await receive(ws, "response.done"))["response"]
        call = next(item for item in done["output"] if item["type"] == "function_call")
        assert done["status"] == "completed" and json.loads(call["arguments"])["colour"] in ("red", "blue")


@pytest.mark.parametrize("where", ["session", "response"])
async def test_a_repeated_output_modality_is_refused_for_what_it_is(engine_url, where):
    """``["text", "text"]`` was refused as "cannot contain both 'text' and 'audio'", which it does not:
    the message now names the list's length, and a session or response with one modality goes on."""
    url = await engine_url()
    async with realtime_socket(url) as (ws, _):
        if where == "session":
            bad = {"type": "session.update", "event_id": "e1", "session": {"type": "realtime"}}
        else:
            bad = {"type": "response.create", "event_id": "e1", "response": {}}
        bad[where]["output_modalities"] = ["text", "text"]
        await ws.send_str(json.dumps(bad))
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "invalid_value",
            f"{where}.output_modalities",
            "e1",
        )
        assert error["message"] == (
            f"Invalid '{where}.output_modalities': '[\"text\", \"text\"]' is longer than the maximum of 1."
        )
        await ws.send_str(
            json.dumps({"type": "response.create", "response": {"output_modalities": ["text"]}})
        )
        assert (await receive(ws, "response.done"))["response"]["status"] == "completed"


@pytest.mark.parametrize(
    ("event", "param"),
    [
        ({"type": "session.update", "session": {"type": "realtime", "max_output_tokens": 50.0}}, None),
        (
            {"type": "session.update", "session": {"type": "realtime", **_vad(silence_duration_ms=300.0)}},
            None,
        ),
        (
            {
                "type": "session.update",
                "session": {
                    "type": "realtime",
                    "audio": {"input": {"format": {"type": "audio/pcm", "rate": 24000.0}}},
                },
            },
            None,
        ),
        ({"type": "response.create", "response": {"max_output_tokens": 20.0}}, "response.max_output_tokens"),
    ],
)
async def test_a_whole_decimal_for_an_integer_field_is_an_invalid_type(engine_url, event, param):
    """A whole decimal (``50.0``) passed JSON Schema's "integer" and was echoed as ``50.0`` in
    ``session.updated`` / ``response.created``, where the GA types are integers (a strict decoder, Go's
    encoding/json or the SDK's strict models, refuses it). It is refused as ``1.5`` is, as the truncate
    event's ``audio_end_ms`` and Responses' ``max_output_tokens`` already were, and changes nothing."""
    url = await engine_url()
    async with realtime_socket(url) as (ws, created):
        await ws.send_str(json.dumps(event))
        error = (await receive(ws, "error"))["error"]
        assert error["code"] == "invalid_type", error
        assert error["message"].endswith("but got a decimal instead."), error
        if param is not None:
            assert error["param"] == param
        await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
        updated = await receive(ws, "session.updated")
        assert updated["session"] == {**created["session"], "expires_at": updated["session"]["expires_at"]}
