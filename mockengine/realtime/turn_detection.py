"""Turn detection: when a user turn starts and ends, from the audio (and, for semantic_vad, the words).

How this works
--------------
Audio frames (20 ms, webrtcvad, classified by the session's ``FrameClassifier``, see
``mockengine.audio.vad``) feed a :class:`SpeechTracker` that reports
speech edges: onset (speech confirmed; start includes ``prefix_padding_ms``), pause (first silent frame
after speech) and resume. The detector turns edges into turn signals:

``server_vad``: a pause that lasts ``silence_duration_ms`` ends the turn; ``audio_end_ms`` is the speech end
plus that silence, as the live service reports it (reference §3.3: it "includes the silence window").
:data:`PREFETCH_LEAD_MS` before the window ends it asks for the transcript (a probe, as below), so the
reply does not wait for whisper; the words never change the decision.

``semantic_vad``: at each pause that lasts :data:`PROBE_MS` the detector asks for a transcript of the turn
so far (a :class:`ProbeTranscript` signal: one executor job per pause, ``probe_job``, that runs one whisper
call with word timings and measures the prosody of the last syllable on the same audio). ``turn_scoring``
weighs the cues (untranscribed tail, the words, pitch, lengthening, energy; each with its weight and
reason in the trace) and the eagerness table below gives how long after the speech end the turn may
end. If speech resumes before that moment, the pause was mid-thought and the turn goes on.
``audio_end_ms`` is where the speech ended.

Determinism: a decision depends only on the audio (frame positions) and the transcript of a fixed audio
span, never on when the transcript arrives. Speech that starts before the decision moment cancels it if
it is confirmed as a resume (a decision waits while such speech is still unconfirmed). A transcript
that arrives after its decision moment is applied retroactively: if speech resumed only after the
decision moment, the turn still ends at the pause, and the frames heard since are replayed into a fresh
tracker so the next turn starts exactly where it would have with an instant transcript.

States per turn: idle → speaking ⇄ paused → (stopped → idle). Listening pause (turn detection switched
off) is handled by the session: it drops the detector and builds a new one with ``floor_ms`` = the moment
turn detection came back, so speech already under way is a fresh onset at or after that moment.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from mockengine.audio.pcm import INPUT_RATE_HZ
from mockengine.audio.vad import (
    SpeechOnset,
    SpeechResume,
    SpeechTracker,
    VadFrame,
)
from mockengine.engines.stt import WordTiming
from mockengine.protocol.session_config import SemanticVad, ServerVad, TurnDetection
from mockengine.realtime.effects import ProbeKey
from mockengine.realtime.prosody import NO_PROSODY, Prosody
from mockengine.realtime.semantic_rules import Completeness
from mockengine.realtime.turn_scoring import TurnEvidence, score_turn

# Silence after speech before semantic_vad asks what was said (inter-word gaps are shorter).
PROBE_MS = 100
# server_vad asks this long before its silence window ends (whisper takes ~0.35 s on 2 cores).
PREFETCH_LEAD_MS = 300
# How long after the end of speech a turn may end, by eagerness and the scored verdict (ms). The INCOMPLETE
# column is the maximum wait before a forced end of turn (reference §5: low 8 s, medium 4 s, high 2 s);
# UNKNOWN is mixed evidence. Values below the maximum were set on the tune half of ``turn_corpus`` (round 2:
# plus its burned first held-out half; round 3 added the hold below on all tuning splits).
SEMANTIC_WAIT_MS: dict[str, dict[Completeness, int]] = {
    "high": {
        # 350 ms outlasts the comma pauses of the corpus voices (up to ~360 ms) far more often than 250.
        Completeness.COMPLETE: 350,
        Completeness.QUESTION: 250,
        # Mixed evidence holds nearly as long as an unfinished thought (round 2: at 1500 ms a mid-thought
        # pause of 1.5 s with mixed cues was cut; a finished one that looks mixed costs 0.4 s more).
        Completeness.UNKNOWN: 1900,
        Completeness.INCOMPLETE: 2000,
    },
    "medium": {
        Completeness.COMPLETE: 500,
        Completeness.QUESTION: 450,
        # Round 4: 2.5 s outlasts a 2 s mid-thought pause with mixed cues (on all tuning splits 27 of 528
        # were cut at 2 s, 11 at 2.5 s); a finished turn with mixed cues waits 0.5 s more.
        Completeness.UNKNOWN: 2500,
        Completeness.INCOMPLETE: 4000,
    },
    "low": {
        Completeness.COMPLETE: 900,
        Completeness.QUESTION: 800,
        Completeness.UNKNOWN: 4000,
        Completeness.INCOMPLETE: 8000,
    },
}
SEMANTIC_WAIT_MS["auto"] = SEMANTIC_WAIT_MS["medium"]
# A finished verdict that a cue argues against (``Verdict.is_contested``) waits at least this long: the
# cost falls only on finished turns with mixed evidence, while a speaker who paused mid-thought gets
# this much more time to go on (round 3). Round 4 measured the hold at high on all tuning splits (924
# utterances): without it 23 of 446 mid-thought pauses were cut, with 1.3 s 16, with 1.6 s 12; the
# statements it slows (11 of 180) are the same at either length, and the median is not among them.
SEMANTIC_HOLD_MS: dict[str, int] = {"high": 1600, "medium": 1600, "low": 2100, "auto": 1600}
# Frames kept for retroactive decisions: longer than the longest wait (low: 8 s).
HISTORY_MS = 10_000
ONSET_MS = 60


@dataclass(frozen=True)
class SpeechStarted:
    audio_start_ms: int


@dataclass(frozen=True)
class SpeechStopped:
    audio_end_ms: int  # what speech_stopped reports
    speech_end_ms: int  # end of the last speech frame
    reason: str  # "silence", "complete_utterance", "question", "timeout", …
    transcript: str | None = None  # semantic_vad: the judged transcript of [turn start, speech_end_ms]
    transcript_start_ms: int | None = None
    decided_at_ms: int = 0  # the audio position at which the turn ended (for traces and benchmarks)
    transcript_key: ProbeKey | None = None  # a probe still being transcribed whose text is this turn's
    cues: tuple[dict[str, object], ...] = ()  # semantic_vad: the scored cues (cue, weight, reason)
    transcript_words: tuple[WordTiming, ...] = ()  # whisper's word timings of ``transcript``


@dataclass(frozen=True)
class ProbeTranscript:
    key: ProbeKey
    start_ms: int
    end_ms: int
    speech_end_ms: int = 0  # where the speech before this pause ended (session ms)


TurnSignal = SpeechStarted | SpeechStopped | ProbeTranscript


@dataclass
class _Probe:
    key: ProbeKey
    start_ms: int
    speech_end_ms: int
    superseded_at_ms: int | None = None  # where speech resumed after this pause
    decision_at_ms: int | None = None  # known once the transcript is judged
    transcript: str | None = None
    words: tuple[WordTiming, ...] = ()  # whisper's word timings of ``transcript``
    reason: str = ""
    cues: tuple[dict[str, object], ...] = ()


class TurnDetector:
    """One session's turn detection for a ``server_vad`` or ``semantic_vad`` config (reference §5)."""

    def __init__(self, config: TurnDetection, floor_ms: int = 0, generation: int = 0) -> None:
        """``generation`` goes into this detector's probe keys (a session numbers its detectors)."""
        self.config = config
        self.kind: str = config.type
        self._tracker = SpeechTracker(onset_ms=ONSET_MS, prefix_padding_ms=_prefix_padding_ms(config))
        self._tracker.reset(floor_ms)
        self._history: deque[VadFrame] = deque(maxlen=HISTORY_MS // 20)
        self._turn_start_ms: int | None = None
        self._probes: list[_Probe] = []
        self._generation = generation
        self._probe_count = 0
        self._audio_ms = floor_ms
        self._floor_ms = floor_ms

    def take_over(self, previous: TurnDetector) -> list[TurnSignal]:
        """Go on with ``previous``'s open turn (turn detection changed type mid-turn): the frames heard
        since its onset (at most ``HISTORY_MS``) are heard again, so a turn whose speech already ended
        ends by this detector's rule, instead of waiting for an onset that may never come."""
        start_ms = previous._turn_start_ms if previous._turn_start_ms is not None else previous._floor_ms
        frames = [frame for frame in previous._history if frame.start_ms >= start_ms]
        if not frames:
            return []
        self._tracker.reset(frames[0].start_ms)
        self._floor_ms = self._audio_ms = frames[0].start_ms
        return self.push_frames(frames)

    def reconfigure(self, config: TurnDetection) -> None:
        """New settings of the same ``type`` (silence, padding, eagerness, flags), from now on."""
        self.config = config
        self._tracker.prefix_padding_ms = _prefix_padding_ms(config)

    @property
    def _eagerness(self) -> str:
        assert isinstance(self.config, SemanticVad)
        return self.config.eagerness

    def is_probe_pending(self, key: ProbeKey) -> bool:
        """Whether a probe's transcript can still matter (the shell skips work that cannot)."""
        return any(p.key == key for p in self._probes)

    def _shortest_wait_ms(self) -> int:
        if self.kind == "server_vad":
            return 10**9  # its probes only prefetch the final pause's words
        return min(SEMANTIC_WAIT_MS[self._eagerness].values())

    @property
    def in_turn(self) -> bool:
        return self._turn_start_ms is not None

    def push_frames(self, frames: list[VadFrame]) -> list[TurnSignal]:
        """Feed classified frames (session positions), in order."""
        if len(frames) == 1:  # one 20 ms append (50 a second per session)
            frame = frames[0]
            if self._turn_start_ms is None and not frame.is_speech:
                # `push_quiet_frame` inline (its call and `end_ms`'s two cost ~10 % of a quiet append).
                self._history.append(frame)
                self._audio_ms = frame.end_samples * 1000 // INPUT_RATE_HZ  # samples_to_ms
                self._tracker.push_frame(frame)
                return []
            self._history.append(frame)
            return self._on_frame(frame)
        signals: list[TurnSignal] = []
        for frame in frames:
            self._history.append(frame)
            signals.extend(self._on_frame(frame))
        return signals

    def push_quiet_frame(self, frame: VadFrame) -> bool:
        """``push_frames([frame])`` for a frame that is not speech, between turns (not ``in_turn``), that
        the tracker takes as silence after silence (`SpeechTracker.push_quiet_frame`): no onset can come
        of it, so it signals nothing. True having taken it; False having changed nothing otherwise, and
        ``push_frames`` then takes the frame. For ``UserTurns``' quiet append (50 a second per session)."""
        if self._turn_start_ms is not None or not self._tracker.push_quiet_frame(frame):
            return False
        self._history.append(frame)
        self._audio_ms = frame.end_samples * 1000 // INPUT_RATE_HZ  # samples_to_ms
        return True

    def push_speaking_frame(self, frame: VadFrame) -> bool:
        """``push_frames([frame])`` for a speech frame in a turn that the tracker takes as speech after
        speech (`SpeechTracker.push_speaking_frame`): no edge, no pause to time, so it signals nothing.
        True having taken it; False having changed nothing otherwise, and ``push_frames`` then takes the
        frame. For ``UserTurns``' fused append in a turn (every 20 ms of a turn's talking)."""
        if self._turn_start_ms is None or not self._tracker.push_speaking_frame(frame):
            return False
        self._history.append(frame)
        self._audio_ms = frame.end_samples * 1000 // INPUT_RATE_HZ  # samples_to_ms
        return True

    def on_transcript(
        self, key: ProbeKey, text: str, words: tuple[WordTiming, ...] = (), prosody: Prosody | None = None
    ) -> list[TurnSignal]:
        """A probe's result arrived: the transcript, whisper's word timings (ms from the probe's start) and
        the prosody of the last syllable, measured in the same job (None: not measured). Stale keys are
        ignored; server_vad only keeps the text (and the words, the item's logprobs when the turn ends
        at this pause)."""
        probe = next((p for p in self._probes if p.key == key), None)
        if probe is None:
            return []
        probe.words = words
        if self.kind == "server_vad":
            probe.transcript = text
            return []
        evidence = TurnEvidence(text, probe.speech_end_ms - probe.start_ms, words, prosody or NO_PROSODY)
        verdict = score_turn(evidence, self._eagerness)
        wait_ms = SEMANTIC_WAIT_MS[self._eagerness][verdict.completeness]
        if verdict.is_contested:
            wait_ms = max(wait_ms, SEMANTIC_HOLD_MS[self._eagerness])
        probe.decision_at_ms = probe.speech_end_ms + wait_ms
        probe.transcript = text
        probe.reason = _reason(verdict.completeness, verdict.reason, verdict.is_contested)
        probe.cues = tuple(cue.as_dict() for cue in verdict.cues)
        return self._settle(self._audio_ms)

    # -- frames ---------------------------------------------------------------------------------------

    def _on_frame(self, frame: VadFrame) -> list[TurnSignal]:
        self._audio_ms = frame.end_ms
        signals: list[TurnSignal] = []
        edge = self._tracker.push_frame(frame)
        if edge is not None:
            signals.extend(self._on_edge(edge, frame))
        if self._turn_start_ms is None:
            return signals
        silence_ms = self._tracker.silence_ms
        if silence_ms == 0:  # speaking (most frames of a turn): no pause to time
            return signals
        end_ms = self._tracker.last_speech_end_ms
        if end_ms is None:
            return signals
        if self.kind == "server_vad":
            return signals + self._server_vad_frame(frame, end_ms, silence_ms)
        if silence_ms >= PROBE_MS:
            signals.extend(self._probe(end_ms, frame))
        signals.extend(self._settle(frame.end_ms))
        return signals

    def _server_vad_frame(self, frame: VadFrame, end_ms: int, silence_ms: int) -> list[TurnSignal]:
        assert isinstance(self.config, ServerVad)
        silence_window = self.config.silence_duration_ms
        if silence_ms >= silence_window:
            probe = next((p for p in self._probes if p.speech_end_ms == end_ms), None)
            if probe is None:
                return self._stop(end_ms + silence_window, end_ms, "silence", None, frame.end_ms)
            pending_key = probe.key if probe.transcript is None else None
            return self._stop(
                end_ms + silence_window,
                end_ms,
                "silence",
                probe.transcript,
                frame.end_ms,
                probe.start_ms,
                pending_key,
                words=probe.words,
            )
        # Transcribe early, while the silence window runs, so the reply need not wait for whisper.
        prefetch_ms = silence_window - PREFETCH_LEAD_MS
        if prefetch_ms >= PROBE_MS and silence_ms >= prefetch_ms:
            return self._probe(end_ms, frame)
        return []

    def _probe(self, end_ms: int, frame: VadFrame) -> list[TurnSignal]:
        """Ask once per pause for the words of the turn so far, with the silence heard (cut off at the
        last speech frame, whisper tends to close a trailing phrase with "." instead of "...")."""
        if self._turn_start_ms is None or any(p.speech_end_ms == end_ms for p in self._probes):
            return []
        self._probe_count += 1
        probe = _Probe(ProbeKey(self._generation, self._probe_count), self._turn_start_ms, end_ms)
        self._probes.append(probe)
        return [ProbeTranscript(probe.key, probe.start_ms, frame.end_ms, end_ms)]

    def _on_edge(self, edge: object, frame: VadFrame) -> list[TurnSignal]:
        if isinstance(edge, SpeechOnset):
            self._turn_start_ms = edge.padded_start_ms
            return [SpeechStarted(edge.padded_start_ms)]
        if isinstance(edge, SpeechResume):
            for probe in self._probes:
                if probe.superseded_at_ms is None:
                    probe.superseded_at_ms = edge.at_ms
            # A pause shorter than every possible wait can never end the turn: forget it (no need to
            # wait for, or even run, its transcription).
            shortest = self._shortest_wait_ms()
            self._probes = [
                p
                for p in self._probes
                if p.superseded_at_ms is None or p.superseded_at_ms - p.speech_end_ms > shortest
            ]
        return []

    def _settle(self, now_audio_ms: int) -> list[TurnSignal]:
        """Apply, in pause order, every semantic decision whose moment has come."""
        for probe in self._probes:
            if probe.decision_at_ms is None:
                return []  # an earlier pause is undecided: later ones must wait for it
            was_resumed_first = (
                probe.superseded_at_ms is not None and probe.superseded_at_ms <= probe.decision_at_ms
            )
            if was_resumed_first:
                continue
            pending = self._tracker.pending_speech_start_ms
            if pending is not None and pending <= probe.decision_at_ms:
                return []  # speech began before the decision moment: wait to see if it is a resume
            if probe.decision_at_ms <= now_audio_ms:
                return self._stop(
                    probe.speech_end_ms,
                    probe.speech_end_ms,
                    probe.reason,
                    probe.transcript,
                    probe.decision_at_ms,
                    probe.start_ms,
                    cues=probe.cues,
                    words=probe.words,
                )
            return []
        return []

    def _stop(
        self,
        audio_end_ms: int,
        speech_end_ms: int,
        reason: str,
        transcript: str | None,
        decided_at_ms: int,
        transcript_start_ms: int | None = None,
        transcript_key: ProbeKey | None = None,
        cues: tuple[dict[str, object], ...] = (),
        words: tuple[WordTiming, ...] = (),
    ) -> list[TurnSignal]:
        signals: list[TurnSignal] = [
            SpeechStopped(
                audio_end_ms,
                speech_end_ms,
                reason,
                transcript,
                transcript_start_ms,
                decided_at_ms,
                transcript_key,
                cues,
                words,
            )
        ]
        self._turn_start_ms = None
        self._probes.clear()
        self._tracker.reset(decided_at_ms)
        # Frames already heard after a late decision: replay them so the next onset lands where it would
        # have with an instant transcript.
        for frame in _frames_from(self._history, decided_at_ms):
            for edge in self._tracker.push([frame]):
                if isinstance(edge, SpeechOnset):
                    self._turn_start_ms = edge.padded_start_ms
                    signals.append(SpeechStarted(edge.padded_start_ms))
        return signals


def _frames_from(history: deque[VadFrame], start_ms: int) -> list[VadFrame]:
    """The frames of ``history`` (oldest first, starts increasing) that start at or after ``start_ms``,
    found from the newest back: at a turn's end usually none or a few of the up to 500 held (the whole
    history read through ``start_ms``'s conversion was ~0.5 M instructions a turn; docs/cpu.md,
    twenty-first pass)."""
    frames: list[VadFrame] = []
    for frame in reversed(history):
        if frame.start_ms < start_ms:
            break
        frames.append(frame)
    frames.reverse()
    return frames


def _reason(completeness: Completeness, detail: str, is_held: bool = False) -> str:
    names = {
        Completeness.COMPLETE: "complete_utterance",
        Completeness.QUESTION: "question",
        Completeness.UNKNOWN: "uncertain_timeout",
        Completeness.INCOMPLETE: "timeout",
    }
    return f"{names[completeness]}{'_held' if is_held else ''}:{detail}"


def _prefix_padding_ms(config: TurnDetection) -> int:
    """semantic_vad has no ``prefix_padding_ms`` on the wire: its turns keep server_vad's default."""
    return config.prefix_padding_ms if isinstance(config, ServerVad) else ServerVad.prefix_padding_ms
