"""The queue the session's outbox and transcription lane share: FIFO, a ``get`` that waits only when
nothing is queued and is woken by the next put, a cancelled ``get`` that takes nothing, and a ``queued``
deque the consumer (or a subclass) may take from or replace. Only the event loop's own scheduling: no
sleeps, no timing."""

from __future__ import annotations

import asyncio
from collections import deque

import pytest

from mockengine.server.single_consumer_queue import SingleConsumerQueue


async def test_items_put_before_get_come_out_oldest_first() -> None:
    queue: SingleConsumerQueue[int] = SingleConsumerQueue()
    for item in (1, 2, 3):
        queue.put_nowait(item)
    assert queue.qsize() == 3
    assert [await queue.get(), queue.get_nowait(), await queue.get()] == [1, 2, 3]
    assert queue.empty()


async def test_get_waits_until_a_put_wakes_it() -> None:
    queue: SingleConsumerQueue[str] = SingleConsumerQueue()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)  # one pass of the loop: the getter is now waiting
    assert not getter.done()
    queue.put_nowait("a")
    queue.put_nowait("b")
    assert await getter == "a"
    assert list(queue.queued) == ["b"]


async def test_a_cancelled_get_takes_nothing() -> None:
    queue: SingleConsumerQueue[str] = SingleConsumerQueue()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    getter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await getter
    queue.put_nowait("kept")  # no stale waiter to trip over
    assert await queue.get() == "kept"


async def test_a_cancel_in_the_same_pass_as_the_put_leaves_the_item_queued() -> None:
    queue: SingleConsumerQueue[str] = SingleConsumerQueue()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait("kept")  # wakes the getter, which has not run yet
    getter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await getter
    assert list(queue.queued) == ["kept"]


async def test_none_is_an_item_like_any_other() -> None:
    """The outbox ends its writer with ``None``: the queue must hand it over, not treat it as empty."""
    queue: SingleConsumerQueue[int | None] = SingleConsumerQueue()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(None)
    assert await getter is None


def test_get_nowait_on_an_empty_queue_raises_queue_empty() -> None:
    queue: SingleConsumerQueue[int] = SingleConsumerQueue()
    with pytest.raises(asyncio.QueueEmpty):
        queue.get_nowait()


async def test_a_replaced_queued_deque_is_what_get_reads() -> None:
    """The transcription lane's bound swaps in a filtered deque; a waiting ``get`` must see it."""
    queue: SingleConsumerQueue[int] = SingleConsumerQueue()
    for item in (1, 2, 3):
        queue.put_nowait(item)
    queue.queued = deque(item for item in queue.queued if item != 1)
    assert queue.qsize() == 2
    assert await queue.get() == 2
    queue.queued = deque()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(4)
    assert await getter == 4


async def test_the_consumer_may_take_from_queued_directly() -> None:
    """The outbox's writer pops ``queued`` while it is not empty and calls ``get`` only when it is."""
    queue: SingleConsumerQueue[int] = SingleConsumerQueue()
    pending = queue.queued
    queue.put_nowait(1)
    assert pending.popleft() == 1
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(2)
    assert await getter == 2
    assert queue.empty()
