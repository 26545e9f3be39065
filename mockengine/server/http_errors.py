"""aiohttp's own HTTP errors (an unknown route, a wrong method, a plain GET on the WebSocket endpoint)
answered with the OpenAI REST error body instead of aiohttp's ``404: Not Found`` text, as the real service
does: ``{"error": {"message": "Invalid URL (GET /v1/nope)", "type": "invalid_request_error", "param": null,
"code": null}}``. The official SDKs read ``error.message``; a text body left them with the bare status."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def openai_http_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400 or exc.content_type == "application/json":
            raise
        return web.json_response(error_body(request, exc), status=exc.status, headers=_kept_headers(exc))


def error_body(request: web.Request, exc: web.HTTPException) -> dict[str, object]:
    where = f"({request.method} {request.path})"
    if exc.status == 404:
        message = f"Invalid URL {where}"
    elif exc.status == 405:
        message = f"Invalid method for URL {where}"
    else:
        message = exc.text.removeprefix(f"{exc.status}: ").strip() if exc.text else exc.reason
    kind = "server_error" if exc.status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _kept_headers(exc: web.HTTPException) -> dict[str, str]:
    return {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "retry-after")}
