"""Ephemeral client secrets: ``POST /v1/realtime/client_secrets`` and the ``ek_…`` keys it mints.

Source: reference §9 and the SDK's ``client_secret_create_params.py`` / ``client_secret_create_response.py``.
The request needs a normal API key and may carry ``expires_after`` (``anchor`` ``created_at`` only,
``seconds`` 10–7200, default 600) and a ``session`` (a realtime session-create request, validated like
``session.update``). The answer is ``{"value": "ek_" + 32 hex, "expires_at": unix s, "session": {...}}``
with the effective session (``expires_at`` 0 inside it, as the live service shows). The secret opens any
number of WebSocket sessions, as a bearer key or the ``openai-insecure-api-key.`` subprotocol, until it
expires; each such session starts with the secret's session config (``session.created`` shows it, the
client may still ``session.update``). Sessions outlive their secret. An unknown or expired ``ek_`` key is
refused like a bad API key (``error`` ``invalid_api_key``, close 3000).

With a seed the secrets (and the session ids in the answers) repeat run after run.
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol.codec import loads_strict
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.http_errors import INVALID_JSON_BODY, MISSING_API_KEY, error_response
from mockengine.protocol.nulls import drop_not_given
from mockengine.protocol.schema_errors import json_type_name, validate
from mockengine.protocol.session_config import (
    check_reasoning,
    default_session,
    default_transcription_session,
    merge_session,
    validate_noise_reduction,
    validate_session_update,
    validate_tool_choice,
    validate_transcription,
    validate_turn_detection,
)
from mockengine.server.handshake import (
    Refusal,
    bad_key_refusal,
    key_accepted,
    rest_incorrect_api_key_message,
)
from mockengine.server.state import RESOURCES
from mockengine.settings import Settings

SECRET_PREFIX = "ek_"
DEFAULT_TTL_S = 600
MIN_TTL_S = 10
MAX_TTL_S = 7200
DEFAULT_MODEL = "gpt-realtime"

EXPIRES_AFTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "anchor": {"enum": ["created_at"]},
        "seconds": {"type": "integer", "minimum": MIN_TTL_S, "maximum": MAX_TTL_S},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ClientSecret:
    value: str
    expires_at: int  # unix seconds
    model: str
    # The validated session-create request; merged into the default session of every session it opens.
    session: dict[str, Any]


class ClientSecretStore:
    """The secrets minted by this engine. ``clock`` gives unix seconds (tests move it forward)."""

    def __init__(self, seed: int | None, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._rng: random.Random = random.SystemRandom() if seed is None else random.Random(f"{seed}:ek_")
        self._ids = IdFactory(None if seed is None else f"{seed}:client_secrets")
        self._secrets: dict[str, ClientSecret] = {}

    def mint(self, session: dict[str, Any], ttl_s: int) -> tuple[ClientSecret, dict[str, Any]]:
        """A new secret and the effective session the answer shows (raises ProtocolError if invalid).
        The model is not checked (as live): a session opened with the secret refuses one it cannot serve."""
        now = self.clock()
        self._forget_expired(now)
        if session.get("type") == "transcription":
            effective = merge_session(default_transcription_session(self._ids.session(), 0), session)
            validate_turn_detection(effective["audio"]["input"]["turn_detection"], effective)
            validate_noise_reduction(effective)
            validate_transcription(effective)
            return self._store(session, ttl_s, "", now), effective
        # Any model name mints, as live: the live service mints for a model its realtime endpoint will not
        # take and the WebSocket or WebRTC call made with the secret is refused (invalid_model, "not
        # supported in realtime mode"), observed 2026-09-10 (hurttlocker/o8#2165). The connection refuses
        # it here too (handshake.check_connection, webrtc.calls).
        model = session.get("model", DEFAULT_MODEL)
        effective = merge_session(default_session(model, self._ids.session(), 0), session)
        validate_turn_detection(effective["audio"]["input"]["turn_detection"])
        validate_noise_reduction(effective)
        validate_transcription(effective)
        validate_tool_choice(effective["tool_choice"], effective["tools"], "session")
        check_reasoning(model, effective.get("reasoning"), "session")
        return self._store(session, ttl_s, model, now), effective

    def new_session_id(self) -> str:
        """A session id for a secret's answer (seeded with the store)."""
        return self._ids.session()

    def mint_translation(self, request: dict[str, Any], model: str, ttl_s: int) -> ClientSecret:
        """A secret for translation sessions (``POST /v1/realtime/translations/client_secrets``, its
        validated ``session`` request in ``request``): its ``session`` is ``{"type": "translation",
        "translation": request}``, which the voice-agent endpoint refuses and the translation endpoint
        applies (``server.translation_ws``)."""
        now = self.clock()
        self._forget_expired(now)
        return self._store({"type": "translation", "translation": request}, ttl_s, model, now)

    def _store(self, session: dict[str, Any], ttl_s: int, model: str, now: float) -> ClientSecret:
        value = f"{SECRET_PREFIX}{self._rng.getrandbits(128):032x}"
        secret = ClientSecret(value, int(now) + ttl_s, model, copy.deepcopy(session))
        self._secrets[value] = secret
        return secret

    def lookup(self, value: str) -> ClientSecret | None:
        """The secret if it exists and has not expired."""
        secret = self._secrets.get(value)
        if secret is None or self.clock() >= secret.expires_at:
            return None
        return secret

    def _forget_expired(self, now: float) -> None:
        for value in [v for v, s in self._secrets.items() if now >= s.expires_at]:
            del self._secrets[value]


CLIENT_SECRETS = web.AppKey("client_secrets", ClientSecretStore)


def resolve_client_secret(
    store: ClientSecretStore, api_key: str | None
) -> tuple[ClientSecret | None, Refusal | None]:
    """For the WebSocket key check: ``(secret, None)`` for a live ``ek_`` key, ``(None, refusal)`` for an
    unknown or expired one, ``(None, None)`` when the key is not an ephemeral secret at all."""
    if api_key is None or not api_key.startswith(SECRET_PREFIX):
        return None, None
    secret = store.lookup(api_key)
    if secret is None:
        return None, bad_key_refusal(api_key)
    return secret, None


def bearer_key(request: web.Request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return None


def rest_key_error(api_key: str | None, settings: Settings) -> web.Response | None:
    """401 as the REST API answers a missing or wrong key (the engine's key policy,
    ``handshake.key_accepted``); an ``ek_`` secret cannot mint secrets."""
    if api_key is None:
        return error_response(401, MISSING_API_KEY)
    if api_key.startswith(SECRET_PREFIX) or not key_accepted(settings, api_key):
        return error_response(401, rest_incorrect_api_key_message(api_key), code="invalid_api_key")
    return None


async def secret_request_body(request: web.Request) -> dict[str, Any] | web.Response:
    """The body of a client-secret request (voice-agent or translation), its key checked: an object of
    ``session`` and ``expires_after`` (valid: 10–7200 s), ``null`` fields dropped, ``{}`` for an empty
    body. Otherwise the refusal to send: 401 (bad auth), 400 ``invalid_json`` body, 400 for a body that
    is no object, an unknown parameter or a bad ``expires_after`` (with ``param``)."""
    refusal = rest_key_error(bearer_key(request), request.app[RESOURCES].settings)
    if refusal is not None:
        return refusal
    raw = await request.read()
    try:
        body = loads_strict(raw) if raw.strip() else {}
    except ValueError:
        return error_response(400, INVALID_JSON_BODY)
    try:
        if not isinstance(body, dict):
            raise errors.invalid_type("body", "an object", json_type_name(body))
        body = drop_not_given(body)
        unknown = sorted(set(body) - {"expires_after", "session"})
        if unknown:
            raise errors.unknown_parameter(unknown[0])
        validate(body.get("expires_after", {}), EXPIRES_AFTER_SCHEMA, "expires_after")
    except ProtocolError as exc:
        return error_response(400, exc.message, type=exc.type, param=exc.param, code=exc.code)
    return body


async def create_client_secret(request: web.Request) -> web.Response:
    """``POST /v1/realtime/client_secrets`` → 200 ``ClientSecretCreateResponse``; 400 on a bad request
    (``invalid_json`` body, unknown parameter, bad ``expires_after``, invalid session), 401 on bad auth."""
    body = await secret_request_body(request)
    if isinstance(body, web.Response):
        return body
    try:
        session = body.get("session", {"type": "realtime"})
        validate_session_update(session)
        ttl_s = body.get("expires_after", {}).get("seconds", DEFAULT_TTL_S)
        secret, effective = request.app[CLIENT_SECRETS].mint(session, ttl_s)
    except ProtocolError as exc:
        return error_response(400, exc.message, type=exc.type, param=exc.param, code=exc.code)
    return web.json_response({"value": secret.value, "expires_at": secret.expires_at, "session": effective})
