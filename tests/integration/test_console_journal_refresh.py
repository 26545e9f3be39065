"""The console's timeline refresh (``GET /mockengine/journal/{journal}?from=N``, docs/console.md) read
the whole ``events.jsonl`` on every refresh: over an hour-long session of a study, work that grew with
the square of its length. Each journal's record offsets are now kept between refreshes: a refresh reads
only what the writer added since, and ``from=N`` seeks to the N-th record. The answers are the same as
the whole-file reading's for every ``from`` (the reference below is that reading, as it was), but for
two lines it lost: a record whose ``event`` is no object (a client that sent ``null``: a 500 for the
whole journal) and a transcript holding U+2028 (``str.splitlines`` cut its line: the record was gone)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mockengine.server import console
from mockengine.server.state import JOURNAL

APPEND = {"type": "input_audio_buffer.append", "audio": {"wav": "input_audio.wav", "start_ms": 0.0}}


def whole_file_answer(path: Path, first: int, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The endpoint's records and total as it read them before: the whole file, every refresh."""
    records = []
    total = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if '"event": {"type": "input_audio_buffer.append"' in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("event", {}).get("type") == "input_audio_buffer.append":
            continue
        if first <= total < first + limit:
            records.append(record)
        total += 1
    return records, total


def lines(start: int, count: int) -> str:
    """``count`` journal lines from seq ``start``: appends (the writer's spelling and another), server
    and client events, an engine decision, a client's raw text and binary frame, blank lines."""
    out = []
    for seq in range(start, start + count):
        stamp = {"seq": seq, "t": 1_700_000_000.0 + seq, "ms": seq * 20.0}
        kind = seq % 7
        if kind in (0, 1):
            out.append(json.dumps({**stamp, "from": "client", "event": APPEND}))
        elif kind == 2:
            out.append(json.dumps({"event": {"audio": "x", "type": "input_audio_buffer.append"}, **stamp}))
        elif kind == 3:
            event = {"type": "response.output_audio_transcript.delta", "delta": f"mot {seq} — é"}
            out.append(json.dumps({**stamp, "from": "server", "event": event}, ensure_ascii=False))
        elif kind == 4:
            out.append(json.dumps({**stamp, "from": "engine", "kind": "turn", "data": {"rule": "faq"}}))
        elif kind == 5:
            out.append(json.dumps({**stamp, "from": "client", "raw": "{not json", "chars": 9}))
            out.append("")
        else:
            out.append(json.dumps({**stamp, "from": "client", "binary_bytes": 4}))
    return "\n".join(out) + "\n"


async def test_every_refresh_answers_as_the_whole_file_reading_did_for_every_from(
    engine, tmp_path, monkeypatch
):
    monkeypatch.setattr(console, "MAX_JOURNAL_RECORDS", 7)  # the cut, inside the journal
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_study" / "events.jsonl"
    path.parent.mkdir()
    torn = json.dumps({"seq": 999, "from": "server", "event": {"type": "response.done"}})
    stages = [
        lines(1, 40),
        lines(41, 30) + '{"seq": 71, "broken line a hand edit left\n' + torn[:25],  # torn: mid-write
        torn[25:] + "\n" + lines(72, 25),
        lines(97, 3) + torn,  # whole but for its newline
        "\n",
    ]
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_study"
        for stage in stages:
            with path.open("a", encoding="utf-8") as handle:
                handle.write(stage)
            total = whole_file_answer(path, 0, 7)[1]
            for first in range(total + 3):
                answer = await http.get(url, params={"from": str(first)})
                assert answer.status == 200
                body = await answer.json()
                records, expected_total = whole_file_answer(path, first, 7)
                assert (body["records"], body["total"], body["from"]) == (records, expected_total, first)
                assert body["journal"] == body["session_id"] == "sess_study"


async def test_a_refresh_reads_only_what_was_added_since_the_last_one(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_long" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(lines(1, 700), encoding="utf-8")
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_long"
        seen = (await (await http.get(url)).json())["total"]
        assert seen == 400
        # Bytes already read, overwritten in place (same size): a refresh that read them again would
        # count none of these records; one that reads only the new ones still counts them all.
        text = path.read_bytes()
        with path.open("r+b") as handle:
            handle.write(b"x" * (len(text) // 2))
        with path.open("a", encoding="utf-8") as handle:
            handle.write(lines(701, 7))
        body = await (await http.get(url, params={"from": str(seen)})).json()
        assert body["total"] == seen + 4
        assert [r["seq"] for r in body["records"]] == [703, 704, 705, 706]


async def test_a_journal_replaced_by_another_file_is_read_anew(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_new" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(lines(1, 70), encoding="utf-8")
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_new"
        assert (await (await http.get(url)).json())["total"] == 40
        path.unlink()
        path.write_text(lines(1, 14), encoding="utf-8")  # a new file, shorter
        body = await (await http.get(url)).json()
        assert (body["total"], body["records"]) == whole_file_answer(path, 0, 5000)[::-1]


@pytest.mark.parametrize("frame", ["null", "[1, 2]", '"text"', "7"])
async def test_a_client_event_that_is_no_object_is_served_in_the_journal(engine, tmp_path, frame):
    """A client that sent JSON ``null`` (or a list, a string, a number) had its frame journaled with
    that ``event``, and every answer of the journal endpoint was a 500 from then on."""
    eng = await engine(journal_dir=str(tmp_path))
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            journal = (await ws.receive_json(timeout=10))["session"]["id"]
            await ws.send_str(frame)
            assert (await ws.receive_json(timeout=10))["type"] == "error"
        await eng.wait_until_idle()
        eng.app[JOURNAL].drain()
        answer = await http.get(f"{eng.http_url}/mockengine/journal/{journal}")
        assert answer.status == 200
        body = await answer.json()
    sent = [r for r in body["records"] if r.get("from") == "client"]
    assert [r["event"] for r in sent] == [json.loads(frame)]
    assert body["total"] == len(body["records"])


async def test_a_transcript_holding_a_line_separator_is_served_whole(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path))
    said = "First line.\u2028Second line.\x85Third."
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            journal = (await ws.receive_json(timeout=10))["session"]["id"]
            await ws.send_json({"type": "conversation.item.create", "item": item})
            while (await ws.receive_json(timeout=30))["type"] != "conversation.item.added":
                pass
        await eng.wait_until_idle()
        eng.app[JOURNAL].drain()
        body = await (await http.get(f"{eng.http_url}/mockengine/journal/{journal}")).json()
    created = [r["event"] for r in body["records"] if r.get("from") == "client"]
    assert [e["item"]["content"][0]["text"] for e in created] == [said]


async def test_refreshes_at_once_of_one_journal_answer_alike(engine, tmp_path):
    """The index is moved on off the event loop (a first look at an hour reads ~50 MB), one refresh of a
    journal at a time: two at once would both append the offsets they read."""
    import asyncio

    eng = await engine(journal_dir=str(tmp_path))
    path = tmp_path / "sess_busy" / "events.jsonl"
    path.parent.mkdir()
    path.write_text(lines(1, 3500), encoding="utf-8")
    expected = whole_file_answer(path, 1000, 5000)
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/mockengine/journal/sess_busy?from=1000"
        answers = await asyncio.gather(*(http.get(url) for _ in range(6)))
        bodies = [await answer.json() for answer in answers]
    assert all((b["records"], b["total"]) == expected for b in bodies)
