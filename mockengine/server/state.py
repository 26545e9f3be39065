"""Typed application state (aiohttp ``AppKey``s) shared by the handlers."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from mockengine.server.journal import Journal
from mockengine.server.reclaim import Reclaimer
from mockengine.server.resources import Resources
from mockengine.server.trace import Tracer

RESOURCES = web.AppKey("resources", Resources)
TRACER = web.AppKey("tracer", Tracer)


@dataclass
class Stats:
    sessions_active: int = 0
    sessions_total: int = 0


STATS = web.AppKey("stats", Stats)

JOURNAL = web.AppKey("journal", Journal)
# Every RealtimeSession still in memory (weak): a session that outlives its connection is a leak.
LIVE_SESSIONS = web.AppKey("live_sessions", weakref.WeakSet)
# Collects and trims memory a while after sessions end (issue 15).
RECLAIMER = web.AppKey("reclaimer", Reclaimer)


class LiveLoops:
    """Every session loop serving a connection now (weakly held), so a stopping server can close them;
    one that registers after the stop began (its handshake was under way) is closed at once."""

    def __init__(self) -> None:
        self._loops: weakref.WeakSet[Any] = weakref.WeakSet()
        self._closing: tuple[int, str] | None = None

    def add(self, loop: Any) -> None:
        self._loops.add(loop)
        if self._closing is not None:
            loop.shutdown(*self._closing)

    def close_all(self, code: int, reason: str) -> int:
        """``shutdown(code, reason)`` on every loop, now and for any added later; returns how many."""
        self._closing = (code, reason)
        loops = list(self._loops)
        for loop in loops:
            loop.shutdown(code, reason)
        return len(loops)


# The SessionLoops (WebSocket and any other transport) serving now: closed with 1001 when the server stops.
RUNNERS = web.AppKey("runners", LiveLoops)
