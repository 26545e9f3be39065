"""A page on another origin (a developer's dev server on localhost) calls the engine with fetch() in
headless Chromium: the headers of its answers that the page needs are readable, not only Location."""

from __future__ import annotations

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

pytestmark = pytest.mark.slow  # no model, but a browser

FETCH = """async ([engine]) => {
  const read = (answer, names) => Object.fromEntries(names.map((n) => [n, answer.headers.get(n)]));
  const chat = await fetch(`${engine}/v1/chat/completions`, {
    method: "POST",
    headers: { "Authorization": "Bearer sk-page", "Content-Type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] }),
  });
  const limited = await fetch(`${engine}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "Authorization": "Bearer sk-page", "Content-Type": "application/json",
      "X-Mockengine-Fault": "http_rate_limit:retry_after_s=1.5",
    },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] }),
  });
  return {
    chat: { status: chat.status, ...read(chat, ["x-request-id", "content-type"]) },
    limited: {
      status: limited.status,
      code: (await limited.json()).error.code,
      ...read(limited, ["retry-after", "retry-after-ms", "x-ratelimit-remaining-requests",
                        "x-ratelimit-reset-requests", "x-ratelimit-limit-tokens"]),
    },
  };
}"""


async def test_a_cross_origin_page_reads_the_engines_headers(engine, aiohttp_server, chromium_path):
    server = await engine()
    page_app = web.Application()
    page_app.router.add_get(
        "/", lambda request: web.Response(text="<title>dev</title>", content_type="text/html")
    )
    dev = await aiohttp_server(page_app)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"http://localhost:{dev.port}/")  # another origin than the engine's
            seen = await page.evaluate(FETCH, [server.http_url])
        finally:
            await browser.close()
    chat, limited = seen["chat"], seen["limited"]
    assert chat["status"] == 200 and chat["content-type"].startswith("application/json")
    assert chat["x-request-id"] and chat["x-request-id"].startswith("req_")  # was null: not exposed
    assert (limited["status"], limited["code"]) == (429, "rate_limit_exceeded")
    assert (limited["retry-after"], limited["retry-after-ms"]) == ("2", "1500")
    assert limited["x-ratelimit-remaining-requests"] == "0"
    assert limited["x-ratelimit-reset-requests"] == "1.5s" and limited["x-ratelimit-limit-tokens"]
