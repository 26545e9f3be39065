"""``GET /mockengine/console.json``: what the console page builds its pickers and its media watch from."""

from __future__ import annotations

import aiohttp
import pytest


@pytest.mark.parametrize("dtx", [False, True])
async def test_console_info_says_whether_webrtc_replies_use_dtx(engine, dtx):
    """The page's media-stall watch calls a call without packets for 1.5 s stalled; with --webrtc-dtx
    the engine sends none between replies on purpose, and the page must know (docs/console.md)."""
    server = await engine(webrtc_dtx=dtx, journal_dir=None)
    url = f"{server.http_url}/mockengine/console.json"
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        assert answer.status == 200
        info = await answer.json()
    assert info["webrtc_dtx"] is dtx
    assert info["journal"] is False
    assert "media_stall" in {fault["kind"] for fault in info["faults"]}


async def test_console_info_names_the_engine_start(engine):
    """``engine`` is the same on every read from one engine and another for each engine started (the
    page, left open across a restart, reads its choices again when it changes; seeded or not)."""
    first, second = await engine(seed=1), await engine(seed=1)
    async with aiohttp.ClientSession() as http:
        ids = []
        for server in (first, first, second):
            async with http.get(f"{server.http_url}/mockengine/console.json") as answer:
                ids.append((await answer.json())["engine"])
    assert ids[0] == ids[1] != ids[2]
    assert ids[0].startswith("eng_")


async def test_a_long_sessions_journal_is_served_past_its_first_5000_lines(engine, tmp_path):
    """The journal endpoint cut a journal at its first 5000 lines *before* leaving out the microphone's
    appends (the console sends 25 a second): after ~3 minutes of a WebSocket session its journal
    timeline stopped growing, and a long session's later records could not be seen at all. The appends
    are left out first, the cut counts records, and ``?from=N`` serves the records from the N-th on,
    with ``total`` saying how many there are."""
    from mockengine.server.state import JOURNAL

    eng = await engine(journal_dir=str(tmp_path))
    append = {"type": "input_audio_buffer.append", "audio": "AAA="}  # one sample of silence
    text = {"type": "input_text", "text": "after the appends"}
    item = {"type": "message", "role": "user", "content": [text]}
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            journal = (await ws.receive_json(timeout=10))["session"]["id"]
            for _ in range(5200):
                await ws.send_json(append)
            await ws.send_json({"type": "conversation.item.create", "item": item})
            while (await ws.receive_json(timeout=30))["type"] != "conversation.item.added":
                pass
        await eng.wait_until_idle()
        eng.app[JOURNAL].drain()
        url = f"{eng.http_url}/mockengine/journal/{journal}"
        body = await (await http.get(url)).json()
        types = [r.get("event", {}).get("type") for r in body["records"]]
        assert "input_audio_buffer.append" not in types
        assert "conversation.item.create" in types
        assert body["total"] == len(body["records"]) and body["from"] == 0
        rest = await (await http.get(url, params={"from": str(body["total"] - 2)})).json()
        assert rest["records"] == body["records"][-2:] and rest["from"] == body["total"] - 2
        assert (await (await http.get(url, params={"from": "999999"})).json())["records"] == []
        bad = await http.get(url, params={"from": "-1"})
        assert bad.status == 400 and (await bad.json())["error"]["param"] == "from"


@pytest.mark.parametrize("start", ["²", "9" * 5000, "-1", " 1"])
async def test_a_journal_from_that_is_no_plain_index_is_a_400(engine, tmp_path, start):
    """``?from=²`` passed ``str.isdigit`` and ``int`` raised (a 500), as did 5000 digits (beyond
    Python's int-from-text limit): a 400 naming ``from``, and the journal is still served after."""
    from mockengine.server.state import JOURNAL

    eng = await engine(journal_dir=str(tmp_path))
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            journal = (await ws.receive_json(timeout=10))["session"]["id"]
        await eng.wait_until_idle()
        eng.app[JOURNAL].drain()
        url = f"{eng.http_url}/mockengine/journal/{journal}"
        bad = await http.get(url, params={"from": start})
        assert bad.status == 400 and (await bad.json())["error"]["param"] == "from"
        assert (await http.get(url, params={"from": "0"})).status == 200
