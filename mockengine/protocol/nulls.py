"""``null`` means "not given": the one rule for optional fields of client events and HTTP bodies.

SDKs built from OpenAPI models serialize an unset optional field as ``null`` (LiveKit's plugin sends
``"response": {"instructions": null, ...}`` on every ``generate_reply()``; the real service answers it
like an absent field). So at the parse boundary every object member whose value is ``null`` is removed
before validation, except:

* the fields in :data:`MEANINGFUL_NULLS`, where ``null`` is a value of its own (it switches something
  off) and is kept, validated and applied;
* the subtrees in :data:`OPAQUE`, which are data the client owns (JSON Schemas, prompt variables,
  metadata): a ``null`` there is passed on unchanged.

Paths are JSON paths from the event's (or body's) root, with ``[]`` for any array index. The table is
documented in docs/client-compatibility.md.
"""

from __future__ import annotations

from typing import Any

# Field → what its null means.
MEANINGFUL_NULLS: dict[str, str] = {
    "session.audio.input.turn_detection": "no turn detection: the client commits the buffer itself",
    "session.audio.input.turn_detection.idle_timeout_ms": "no idle timeout",
    "session.audio.input.transcription": "no input audio transcription",
    "session.audio.input.noise_reduction": "no noise reduction",
    "session.tracing": "no tracing",
    "session.prompt": "no stored prompt",
    "session.include": "no extra fields in events",
    "session.reasoning": "no reasoning setting: the model's own default effort",
}
OPAQUE: frozenset[str] = frozenset(
    {
        "session.tools[].parameters",
        "response.tools[].parameters",
        "session.prompt.variables",
        "response.prompt.variables",
        "response.metadata",
    }
)


def drop_not_given(value: Any, path: str = "") -> Any:
    """``value`` without the ``null`` members that mean "not given" (a copy where one was removed; the
    same object otherwise). ``path`` is where ``value`` sits (``""`` at the root)."""
    if path in OPAQUE:
        return value
    if isinstance(value, dict):
        kept = {}
        changed = False
        for key, member in value.items():
            member_path = f"{path}.{key}" if path else key
            if member is None and member_path not in MEANINGFUL_NULLS:
                changed = True
                continue
            new = drop_not_given(member, member_path)
            changed = changed or new is not member
            kept[key] = new
        return kept if changed else value
    if isinstance(value, list):
        items = [drop_not_given(member, f"{path}[]") for member in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value
