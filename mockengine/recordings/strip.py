"""``--no-audio``: an event's base64 audio replaced by its size before it is recorded."""

from __future__ import annotations

import binascii
import json
from typing import Any

from mockengine.audio.pcm import strict_b64decode

AUDIO_FIELDS = {"input_audio_buffer.append": "audio", "response.output_audio.delta": "delta"}


def strip_audio(text: str) -> str:
    """``text`` (one JSON event) with every audio payload replaced by ``{"omitted_base64_chars": n}``;
    text that is not a JSON object is returned as it is."""
    if '"audio' not in text and '"delta"' not in text:
        return text
    try:
        event = json.loads(text)
    except ValueError:
        return text
    if not isinstance(event, dict):
        return text
    key = AUDIO_FIELDS.get(str(event.get("type")))
    if key and isinstance(event.get(key), str):
        event[key] = _omitted(event[key])
    for item in _items(event):
        for part in item.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("audio"), str):
                part["audio"] = _omitted(part["audio"])
    return json.dumps(event, ensure_ascii=False)


def _omitted(b64: str) -> dict[str, Any]:
    """The size of ``b64``; text that is not base64 is kept as the journal keeps it (a replay tells a
    refused append by it)."""
    try:
        strict_b64decode(b64)
    except (binascii.Error, ValueError):
        return {"invalid_base64": b64[:200], "chars": len(b64)}
    return {"omitted_base64_chars": len(b64)}


def _items(event: dict[str, Any]) -> list[dict[str, Any]]:
    items = [event["item"]] if isinstance(event.get("item"), dict) else []
    response = event.get("response")
    if isinstance(response, dict):
        for key in ("input", "output"):
            items += [i for i in response.get(key) or [] if isinstance(i, dict)]
    return items
