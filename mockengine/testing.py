"""Run mockengine inside a test process: ``EngineThread`` serves the real engine on a free loopback port
from a background thread, so synchronous and asynchronous tests (and the ``openai`` SDK) can use it.

The pytest plugin (``mockengine.pytest_plugin``, registered as the ``pytest11`` entry point ``mockengine``)
builds its ``mockengine_server`` fixture on this; other test runners can use it directly::

    with EngineThread(Settings(seed=7, scenario="questionnaire")) as engine:
        client = openai.OpenAI(base_url=engine.openai_base_url, api_key=engine.api_key)
"""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from mockengine.server.app import create_app
from mockengine.server.resources import Resources, load_resources
from mockengine.server.settings_checks import recording_problem, replay_problem, value_problem
from mockengine.settings import Settings, SettingsError

START_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class EngineInfo:
    """Where a running engine listens. ``api_key`` is a key it accepts (the configured one, else any)."""

    host: str
    port: int
    api_key: str
    settings: Settings

    @property
    def base_url(self) -> str:
        """``http://host:port`` (``/healthz``, ``/v1/models``, ``/v1/chat/completions``)."""
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``base_url`` for ``openai.OpenAI(base_url=...)``: ``http://host:port/v1``."""
        return f"{self.base_url}/v1"

    @property
    def websocket_base_url(self) -> str:
        """``websocket_base_url`` for the ``openai`` SDK's Realtime client: ``ws://host:port/v1``."""
        return f"ws://{self.host}:{self.port}/v1"

    def realtime_url(self, model: str = "gpt-realtime", **query: str | int) -> str:
        """The Realtime WebSocket URL, e.g. ``realtime_url(scenario="intro_chat", role="B", seed=3)``."""
        return f"{self.websocket_base_url}/realtime?{urlencode({'model': model, **query})}"


class EngineThread:
    """The engine on its own event loop in a daemon thread. ``resources`` shares already loaded models
    (their settings are replaced by ``settings``); without it the models load at ``start()``.

    ``start()`` returns once the port is accepting connections; raises what start-up raised (a broken
    scenario file, a missing model), and ``SettingsError`` for a value ``serve`` refuses (out of range,
    not one of its choices: the message names the field). ``stop()`` closes every session and the loop.
    """

    def __init__(self, settings: Settings, resources: Resources | None = None) -> None:
        self.settings = dataclasses.replace(settings, host=settings.host or "127.0.0.1")
        self._resources = resources
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mockengine-server", daemon=True)
        self._runner: web.AppRunner | None = None
        self.info: EngineInfo | None = None

    def start(self) -> EngineInfo:
        # What serve refuses at start-up is refused here too, before anything runs (audio_delta_ms=5000
        # served deltas past HRP's cap; replay_speed=2 without a recording was ignored; a replay_dir
        # holding no recording was found only once the models had loaded). Named by field.
        problem = (
            value_problem(self.settings, label=str)
            or replay_problem(self.settings, label=str)
            or recording_problem(self.settings, label=str)
        )
        if problem is not None:
            raise SettingsError(problem)
        resources = (
            self._resources.with_settings(self.settings)
            if self._resources is not None
            else load_resources(self.settings)
        )
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.settings.host, self.settings.port if self.settings.port else 0))
        port = listener.getsockname()[1]
        self.settings = dataclasses.replace(self.settings, port=port)
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._serve(resources, listener), self._loop)
        try:
            future.result(timeout=START_TIMEOUT_S)
        except BaseException:
            # A bad fault spec fails here, after the thread started: its loop and port went on running
            # for the rest of the test process.
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            listener.close()
            raise
        self.info = EngineInfo(self.settings.host, port, self._client_key(), self.settings)
        return self.info

    def _client_key(self) -> str:
        """A key the engine accepts: a configured one, else any (every non-empty key is accepted)."""
        return self.settings.api_key or next(iter(self.settings.api_keys), "sk-mockengine-test")

    async def _serve(self, resources: Resources, listener: socket.socket) -> None:
        app = create_app(resources.settings, resources)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        await web.SockSite(self._runner, listener).start()

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
            self._runner = None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._loop.is_closed() and not self._loop.is_running():
            self._loop.close()

    def __enter__(self) -> EngineInfo:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
