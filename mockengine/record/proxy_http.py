"""The recorder's HTTP side: every other ``/v1/...`` request relayed and recorded as one exchange.

A JSON body is kept as JSON, other UTF-8 bodies as text, any other as base64 (``…_body_base64``); a
``text/event-stream`` answer is relayed chunk by chunk as it arrives and recorded as its SSE ``data:``
payloads with their time offsets (``ms`` since the request arrived), so replay can stream it as it came.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import aiohttp
from aiohttp import web

from mockengine.record.proxy import HOP_HEADERS, RECORDER, Recorder, refuse
from mockengine.recordings.format import redact_headers
from mockengine.server.handshake import key_accepted


def _bearer(request: web.Request) -> str | None:
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


def _body(name: str, raw: bytes) -> dict[str, Any]:
    """``{name: JSON or text}``, or for a body that is not UTF-8 (an ``/v1/audio/speech`` answer, a
    multipart upload with a WAV) ``{name: None, name + "_base64": …}``: decoding such a body with
    replacement characters kept neither its bytes nor its length."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {name: None, f"{name}_base64": base64.b64encode(raw).decode("ascii")}
    try:
        return {name: json.loads(text) if text else None}
    except ValueError:
        return {name: text}


async def http_proxy(request: web.Request) -> web.StreamResponse:
    """Any ``/v1/...`` HTTP request (chat completions, models, client secrets, ...)."""
    recorder = request.app[RECORDER]
    started = time.monotonic()
    key = _bearer(request)
    if not key_accepted(recorder.settings, key):
        return refuse(401, "Incorrect API key provided to the mockengine recorder.", "invalid_api_key")
    raw = await request.read()
    headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
    outgoing = recorder.outgoing_key(key)
    if outgoing:
        headers["Authorization"] = f"Bearer {outgoing}"
    exchange = _request_record(request, raw)
    assert recorder.http is not None
    try:
        async with recorder.http.request(
            request.method,
            recorder.http_url(request.path.removeprefix("/v1")),
            params=request.query,
            data=raw or None,
            headers=headers,
        ) as upstream:
            exchange["status"] = upstream.status
            exchange["response_headers"] = redact_headers(upstream.headers)
            if upstream.content_type == "text/event-stream":
                return await _relay_stream(request, upstream, exchange, started, recorder)
            body = await upstream.read()
    except aiohttp.ClientError as exc:
        return refuse(502, f"upstream unreachable: {exc}", "upstream_unreachable")
    exchange.update(_body("response_body", body))
    exchange["ms"] = round((time.monotonic() - started) * 1e3, 1)
    _note_secrets(recorder, exchange["response_body"])
    recorder.write_json(recorder.next_exchange_path(), exchange)
    kept = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_HEADERS}
    return web.Response(body=body, status=upstream.status, headers=kept)


def _request_record(request: web.Request, raw: bytes) -> dict[str, Any]:
    return {
        "t": round(time.time(), 3),
        "method": request.method,
        "path": request.path,
        "query": dict(request.query),
        "request_headers": redact_headers(request.headers),
        **_body("request_body", raw),
    }


async def _relay_stream(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    exchange: dict[str, Any],
    started: float,
    recorder: Recorder,
) -> web.StreamResponse:
    kept = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_HEADERS}
    response = web.StreamResponse(status=upstream.status, headers=kept)
    await response.prepare(request)
    chunks: list[dict[str, Any]] = []
    buffered = b""
    async for data in upstream.content.iter_any():
        await response.write(data)
        buffered += data
        *events, buffered = buffered.split(b"\n\n")
        at_ms = round((time.monotonic() - started) * 1e3, 1)
        chunks += [
            {"ms": at_ms, "data": payload} for payload in map(_sse_data, events) if payload is not None
        ]
    await response.write_eof()
    exchange["stream"] = True
    exchange["chunks"] = chunks
    exchange["ms"] = round((time.monotonic() - started) * 1e3, 1)
    recorder.write_json(recorder.next_exchange_path(), exchange)
    return response


def _sse_data(event: bytes) -> str | None:
    """The joined ``data:`` lines of one SSE event, or None for a comment-only event."""
    lines = [line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
    return b"\n".join(lines).decode("utf-8", "replace") if lines else None


def _note_secrets(recorder: Recorder, body: Any) -> None:
    """``ek_`` client secrets minted upstream are scrubbed from this exchange and every later record."""
    if isinstance(body, dict):
        value = body.get("value") or (body.get("client_secret") or {}).get("value")
        if isinstance(value, str):
            recorder.scrub.add(value)
