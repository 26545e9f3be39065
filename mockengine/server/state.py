"""Typed application state (aiohttp ``AppKey``s) shared by the handlers."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from mockengine.server.resources import Resources
from mockengine.server.trace import Tracer

RESOURCES = web.AppKey("resources", Resources)
TRACER = web.AppKey("tracer", Tracer)
STATS = web.AppKey("stats", dict[str, Any])
