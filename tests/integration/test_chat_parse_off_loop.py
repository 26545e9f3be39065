"""A long conversation's checks do not stall the server: the validation of a large Chat Completions or
Responses body (each message against its schema, about half a millisecond per distinct message: 2 s for
a 20,000-message history of 1 MB) runs in the server's ``brain`` executor, off the event loop, so
``/healthz`` (and every Realtime session) still answers meanwhile.

The real parser checks every request here; a gate around it holds the big request's check until
``/healthz`` has answered, so the order asserted is exact, not a matter of timing: a check on the event
loop would hold the loop at the gate, nothing else could answer before it gave up, and the big request
would be released by nobody (the test then fails)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from mockengine.server import chat_routes

AUTH = {"Authorization": "Bearer sk-x"}
GATE_S = 10.0  # how long the gate holds at most (a check on the event loop: the loop is stuck so long)
TURNS = 1500  # 3,000 distinct messages, about 170 KB: well past the size checked on the loop


@dataclasses.dataclass
class Gate:
    started: threading.Event = dataclasses.field(default_factory=threading.Event)
    release: threading.Event = dataclasses.field(default_factory=threading.Event)
    gave_up: bool = False  # the gate held its whole time: nothing released it (the loop was held)

    def around(self, real: Callable[..., Any]) -> Callable[..., Any]:
        """``real``, held at the gate first when the body is a big one."""

        def gated(*args: Any) -> Any:
            if len(repr(args[0])) > 100_000:
                self.started.set()
                self.gave_up = not self.release.wait(GATE_S)
            return real(*args)

        return gated


def history() -> list[dict[str, str]]:
    turns = []
    for i in range(TURNS):
        turns += [
            {"role": "user", "content": f"Item {i}: remember the number {i * 7}."},
            {"role": "assistant", "content": f"Noted, item {i}."},
        ]
    return [*turns, {"role": "user", "content": "Thanks, that is all."}]


@pytest.mark.parametrize(
    ("route", "patched", "body"),
    [
        ("/chat/completions", "parse_request", {"model": "gpt-4.1", "messages": history()}),
        ("/responses", "translate", {"model": "gpt-4.1", "input": history()}),
    ],
    ids=["chat", "responses"],
)
async def test_a_long_history_is_checked_off_the_event_loop(engine_url, monkeypatch, route, patched, body):
    gate = Gate()
    monkeypatch.setattr(chat_routes, patched, gate.around(getattr(chat_routes, patched)))
    base = (await engine_url()).replace("ws://", "http://")
    async with aiohttp.ClientSession() as http:
        posted = asyncio.ensure_future(http.post(f"{base}{route}", json=body, headers=AUTH))
        assert await asyncio.to_thread(gate.started.wait, GATE_S), "the big body was never checked"
        async with http.get(f"{base.removesuffix('/v1')}/healthz") as health:
            assert health.status == 200
        assert not posted.done(), "the big request finished while its check was held"
        gate.release.set()
        reply = await posted
        assert reply.status == 200, await reply.text()
        reply.release()
    assert not gate.gave_up, "the check held the event loop: /healthz could only answer after it"
