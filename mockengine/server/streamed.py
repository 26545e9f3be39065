"""Chunked HTTP answers: server-sent events (Chat Completions, Responses, the audio endpoints' SSE, a
replayed stream) and streamed audio (``/v1/audio/speech``).

A client that goes away mid-answer (a barge-in closing a speech request, a closed tab) just ends the
answer: aiohttp raises ``ConnectionResetError``, or ``ConnectionError("Connection lost")`` while draining,
and neither is an error of the engine's.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterable, Iterable
from typing import Any

from aiohttp import web

log = logging.getLogger("mockengine.http")

SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"


def compact_json(value: Any) -> str:
    """JSON as the live service sends it: no spaces, UTF-8 characters as they are."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse_frame(event: Any) -> bytes:
    """One ``data:`` event of a server-sent event stream."""
    return b"data: " + compact_json(event).encode() + b"\n\n"


async def send_streamed(
    request: web.Request,
    pieces: Iterable[bytes] | AsyncIterable[bytes],
    headers: dict[str, str],
    *,
    status: int = 200,
    what: str = "stream",
) -> web.StreamResponse:
    """Answer with ``pieces`` written one after another as they come (``headers`` give its
    ``Content-Type``; ``Cache-Control: no-cache`` is added). ``what`` names the stream in the debug line
    logged when the client goes away."""
    # No Content-Length: aiohttp sends HTTP/1.1 answers chunked by itself, and an HTTP/1.0 one until the
    # connection closes (forcing chunked encoding would refuse HTTP/1.0 clients).
    response = web.StreamResponse(status=status, headers={**headers, "Cache-Control": "no-cache"})
    await response.prepare(request)
    try:
        if isinstance(pieces, AsyncIterable):
            async for piece in pieces:
                await response.write(piece)
        else:
            for piece in pieces:
                await response.write(piece)
        await response.write_eof()
    except ConnectionError:
        log.debug("%s: client went away", what)
    return response
