"""The user's turns (``input_audio_buffer.*``): input audio, the frame classifier, turn detection, and
the commits that make user audio items (reference §3.3, §5).

Audio path (50 × per second): append → input buffer (session sample positions) → frame classifier
(webrtcvad) → turn detector → speech_started / speech_stopped → commit → user item → transcript → brain.

A user turn owns one item id from ``speech_started`` on; a listening pause (turn detection switched off
mid-speech) keeps that id, and the next manual commit commits the same turn without a response.
"""

from __future__ import annotations

from typing import Any

from mockengine.audio.g711 import G711InputStream
from mockengine.audio.vad import FrameClassifier
from mockengine.engines.stt import WordTiming
from mockengine.protocol import client_events as ce
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.session_config import ServerVad, TurnDetection
from mockengine.realtime.context import SessionContext
from mockengine.realtime.effects import NO_STEP, ProbeKey, Step, Trace, Transcribe
from mockengine.realtime.input_buffer import MIN_COMMIT_MS, InputAudioBuffer
from mockengine.realtime.items import UNINTELLIGIBLE_CODE, ConversationItems
from mockengine.realtime.prosody import Prosody
from mockengine.realtime.responses import Responses
from mockengine.realtime.turn_detection import (
    ProbeTranscript,
    SpeechStarted,
    SpeechStopped,
    TurnDetector,
    TurnSignal,
)
from mockengine.realtime.turn_state import TurnEvent, TurnState, next_turn_state

# Whether `append_audio` takes a whole 20 ms PCM16 frame between turns, and a speech frame in a turn, in
# one call each (`_append_frame_fused`); the tests switch it off to compare with the general path.
FUSED_QUIET_APPEND = True

# The states the append path reads on every 20 ms append, as module globals: in Python 3.11
# ``TurnState.LISTENING`` goes through EnumType's ``__getattr__`` hook (a method-wrapper made and called,
# ~190 ns a read against ~20 ns for a global; docs/cpu.md, eighteenth pass).
_LISTENING, _HANDED_OVER, _IN_TURN = TurnState.LISTENING, TurnState.HANDED_OVER, TurnState.IN_TURN

# Audio kept in the input buffer while turn detection is on and nobody speaks (ms).
IDLE_AUDIO_KEPT_MS = 15_000


class UserTurns:
    """The user's turns. ``state`` (a :class:`TurnState`), the turn's item id, the detector and its
    generation change only in :meth:`_transition`, by the table in ``turn_state``."""

    def __init__(self, ctx: SessionContext, items: ConversationItems, responses: Responses) -> None:
        self.ctx = ctx
        self.items = items
        self.responses = responses
        self.buffer = InputAudioBuffer()
        self.input_stream = G711InputStream()  # appends in G.711 decoded as one stream
        config = ctx.turn_detection
        self.classifier = FrameClassifier(threshold=_frame_threshold(config))
        self.state = TurnState.MANUAL if config is None else TurnState.LISTENING
        self.detector: TurnDetector | None = None
        if config is not None:
            self.detector = TurnDetector(config)
        self.turn_item_id: str | None = None  # the open turn's item (from speech_started)
        # A probe whose words are the committed turn's (server_vad prefetch) → that item's id.
        self.probe_items: dict[ProbeKey, str] = {}
        self._detector_generation = 0
        self._kept_for: TurnDetection | None = None  # the config `_kept_ms` was worked out for
        self._kept_ms = IDLE_AUDIO_KEPT_MS

    # -- client events --------------------------------------------------------------------------------

    def on_input_audio_buffer_append(self, event: ce.InputAudioBufferAppend, now_ms: float) -> Step:
        step = self.append_audio(event.audio, now_ms)
        # (`receive` and its callers may add to the step they get: never the shared read-only one)
        return Step() if step is NO_STEP else step

    def append_audio(self, audio: bytes, now_ms: float, format_type: str | None = None) -> Step:
        """An append's audio in ``format_type`` (None: the session's input format);
        ``RealtimeSession.receive_audio`` calls it without an event object (a WebRTC call's microphone
        with ``"audio/pcm"``). An append that changes nothing to send or run gets the shared read-only
        :data:`~mockengine.realtime.effects.NO_STEP`."""
        fmt, stream = format_type or self.ctx.view.input_format.type, self.input_stream
        buffer = self.buffer
        # PCM16 skips the stream's call: this runs 50 times a second per session (docs/cpu.md).
        if fmt == stream.format_type == "audio/pcm":
            pcm = audio
            classifier, detector, state = self.classifier, self.detector, self.state
            if (
                detector is not None
                and (state is _LISTENING or state is _HANDED_OVER or state is _IN_TURN)
                and FUSED_QUIET_APPEND
            ):
                step = self._append_frame_fused(audio, classifier, detector, now_ms, state is _IN_TURN)
                if step is not None:
                    return step
        else:
            pcm = stream.decode(audio, fmt)
            if fmt != "audio/pcm":
                # Half a PCM16 sample left by the format before: its other half will never come, and
                # joined to this decoded audio it would shift every later sample by a byte.
                buffer.drop_half_sample()
        limit_ms = self.ctx.options.max_input_buffer_ms
        if buffer.held_bytes + len(pcm) > limit_ms * 48:  # 48 bytes of PCM16 24 kHz per ms
            raise errors.input_buffer_full(buffer.buffered_ms, len(pcm) / 48, limit_ms)
        frames = self.classifier.push(buffer.append(pcm))
        detector = self.detector
        if detector is None or not frames:
            return NO_STEP
        signals = detector.push_frames(frames)
        step = self._on_signals(signals, now_ms) if signals else NO_STEP
        if self.state is _LISTENING or self.state is _HANDED_OVER:
            # Between turns only the recent past can become part of a turn (prefix padding, a late
            # semantic decision's replay); forgetting the rest keeps an hour of silence from piling up.
            # An idle timeout commits the silence it waited through, so that much is kept too.
            if detector.config is not self._kept_for:  # (worked out once per config, not per append)
                self._kept_for, self._kept_ms = detector.config, _idle_kept_ms(detector.config)
            buffer.keep_last_ms(self._kept_ms)
        return step

    def _append_frame_fused(
        self, pcm: bytes, classifier: FrameClassifier, detector: TurnDetector, now_ms: float, in_turn: bool
    ) -> Step | None:
        """``append_audio``'s work for PCM16 with turn detection on, made cheap for the two usual cases, one
        whole 20 ms frame of silence between turns (most appends of a conversation, 50 a second per
        session) and, ``in_turn``, one of speech in a turn (every append of a turn's talking): each
        object's own step for that case (``InputAudioBuffer.append_frame``,
        ``FrameClassifier.push_frame``, ``TurnDetector.push_quiet_frame`` / ``push_speaking_frame`` and,
        inside it, ``SpeechTracker.push_quiet_frame`` / ``push_speaking_frame``), the buffer's trim between
        turns only when it holds more than it keeps. Each step declines, having changed nothing, what is
        not its case, and the general step takes it from there: None (nothing changed at all: the general
        path, which also raises ``input_buffer_full``) when the buffer declines; ``FrameClassifier.push``
        for other lengths, bytes pending or no C module; ``TurnDetector.push_frames`` for any other frame
        (speech between turns, silence in a turn, a tracker at an edge). So events and errors are the
        general path's (``tests/unit/test_fused_quiet_append.py`` compares both on real speech, seeded
        ids included)."""
        buffer = self.buffer
        held_bytes = buffer.append_frame(pcm, self.ctx.options.max_input_buffer_ms * 48)
        if not held_bytes:
            return None
        frame = classifier.push_frame(pcm)
        if frame is None:
            frames = classifier.push(pcm)
            if not frames:
                return NO_STEP
        elif in_turn:
            if detector.push_speaking_frame(frame):
                return NO_STEP  # (in a turn the buffer keeps everything: no trim)
            frames = [frame]
        elif detector.push_quiet_frame(frame):
            if detector.config is not self._kept_for:
                self._kept_for, self._kept_ms = detector.config, _idle_kept_ms(detector.config)
            if held_bytes > self._kept_ms * 48:  # keep_last_ms's own early return, without its call
                buffer.keep_last_ms(self._kept_ms)
            return NO_STEP
        else:
            frames = [frame]
        # From here as `append_audio`'s general path goes on after the classifier.
        signals = detector.push_frames(frames)
        step = self._on_signals(signals, now_ms) if signals else NO_STEP
        if self.state is _LISTENING or self.state is _HANDED_OVER:
            if detector.config is not self._kept_for:
                self._kept_for, self._kept_ms = detector.config, _idle_kept_ms(detector.config)
            buffer.keep_last_ms(self._kept_ms)
        return step

    def on_input_audio_buffer_commit(self, event: ce.InputAudioBufferCommit, now_ms: float) -> Step:
        """``input_audio_buffer.committed`` and the user item, with no response (reference §3.4). A turn
        under way (its ``speech_started`` went out, also one left open by a listening pause) is what is
        committed, under its item id, and it is closed first with ``speech_stopped`` at the audio
        appended so far, so a client that tracks "the user is speaking" is not left waiting. Speech
        going on after the commit is a fresh onset (a new detector): a new ``speech_started``, a new item
        id. The live service's events here are not public: chosen, docs/realtime-protocol.md."""
        step = Step()
        if self.buffer.buffered_ms < MIN_COMMIT_MS:
            raise errors.commit_empty(self.buffer.buffered_ms)
        end_ms = self.buffer.total_ms
        closed = self._transition(TurnEvent.COMMIT)
        if closed is not None:
            step.events.append(
                se.input_audio_buffer_speech_stopped(
                    self.ctx.ids.event(), audio_end_ms=end_ms, item_id=closed
                )
            )
        pcm = self.buffer.take_until_ms(end_ms + 1)
        return step.extend(self.items.commit_user_audio(closed or self.ctx.ids.item(), pcm, transcribe=True))

    def on_input_audio_buffer_clear(self, event: ce.InputAudioBufferClear, now_ms: float) -> Step:
        """``input_audio_buffer.cleared``; a turn under way (its ``speech_started`` went out) is dropped
        and closed first with ``speech_stopped`` at the audio appended so far, so a client that tracks
        "the user is speaking" is not left waiting; no ``committed`` follows (its item never exists).
        The live service's events here are not public: chosen, docs/realtime-protocol.md. Speech going
        on after the clear is a fresh onset (a new detector): a new ``speech_started``, a new item id."""
        self.input_stream.reset()  # the cleared audio is no context for what comes next
        end_ms = self.buffer.total_ms
        self.buffer.clear()
        item_id = self._transition(TurnEvent.CLEAR)
        events = []
        if item_id is not None:
            events.append(
                se.input_audio_buffer_speech_stopped(
                    self.ctx.ids.event(), audio_end_ms=end_ms, item_id=item_id
                )
            )
        events.append(se.input_audio_buffer_cleared(self.ctx.ids.event()))
        return Step(events=events)

    # -- turn detection settings ----------------------------------------------------------------------

    def apply_turn_detection(
        self, old: TurnDetection | None, new: TurnDetection | None, now_ms: float
    ) -> Step:
        """A ``session.update`` changed ``audio.input.turn_detection`` from ``old`` to ``new``. A turn
        under way when the type changes goes on under the new detector, which hears it again from its
        onset: a turn already in its final silence may end at once (``speech_stopped``, the commit, the
        response), by the new type's rule."""
        if old != new:
            self.responses.idle_deadline_ms = None
        if new is not None:
            self.classifier.set_threshold(_frame_threshold(new))
        if old == new:
            return Step()
        if new is None:
            self._transition(TurnEvent.DETECTION_OFF)
        elif old is None:
            self._transition(TurnEvent.DETECTION_ON, new)
        elif old.type == new.type:
            self._transition(TurnEvent.DETECTION_RETUNED, new)
        else:
            previous = self.detector
            self._transition(TurnEvent.DETECTION_RETYPED, new)
            if self.state is TurnState.HANDED_OVER and previous is not None and self.detector is not None:
                return self._on_signals(self.detector.take_over(previous), now_ms)
        return Step()

    def _transition(self, event: TurnEvent, config: TurnDetection | None = None) -> str | None:
        """Apply one turn event (``config``: the new turn detection, for the ``DETECTION_*`` events) by
        the table, and what goes with it; returns the item id of the turn it closes, if any."""
        before = self.state
        self.state = next_turn_state(before, event)
        closed = None
        if event is TurnEvent.SPEECH_STARTED:
            if before is TurnState.LISTENING:
                self.turn_item_id = self.ctx.ids.item()
        elif event in (TurnEvent.SPEECH_STOPPED, TurnEvent.COMMIT, TurnEvent.CLEAR):
            closed, self.turn_item_id = self.turn_item_id, None
            if event is not TurnEvent.SPEECH_STOPPED and before in (TurnState.IN_TURN, TurnState.HANDED_OVER):
                assert self.detector is not None
                self._restart_detector(self.detector.config)  # speech going on is a fresh onset
        elif event is TurnEvent.DETECTION_OFF:
            # Listening pause: the turn under way (if any) stays open for the next manual commit, and
            # no reply will be created for it.
            self.detector = None
        elif event is TurnEvent.DETECTION_RETUNED:
            # Same kind of turn detection: new settings apply from now on, the turn under way goes on.
            assert self.detector is not None and config is not None
            self.detector.reconfigure(config)
        elif event in (TurnEvent.DETECTION_ON, TurnEvent.DETECTION_RETYPED):
            assert config is not None
            self._restart_detector(config)
            if event is TurnEvent.DETECTION_ON:
                self.turn_item_id = None
        return closed

    def _restart_detector(self, config: TurnDetection) -> None:
        """A fresh detector: speech already under way is an onset at this moment. Transcripts asked for
        by the previous detector are recognised by their generation and ignored."""
        self._detector_generation += 1
        self.detector = TurnDetector(
            config, floor_ms=self.buffer.total_ms, generation=self._detector_generation
        )

    # -- probes (a turn detector's transcripts of the speech so far) ---------------------------------

    def is_probe_wanted(self, key: ProbeKey) -> bool:
        if key in self.probe_items:
            return True
        return (
            key.generation == self._detector_generation
            and self.detector is not None
            and self.detector.is_probe_pending(key)
        )

    def on_probe_transcript(
        self,
        key: ProbeKey,
        text: str,
        words: tuple[WordTiming, ...],
        now_ms: float,
        prosody: Prosody | None = None,
    ) -> Step:
        """A probe's words (and the prosody its job measured): the committed item's transcript when the
        turn ended meanwhile, else cues for the current detector (a previous detector's probe is
        ignored)."""
        if key in self.probe_items:
            return self.responses.item_transcribed(self.probe_items.pop(key), text, now_ms, words=words)
        if self.detector is not None and key.generation == self._detector_generation:
            return self._on_signals(self.detector.on_transcript(key, text, words, prosody), now_ms)
        return Step()

    def on_probe_failed(
        self, key: ProbeKey, message: str, now_ms: float, code: str = UNINTELLIGIBLE_CODE
    ) -> Step:
        """A probe's transcription failed: the committed item's (announced as failed with ``code``),
        else the detector hears nothing intelligible."""
        item_id = self.probe_items.pop(key, None)
        if item_id is None:
            return self.on_probe_transcript(key, "", (), now_ms)
        return self.responses.item_transcription_failed(item_id, message, now_ms, code)

    # -- turn signals ---------------------------------------------------------------------------------

    def _on_signals(self, signals: list[TurnSignal], now_ms: float) -> Step:
        step = Step()
        for signal in signals:
            if isinstance(signal, SpeechStarted):
                step.extend(self._on_speech_started(signal, now_ms))
            elif isinstance(signal, SpeechStopped):
                step.extend(self._on_speech_stopped(signal, now_ms))
            elif isinstance(signal, ProbeTranscript):
                pcm = self.buffer.slice_ms(signal.start_ms, signal.end_ms)
                is_semantic = self.detector is not None and self.detector.kind == "semantic_vad"
                prosody_at_ms = signal.speech_end_ms - signal.start_ms if is_semantic else None
                step.effects.append(Transcribe(signal.key, pcm, language="en", prosody_at_ms=prosody_at_ms))
        return step

    def _on_speech_started(self, signal: SpeechStarted, now_ms: float) -> Step:
        self.responses.idle_deadline_ms = None
        was_handed_over = self.state is TurnState.HANDED_OVER
        self._transition(TurnEvent.SPEECH_STARTED)
        if was_handed_over:
            # A turn left open by a change of turn-detection type goes on: the client already has its
            # speech_started, and the audio since then stays part of it.
            return Step()
        assert self.turn_item_id is not None
        self.buffer.drop_before_ms(signal.audio_start_ms)
        step = Step(
            events=[
                se.input_audio_buffer_speech_started(
                    self.ctx.ids.event(),
                    audio_start_ms=signal.audio_start_ms,
                    item_id=self.turn_item_id,
                )
            ]
        )
        config = self.ctx.turn_detection
        if config is None or config.interrupt_response:
            step.events += self.responses.interrupt(now_ms)
        return step

    def _on_speech_stopped(self, signal: SpeechStopped, now_ms: float) -> Step:
        item_id = self._transition(TurnEvent.SPEECH_STOPPED)
        assert item_id is not None  # an IN_TURN turn has its id
        step = Step(
            events=[
                se.input_audio_buffer_speech_stopped(
                    self.ctx.ids.event(), audio_end_ms=signal.audio_end_ms, item_id=item_id
                )
            ]
        )
        step.effects.append(Trace("turn_end", self._turn_end_trace(item_id, signal)))
        pcm = self.buffer.take_until_ms(signal.audio_end_ms)
        if signal.transcript_key is not None:
            self.probe_items[signal.transcript_key] = item_id  # its words are already being transcribed
        is_transcribing = signal.transcript is not None or signal.transcript_key is not None
        step.extend(self.items.commit_user_audio(item_id, pcm, transcribe=not is_transcribing))
        if signal.transcript is not None:
            step.extend(
                self.responses.item_transcribed(
                    item_id, signal.transcript, now_ms, words=signal.transcript_words
                )
            )
        config = self.ctx.turn_detection
        if self.ctx.view.is_transcription:
            return step  # a transcription session only transcribes (create_response is moot there)
        if (config is None or config.create_response) and self.responses.active_id is None:
            step.extend(self.responses.start_default(now_ms))
        return step

    def _turn_end_trace(self, item_id: str, signal: SpeechStopped) -> dict[str, Any]:
        return {
            "item_id": item_id,
            "turn_detection": None if self.ctx.turn_detection is None else self.ctx.turn_detection.type,
            "reason": signal.reason,
            "audio_end_ms": signal.audio_end_ms,
            "speech_end_ms": signal.speech_end_ms,
            "decided_at_ms": signal.decided_at_ms,
            "transcript": signal.transcript,
            "cues": list(signal.cues),
        }

    # -- idle timeout ---------------------------------------------------------------------------------

    def on_idle_timeout(self, now_ms: float) -> Step:
        """``server_vad.idle_timeout_ms`` elapsed with no speech after the last reply was heard
        (reference §3.8): commit the (silent) buffer and respond."""
        self.responses.idle_deadline_ms = None
        if (
            self.ctx.view.is_transcription
            or not _idle_timeout_ms(self.ctx.turn_detection)
            or self.state is not TurnState.LISTENING
            or self.responses.active_id is not None
            or self.buffer.buffered_ms < MIN_COMMIT_MS
        ):
            return Step()  # turned off, someone speaks or is answered, or the client sends no audio
        self._transition(TurnEvent.IDLE_TIMEOUT)
        item_id = self.ctx.ids.item()
        start_ms, end_ms = self.buffer.start_ms, self.buffer.total_ms
        event = se.input_audio_buffer_timeout_triggered(
            self.ctx.ids.event(),
            audio_start_ms=start_ms,
            audio_end_ms=end_ms,
            item_id=item_id,
        )
        step = Step(events=[event])
        pcm = self.buffer.take_until_ms(end_ms)
        step.extend(self.items.commit_user_audio(item_id, pcm, transcribe=False))
        step.extend(self.responses.item_transcribed(item_id, "", now_ms))
        return step.extend(self.responses.start_default(now_ms))


def _frame_threshold(config: TurnDetection | None) -> float:
    """The frame classifier's threshold: server_vad's own; semantic_vad (none on the wire) and manual
    turns classify frames as server_vad does by default."""
    return config.threshold if isinstance(config, ServerVad) else ServerVad.threshold


def _idle_timeout_ms(config: TurnDetection | None) -> int | None:
    """``server_vad.idle_timeout_ms`` (None: no idle timeout, or not server_vad)."""
    return config.idle_timeout_ms if isinstance(config, ServerVad) else None


def _idle_kept_ms(config: TurnDetection) -> int:
    """Audio kept between turns under ``config`` (the detector's, the session's turn detection)."""
    return max(IDLE_AUDIO_KEPT_MS, _idle_timeout_ms(config) or 0)
