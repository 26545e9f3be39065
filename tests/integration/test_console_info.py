"""``GET /mockengine/console.json``: what the console page builds its pickers and its media watch from."""

from __future__ import annotations

import aiohttp
import pytest


@pytest.mark.parametrize("dtx", [False, True])
async def test_console_info_says_whether_webrtc_replies_use_dtx(engine, dtx):
    """The page's media-stall watch calls a call without packets for 1.5 s stalled; with --webrtc-dtx
    the engine sends none between replies on purpose, and the page must know (docs/console.md)."""
    server = await engine(webrtc_dtx=dtx, journal_dir=None)
    async with aiohttp.ClientSession() as http, http.get(f"{server.http_url}/mockengine/console.json") as answer:
        assert answer.status == 200
        info = await answer.json()
    assert info["webrtc_dtx"] is dtx
    assert info["journal"] is False
    assert "media_stall" in {fault["kind"] for fault in info["faults"]}
