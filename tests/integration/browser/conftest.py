"""Debian's chromium, headless, with a fake microphone fed from a WAV file, driven by playwright's Python
package (its own browser download is not used: it fails offline). On CI (``CI=true``) a missing chromium
fails the test instead of skipping it; ``.ci/run`` installs it."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import wave
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import Page, async_playwright

from mockengine.loadtest.processes import free_port
from mockengine.server.app import create_app
from mockengine.server.resources import Resources
from tests.speech import question

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REPORTS = Path(__file__).resolve().parents[3] / "reports"


@contextlib.asynccontextmanager
async def engine_page(chromium_path: str, wav: Path, engine_url: str) -> AsyncIterator[Page]:
    """A page of headless chromium (fake microphone playing ``wav``) on the engine's own origin (its
    ``/healthz``), so the page's script calls the engine without CORS; the browser closes on exit."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(wav))
        try:
            page = await browser.new_page()
            await page.goto(f"{engine_url}/healthz")
            yield page
        finally:
            await browser.close()


def chromium_args(wav: Path) -> list[str]:
    return [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}",
        "--autoplay-policy=no-user-gesture-required",
        "--allow-loopback-in-peer-connection",  # see server/webrtc/ice.py
        "--no-sandbox",  # CI runs as root
    ]


class RestartableEngine:
    """An engine a test stops and starts again on one port, under an open page (a Ctrl-C, a restart with
    other flags): ``await start(**settings)`` serves it with those settings overridden (``scenarios``, a
    scenario library, replaces the resources' own), ``await stop()`` shuts it down as Ctrl-C does."""

    def __init__(self, resources: Resources) -> None:
        self.resources = resources
        self.port = free_port()
        self.runner: web.AppRunner | None = None

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, scenarios: Any = None, **overrides: Any) -> None:
        settings = dataclasses.replace(self.resources.settings, **overrides)
        resources = dataclasses.replace(
            self.resources, settings=settings, scenarios=scenarios or self.resources.scenarios
        )
        self.runner = web.AppRunner(create_app(settings, resources))
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            runner, self.runner = self.runner, None
            await runner.cleanup()


@pytest.fixture
async def restartable_engine(resources: Resources) -> AsyncIterator[RestartableEngine]:
    """A :class:`RestartableEngine` (not started yet), stopped at the test's end."""
    engine = RestartableEngine(resources)
    try:
        yield engine
    finally:
        await engine.stop()


# Playwright's expect() waits 5 s by default. The page's steps here wait on the engine (a fault armed,
# a call refused, a session list refreshed) or on the browser's media set-up, which a loaded 2-core
# machine can take longer than that over; an expectation still returns as soon as it holds, so a longer
# deadline costs nothing when it passes and only a deadline that is too short fails a correct page.
EXPECT_TIMEOUT_MS = 20_000


@pytest.fixture(autouse=True)
def generous_expect_timeout() -> Iterator[None]:
    from playwright.async_api import expect  # here: the fast tier collects this directory, not its tests

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    yield
    expect.set_options(timeout=None)  # Playwright's own default again


@pytest.fixture
def chromium_path() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs it with apt-get)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return CHROMIUM


def _mic_wav(path: Path, lead_s: float, trail_s: float) -> Path:
    """The test question between ``lead_s`` and ``trail_s`` of silence, as 24 kHz mono PCM16."""
    pcm, _ = question()
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(24_000)
        handle.writeframes(bytes(int(48_000 * lead_s)) + pcm + bytes(int(48_000 * trail_s)))
    return path


@pytest.fixture
def fake_mic_wav(tmp_path: Path) -> Path:
    """The test question, then 6 s of silence (chromium loops the file)."""
    return _mic_wav(tmp_path / "mic.wav", 0.5, 6.0)


@pytest.fixture
def question_once_wav(tmp_path: Path) -> Path:
    """For a test that needs the question's spoken turn whole: chromium starts the fake microphone's file
    at getUserMedia, before the call is up, and loops it. 3 s first, so a call slow to connect does not
    clip the question's start; 60 s after, so its next round does not come during the test. With 6 s, a
    slow machine heard it again before the reply had played, which barged in and cut the reply, turn
    after turn (five times in one run under CPU contention)."""
    return _mic_wav(tmp_path / "mic-once.wav", 3.0, 60.0)


@pytest.fixture
def reports_dir() -> Path:
    REPORTS.mkdir(exist_ok=True)
    return REPORTS
