"""Fake WebSocket peers for a ``SessionRunner`` driven without a network (fast unit tests of the shell).

They stand in for aiohttp's ``WebSocketResponse`` as the runner uses it: ``send_frame`` (one server
event's JSON as a TEXT frame), ``close``, ``exception`` and async iteration over the client's messages.
The client's messages are what the test puts in ``incoming``; ``None`` there is the client leaving (and
is what ``close`` puts, so the runner's read loop ends)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import WSMsgType


class ReadingPeer:
    """A WebSocket whose peer reads every event at once; the test hands the session its events."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []  # each frame, decoded
        self.raw: list[bytes] = []  # each frame as sent (UTF-8 JSON)
        self.incoming: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False

    async def send_frame(self, data: bytes, opcode: WSMsgType) -> None:
        self.raw.append(bytes(data))
        self.sent.append(json.loads(data))

    async def close(self, code: int = 1000, message: bytes = b"") -> bool:
        self.closed = True
        await self.incoming.put(None)
        return True

    def exception(self) -> None:
        return None

    def __aiter__(self) -> ReadingPeer:
        return self

    async def __anext__(self) -> Any:
        msg = await self.incoming.get()
        if msg is None:
            raise StopAsyncIteration
        return msg

    def of(self, kind: str) -> list[dict[str, Any]]:
        """The events of type ``kind`` sent so far, oldest first."""
        return [e for e in self.sent if e["type"] == kind]


class StalledPeer(ReadingPeer):
    """A WebSocket whose peer reads nothing until ``gate`` is set (each ``send_frame`` waits for it);
    only TEXT frames are expected."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def send_frame(self, data: bytes, opcode: WSMsgType) -> None:
        assert opcode is WSMsgType.TEXT
        await self.gate.wait()
        await super().send_frame(data, opcode)
