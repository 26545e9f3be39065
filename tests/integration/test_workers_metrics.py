"""``/metrics`` under ``serve --workers 2``, over real sockets: a scrape right after a session's events
counts all of them, whichever worker served the session and whichever answers the scrape. Each worker
gathers its event counts and flushed them on a 100 ms timer only, so a scrape that the kernel handed to
the other worker within that time missed them (docs/operations.md)."""

from __future__ import annotations

import json
import re

import aiohttp
import pytest

pytestmark = pytest.mark.models  # serve loads the models in each worker
ROUNDS = 8  # each round's scrape lands on the other worker half the time: all 8 on the same, 2 ** -7
CLEARS = 5


def clears_counted(text: str) -> float:
    found = re.search(
        r'^mockengine_client_events_total\{type="input_audio_buffer.clear"\} (\S+)$', text, re.M
    )
    return float(found.group(1)) if found else 0.0


async def test_a_scrape_right_after_the_events_counts_every_worker(two_workers) -> None:
    async with aiohttp.ClientSession() as http:
        for round_ in range(1, ROUNDS + 1):
            async with http.ws_connect(
                f"{two_workers.replace('http', 'ws')}/v1/realtime?model=gpt-realtime",
                headers={"Authorization": "Bearer sk-test"},
            ) as ws:
                for _ in range(CLEARS):
                    await ws.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
                cleared = 0
                while cleared < CLEARS:  # each clear was counted before its answer went out
                    event = json.loads((await ws.receive(timeout=30)).data)
                    cleared += event["type"] == "input_audio_buffer.cleared"
                # A new connection (force_close), so the kernel picks a worker for the scrape anew.
                async with http.get(f"{two_workers}/metrics", headers={"Connection": "close"}) as scrape:
                    assert clears_counted(await scrape.text()) == CLEARS * round_, round_
