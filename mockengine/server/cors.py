"""CORS for browser pages that call the engine directly: every ``/v1/`` route (``/v1/realtime/calls``,
``/v1/realtime/client_secrets``, ``/v1/models``, ``/v1/chat/completions``, ``/v1/responses``,
``/v1/audio/*``).

The allowed origins are ``settings.cors_origins``; with none configured, any ``http(s)`` page served from
``localhost``, ``127.0.0.1`` or ``[::1]`` on any port (a developer's own dev server works out of the
box, nothing else does); ``*`` allows every origin. A preflight (``OPTIONS`` with
``Access-Control-Request-Method``) from an allowed origin is answered 204 with the methods and the
request headers it may send (``Authorization``, ``Content-Type`` and the ``OpenAI-*`` / ``X-Mockengine-*``
headers SDKs add); an answer to an allowed origin names it and exposes :data:`EXPOSED_HEADERS`, every
header the engine sets that a page may want to read (a browser hides all but the CORS-safelisted ones,
``Content-Type`` and the like, from code on another origin). Other origins get no CORS headers, so the
browser keeps the answer from the page; their preflight is a 403 with an OpenAI-shaped error body
(:func:`origin_refused`: type ``request_forbidden``, the real API's for its 403s, code
``origin_not_allowed``, mockengine's own) naming the origin and ``--cors-origin``, which the browser's
network panel, or a ``curl -X OPTIONS``, shows. Pages the engine serves itself (the console at ``/``) are
same-origin and need none of this.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from aiohttp import web

from mockengine.protocol.http_errors import error_response
from mockengine.server.state import RESOURCES

LOCAL_ORIGIN = re.compile(r"^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$")
ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS"
MAX_AGE_S = "600"
# What the engine's answers carry beyond the safelisted headers, for a page to read them.
EXPOSED_HEADERS = ", ".join(
    (
        "Location",  # POST /v1/realtime/calls: the call's URL
        "x-request-id",  # chat completions and responses, as the service (openai SDKs' _request_id)
        "Retry-After",  # 503 from admission control or the session limit; 429 from http_rate_limit
        "retry-after-ms",  # http_rate_limit faults (what openai SDKs' retries prefer)
        "x-ratelimit-limit-requests",
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
        "x-ratelimit-limit-tokens",
        "x-ratelimit-remaining-tokens",
        "x-ratelimit-reset-tokens",
        "X-Mockengine-Worker",  # serve --workers: which worker owns a call (webrtc/siblings.py)
        "X-Mockengine-Via",  # … and which one forwarded the request
        "X-Mockengine-Session-Handle",  # a call's handle for the control endpoints (realtime_faults.py)
    )
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _serialized(origin: str) -> str:
    """``origin`` as a browser's ``Origin`` header spells it (RFC 6454): scheme and host in lower case, no
    default port, no trailing ``/``. ``--cors-origin HTTPS://App.Example.com:443`` was taken and matched
    no page: the browser sends ``https://app.example.com``."""
    origin = origin.rstrip("/")
    scheme, sep, rest = origin.partition("://")
    if not sep:
        return origin
    scheme, rest = scheme.lower(), rest.lower()
    default = _DEFAULT_PORTS.get(scheme)
    if default is not None and rest.endswith(default):
        rest = rest[: -len(default)]
    return f"{scheme}://{rest}"


def is_allowed(origin: str, configured: tuple[str, ...]) -> bool:
    if not configured:
        return LOCAL_ORIGIN.match(origin) is not None
    return "*" in configured or _serialized(origin) in {_serialized(o) for o in configured}


@web.middleware
async def cors_preflight(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer preflights before any route (or injected fault) sees them."""
    origin = request.headers.get("Origin")
    if (
        origin is None
        or request.method != "OPTIONS"
        or "Access-Control-Request-Method" not in request.headers
        or not request.path.startswith("/v1/")
    ):
        return await handler(request)
    if not is_allowed(origin, request.app[RESOURCES].settings.cors_origins):
        return origin_refused(origin, request.app[RESOURCES].settings.cors_origins)
    requested = request.headers.get("Access-Control-Request-Headers", "")
    return web.Response(
        status=204,
        headers={
            **_origin_headers(origin),
            "Access-Control-Allow-Methods": ALLOWED_METHODS,
            "Access-Control-Allow-Headers": requested or "Authorization, Content-Type",
            "Access-Control-Max-Age": MAX_AGE_S,
        },
    )


def origin_refused(origin: str, configured: tuple[str, ...]) -> web.Response:
    """The 403 for a preflight from an origin not allowed: ``{"error": {"message", "type", "param",
    "code"}}`` saying which origin, what is allowed now and how to allow it. It was plain text, which a
    developer reading the failed preflight in the browser's network panel found in no OpenAI shape."""
    allowed = (
        "only pages from localhost, 127.0.0.1 or [::1] (the default)"
        if not configured
        else "only " + ", ".join(configured)
    )
    return error_response(
        403,
        f"Origin {origin} may not call this engine from a browser page: {allowed} may. Allow it with "
        f"`mockengine serve --cors-origin {origin}` (repeatable; MOCKENGINE_CORS_ORIGINS in the "
        "environment, comma-separated).",
        type="request_forbidden",
        code="origin_not_allowed",
    )


async def add_cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every answer as it is prepared, streamed ones (SSE) and raised errors included."""
    origin = request.headers.get("Origin")
    if origin is None or not request.path.startswith("/v1/"):
        return
    if is_allowed(origin, request.app[RESOURCES].settings.cors_origins):
        response.headers.update(_origin_headers(origin))


def install(app: web.Application) -> None:
    app.middlewares.insert(0, cors_preflight)
    app.on_response_prepare.append(add_cors_headers)


def _origin_headers(origin: str) -> dict[str, str]:
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Expose-Headers": EXPOSED_HEADERS,
        "Vary": "Origin",
    }
