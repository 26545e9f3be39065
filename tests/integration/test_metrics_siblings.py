"""``/metrics`` under ``serve --workers N`` asks each sibling worker to flush its gathered event counts
before it answers (docs/operations.md): without it a scrape missed the other workers' last ~100 ms of
``mockengine_client_events_total`` / ``mockengine_server_events_total``, which each worker flushed on a
100 ms timer only. Here the engine is a real aiohttp app on loopback and its sibling a real aiohttp
server on the unix socket ``Siblings`` names; the two-process proof is in test_workers_metrics.py."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp import web

from mockengine.server.webrtc.siblings import FORWARDED, SIBLINGS, Siblings


async def test_a_scrape_asks_the_sibling_to_flush_and_a_forwarded_scrape_only_flushes(
    engine, tmp_path
) -> None:
    asked: list[tuple[str, str, str | None]] = []

    async def sibling_metrics(request: web.Request) -> web.Response:
        asked.append((request.method, request.path, request.headers.get(FORWARDED)))
        return web.Response(status=204)

    sibling = web.Application()
    sibling.router.add_get("/metrics", sibling_metrics)
    runner = web.AppRunner(sibling)
    await runner.setup()
    siblings = Siblings(0, 2, str(tmp_path))
    site = web.UnixSite(runner, siblings.socket_path(1))
    await site.start()
    try:
        eng = await engine()
        eng.app[SIBLINGS] = siblings
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{eng.http_url}/metrics") as scrape:
                assert scrape.status == 200 and "mockengine_sessions_total" in await scrape.text()
            assert asked == [("GET", "/metrics", "0")]
            async with http.get(f"{eng.http_url}/metrics", headers={FORWARDED: "1"}) as forwarded:
                assert (forwarded.status, await forwarded.read()) == (204, b"")
            assert len(asked) == 1  # a forwarded scrape is never forwarded again
    finally:
        await runner.cleanup()


async def test_a_sibling_that_does_not_answer_delays_the_scrape_by_the_timeout_at_most(
    engine, tmp_path, monkeypatch
) -> None:
    from mockengine.server import metrics

    monkeypatch.setattr(metrics, "SIBLING_FLUSH_TIMEOUT_S", 0.2)

    async def stalled(_request: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(status=204)

    sibling = web.Application()
    sibling.router.add_get("/metrics", stalled)
    runner = web.AppRunner(sibling, shutdown_timeout=0.1)
    await runner.setup()
    siblings = Siblings(0, 3, str(tmp_path))  # worker 2's socket does not exist: refused at once
    await web.UnixSite(runner, siblings.socket_path(1)).start()
    try:
        eng = await engine()
        eng.app[SIBLINGS] = siblings
        loop = asyncio.get_running_loop()
        started = loop.time()
        async with aiohttp.ClientSession() as http, http.get(f"{eng.http_url}/metrics") as scrape:
            assert scrape.status == 200
        assert loop.time() - started < 5  # 0.2 s on an idle machine; not the stalled sibling's 30 s
    finally:
        await runner.cleanup()
