"""Fuzz: thousands of hostile and random-but-valid frames at live sessions over real loopback sockets.

Every frame the engine must reject gets its ``error`` (matched by ``event_id``, or counted when it can
carry none); no exception is logged, the socket stays open, no task is left behind, and afterwards an
ordinary turn still gets its reply. ``make test`` runs a short fixed-seed pass; ``make fuzz`` a long one
(``MOCKENGINE_FUZZ_EVENTS``, ``MOCKENGINE_FUZZ_SESSIONS``, ``MOCKENGINE_FUZZ_SEED``). The report line
(bad inputs tried, sessions survived, RSS before/after) is printed; run with ``-s`` to see it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
from dataclasses import dataclass, field

import aiohttp

from mockengine.server.state import LIVE_SESSIONS
from tests.eventually import eventually
from tests.fuzz_events import FuzzEvents

EVENTS = int(os.environ.get("MOCKENGINE_FUZZ_EVENTS", "1500"))
SESSIONS = int(os.environ.get("MOCKENGINE_FUZZ_SESSIONS", "2"))
SEED = int(os.environ.get("MOCKENGINE_FUZZ_SEED", "7"))
BATCH = 200
FINAL = {"type": "response.create", "event_id": "final", "response": {"metadata": {"fuzz": "final"}}}


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@dataclass
class Outcome:
    bad_with_id: set[str] = field(default_factory=set)
    bad_without_id: int = 0
    valid: int = 0
    errors_by_id: set[str] = field(default_factory=set)
    errors_without_id: int = 0
    survived: bool = False
    closed_early: str | None = None


async def fuzz_one_session(http: aiohttp.ClientSession, url: str, seed: int, count: int) -> Outcome:
    outcome = Outcome()
    generator = FuzzEvents(seed)
    async with http.ws_connect(url, headers={"Authorization": "Bearer sk-fuzz"}, max_msg_size=0) as ws:
        replies: asyncio.Queue[dict] = asyncio.Queue()

        async def read() -> None:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                event = json.loads(msg.data)
                if event["type"] == "error":
                    if event["error"]["event_id"] is None:
                        outcome.errors_without_id += 1
                    else:
                        outcome.errors_by_id.add(event["error"]["event_id"])
                await replies.put(event)
            if not outcome.survived:
                outcome.closed_early = f"{ws.close_code}"

        reader = asyncio.create_task(read())
        for sent, frame in enumerate(generator.frames(count), start=1):
            if isinstance(frame.data, bytes):
                await ws.send_bytes(frame.data)
            else:
                await ws.send_str(frame.data)
            if frame.must_fail and frame.event_id is not None:
                outcome.bad_with_id.add(frame.event_id)
            elif frame.must_fail:
                outcome.bad_without_id += 1
            else:
                outcome.valid += 1
            if sent % BATCH == 0:
                await asyncio.sleep(0)  # let the reader keep up
        # A marker: when its error arrives, every frame before it has been handled.
        await ws.send_str(
            json.dumps({"type": "conversation.item.retrieve", "item_id": "end", "event_id": "end"})
        )
        await wait_for_error(replies, "end")
        # The session still works: a fresh, well-formed turn gets its (spoken) reply.
        await ws.send_str(json.dumps({"type": "response.cancel", "event_id": "cleanup"}))
        await ws.send_str(
            json.dumps(
                {
                    "type": "session.update",
                    "session": {
                        "type": "realtime",
                        "output_modalities": ["audio"],
                        "audio": {"input": {"turn_detection": None}},
                    },
                }
            )
        )
        await ws.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "What is the capital of France?"}],
        }
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        await ws.send_str(json.dumps(FINAL))
        # The reply waits for the transcripts of every user audio item in the conversation: after a long
        # run whisper may still be working through the turns the fuzzing committed.
        # A response the fuzzing started may still be finishing (out-of-band ones cannot be cancelled):
        # then the final one is refused, and asked for again once that response is done.
        refused = False
        async with asyncio.timeout(60 + count * 0.02):
            while True:
                event = await replies.get()
                response = event.get("response") or {}
                if event["type"] == "error" and event["error"]["event_id"] == "final":
                    refused = True
                elif refused and event["type"] == "response.done":
                    refused = False
                    await ws.send_str(json.dumps(FINAL))
                if event["type"] == "response.done" and response.get("metadata") == {"fuzz": "final"}:
                    output = response["output"][0]
                    transcript = output["content"][0].get("transcript") or ""
                    outcome.survived = (
                        response["status"] == "completed" and bool(transcript) and not ws.closed
                    )
                    break
        await ws.close()
        await reader
    return outcome


async def wait_for_error(replies: asyncio.Queue[dict], event_id: str) -> None:
    async with asyncio.timeout(120):
        while True:
            event = await replies.get()
            if event["type"] == "error" and event["error"]["event_id"] == event_id:
                return


async def test_fuzzed_sessions_answer_every_bad_frame_and_keep_working(engine, caplog):
    caplog.set_level(logging.WARNING)
    eng = await engine(audio_pace=0.0, first_delta_delay_ms=0)
    async with aiohttp.ClientSession() as http:  # warm-up: model buffers are allocated on first use
        await fuzz_one_session(http, eng.realtime, SEED - 1, 300)
    await eng.wait_until_idle(timeout_s=30)
    gc.collect()
    rss_before = rss_mib()
    tasks_before = len(asyncio.all_tasks())
    async with aiohttp.ClientSession() as http:
        outcomes = await asyncio.gather(
            *(fuzz_one_session(http, eng.realtime, SEED + n, EVENTS) for n in range(SESSIONS))
        )
    await eng.wait_until_idle(timeout_s=30)
    await eventually(lambda: len(asyncio.all_tasks()) <= tasks_before, timeout_s=5, message="tasks leaked")
    gc.collect()
    rss_after = rss_mib()
    bad = sum(len(o.bad_with_id) + o.bad_without_id for o in outcomes)
    survived = sum(o.survived for o in outcomes)
    print(
        f"\nfuzz report: {bad} bad inputs tried (+{sum(o.valid for o in outcomes)} random valid) over "
        f"{SESSIONS} sessions, seed {SEED}; {survived}/{SESSIONS} sessions survived; "
        f"RSS {rss_before:.0f} MiB before, {rss_after:.0f} MiB after"
    )
    for outcome in outcomes:
        missing = outcome.bad_with_id - outcome.errors_by_id
        assert not missing, f"{len(missing)} bad frames got no error, e.g. {sorted(missing)[:5]}"
        assert outcome.errors_without_id == outcome.bad_without_id
        assert outcome.closed_early is None, f"closed by the engine: {outcome.closed_early}"
    assert survived == SESSIONS
    assert len(eng.app[LIVE_SESSIONS]) == 0, "sessions still in memory"
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not failures, failures[0].getMessage()
