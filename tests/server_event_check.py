"""Checking server events against the ``openai`` SDK's pydantic models, strictly: the event must validate
(strict mode) as the union member for its type, and carry no field the SDK does not declare, at any
depth, except the live-service extras listed in ``protocol.server_events.EXTRA_FIELDS``."""

from __future__ import annotations

from typing import Any

from openai.types.realtime import RealtimeServerEvent
from pydantic import BaseModel, TypeAdapter, ValidationError

from mockengine.protocol.server_events import EXTRA_FIELDS

SERVER_EVENT = TypeAdapter(RealtimeServerEvent)


def sdk_deviations(event: dict[str, Any]) -> list[str]:
    """What in ``event`` the SDK's model rejects or does not know (empty: it matches)."""
    try:
        model = SERVER_EVENT.validate_python(_custom_voice_as_id(event), strict=True)
    except ValidationError as exc:
        return [f"{event.get('type')}: {error['loc']} {error['msg']}" for error in exc.errors()]
    allowed = EXTRA_FIELDS.get(event["type"], frozenset())
    return [
        f"{event['type']}: unknown field {path}" for path in _unknown_fields(model, "") if path not in allowed
    ]


def _custom_voice_as_id(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with a response's custom voice ``{"id": "voice_…"}`` as its id: the live service echoes the
    object, which openai-python's ``RealtimeResponse`` does not type yet (the Agents SDK maps it the same
    way before validating, ``_normalize_custom_voice_for_server_event_validation``)."""
    response = event.get("response")
    output = ((response or {}).get("audio") or {}).get("output") or {}
    voice = output.get("voice")
    if event.get("type") not in ("response.created", "response.done") or not isinstance(voice, dict):
        return event
    audio = {**response["audio"], "output": {**output, "voice": voice.get("id")}}
    return {**event, "response": {**response, "audio": audio}}


def _unknown_fields(value: Any, path: str) -> list[str]:
    """Dotted paths (list indices dropped) of fields a model kept as extras."""
    if isinstance(value, BaseModel):
        found = [f"{path}.{key}".lstrip(".") for key in value.model_extra or {}]
        for name in type(value).model_fields:
            found += _unknown_fields(getattr(value, name), f"{path}.{name}")
        return found
    if isinstance(value, list | tuple):
        return [p for item in value for p in _unknown_fields(item, path)]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _unknown_fields(item, f"{path}.{key}")]
    return []
