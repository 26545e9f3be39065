"""The official JS SDK (``@openai/agents-realtime``) in a real browser over WebRTC on each media plane
(aiortc, the default, and ``--media-plane pion``): a long reply interrupted (``session.interrupt()``:
``output_audio_buffer.clear``), the call hung up, then a second call on a fresh secret that answers on
its track. tests/js/agents_webrtc_reconnect_page.html drives the SDK."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

from tests.integration.browser.conftest import chromium_args
from tests.integration.browser.test_agents_sdk import BUNDLE, JS_DIR, npm_ci, skip_without_pion

pytestmark = pytest.mark.models


@pytest.fixture
def silent_wav(tmp_path: Path) -> Path:
    path = tmp_path / "silence.wav"
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(24_000)
        handle.writeframes(bytes(48_000 * 2))
    return path


@pytest.mark.parametrize("media_plane", ["aiortc", "pion"])
async def test_agents_sdk_interrupt_hang_up_and_call_again(
    engine, aiohttp_server, chromium_path, silent_wav, media_plane
):
    skip_without_pion(media_plane)
    await npm_ci()
    server = await engine(media_plane=media_plane)
    page_app = web.Application()
    page_app.router.add_get("/", lambda _: web.FileResponse(JS_DIR / "agents_webrtc_reconnect_page.html"))
    page_app.router.add_static("/bundle/", BUNDLE)
    pages = await aiohttp_server(page_app)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(silent_wav))
        try:
            page = await browser.new_page()
            await page.goto(f"http://localhost:{pages.port}/?engine={server.http_url}")
            await page.wait_for_function(
                "window.report && (window.report.done || window.report.failed)", timeout=90_000
            )
            report = await page.evaluate("window.report")
        finally:
            await browser.close()
    await server.wait_until_idle()
    assert not report["errors"], report["errors"]
    first, second = report["calls"]
    # The interrupted story: its playback cleared, the response cut short.
    assert "output_audio_buffer.cleared" in first["events"], first["events"]
    # The second call: a new session, a reply heard whole.
    assert second["events"].count("session.created") == 1, second["events"]
    assert any("paris" in t.lower() for t in second["transcripts"]), second["transcripts"]
    assert second["lastStatus"] == "completed"
