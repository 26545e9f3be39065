"""A real engine on loopback with the real models (loaded once for the whole test run)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from mockengine.server.app import create_app
from mockengine.server.resources import Resources, load_resources
from mockengine.server.state import STATS
from mockengine.settings import Settings


@pytest.fixture(scope="session")
def real_resources() -> Resources:
    resources = load_resources(Settings(seed=3))
    yield resources
    resources.close()


@pytest.fixture
def engine_url(aiohttp_server, real_resources):
    """Start an engine; returns a factory ``await engine_url(**settings) -> ws base url``."""

    async def start(**overrides) -> str:
        settings = dataclasses.replace(real_resources.settings, **overrides)
        resources = real_resources.with_settings(settings)
        server = await aiohttp_server(create_app(settings, resources))
        return f"ws://127.0.0.1:{server.port}/v1"

    return start


@pytest.fixture
def engine(aiohttp_server, real_resources):
    """Start an engine and keep hold of it: ``await engine(**settings) -> Engine`` (url, app, health)."""

    async def start(**overrides) -> Engine:
        settings = dataclasses.replace(real_resources.settings, **overrides)
        resources = dataclasses.replace(real_resources, settings=settings)
        app = create_app(settings, resources)
        server = await aiohttp_server(app)
        return Engine(f"ws://127.0.0.1:{server.port}/v1", f"http://127.0.0.1:{server.port}", app)

    return start


@dataclasses.dataclass
class Engine:
    url: str  # ws base url, e.g. ws://127.0.0.1:1234/v1
    http_url: str
    app: Any

    @property
    def realtime(self) -> str:
        return f"{self.url}/realtime?model=gpt-realtime"

    def sessions_active(self) -> int:
        return int(self.app[STATS].sessions_active)

    async def wait_until_idle(self, timeout_s: float = 10.0) -> None:
        """Until no session is being served (the server side noticed every disconnect)."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while self.sessions_active() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        assert self.sessions_active() == 0, f"{self.sessions_active()} sessions still served"
