"""Connection checks the live service makes after the WebSocket upgrade (reference §0).

Bad auth or model is not an HTTP error on OpenAI: the upgrade completes, then one ``error`` event and a
server close with code 3000 (auth) or 4000 (request), reason ``<error.type>.<error.code>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from mockengine.protocol.errors import ProtocolError

SUBPROTOCOL_KEY_PREFIX = "openai-insecure-api-key."
# Realtime model names the real service accepts (reference §4): families, dated and numbered variants.
MODEL_PATTERN = re.compile(
    r"^(gpt-realtime|gpt-4o-realtime-preview|gpt-4o-mini-realtime-preview|gpt-audio)"
    r"(-mini)?(-[0-9.]+)?(-mini)?(-\d{4}-\d{2}-\d{2})?$"
)


@dataclass(frozen=True)
class Refusal:
    error: ProtocolError
    close_code: int

    @property
    def close_reason(self) -> str:
        return f"{self.error.type}.{self.error.code}" if self.error.code else self.error.type


def api_key_from(headers: Mapping[str, str], protocols: list[str]) -> str | None:
    """The bearer key from ``Authorization`` (any header case) or the browser subprotocol."""
    auth = headers.get("Authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    for proto in protocols:
        if proto.startswith(SUBPROTOCOL_KEY_PREFIX):
            return proto[len(SUBPROTOCOL_KEY_PREFIX) :]
    return None


def bad_key_refusal(api_key: str) -> Refusal:
    """The refusal of a key the service does not know (also an unknown or expired ``ek_`` secret)."""
    return Refusal(ProtocolError("invalid_api_key", incorrect_api_key_message(api_key)), 3000)


def incorrect_api_key_message(api_key: str) -> str:
    shown = api_key[:8] + "…" + api_key[-4:] if len(api_key) > 12 else "…"
    return (
        f"Incorrect API key provided: {shown}. You can find your API key at "
        "https://platform.openai.com/account/api-keys."
    )


def check_connection(
    api_key: str | None, model: str | None, beta_header: str | None, required_key: str | None
) -> Refusal | None:
    """The refusal the live service would send for these connection parameters, or None."""
    if api_key is None:
        return Refusal(ProtocolError(None, "Missing bearer or basic authentication in header"), 3000)
    if required_key is not None and api_key != required_key:
        return bad_key_refusal(api_key)
    if beta_header is not None and "realtime" in beta_header:
        return Refusal(
            ProtocolError(
                "beta_api_shape_disabled",
                "The beta Realtime API shape is disabled for this model; remove the "
                "'OpenAI-Beta: realtime=v1' header to use the GA API.",
            ),
            4000,
        )
    if not model:
        return Refusal(
            ProtocolError(
                "missing_model",
                "You must provide a model parameter, for example wss://api.openai.com/v1/realtime?model=gpt-realtime",
            ),
            4000,
        )
    if not MODEL_PATTERN.match(model):
        return Refusal(
            ProtocolError("invalid_model", f'Model "{model}" is not supported in realtime mode.'), 4000
        )
    return None
