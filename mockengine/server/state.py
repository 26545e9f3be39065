"""Typed application state (aiohttp ``AppKey``s) shared by the handlers."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from aiohttp import web

from mockengine.server.journal import Journal
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
# Every SessionRunner serving a connection now (weak): closed with 1001 when the server stops.
RUNNERS = web.AppKey("runners", weakref.WeakSet)
