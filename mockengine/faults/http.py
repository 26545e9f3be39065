"""HTTP faults for every REST route (``/v1/models``, ``/v1/realtime/client_secrets``, chat …) as aiohttp
middleware, so routes added later get them too.

Bodies and headers are the real service's (the SDK's error classes and retry logic read exactly these):
429 ``rate_limit_exceeded`` with "Please try again in Ns" and ``retry-after`` / ``retry-after-ms`` /
``x-ratelimit-*`` headers; 429 ``insufficient_quota``; 429 "Request too large"; 500 ``server_error``;
502 ``cf_bad_gateway``; 503 "overloaded". WebSocket upgrades are left to the Realtime handler's own faults.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from mockengine.faults.spec import FaultSpec, FaultSpecError
from mockengine.faults.state import FAULTS, FaultState
from mockengine.protocol.http_errors import error_body, error_response

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
SSE_TRUNCATE = web.RequestKey("sse_truncate", FaultSpec)
ORG = "org-mockengine"
RPM_LIMIT = 500
TPM_LIMIT = 30_000

SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"
STATUS_BODIES: dict[int, dict[str, Any]] = {
    500: error_body(SERVER_ERROR, type="server_error"),
    502: {"error": {"code": 502, "message": "Bad gateway.", "param": None, "type": "cf_bad_gateway"}},
    503: error_body("The engine is currently overloaded, please try again later", type="server_error"),
}
QUOTA_MESSAGE = (
    "You exceeded your current quota, please check your plan and billing details. For more information on "
    "this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
)


def rate_limit_message(model: str, retry_after_s: float) -> str:
    return (
        f"Rate limit reached for {model} in organization {ORG} on requests per min (RPM): Limit {RPM_LIMIT}, "
        f"Used {RPM_LIMIT}, Requested 1. Please try again in {_duration(retry_after_s)}. "
        "Visit https://platform.openai.com/account/rate-limits to learn more."
    )


def too_large_message(model: str) -> str:
    return (
        f"Request too large for {model} in organization {ORG} on tokens per min (TPM): Limit {TPM_LIMIT}, "
        f"Requested {TPM_LIMIT + 6000}. The input or output tokens must be reduced in order to run "
        "successfully. Visit https://platform.openai.com/account/rate-limits to learn more."
    )


def _duration(seconds: float) -> str:
    """The service's style: ``120ms``, ``1.5s``, ``20s``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    return f"{seconds:g}s"


def rate_limit_headers(retry_after_s: float, exhausted: str) -> dict[str, str]:
    """``retry-after`` (whole seconds, rounded up), ``retry-after-ms`` and the ``x-ratelimit-*`` family;
    ``exhausted`` (``requests`` or ``tokens``) is the one at zero."""
    reset = _duration(retry_after_s)
    return {
        "retry-after": str(max(0, math.ceil(retry_after_s))),
        "retry-after-ms": str(round(retry_after_s * 1000)),
        "x-ratelimit-limit-requests": str(RPM_LIMIT),
        "x-ratelimit-remaining-requests": "0" if exhausted == "requests" else str(RPM_LIMIT - 1),
        "x-ratelimit-reset-requests": reset,
        "x-ratelimit-limit-tokens": str(TPM_LIMIT),
        "x-ratelimit-remaining-tokens": "0" if exhausted == "tokens" else str(TPM_LIMIT - 1000),
        "x-ratelimit-reset-tokens": reset,
    }


def fault_response(spec: FaultSpec, model: str) -> web.Response | None:
    """The canned answer of an error-status fault, or None for the kinds that act otherwise."""
    if spec.kind == "http_rate_limit":
        wait = float(spec["retry_after_s"])
        return error_response(
            429,
            rate_limit_message(model, wait),
            type="requests",
            code="rate_limit_exceeded",
            headers=rate_limit_headers(wait, "requests"),
        )
    if spec.kind == "http_quota":
        return error_response(429, QUOTA_MESSAGE, type="insufficient_quota", code="insufficient_quota")
    if spec.kind == "http_too_large":
        return error_response(
            429,
            too_large_message(model),
            type="tokens",
            code="rate_limit_exceeded",
            headers=rate_limit_headers(1.0, "tokens"),
        )
    if spec.kind == "http_status":
        status = int(spec["status"])
        body = STATUS_BODIES.get(status, error_body(SERVER_ERROR, type="server_error"))
        return web.json_response(body, status=status)
    return None


async def _hang(request: web.Request, seconds: float) -> None:
    """Wait, but no longer than the client does (aiohttp does not cancel handlers when clients leave)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline and request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(min(0.1, max(0.0, deadline - loop.time())))


async def _model_of(request: web.Request) -> str:
    """The model a request names (JSON body or ``?model=``), for the rate-limit messages."""
    if request.method == "POST" and request.content_type == "application/json":
        try:
            body = json.loads(await request.read())  # aiohttp keeps the body for the handler
        except (ValueError, web.HTTPRequestEntityTooLarge):
            body = None
        session = body.get("session") if isinstance(body, dict) else None
        for source in (body, session):
            if isinstance(source, dict) and isinstance(source.get("model"), str):
                return str(source["model"])
    return request.query.get("model", "gpt-realtime")


def _is_faultable(request: web.Request) -> bool:
    return request.path.startswith("/v1/") and request.headers.get("Upgrade", "").lower() != "websocket"


@web.middleware
async def fault_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Apply the request's HTTP faults (see :mod:`mockengine.faults.state` for where they come from)."""
    if not _is_faultable(request):
        return await handler(request)
    state: FaultState = request.app[FAULTS]
    try:
        specs = state.for_request(request)
    except FaultSpecError as exc:
        return error_response(400, f"Invalid mockengine fault: {exc}", param="fault")
    where = f"{request.method} {request.path}"
    # Reading the body only when a fault will answer: a handler's own limits (413) must still apply.
    model = await _model_of(request) if specs else ""
    for spec in specs:
        canned = fault_response(spec, model)
        if canned is not None:
            state.record(spec, where, status=canned.status)
            return canned
        if spec.kind == "http_hang":
            state.record(spec, where, ms=spec["ms"])
            await _hang(request, spec["ms"] / 1000.0)
        elif spec.kind == "http_drop":
            state.record(spec, where)
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError  # nothing can be answered on a dropped connection
        elif spec.kind == "sse_truncate":
            request[SSE_TRUNCATE] = spec
    response = await handler(request)
    if any(s.kind == "http_malformed_json" for s in specs) and isinstance(response, web.Response):
        body = response.body if isinstance(response.body, bytes) else b"{}"
        state.record("http_malformed_json", where)
        return web.Response(
            body=body[: max(1, len(body) // 2)], status=response.status, content_type="application/json"
        )
    return response


async def truncate_event_streams(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare`` hook: a streamed answer of a request with ``sse_truncate`` breaks off in
    the middle of event ``after_events + 1`` and the connection is dropped (no final chunk, no ``[DONE]``)."""
    spec = request.get(SSE_TRUNCATE)
    if spec is None or response.content_type != "text/event-stream":
        return
    state: FaultState = request.app[FAULTS]
    original, original_eof = response.write, response.write_eof
    events_left = int(spec["after_events"])
    is_cut = False

    async def write(data: bytes | bytearray | memoryview) -> None:
        nonlocal events_left, is_cut
        if is_cut:
            return  # the handler goes on writing into a connection that is gone
        chunk = bytes(data)
        complete = chunk.count(b"\n\n")
        if complete <= events_left:
            events_left -= complete
            await original(chunk)
            return
        cut = _after_nth_event(chunk, events_left)
        await original(chunk[: cut + max(1, (len(chunk) - cut) // 2)])
        state.record(spec, f"{request.method} {request.path}", after_events=spec["after_events"])
        is_cut = True
        if request.transport is not None:
            request.transport.abort()

    async def write_eof(data: bytes = b"") -> None:
        if not is_cut:
            await original_eof(data)

    response.write = write  # type: ignore[method-assign]
    response.write_eof = write_eof  # type: ignore[method-assign]


def _after_nth_event(chunk: bytes, n: int) -> int:
    position = 0
    for _ in range(n):
        position = chunk.index(b"\n\n", position) + 2
    return position
