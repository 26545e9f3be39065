"""The official JS SDK (``@openai/agents-realtime``, tests/js/package-lock.json) in a real browser page,
its WebRTC transport pointed at the engine: a spoken turn from chromium's fake microphone and a declared
tool called, on each media plane (aiortc, and ``--media-plane pion``'s sidecar). The page is served from
another origin than the engine's (CORS, as a developer's dev server would); tests/js/agents_webrtc_page.html
drives the SDK and keeps what it saw in ``window.report``. The SDK's browser bundle is installed with
``npm ci`` (needs npm; .ci/run)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

from mockengine.rtc.pion.plane import BUILD_NEEDS, is_built
from tests.integration.browser.conftest import chromium_args

pytestmark = pytest.mark.models
JS_DIR = Path(__file__).resolve().parents[2] / "js"
BUNDLE = JS_DIR / "node_modules" / "@openai" / "agents-realtime" / "dist" / "bundle"


def skip_without_pion(media_plane: str) -> None:
    """Skip a ``--media-plane pion`` case where the sidecar is not built (fail under CI=true)."""
    if media_plane == "pion" and not is_built():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")
        pytest.skip(f"the pion sidecar is not built (make pion; {BUILD_NEEDS})")


async def npm_ci() -> None:
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm is not installed (.ci/run installs it)")
        pytest.skip("npm is needed for the JS SDK (apt-get install npm)")
    installed = JS_DIR / "node_modules" / ".package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= (JS_DIR / "package-lock.json").stat().st_mtime:
        return
    process = await asyncio.create_subprocess_exec(
        npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", cwd=JS_DIR, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), 300)
    assert process.returncode == 0, err.decode()


@pytest.mark.parametrize("media_plane", ["aiortc", "pion"])
async def test_agents_realtime_webrtc_spoken_turn_and_tool_call(
    engine, aiohttp_server, chromium_path, question_once_wav, reports_dir, media_plane
):
    skip_without_pion(media_plane)
    await npm_ci()
    server = await engine(media_plane=media_plane)
    page_app = web.Application()
    page_app.router.add_get("/", lambda _: web.FileResponse(JS_DIR / "agents_webrtc_page.html"))
    page_app.router.add_static("/bundle/", BUNDLE)
    pages = await aiohttp_server(page_app)
    async with async_playwright() as p:
        args = chromium_args(question_once_wav)
        browser = await p.chromium.launch(executable_path=chromium_path, args=args)
        try:
            page = await browser.new_page()
            # The page's origin (localhost:port) differs from the engine's (127.0.0.1:port): CORS applies.
            await page.goto(f"http://localhost:{pages.port}/?engine={server.http_url}")
            await page.wait_for_function(
                "window.report && (window.report.done || window.report.failed)", timeout=90_000
            )
            report = await page.evaluate("window.report")
            suffix = "" if media_plane == "aiortc" else f"-{media_plane}"
            await page.screenshot(path=str(reports_dir / f"agents-sdk-webrtc{suffix}.png"))
        finally:
            await browser.close()
    await server.wait_until_idle()
    assert not report["errors"], report["errors"]
    assert report["connected"] and report["spokenTurnDone"]
    # The question went through chromium's fake device, Opus and whisper tiny: its key word survives
    # (the city has come back as "friends" on a loaded machine).
    assert "capital" in report["userTranscript"].lower()
    events = report["events"]
    assert {"output_audio_buffer.started", "output_audio_buffer.stopped"} <= set(events), events
    # One spoken turn, its reply played out whole: the microphone says the question once in the test's
    # time (conftest.question_once_wav), so no next round of it barges in.
    assert events.count("input_audio_buffer.speech_started") == 1, events
    assert "output_audio_buffer.cleared" not in events, events
    assert "response.output_audio.delta" not in events
    assert report["weatherCalls"] == ["Paris"]
    assert report["toolEnd"]["name"] == "get_weather" and "sunny" in report["toolEnd"]["result"]
    replies = [h["text"] for h in report["history"] if h["role"] == "assistant" and h["text"]]
    assert len(replies) >= 2, report["history"]
