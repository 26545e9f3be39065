"""A real engine on loopback with the real models (loaded once for the whole test run)."""

from __future__ import annotations

import dataclasses

import pytest

from mockengine.server.app import create_app
from mockengine.server.resources import Resources, load_resources
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
