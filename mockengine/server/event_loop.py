"""Which asyncio event loop ``serve`` runs on: the standard one, or uvloop (``--loop uvloop``).

uvloop (libuv under asyncio's API) is a drop-in loop many aiohttp servers use. ``mockengine bench
--only loops`` measures the engine's CPU per session-second on both, side by side in one run
(docs/memory.md has the figures); the switch stays so either can be chosen.
"""

from __future__ import annotations

import asyncio

LOOPS = ("asyncio", "uvloop")


def install_event_loop(name: str, label: str = "--loop") -> None:
    """Make new event loops (``web.run_app`` makes one) of kind ``name``; ValueError for an unknown
    name, or uvloop asked for where it is not installed. ``label`` names the setting in that message
    (``MOCKENGINE_LOOP (--loop)`` when the value came from the environment)."""
    if name == "asyncio":
        asyncio.set_event_loop_policy(None)
        return
    if name != "uvloop":
        raise ValueError(f"unknown event loop {name!r}; choose from {', '.join(LOOPS)}")
    try:
        import uvloop
    except ImportError as exc:
        raise ValueError(f"{label} uvloop needs the uvloop package (pip install uvloop)") from exc
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def running_loop_name() -> str:
    """``uvloop`` or ``asyncio``: what the running loop is (``/healthz`` reports it)."""
    return "uvloop" if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else "asyncio"
