"""What a replay shows the client, kept in the shadow's conversation too.

A replaying session's shadow (``replay_session``) sees the live client's input but not the recorded
replies. It still has to know them: the client answers a recorded ``function_call`` with a
``function_call_output`` naming its (re-stamped) ``call_id``, truncates or deletes recorded items, and after
a divergence the shadow carries the conversation on as the scripted participant. So every recorded
assistant item the replay sends (``conversation.item.done``: an assistant message or a function call, with
the live ids) is placed in the shadow's conversation where the client was told it is, and the recorded
truncations and deletions are applied to it. Audio bytes are not kept: the shadow holds the words.
"""

from __future__ import annotations

from typing import Any

from mockengine.realtime.conversation import Conversation, Item


def mirror_events(conversation: Conversation, events: list[dict[str, Any]]) -> None:
    """Apply the recorded events' assistant items, truncations and deletions to ``conversation``."""
    for event in events:
        kind = event.get("type")
        if kind == "conversation.item.done":
            _place(conversation, event)
        elif kind == "conversation.item.truncated":
            item = conversation.get(event.get("item_id", ""))
            if item is not None and item.is_assistant_audio:
                item.truncate(int(event.get("audio_end_ms", 0)))
        elif kind == "conversation.item.deleted":
            conversation.delete(event.get("item_id", ""))


def _place(conversation: Conversation, event: dict[str, Any]) -> None:
    wire = event.get("item") or {}
    item = _assistant_item(wire)
    if item is None or item.id in conversation:
        return
    previous = event.get("previous_item_id")
    after = previous if isinstance(previous, str) and previous in conversation else None
    item.previous_item_id = conversation.insert(item, after)


def _assistant_item(wire: dict[str, Any]) -> Item | None:
    """The item as the shadow stores it: function calls and assistant messages (the rest, the user's
    input, the shadow has already heard)."""
    item_id, status = wire.get("id"), wire.get("status", "completed")
    if not isinstance(item_id, str):
        return None
    if wire.get("type") == "function_call":
        return Item(
            item_id,
            "function_call",
            status=status,
            name=wire.get("name"),
            call_id=wire.get("call_id"),
            arguments=wire.get("arguments"),
        )
    if wire.get("type") == "message" and wire.get("role") == "assistant":
        content = [dict(part) for part in wire.get("content") or [] if isinstance(part, dict)]
        return Item(item_id, "message", role="assistant", status=status, content=content)
    return None
