"""Serve an aiohttp application on a loopback port chosen by the kernel (tests run side by side)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web


@asynccontextmanager
async def serve_on_loopback(app: web.Application) -> AsyncIterator[int]:
    """Run ``app`` on 127.0.0.1, port 0; yields the port and cleans up on exit."""
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()
