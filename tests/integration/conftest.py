"""An engine on loopback: with the real models (loaded once for the whole test run) for a test marked
``models``, else with the fake engines (``mockengine/engines/fakes.py``: no model loads, the fast tier)."""

from __future__ import annotations

import contextlib
import dataclasses
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

from mockengine.loadtest.processes import free_port
from mockengine.record.app import create_record_app
from mockengine.record.proxy import Recorder
from mockengine.server.app import create_app
from mockengine.server.resources import Resources, load_resources
from mockengine.server.state import STATS
from mockengine.settings import Settings
from tests.eventually import eventually
from tests.rates import TEST_TEXT_TOKENS_PER_S


@pytest.fixture(scope="session")
def real_resources() -> Iterator[Resources]:
    with closing(load_resources(Settings(seed=3, text_tokens_per_s=TEST_TEXT_TOKENS_PER_S))) as resources:
        yield resources


@pytest.fixture
def resources(request) -> Resources:
    """The real models for a test marked ``models``; otherwise fakes: transcripts are always
    ``FAKE_TRANSCRIPT``, speech a tone per sentence."""
    if request.node.get_closest_marker("models"):
        return request.getfixturevalue("real_resources")
    return request.getfixturevalue("fake_resources")


@pytest.fixture
def engine_url(aiohttp_server, resources):
    """Start an engine; returns a factory ``await engine_url(**settings) -> ws base url``."""

    async def start(**overrides) -> str:
        settings = dataclasses.replace(resources.settings, **overrides)
        server = await aiohttp_server(create_app(settings, resources.with_settings(settings)))
        return f"ws://127.0.0.1:{server.port}/v1"

    return start


@pytest.fixture
def engine(aiohttp_server, resources):
    """Start an engine and keep hold of it: ``await engine(**settings) -> Engine`` (url, app, health)."""

    async def start(**overrides) -> Engine:
        settings = dataclasses.replace(resources.settings, **overrides)
        app = create_app(settings, dataclasses.replace(resources, settings=settings))
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

    async def wait_until_idle(self, timeout_s: float = 30.0) -> None:
        """Until no session is being served (the server side noticed every disconnect). 30 s: a WebRTC
        call's teardown on a loaded machine is not what a test times; it returns as soon as it holds."""
        await eventually(
            lambda: self.sessions_active() == 0,
            timeout_s=timeout_s,
            message=lambda: f"{self.sessions_active()} sessions still served",
        )


UPSTREAM_KEY = "sk-upstream-0123456789"  # the upstream engine's key: the recorder's, never the client's


@dataclasses.dataclass
class Recording:
    """``mockengine record`` on loopback in front of an upstream engine (fake or real speech engines,
    as for ``engine``): where it writes, and the URLs a client records through."""

    upstream: Engine
    proxy: Any  # the recorder's aiohttp test server (its close() is what Ctrl-C does)
    out: Path

    @property
    def realtime(self) -> str:
        return f"ws://127.0.0.1:{self.proxy.port}/v1/realtime?model=gpt-realtime"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}"

    async def written(self, session: str = "realtime-0001") -> None:
        """Until the upstream served its last session out and the recorder wrote ``session``'s
        ``session.json`` (written last, once the session is over)."""
        await self.upstream.wait_until_idle()
        done = self.out / session / "session.json"
        await eventually(done.exists, message=f"{done} was not written")


@pytest.fixture
def recording(engine, aiohttp_server, tmp_path):
    """Start an upstream engine and a recorder writing to ``tmp_path / "rec"`` in front of it:
    ``await recording(**upstream_settings) -> Recording``."""

    async def start(**upstream_settings: Any) -> Recording:
        upstream = await engine(api_keys=(UPSTREAM_KEY,), **upstream_settings)
        out = tmp_path / "rec"
        recorder = Recorder(f"{upstream.http_url}/v1", out, Settings(), UPSTREAM_KEY)
        return Recording(upstream, await aiohttp_server(create_record_app(recorder)), out)

    return start


@pytest.fixture(autouse=True)
async def openai_clients_closed(monkeypatch) -> AsyncIterator[None]:
    """Every ``AsyncOpenAI`` client a test opens is closed after it: one left open is closed by the
    garbage collector later, on a closed loop, and logs an error into whichever test runs then."""
    opened: list[AsyncOpenAI] = []
    original_init = AsyncOpenAI.__init__

    def init(self: AsyncOpenAI, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(AsyncOpenAI, "__init__", init)
    yield
    for client in opened:
        await client.close()


@contextlib.contextmanager
def serving_workers_process(
    *args: str, ready_within_s: float = 240
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`mockengine serve --workers 2 --port P *args` (log level WARNING); yields the process and the port P
    once both workers serve (each loads the models: up to ``ready_within_s``), then terminates it unless
    the test ended it itself (a test of how it exits on SIGTERM)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mockengine", "serve", "--workers", "2", "--port", str(port)]
        + ["--log-level", "WARNING", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert server.stdout is not None
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
    try:
        # The server announces itself once both workers listen (not when the first one does).
        output, deadline = "", time.monotonic() + ready_within_s
        while "(2 workers)" not in output and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                output += lines.get(timeout=1)
        assert "(2 workers)" in output, output
        yield server, port
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@contextlib.contextmanager
def serving_workers(*args: str) -> Iterator[int]:
    """:func:`serving_workers_process`'s port alone."""
    with serving_workers_process(*args) as (_server, port):
        yield port


@pytest.fixture(scope="module")
def two_workers() -> Iterator[str]:
    """`mockengine serve --workers 2` on a free port, started once per module (each worker loads the
    models); its http base URL once both workers serve."""
    with serving_workers() as port:
        yield f"http://127.0.0.1:{port}"
