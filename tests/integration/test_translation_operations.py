"""Translation sessions in the engine's operational features, as voice-agent sessions have them, over a
real socket with the fake engines (every transcript FAKE_TRANSCRIPT, speech a tone): the maximum
duration (``--session-max-s``), faults (``?fault=``, the server profile with a seeded ``rate``, the
control endpoint), the journal and ``mockengine journal``, ``/metrics``, and the refusals of what is not
served (``--replay``, a sideband)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import wave
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from openai import AsyncOpenAI

from mockengine.faults.spec import FaultProfile, parse_faults
from mockengine.faults.state import fault_state
from mockengine.journal import print_timeline
from mockengine.realtime.translation import FRAME_BYTES
from mockengine.server.state import JOURNAL
from tests.integration.test_translation_sessions import speech_then_silence

MODEL = "gpt-realtime-translate"
HEADERS = {"Authorization": "Bearer sk-test"}


def _client(base: str) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base)


def _url(base: str, query: str = "") -> str:
    return f"{base}/realtime/translations?model={MODEL}{query}"


async def _receive(ws: aiohttp.ClientWebSocketResponse, timeout_s: float = 10.0) -> dict[str, Any] | None:
    """The next event, or None once the socket closed."""
    msg = await ws.receive(timeout=timeout_s)
    if msg.type != aiohttp.WSMsgType.TEXT:
        return None
    return json.loads(msg.data)


async def _events_until_close(ws: aiohttp.ClientWebSocketResponse) -> list[dict[str, Any]]:
    events = []
    while (event := await _receive(ws)) is not None:
        events.append(event)
    return events


async def _append_all(ws: aiohttp.ClientWebSocketResponse, pcm: bytes) -> None:
    for start in range(0, len(pcm), FRAME_BYTES):
        audio = base64.b64encode(pcm[start : start + FRAME_BYTES]).decode()
        await ws.send_str(json.dumps({"type": "session.input_audio_buffer.append", "audio": audio}))


@contextlib.asynccontextmanager
async def _session(eng: Any, query: str = "") -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A translation session over a raw WebSocket (``query``: more of the URL's query, e.g. a fault)."""
    async with aiohttp.ClientSession() as http, http.ws_connect(_url(eng.url, query), headers=HEADERS) as ws:
        yield ws


async def _control(eng: Any, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as http, http.request(method, eng.http_url + path, json=body) as reply:
        return reply.status, await reply.json()


# -- the maximum duration --------------------------------------------------------------------------


async def test_a_translation_session_expires_as_a_voice_agent_session_does(engine) -> None:
    """At --session-max-s: the session_expired error with the voice-agent wording, then close 1001
    (before, a translation session outlived its expires_at)."""
    eng = await engine(session_max_s=1)
    async with _session(eng) as ws:
        created = await _receive(ws)
        assert created is not None and created["type"] == "session.created"
        error = await _receive(ws, timeout_s=5)
        assert error is not None and error["type"] == "error"
        assert error["error"]["code"] == "session_expired"
        assert error["error"]["message"] == "Your session hit the maximum duration of 1 second."
        closing = await ws.receive(timeout=5)
        assert (closing.type, closing.data, closing.extra) == (
            aiohttp.WSMsgType.CLOSE,
            1001,
            error["error"]["message"],
        )
    await eng.wait_until_idle()


# -- faults ------------------------------------------------------------------------------------------


async def test_the_sdk_meets_a_per_connection_fault(engine) -> None:
    """``?fault=close_after_events:2`` through openai-python's ``extra_query``: session.created, the
    session.updated, then the close the fault asked for."""
    eng = await engine()
    async with (
        _client(eng.url) as client,
        client.realtime.translations.connect(
            model=MODEL, extra_query={"fault": "close_after_events:n=2,code=4000"}
        ) as conn,
    ):
        assert (await conn.recv()).type == "session.created"
        await conn.send({"type": "session.update", "session": {"audio": {"output": {"language": "de"}}}})
        assert (await conn.recv()).type == "session.updated"
        with pytest.raises(Exception) as closed:
            async with asyncio.timeout(10):  # (on a session that ignored the fault: TimeoutError)
                await conn.recv()
        assert "4000" in str(closed.value)
    await eng.wait_until_idle()


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("response_failed:1", "does not apply to translation sessions"),
        ("rate_limits", "does not apply to translation sessions"),
        ("media_stall", "acts on WebRTC calls only"),
    ],
)
async def test_a_fault_a_translation_session_cannot_meet_is_refused(engine, fault, words) -> None:
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(_url(eng.url, f"&fault={fault}"), headers=HEADERS)
        assert refused.value.status == 400
        async with http.get(_url(eng.url, f"&fault={fault}").replace("ws://", "http://")) as reply:
            body = await reply.json()
    assert words in body["error"]["message"] and body["error"]["param"] == "fault"
    if "WebRTC" not in words:
        assert "close_after_events" in body["error"]["message"]  # it names the kinds that apply


async def test_output_deltas_count_for_the_per_delta_faults(engine) -> None:
    """error_mid_response:1 sends a server_error right after the first session.output_audio.delta and
    the session goes on; close_after_audio_delta:2 drops the connection after the second."""
    eng = await engine()
    async with _session(eng, "&fault=error_mid_response:1") as ws:
        await _append_all(ws, speech_then_silence())
        await ws.send_str(json.dumps({"type": "session.close"}))
        events = await _events_until_close(ws)
    kinds = [e["type"] for e in events]
    first = kinds.index("session.output_audio.delta")
    assert kinds[first + 1] == "error" and events[first + 1]["error"]["type"] == "server_error"
    assert kinds.count("error") == 1 and kinds[-1] == "session.closed"

    async with _session(eng, "&fault=close_after_audio_delta:2") as ws:
        await _append_all(ws, speech_then_silence())
        events = await _events_until_close(ws)
        assert ws.close_code == 1006
    kinds = [e["type"] for e in events]
    assert kinds.count("session.output_audio.delta") == 2 and kinds[-1] == "session.output_audio.delta"
    await eng.wait_until_idle()


async def test_the_session_expired_fault_takes_the_expiry_path(engine) -> None:
    eng = await engine()
    async with _session(eng, "&fault=session_expired:ms=50") as ws:
        events = await _events_until_close(ws)
        assert [e["type"] for e in events] == ["session.created", "error"]
        assert events[1]["error"]["code"] == "session_expired" and ws.close_code == 1001


async def test_the_profile_rate_hits_the_seeded_schedule_and_leaves_out_what_does_not_apply(engine) -> None:
    """A server profile with a seeded rate hits the same translation connections as ``schedule()``
    predicts; its response_failed (voice-agent only) is left out of translation sessions, which
    otherwise run."""
    spec = "close_after_events:n=1,code=4000,rate=0.5"
    eng = await engine(seed=11, fault=f"{spec};response_failed:1")
    hit = []
    async with aiohttp.ClientSession() as http:
        for _ in range(8):
            async with http.ws_connect(_url(eng.url), headers=HEADERS) as ws:
                assert (await _receive(ws))["type"] == "session.created"  # type: ignore[index]
                await ws.send_str(json.dumps({"type": "session.update", "session": {}}))
                hit.append(await _receive(ws) is None)
    profile = FaultProfile(tuple(parse_faults(spec)))
    assert hit == [bool(kinds) for kinds in fault_state(profile, 11).schedule("ws", 8)]
    assert 0 < sum(hit) < 8
    status, faults = await _control(eng, "GET", "/mockengine/faults")
    assert status == 200 and faults["injected"] == {"close_after_events": sum(hit)}


async def test_the_control_endpoint_lists_arms_and_kills_translation_sessions(engine) -> None:
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(_url(eng.url), headers=HEADERS)
        created = await _receive(ws)
        assert created is not None
        handle = ws._response.headers["X-Mockengine-Session-Handle"]
        status, listed = await _control(eng, "GET", "/mockengine/sessions")
        assert listed["live"] == [
            {
                "handle": handle,
                "session_id": created["session"]["id"],
                "transport": "websocket",
                "type": "translation",
                "journal": None,
            }
        ]
        status, refused = await _control(
            eng, "POST", "/mockengine/faults", {"fault": "response_failed", "session_id": handle}
        )
        assert status == 400 and "does not apply to translation sessions" in refused["error"]["message"]
        status, armed = await _control(
            eng,
            "POST",
            "/mockengine/faults",
            {"fault": "close_after_events:n=1,code=4001", "session_id": handle},
        )
        assert status == 200 and armed["hit"] == 1
        await ws.send_str(json.dumps({"type": "session.update", "session": {}}))
        assert (await _receive(ws))["type"] == "session.updated"  # type: ignore[index]
        assert await _receive(ws) is None and ws.close_code == 4001

        ws = await http.ws_connect(_url(eng.url), headers=HEADERS)
        await _receive(ws)
        handle = ws._response.headers["X-Mockengine-Session-Handle"]
        status, _ = await _control(eng, "POST", f"/mockengine/sessions/{handle}/kill")
        assert status == 200
        assert await _receive(ws) is None and ws.close_code == 1006
    await eng.wait_until_idle()
    status, listed = await _control(eng, "GET", "/mockengine/sessions")
    assert listed["live"] == []


async def test_a_translation_sessions_handle_is_taken_right_after_its_101(engine) -> None:
    # As a voice-agent session's: listed only once its session.created was on its way, so a kill right
    # after the connect was a 404 "No live session".
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        for _ in range(3):
            ws = await http.ws_connect(_url(eng.url), headers=HEADERS)
            handle = ws._response.headers["X-Mockengine-Session-Handle"]
            status, killed = await _control(eng, "POST", f"/mockengine/sessions/{handle}/kill")
            assert status == 200 and killed["handles"] == [handle], killed
            while await _receive(ws) is not None:
                pass
            assert ws.close_code == 1006


async def test_a_dead_peer_fault_stops_the_session_talking_and_reading(engine) -> None:
    """As on a voice-agent session: after n events nothing goes out, nothing is read, no close; the
    session ends once the client leaves."""
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(_url(eng.url, "&fault=dead_peer:1"), headers=HEADERS)
        assert (await _receive(ws))["type"] == "session.created"  # type: ignore[index]
        await ws.send_str(json.dumps({"type": "session.update", "session": {}}))
        with pytest.raises(TimeoutError):  # no session.updated, and no close either
            await ws.receive(timeout=1.0)
        assert not ws.closed
        await ws.close()
    await eng.wait_until_idle()


# -- journal, trace, metrics -------------------------------------------------------------------------


async def test_a_translation_session_is_journaled_and_mockengine_journal_reads_it(
    engine, tmp_path: Path, capsys
) -> None:
    eng = await engine(journal_dir=str(tmp_path))
    pcm = speech_then_silence()
    async with _session(eng) as ws:
        created = await _receive(ws)
        assert created is not None
        await _append_all(ws, pcm)
        await ws.send_str(json.dumps({"type": "response.create"}))
        await ws.send_str(json.dumps({"type": "session.close"}))
        events = [created, *await _events_until_close(ws)]
    await eng.wait_until_idle()
    eng.app[JOURNAL].drain()
    directory = tmp_path / created["session"]["id"]
    records = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    assert records[0]["from"] == "engine" and records[0]["kind"] == "session_type"
    assert records[0]["data"] == {"type": "translation", "transport": "websocket", "model": MODEL}
    server = [r["event"] for r in records if r["from"] == "server"]
    assert [e["type"] for e in server] == [e["type"] for e in events]
    client = [r["event"]["type"] for r in records if r["from"] == "client"]
    assert client.count("session.input_audio_buffer.append") == -(-len(pcm) // FRAME_BYTES)
    assert client[-2:] == ["response.create", "session.close"]
    with wave.open(str(directory / "input_audio.wav")) as wav:
        assert wav.readframes(wav.getnframes()) == pcm
    sent = b"".join(base64.b64decode(e["delta"]) for e in events if e["type"] == "session.output_audio.delta")
    assert sent
    with wave.open(str(directory / "output_audio.wav")) as wav:
        assert wav.readframes(wav.getnframes()) == sent
    refs = [e["delta"] for e in server if e["type"] == "session.output_audio.delta"]
    assert all(ref["wav"] == "output_audio.wav" for ref in refs)

    out = io.StringIO()
    assert print_timeline(str(tmp_path), out=out) == 0
    timeline = out.getvalue()
    assert "session_type" in timeline and "'type': 'translation'" in timeline.replace('"', "'")
    assert "session.input_audio_buffer.append" in timeline and "ms audio" in timeline


async def test_translation_events_are_counted_in_metrics(engine) -> None:
    def count(text: str, family: str, kind: str) -> float:
        prefix = f'{family}_total{{type="{kind}"}} '
        return sum(float(line[len(prefix) :]) for line in text.splitlines() if line.startswith(prefix))

    eng = await engine()
    async with aiohttp.ClientSession() as http:
        async with http.get(eng.http_url + "/metrics") as reply:
            before = await reply.text()
        async with http.ws_connect(_url(eng.url), headers=HEADERS) as ws:
            await _receive(ws)
            await ws.send_str(json.dumps({"type": "session.close"}))
            await _events_until_close(ws)
        await eng.wait_until_idle()
        async with http.get(eng.http_url + "/metrics") as reply:
            after = await reply.text()
    for family, kind in (
        ("mockengine_server_events", "session.created"),
        ("mockengine_server_events", "session.closed"),
        ("mockengine_client_events", "session.close"),
    ):
        assert count(after, family, kind) == count(before, family, kind) + 1, (family, kind)


# -- what is not served ------------------------------------------------------------------------------


async def test_a_sideband_on_the_translation_url_is_refused(engine) -> None:
    eng = await engine()
    async with _session(eng, "&call_id=rtc_abc") as ws:
        events = await _events_until_close(ws)
        assert [e["error"]["code"] for e in events] == ["sideband_not_supported"]
        assert ws.close_code == 4000


async def test_replay_refuses_translation_sessions_by_name(engine, tmp_path: Path) -> None:
    """--replay serves voice-agent sessions from a recording; a translation session or call is refused
    by name (before, it was served live as if no recording were loaded)."""
    (tmp_path / "recording.json").write_text(json.dumps({"format": "mockengine-recording", "version": 1}))
    eng = await engine(replay_dir=str(tmp_path))
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(_url(eng.url), headers=HEADERS) as ws:
            events = await _events_until_close(ws)
            assert [e["error"]["code"] for e in events] == ["replay_not_supported"]
            assert "--replay" in events[0]["error"]["message"] and ws.close_code == 4000
        async with http.post(
            eng.http_url + "/v1/realtime/translations/calls",
            data="v=0\r\n",
            headers={**HEADERS, "Content-Type": "application/sdp"},
        ) as reply:
            assert reply.status == 400
            assert (await reply.json())["error"]["code"] == "replay_not_supported"


# -- translation calls (WebRTC) ----------------------------------------------------------------------

CALLS_PATH = "/v1/realtime/translations/calls"


async def _call(eng: Any, query: str = "", *, greeted: bool = True) -> Any:
    """A connected call; ``greeted``: after its ``session.created`` arrived."""
    from tests.webrtc_client import CallClient

    client = CallClient()
    await client.connect(eng.http_url, path=CALLS_PATH, query=query)
    if greeted:
        await client.wait_for("session.created")
    return client


async def test_a_translation_call_hangs_up_by_url_and_is_listed_meanwhile(engine) -> None:
    """``POST /v1/realtime/translations/calls/{call_id}/hangup`` (the voice-agent call's path under the
    translation one: no SDK has a method for it) → 200, then 404; 401 without a key. While it lasts the
    call is in ``GET /mockengine/sessions`` under the handle its 201 named."""
    eng = await engine()
    client = await _call(eng)
    try:
        assert client.location == f"{CALLS_PATH}/{client.call_id}"
        status, listed = await _control(eng, "GET", "/mockengine/sessions")
        assert [(s["handle"], s["transport"], s["type"]) for s in listed["live"]] == [
            (client.handle, "webrtc", "translation")
        ]
        async with aiohttp.ClientSession() as http:
            url = f"{eng.http_url}{client.location}/hangup"
            assert (await http.post(url)).status == 401
            assert (await http.post(url, headers=HEADERS)).status == 200
            await eng.wait_until_idle()
            gone = await http.post(url, headers=HEADERS)
            assert gone.status == 404 and (await gone.json())["error"]["param"] == "call_id"
        status, listed = await _control(eng, "GET", "/mockengine/sessions")
        assert listed["live"] == []
    finally:
        await client.close()


async def test_a_sideband_for_a_translation_call_is_refused_by_name(engine) -> None:
    eng = await engine()
    client = await _call(eng)
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{eng.url}/realtime?call_id={client.call_id}", headers=HEADERS) as ws,
        ):
            events = await _events_until_close(ws)
            assert [e["error"]["code"] for e in events] == ["sideband_not_supported"]
            assert ws.close_code == 4000
    finally:
        await client.close()


async def test_translation_call_faults(engine) -> None:
    """refuse_call answers the POST; server_hangup ends the call; a kind a translation call cannot meet
    (response_failed) is a 400 naming the fault."""
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        for fault, status in (("refuse_call:502", 502), ("response_failed:1", 400)):
            async with http.post(
                f"{eng.http_url}{CALLS_PATH}?fault={fault}",
                data="v=0\r\n",
                headers={**HEADERS, "Content-Type": "application/sdp"},
            ) as reply:
                assert reply.status == status, await reply.text()
                if status == 400:
                    assert (
                        "does not apply to translation sessions" in (await reply.json())["error"]["message"]
                    )
    # Not waiting for session.created: a loaded machine can open the channel later than the hang-up's 100 ms
    # (the hang-up is what is checked, and it is counted either way).
    client = await _call(eng, "?fault=server_hangup:ms=100", greeted=False)
    try:
        await eng.wait_until_idle()
        status, faults = await _control(eng, "GET", "/mockengine/faults")
        assert faults["injected"] == {"refuse_call": 1, "server_hangup": 1}
    finally:
        await client.close()


async def test_datachannel_close_counts_the_translation_output(engine) -> None:
    """datachannel_close:1 closes oai-events right after the session's first output audio delta (which
    goes to the track, not the channel)."""
    from tests.eventually import eventually

    eng = await engine()
    client = await _call(eng, "?fault=datachannel_close:1")
    try:
        client.mic.say(speech_then_silence())
        await eventually(lambda: client.channel.readyState == "closed", timeout_s=30)
        assert "session.closed" not in client.kinds()
    finally:
        await client.close()


async def test_a_translation_call_is_journaled_and_expires(engine, tmp_path: Path) -> None:
    """A call's microphone is journaled as the appends it stands for (input_audio.wav), its speech into
    output_audio.wav (though it went to the track), under a session_type record naming webrtc; at
    --session-max-s the channel gets session_expired and the call ends."""
    eng = await engine(journal_dir=str(tmp_path), session_max_s=6)
    client = await _call(eng)
    try:
        client.mic.say(speech_then_silence())
        await client.wait_for("session.output_transcript.delta")
        error = await client.wait_for("error", timeout_s=10)
        assert error["error"]["code"] == "session_expired"
        assert error["error"]["message"] == "Your session hit the maximum duration of 6 seconds."
        await eng.wait_until_idle()
    finally:
        await client.close()
    eng.app[JOURNAL].drain()
    (directory,) = tmp_path.iterdir()
    records = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    assert records[0]["data"] == {"type": "translation", "transport": "webrtc", "model": MODEL}
    assert any(
        r["from"] == "client" and r["event"]["type"] == "session.input_audio_buffer.append" for r in records
    )
    assert [r["event"]["type"] for r in records if r["from"] == "server"][-1] == "error"
    for name in ("input_audio.wav", "output_audio.wav"):
        with wave.open(str(directory / name)) as wav:
            assert wav.getnframes() > 0, name


async def test_a_translation_call_whose_close_never_ends_is_still_freed(engine, monkeypatch) -> None:
    """A translation call whose peer connection never finishes closing (aiortc's close waits on each
    transport in turn, unbounded) is freed after the engine's close wait all the same: listed no more,
    its seat given back. Its end awaited the close, so such a call stayed listed for the engine's life."""
    from mockengine.server.webrtc import translation_call
    from tests.eventually import eventually

    monkeypatch.setattr(translation_call, "PC_CLOSE_WAIT_S", 0.5)
    eng = await engine()
    client = await _call(eng)
    released = asyncio.Event()
    try:
        sctp = eng.app[translation_call.TRANSLATION_CALLS][client.call_id].pc.sctp
        stop = sctp.stop

        async def stop_when_released() -> None:
            await released.wait()
            await stop()

        sctp.stop = stop_when_released
        async with aiohttp.ClientSession() as http:
            assert (await http.post(f"{eng.http_url}{client.location}/hangup", headers=HEADERS)).status == 200
        await eventually(lambda: not eng.app[translation_call.TRANSLATION_CALLS], timeout_s=5)
        await eventually(lambda: eng.sessions_active() == 0, timeout_s=5)
    finally:
        released.set()  # the close goes on by itself and ends
        await client.close()
