"""Typed application state (aiohttp ``AppKey``s) shared by the handlers."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

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
