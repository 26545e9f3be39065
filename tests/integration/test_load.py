"""The bench driver against a real engine on loopback, admission control, /metrics, serve --workers."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from mockengine.loadtest import capacity
from mockengine.loadtest.baseline import create_app as create_baseline_app
from mockengine.loadtest.capacity import ClimbTarget, climb_together
from mockengine.loadtest.driver import run_load
from mockengine.loadtest.participant import TURN_TIMEOUT_S
from mockengine.loadtest.profile import LoadProfile
from tests.eventually import eventually
from tests.integration.conftest import serving_workers_process

pytestmark = pytest.mark.models
AUTH = {"Authorization": "Bearer sk-test"}


async def test_driver_measures_real_turns_end_to_end(engine_url):
    url = (await engine_url(first_delta_delay_ms=0)) + "/realtime?model=gpt-realtime"
    # 12 s: room for each session's first turn (due 0.6-3 s after it connects) and its reply even when a
    # loaded machine connects and answers slowly; a next turn starts only once the reply is heard.
    report = await run_load(
        url, LoadProfile("steady", 2, 12.0), turn_every_s=3.0, barge_in=0.0, progress=False
    )
    summary = report.summary()
    assert summary["sessions_connected"] == 2
    assert summary["sessions_dropped"] == 0 and summary["sessions_refused"] == 0
    assert summary["turns"] >= 2 and summary["turns_missed"] == 0
    assert summary["lost_events"] == 0 and summary["errors"] == {}
    assert summary["onset_to_speech_started_ms"]["count"] == summary["turns"]
    assert summary["speech_stopped_to_first_audio_ms"]["count"] == summary["turns"]
    assert summary["event_gap_ms"]["count"] > 0
    # in ms, within the turn's window (a bound on units, not on speed: a slow machine is allowed)
    assert 0 < summary["onset_to_speech_started_ms"]["p50"] < TURN_TIMEOUT_S * 1000


async def test_driver_against_the_bare_baseline(aiohttp_server):
    server = await aiohttp_server(create_baseline_app())
    url = f"ws://127.0.0.1:{server.port}/v1/realtime"
    report = await run_load(url, LoadProfile("steady", 2, 2.5), mode="baseline", progress=False)
    summary = report.summary()
    assert summary["sessions_connected"] == 2 and summary["sessions_dropped"] == 0
    assert summary["ack_ms"]["count"] >= 4  # one acknowledged append a second per session


async def test_servers_climb_in_lockstep_and_stop_at_their_first_failed_level(aiohttp_server, monkeypatch):
    # A level also fails on speed (the driver's chunks late, acks slow): under CPU contention "a" failed
    # its first level that way and the order came out [a1, b1]. Speed is not what is tested here, so only
    # b's failure to connect can end a climb.
    monkeypatch.setattr(capacity, "LATE_SHARE_MAX", float("inf"))
    monkeypatch.setattr(capacity, "ACK_P95_MAX_MS", float("inf"))
    first = await aiohttp_server(create_baseline_app())
    second = await aiohttp_server(create_baseline_app())
    targets = [
        ClimbTarget(name, f"ws://127.0.0.1:{server.port}/v1/realtime", baseline=True)
        for name, server in (("a", first), ("b", second))
    ]
    # "b" is gone: its first level fails (no session connects), which ends its climb but not a's.
    await second.close()
    order: list[tuple[str, int]] = []
    results = await climb_together(
        targets,
        [1, 2],
        duration_s=2.0,
        on_level=lambda name, level, _s: order.append((name, level)),
        progress=False,
    )
    assert order == [("a", 1), ("b", 1), ("a", 2)]
    assert results[0].capacity == 2 and [lv["failures"] for lv in results[0].levels] == [[], []]
    assert results[1].capacity == 0 and results[1].levels[0]["failures"]


async def test_admission_control_refuses_past_the_limit_with_503_before_the_upgrade(engine_url):
    base = await engine_url(max_sessions=1)
    http_base = base.replace("ws://", "http://").removesuffix("/v1")
    url = base + "/realtime?model=gpt-realtime"
    async with aiohttp.ClientSession() as http:
        first = await http.ws_connect(url, headers=AUTH)
        assert json.loads((await first.receive()).data)["type"] == "session.created"
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(url, headers=AUTH)
        assert refused.value.status == 503
        upgrade = {
            **AUTH,
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
        async with http.get(url.replace("ws://", "http://"), headers=upgrade) as reply:
            assert reply.status == 503 and reply.headers["Retry-After"]
            body = await reply.json()
        assert body["error"]["type"] == "server_error" and body["error"]["code"] == "too_many_sessions"
        assert "maximum of 1 concurrent sessions" in body["error"]["message"]
        # The session already running is untouched, and a place frees up when it leaves.
        await first.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
        assert json.loads((await first.receive()).data)["type"] == "input_audio_buffer.cleared"
        await first.close()

        async def nobody_served() -> bool:
            async with http.get(f"{http_base}/healthz") as reply:
                return bool((await reply.json())["sessions_active"] == 0)

        # The default 10 s (it was 2.5): how soon the engine notices the close is not what is tested.
        await eventually(nobody_served)
        second = await http.ws_connect(url, headers=AUTH)
        assert json.loads((await second.receive()).data)["type"] == "session.created"
        await second.close()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_metrics_endpoint_counts_sessions_events_and_cache_lookups(engine_url):
    base = await engine_url()
    http_base = base.replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{http_base}/metrics") as reply:
            before = _samples(await reply.text())
        async with http.ws_connect(base + "/realtime?model=gpt-realtime", headers=AUTH) as ws:
            await ws.receive()
            await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
            await ws.receive()
            await ws.send_str("not json")
            await ws.receive()
        async with http.get(f"{http_base}/metrics") as reply:
            assert reply.status == 200 and reply.content_type == "text/plain"
            after = _samples(await reply.text())

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("mockengine_sessions_total") == 1
    assert delta("mockengine_client_events_total", type="session.update") == 1
    assert delta("mockengine_client_events_total", type="invalid") == 1
    assert delta("mockengine_server_events_total", type="session.created") == 1
    assert delta("mockengine_server_events_total", type="error") == 1
    assert ("mockengine_executor_queue_depth", (("executor", "stt"),)) in after
    assert ("mockengine_event_loop_lag_seconds", ()) in after
    assert after[("mockengine_sessions_active", ())] == 0
    # server/gc_watch.py: the collector's generations shown from the start, the loop's probes counted
    assert ("mockengine_gc_pause_seconds_count", (("generation", "2"),)) in after
    probes = ("mockengine_event_loop_lag_probe_seconds_count", ())
    async with aiohttp.ClientSession() as http:
        for _ in range(100):  # a probe every 100 ms: wait for the next one, however loaded the machine
            async with http.get(f"{http_base}/metrics") as reply:
                if _samples(await reply.text()).get(probes, 0.0) > before.get(probes, 0.0):
                    break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("no loop probe reached /metrics in 10 s")


async def test_metrics_declares_every_family_others_build_on(engine_url):
    http_base = (await engine_url()).replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http, http.get(f"{http_base}/metrics") as reply:
        families = {f.name for f in text_string_to_metric_families(await reply.text())}
    assert {
        "mockengine_cache_lookups",
        "mockengine_turn_latency_seconds",
        "mockengine_engine_call_seconds",
        "mockengine_sessions_refused",
        "mockengine_faults_injected",
    } <= families


def test_serve_with_two_workers_shares_the_port_and_sums_metrics():
    # ready within 600 s: two workers loading the models on a loaded machine
    with serving_workers_process(ready_within_s=600) as (server, port):
        pids = set()
        # Timeouts for a loaded machine: how fast a worker answers is not what is tested.
        for _ in range(16):  # both workers answer: the kernel spreads new connections over them
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=60) as reply:
                pids.add(json.loads(reply.read())["pid"])
        assert len(pids) == 2  # 16 connections all to one worker: a chance of 2 ** -15
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as reply:
            families = {f.name for f in text_string_to_metric_families(reply.read().decode())}
        assert "mockengine_sessions_active" in families
        # The control endpoints act on the worker that answers: the answer says so, and which one.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/mockengine/faults", timeout=60) as reply:
            control = json.loads(reply.read())
        assert control["pid"] in pids and control["workers"] == 2 and "this worker only" in control["scope"]
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=120) == 0
