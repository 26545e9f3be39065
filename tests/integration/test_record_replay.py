"""``mockengine record`` against a second mockengine on loopback (the upstream), then ``serve --replay``:
the same client gets the same events, transcripts and audio; a changed client is a divergence at the
right event; the upstream key is nowhere in the recording; chat completions replay, streamed and not."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from openai import AsyncOpenAI

from mockengine.journal import print_timeline, read_records
from mockengine.record.app import create_record_app
from mockengine.record.proxy import Recorder
from mockengine.settings import Settings
from tests.eventually import eventually
from tests.record_client import Diverged, ScriptedClient, run_script
from tests.speech import question

pytestmark = pytest.mark.models
UPSTREAM_KEY = "sk-upstream-secret-0123456789"
CLIENT_KEY = "sk-client-key-abcdef"
QUERY = "model=gpt-realtime&scenario=conformance"


async def start_recorder(aiohttp_server: Any, upstream_http: str, out: Path, **kw: Any) -> str:
    recorder = Recorder(f"{upstream_http}/v1", out, Settings(), UPSTREAM_KEY, **kw)
    server = await aiohttp_server(create_record_app(recorder))
    return f"127.0.0.1:{server.port}"


async def written(directory: Path, last: str = "session.json") -> None:
    """Until the recorder has written ``last`` (a session's session.json is written last), off the loop."""
    await eventually((directory / last).exists, timeout_s=5, message=f"{directory / last} was not written")


def audio_by_response(events: list[dict[str, Any]]) -> list[bytes]:
    audio: dict[str, bytes] = {}
    for e in events:
        if e["type"] == "response.output_audio.delta":
            audio[e["response_id"]] = audio.get(e["response_id"], b"") + base64.b64decode(e["delta"])
    return list(audio.values())


def words(events: list[dict[str, Any]]) -> list[str]:
    return [e["transcript"] for e in events if e["type"] == "response.output_audio_transcript.done"]


@pytest.fixture
async def recorded(engine, aiohttp_server, tmp_path):
    """A recording of the client script through the proxy, and what the client received."""
    upstream = await engine(api_keys=(UPSTREAM_KEY,), audio_pace=4.0, first_delta_delay_ms=50)
    proxy = await start_recorder(aiohttp_server, upstream.http_url, tmp_path / "rec")
    pcm, _ = question()
    events = await run_script(f"ws://{proxy}/v1/realtime?{QUERY}", CLIENT_KEY, pcm)
    await upstream.wait_until_idle()
    await written(tmp_path / "rec" / "realtime-0001")
    return tmp_path / "rec", events, pcm


async def test_a_recorded_session_replays_with_the_same_events_words_and_audio(recorded, engine, tmp_path):
    out, live, pcm = recorded
    kinds = [e["type"] for e in live]
    assert "response.function_call_arguments.done" in kinds and "conversation.item.truncated" in kinds
    assert any(e["type"] == "response.done" and e["response"]["status"] == "cancelled" for e in live)
    session_dir = out / "realtime-0001"
    records = list(read_records(session_dir / "events.jsonl"))
    server_ids = [r["event"]["event_id"] for r in records if r["from"] == "server"]
    assert server_ids[: len(live)] == [e["event_id"] for e in live]  # (the client left before the last)

    replay = await engine(replay_dir=str(out), replay_speed=2.0)  # paced: half the recorded gaps
    replayed = await run_script(f"{replay.realtime}&scenario=conformance", "sk-any", pcm)
    assert [e["type"] for e in replayed] == kinds
    assert words(replayed) == words(live) and len(words(live)) == 4
    assert audio_by_response(replayed) == audio_by_response(live)
    assert {e["event_id"] for e in replayed}.isdisjoint(e["event_id"] for e in live)  # re-stamped
    live_vad = [e.get("audio_start_ms") for e in live if e["type"].startswith("input_audio_buffer.speech")]
    replay_vad = [
        e.get("audio_start_ms") for e in replayed if e["type"].startswith("input_audio_buffer.speech")
    ]
    assert replay_vad == live_vad  # the engine's own VAD on the same audio
    assert_ids_coherent(replayed)


def assert_ids_coherent(events: list[dict[str, Any]]) -> None:
    """Every previous_item_id, truncate and call output refers to an item the client was shown."""
    shown: set[str] = set()
    for e in events:
        if e["type"] == "conversation.item.added":
            previous = e.get("previous_item_id")
            assert previous is None or previous in shown, e
            shown.add(e["item"]["id"])
        if e["type"] == "conversation.item.truncated":
            assert e["item_id"] in shown


async def test_a_changed_tool_output_is_a_divergence_at_that_event(recorded, engine, tmp_path):
    out, _, pcm = recorded
    records = list(read_records(out / "realtime-0001" / "events.jsonl"))
    output_line = next(
        r["seq"]
        for r in records
        if r["from"] == "client" and (r["event"].get("item") or {}).get("type") == "function_call_output"
    )
    strict = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=True)
    with pytest.raises(Diverged) as caught:
        await run_script(
            f"{strict.realtime}&scenario=conformance", "sk-any", pcm, tool_output='{"sent": false}'
        )
    error = caught.value.error
    assert error["code"] == "replay_divergence"
    assert f"journal line {output_line}" in error["message"] and '{"sent": true}' in error["message"]

    trace_dir = tmp_path / "trace"
    lenient = await engine(replay_dir=str(out), replay_speed=0.0, trace_dir=str(trace_dir))
    events = await run_script(f"{lenient.realtime}&scenario=conformance", "sk-any", pcm, tool_output='"nope"')
    assert events[-1]["type"] == "response.done"  # the scripted participant carried on
    traces = [json.loads(line) for f in trace_dir.glob("*.jsonl") for line in f.read_text().splitlines()]
    divergences = [t for t in traces if t.get("kind") == "mockengine.replay_divergence"]
    assert len(divergences) == 1 and divergences[0]["data"]["line"] == output_line
    async with aiohttp.ClientSession() as http, http.get(f"{lenient.http_url}/metrics") as response:
        assert 'mockengine_replay_divergences_total{mode="fallback"}' in await response.text()


async def test_the_recording_holds_no_key_reads_as_a_journal_and_replays_as_a_scenario(
    recorded, engine_url, tmp_path, capsys
):
    out, live, pcm = recorded
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert UPSTREAM_KEY.encode() not in data and CLIENT_KEY.encode() not in data, path
    session = json.loads((out / "realtime-0001" / "session.json").read_text())
    assert session["request_headers"]["Authorization"] == "<redacted>"
    assert json.loads((out / "recording.json").read_text())["version"] == 1
    assert print_timeline(str(out)) == 0
    assert "← response.done" in capsys.readouterr().out

    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "replayed.yaml").write_text(
        f"name: replayed\nkind: recording\nrecording: {out}\nrules: []\n"
    )
    base = await engine_url(scenarios_dir=str(scenarios), replay_speed=0.0)
    replayed = await run_script(f"{base}/realtime?model=gpt-realtime&scenario=replayed", "sk-any", pcm)
    assert [e["type"] for e in replayed] == [e["type"] for e in live]
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{base}/realtime?model=gpt-realtime&scenario=replayed&recording=nope",
            headers={"Authorization": "Bearer sk-any"},
        ) as ws,
    ):
        error = json.loads((await ws.receive(timeout=10)).data)
        assert error["error"]["code"] == "unknown_recording" and "realtime-0001" in error["error"]["message"]
        assert (await ws.receive(timeout=10)).type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4000


async def test_chat_completions_record_and_replay_streamed_and_not(engine, aiohttp_server, tmp_path):
    upstream = await engine(api_keys=(UPSTREAM_KEY,))
    proxy = await start_recorder(aiohttp_server, upstream.http_url, tmp_path / "rec")
    asks = [
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "What is the capital of France?"}]},
        {
            "model": "gpt-4o-mini",
            "stream": True,
            "messages": [{"role": "user", "content": "Tell me a story."}],
        },
    ]
    recorded = [await chat(f"http://{proxy}", ask, CLIENT_KEY) for ask in asks]
    await written(tmp_path / "rec" / "http", "0002.json")
    out = io.StringIO()
    assert print_timeline(str(tmp_path / "rec"), out=out) == 0
    assert (
        "POST /v1/chat/completions 200  stream" in out.getvalue() and "'Tell me a story.'" in out.getvalue()
    )
    assert recorded[1][0][0].startswith("data: {") and recorded[1][0][-1] == "data: [DONE]"

    replay = await engine(replay_dir=str(tmp_path / "rec"), replay_speed=0.0, seed=99)
    asks[0]["messages"][0]["content"] = "  What is the capital\nof France? "  # normalised away
    assert [await chat(replay.http_url, ask, "sk-any") for ask in asks] == recorded

    other = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Something else entirely"}]}
    status, _ = await chat(replay.http_url, other, "sk-any", raw_status=True)
    assert status == 200  # the scripted participant answers what the recording does not hold
    strict = await engine(replay_dir=str(tmp_path / "rec"), replay_strict=True)
    status, body = await chat(strict.http_url, other, "sk-any", raw_status=True)
    assert status == 400 and json.loads(body)["error"]["code"] == "replay_divergence"
    assert not any(UPSTREAM_KEY.encode() in p.read_bytes() for p in (tmp_path / "rec").rglob("*.json"))


async def test_a_client_secret_minted_through_the_recorder_opens_a_session_and_is_not_kept(
    engine, aiohttp_server, tmp_path
):
    upstream = await engine(api_keys=(UPSTREAM_KEY,))
    proxy = await start_recorder(aiohttp_server, upstream.http_url, tmp_path / "rec")
    async with aiohttp.ClientSession() as http:
        minted = await http.post(
            f"http://{proxy}/v1/realtime/client_secrets",
            json={"session": {"type": "realtime", "model": "gpt-realtime"}},
            headers={"Authorization": f"Bearer {CLIENT_KEY}"},
        )
        secret = (await minted.json())["value"]
        assert minted.status == 200 and secret.startswith("ek_")
        async with http.ws_connect(
            f"ws://{proxy}/v1/realtime", headers={"Authorization": f"Bearer {secret}"}
        ) as ws:
            assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
    await written(tmp_path / "rec" / "realtime-0001")
    for path in (tmp_path / "rec").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes() and UPSTREAM_KEY.encode() not in path.read_bytes()


async def chat(base: str, body: dict[str, Any], key: str, raw_status: bool = False) -> Any:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{base}/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}) as r,
    ):
        text = await r.text()
        if raw_status:
            return r.status, text
        assert r.status == 200, text
        if body.get("stream"):
            return [line for line in text.split("\n\n") if line], r.headers["Content-Type"].split(";")[0]
        return json.loads(text)


async def test_no_audio_keeps_only_events(engine, aiohttp_server, tmp_path):
    upstream = await engine(audio_pace=0.0)
    proxy = await start_recorder(aiohttp_server, upstream.http_url, tmp_path / "rec", has_audio=False)
    pcm, _ = question()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"ws://{proxy}/v1/realtime?model=gpt-realtime", headers={"Authorization": "Bearer k"}
        ) as ws,
    ):
        client = ScriptedClient(ws)
        await client.until("session.created")
        await client.speak(pcm)
        await client.until("response.done")
    await upstream.wait_until_idle()
    session_dir = tmp_path / "rec" / "realtime-0001"
    await written(session_dir)
    assert not list((tmp_path / "rec").rglob("*.wav"))
    records = list(read_records(session_dir / "events.jsonl"))
    deltas = [r["event"] for r in records if r.get("event", {}).get("type") == "response.output_audio.delta"]
    assert deltas and all(d["delta"]["omitted_base64_chars"] > 0 for d in deltas)


async def sdk_turn(base_ws: str, http_base: str, key: str) -> tuple[list[str], str, list[str]]:
    """A typed Realtime turn and a streamed chat completion with the official SDK: the event types, the
    spoken transcript and the streamed words."""
    client = AsyncOpenAI(api_key=key, websocket_base_url=base_ws, base_url=f"{http_base}/v1")
    kinds, transcript = [], ""
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.conversation.item.create(
            item={
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Hello there"}],
            }
        )
        await conn.response.create()
        async for event in conn:
            kinds.append(event.type)
            if event.type == "response.output_audio_transcript.done":
                transcript = event.transcript
            if event.type == "response.done":
                break
    stream = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "What is 2 + 3?"}], stream=True
    )
    words = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    await client.close()
    return kinds, transcript, words


async def test_the_official_sdk_records_and_replays_through_mockengine(engine, aiohttp_server, tmp_path):
    upstream = await engine(api_keys=(UPSTREAM_KEY,), audio_pace=0.0)
    proxy = await start_recorder(aiohttp_server, upstream.http_url, tmp_path / "rec")
    live = await sdk_turn(f"ws://{proxy}/v1", f"http://{proxy}", CLIENT_KEY)
    await upstream.wait_until_idle()
    await written(tmp_path / "rec" / "realtime-0001")
    replay = await engine(replay_dir=str(tmp_path / "rec"), replay_speed=0.0)
    assert await sdk_turn(replay.url, replay.http_url, "sk-any") == live
    assert live[1] and "".join(live[2])
