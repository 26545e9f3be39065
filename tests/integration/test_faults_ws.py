"""WebSocket faults against a real engine: the voice-client spec's acceptance criteria (§3.2) reproduced
offline with a small client, and each WebSocket fault kind as a client sees it."""

from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
import pytest
import websockets.exceptions
from openai import AsyncOpenAI

from mockengine.faults.spec import FaultProfile, parse_faults
from mockengine.faults.state import fault_state
from mockengine.server.app import create_app
from tests.speech import validate_server_event
from tests.voice_client import VoiceClient

SPEC_DEGRADED_WITHIN_S = 6.0  # voice-client spec §3.2 (a)
PROMPT = "Tell me a long story about a lighthouse keeper and the sea."


def http_base(ws_base: str) -> str:
    return ws_base.replace("ws://", "http://").removesuffix("/v1")


async def control(ws_base: str, method: str, path: str, body: dict | None = None) -> dict:
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, http_base(ws_base) + path, json=body) as reply,
    ):
        assert reply.status == 200, await reply.text()
        return await reply.json()


async def injected(ws_base: str) -> dict[str, int]:
    async with aiohttp.ClientSession() as http, http.get(http_base(ws_base) + "/healthz") as reply:
        return (await reply.json())["faults_injected"]


async def open_session(http: aiohttp.ClientSession, ws_base: str, query: str = "", headers=None):
    ws = await http.ws_connect(
        f"{ws_base}/realtime?model=gpt-realtime{query}",
        headers={"Authorization": "Bearer sk-x", **(headers or {})},
    )
    created = json.loads((await ws.receive(timeout=10)).data)
    assert created["type"] == "session.created"
    return ws, created["session"]["id"]


async def ask(ws, text: str = PROMPT, modalities=("audio",)) -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
    await ws.send_str(
        json.dumps({"type": "response.create", "response": {"output_modalities": list(modalities)}})
    )


async def events_until_close(
    ws, stop_at: str | None = "response.done"
) -> tuple[list[dict], aiohttp.WSMessage]:
    events = []
    while True:
        msg = await ws.receive(timeout=30)
        if msg.type != aiohttp.WSMsgType.TEXT:
            return events, msg
        events.append(json.loads(msg.data))
        if stop_at is not None and events[-1]["type"] == stop_at:
            return events, msg


# -- the voice-client spec's acceptance criteria ----------------------------------------------------


async def test_token_endpoint_failing_runs_the_clients_error_path(engine_url):
    """§3.2 (a): the token endpoint 500s → the client leaves MINTING for DEGRADED, loudly, at once."""
    base = await engine_url()
    client = VoiceClient(base, mint_headers={"X-Mockengine-Fault": "http_status:500"})
    # The spec's bound (degraded within 6 s) as a deadline: what it guards against is a hang, not speed
    # (the client takes ~0.1 s here).
    async with asyncio.timeout(SPEC_DEGRADED_WITHIN_S):
        assert not await client.start()
    assert client.states == ["MINTING", "DEGRADED"]
    assert client.reason == "mint failed: InternalServerError"
    # A token endpoint that hangs: the client's own mint timeout (5 s in the spec) fires instead. 2 s, not
    # 0.3 s: the hang is counted only once the engine has read the request, which a loaded machine (the
    # engine shares the test's loop) may not do within 0.3 s; the hang outlasts it (it ends when we leave).
    client = VoiceClient(base, mint_timeout_s=2.0, mint_headers={"X-Mockengine-Fault": "http_hang:ms=60000"})
    assert not await client.start()
    assert client.states == ["MINTING", "DEGRADED"] and client.reason == "mint failed: APITimeoutError"
    counts = await injected(base)
    assert counts["http_status"] == 1 and counts["http_hang"] == 1


async def test_hanging_handshake_fires_the_clients_timeout(engine_url):
    """§3.1 CONNECTING: no session.created (or no session.updated) → the hard timeout fires → DEGRADED."""
    base = await engine_url()
    for fault in ("withhold_session_created", "withhold_session_updated", "delay_session_created:ms=3000"):
        client = VoiceClient(base, connect_timeout_s=0.5, connect_query=f"?fault={fault}")
        try:
            assert not await client.start()
        finally:
            await client.close()
        assert client.states == ["MINTING", "CONNECTING", "DEGRADED"], fault
        assert client.reason == "connect timed out"
    # The same client with no fault gets LIVE (the error path above was the fault's doing).
    client = VoiceClient(base, connect_timeout_s=5.0)
    try:
        assert await client.start()
    finally:
        await client.close()
    assert client.states == ["MINTING", "CONNECTING", "LIVE"]


async def test_socket_killed_mid_response_then_a_fresh_session_works(engine_url):
    """§3.2 (b): the network dies after the 3rd audio delta → the client sees the close right there
    (no close frame: 1006) → RECONNECTING → a fresh session is LIVE and answers."""
    base = await engine_url()
    await control(
        base, "POST", "/mockengine/faults", {"fault": "close_after_audio_delta:3", "connections": 1}
    )
    client = VoiceClient(base)
    try:
        assert await client.start()
        cut = await client.say(PROMPT)
        assert [e["type"] for e in cut].count("response.output_audio.delta") == 3
        assert not any(e["type"] == "response.done" for e in cut)
        assert client.states == [
            "MINTING",
            "CONNECTING",
            "LIVE",
            "RECONNECTING",
            "MINTING",
            "CONNECTING",
            "LIVE",
        ]
        assert client.reason == "socket closed (code 1006)"
        answered = await client.say("Hello there.")
        assert answered[-1]["type"] == "response.done"
        assert answered[-1]["response"]["status"] == "completed"
    finally:
        await client.close()
    assert (await injected(base))["close_after_audio_delta"] == 1


async def test_kill_now_through_the_control_endpoint(engine_url):
    """A person or test "kills the network now" during a live session: the client sees 1006."""
    base = await engine_url()
    async with aiohttp.ClientSession() as http:
        ws, session_id = await open_session(http, base)
        listed = await control(base, "GET", "/mockengine/sessions")
        assert session_id in listed["sessions"]
        await ask(ws)
        while json.loads((await ws.receive(timeout=30)).data)["type"] != "response.output_audio.delta":
            pass
        killed = await control(base, "POST", f"/mockengine/sessions/{session_id}/kill")
        assert killed["killed"] == session_id and killed["sessions"] == 1
        _, closing = await events_until_close(ws, stop_at=None)
        assert closing.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR, aiohttp.WSMsgType.CLOSE)
        assert ws.close_code == 1006
    assert (await injected(base))["kill"] == 1


# -- each WebSocket fault kind -----------------------------------------------------------------------


async def test_refused_upgrade_is_an_http_status(engine_url):
    base = await engine_url()
    async with AsyncOpenAI(api_key="sk-x", websocket_base_url=base) as client:
        with pytest.raises(websockets.exceptions.InvalidStatus, match="HTTP 503"):
            async with client.realtime.connect(
                model="gpt-realtime", extra_query={"fault": "refuse_upgrade:503"}
            ):
                pass
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
            await http.ws_connect(f"{base}/realtime?model=gpt-realtime&fault=refuse_upgrade:503")
        assert caught.value.status == 503
        with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
            await http.ws_connect(f"{base}/realtime?model=gpt-realtime&fault=nonsense")
        assert caught.value.status == 400


async def test_close_after_events_and_after_ms(engine_url):
    base = await engine_url()
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(
            f"{base}/realtime?model=gpt-realtime&fault=close_after_events:n=1,code=4000",
            headers={"Authorization": "Bearer sk-x"},
        )
        events, closing = await events_until_close(ws, stop_at=None)
        assert [e["type"] for e in events] == ["session.created"]
        assert closing.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4000
        ws, _ = await open_session(http, base, headers={"X-Mockengine-Fault": "close_after_ms:ms=200"})
        _, closing = await events_until_close(ws, stop_at=None)
        assert ws.close_code == 1011


@pytest.mark.parametrize(
    "fault",
    ["close_after_events:n=1", "close_after_ms:ms=100,code=4001", "close_after_audio_delta:k=1,code=1011"],
)
async def test_a_fault_close_names_the_fault_in_its_reason(engine_url, fault):
    """Every closing fault said "mockengine fault": which one, a client's log did not tell, and a client
    parsing the live service's `<error.type>.<error.code>` reasons read nothing. Now
    `mockengine_fault.KIND`."""
    base = await engine_url()
    kind = fault.split(":")[0]
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base, headers={"X-Mockengine-Fault": fault})
        if kind == "close_after_audio_delta":
            await ask(ws)
        _, closing = await events_until_close(ws, stop_at=None)
    assert closing.type == aiohttp.WSMsgType.CLOSE
    assert (closing.data, closing.extra) == (
        int(fault.rsplit("code=", 1)[1]) if "code=" in fault else 1011,
        f"mockengine_fault.{kind}",
    )


async def test_a_close_code_no_frame_may_carry_is_refused_and_a_private_one_reaches_the_sdk(engine_url):
    """``close_after_events:code=1005`` was taken; the engine sent 1005 and the client (``websockets``, as
    the openai SDK connects) failed the connection with a protocol error (1002), never seeing 1005."""
    base = await engine_url()
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            http_base(base) + "/v1/realtime?model=gpt-realtime&fault=close_after_events:code=1005"
        ) as reply,
    ):
        assert reply.status == 400
        assert "cannot be sent in a close frame" in (await reply.json())["error"]["message"]
    url = f"{base}/realtime?model=gpt-realtime&fault=close_after_events:code=4001"
    async with websockets.connect(url, additional_headers={"Authorization": "Bearer sk-x"}) as ws:
        with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
            while True:
                await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001


async def test_error_mid_response_and_response_failed(engine_url):
    base = await engine_url(audio_pace=0.0)
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base, "&fault=error_mid_response:2")
        await ask(ws)
        events, _ = await events_until_close(ws)
        kinds = [e["type"] for e in events]
        at = kinds.index("error")
        assert kinds[:at].count("response.output_audio.delta") == 2
        assert events[at]["error"]["type"] == "server_error"
        assert events[-1]["response"]["status"] == "completed"  # the response went on

        ws, _ = await open_session(http, base, "&fault=response_failed:k=2")
        await ask(ws)
        events, _ = await events_until_close(ws)
        for event in events:
            validate_server_event(event)
        assert [e["type"] for e in events].count("response.output_audio.delta") == 2
        done = events[-1]["response"]
        assert done["status"] == "failed"
        assert done["status_details"]["error"]["type"] == "server_error"
        # The session goes on: the next response completes.
        await ask(ws, "Hello.")
        events, _ = await events_until_close(ws)
        assert events[-1]["response"]["status"] == "failed"  # the fault is per session: every response
    assert (await injected(base))["response_failed"] == 2


async def test_early_session_expired(engine_url):
    base = await engine_url()
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base, "&fault=session_expired:ms=100")
        events, closing = await events_until_close(ws, stop_at=None)
        assert events[-1]["type"] == "error" and events[-1]["error"]["code"] == "session_expired"
        assert ws.close_code == 1001


async def test_rate_limits_count_down_to_refusal(engine_url):
    base = await engine_url(audio_pace=0.0)
    remaining = []
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base, "&fault=rate_limits:responses=2,limit=1000")
        statuses = []
        for _ in range(3):
            await ask(ws, "Hi.", modalities=("text",))
            events, _ = await events_until_close(ws, stop_at="rate_limits.updated")
            for event in events:
                validate_server_event(event)
            done = next(e for e in events if e["type"] == "response.done")["response"]
            statuses.append(done["status"])
            remaining.append(events[-1]["rate_limits"][0]["remaining"])
        assert statuses == ["completed", "completed", "failed"]
        assert remaining == [500, 0, 0]
        assert done["status_details"]["error"]["code"] == "rate_limit_exceeded" and done["output"] == []


async def test_dead_peer_sends_and_reads_nothing(engine_url):
    base = await engine_url()
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base, "&fault=dead_peer:after_events=1")
        await ask(ws)
        with pytest.raises(TimeoutError):  # no events, and no close either
            await ws.receive(timeout=1.0)
        assert not ws.closed
        await ws.close()


async def test_arm_a_fault_for_a_live_session(engine_url, caplog):
    base = await engine_url(audio_pace=0.0)
    caplog.set_level(logging.WARNING, logger="mockengine.faults")
    async with aiohttp.ClientSession() as http:
        ws, session_id = await open_session(http, base)
        armed = await control(
            base,
            "POST",
            "/mockengine/faults",
            {"fault": "close_after_audio_delta:k=2,code=4001", "session_id": session_id},
        )
        assert armed["armed"] == ["close_after_audio_delta:k=2,code=4001"]
        await ask(ws)
        events, _ = await events_until_close(ws, stop_at=None)
        assert [e["type"] for e in events].count("response.output_audio.delta") == 2
        assert ws.close_code == 4001
    assert any(
        "kind=close_after_audio_delta" in r.getMessage() and session_id in r.getMessage()
        for r in caplog.records
    )


async def test_seeded_rate_drops_the_same_sessions_every_run(engine_url):
    """rate=0.5 over 8 sessions: which ones are hit depends on the seed only (and matches schedule())."""

    async def run(seed: int) -> list[bool]:
        base = await engine_url(seed=seed, fault="close_after_events:n=1,code=4000,rate=0.5")
        hit = []
        async with aiohttp.ClientSession() as http:
            for _ in range(8):
                ws, _ = await open_session(http, base)
                await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
                msg = await ws.receive(timeout=10)
                hit.append(msg.type != aiohttp.WSMsgType.TEXT)
                await ws.close()
        status = await control(base, "GET", "/mockengine/faults")
        assert status["seed"] == seed
        return hit

    first, again, other = await run(11), await run(11), await run(12)
    assert first == again and first != other
    assert 0 < sum(first) < 8
    # ... and it is what `mockengine faults schedule` predicts.
    profile = FaultProfile(tuple(parse_faults("close_after_events:n=1,code=4000,rate=0.5")))
    assert first == [bool(kinds) for kinds in fault_state(profile, 11).schedule("ws", 8)]


async def test_seeded_sessions_share_an_id_and_the_control_endpoint_says_so(engine_url):
    base = await engine_url(seed=4)
    async with aiohttp.ClientSession() as http:
        first, session_id = await open_session(http, base)
        second, same_id = await open_session(http, base)
        assert same_id == session_id  # the same seed gives the same ids
        listed = await control(base, "GET", "/mockengine/sessions")
        assert listed["sessions"] == [session_id]
        killed = await control(base, "POST", f"/mockengine/sessions/{session_id}/kill")
        assert killed["killed"] == session_id and killed["sessions"] == 2  # the id names both
        for ws in (first, second):
            await events_until_close(ws, stop_at=None)
            assert ws.close_code == 1006
    assert (await injected(base))["kill"] == 2


async def test_the_sessions_list_is_a_long_poll_with_changed_from(engine_url):
    """A watcher of the sessions list (the console) learned of another client's session ending only when
    it next asked, every 5 s. ``?changed_from=N``, an earlier answer's ``changes``, answers as soon as a
    session is listed or unlisted after it; a bad N is a 400 naming the parameter."""
    base = await engine_url()
    async with aiohttp.ClientSession() as http:
        before = await control(base, "GET", "/mockengine/sessions")
        assert before["live"] == [] and before["changes"] == 0
        waiting = asyncio.create_task(control(base, "GET", "/mockengine/sessions?changed_from=0"))
        await asyncio.sleep(0.3)
        assert not waiting.done()  # nothing changed: it waits
        ws, session_id = await open_session(http, base)
        started = await asyncio.wait_for(waiting, 5)
        assert started["sessions"] == [session_id] and started["changes"] == 1
        # Asked with an old count, it answers at once.
        again = await asyncio.wait_for(control(base, "GET", "/mockengine/sessions?changed_from=0"), 5)
        assert again["changes"] == 1
        waiting = asyncio.create_task(control(base, "GET", "/mockengine/sessions?changed_from=1"))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        await ws.close()
        ended = await asyncio.wait_for(waiting, 5)
        assert ended == {"sessions": [], "live": [], "changes": 2}
        for bad in ("x", "-1", "1.5", ""):
            async with http.get(http_base(base) + f"/mockengine/sessions?changed_from={bad}") as reply:
                assert reply.status == 400
                error = (await reply.json())["error"]
                assert error["param"] == "changed_from" and "non-negative integer" in error["message"]


async def test_a_waiting_sessions_poll_answers_when_the_engine_shuts_down(aiohttp_server, resources):
    """A long poll in flight at shutdown answers at once: the server waits for requests in flight, and a
    console left open would hold a Ctrl-C up to the poll's 25 s."""
    server = await aiohttp_server(create_app(resources.settings, resources))
    async with aiohttp.ClientSession() as http:
        waiting = asyncio.create_task(
            http.get(f"http://127.0.0.1:{server.port}/mockengine/sessions?changed_from=0")
        )
        await asyncio.sleep(0.3)
        assert not waiting.done()
        loop = asyncio.get_running_loop()
        started = loop.time()
        await server.close()
        assert loop.time() - started < 5
        reply = await asyncio.wait_for(waiting, 5)
        assert reply.status == 200 and (await reply.json())["changes"] == 0


async def test_each_live_session_has_a_handle_that_names_it_alone(engine_url):
    # Two sessions of a seeded engine share their id (on the wire, unchanged): /mockengine/sessions listed
    # the id once and kill and faults acted on both. Each now has a handle, named in the 101's
    # X-Mockengine-Session-Handle and in the listing, that the control endpoints take for it alone.
    base = await engine_url(seed=4)
    async with aiohttp.ClientSession() as http:
        first, session_id = await open_session(http, base)
        second, same_id = await open_session(http, base)
        assert same_id == session_id
        handles = [ws._response.headers["X-Mockengine-Session-Handle"] for ws in (first, second)]
        assert handles[0] != handles[1] and all(h.startswith(f"{session_id}~") for h in handles)
        listed = await control(base, "GET", "/mockengine/sessions")
        assert listed == {
            "sessions": [session_id],
            "live": [
                {
                    "handle": handle,
                    "session_id": session_id,
                    "transport": "websocket",
                    "type": "realtime",
                    "journal": None,
                }
                for handle in handles
            ],
            "changes": 2,  # two sessions listed
        }
        armed = await control(
            base,
            "POST",
            "/mockengine/faults",
            {"fault": "close_after_events:n=1,code=4001", "session_id": handles[1]},
        )
        assert armed["sessions"] == 1 and armed["handles"] == [handles[1]]
        killed = await control(base, "POST", f"/mockengine/sessions/{handles[0]}/kill")
        assert killed == {"killed": handles[0], "sessions": 1, "handles": [handles[0]]}
        await events_until_close(first, stop_at=None)
        assert first.close_code == 1006
        # The second one was not killed: it takes its own fault at its next event.
        await second.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
        await events_until_close(second, stop_at=None)
        assert second.close_code == 4001
        listed = await control(base, "GET", "/mockengine/sessions")
        assert listed == {"sessions": [], "live": [], "changes": 4}  # and both unlisted
        async with http.post(http_base(base) + f"/mockengine/sessions/{handles[0]}/kill") as gone:
            assert gone.status == 404
    assert (await injected(base))["kill"] == 1


async def test_the_handle_in_the_101_is_taken_at_once(engine_url):
    # The 101 names the session's handle, but the session was listed for the control endpoints only once
    # its session.created was on its way: a test that armed a fault or listed sessions right after its
    # connect got 404 "No live session" (9 of 10 connects from another process) or an empty listing.
    # Now a control request for a session still opening waits for it.
    base = await engine_url()
    async with aiohttp.ClientSession(headers={"Authorization": "Bearer sk-x"}) as http:
        for _ in range(5):
            ws = await http.ws_connect(f"{base}/realtime?model=gpt-realtime")
            handle = ws._response.headers["X-Mockengine-Session-Handle"]
            listed = await control(base, "GET", "/mockengine/sessions")
            assert handle in [live["handle"] for live in listed["live"]]
            other = await http.ws_connect(f"{base}/realtime?model=gpt-realtime")
            armed = await control(
                base,
                "POST",
                "/mockengine/faults",
                {"fault": "close_after_events:n=1,code=4001", "session_id": handle},
            )
            assert armed["handles"] == [handle]
            late = other._response.headers["X-Mockengine-Session-Handle"]
            killed = await control(base, "POST", f"/mockengine/sessions/{late}/kill")
            assert killed["handles"] == [late]
            await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
            for socket in (ws, other):
                await events_until_close(socket, stop_at=None)
            assert ws.close_code == 4001 and other.close_code == 1006


async def test_rate_is_honoured_per_connection_per_request_and_when_armed(engine_url):
    """Issue 15: `rate` given with ?fault=, X-Mockengine-Fault or the control endpoint hits that share of
    connections / requests (seeded), not every one."""
    fault = "close_after_events:n=1,code=4000"

    async def closed_sessions(base: str, query: str = "") -> list[bool]:
        hit = []
        async with aiohttp.ClientSession() as http:
            for _ in range(8):
                ws, _ = await open_session(http, base, query)
                await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
                hit.append((await ws.receive(timeout=10)).type != aiohttp.WSMsgType.TEXT)
                await ws.close()
        return hit

    async def run(seed: int) -> tuple[list[bool], list[bool]]:
        base = await engine_url(seed=seed)
        per_connection = await closed_sessions(base, f"&fault={fault},rate=0.5")
        await control(base, "POST", "/mockengine/faults", {"fault": f"{fault},rate=0.5", "connections": 8})
        return per_connection, await closed_sessions(base)

    first, again, other = await run(11), await run(11), await run(12)
    assert first == again and first != other
    assert all(0 < sum(hits) < 8 for hits in first)
    assert not any(await closed_sessions(await engine_url(seed=1), f"&fault={fault},rate=0"))
    async with aiohttp.ClientSession() as http:
        base = http_base(await engine_url(seed=1))
        never = {"X-Mockengine-Fault": "http_quota:rate=0", "Authorization": "Bearer sk-x"}
        always = {**never, "X-Mockengine-Fault": "http_quota:rate=1"}
        for headers, status in ((never, 200), (always, 429)):
            async with http.get(base + "/v1/models", headers=headers) as reply:
                assert reply.status == status


@pytest.mark.parametrize("how", ["query", "header"])
async def test_a_call_fault_asked_of_a_websocket_session_is_refused(engine_url, how):
    """media_stall, datachannel_close … act on WebRTC calls only: asked of a WebSocket session they were
    taken and did nothing (the session looked healthy); refused as a translation WebSocket refuses them."""
    base = await engine_url(audio_pace=0.0)
    query, headers = (
        ("&fault=media_stall", None) if how == "query" else ("", {"X-Mockengine-Fault": "media_stall"})
    )
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_session(http, base, query, headers)
        assert refused.value.status == 400
        async with http.get(
            http_base(base) + f"/v1/realtime?model=gpt-realtime{query}", headers=headers
        ) as reply:
            error = (await reply.json())["error"]
        assert error["param"] == "fault" and "acts on WebRTC calls only" in error["message"]
        ws, _ = await open_session(http, base, "&fault=close_after_audio_delta:1")  # one that acts: taken
        await ws.close()


@pytest.mark.parametrize("fault", ["delay_session_created", "close_after_ms", "slow_drip", "session_expired"])
async def test_a_session_fault_past_its_parameters_bound_is_refused_before_the_upgrade(engine_url, fault):
    """``?fault=close_after_ms:<400 nines>`` was taken; the upgrade then failed with a 500 (OverflowError
    in ``ms / 1000.0``), or the session's writer failed and the socket broke (``slow_drip``)."""
    base = await engine_url(audio_pace=0.0)
    async with aiohttp.ClientSession() as http:
        async with http.get(
            http_base(base) + f"/v1/realtime?model=gpt-realtime&fault={fault}:{'9' * 400}"
        ) as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
        assert error["param"] == "fault" and "greater than the maximum" in error["message"]
        async with http.post(
            http_base(base) + "/mockengine/faults", json={"fault": f"{fault}:{'9' * 400}"}
        ) as reply:
            assert reply.status == 400
        ws, _ = await open_session(http, base)  # nothing was armed
        await ws.close()


async def test_a_call_fault_armed_on_a_live_websocket_session_is_refused(engine_url):
    base = await engine_url(audio_pace=0.0)
    async with aiohttp.ClientSession() as http:
        ws, session_id = await open_session(http, base)
        async with http.post(
            http_base(base) + "/mockengine/faults",
            json={"fault": "datachannel_close:1", "session_id": session_id},
        ) as reply:
            assert reply.status == 400
            assert "acts on WebRTC calls only" in (await reply.json())["error"]["message"]
        await ask(ws, "What is the capital of France?")
        events, _ = await events_until_close(ws)
        assert events[-1]["response"]["status"] == "completed"
        await ws.close()


async def test_a_profile_call_fault_leaves_websocket_sessions_alone_and_says_so(engine_url, caplog):
    base = await engine_url(audio_pace=0.0, fault="server_hangup:ms=100")
    caplog.set_level(logging.WARNING, logger="mockengine.faults")
    async with aiohttp.ClientSession() as http:
        ws, _ = await open_session(http, base)
        await ask(ws, "What is the capital of France?")
        events, _ = await events_until_close(ws)
        assert events[-1]["response"]["status"] == "completed"
        await ws.close()
    assert any(
        "fault not injected" in r.getMessage() and "server_hangup" in r.getMessage() for r in caplog.records
    )
