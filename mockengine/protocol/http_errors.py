"""HTTP errors in the OpenAI REST shape: ``{"error": {"message", "type", "param", "code"}}``.

Source: the public API's error bodies as the ``openai`` SDK parses them (``APIStatusError.body``); the SDK
maps the status to its exception class (400 ``BadRequestError``, 401 ``AuthenticationError``, 429
``RateLimitError``, ≥500 ``InternalServerError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

INVALID_JSON_BODY = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you "
    "have trouble figuring out how to fix this, please contact us through our help center at "
    "help.openai.com.)"
)
MISSING_API_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using "
    "Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if "
    "you're accessing the API from your browser and are prompted for a username and password. You can "
    "obtain an API key from https://platform.openai.com/account/api-keys."
)


def error_body(
    message: str, *, type: str = "invalid_request_error", param: str | None = None, code: Any = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def error_response(
    status: int,
    message: str,
    *,
    type: str = "invalid_request_error",
    param: str | None = None,
    code: Any = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """One OpenAI-shaped HTTP error."""
    return web.json_response(
        error_body(message, type=type, param=param, code=code), status=status, headers=headers
    )
