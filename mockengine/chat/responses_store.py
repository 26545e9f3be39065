"""The responses kept for ``previous_response_id`` and for ``GET`` / ``DELETE /v1/responses/{id}`` and
``GET /v1/responses/{id}/input_items``: each response's conversation (its input items, the previous
response's before them, then its output items), its ``response`` object and its input items as listed
(``listed_input_items``), in memory: the newest ``capacity`` of them,
fewer when their request bodies add up to more than ``max_bytes`` (a body full of images counts its
size; conversations chained by id share their items, so the true cost is lower).

Per engine process: with ``--workers`` > 1 a follow-up request may reach a worker that did not answer the
first, and gets the live service's "not found" 400. Requests with ``store: false`` are not kept (as on the
live service, a later ``previous_response_id`` naming one is not found). Used from the event loop only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from mockengine.ids import IdFactory

CAPACITY = 1024
MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class StoredResponse:
    """One kept response: ``items`` the conversation up to its output (for ``previous_response_id``),
    ``body`` its ``response`` object, ``inputs`` its input items as ``input_items`` lists them (oldest
    first), ``size`` the bytes it stands for (the request body)."""

    items: tuple[dict[str, Any], ...]
    body: dict[str, Any] | None = None
    inputs: tuple[dict[str, Any], ...] = ()
    size: int = 0


class ResponseStore:
    def __init__(self, capacity: int = CAPACITY, max_bytes: int = MAX_BYTES) -> None:
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._kept: OrderedDict[str, StoredResponse] = OrderedDict()
        self._bytes = 0

    def get(self, response_id: str) -> tuple[dict[str, Any], ...] | None:
        """The conversation of ``response_id`` (for ``previous_response_id``), or None."""
        kept = self.stored(response_id)
        return None if kept is None else kept.items

    def stored(self, response_id: str) -> StoredResponse | None:
        kept = self._kept.get(response_id)
        if kept is None:
            return None
        self._kept.move_to_end(response_id)
        return kept

    def put(
        self,
        response_id: str,
        items: tuple[dict[str, Any], ...],
        size: int = 0,
        *,
        body: dict[str, Any] | None = None,
        inputs: tuple[dict[str, Any], ...] = (),
    ) -> None:
        """Keep ``items`` (and the response's ``body`` and listed ``inputs``) under ``response_id``;
        ``size``: the bytes they stand for (the request body)."""
        if size > self._max_bytes:
            return
        self.delete(response_id)
        self._kept[response_id] = StoredResponse(items, body, inputs, size)
        self._bytes += size
        while len(self._kept) > self._capacity or self._bytes > self._max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= dropped.size

    def delete(self, response_id: str) -> bool:
        """Forget ``response_id``; whether it was kept."""
        old = self._kept.pop(response_id, None)
        self._bytes -= old.size if old is not None else 0
        return old is not None

    def item(self, item_id: str) -> dict[str, Any] | None:
        """The item ``item_id`` of a kept response's conversation (an input item, given or named when it
        was kept, or an output item), newest response first; None when no kept response holds it. A scan:
        only requests with an ``item_reference`` pay for it."""
        for kept in reversed(self._kept.values()):
            for entry in kept.items:
                if entry.get("id") == item_id:
                    return entry
        return None

    def __len__(self) -> int:
        return len(self._kept)


# The id prefix of an input item given without an id, by type (the live service names each item it keeps).
_ID_PREFIXES = {"message": "msg_", "function_call": "fc_", "function_call_output": "fco_", "reasoning": "rs_"}
ITEM_ID_LENGTH = 48


def listed_input_items(items: tuple[dict[str, Any], ...], ids: IdFactory) -> tuple[dict[str, Any], ...]:
    """``items`` as ``GET /v1/responses/{id}/input_items`` lists them (``openai.types.responses.
    ResponseItem``): each with an ``id`` (the given one, else a new one from ``ids``), a ``type`` and a
    ``status``; a message's string content as one ``input_text`` part (``output_text`` for an
    assistant's)."""
    listed = []
    for item in items:
        kind = item.get("type") or "message"
        entry = {"id": item.get("id") or ids.new(_ID_PREFIXES.get(kind, "item_"), ITEM_ID_LENGTH), **item}
        entry["type"] = kind
        if kind == "message" and isinstance(item.get("content"), str):
            part = "output_text" if item.get("role") == "assistant" else "input_text"
            text_part: dict[str, Any] = {"type": part, "text": item["content"]}
            if part == "output_text":
                text_part["annotations"] = []
            entry["content"] = [text_part]
        if kind in ("message", "function_call", "function_call_output"):
            entry.setdefault("status", "completed")
        listed.append(entry)
    return tuple(listed)
