"""The console in a real browser: connect over WebRTC, the fake microphone's question gets a spoken reply,
the transcript and the events appear on the page; a screenshot is saved in reports/."""

from __future__ import annotations

import pytest
from playwright.async_api import async_playwright, expect

from tests.integration.browser.conftest import chromium_args

pytestmark = pytest.mark.models


@pytest.mark.parametrize("transport", ["webrtc", "websocket"])
async def test_console_spoken_turn(engine, chromium_path, fake_mic_wav, reports_dir, transport):
    server = await engine()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(fake_mic_wav))
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 1000})
            problems: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            # Console errors too (a missing /favicon.ico once logged a 404 on every load).
            page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
            await page.goto(f"{server.http_url}/")
            await page.select_option("#transport", transport)
            await page.select_option("#turn-detection", "server_vad")
            await page.click("#connect")
            await expect(page.locator("#status")).to_have_text("live", timeout=15_000)
            user = page.locator("#transcript li.user").first
            await expect(user).to_contain_text("capital", timeout=30_000, ignore_case=True)
            reply = page.locator("#transcript li.assistant:not(.partial)").first
            await expect(reply).not_to_be_empty(timeout=30_000)
            events = page.locator("#events li")
            await expect(events.filter(has_text="input_audio_buffer.speech_started").first).to_be_visible()
            await expect(events.filter(has_text="response.done").first).to_be_visible(timeout=30_000)
            if transport == "webrtc":
                stopped = events.filter(has_text="output_audio_buffer.stopped").first
                await expect(stopped).to_be_attached(timeout=30_000)
            await page.screenshot(path=str(reports_dir / f"console-{transport}.png"), full_page=True)
            await page.click("#hangup")
            await server.wait_until_idle()
            assert not problems, problems
        finally:
            await browser.close()
