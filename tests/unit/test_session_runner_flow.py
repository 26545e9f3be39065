"""The shell's outgoing flow control, with a fake socket whose peer stops reading (fake engines, no
network): paced audio waits while the unsent backlog is high instead of piling up, and everything goes
out, in order, once the peer reads again."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from aiohttp import WSMsgType

from mockengine.brain.selection import load_library
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.protocol import client_events as ce
from mockengine.realtime.response import Pacing
from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.resources import Resources
from mockengine.server.trace import Tracer
from mockengine.settings import Settings
from tests.conftest import make_session
from tests.eventually import eventually
from tests.fake_peer import StalledPeer


def resources(settings: Settings) -> Resources:
    return Resources(
        settings=settings,
        transcriber=FakeTranscriber(default="Tell me a long story."),
        synthesizer=FakeSynthesizer(),
        tokens=TokenCounter(None),
        scenarios=load_library(),
        stt_executor=ThreadPoolExecutor(1),
        tts_executor=ThreadPoolExecutor(1),
    )


async def test_paced_audio_waits_for_a_stalled_reader_then_flows_in_order():
    # Audio is held above a quarter of the bound (100 000 unsent bytes). The bound leaves room for the
    # burst a late timer releases on a loaded machine (pacing catches up 50 ms: 5 deltas of ~13 kB).
    settings = Settings(max_send_backlog_bytes=400_000)
    pacing = Pacing(pace=20.0, first_delta_delay_ms=0, delta_ms=200)
    peer = StalledPeer()
    session = make_session(pacing=pacing)
    runner = SessionRunner(peer, session, resources(settings), Tracer(None))  # type: ignore[arg-type]
    task = asyncio.create_task(runner.run())
    await asyncio.sleep(0)
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Tell me a story."}],
    }
    runner.apply(session.receive(ce.ConversationItemCreate(item), runner.now_ms()))
    runner.apply(session.receive(ce.ResponseCreate({}), runner.now_ms()))

    await eventually(lambda: runner.is_flow_held, timeout_s=20)
    # Long enough for audio that was not held to pass the bound: 400 kB is ~31 deltas of 200 ms at 20 ×.
    delta_bytes = 4 * pacing.delta_ms * 48 // 3  # base64 of 200 ms of PCM16 at 24 kHz
    await asyncio.sleep(settings.max_send_backlog_bytes / delta_bytes * pacing.delta_ms / pacing.pace / 1000)
    assert not runner.is_closing, "a merely slow reader was dropped"
    assert runner.backlog_bytes < settings.max_send_backlog_bytes // 2
    assert runner.is_flow_held

    peer.gate.set()  # the peer reads again
    await eventually(lambda: any(e["type"] == "response.done" for e in peer.sent), timeout_s=20)
    kinds = [e["type"] for e in peer.sent]
    deltas = [e for e in peer.sent if e["type"] == "response.output_audio.delta"]
    # A long reply really went through the held state: unheld, it would have passed the bound.
    assert sum(len(d["delta"]) for d in deltas) > settings.max_send_backlog_bytes
    assert kinds.index("response.output_audio.done") > kinds.index("response.output_audio.delta")
    assert peer.sent[-1]["type"] in ("response.done", "rate_limits.updated")
    await peer.incoming.put(None)  # the client leaves
    await task


async def test_a_hopeless_reader_is_dropped_when_the_backlog_passes_the_bound(caplog):
    settings = Settings(max_send_backlog_bytes=20_000)
    peer = StalledPeer()
    session = make_session()
    runner = SessionRunner(peer, session, resources(settings), Tracer(None))  # type: ignore[arg-type]
    task = asyncio.create_task(runner.run())
    await asyncio.sleep(0)
    for n in range(100):  # each error is ~300 bytes that cannot go out
        msg = type(
            "Msg", (), {"type": WSMsgType.TEXT, "data": json.dumps({"type": "nope", "event_id": str(n)})}
        )
        await peer.incoming.put(msg)
    async with asyncio.timeout(10):
        await task
    assert runner.is_closing and peer.closed
    assert any("does not read" in r.getMessage() for r in caplog.records)
