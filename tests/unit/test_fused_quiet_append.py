"""The fused append (issue 15, docs/cpu.md eleventh and twenty-first passes) answers exactly as the
general path.

``UserTurns._append_frame_fused`` takes a whole 20 ms PCM16 frame between turns, and a speech frame in a
turn, in one call, stepping the input buffer, the frame classifier, the turn detector and the speech
tracker on their own state. Each test plays the same appends (real speech from tests/data/utterances,
digital silence, low noise, a lone click, odd and long chunks, a manual commit, a full buffer) through a
session with the fused path and one without it, and compares every step's events (seeded ids included)
and effects, and afterwards the buffer's bytes and positions and every object's state the fused path
touches. Both with the C frame path (``mockengine.audio._fastpath``) and without it (the module not
built: the fused path stands aside and the numpy classifier answers).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mockengine.audio import vad
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.bench.fingerprint import read_wav
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime import turns
from mockengine.realtime.effects import NO_STEP, Step
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.realtime.turn_detection import TurnDetector

UTTERANCES = Path(__file__).resolve().parents[1] / "data" / "utterances"
FRAME_BYTES = 960  # 20 ms of PCM16 24 kHz


def _session(max_input_buffer_ms: int = 900_000) -> RealtimeSession:
    session = RealtimeSession(
        SessionOptions(
            model="gpt-realtime",
            pacing=Pacing(pace=0.0, first_delta_delay_ms=0),
            created_at_s=1_700_000_000,
            max_input_buffer_ms=max_input_buffer_ms,
        ),
        brain=ScriptedBrain(load_scenario(None), seed=5),
        ids=IdFactory(5),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    session.start()
    return session


def _frames(pcm: bytes) -> list[bytes]:
    return [pcm[i : i + FRAME_BYTES] for i in range(0, len(pcm), FRAME_BYTES)]


def _script() -> list[Any]:
    """Appends (bytes) and the odd client event, in order; 20 ms of session time per 20 ms of audio."""
    rng = random.Random(11)
    silence = bytes(FRAME_BYTES)
    noise = b"".join(rng.randint(-40, 40).to_bytes(2, "little", signed=True) for _ in range(FRAME_BYTES // 2))
    click = synthetic_voiced_pcm16(20)[:FRAME_BYTES]
    script: list[Any] = [silence] * 40 + [noise] * 20 + [click] + [silence] * 30
    for name in ("01_my_favourite_colour_is_blue.wav", "05_we_walked_along_the_beach.wav"):
        speech = read_wav(UTTERANCES / name)
        speech += bytes(-len(speech) % FRAME_BYTES)
        script += _frames(speech) + [silence] * 60 + [noise] * 10
    # Odd chunking between turns: half samples and partial frames pending, then a 40 ms append.
    script += [silence[:481], silence[:479], silence[:500], silence[:460], silence * 2] + [silence] * 10
    speech = read_wav(UTTERANCES / "17_what_is_the_capital_of.wav")
    speech += bytes(-len(speech) % FRAME_BYTES)
    half = len(_frames(speech)) // 2
    # A manual commit in the middle of a turn, the rest of the speech a fresh onset.
    script += _frames(speech)[:half] + [ce.InputAudioBufferCommit()] + _frames(speech)[half:]
    script += [silence] * 50 + [ce.InputAudioBufferClear()] + [silence] * 20
    return script


def _state(session: RealtimeSession) -> dict[str, Any]:
    """Everything the fused path reads or writes, and the turn's own state."""
    user = session.turns
    buffer, classifier, detector = user.buffer, user.classifier, user.detector
    assert detector is not None
    tracker = detector._tracker
    return {
        "buffer": buffer._copy(0, buffer._held_bytes),
        "buffer_positions": (buffer.total_samples, buffer.start_ms, buffer._head_bytes, buffer._odd_byte),
        "classifier": (classifier._bytes_seen, classifier._frames_done, bytes(classifier._pending)),
        "detector": (
            list(detector._history),
            detector._audio_ms,
            detector._turn_start_ms,
            detector._floor_ms,
        ),
        "tracker": (
            tracker._state,
            list(tracker._window),
            tracker._window_speech_frames,
            tracker._floor_samples,
            tracker._frames_end_samples,
            tracker._silence_start_samples,
            tracker._last_speech_end_samples,
        ),
        "turns": (user.state, user.turn_item_id, user._kept_ms),
    }


SPEAKING_TAKEN: list[int] = []  # speech frames in a turn the fused path took, per play


def _play(
    turn_detection: dict[str, Any], fused: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Any, int]:
    monkeypatch.setattr(turns, "FUSED_QUIET_APPEND", fused)
    SPEAKING_TAKEN.append(0)
    original_speaking = TurnDetector.push_speaking_frame

    def counting_speaking(detector: TurnDetector, frame: Any) -> bool:
        taken = original_speaking(detector, frame)
        SPEAKING_TAKEN[-1] += taken
        return taken

    monkeypatch.setattr(TurnDetector, "push_speaking_frame", counting_speaking)
    session = _session()
    update = ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}})
    first = session.receive(update, 0.0)
    outcomes: list[Any] = [(first.events, first.effects)]
    general_calls = 0
    original_push = session.turns.classifier.push

    def counting_push(pcm: bytes) -> Any:
        nonlocal general_calls
        general_calls += 1
        return original_push(pcm)

    session.turns.classifier.push = counting_push  # type: ignore[method-assign]
    now_ms = 0.0
    for entry in _script():
        if isinstance(entry, bytes):
            step = session.receive_audio(entry, None, now_ms)
            now_ms += len(entry) / 48
        else:
            step = session.receive(entry, now_ms)
        outcomes.append((step.events, step.effects))
    return outcomes, _state(session), general_calls


@pytest.mark.parametrize("native", [True, False], ids=["c-frame-path", "module-not-built"])
@pytest.mark.parametrize(
    "turn_detection",
    [
        {"type": "server_vad", "silence_duration_ms": 500},
        {"type": "server_vad", "silence_duration_ms": 200, "prefix_padding_ms": 100, "threshold": 0.7},
        {"type": "semantic_vad", "eagerness": "high"},
    ],
    ids=["server_vad", "server_vad_tuned", "semantic_vad"],
)
def test_the_fused_quiet_append_answers_as_the_general_path(
    turn_detection: dict[str, Any], native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if native and not vad.NATIVE_AVAILABLE:
        pytest.skip("mockengine.audio._fastpath is not built")
    if not native:
        # As if the C module were not built: classifiers made from now on take the numpy path.
        monkeypatch.setattr(vad, "NATIVE_AVAILABLE", False)
    fused_outcomes, fused_state, fused_calls = _play(turn_detection, True, monkeypatch)
    general_outcomes, general_state, general_calls = _play(turn_detection, False, monkeypatch)
    assert fused_outcomes == general_outcomes
    assert fused_state == general_state
    events = [event["type"] for events, _ in general_outcomes for event in events]
    # Real speech was heard: turns started and stopped (the comparison is not over silence alone).
    # (semantic_vad's turns wait for their probes' transcripts, which nothing answers here.)
    assert events.count("input_audio_buffer.speech_started") >= 2
    assert "input_audio_buffer.speech_stopped" in events
    appends = sum(isinstance(entry, bytes) for entry in _script())
    assert general_calls == appends
    if native:
        # Most appends took the fused path (between turns, whole frames), not the classifier's push,
        # and so did the turns' talking (speech after speech in a turn: the twenty-first pass's step).
        assert fused_calls <= appends - 100
        assert SPEAKING_TAKEN[-2] >= 50
    else:
        assert fused_calls == appends  # without the C frame path the fused path stands aside
    assert SPEAKING_TAKEN[-1] == 0  # (the general path never takes that step)


def test_a_full_input_buffer_between_turns_gives_the_general_paths_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    results = []
    for fused in (True, False):
        monkeypatch.setattr(turns, "FUSED_QUIET_APPEND", fused)
        session = _session(max_input_buffer_ms=100)
        # server_vad keeps 15 s between turns, so 100 ms of buffer fills between turns.
        steps = [session.receive_audio(bytes(FRAME_BYTES), f"evt_{n}", n * 20.0) for n in range(7)]
        results.append(([(s.events, s.effects) for s in steps], _state(session)))
    assert results[0] == results[1]
    errors = [events for events, _ in results[0][0] if events]
    assert errors and errors[-1][0]["type"] == "error" and errors[-1][0]["error"]["event_id"] == "evt_6"


def test_a_full_input_buffer_in_a_turn_gives_the_general_paths_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # In a turn the buffer keeps all it is given: the fused speaking step leaves a full buffer's append
    # to the general path, which refuses it, and the turn goes on.
    speech = read_wav(UTTERANCES / "05_we_walked_along_the_beach.wav")
    frames = _frames(speech[: len(speech) // FRAME_BYTES * FRAME_BYTES])
    results = []
    for fused in (True, False):
        monkeypatch.setattr(turns, "FUSED_QUIET_APPEND", fused)
        session = _session(max_input_buffer_ms=1_000)
        steps = [session.receive_audio(frame, f"evt_{n}", n * 20.0) for n, frame in enumerate(frames)]
        results.append(([(s.events, s.effects) for s in steps], _state(session)))
    assert results[0] == results[1]
    types = [event["type"] for events, _ in results[0][0] for event in events]
    assert "input_audio_buffer.speech_started" in types and "error" in types


def test_an_append_that_changes_nothing_shares_one_read_only_step(monkeypatch: pytest.MonkeyPatch) -> None:
    # Most appends change nothing to send or run: they share NO_STEP (docs/cpu.md, twenty-first pass).
    # It equals Step() and refuses to grow, and a client event's handler never hands it out, as
    # `receive`'s callers add to the step they get.
    session = _session()
    quiet = session.receive_audio(bytes(FRAME_BYTES), None, 20.0)
    assert quiet is NO_STEP and quiet == Step()
    for grow in (
        lambda: NO_STEP.events.append({"type": "x"}),
        lambda: NO_STEP.effects.extend([object()]),
        lambda: NO_STEP.extend(Step(events=[{"type": "x"}])),
        lambda: NO_STEP.events.insert(0, {}),
    ):
        with pytest.raises(TypeError, match="NO_STEP"):
            grow()
    assert NO_STEP.events == [] and NO_STEP.effects == []
    step = session.receive(ce.InputAudioBufferAppend(audio=bytes(FRAME_BYTES)), 40.0)
    assert step is not NO_STEP and step == Step()
    step.events.append({"type": "mine"})  # (its own: growing it touches nothing shared)
    assert NO_STEP.events == []
