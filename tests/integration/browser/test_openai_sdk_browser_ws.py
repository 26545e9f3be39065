"""The official openai npm SDK's browser Realtime WebSocket client (``OpenAIRealtimeWebSocket`` from
``openai/realtime/websocket``, pinned in tests/js/package-lock.json) in a real chromium page, as a web app
uses it: an ``ek_`` secret, the browser's own WebSocket with the key in the ``openai-insecure-api-key.``
subprotocol, a declared tool called and answered, a spoken question (PCM16 appended by the page) ended by
server_vad and answered. The SDK only opens ``wss:`` URLs, so the engine serves TLS (its generated CA, which
the page's browser context accepts). The SDK's ES modules are served as npm installed them, from another
origin than the engine's (CORS, as a developer's dev server would). tests/js/openai_realtime_browser_page.html
drives the SDK and keeps what it saw in ``window.report``."""

from __future__ import annotations

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

from tests.integration.browser.conftest import chromium_args
from tests.integration.browser.test_agents_sdk import JS_DIR, npm_ci
from tests.integration.compat.speech import spoken_question
from tests.integration.test_tls import start_tls_engine

pytestmark = pytest.mark.models


async def test_openai_sdk_browser_websocket_tool_call_and_spoken_turn(
    aiohttp_server, real_resources, chromium_path, fake_mic_wav, tmp_path
):
    await npm_ci()
    server, _ = await start_tls_engine(aiohttp_server, real_resources, tls_dir=str(tmp_path / "tls"))
    engine = f"https://127.0.0.1:{server.port}"
    pcm, _ = spoken_question()
    page_app = web.Application()
    page_app.router.add_get("/", lambda _: web.FileResponse(JS_DIR / "openai_realtime_browser_page.html"))
    page_app.router.add_get("/question.pcm", lambda _: web.Response(body=pcm))
    page_app.router.add_static("/openai/", JS_DIR / "node_modules" / "openai")
    pages = await aiohttp_server(page_app)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=chromium_args(fake_mic_wav))
        try:
            context = await browser.new_context(ignore_https_errors=True)  # the engine's own CA
            page = await context.new_page()
            console: list[str] = []
            page.on("console", lambda message: console.append(message.text))
            await page.goto(f"http://localhost:{pages.port}/?engine={engine}")
            await page.wait_for_function(
                "window.report && (window.report.done || window.report.failed)", timeout=120_000
            )
            report = await page.evaluate("window.report")
        finally:
            await browser.close()
    assert not report.get("failed"), (report, console)
    assert not report["errors"], report["errors"]
    assert "error" not in report["types"], report["types"]
    assert report["secretPrefix"] == "ek_"
    assert report["url"].startswith("wss://127.0.0.1:")
    assert report["instructions"] == "You are a helpful assistant."  # the secret's session
    assert report["tools"] == ["get_weather"]
    assert report["call"] == {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert "sunny" in report["toolReply"]
    heard = report["heard"].lower()
    assert "capital" in heard and "france" in heard
    assert report["spokenStatus"] == "completed" and "Paris" in report["spokenReply"]
    assert report["replyAudioBytes"] > 24_000  # more than half a second of PCM16 at 24 kHz
