"""Chat Completions answered from a recording, by request matching.

A request matches a recorded one when their *normalised* ``messages`` and ``tools`` are equal and both
stream or both do not. Normalisation (docs/record-replay.md): per message the role, the text with runs
of whitespace made one space and the ends trimmed (content parts: text parts in order, an image as a
hash of its URL), the ``name``, and each tool call's function name and its arguments as canonical JSON;
``tool_call_id`` s and call ids are left out. Tools count by name and canonical JSON parameters, in any
order. Model, sampling parameters, seed and ``stream_options`` are ignored. The n-th request with a given
key gets the n-th recorded answer to it (the last one again after that). A request that matches nothing
is a divergence: traced, counted, then answered by the scripted participant — or, with
``--replay-strict``, refused with HTTP 400 ``replay_divergence``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from mockengine.record.replay_session import DIVERGENCES, TRACE_KIND
from mockengine.server.state import TRACER

log = logging.getLogger("mockengine.replay")
CHAT_PATH = "/v1/chat/completions"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def request_key(body: Any) -> str:
    """The normalised form of a chat request that replay matches on."""
    if not isinstance(body, dict):
        return json.dumps(body, sort_keys=True)
    messages = [_message(m) for m in body.get("messages") or [] if isinstance(m, dict)]
    tools = sorted(_canonical(_tool(t)) for t in body.get("tools") or [] if isinstance(t, dict))
    return _canonical({"messages": messages, "tools": tools, "stream": bool(body.get("stream"))})


def _message(message: dict[str, Any]) -> dict[str, Any]:
    calls = [
        [str((c.get("function") or {}).get("name")), _arguments((c.get("function") or {}).get("arguments"))]
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    return {
        "role": message.get("role"),
        "text": _text(message.get("content")),
        "name": message.get("name"),
        "calls": calls,
    }


def _text(content: Any) -> str:
    if isinstance(content, str):
        return " ".join(content.split())
    parts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(" ".join(str(part.get("text", "")).split()))
        elif isinstance(part, dict) and part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            parts.append("[image " + hashlib.sha256(url.encode()).hexdigest()[:16] + "]")
    return " ".join(parts)


def _arguments(arguments: Any) -> Any:
    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return " ".join(str(arguments).split())


def _tool(tool: dict[str, Any]) -> Any:
    function = tool.get("function") or {}
    return [function.get("name"), function.get("parameters")]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ChatReplay:
    """The recorded chat exchanges by request key, and how many of each were served."""

    def __init__(self, exchanges: list[dict[str, Any]], speed: float, strict: bool) -> None:
        self.speed = speed
        self.is_strict = strict
        self.by_key: dict[str, list[dict[str, Any]]] = {}
        for exchange in exchanges:
            if exchange.get("path") == CHAT_PATH and exchange.get("method") == "POST":
                self.by_key.setdefault(request_key(exchange.get("request_body")), []).append(exchange)
        self._served: dict[str, int] = {}

    def match(self, body: Any) -> dict[str, Any] | None:
        key = request_key(body)
        answers = self.by_key.get(key)
        if not answers:
            return None
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        return answers[min(n, len(answers) - 1)]


@web.middleware
async def chat_replay_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.method != "POST" or request.path != CHAT_PATH:
        return await handler(request)
    from mockengine.record.wiring import CHAT_REPLAY

    replay = request.app[CHAT_REPLAY]
    raw = await request.read()  # aiohttp keeps the body: the handler can read it again
    try:
        body = json.loads(raw)
    except ValueError:
        return await handler(request)  # the engine answers malformed JSON as usual
    exchange = replay.match(body)
    if exchange is not None:
        return await _answer(request, exchange, replay.speed)
    DIVERGENCES.labels(mode="strict" if replay.is_strict else "fallback").inc()
    data = {"request": "chat.completions", "recorded_requests": sum(map(len, replay.by_key.values()))}
    request.app[TRACER].write("chat-completions", TRACE_KIND, data)
    log.warning(
        "chat replay: no recorded request matches this one (%d messages)", len(body.get("messages") or [])
    )
    if replay.is_strict:
        message = (
            "Replay divergence: no recorded chat completion matches this request "
            "(messages and tools, normalised as in docs/record-replay.md)."
        )
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "replay_divergence",
        }
        return web.json_response({"error": error}, status=400)
    return await handler(request)


async def _answer(request: web.Request, exchange: dict[str, Any], speed: float) -> web.StreamResponse:
    status = int(exchange.get("status", 200))
    if not exchange.get("stream"):
        body = exchange.get("response_body")
        if isinstance(body, str):
            return web.Response(text=body, status=status)
        return web.json_response(body, status=status)
    response = web.StreamResponse(
        status=status,
        headers={"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"},
    )
    await response.prepare(request)
    previous_ms = None
    try:
        for chunk in exchange.get("chunks") or []:
            at_ms = float(chunk.get("ms", 0.0))
            if previous_ms is not None and speed > 0 and at_ms > previous_ms:
                await asyncio.sleep((at_ms - previous_ms) / speed / 1000.0)
            previous_ms = at_ms
            await response.write(b"data: " + str(chunk.get("data", "")).encode() + b"\n\n")
        await response.write_eof()
    except ConnectionResetError:
        log.debug("chat replay stream: client went away")
    return response
