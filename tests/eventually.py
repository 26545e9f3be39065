"""``eventually()``: wait for a condition instead of sleeping a fixed time and hoping.

A fixed settle (``await asyncio.sleep(0.2)``) is either too short on a loaded machine (a flaky test) or
longer than needed everywhere else (a slow one); a condition polled every 20 ms is neither.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def eventually(
    check: Callable[[], T | Awaitable[T]],
    *,
    timeout_s: float = 10.0,
    interval_s: float = 0.02,
    message: str | Callable[[], str] = "",
) -> T:
    """Call ``check`` (plain or async) until it returns something truthy, and return that. After
    ``timeout_s`` raise ``AssertionError`` with ``message`` (a string, or a function giving one then)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result  # type: ignore[return-value]
        if loop.time() >= deadline:
            text = message() if callable(message) else message
            raise AssertionError(text or f"still false after {timeout_s} s: {check}")
        await asyncio.sleep(interval_s)
