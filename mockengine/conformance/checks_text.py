"""The checks without speech: handshake, cancel, function_call, silent_tool, image_context,
turn_detection_fields (HRP suite 6). Each runs on its own session after the HRP handshake.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

import jsonschema

from . import checks_webrtc
from .checks_speech import check_no_audio_after, expect_cancelled, start_long_response, user_text
from .connection import JsonObject, ReceivedEvent
from .context import CheckContext, describe_error, response_events, response_id_of
from .spec import question_request, tool_schema, turn_detection_update

CHAT_PROMPT = "Please send a chat message saying hello to Alex."
SCALE_QUESTION = (
    '[context] {"event":"question","tool":"answer_scale","question":"Question: How warm was your partner?'
    '\\nThis is a visual analog rating scale from 0 to 100.\\nRespond with a number between 0 and 100.",'
    '"duringVideo":false}'
)
IMAGE_SCREEN = (
    '[context] {"event":"screen","type":"showimage","text":"Look at this square.",'
    '"images":["attached: the image (a coloured square)"]}'
)
COLOUR_QUESTION = (
    '[context] {"event":"question","tool":"answer_text","question":"Which colour fills the image you were '
    'shown? Answer with one word.","duringVideo":false}'
)
# Audio that would still arrive after a cancelled response.done shows up within this (scaled) window.
SETTLE_MS = 1000


async def handshake(ctx: CheckContext) -> None:
    """Everything is checked while the session opens (``context.open_session``); nothing more to do."""


async def cancel(ctx: CheckContext) -> None:
    """response.cancel at the first audio delta ends the response (client_cancelled); no audio follows."""
    rid, _ = await start_long_response(ctx)
    sent_ms = await ctx.conn.send({"type": "response.cancel", "response_id": rid})
    early = [e for e in response_events(ctx.conn, rid, "response.done") if e.received_ms <= sent_ms]
    if early:
        ctx.abort(
            f"response {rid} finished (status={(early[0].get('response') or {}).get('status')}) before "
            "response.cancel was sent; nothing to cancel"
        )
    done = await expect_cancelled(
        ctx, rid, since_ms=sent_ms, reason="client_cancelled", anchor="response.cancel"
    )
    if ctx.conn.transport == "webrtc":  # cancel stops the generation; the client clears the playback
        await checks_webrtc.clear_playback(ctx, rid, SETTLE_MS)
    else:
        await ctx.sleep_ms(SETTLE_MS)
        check_no_audio_after(ctx, rid, done)
    second_ms = await ctx.conn.send({"type": "response.cancel"})
    reply = await ctx.expect(
        "error",
        since_ms=second_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what="error response_cancel_not_active for a second response.cancel",
        stop_on_error=False,
    )
    code = (reply.get("error") or {}).get("code")
    ctx.figures["second_cancel_error"] = str(code)
    if code != "response_cancel_not_active":
        ctx.fail(
            f"expected error code response_cancel_not_active for a second response.cancel; "
            f"got {describe_error(reply)}"
        )


async def function_call(ctx: CheckContext) -> None:
    """The engine calls a declared tool, accepts its output, and completes a follow-up response."""
    await ctx.conn.send(user_text(CHAT_PROMPT))
    rid, done = await request_response(
        ctx, {"type": "response.create", "response": {"output_modalities": ["audio"]}}
    )
    added = [
        e
        for e in response_events(ctx.conn, rid, "response.output_item.added")
        if (e.get("item") or {}).get("type") == "function_call"
    ]
    if not added:
        types = [
            (e.get("item") or {}).get("type")
            for e in response_events(ctx.conn, rid, "response.output_item.added")
        ]
        ctx.fail(f"expected response.output_item.added with a function_call item; got item types {types}")
    call = single_call(ctx, rid, done, expected_name=None)
    _check_status(ctx, done, "the tool-calling response")
    output = {"type": "function_call_output", "call_id": call.get("call_id"), "output": '{"accepted":true}'}
    sent_ms = await ctx.conn.send({"type": "conversation.item.create", "item": output})
    await ctx.expect(
        "conversation.item.added",
        lambda e: (e.get("item") or {}).get("call_id") == call.get("call_id"),
        since_ms=sent_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what=f"conversation.item.added for the function_call_output of {call.get('call_id')}",
    )
    _, follow_up = await request_response(ctx, {"type": "response.create"})
    _check_status(ctx, follow_up, "the follow-up response")
    if not (follow_up.get("response") or {}).get("output"):
        ctx.fail("expected the follow-up response.done to carry output; got an empty output list")


async def silent_tool(ctx: CheckContext) -> None:
    """A text-only, tool-forced response calls answer_scale exactly once with 0..100, and sends no audio."""
    await add_context_item(ctx, [{"type": "input_text", "text": SCALE_QUESTION}])
    rid, done = await request_response(ctx, question_request(ctx.suite, "answer_scale"))
    await ctx.sleep_ms(SETTLE_MS)
    args = single_call(ctx, rid, done, expected_name="answer_scale", exactly_one=True).get("arguments")
    value = _parsed(args).get("value") if isinstance(_parsed(args), dict) else None
    ctx.figures["value"] = value if isinstance(value, int | float) else str(value)
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 100:
        ctx.fail(f"expected answer_scale value to be a number within 0..100; got {value!r}")
    audio = response_events(ctx.conn, rid, "response.output_audio.delta")
    if audio:
        ctx.fail(f"expected no response.output_audio.delta for a text-only response; got {len(audio)}")
    _check_status(ctx, done, "the silent answer")


async def image_context(ctx: CheckContext) -> None:
    """A context item with an input_image (solid red PNG) is accepted; asked silently, the answer is red."""
    await add_context_item(
        ctx,
        [
            {"type": "input_text", "text": IMAGE_SCREEN},
            {"type": "input_image", "image_url": solid_png_data_url((255, 0, 0))},
        ],
    )
    await add_context_item(ctx, [{"type": "input_text", "text": COLOUR_QUESTION}])
    rid, done = await request_response(ctx, question_request(ctx.suite, "answer_text"))
    parsed = _parsed(single_call(ctx, rid, done, expected_name="answer_text").get("arguments"))
    text = str(parsed.get("text", "")) if isinstance(parsed, dict) else ""
    ctx.figures["answer"] = text[:60]
    if "red" not in text.lower():
        ctx.fail(f"expected the answer_text text to contain 'red'; got {text!r}")
    _check_status(ctx, done, "the silent answer")


def turn_detection_variants(td_type: str) -> list[JsonObject]:
    """Non-default settings of every field HRP lets a client set, for one turn-detection type."""
    if td_type == "server_vad":
        return [
            {
                "type": "server_vad",
                "threshold": 0.6,
                "prefix_padding_ms": 250,
                "silence_duration_ms": 500,
                "idle_timeout_ms": None,
                "create_response": True,
                "interrupt_response": False,
            }
        ]
    return [
        {"type": td_type, "eagerness": eagerness, "create_response": False, "interrupt_response": True}
        for eagerness in ("high", "low", "auto")
    ]


async def turn_detection_fields(ctx: CheckContext) -> None:
    """Every requested turn-detection field comes back unchanged in session.updated."""
    for variant in turn_detection_variants(str(ctx.turn_detection["type"])):
        sent_ms = await ctx.conn.send(turn_detection_update(ctx.suite, variant))
        updated = await ctx.expect(
            "session.updated",
            since_ms=sent_ms,
            timeout_ms=ctx.thresholds.event_timeout_ms,
            what=f"session.updated for turn_detection {variant}",
        )
        echoed = (((updated.get("session") or {}).get("audio") or {}).get("input") or {}).get(
            "turn_detection"
        )
        if not isinstance(echoed, dict):
            ctx.fail(f"expected session.updated audio.input.turn_detection to echo {variant}; got {echoed!r}")
            continue
        for key, value in variant.items():
            if key not in echoed:
                ctx.fail(f"session.updated turn_detection lacks {key} (sent {value!r})")
            elif not same_json(echoed[key], value):
                ctx.fail(f"turn_detection.{key}: sent {value!r}, session.updated echoed {echoed[key]!r}")
    ctx.figures["variants"] = len(turn_detection_variants(str(ctx.turn_detection["type"])))


def same_json(a: Any, b: Any) -> bool:
    """JSON equality that keeps booleans apart from numbers (true != 1) but lets 500 == 500.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


async def add_context_item(ctx: CheckContext, content: list[JsonObject]) -> ReceivedEvent:
    """Create a user message item; aborts unless conversation.item.added (not an error) answers."""
    sent_ms = await ctx.conn.send(
        {"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": content}}
    )
    return await ctx.expect(
        "conversation.item.added",
        since_ms=sent_ms,
        timeout_ms=ctx.thresholds.event_timeout_ms,
        what="conversation.item.added for the context item",
    )


async def request_response(ctx: CheckContext, request: JsonObject) -> tuple[str, ReceivedEvent]:
    """Send a response.create; returns (response id, its response.done)."""
    timeout_ms = ctx.thresholds.event_timeout_ms
    sent_ms = await ctx.conn.send(request)
    created = await ctx.expect("response.created", since_ms=sent_ms, timeout_ms=timeout_ms)
    rid = response_id_of(created) or ""
    done = await ctx.expect_response_done(created, timeout_ms)
    ctx.figures["response_ms"] = round(done.received_ms - sent_ms)
    return rid, done


def single_call(
    ctx: CheckContext, rid: str, done: ReceivedEvent, *, expected_name: str | None, exactly_one: bool = False
) -> ReceivedEvent:
    """The response's function_call_arguments.done, with a declared name and schema-valid JSON arguments."""
    calls = response_events(ctx.conn, rid, "response.function_call_arguments.done")
    if not calls:
        response = done.get("response") or {}
        ctx.abort(
            f"expected response.function_call_arguments.done for {expected_name or 'a declared tool'}"
            f"; {rid} ended status={response.get('status')} with output "
            f"{[o.get('type') for o in response.get('output') or []]} and no call"
        )
    if exactly_one and len(calls) != 1:
        ctx.fail(
            f"expected exactly one function_call_arguments.done; got {len(calls)} "
            f"({', '.join(str(c.get('name')) for c in calls)})"
        )
    call = calls[0]
    name = str(call.get("name"))
    ctx.figures.update({"tool": name, "call_id": str(call.get("call_id"))})
    if expected_name is not None and name != expected_name:
        ctx.fail(f"expected a call to {expected_name}; got {name}")
    if not call.get("call_id"):
        ctx.fail("expected function_call_arguments.done to carry a call_id; got none")
    _check_arguments(ctx, name, call.get("arguments"))
    return call


def _check_arguments(ctx: CheckContext, name: str, arguments: Any) -> None:
    try:
        schema = tool_schema(ctx.suite, name)
    except KeyError:
        ctx.fail(f"the engine called {name!r}, which the session did not declare")
        return
    parsed = _parsed(arguments)
    if parsed is _UNPARSEABLE:
        ctx.fail(f"expected {name} arguments to be JSON; got {arguments!r}")
        return
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(parsed)]
    if errors:
        ctx.fail(f"{name} arguments {arguments!r} do not match the declared schema: {'; '.join(errors)}")


_UNPARSEABLE = object()


def _parsed(arguments: Any) -> Any:
    try:
        return json.loads(arguments) if isinstance(arguments, str) else _UNPARSEABLE
    except json.JSONDecodeError:
        return _UNPARSEABLE


def _check_status(ctx: CheckContext, done: ReceivedEvent, what: str) -> None:
    response = done.get("response") or {}
    if response.get("status") != "completed":
        ctx.fail(
            f"expected {what} to complete; response.done status={response.get('status')} "
            f"details={response.get('status_details')}"
        )


def solid_png_data_url(rgb: tuple[int, int, int], size_px: int = 64) -> str:
    """A ``data:image/png;base64,…`` URL of a solid ``size_px``² RGB image (PNG built by hand, 8-bit RGB)."""
    row = b"\x00" + bytes(rgb) * size_px
    header = struct.pack(">IIBBBBB", size_px, size_px, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size_px))
    png += chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
