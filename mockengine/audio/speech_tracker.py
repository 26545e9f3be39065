"""Speech onset/offset: the state machine that turns classified frames (`VadFrame`) into speech edges.

    state     event               -> next      edge
    SILENCE   NO_SPEECH           -> SILENCE   -
    SILENCE   UNCONFIRMED_SPEECH  -> ONSET     -
    SILENCE   SPEECH              -> SPEECH    SpeechOnset
    ONSET     NO_SPEECH           -> SILENCE   -
    ONSET     UNCONFIRMED_SPEECH  -> ONSET     -
    ONSET     SPEECH              -> SPEECH    SpeechOnset
    SPEECH    SPEECH              -> SPEECH    -
    SPEECH    NO_SPEECH           -> HANGOVER  SpeechPause
    HANGOVER  NO_SPEECH           -> HANGOVER  -
    HANGOVER  UNCONFIRMED_SPEECH  -> HANGOVER  -
    HANGOVER  SPEECH              -> SPEECH    SpeechResume
    any       RESET               -> SILENCE   -

States: *SILENCE* (nothing heard since the last reset), *ONSET* (speech frames heard, accumulating toward
`onset_ms`; the onset's start will be padded by `prefix_padding_ms`), *SPEECH*, *HANGOVER* (after a pause:
silence accumulating, read as `silence_ms`, toward the turn detector's `silence_duration_ms`).

Each frame is one event. In SPEECH it is the frame itself: SPEECH or NO_SPEECH. Elsewhere the frame joins
a sliding window of the last `onset_window_ms` (none from before the last pause or reset): SPEECH once the
window holds at least `onset_ms` of speech frames (so a lone click never starts or resumes speech),
UNCONFIRMED_SPEECH while it holds fewer, NO_SPEECH when it holds none. `TRANSITIONS` is the table above;
`next_state` raises on any other pair. The tracker never ends a turn: the turn detector reads
`silence_ms` and calls `reset` (RESET) when it does.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from mockengine.audio.pcm import ms_to_samples, samples_to_ms


class SpeechState(enum.Enum):
    # Identity hashes (members are singletons): Enum's own hashes the name in Python, and the table is
    # looked up for each 20 ms frame of every session.
    __hash__ = object.__hash__

    SILENCE = "silence"
    ONSET = "onset"
    SPEECH = "speech"
    HANGOVER = "hangover"


class VadEvent(enum.Enum):
    __hash__ = object.__hash__

    NO_SPEECH = "no_speech"
    UNCONFIRMED_SPEECH = "unconfirmed_speech"
    SPEECH = "speech"
    RESET = "reset"


@dataclass(frozen=True)
class SpeechOnset:
    """Speech confirmed after silence. `padded_start_ms` = max(speech_start_ms - prefix, 0, floor)."""

    speech_start_ms: int
    padded_start_ms: int


@dataclass(frozen=True)
class SpeechPause:
    """First non-speech frame after speech; `speech_end_ms` is the end of the last speech frame."""

    speech_end_ms: int


@dataclass(frozen=True)
class SpeechResume:
    """Speech confirmed again after a pause within the same turn; `at_ms` is where it restarted."""

    at_ms: int


SpeechEdge = SpeechOnset | SpeechPause | SpeechResume
Transition = tuple[SpeechState, type[SpeechEdge] | None]

_S, _E = SpeechState, VadEvent
TRANSITIONS: dict[tuple[SpeechState, VadEvent], Transition] = {
    (_S.SILENCE, _E.NO_SPEECH): (_S.SILENCE, None),
    (_S.SILENCE, _E.UNCONFIRMED_SPEECH): (_S.ONSET, None),
    (_S.SILENCE, _E.SPEECH): (_S.SPEECH, SpeechOnset),
    (_S.ONSET, _E.NO_SPEECH): (_S.SILENCE, None),
    (_S.ONSET, _E.UNCONFIRMED_SPEECH): (_S.ONSET, None),
    (_S.ONSET, _E.SPEECH): (_S.SPEECH, SpeechOnset),
    (_S.SPEECH, _E.SPEECH): (_S.SPEECH, None),
    (_S.SPEECH, _E.NO_SPEECH): (_S.HANGOVER, SpeechPause),
    (_S.HANGOVER, _E.NO_SPEECH): (_S.HANGOVER, None),
    (_S.HANGOVER, _E.UNCONFIRMED_SPEECH): (_S.HANGOVER, None),
    (_S.HANGOVER, _E.SPEECH): (_S.SPEECH, SpeechResume),
    **{(state, _E.RESET): (_S.SILENCE, None) for state in SpeechState},
}


# (SILENCE, NO_SPEECH)'s next state, from the table: `SpeechTracker.push_frame`'s silence-after-silence
# step (most frames of a conversation) sets it without a lookup; it causes no edge.
_QUIET_NEXT_STATE, _QUIET_EDGE = TRANSITIONS[_S.SILENCE, _E.NO_SPEECH]
# (SPEECH, SPEECH)'s, likewise, for `SpeechTracker._step`'s speech-after-speech step (no edge either).
_SPEAKING_NEXT_STATE, _SPEAKING_EDGE = TRANSITIONS[_S.SPEECH, _E.SPEECH]
assert _QUIET_EDGE is None and _SPEAKING_EDGE is None
# The members read per frame, as module globals: in Python 3.11 ``SpeechState.SPEECH`` goes through
# EnumType's ``__getattr__`` hook (a method-wrapper made and called, ~190 ns a read against ~20 ns for a
# global; docs/cpu.md, eighteenth pass).
_SILENCE = _S.SILENCE  # (read on every quiet frame)
_SPEECH = _S.SPEECH  # (read on every frame of a turn: `_step`, `silence_ms`)
_NO_SPEECH, _UNCONFIRMED_SPEECH, _SPEECH_EVENT = _E.NO_SPEECH, _E.UNCONFIRMED_SPEECH, _E.SPEECH


class IllegalTransition(RuntimeError):
    """An event the state does not allow (SPEECH never sees UNCONFIRMED_SPEECH): a bug, not bad audio."""


def next_state(state: SpeechState, event: VadEvent) -> Transition:
    """The state after `event` in `state` and the kind of edge it causes (None: no edge).

    Raises:
        IllegalTransition: the pair is not in `TRANSITIONS`.
    """
    try:
        return TRANSITIONS[state, event]
    except KeyError:
        raise IllegalTransition(f"{event.value} is not allowed in state {state.value}") from None


class VadFrame(NamedTuple):
    """One classified frame; positions in 24 kHz input samples since the session's first audio.

    A NamedTuple rather than a frozen dataclass: 50 are made per second per session, and a frozen
    dataclass pays three ``object.__setattr__`` calls for each.
    """

    start_samples: int
    end_samples: int
    is_speech: bool

    @property
    def start_ms(self) -> int:
        return samples_to_ms(self.start_samples)

    @property
    def end_ms(self) -> int:
        return samples_to_ms(self.end_samples)

    @property
    def duration_samples(self) -> int:
        return self.end_samples - self.start_samples


class SpeechTracker:
    """Onset/offset state machine over `VadFrame`s; it changes state only through `TRANSITIONS`.

    `onset_ms`: speech needed within the last `onset_window_ms` to confirm an onset or a resume.
    `prefix_padding_ms`: audio kept before the speech start (OpenAI `prefix_padding_ms`).

    `push_quiet_frame` is `push_frame`'s silence-after-silence step alone (``UserTurns``' quiet append).
    """

    def __init__(self, onset_ms: int = 60, prefix_padding_ms: int = 300, onset_window_ms: int = 100) -> None:
        if onset_ms > onset_window_ms:
            raise ValueError(f"onset_ms ({onset_ms}) cannot exceed onset_window_ms ({onset_window_ms})")
        self.onset_samples = ms_to_samples(onset_ms)
        self.window_samples = ms_to_samples(onset_window_ms)
        self.prefix_padding_ms = prefix_padding_ms
        self._state = SpeechState.SILENCE
        self._window: deque[VadFrame] = deque()
        self._window_speech_frames = 0  # how many frames in the window are speech
        self._floor_samples = 0
        self._frames_end_samples = 0
        self._silence_start_samples = 0
        self._last_speech_end_samples: int | None = None

    @property
    def state(self) -> SpeechState:
        return self._state

    @property
    def last_speech_end_ms(self) -> int | None:
        """End of the last confirmed speech frame since the last reset, or None."""
        if self._last_speech_end_samples is None:
            return None
        return samples_to_ms(self._last_speech_end_samples)

    @property
    def silence_ms(self) -> int:
        """Length of the current non-speech run (ms), 0 while speaking.

        Measured from the end of the last confirmed speech frame (or the reset floor) to the end of the
        last frame seen; speech frames that never confirm (clicks) do not interrupt it.
        """
        if self._state is _SPEECH:
            return 0
        return samples_to_ms(max(0, self._frames_end_samples - self._silence_start_samples))

    @property
    def pending_speech_start_ms(self) -> int | None:
        """Start of speech frames heard but not (yet) confirmed as an onset or resume, else None.

        A turn detector about to end a turn waits while this is set: the speaker may be resuming.
        """
        if self._state is _SPEECH:
            return None
        starts = [f.start_samples for f in self._window if f.is_speech]
        return samples_to_ms(starts[0]) if starts else None

    def reset(self, floor_ms: int) -> None:
        """Return to SILENCE (RESET) and forget current speech; ignore audio before `floor_ms`.

        Speech still under way is detected again as a fresh onset, whose start and padded start are
        never earlier than `floor_ms`.
        """
        self._move(VadEvent.RESET)
        self._clear_window()
        self._floor_samples = ms_to_samples(floor_ms)
        self._frames_end_samples = max(self._frames_end_samples, self._floor_samples)
        self._silence_start_samples = self._floor_samples
        self._last_speech_end_samples = None

    def push(self, frames: list[VadFrame]) -> list[SpeechEdge]:
        """Feed classified frames in order; return the edges they cause, in order."""
        edges: list[SpeechEdge] = []
        for frame in frames:
            edge = self.push_frame(frame)
            if edge is not None:
                edges.append(edge)
        return edges

    def push_frame(self, frame: VadFrame) -> SpeechEdge | None:
        """Feed one classified frame (the next in order); return the edge it causes, if any."""
        if frame.end_samples <= self._floor_samples:
            return None
        self._frames_end_samples = frame.end_samples
        if not frame.is_speech and self._state is _SILENCE and not self._window_speech_frames:
            # Silence after silence, most frames of a conversation: `_step`'s first quiet branch, the
            # table's (SILENCE, NO_SPEECH), with no window to clear.
            # The table's own entry, read once at import (`_QUIET_NEXT_STATE`): `_move` and `next_state`
            # would be two calls per 20 ms append for a transition that never varies.
            if self._window:
                self._window.clear()
            self._state = _QUIET_NEXT_STATE
            return None
        return self._step(frame)

    def push_quiet_frame(self, frame: VadFrame) -> bool:
        """`push_frame` for silence after silence (a frame that is not speech, past the floor, in SILENCE
        with no speech in the window: the table's (SILENCE, NO_SPEECH), no edge), the step most frames of
        a conversation take: True having taken it; False having changed nothing otherwise, and
        `push_frame` then takes the frame. For ``UserTurns``' quiet append (50 a second per session)."""
        end_samples = frame.end_samples
        if (
            frame.is_speech
            or end_samples <= self._floor_samples
            or self._state is not _SILENCE
            or self._window_speech_frames
        ):
            return False
        self._frames_end_samples = end_samples
        if self._window:
            self._window.clear()
        self._state = _QUIET_NEXT_STATE
        return True

    def push_speaking_frame(self, frame: VadFrame) -> bool:
        """`push_frame` for speech after speech (a speech frame past the floor, in SPEECH: the table's
        (SPEECH, SPEECH), no edge), every frame of a turn's talking: True having taken it; False having
        changed nothing otherwise, and `push_frame` then takes the frame. For ``UserTurns``' fused append
        in a turn (docs/cpu.md, twenty-first pass); the same step as `_step`'s first branch."""
        end_samples = frame.end_samples
        if not frame.is_speech or end_samples <= self._floor_samples or self._state is not _SPEECH:
            return False
        self._frames_end_samples = end_samples
        self._state = _SPEAKING_NEXT_STATE
        self._last_speech_end_samples = self._silence_start_samples = end_samples
        return True

    def _move(self, event: VadEvent) -> type[SpeechEdge] | None:
        """Take `event` through the table; return the kind of edge it causes."""
        self._state, edge = next_state(self._state, event)
        return edge

    def _step(self, frame: VadFrame) -> SpeechEdge | None:
        if self._state is _SPEECH:
            if frame.is_speech:
                # Speech after speech, every frame of a turn's talking: the table's (SPEECH, SPEECH)
                # read once at import and `_mark_speech` inline, without their three calls.
                self._state = _SPEAKING_NEXT_STATE
                self._last_speech_end_samples = self._silence_start_samples = frame.end_samples
                return None
            self._move(_NO_SPEECH)
            self._clear_window()
            assert self._last_speech_end_samples is not None
            return SpeechPause(speech_end_ms=samples_to_ms(self._last_speech_end_samples))
        if not frame.is_speech and not self._window_speech_frames:
            # The usual frame between turns: silence after silence. Only the window's speech frames
            # count for an onset, and it holds none, so it can start afresh at the next speech frame.
            self._clear_window()
            self._move(_NO_SPEECH)
            return None
        speech_start = self._push_window(frame)
        if speech_start is not None:
            return self._confirm(speech_start, frame)
        self._move(_UNCONFIRMED_SPEECH if self._window_speech_frames else _NO_SPEECH)
        return None

    def _clear_window(self) -> None:
        self._window.clear()
        self._window_speech_frames = 0

    def _push_window(self, frame: VadFrame) -> int | None:
        """Add `frame` to the window; return the first speech frame's start if speech is confirmed."""
        self._window.append(frame)
        self._window_speech_frames += frame.is_speech
        while self._window[0].end_samples <= frame.end_samples - self.window_samples:
            self._window_speech_frames -= self._window.popleft().is_speech
        if not frame.is_speech:
            return None
        speech = [f for f in self._window if f.is_speech]
        if sum(f.duration_samples for f in speech) < self.onset_samples:
            return None
        return max(speech[0].start_samples, self._floor_samples)

    def _confirm(self, speech_start: int, frame: VadFrame) -> SpeechEdge:
        edge = self._move(_SPEECH_EVENT)
        self._clear_window()
        self._mark_speech(frame.end_samples)
        start_ms = samples_to_ms(speech_start)
        if edge is SpeechResume:
            return SpeechResume(at_ms=start_ms)
        floor_ms = samples_to_ms(self._floor_samples)
        return SpeechOnset(
            speech_start_ms=start_ms, padded_start_ms=max(0, floor_ms, start_ms - self.prefix_padding_ms)
        )

    def _mark_speech(self, end_samples: int) -> None:
        self._last_speech_end_samples = end_samples
        self._silence_start_samples = end_samples
