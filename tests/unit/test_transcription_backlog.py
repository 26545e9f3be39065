"""Transcriptions waiting for whisper are bounded per session (issue 15): with whisper slower than the
turns, the oldest waiting one fails with ``transcription_backlog`` instead of every turn's audio waiting
without end. The shell's lane with a gated fake transcriber (no network, no timing: the test says when
whisper answers), and the core's failure on its own."""

from __future__ import annotations

import asyncio
import base64
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mockengine.brain.selection import load_library
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.tokens import TokenCounter
from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import ItemTranscriptKey, ProbeKey, Transcribe
from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.resources import Resources
from mockengine.server.trace import Tracer
from mockengine.settings import Settings
from tests.conftest import make_session
from tests.eventually import eventually
from tests.fake_peer import ReadingPeer
from tests.speech import question
from tests.transcription_gate import GatedTranscriber

FAILED = "conversation.item.input_audio_transcription.failed"
COMPLETED = "conversation.item.input_audio_transcription.completed"
TRANSCRIBED_NO_TURNS = {
    "type": "realtime",
    "audio": {"input": {"transcription": {"model": "whisper-1"}, "turn_detection": None}},
}


def turn_audio(n: int) -> str:
    """1 s of PCM16 24 kHz, different for each turn ``n`` (base64)."""
    return base64.b64encode(bytes([n % 256, 0]) * 24_000).decode()


class Served:
    def __init__(self, limit: int, seed: int = 7) -> None:
        self.transcriber = GatedTranscriber()
        resources = Resources(
            settings=Settings(max_pending_transcriptions=limit),
            transcriber=self.transcriber,
            synthesizer=FakeSynthesizer(),
            tokens=TokenCounter(None),
            scenarios=load_library(),
            stt_executor=ThreadPoolExecutor(1),
            tts_executor=ThreadPoolExecutor(1),
        )
        self.peer = ReadingPeer()
        self.session = make_session(seed)
        self.runner = SessionRunner(self.peer, self.session, resources, Tracer(None))  # type: ignore[arg-type]

    async def __aenter__(self) -> Served:
        self.task = asyncio.create_task(self.runner.run())
        await asyncio.sleep(0)
        self.send({"type": "session.update", "session": TRANSCRIBED_NO_TURNS})
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.transcriber.open()
        await self.peer.incoming.put(None)  # the client leaves
        await self.task

    def send(self, event: dict[str, Any]) -> None:
        self.runner.on_client_text(json.dumps(event))

    def commit_turn(self, n: int) -> None:
        """Turn ``n``'s audio appended and committed."""
        self.send({"type": "input_audio_buffer.append", "audio": turn_audio(n)})
        self.send({"type": "input_audio_buffer.commit"})

    def sent_all(self) -> bool:
        return self.runner.outbox.empty()


async def test_the_backlog_stays_bounded_and_the_oldest_waiting_turn_fails() -> None:
    async with Served(limit=2) as served:
        transcriber, peer = served.transcriber, served.peer
        served.commit_turn(1)
        await eventually(lambda: transcriber.entered == 1)  # whisper is busy with turn 1
        for n in range(2, 9):
            served.commit_turn(n)
            await eventually(served.sent_all)
            assert served.runner.stt_lane.qsize() <= 2
        assert served.runner.stt_lane.audio_bytes == 2 * 48_000  # two turns' audio waiting, no more
        items = [e["item_id"] for e in peer.of("input_audio_buffer.committed")]
        assert len(items) == 8
        # Turns 2-6 failed, oldest first, each as soon as a newer turn passed the bound.
        failed = peer.of(FAILED)
        assert [e["item_id"] for e in failed] == items[1:6]
        assert failed[0]["content_index"] == 0
        error = failed[0]["error"]
        assert error["type"] == "transcription_error"
        assert error["code"] == "transcription_backlog"
        assert "more than 2 transcriptions were waiting" in error["message"]
        assert error["param"] is None
        # Each failure follows the turn that passed the bound (turn 4 for turn 2's).
        first = peer.sent.index(failed[0])
        assert peer.sent[first - 1]["type"] == "conversation.item.done"
        assert peer.sent[first - 1]["item"]["id"] == items[3]

        transcriber.allow(3)  # whisper catches up: turn 1 (running), then 7 and 8
        await eventually(lambda: len(peer.of(COMPLETED)) == 3)
        assert [e["item_id"] for e in peer.of(COMPLETED)] == [items[0], items[6], items[7]]
        assert transcriber.entered == 3  # the failed turns never reached whisper

        # Every item is still in the conversation, and the session goes on as before.
        served.send({"type": "conversation.item.retrieve", "item_id": items[2]})
        await eventually(lambda: peer.of("conversation.item.retrieved"))
        assert peer.of("conversation.item.retrieved")[0]["item"]["content"][0]["transcript"] == ""
        transcriber.allow()
        served.commit_turn(9)
        await eventually(lambda: len(peer.of(COMPLETED)) == 4)
        assert len(peer.of(FAILED)) == 5
        assert not peer.of("error")


async def test_the_default_bound_takes_a_clients_burst_of_turns_whole() -> None:
    """A client replaying a recorded conversation commits a dozen turns at once while whisper is busy:
    under the default bound every one is transcribed (the bound is for overload, not for a burst)."""
    async with Served(limit=Settings().max_pending_transcriptions) as served:
        served.commit_turn(1)
        await eventually(lambda: served.transcriber.entered == 1)
        for n in range(2, 14):
            served.commit_turn(n)
        await eventually(served.sent_all)
        served.transcriber.open()
        await eventually(lambda: len(served.peer.of(COMPLETED)) == 13, timeout_s=20)
        assert not served.peer.of(FAILED) and not served.peer.of("error")


async def test_a_response_waiting_for_a_failed_turn_goes_on() -> None:
    async with Served(limit=1) as served:
        served.commit_turn(1)
        await eventually(lambda: served.transcriber.entered == 1)
        served.commit_turn(2)
        served.send({"type": "response.create"})  # waits for the words of the turns in its context
        served.commit_turn(3)  # turn 2 fails: no words of it will come
        await eventually(lambda: served.peer.of(FAILED))
        assert not served.peer.of("response.output_item.added")
        served.transcriber.allow(2)  # turns 1 and 3: whisper never hears turn 2
        await eventually(lambda: served.peer.of("response.done"), timeout_s=20)
        assert served.transcriber.entered == 2


async def test_without_a_backlog_the_events_are_byte_identical_to_an_unbounded_lane() -> None:
    """With whisper keeping up, the bound changes nothing: the same seeded session sends the same bytes
    with the bound as with none (0, the lane before issue 15)."""

    async def run(limit: int) -> list[bytes]:
        async with Served(limit=limit, seed=11) as served:
            served.transcriber.open()
            for n in range(1, 13):
                served.commit_turn(n)
                await eventually(lambda n=n: len(served.peer.of(COMPLETED)) == n)
            served.send({"type": "response.create"})
            await eventually(lambda: served.peer.of("response.done"), timeout_s=20)
            return served.peer.raw

    bounded, unbounded = await run(2), await run(0)
    assert not any(FAILED.encode() in raw for raw in bounded)
    assert bounded == unbounded


def test_the_core_reports_a_dropped_turn_with_the_backlog_error() -> None:
    session = make_session()
    session.receive(ce.SessionUpdate(TRANSCRIBED_NO_TURNS), 0)
    session.receive(ce.InputAudioBufferAppend(base64.b64decode(turn_audio(1))), 10)
    step = session.receive(ce.InputAudioBufferCommit(), 20)
    [job] = [e for e in step.effects if isinstance(e, Transcribe)]
    assert session.is_item_transcript(job.key)
    assert not session.is_item_transcript(ProbeKey(0, 1))  # a pause still being weighed
    failed = session.on_transcription_backlog(job.key, 8, 30)
    [event] = failed.events
    assert event["type"] == FAILED
    assert isinstance(job.key, ItemTranscriptKey) and event["item_id"] == job.key.item_id
    assert event["error"]["code"] == "transcription_backlog"
    assert not session.is_wanted(job.key)  # the shell will not run it
    # Its late result, had whisper run it anyway, changes nothing.
    assert session.on_transcript(job.key, "late words", 40).events == []


@pytest.mark.parametrize("silence_duration_ms", [200, 800])
async def test_server_vad_turns_are_bounded_too(silence_duration_ms: int) -> None:
    """server_vad's turns: with a silence window of 400 ms or more a turn reaches whisper as the pause's
    prefetch probe (the committed item takes its words), which counts and fails like an item's own job;
    with a shorter one (the default 200 ms) as the item's own job."""
    speech, _ = question()
    silence = bytes(2 * 24_000 * 3 // 2)  # 1.5 s
    turn_detection = {
        "type": "server_vad",
        "create_response": False,
        "silence_duration_ms": silence_duration_ms,
    }
    async with Served(limit=2) as served:
        served.send(
            {
                "type": "session.update",
                "session": {"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}},
            }
        )
        keys: list[type] = []
        for _ in range(6):
            for at in range(0, len(speech + silence), 4_800):  # 100 ms appends
                chunk = (speech + silence)[at : at + 4_800]
                served.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(chunk).decode()})
            await eventually(served.sent_all)
            waiting = served.runner.stt_lane.queued
            assert len([job for job in waiting if served.session.is_item_transcript(job.key)]) <= 2
            keys += [type(job.key) for job in waiting]
        assert set(keys) == {ProbeKey if silence_duration_ms > 400 else ItemTranscriptKey}
        items = [e["item_id"] for e in served.peer.of("input_audio_buffer.committed")]
        assert len(items) == 6
        failed = served.peer.of(FAILED)
        assert [e["error"]["code"] for e in failed] == ["transcription_backlog"] * 3
        assert [e["item_id"] for e in failed] == items[1:4]
        served.transcriber.allow(3)
        await eventually(lambda: len(served.peer.of(COMPLETED)) == 3)
        assert [e["item_id"] for e in served.peer.of(COMPLETED)] == [items[0], items[4], items[5]]
