"""Memory per session is bounded by settings, not by the session's length (issue 15).

A session streams a study's rhythm in virtual time (a 4 s turn every 10 s, a spoken reply each time):
the memory it holds, traced by ``tracemalloc``, stays flat minute after minute while the audio of older
items moves to the spill file — and retrieve and truncate still give the same bytes.
"""

from __future__ import annotations

import base64
import gc
import os
import tracemalloc
import weakref

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime.audio_store import AudioSpill, SpilledAudio
from mockengine.realtime.conversation import Item
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.virtual_time import VirtualTimeDriver

PACED = Pacing(pace=1.0, first_delta_delay_ms=0, delta_ms=200)


def study_driver(audio_memory_ms: int, tmp_path) -> VirtualTimeDriver:
    options = SessionOptions(
        model="gpt-realtime", pacing=PACED, audio_memory_ms=audio_memory_ms, audio_spill_dir=str(tmp_path)
    )
    session = RealtimeSession(
        options,
        brain=ScriptedBrain(load_scenario(None), seed=7),
        ids=IdFactory(7),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    driver = VirtualTimeDriver(
        session, FakeTranscriber(default="What is the capital of France?"), FakeSynthesizer()
    )
    driver.start()
    return driver


def traced_per_minute(driver: VirtualTimeDriver, minutes: int) -> list[float]:
    """Traced bytes the session holds after each minute of study rhythm (events and fake calls dropped)."""
    speech = synthetic_voiced_pcm16(4000)
    held = []
    for _ in range(minutes):
        for _turn in range(6):
            driver.stream(speech)
            driver.stream_silence(6000)
        driver.events.clear()
        driver.transcriber.calls.clear()
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])
    return held


@pytest.mark.slow  # minutes of study audio through the session
def test_session_memory_is_flat_over_minutes_of_study(tmp_path):
    tracemalloc.start()
    try:
        bounded = traced_per_minute(study_driver(10_000, tmp_path), 4)
        growth_per_min = (bounded[-1] - bounded[0]) / 3
    finally:
        tracemalloc.stop()
    # The items' words and metadata still grow (~1 kB per item); their audio does not.
    assert growth_per_min < 50_000, f"{growth_per_min / 1e6:.2f} MB more per session-minute"


@pytest.mark.slow  # minutes of study audio through the session
def test_without_spilling_memory_grows_with_the_session(tmp_path):
    """The same rhythm with everything kept in memory: the figure the bound above is guarding against."""
    tracemalloc.start()
    try:
        unbounded = traced_per_minute(study_driver(-1, tmp_path), 3)
    finally:
        tracemalloc.stop()
    assert (unbounded[-1] - unbounded[0]) / 2 > 1_000_000


@pytest.mark.slow  # minutes of study audio through the session
def test_spilled_items_retrieve_and_truncate_the_same_bytes(tmp_path):
    kept, spilled = study_driver(-1, tmp_path / "a"), study_driver(0, tmp_path / "b")
    for path in (tmp_path / "a", tmp_path / "b"):
        path.mkdir()
    for driver in (kept, spilled):
        traced_per_minute(driver, 1)
    older = list(spilled.session.conversation)[:-2]  # the newest stay until the next item is added
    assert older and all(isinstance(i.audio, SpilledAudio) for i in older if i.audio)
    assert spilled.session.audio_spill.spilled_bytes > 1_000_000
    ids = [i.id for i in kept.session.conversation]
    assert ids == [i.id for i in spilled.session.conversation]
    for driver in (kept, spilled):
        for item_id in ids:
            driver.send(ce.ConversationItemRetrieve(item_id))
    retrieved = [e for _, e in kept.events if e["type"] == "conversation.item.retrieved"]
    assert retrieved == [e for _, e in spilled.events if e["type"] == "conversation.item.retrieved"]
    assert any(base64.b64decode(p.get("audio", "")) for e in retrieved for p in e["item"]["content"])

    reply = next(i for i in kept.session.conversation if i.role == "assistant")
    for driver in (kept, spilled):
        driver.send(ce.ConversationItemTruncate(reply.id, 0, 700))
        driver.send(ce.ConversationItemRetrieve(reply.id))
    last = [driver.of_type("conversation.item.retrieved")[-1] for driver in (kept, spilled)]
    assert last[0] == last[1]
    assert len(spilled.session.conversation.get(reply.id).audio) == 700 * 48


def test_spill_keeps_the_newest_in_memory_and_its_file_is_gone_at_close(tmp_path):
    spill = AudioSpill(memory_bytes=1000, directory=str(tmp_path))
    items = [Item(f"item_{n}", "message", audio=bytes([n]) * 400) for n in range(5)]
    spill.keep_newest(reversed(items))
    assert [isinstance(i.audio, SpilledAudio) for i in items] == [True, True, True, False, False]
    assert [bytes(i.audio) for i in items] == [bytes([n]) * 400 for n in range(5)]
    assert bytes(items[0].audio[:10]) == bytes(10) and len(items[1].audio[:999]) == 400
    assert os.listdir(tmp_path) == []  # created unlinked: nothing to leave behind
    spill.close()


@pytest.mark.slow  # minutes of study audio through the session
def test_close_releases_the_session_audio_without_the_cycle_collector(tmp_path):
    tracemalloc.start()
    try:
        driver = study_driver(-1, tmp_path)
        held = traced_per_minute(driver, 1)[-1]
        gc.disable()  # the session's own cycles stay: what close() frees, it frees by reference counts
        driver.session.close()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        gc.enable()
        tracemalloc.stop()
    assert len(driver.session.conversation) == 0
    assert held - after > 1_000_000, f"close() released only {(held - after) / 1e6:.2f} MB"


def test_an_inline_session_keeps_no_deleted_long_text(tmp_path):
    # Long texts are registered to be counted off the loop only by a session that thinks aside; an
    # inline (virtual-time) session kept every one referenced after the client deleted its item.
    driver = study_driver(-1, tmp_path)
    long_text = "word " * 10_000  # past the counter's cache (16,384 characters)
    for _ in range(3):
        driver.send(
            ce.ConversationItemCreate(
                item={
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": long_text}],
                },
            )
        )
    created = [e["item"]["id"] for e in driver.of_type("conversation.item.added")]
    assert len(created) == 3
    held = [weakref.ref(driver.session.conversation.get(item_id)) for item_id in created]
    for item_id in created:
        driver.send(ce.ConversationItemDelete(item_id=item_id))
    gc.collect()
    assert [ref() for ref in held] == [None, None, None]
