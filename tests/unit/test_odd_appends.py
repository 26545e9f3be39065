"""``input_audio_buffer.append`` of a byte count that splits a PCM16 sample (a client that forwards a
byte stream as it comes, cut anywhere) and of nothing at all (``"audio": ""``): both are taken without an
``error`` (docs/realtime-protocol.md). The half sample waits for its partner in the next append, across
a commit, so the session hears exactly the stream the client sent, byte-aligned; a change of input
format drops it, since its partner will never come; a clear drops it with the rest. Checked on the
core with a virtual clock (the fake engines, the real VAD), through both append paths (the event and
``receive_audio``, docs/cpu.md "What makes an append cheap")."""

from __future__ import annotations

import random

import pytest

from mockengine.audio.g711 import G711InputStream, from_pcm16_24k
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime.input_buffer import InputAudioBuffer
from tests.conftest import make_driver

VOICED = synthetic_voiced_pcm16(600)
PAUSE = bytes(48 * 900)
MANUAL = {"type": "realtime", "audio": {"input": {"turn_detection": None}}}


def _append(driver, chunk: bytes, fast: bool) -> None:
    if fast:
        driver._apply(driver.session.receive_audio(chunk, None, driver.now_ms))
    else:
        driver.send(ce.InputAudioBufferAppend(chunk))


def _committed_audio(driver) -> bytes:
    """The audio of the last committed user item as the session holds it (PCM16 24 kHz)."""
    item_id = driver.of_type("input_audio_buffer.committed")[-1]["item_id"]
    return bytes(driver.session.ctx.conversation.get(item_id).audio)


def _odd_cuts(data: bytes, seed: int) -> list[bytes]:
    """``data`` cut at random odd sizes (and a few empty pieces between)."""
    rng, pieces, at = random.Random(seed), [], 0
    while at < len(data):
        size = rng.randrange(1, 2000, 2)
        pieces.append(data[at : at + size])
        if rng.random() < 0.1:
            pieces.append(b"")
        at += size
    return pieces


@pytest.mark.parametrize("fast", [True, False])
def test_odd_cuts_are_heard_as_the_stream_the_client_sent_across_commits(fast: bool) -> None:
    driver = make_driver()
    driver.send(ce.SessionUpdate(MANUAL))
    first, second = PAUSE[:4801], VOICED + PAUSE[:4799]  # the first turn ends on half a sample
    for piece in _odd_cuts(first, 1):
        _append(driver, piece, fast)
    driver.send(ce.InputAudioBufferCommit())
    assert _committed_audio(driver) == first[:-1]
    for piece in _odd_cuts(second, 2):
        _append(driver, piece, fast)
    driver.send(ce.InputAudioBufferCommit())
    # The byte left over from the first commit is the first half of this turn's first sample.
    assert _committed_audio(driver) == (first[-1:] + second)
    assert driver.of_type("error") == []


@pytest.mark.parametrize("fast", [True, False])
def test_odd_cuts_give_the_events_whole_samples_give(fast: bool) -> None:
    """Server VAD over the same audio cut at 20 ms and at odd sizes: the same events, ids included."""

    def run(pieces: list[bytes]) -> list[dict]:
        driver = make_driver()
        for piece in pieces:
            driver.advance(driver.now_ms + len(piece) / 48)
            _append(driver, piece, fast)
        driver.run_until_idle()
        return [event for _, event in driver.events]

    audio = PAUSE + VOICED + PAUSE + PAUSE
    whole = run([audio[i : i + 960] for i in range(0, len(audio), 960)])
    odd = run(_odd_cuts(audio, 3))
    kinds = [event["type"] for event in whole]
    assert "input_audio_buffer.speech_started" in kinds and "response.done" in kinds
    assert odd == whole


def test_a_change_of_input_format_drops_the_half_sample_left_before_it() -> None:
    driver = make_driver()
    driver.send(ce.SessionUpdate(MANUAL))
    driver.send(ce.InputAudioBufferAppend(PAUSE[:4801]))  # 2400 samples and half of one
    driver.send(ce.InputAudioBufferCommit())
    pcmu = {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcmu"}}}}
    driver.send(ce.SessionUpdate(pcmu))
    ulaw = from_pcm16_24k(VOICED, "audio/pcmu")
    for i in range(0, len(ulaw), 160):
        driver.send(ce.InputAudioBufferAppend(ulaw[i : i + 160]))
    driver.send(ce.InputAudioBufferCommit())
    # Exactly the G.711 stream decoded, not shifted by the PCM16 byte before it.
    assert _committed_audio(driver) == G711InputStream("audio/pcmu").decode(ulaw, "audio/pcmu")
    assert driver.of_type("error") == []


def test_a_clear_drops_the_half_sample_with_the_rest() -> None:
    buffer = InputAudioBuffer()
    assert buffer.append(b"\x01\x02\x03") == b"\x01\x02"
    buffer.clear()
    assert buffer.append(b"\x04\x05") == b"\x04\x05"
    assert buffer.append(b"\x06") == b""
    buffer.drop_half_sample()
    assert buffer.append(b"\x07\x08") == b"\x07\x08"
    assert buffer.total_samples == 3  # counted over the session: 1 before the clear, 2 after


@pytest.mark.parametrize("fast", [True, False])
def test_an_empty_append_is_taken_and_changes_nothing(fast: bool) -> None:
    driver = make_driver()
    before = len(driver.events)
    _append(driver, b"", fast)
    assert driver.events[before:] == []
    assert driver.session.turns.buffer.total_samples == 0
