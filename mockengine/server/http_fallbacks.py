"""OpenAI-shaped JSON for every HTTP error the routes do not answer themselves.

Without this, aiohttp answers an unknown route, a wrong method or a plain GET on the WebSocket endpoint
with a text body, which an OpenAI client cannot parse. Here:

- an unknown route or a method the route does not take: 404, ``code: "unknown_url"``, "Unknown request
  URL: GET /v1/nope. Please check the URL for typos, …" (the live API's answer, routes being matched on
  method and path together);
- ``GET /v1/realtime`` (or ``/v1/realtime/translations``) without a WebSocket upgrade: 426 Upgrade
  Required with ``Upgrade: websocket``
  (mockengine's choice: what the live endpoint answers is not documented), after the checks that come
  before the handshake (``--auth-failure http`` 401, a ``refuse_upgrade`` fault), whether or not the
  engine is full: admission's 503 answers only a request that asks for the upgrade (a plain GET is no
  session; it got the 503 while ``--max-sessions`` were in use, and the 426 otherwise);
- any other text error aiohttp raises (e.g. 413 for a body over its limit): the same status, its text
  as the message;
- an exception in a handler (a bug, never client input): 500 with the live API's ``server_error`` body,
  logged with its traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import hdrs, web

from mockengine.protocol.http_errors import error_response

log = logging.getLogger("mockengine")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
REALTIME_PATH = "/v1/realtime"
TRANSLATIONS_PATH = "/v1/realtime/translations"
# Azure OpenAI's paths of the same endpoint: openai-python's AsyncAzureOpenAI connects to
# {azure_endpoint}/openai/realtime, openai-node's AzureOpenAI and Azure's GA how-to to /openai/v1/realtime.
AZURE_REALTIME_PATHS = ("/openai/realtime", "/openai/v1/realtime")
# The WebSocket endpoints and the model a client would name on each.
WEBSOCKET_PATHS = {
    REALTIME_PATH: "gpt-realtime",
    TRANSLATIONS_PATH: "gpt-realtime-translate",
    **dict.fromkeys(AZURE_REALTIME_PATHS, "gpt-realtime"),
}
SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


def unknown_url(request: web.Request) -> web.Response:
    return error_response(
        404,
        f"Unknown request URL: {request.method} {request.path}. Please check the URL for typos, or see the "
        "docs at https://platform.openai.com/docs/api-reference/.",
        code="unknown_url",
    )


def upgrade_required(path: str = REALTIME_PATH) -> web.Response:
    return error_response(
        426,
        f"{path} is a WebSocket endpoint: connect with a Realtime client "
        f"(ws://HOST:PORT{path}?model={WEBSOCKET_PATHS[path]}), which sends the Upgrade: websocket header.",
        headers={hdrs.UPGRADE: "websocket"},
    )


@web.middleware
async def fallback_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        return unknown_url(request)
    except web.HTTPException as exc:
        if exc.status < 400 or exc.content_type == "application/json":
            raise
        # The WebSocket handshake refuses a request without an upgrade (400); what the handler answers
        # before it (auth 401, a refused-upgrade fault) still comes first.
        if exc.status == 400 and request.path in WEBSOCKET_PATHS and not asks_for_websocket(request):
            return upgrade_required(request.path)
        return error_response(exc.status, exc.text or exc.reason, headers=_kept_headers(exc))
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        return error_response(500, SERVER_ERROR, type="server_error")


def asks_for_websocket(request: web.Request) -> bool:
    """Whether ``request`` asks for the WebSocket upgrade (``Upgrade: websocket``)."""
    return request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"


def _kept_headers(exc: web.HTTPException) -> dict[str, str]:
    """What the client still needs from the original answer (e.g. ``Allow``, ``Retry-After``)."""
    return {k: v for k, v in exc.headers.items() if k not in (hdrs.CONTENT_TYPE, hdrs.CONTENT_LENGTH)}
