"""The responses kept for ``previous_response_id``: each response's conversation (its input items, the
previous response's before them, then its output items), in memory: the newest ``capacity`` of them,
fewer when their request bodies add up to more than ``max_bytes`` (a body full of images counts its
size; conversations chained by id share their items, so the true cost is lower).

Per engine process: with ``--workers`` > 1 a follow-up request may reach a worker that did not answer the
first, and gets the live service's "not found" 400. Requests with ``store: false`` are not kept (as on the
live service, a later ``previous_response_id`` naming one is not found). Used from the event loop only.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

CAPACITY = 1024
MAX_BYTES = 64 * 1024 * 1024


class ResponseStore:
    def __init__(self, capacity: int = CAPACITY, max_bytes: int = MAX_BYTES) -> None:
        self._capacity = capacity
        self._max_bytes = max_bytes
        self._kept: OrderedDict[str, tuple[tuple[dict[str, Any], ...], int]] = OrderedDict()
        self._bytes = 0

    def get(self, response_id: str) -> tuple[dict[str, Any], ...] | None:
        kept = self._kept.get(response_id)
        if kept is None:
            return None
        self._kept.move_to_end(response_id)
        return kept[0]

    def put(self, response_id: str, items: tuple[dict[str, Any], ...], size: int = 0) -> None:
        """Keep ``items`` under ``response_id``; ``size``: the bytes they stand for (the request body)."""
        if size > self._max_bytes:
            return
        old = self._kept.pop(response_id, None)
        self._bytes -= old[1] if old is not None else 0
        self._kept[response_id] = (items, size)
        self._bytes += size
        while len(self._kept) > self._capacity or self._bytes > self._max_bytes:
            _, (_, dropped) = self._kept.popitem(last=False)
            self._bytes -= dropped

    def __len__(self) -> int:
        return len(self._kept)
