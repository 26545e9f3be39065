"""The VAD's state table, driven directly, and proof that `SpeechTracker` moves only through it."""

from __future__ import annotations

import itertools
import random

import pytest

import mockengine.audio.speech_tracker as speech_tracker
from mockengine.audio.speech_tracker import (
    TRANSITIONS,
    IllegalTransition,
    SpeechOnset,
    SpeechPause,
    SpeechResume,
    SpeechState,
    SpeechTracker,
    VadEvent,
    VadFrame,
    next_state,
)

FRAME_SAMPLES = 480  # 20 ms at 24 kHz
ILLEGAL = [pair for pair in itertools.product(SpeechState, VadEvent) if pair not in TRANSITIONS]
Record = tuple[SpeechState, VadEvent, SpeechState, object]


@pytest.mark.parametrize(("state", "event"), list(TRANSITIONS))
def test_every_legal_transition_gives_the_table_s_state_and_edge(state, event) -> None:
    assert next_state(state, event) == TRANSITIONS[state, event]


@pytest.mark.parametrize(("state", "event"), ILLEGAL)
def test_every_other_pair_raises(state, event) -> None:
    with pytest.raises(IllegalTransition, match=f"{event.value} is not allowed in state {state.value}"):
        next_state(state, event)


def test_the_table_s_shape() -> None:
    # Speech in progress never sees unconfirmed speech: its frames do not go through the window.
    assert ILLEGAL == [(SpeechState.SPEECH, VadEvent.UNCONFIRMED_SPEECH)]
    assert all(TRANSITIONS[state, VadEvent.RESET] == (SpeechState.SILENCE, None) for state in SpeechState)
    edges = {(s, e): kind for (s, e), (_, kind) in TRANSITIONS.items() if kind is not None}
    assert edges == {
        (SpeechState.SILENCE, VadEvent.SPEECH): SpeechOnset,
        (SpeechState.ONSET, VadEvent.SPEECH): SpeechOnset,
        (SpeechState.SPEECH, VadEvent.NO_SPEECH): SpeechPause,
        (SpeechState.HANGOVER, VadEvent.SPEECH): SpeechResume,
    }
    # Only an onset or a resume enters SPEECH; HANGOVER is left only by speech or a reset.
    assert {(s, e) for (s, e), (n, _) in TRANSITIONS.items() if n is SpeechState.SPEECH and s is not n} == {
        (SpeechState.SILENCE, VadEvent.SPEECH),
        (SpeechState.ONSET, VadEvent.SPEECH),
        (SpeechState.HANGOVER, VadEvent.SPEECH),
    }


@pytest.fixture
def records(monkeypatch) -> list[Record]:
    seen: list[Record] = []

    def recording(state: SpeechState, event: VadEvent):
        target, edge = next_state(state, event)
        seen.append((state, event, target, edge))
        return target, edge

    monkeypatch.setattr(speech_tracker, "next_state", recording)
    push_frame = SpeechTracker.push_frame

    def recording_fast_steps(tracker: SpeechTracker, frame: VadFrame):
        # Silence after silence and speech after speech skip `next_state` (two table entries read once
        # at import, docs/cpu.md seventh pass): such a frame's move is recorded here, and checked to be
        # the table's entry for the frame's event, with no edge.
        before, moves = tracker.state, len(seen)
        edge = push_frame(tracker, frame)
        if len(seen) == moves and frame.end_samples > tracker._floor_samples:
            event = VadEvent.SPEECH if frame.is_speech else VadEvent.NO_SPEECH
            assert TRANSITIONS[before, event] == (tracker.state, None) and edge is None
            seen.append((before, event, tracker.state, None))
        return edge

    monkeypatch.setattr(SpeechTracker, "push_frame", recording_fast_steps)
    return seen


def _frames(pattern: str, start_frame: int = 0) -> list[VadFrame]:
    """'s' a speech frame, '.' a silent one, 20 ms each."""
    return [
        VadFrame((start_frame + i) * FRAME_SAMPLES, (start_frame + i + 1) * FRAME_SAMPLES, c == "s")
        for i, c in enumerate(pattern)
    ]


def _check_chain(records: list[Record], tracker: SpeechTracker, edges: list[object]) -> None:
    """Each move starts where the last ended, the tracker ends where the last one did, and the edges it
    returned are exactly the table's edge kinds, in order."""
    state = SpeechState.SILENCE
    for source, _, target, _ in records:
        assert source is state
        state = target
    assert tracker.state is state
    assert [type(edge) for edge in edges] == [kind for *_, kind in records if kind is not None]


def test_a_click_a_turn_a_pause_and_a_resume_walk_the_table(records) -> None:
    tracker = SpeechTracker(onset_ms=60, prefix_padding_ms=300, onset_window_ms=100)
    pattern = "....s....sssss...s..sssss..."
    edges = tracker.push(_frames(pattern))
    assert [type(e) for e in edges] == [SpeechOnset, SpeechPause, SpeechResume, SpeechPause]
    assert len(records) == len(pattern)  # one event per frame
    _check_chain(records, tracker, edges)
    states = [target.value for _, _, target, _ in records]
    assert states[:6] == ["silence", "silence", "silence", "silence", "onset", "onset"]
    assert "hangover" in states and states[-1] == "hangover"
    tracker.reset(floor_ms=len(pattern) * 20)
    assert records[-1][1] is VadEvent.RESET and tracker.state is SpeechState.SILENCE


@pytest.mark.parametrize("speech_share", [0.1, 0.5, 0.9])
def test_random_frames_and_resets_only_move_through_the_table(records, speech_share: float) -> None:
    rng = random.Random(int(speech_share * 10))
    tracker = SpeechTracker()
    edges: list[object] = []
    resets = 0
    for i in range(5_000):
        if i % 487 == 0:
            tracker.reset(i * 20 - rng.choice((0, 40)))
            resets += 1
        edges += tracker.push(_frames("s" if rng.random() < speech_share else ".", i))
    _check_chain(records, tracker, edges)
    assert len(records) == 5_000 + resets
    assert {kind for *_, kind in records} >= {SpeechOnset, SpeechPause, None}
