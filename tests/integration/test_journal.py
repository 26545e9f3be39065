"""The per-session journal: every client and server event in order, audio in WAV files beside the lines,
and a readable timeline from ``mockengine journal``."""

from __future__ import annotations

import base64
import io
import json
import re
import wave

import aiohttp
import pytest

from mockengine.journal import print_timeline, read_records, timeline
from mockengine.server.state import JOURNAL
from tests.speech import question, speak_fast

pytestmark = pytest.mark.models


def wav_ms(path) -> float:
    with wave.open(str(path), "rb") as handle:
        assert (handle.getframerate(), handle.getsampwidth(), handle.getnchannels()) == (24_000, 2, 1)
        return handle.getnframes() / 24.0


async def test_journal_keeps_every_event_and_the_audio(engine, tmp_path):
    eng = await engine(journal_dir=str(tmp_path), audio_pace=0.0)
    pcm, _ = question()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws,
    ):
        created = json.loads((await ws.receive(timeout=10)).data)
        received = [created, *await speak_fast(ws, pcm, {"type": "server_vad"}, 1500)]
        await ws.send_str("not json")
        await ws.send_bytes(b"\x00\x01\x02")
        while sum(e["type"] == "error" for e in received) < 2:
            received.append(json.loads((await ws.receive(timeout=10)).data))
    await eng.wait_until_idle()
    eng.app[JOURNAL].drain()

    session_dir = tmp_path / created["session"]["id"]
    records = list(read_records(session_dir / "events.jsonl"))
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    server = [r["event"] for r in records if r["from"] == "server"]
    assert [e["event_id"] for e in server] == [e["event_id"] for e in received]  # all, in order

    client = [r for r in records if r["from"] == "client"]
    appends = [r["event"] for r in client if r.get("event", {}).get("type") == "input_audio_buffer.append"]
    sent_ms = (len(pcm) + 48 * 1500) / 48
    assert sum(a["audio"]["duration_ms"] for a in appends) == pytest.approx(sent_ms, abs=1)
    assert wav_ms(session_dir / "input_audio.wav") == pytest.approx(sent_ms, abs=1)
    assert client[-2]["raw"] == "not json" and client[-1]["binary_bytes"] == 3

    deltas = [e for e in server if e["type"] == "response.output_audio.delta"]
    sent_audio = [e for e in received if e["type"] == "response.output_audio.delta"]
    response_id = deltas[0]["response_id"]
    wav_file = session_dir / deltas[0]["delta"]["wav"]
    assert wav_file.name == f"{response_id}.wav"
    with wave.open(str(wav_file), "rb") as handle:
        journal_pcm = handle.readframes(handle.getnframes())
    assert journal_pcm == b"".join(base64.b64decode(e["delta"]) for e in sent_audio)  # the very bytes
    assert any(r["from"] == "engine" and r["kind"] == "turn_end" for r in records)

    out = io.StringIO()
    assert print_timeline(str(tmp_path), out=out) == 0
    text = out.getvalue()
    assert f"== session {created['session']['id']}" in text
    merged_appends = re.findall(r"→ input_audio_buffer\.append +×(\d+)", text)
    assert sum(int(n) for n in merged_appends) == len(appends)
    assert f"← deltas of {response_id}" in text and "capital" in text
    assert "← response.done" in text and "· turn_end" in text
    assert "← error" in text and "invalid_json" in text
    assert len(text.splitlines()) < len(records) / 3  # runs of audio are merged


def test_timeline_skips_a_torn_last_line_and_merges_runs(tmp_path):
    lines = [
        {"seq": 1, "ms": 0, "from": "server", "event": {"type": "session.created", "session": {"id": "s"}}},
        *(
            {
                "seq": n,
                "ms": n,
                "from": "client",
                "event": {
                    "type": "input_audio_buffer.append",
                    "audio": {"wav": "input_audio.wav", "start_ms": 20 * n, "duration_ms": 20},
                },
            }
            for n in range(2, 12)
        ),
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"seq": 12, "fr')
    rendered = list(timeline(read_records(path)))
    assert len(rendered) == 2
    assert "×10 200 ms audio" in rendered[1]


async def test_sessions_sharing_a_seeded_id_each_get_their_own_journal(engine, tmp_path):
    """A seeded engine's sessions share their ids: their journals shared one directory, the lines of all
    of them mixed in one events.jsonl and each reply's WAV overwritten by the next session's."""
    eng = await engine(journal_dir=str(tmp_path), seed=5, audio_pace=0.0)
    said = ["Tell me a story.", "What is the capital of France?"]
    ids, audio_ms = [], []
    async with aiohttp.ClientSession() as http:
        for text in said:
            async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
                ids.append(json.loads((await ws.receive(timeout=10)).data)["session"]["id"])
                item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
                await ws.send_json({"type": "conversation.item.create", "item": item})
                await ws.send_json({"type": "response.create"})
                deltas = []
                while True:
                    event = json.loads((await ws.receive(timeout=30)).data)
                    if event["type"] == "response.output_audio.delta":
                        deltas.append(base64.b64decode(event["delta"]))
                    if event["type"] == "response.done":
                        break
                audio_ms.append(sum(len(d) for d in deltas) / 48)
    await eng.wait_until_idle()
    eng.app[JOURNAL].drain()
    assert ids[0] == ids[1]  # seeded: same ids
    first, second = tmp_path / ids[0], tmp_path / f"{ids[0]}.2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.name, second.name]
    for directory, text, ms in zip((first, second), said, audio_ms, strict=True):
        records = list(read_records(directory / "events.jsonl"))
        server = [r["event"] for r in records if r["from"] == "server"]
        assert [e["type"] for e in server].count("session.created") == 1
        user = next(
            r["event"] for r in records if r.get("event", {}).get("type") == "conversation.item.create"
        )
        assert user["item"]["content"][0]["text"] == text
        response_id = next(e["response"]["id"] for e in server if e["type"] == "response.done")
        assert wav_ms(directory / f"{response_id}.wav") == pytest.approx(ms, abs=1)  # its own reply


async def test_each_journal_of_a_seeded_id_is_listed_and_served(engine, tmp_path):
    """The second session of a seeded id journals to ``<id>.2``: the console's endpoints only knew
    ``/mockengine/journal/<id>`` (the first) and the live ids, so the second's journal could not be found
    or opened from the page. The listing names each journal (live ones first) and each is served."""
    eng = await engine(journal_dir=str(tmp_path), seed=9)
    said = ["first session here", "second session here", "third session here"]
    async with aiohttp.ClientSession() as http:
        assert (await http.get(f"{eng.http_url}/mockengine/journal")).status == 200
        ids = []
        for text in said[:2]:  # these two end
            async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
                ids.append(json.loads((await ws.receive(timeout=10)).data)["session"]["id"])
                item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
                await ws.send_json({"type": "conversation.item.create", "item": item})
                while json.loads((await ws.receive(timeout=10)).data)["type"] != "conversation.item.added":
                    pass
        await eng.wait_until_idle()
        async with http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-j"}) as ws:
            ids.append(json.loads((await ws.receive(timeout=10)).data)["session"]["id"])
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said[2]}]}
            await ws.send_json({"type": "conversation.item.create", "item": item})
            while json.loads((await ws.receive(timeout=10)).data)["type"] != "conversation.item.added":
                pass
            eng.app[JOURNAL].drain()
            listed = await (await http.get(f"{eng.http_url}/mockengine/journal")).json()
            live_ids = (await (await http.get(f"{eng.http_url}/mockengine/sessions")).json())["sessions"]
        assert len(set(ids)) == 1 and live_ids == ids[:1]  # seeded: one id for all three
        sid = ids[0]
        journals = listed["journals"]
        assert journals[0] == {"journal": f"{sid}.3", "session_id": sid, "live": True}
        assert sorted(j["journal"] for j in journals[1:]) == [sid, f"{sid}.2"]
        assert not any(j["live"] for j in journals[1:])
        await eng.wait_until_idle()
        eng.app[JOURNAL].drain()
        for name, text in zip((sid, f"{sid}.2", f"{sid}.3"), said, strict=True):
            answer = await http.get(f"{eng.http_url}/mockengine/journal/{name}")
            assert answer.status == 200
            body = await answer.json()
            assert (body["session_id"], body["journal"]) == (sid, name)
            created = [
                r["event"]
                for r in body["records"]
                if r.get("event", {}).get("type") == "conversation.item.create"
            ]
            assert [c["item"]["content"][0]["text"] for c in created] == [text]
        assert (await http.get(f"{eng.http_url}/mockengine/journal/{sid}.4")).status == 404
    off = await engine()
    async with aiohttp.ClientSession() as http:
        assert (await http.get(f"{off.http_url}/mockengine/journal")).status == 404
