"""Connection checks the live service makes after the WebSocket upgrade (reference §0), and the key policy.

Bad auth or model is not an HTTP error on OpenAI: the upgrade completes, then one ``error`` event and a
server close with code 3000 (auth) or 4000 (request), reason ``<error.type>.<error.code>``. With
``settings.auth_failure == "http"`` an auth refusal is instead an HTTP 401 before the upgrade (as Azure
does), with the OpenAI REST error body.

:func:`key_accepted` is the one place that decides whether a bearer key may use the engine; every
endpoint asks it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from aiohttp import web

from mockengine.brain.selection import MODEL_PREFIX, ScenarioLibrary
from mockengine.chat.errors import incorrect_api_key
from mockengine.protocol import codec
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import SessionType
from mockengine.protocol.session_schema import TRANSCRIPTION_MODELS
from mockengine.realtime.translation import TRANSLATION_MODELS
from mockengine.settings import Settings

# The live service sends ``session.created`` 3–6 ms after the 101 (reference §1), a refusal's ``error`` in
# the same millisecond. Written together with the 101, a Node ``ws`` client reads both in one chunk and
# emits the frame before code that awaits ``'open'`` attaches its listener (LiveKit Agents JS's
# ``createWsConn``, ``await once(ws, 'open')``): ``session.created`` was lost for 14 of 20 connections.
SESSION_CREATED_DELAY_S = 0.005

SUBPROTOCOL_KEY_PREFIX = "openai-insecure-api-key."
AZURE_KEY_HEADER = "api-key"  # Azure OpenAI's key header (api_key_from)
# Realtime model names the real service accepts (reference §4): families, dated and numbered variants.
MODEL_PATTERN = re.compile(
    r"^(gpt-realtime|gpt-4o-realtime-preview|gpt-4o-mini-realtime-preview|gpt-audio)"
    r"(-mini)?(-[0-9.]+)?(-mini)?(-\d{4}-\d{2}-\d{2})?$"
)
AUTH_CLOSE_CODE = 3000
REQUEST_CLOSE_CODE = 4000
# The REST API's wording for a request without a key (HTTP 401, used by auth_failure="http").
MISSING_KEY_HTTP_MESSAGE = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using "
    "Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if "
    "you're accessing the API from your browser and are prompted for a username. You can obtain an API key "
    "from https://platform.openai.com/account/api-keys."
)


@dataclass(frozen=True)
class Refusal:
    error: ProtocolError
    close_code: int

    @property
    def close_reason(self) -> str:
        return f"{self.error.type}.{self.error.code}" if self.error.code else self.error.type

    @property
    def is_auth(self) -> bool:
        return self.close_code == AUTH_CLOSE_CODE

    def http_body(self) -> dict[str, Any]:
        """The OpenAI REST error body for this refusal: ``{"error": {message, type, param, code}}``."""
        message = self.error.message
        if self.is_auth and self.error.code is None:
            message = MISSING_KEY_HTTP_MESSAGE
        return {
            "error": {
                "message": message,
                "type": self.error.type,
                "param": self.error.param,
                "code": self.error.code,
            }
        }

    async def refuse(self, ws: web.WebSocketResponse, event_id: str) -> None:
        """On an upgraded socket: one ``error`` event (compact JSON, as every other event and the live
        service), then the close with :attr:`close_code` and :attr:`close_reason`."""
        await ws.send_str(codec.dumps(se.error(event_id, error=self.error.payload())))
        await ws.close(code=self.close_code, message=self.close_reason.encode())


def api_key_from(headers: Mapping[str, str], protocols: list[str]) -> str | None:
    """The key from ``Authorization: Bearer KEY`` (any header case), the browser subprotocol
    ``openai-insecure-api-key.KEY``, or Azure OpenAI's ``api-key: KEY`` header, which the Azure clients
    (openai-python's ``AsyncAzureOpenAI``, openai-node's ``AzureOpenAI``) send instead of a bearer key
    (ours: api.openai.com reads no ``api-key``; accepting it lets an Azure app point at the engine with
    only its endpoint changed). The key is then checked as any other (``--api-key``)."""
    auth = headers.get("Authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    for proto in protocols:
        if proto.startswith(SUBPROTOCOL_KEY_PREFIX) and len(proto) > len(SUBPROTOCOL_KEY_PREFIX):
            return proto[len(SUBPROTOCOL_KEY_PREFIX) :]
    return headers.get(AZURE_KEY_HEADER, "").strip() or None


def requested_model(query: Mapping[str, str]) -> str | None:
    """The model a connection URL names: ``?model=``, else Azure's ``?deployment=`` (openai-python's
    ``AsyncAzureOpenAI`` names its deployment there and sends no ``model``; the engine takes the
    deployment's name as the model's, so a deployment named after its model, as Azure's docs name
    them, is accepted, and any other name is refused as ``invalid_model`` like an unknown model)."""
    return query.get("model") or query.get("deployment") or None


def configured_keys(settings: Settings) -> frozenset[str]:
    """Every key configured: ``api_key``, ``api_keys`` and the lines of ``api_keys_file``. Empty means
    any non-empty key is accepted. Raises OSError when the keys file cannot be read."""
    keys = set(settings.api_keys)
    if settings.api_key:
        keys.add(settings.api_key)
    if settings.api_keys_file:
        path = settings.api_keys_file
        keys |= _keys_in_file(path, os.stat(path).st_mtime_ns)
    return frozenset(keys)


@lru_cache(maxsize=8)
def _keys_in_file(path: str, mtime_ns: int) -> frozenset[str]:
    """Keys of a file, one a line; blank lines and ``#`` comments skipped. Cached per modification time,
    so editing the file rotates keys without a restart."""
    with open(path, encoding="utf-8") as handle:
        lines = (line.split("#", 1)[0].strip() for line in handle)
        return frozenset(line for line in lines if line)


def key_accepted(settings: Settings, key: str | None) -> bool:
    """Whether ``key`` may use the engine: any non-empty key when none are configured, otherwise one of
    :func:`configured_keys`. Every endpoint (Realtime, Chat Completions, token minting) asks this."""
    if not key:
        return False
    keys = configured_keys(settings)
    return not keys or key in keys


def masked_key(key: str) -> str:
    """A key as OpenAI's error messages show it: the first 8 and last 4 characters (reference §0)."""
    return key[:8] + "…" + key[-4:] if len(key) > 12 else "…"


def auth_refusal(settings: Settings, api_key: str | None) -> Refusal | None:
    """The refusal for this bearer key, or None when :func:`key_accepted`."""
    if not api_key:
        missing = ProtocolError(None, "Missing bearer or basic authentication in header")
        return Refusal(missing, AUTH_CLOSE_CODE)
    if key_accepted(settings, api_key):
        return None
    return bad_key_refusal(api_key)


def bad_key_refusal(api_key: str) -> Refusal:
    """The refusal of a key the service does not know (also an unknown or expired ``ek_`` secret)."""
    return Refusal(ProtocolError("invalid_api_key", incorrect_api_key_message(api_key)), AUTH_CLOSE_CODE)


def incorrect_api_key_message(api_key: str) -> str:
    return (
        f"Incorrect API key provided: {masked_key(api_key)}. You can find your API key at "
        "https://platform.openai.com/account/api-keys."
    )


def rest_incorrect_api_key_message(api_key: str) -> str:
    """The 401 message of a REST route (client secrets, calls): the key masked as the REST API masks
    it, a ``*`` for each hidden character (``chat.errors.mask_key``), as ``/v1/models`` words it."""
    return incorrect_api_key(api_key).message


def check_connection(
    api_key: str | None,
    model: str | None,
    beta_header: str | None,
    settings: Settings | None,
    scenarios: ScenarioLibrary | None = None,
    intent: str | None = None,
) -> Refusal | None:
    """The refusal the live service would send for these connection parameters, or None. Auth is
    checked first (``settings=None``: the key is already vetted, e.g. a valid ``ek_`` client secret), then
    the beta shape, then the model (the live order). A model named after a loaded scenario of
    ``scenarios`` (``mockengine-NAME``) is accepted; ``mockengine-NAME`` with no such scenario is refused
    as ``unknown_scenario`` (ours: the live service knows no scenarios). ``?intent=transcription`` with
    no model, or with a transcription model (gateways such as LiveKit's put it on the URL), opens a
    transcription session (:func:`session_type`)."""
    if api_key is None:
        missing = ProtocolError(None, "Missing bearer or basic authentication in header")
        return Refusal(missing, AUTH_CLOSE_CODE)
    refusal = auth_refusal(settings, api_key) if settings is not None else None
    if refusal is not None:
        return refusal
    if beta_header is not None and "realtime" in beta_header:
        return Refusal(
            ProtocolError(
                "beta_api_shape_disabled",
                "The beta Realtime API shape is disabled for this model; remove the "
                "'OpenAI-Beta: realtime=v1' header to use the GA API.",
            ),
            REQUEST_CLOSE_CODE,
        )
    if session_type(intent, model) == "transcription":
        return None
    if not model:
        return Refusal(
            ProtocolError(
                "missing_model",
                # The live message, verbatim (reference §0, S6): its example names gpt-realtime-1.5.
                "You must provide a model parameter, for example "
                "wss://api.openai.com/v1/realtime?model=gpt-realtime-1.5",
            ),
            REQUEST_CLOSE_CODE,
        )
    if model in TRANSLATION_MODELS:
        return Refusal(
            ProtocolError("invalid_model", translation_model_message(model), "model"), REQUEST_CLOSE_CODE
        )
    if MODEL_PATTERN.match(model) or (scenarios is not None and scenarios.for_model(model) is not None):
        return None
    if scenarios is not None and model.startswith(MODEL_PREFIX):
        message = scenarios.unknown(model[len(MODEL_PREFIX) :], model)
        return Refusal(ProtocolError("unknown_scenario", message, "model"), REQUEST_CLOSE_CODE)
    return Refusal(
        ProtocolError("invalid_model", f'Model "{model}" is not supported in realtime mode.'),
        REQUEST_CLOSE_CODE,
    )


def translation_model_message(model: str) -> str:
    """The refusal of a translation model on the voice-agent endpoints (ours: the live wording is not
    public; the model page lists /v1/realtime as unsupported for it)."""
    return (
        f'Model "{model}" is a translation model: it is served on /v1/realtime/translations '
        f"(wss://HOST/v1/realtime/translations?model={model}), not on /v1/realtime."
    )


def session_type(intent: str | None, model: str | None) -> SessionType:
    """The kind of session a connection opens: ``transcription`` for ``?intent=transcription`` with no
    model or a transcription model (``TRANSCRIPTION_MODELS``); otherwise ``realtime`` (a realtime model
    wins over the intent, as on the live service, which takes ``?model=`` as choosing a conversation)."""
    if intent == "transcription" and (not model or model in TRANSCRIPTION_MODELS):
        return "transcription"
    return "realtime"
