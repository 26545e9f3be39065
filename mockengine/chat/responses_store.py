"""The responses kept for ``previous_response_id``: each response's conversation (its input items, the
previous response's before them, then its output items), in memory, the newest ``capacity`` of them.

Per engine process: with ``--workers`` > 1 a follow-up request may reach a worker that did not answer the
first, and gets the live service's "not found" 400. Requests with ``store: false`` are not kept (as on the
live service, a later ``previous_response_id`` naming one is not found). Used from the event loop only.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

CAPACITY = 1024


class ResponseStore:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._kept: OrderedDict[str, tuple[dict[str, Any], ...]] = OrderedDict()

    def get(self, response_id: str) -> tuple[dict[str, Any], ...] | None:
        items = self._kept.get(response_id)
        if items is not None:
            self._kept.move_to_end(response_id)
        return items

    def put(self, response_id: str, items: tuple[dict[str, Any], ...]) -> None:
        self._kept[response_id] = items
        self._kept.move_to_end(response_id)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
