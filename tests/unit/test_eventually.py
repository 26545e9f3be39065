"""The test suite's one polling helper."""

import asyncio

import pytest

from tests.eventually import eventually


async def test_returns_the_first_truthy_value_of_a_plain_or_async_check() -> None:
    calls = []

    def plain() -> int:
        calls.append(1)
        return len(calls) if len(calls) >= 3 else 0

    assert await eventually(plain, interval_s=0) == 3

    async def later() -> str:
        await asyncio.sleep(0)
        return "ready"

    assert await eventually(later) == "ready"


async def test_fails_with_the_message_when_time_runs_out() -> None:
    with pytest.raises(AssertionError, match="never"):
        await eventually(lambda: False, timeout_s=0.05, message=lambda: "never")
