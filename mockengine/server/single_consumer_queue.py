"""An unbounded FIFO queue for one consumer: what the session's outbox and transcription lane share.

``asyncio.Queue`` does bookkeeping on every item (``task_done`` counts, the putters' wake-ups for a
bound) that a session's hot paths paid for and nothing used. With one consumer and no bound, a deque
and at most one waiting future are enough.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class SingleConsumerQueue(Generic[T]):
    """Items oldest first: ``asyncio.Queue``'s ``put_nowait`` / ``get`` / ``get_nowait`` / ``empty`` /
    ``qsize``, unbounded, for a single consumer.

    ``get`` suspends only when nothing is queued and is woken by the next ``put_nowait``; a cancelled
    ``get`` takes nothing (the item stays queued for the next one). There is no close: a consumer that
    must stop is sent an item that says so (the outbox's ``None``) or is cancelled. Two concurrent
    ``get`` calls are a misuse (only the later one would be woken).

    ``queued`` is public: the one consumer may ``popleft`` it directly while it is not empty (no ``get``
    coroutine per item), and a subclass may replace it with a filtered deque (the transcription lane's
    bound); every method reads the attribute afresh, so a replacement is seen.
    """

    def __init__(self) -> None:
        self.queued: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        """Append ``item`` and wake the waiting ``get``, if any."""
        self.queued.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> T:
        """The oldest item, waiting for one when none is queued."""
        while not self.queued:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.queued.popleft()

    def get_nowait(self) -> T:
        """The oldest item; raises ``asyncio.QueueEmpty`` when none is queued."""
        if not self.queued:
            raise asyncio.QueueEmpty
        return self.queued.popleft()

    def empty(self) -> bool:
        return not self.queued

    def qsize(self) -> int:
        return len(self.queued)
