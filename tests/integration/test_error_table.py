"""The reference's §8 error table, row by row, over one live socket: code, param, message and the echoed
``event_id``; after each the session goes on (a rejected ``session.update`` is discarded whole)."""

from __future__ import annotations

import json

import aiohttp

from tests.speech import validate_server_event

USER_ITEM = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello there."}]}

# (event without event_id, code, param, words the message must contain)
ROWS = [
    (
        {"type": "nope"},
        "invalid_value",
        "type",
        "Invalid value: 'nope'. Supported values are: 'session.update'",
    ),
    ({"session": {}}, "invalid_event", "type", "The 'type' field is missing."),
    (
        {"type": "session.update", "session": {"type": "realtime", "bogus_field": 1}},
        "unknown_parameter",
        "session.bogus_field",
        "Unknown parameter: 'session.bogus_field'.",
    ),
    (
        {"type": "session.update", "session": {"instructions": "x"}},
        "missing_required_parameter",
        "session.type",
        "Missing required parameter: 'session.type'.",
    ),
    (
        {"type": "session.update", "session": {"type": "realtime", "reasoning": {"effort": "bogus"}}},
        "invalid_value",
        "session.reasoning.effort",
        "Invalid value: 'bogus'. Supported values are: 'minimal', 'low', 'medium', 'high', and 'xhigh'.",
    ),
    (
        {"type": "session.update", "session": {"type": "session"}},
        "invalid_value",
        "session.type",
        "Invalid value: 'session'. Supported values are: 'realtime' and 'transcription'",
    ),
    (
        {
            "type": "session.update",
            "session": {
                "type": "realtime",
                "instructions": "never applied",
                "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}},
            },
        },
        "integer_below_min_value",
        "session.audio.input.format.rate",
        "Expected a value >= 24000",
    ),
    (
        {"type": "response.cancel"},
        "response_cancel_not_active",
        None,
        "Cancellation failed: no active response found",
    ),
    (
        {"type": "input_audio_buffer.commit"},
        "input_audio_buffer_commit_empty",
        None,
        "buffer too small. Expected at least 100ms of audio, but buffer only has 0.00ms of audio.",
    ),
    (
        {"type": "conversation.item.delete", "item_id": "yo"},
        "item_delete_invalid_item_id",
        None,
        "Error deleting item: the item with id 'yo' does not exist.",
    ),
    (
        {"type": "conversation.item.retrieve", "item_id": "non_existent_item"},
        "item_retrieve_invalid_item_id",
        None,
        "Error retrieving item: the item with id 'non_existent_item' does not exist.",
    ),
    (
        {"type": "conversation.item.truncate", "item_id": "gone", "content_index": 0, "audio_end_ms": 0},
        "item_truncate_invalid_item_id",
        None,
        "Error truncating item: the item with id 'gone' does not exist.",
    ),
    (
        {"type": "conversation.item.create", "previous_item_id": "nope", "item": USER_ITEM},
        "item_create_invalid_previous_item_id",
        "previous_item_id",
        "the previous item with id 'nope' does not exist",
    ),
    (
        {
            "type": "conversation.item.create",
            "item": {"type": "function_call_output", "call_id": "call_x", "output": "{}"},
        },
        "invalid_tool_call_id",
        "item.call_id",
        "Tool call ID 'call_x' not found in conversation.",
    ),
    (
        {
            "type": "conversation.item.create",
            "item": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_audio", "transcript": "Hi there."}],
            },
        },
        "missing_required_parameter",
        "item.content[0].text",
        "Missing required parameter: 'item.content[0].text'.",
    ),
    (
        {"type": "input_audio_buffer.append", "audio": "%%%"},
        "invalid_value",
        "audio",
        "Expected base64-encoded audio bytes",
    ),
]


async def receive(ws, kind: str) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=30)).data)
        validate_server_event(event)
        if event["type"] == kind:
            return event


async def test_every_session_error_row(engine):
    eng = await engine(audio_pace=0.0)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        created = (await receive(ws, "session.created"))["session"]
        for n, (event, code, param, words) in enumerate(ROWS):
            await ws.send_str(json.dumps({**event, "event_id": f"row{n}"}))
            error = (await receive(ws, "error"))["error"]
            assert (error["code"], error["param"], error["event_id"]) == (code, param, f"row{n}"), event
            assert words in error["message"], error["message"]
            assert error["type"] == "invalid_request_error"
        # Nothing of the rejected updates was applied.
        await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
        assert (await receive(ws, "session.updated"))["session"] == created

        # Rows that need state: an active response, assistant audio, a text item to truncate.
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": USER_ITEM}))
        user_item = (await receive(ws, "conversation.item.added"))["item"]["id"]
        await ws.send_str(json.dumps({"type": "response.create"}))
        await ws.send_str(json.dumps({"type": "response.create", "event_id": "twice"}))
        response_id = (await receive(ws, "response.created"))["response"]["id"]
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["event_id"]) == ("conversation_already_has_active_response", "twice")
        assert response_id in error["message"]
        done = (await receive(ws, "response.done"))["response"]
        reply_item = done["output"][0]["id"]

        async def expect(event: dict, code: str, param: str | None, words: str) -> None:
            await ws.send_str(json.dumps({**event, "event_id": code}))
            error = (await receive(ws, "error"))["error"]
            assert (error["code"], error["param"], error["event_id"]) == (code, param, code)
            assert words in error["message"], error["message"]

        await expect(
            {
                "type": "session.update",
                "session": {"type": "realtime", "audio": {"output": {"voice": "echo"}}},
            },
            "cannot_update_voice",
            "session.audio.output.voice",
            "Cannot update a conversation's voice if assistant audio is present.",
        )
        await expect(
            {
                "type": "conversation.item.truncate",
                "item_id": user_item,
                "content_index": 0,
                "audio_end_ms": 0,
            },
            "unsupported_content_type",
            None,
            "Only model output audio messages can be truncated",
        )
        truncate = {"type": "conversation.item.truncate", "item_id": reply_item, "content_index": 0}
        await ws.send_str(json.dumps({**truncate, "audio_end_ms": 10**7, "event_id": "long"}))
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["param"], error["event_id"]) == ("invalid_value", "audio_end_ms", "long")
        assert error["message"].endswith("is already shorter than 10000000ms")
        # The same voice is no change: accepted.
        same = {"type": "realtime", "audio": {"output": {"voice": "alloy"}}}
        await ws.send_str(json.dumps({"type": "session.update", "session": same}))
        assert (await receive(ws, "session.updated"))["session"]["audio"]["output"]["voice"] == "alloy"


async def test_bad_base64_names_the_sessions_input_format(engine):
    """An append that is not base64 is refused naming the session's input format: G.711 μ-law or A-law at
    8 kHz after a switch to ``audio/pcmu`` / ``audio/pcma`` (the message said PCM16 24 kHz whatever the
    format), on the plain-append path and the general one (a null ``event_id`` takes the latter; an integer
    one did, and is now refused itself)."""
    eng = await engine(audio_pace=0.0)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        await receive(ws, "session.created")
        for fmt, words in (
            ("audio/pcmu", "(mono G.711 μ-law at 8kHz)"),
            ("audio/pcma", "(mono G.711 A-law at 8kHz)"),
            ("audio/pcm", "(mono PCM16 at 24kHz)"),
        ):
            audio_format = {"type": fmt, "rate": 24000} if fmt == "audio/pcm" else {"type": fmt}
            update = {"type": "realtime", "audio": {"input": {"format": audio_format}}}
            await ws.send_str(json.dumps({"type": "session.update", "session": update}))
            await receive(ws, "session.updated")
            for event_id in ("plain", None):
                append = {"type": "input_audio_buffer.append", "audio": "%%%", "event_id": event_id}
                await ws.send_str(json.dumps(append))
                error = (await receive(ws, "error"))["error"]
                assert (error["code"], error["param"]) == ("invalid_value", "audio"), error
                assert words in error["message"], (fmt, error["message"])
