"""Audio appended while turn detection is off, then server_vad switched on: the detector hears only what
is appended from then on (no re-scan of the buffer: the live VAD is a streaming one, and the reference
says nothing of a re-scan). The buffered audio stays for a manual commit; a detected turn holds its own
speech and prefix padding only, never reaching before the switch (docs/turn-detection.md)."""

from __future__ import annotations

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime import input_buffer
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import make_driver


def _turn_detection(driver: VirtualTimeDriver, config: dict[str, object] | None) -> None:
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": config}}}))


def _an_utterance_held_back() -> VirtualTimeDriver:
    """Turn detection off, a whole utterance appended (800 ms of speech, 1 s of silence), then on."""
    driver = make_driver()
    _turn_detection(driver, None)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(1000)
    _turn_detection(driver, {"type": "server_vad"})
    return driver


def _committed_ms(driver: VirtualTimeDriver, monkeypatch) -> list[int]:
    taken: list[int] = []
    original = input_buffer.InputAudioBuffer.take_until_ms

    def take(self: input_buffer.InputAudioBuffer, end_ms: int) -> bytes:
        pcm = original(self, end_ms)
        taken.append(len(pcm) // 48)
        return pcm

    monkeypatch.setattr(input_buffer.InputAudioBuffer, "take_until_ms", take)
    return taken


def test_the_held_back_utterance_is_not_a_turn_but_a_manual_commit_takes_it(monkeypatch) -> None:
    driver = _an_utterance_held_back()
    taken = _committed_ms(driver, monkeypatch)
    driver.stream_silence(1000)
    driver.run_until_idle()
    assert not driver.of_type("input_audio_buffer.speech_started")  # not re-scanned
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    assert len(driver.of_type("input_audio_buffer.committed")) == 1
    assert taken == [2800]  # all of it: the held-back utterance and the silence since


def test_the_next_detected_turn_holds_only_its_own_audio(monkeypatch) -> None:
    driver = _an_utterance_held_back()
    taken = _committed_ms(driver, monkeypatch)
    driver.stream(synthetic_voiced_pcm16(600))
    driver.stream_silence(800)
    driver.run_until_idle()
    [started] = driver.of_type("input_audio_buffer.speech_started")
    [stopped] = driver.of_type("input_audio_buffer.speech_stopped")
    assert started["audio_start_ms"] == 1800  # speech at the switch: it starts there, not before
    assert taken == [stopped["audio_end_ms"] - started["audio_start_ms"]]
