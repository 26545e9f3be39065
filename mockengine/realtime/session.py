"""The per-session state machine (sans-IO): client events in, server events and effects out.

How this works
--------------
The shell calls :meth:`RealtimeSession.receive` with each parsed client event and the wall time
``now_ms``; effect results come back through ``on_transcript`` / ``on_speech`` (and their ``*_failed``
twins); :meth:`tick` releases paced audio when :meth:`next_deadline_ms` comes due. Every call returns a
:class:`Step`. Nothing here awaits, reads a clock or touches a socket, so tests replay exact timing.

Audio path (50 × per second): append → input buffer (session sample positions) → frame classifier
(webrtcvad) → turn detector → speech_started / speech_stopped → commit → user item → transcript → brain.

A user turn owns one item id from ``speech_started`` on; a listening pause (turn detection switched off
mid-speech) keeps that id, and the next manual commit commits the same turn without a response.
Responses: at most one active in the default conversation (``conversation: "none"`` may run beside it);
a response waits ("thinking") until every user audio item in its context has a transcript, then asks the
brain and streams the reply (``streaming.ResponseStreamer``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mockengine.audio.g711 import from_pcm16_24k, to_pcm16_24k
from mockengine.audio.vad import FrameClassifier
from mockengine.brain.model import Brain, ImageFacts
from mockengine.engines.stt import WordTiming
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import default_session, merge_session, validate_turn_detection
from mockengine.realtime.audio_store import AudioSpill
from mockengine.realtime.conversation import Conversation, Item, item_from_wire
from mockengine.realtime.effects import Step, Trace, Transcribe
from mockengine.realtime.input_buffer import MIN_COMMIT_MS, InputAudioBuffer
from mockengine.realtime.prosody import measure_prosody
from mockengine.realtime.replies import build_reply_request, response_params
from mockengine.realtime.response import Pacing, Response, ResponseParams
from mockengine.realtime.streaming import ResponseStreamer, TokenCounting
from mockengine.realtime.turn_detection import (
    ProbeTranscript,
    SpeechStarted,
    SpeechStopped,
    TurnDetector,
    TurnSignal,
)

# Audio kept in the input buffer while turn detection is on and nobody speaks (ms).
IDLE_AUDIO_KEPT_MS = 15_000


@dataclass(frozen=True)
class SessionOptions:
    model: str
    pacing: Pacing = Pacing()
    session_max_s: int = 3600
    created_at_s: int = 0  # unix time of creation, for expires_at
    # The scenario persona's voice, shown as the session's default in session.created (None: "alloy").
    voice: str | None = None
    # A validated session-create request applied at creation (an ephemeral client secret's session).
    initial_session: dict[str, Any] | None = None
    # Bounds against runaway clients (settings max_input_buffer_s, max_conversation_items).
    max_input_buffer_ms: int = 900_000
    max_conversation_items: int = 4096
    # Audio held by conversation items (user turns, replies, client audio); the oldest go first.
    max_conversation_audio_ms: int = 3_600_000
    # Item audio kept in memory (newest first); older item audio moves to a spill file in
    # ``audio_spill_dir`` (None: the system's temp dir). Negative: keep it all in memory.
    audio_memory_ms: int = 30_000
    audio_spill_dir: str | None = None


class RealtimeSession:
    def __init__(
        self,
        options: SessionOptions,
        *,
        brain: Brain,
        ids: IdFactory,
        tokens: TokenCounting,
        describe_image: Callable[[str], ImageFacts],
    ) -> None:
        self.options = options
        self.ids = ids
        self.brain = brain
        self.tokens = tokens
        self.describe_image = describe_image
        self.config = default_session(
            options.model, ids.session(), options.created_at_s + options.session_max_s
        )
        if options.voice is not None:
            self.config["audio"]["output"]["voice"] = options.voice
        if options.initial_session:
            self.config = merge_session(self.config, options.initial_session)
        self.conversation = Conversation(ids.conversation())
        self.audio_spill = AudioSpill(options.audio_memory_ms * 48, options.audio_spill_dir)
        self.buffer = InputAudioBuffer()
        self.classifier = FrameClassifier(threshold=float((self._turn_detection or {}).get("threshold", 0.5)))
        self.detector: TurnDetector | None = TurnDetector(self._turn_detection or {}, probe_prefix="turn0:p")
        self.turn_item_id: str | None = None  # the user turn under way (from speech_started)
        self.responses: dict[str, ResponseStreamer] = {}
        self.active_response_id: str | None = None  # the default conversation's active response
        # User audio items still being transcribed, by id. A result applies only to the very item it was
        # asked for (the client may delete or replace an id meanwhile).
        self.pending_transcripts: dict[str, Item] = {}
        self.probe_items: dict[str, str] = {}  # probe key → the committed item its transcript belongs to
        self.response_count = 0
        self._detector_generation = 0
        self._audio_was_sent = False  # by finished responses; see _has_assistant_audio
        self._handlers = self._handler_table()
        self.idle_deadline_ms: float | None = None  # server_vad idle_timeout_ms, armed after a reply

    # -- public API -----------------------------------------------------------------------------------

    def start(self) -> Step:
        return Step(events=[self.emit("session.created", session=copy.deepcopy(self.config))])

    def receive(self, event: ce.ClientEvent, now_ms: float) -> Step:
        """Apply one client event. Client mistakes become an ``error`` event; nothing else changes."""
        try:
            return self._dispatch(event, now_ms)
        except ProtocolError as exc:
            exc.event_id = event.event_id
            return self.error(exc)

    def receive_audio(self, audio: bytes, event_id: str | None, now_ms: float) -> Step:
        """``receive(InputAudioBufferAppend(audio, event_id), now_ms)`` without the event object: the
        shell's path for plain appends (50 a second per streaming session)."""
        try:
            return self._append_audio(audio, now_ms)
        except ProtocolError as exc:
            exc.event_id = event_id
            return self.error(exc)

    def error(self, exc: ProtocolError) -> Step:
        return Step(events=[self.emit("error", error=exc.payload())])

    def close(self) -> None:
        """Release what the session holds (items and their audio, the input buffer, responses, the spill
        file) when its connection ends. The session's own object graph has reference cycles (handlers
        are bound methods), which only the cycle collector frees; the bulk of its memory goes here, at
        once, whenever that runs."""
        for item in self.conversation:
            item.audio = b""
        self.conversation = Conversation(self.conversation.id)
        self.buffer = InputAudioBuffer()
        self.responses.clear()
        self.pending_transcripts.clear()
        self.probe_items.clear()
        self.audio_spill.close()

    def fail_response(self, response_id: str, error: dict[str, Any], now_ms: float) -> Step:
        """End an active response now with ``status: "failed"`` (``error`` as ``status_details.error``):
        the shell's fault injection uses it; a response already finished is left alone."""
        streamer = self.responses.get(response_id)
        if streamer is None or not streamer.r.is_active:
            return Step()
        step = Step(events=streamer.fail(error.get("code") or "server_error", str(error.get("message", ""))))
        self._forget_if_done(streamer, now_ms)
        return step

    def tick(self, now_ms: float) -> Step:
        step = Step()
        for streamer in list(self.responses.values()):
            step.events += streamer.advance(now_ms)
            self._forget_if_done(streamer, now_ms)
        if self.idle_deadline_ms is not None and now_ms >= self.idle_deadline_ms:
            step.extend(self._on_idle_timeout(now_ms))
        return step

    def _on_idle_timeout(self, now_ms: float) -> Step:
        """``server_vad.idle_timeout_ms`` elapsed with no speech after the last reply was heard
        (reference §3.8): commit the (silent) buffer and respond."""
        self.idle_deadline_ms = None
        config = self._turn_detection or {}
        if (
            config.get("type") != "server_vad"
            or not config.get("idle_timeout_ms")
            or self.detector is None
            or self.detector.in_turn
            or self.active_response_id is not None
            or self.buffer.buffered_ms < MIN_COMMIT_MS
        ):
            return Step()  # turned off, someone speaks or is answered, or the client sends no audio
        item_id = self.ids.item()
        start_ms, end_ms = self.buffer.start_ms, self.buffer.total_ms
        step = Step(
            events=[
                self.emit(
                    "input_audio_buffer.timeout_triggered",
                    audio_start_ms=start_ms,
                    audio_end_ms=end_ms,
                    item_id=item_id,
                )
            ]
        )
        step.extend(self._commit_user_audio(item_id, self.buffer.take_until_ms(end_ms), "", now_ms))
        return step.extend(self._start_response(response_params(self.config, {}), now_ms))

    def is_wanted(self, key: str) -> bool:
        """Whether an effect's result can still be used: the shell skips transcribing or speaking for a
        response that ended, an item that is gone, or a pause the speaker already talked through."""
        kind, _, ident = key.partition(":")
        if kind == "item":
            pending = self.pending_transcripts.get(ident)
            if pending is None:
                return False
            # In the conversation still, or inline input of a response that is still waiting for it.
            return pending is self.conversation.get(ident) or any(
                pending in (s.r.params.input_items or ()) for s in self.responses.values()
            )
        if key in self.probe_items:
            return True
        if kind.startswith("turn"):
            return (
                self.detector is not None
                and kind == f"turn{self._detector_generation}"
                and self.detector.is_probe_pending(key)
            )
        return key.rpartition(":")[0] in self.responses

    def next_deadline_ms(self) -> float | None:
        """When ``tick`` has something to do next (session ms), or None: a reply's next audio, the idle
        timeout. Only events and effects move these; an audio append that emits and asks for nothing
        leaves them as they were, so the server does not re-arm its timer after one (checked in
        tests/unit/test_hot_path.py)."""
        deadlines = [d for s in self.responses.values() if (d := s.next_deadline_ms()) is not None]
        if self.idle_deadline_ms is not None:
            deadlines.append(self.idle_deadline_ms)
        return min(deadlines) if deadlines else None

    def on_transcript(self, key: str, text: str, now_ms: float, words: tuple[WordTiming, ...] = ()) -> Step:
        """A transcript arrived (``words``: whisper's word timings, which a semantic_vad probe uses)."""
        kind, _, ident = key.partition(":")
        if kind == "item":
            return self._item_transcribed(ident, text, now_ms)
        if key in self.probe_items:
            return self._item_transcribed(self.probe_items.pop(key), text, now_ms)
        if self.detector is not None and kind == f"turn{self._detector_generation}":
            return self._on_signals(self.detector.on_transcript(key, text, words), now_ms)
        return Step()

    def on_transcript_failed(self, key: str, message: str, now_ms: float) -> Step:
        """The engine could not transcribe: a probe counts as unintelligible; an item gets the protocol's
        ``…input_audio_transcription.failed`` (when transcription events were asked for)."""
        kind, _, item_id = key.partition(":")
        if key in self.probe_items:
            item_id = self.probe_items.pop(key)
        elif kind != "item":
            return self.on_transcript(key, "", now_ms)
        step = Step()
        if self._is_transcribing and self.pending_transcripts.get(item_id) is self.conversation.get(item_id):
            error = {
                "type": "transcription_error",
                "code": "audio_unintelligible",
                "message": message,
                "param": None,
            }
            step.events.append(
                self.emit(
                    "conversation.item.input_audio_transcription.failed",
                    item_id=item_id,
                    content_index=0,
                    error=error,
                )
            )
        return step.extend(self._item_transcribed(item_id, "", now_ms, announce=False))

    def on_speech(self, key: str, pcm16: bytes, now_ms: float) -> Step:
        response_id, _, index = key.rpartition(":")
        streamer = self.responses.get(response_id)
        if streamer is None:
            return Step()  # the response ended (cancelled) before its speech was ready
        streamer.on_speech(int(index), pcm16)
        return self.tick(now_ms)

    def on_speech_failed(self, key: str, message: str, now_ms: float) -> Step:
        response_id = key.rpartition(":")[0]
        streamer = self.responses.get(response_id)
        if streamer is None:
            return Step()
        step = Step(events=streamer.fail("speech_synthesis_failed", message))
        self._forget_if_done(streamer, now_ms)
        return step

    # -- plumbing -------------------------------------------------------------------------------------

    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "event_id": self.ids.event(), **fields}

    @property
    def _turn_detection(self) -> dict[str, Any] | None:
        return self.config["audio"]["input"]["turn_detection"]

    def _dispatch(self, event: ce.ClientEvent, now_ms: float) -> Step:
        return self._handlers[type(event)](event, now_ms)

    def _handler_table(self) -> dict[type, Callable[[Any, float], Step]]:
        """Each registered client event class → ``self.on_<its wire type>``; a missing handler fails here,
        at construction, not on the first such event."""
        return {cls: getattr(self, ce.handler_name(cls.type)) for cls in ce.REGISTRY.values()}

    def on_session_close(self, event: ce.SessionClose, now_ms: float) -> Step:
        """The live service accepts ``session.close`` but what it does is unknown (reference §1): accepted,
        and it changes nothing."""
        return Step()

    def on_output_audio_buffer_clear(self, event: ce.OutputAudioBufferClear, now_ms: float) -> Step:
        """WebRTC only (reference §13): the transport owns the audio being played and clears it."""
        return Step()

    # -- session.update -------------------------------------------------------------------------------

    def on_session_update(self, event: ce.SessionUpdate, now_ms: float) -> Step:
        update = event.session
        new_voice = update.get("audio", {}).get("output", {}).get("voice")
        if (
            new_voice is not None
            and new_voice != self.config["audio"]["output"]["voice"]
            and self._has_assistant_audio
        ):
            raise errors.cannot_update_voice()
        old = self._turn_detection
        merged = merge_session(self.config, update)
        validate_turn_detection(merged["audio"]["input"]["turn_detection"])
        self.config = merged
        if old != self._turn_detection:
            self.idle_deadline_ms = None
        self._apply_turn_detection(old, self._turn_detection)
        return Step(events=[self.emit("session.updated", session=copy.deepcopy(self.config))])

    def _apply_turn_detection(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if new is not None:
            self.classifier.set_threshold(float(new.get("threshold", 0.5)))
        if old == new:
            return
        if new is None:
            # Listening pause: the turn under way (if any) stays open for the next manual commit, and
            # no reply will be created for it.
            self.detector = None
            return
        if old is not None and old["type"] == new["type"] and self.detector is not None:
            # Same kind of turn detection: new settings apply from now on, the turn under way goes on.
            self.detector.reconfigure(new)
            return
        self._restart_turn_detection(new)
        if old is None:
            self.turn_item_id = None

    def _restart_turn_detection(self, config: dict[str, Any]) -> None:
        """A fresh detector: speech already under way is an onset at this moment. Transcripts asked for
        by the previous detector are recognised by their generation and ignored."""
        self._detector_generation += 1
        self.detector = TurnDetector(
            config, floor_ms=self.buffer.total_ms, probe_prefix=f"turn{self._detector_generation}:p"
        )

    # -- input audio ----------------------------------------------------------------------------------

    def on_input_audio_buffer_append(self, event: ce.InputAudioBufferAppend, now_ms: float) -> Step:
        return self._append_audio(event.audio, now_ms)

    def _append_audio(self, audio: bytes, now_ms: float) -> Step:
        pcm = self._decode_input_audio(audio)
        adding_ms = len(pcm) / 48
        if self.buffer.buffered_ms + adding_ms > self.options.max_input_buffer_ms:
            raise errors.input_buffer_full(
                self.buffer.buffered_ms, adding_ms, self.options.max_input_buffer_ms
            )
        frames = self.classifier.push(self.buffer.append(pcm))
        if self.detector is None or not frames:
            return Step()
        signals = self.detector.push_frames(frames)
        step = self._on_signals(signals, now_ms) if signals else Step()
        if self.detector is not None and not self.detector.in_turn:
            # Between turns only the recent past can become part of a turn (prefix padding, a late
            # semantic decision's replay); forgetting the rest keeps an hour of silence from piling up.
            # An idle timeout commits the silence it waited through, so that much is kept too.
            kept_ms = max(IDLE_AUDIO_KEPT_MS, (self._turn_detection or {}).get("idle_timeout_ms") or 0)
            self.buffer.keep_last_ms(kept_ms)
        return step

    def _on_signals(self, signals: list[TurnSignal], now_ms: float) -> Step:
        step = Step()
        for signal in signals:
            if isinstance(signal, SpeechStarted):
                step.extend(self._on_speech_started(signal, now_ms))
            elif isinstance(signal, SpeechStopped):
                step.extend(self._on_speech_stopped(signal, now_ms))
            elif isinstance(signal, ProbeTranscript):
                pcm = self.buffer.slice_ms(signal.start_ms, signal.end_ms)
                if self.detector is not None and self.detector.kind == "semantic_vad":
                    prosody = measure_prosody(pcm, signal.speech_end_ms - signal.start_ms)
                    self.detector.note_prosody(signal.key, prosody)
                step.effects.append(Transcribe(signal.key, pcm, language="en"))
        return step

    def _on_speech_started(self, signal: SpeechStarted, now_ms: float) -> Step:
        self.idle_deadline_ms = None
        if self.turn_item_id is not None:
            # A turn left open by a change of turn-detection type goes on: the client already has its
            # speech_started, and the audio since then stays part of it.
            return Step()
        self.turn_item_id = self.ids.item()
        self.buffer.drop_before_ms(signal.audio_start_ms)
        step = Step(
            events=[
                self.emit(
                    "input_audio_buffer.speech_started",
                    audio_start_ms=signal.audio_start_ms,
                    item_id=self.turn_item_id,
                )
            ]
        )
        config = self._turn_detection or {}
        if config.get("interrupt_response", True) and self.active_response_id is not None:
            streamer = self.responses[self.active_response_id]
            step.events += streamer.cancel("turn_detected")
            self._forget_if_done(streamer, now_ms)
        return step

    def _on_speech_stopped(self, signal: SpeechStopped, now_ms: float) -> Step:
        item_id = self.turn_item_id or self.ids.item()
        self.turn_item_id = None
        step = Step(
            events=[
                self.emit(
                    "input_audio_buffer.speech_stopped", audio_end_ms=signal.audio_end_ms, item_id=item_id
                )
            ]
        )
        step.effects.append(
            Trace(
                "turn_end",
                {
                    "item_id": item_id,
                    "turn_detection": (self._turn_detection or {}).get("type"),
                    "reason": signal.reason,
                    "audio_end_ms": signal.audio_end_ms,
                    "speech_end_ms": signal.speech_end_ms,
                    "decided_at_ms": signal.decided_at_ms,
                    "transcript": signal.transcript,
                    "cues": list(signal.cues),
                },
            )
        )
        pcm = self.buffer.take_until_ms(signal.audio_end_ms)
        if signal.transcript_key is not None:
            self.probe_items[signal.transcript_key] = item_id  # its words are already being transcribed
        step.extend(
            self._commit_user_audio(
                item_id, pcm, signal.transcript, now_ms, is_transcribing=signal.transcript_key is not None
            )
        )
        config = self._turn_detection or {}
        if config.get("create_response", True) and self.active_response_id is None:
            step.extend(self._start_response(response_params(self.config, {}), now_ms))
        return step

    def on_input_audio_buffer_commit(self, event: ce.InputAudioBufferCommit, now_ms: float) -> Step:
        if self.buffer.buffered_ms < MIN_COMMIT_MS:
            raise errors.commit_empty(self.buffer.buffered_ms)
        item_id = self.turn_item_id or self.ids.item()
        self.turn_item_id = None
        if self.detector is not None and self.detector.in_turn:
            self._restart_turn_detection(self.detector.config)
        pcm = self.buffer.take_until_ms(self.buffer.total_ms + 1)
        return self._commit_user_audio(item_id, pcm, None, now_ms)

    def on_input_audio_buffer_clear(self, event: ce.InputAudioBufferClear, now_ms: float) -> Step:
        self.buffer.clear()
        self.turn_item_id = None
        if self.detector is not None and self.detector.in_turn:
            self._restart_turn_detection(self.detector.config)
        return Step(events=[self.emit("input_audio_buffer.cleared")])

    def _commit_user_audio(
        self, item_id: str, pcm: bytes, transcript: str | None, now_ms: float, is_transcribing: bool = False
    ) -> Step:
        item = Item(
            item_id, "message", role="user", content=[{"type": "input_audio", "transcript": None}], audio=pcm
        )
        evicted = self._make_room(len(pcm))
        previous = self.conversation.insert(item)
        item.previous_item_id = previous
        step = Step(
            events=[
                *evicted,
                self.emit("input_audio_buffer.committed", previous_item_id=previous, item_id=item_id),
                self.emit("conversation.item.added", previous_item_id=previous, item=item.wire()),
                self.emit("conversation.item.done", previous_item_id=previous, item=item.wire()),
            ]
        )
        self.pending_transcripts[item_id] = item
        if transcript is not None:
            return step.extend(self._item_transcribed(item_id, transcript, now_ms))
        if not is_transcribing:
            step.effects.append(self._transcribe_item(item))
        return step

    @property
    def _has_assistant_audio(self) -> bool:
        """Any assistant audio sent in this session (the voice is fixed from then on, reference §4)."""
        return self._audio_was_sent or any(s.audio_sent_bytes for s in self.responses.values())

    @property
    def _is_transcribing(self) -> bool:
        """Whether the client asked for input transcription events (``audio.input.transcription``)."""
        return self.config["audio"]["input"]["transcription"] is not None

    def _transcribe_item(self, item: Item) -> Transcribe:
        transcription = self.config["audio"]["input"]["transcription"] or {}
        return Transcribe(
            f"item:{item.id}",
            bytes(item.audio),
            language=transcription.get("language") or "en",
            prompt=transcription.get("prompt"),
        )

    def _item_transcribed(self, item_id: str, text: str, now_ms: float, announce: bool = True) -> Step:
        item = self.pending_transcripts.pop(item_id, None)
        step = Step()
        if item is not None:
            item.set_audio_transcript(text)
            if announce and self._is_transcribing and self.conversation.get(item_id) is item:
                step.events += self._transcription_events(item, text)
        for streamer in list(self.responses.values()):
            if streamer.is_thinking:
                step.extend(self._think(streamer, now_ms))
        return step

    def _transcription_events(self, item: Item, text: str) -> list[dict[str, Any]]:
        events = []
        if text:
            events.append(
                self.emit(
                    "conversation.item.input_audio_transcription.delta",
                    item_id=item.id,
                    content_index=0,
                    delta=text,
                    obfuscation=self.ids.obfuscation(),
                )
            )
        audio_tokens = -(-item.audio_ms // 100)
        text_tokens = self.tokens.count(text) if text else 0
        events.append(
            self.emit(
                "conversation.item.input_audio_transcription.completed",
                item_id=item.id,
                content_index=0,
                transcript=text,
                usage={
                    "type": "tokens",
                    "total_tokens": audio_tokens + text_tokens,
                    "input_tokens": audio_tokens,
                    "input_token_details": {"text_tokens": 0, "audio_tokens": audio_tokens},
                    "output_tokens": text_tokens,
                },
            )
        )
        return events

    # -- conversation items ---------------------------------------------------------------------------

    def on_conversation_item_create(self, event: ce.ConversationItemCreate, now_ms: float) -> Step:
        at_root = event.previous_item_id == "root"
        after = None if event.previous_item_id in (ce.APPEND, "root") else event.previous_item_id
        if after is not None and after not in self.conversation:
            raise errors.previous_item_not_found(after)
        is_replacement = isinstance(event.item.get("id"), str) and event.item["id"] in self.conversation
        if not is_replacement and len(self.conversation) >= self.options.max_conversation_items:
            raise errors.conversation_full(self.options.max_conversation_items)
        item, needs_transcript = self._item_from_wire(event.item)
        evicted = self._make_room(len(item.audio), items_needed=0)
        # A reused id replaces the old item; "after itself" means the old item's place.
        previous = self.conversation.insert(item, after, at_root=at_root)
        item.previous_item_id = previous
        step = Step(
            events=[
                *evicted,
                self.emit("conversation.item.added", previous_item_id=previous, item=item.wire()),
                self.emit("conversation.item.done", previous_item_id=previous, item=item.wire()),
            ]
        )
        if needs_transcript:
            self.pending_transcripts[item.id] = item
            step.effects.append(self._transcribe_item(item))
        return step

    def _item_from_wire(self, wire: dict[str, Any]) -> tuple[Item, bool]:
        return item_from_wire(
            wire,
            ids=self.ids,
            conversation=self.conversation,
            describe_image=self.describe_image,
            decode_audio=self._decode_input_audio,
        )

    def _decode_input_audio(self, data: bytes) -> bytes:
        """Client audio in the session's input format → PCM16 24 kHz."""
        fmt = self.config["audio"]["input"]["format"]["type"]
        return data if fmt == "audio/pcm" else to_pcm16_24k(data, fmt)

    def on_conversation_item_truncate(self, event: ce.ConversationItemTruncate, now_ms: float) -> Step:
        item = self.conversation.get(event.item_id)
        if item is None:
            raise errors.item_not_found("truncating", "item_truncate_invalid_item_id", event.item_id)
        if not item.is_assistant_audio or not item.audio:
            raise errors.truncate_unsupported()
        if event.audio_end_ms > item.audio_ms:
            raise errors.truncate_too_long(item.audio_ms, event.audio_end_ms)
        # The response, if still streaming, goes on and its audio is added after the cut: over WebSocket
        # the client cancels (reference §3.6; the Agents SDK sends its response.cancel right after the
        # truncate). Pipecat truncates again later, at a position past the first cut, counting the
        # audio it received since.
        item.truncate(event.audio_end_ms)
        return Step(
            events=[
                self.emit(
                    "conversation.item.truncated",
                    item_id=item.id,
                    content_index=event.content_index,
                    audio_end_ms=event.audio_end_ms,
                )
            ]
        )

    def on_conversation_item_delete(self, event: ce.ConversationItemDelete, now_ms: float) -> Step:
        item = self.conversation.get(event.item_id)
        if item is None:
            # param null: live-tested (reference §8)
            raise errors.item_not_found("deleting", "item_delete_invalid_item_id", event.item_id, None)
        self.conversation.delete(event.item_id)
        item.in_conversation = False  # a response still writing it sends no more conversation.item.*
        return Step(events=[self.emit("conversation.item.deleted", item_id=event.item_id)])

    def on_conversation_item_retrieve(self, event: ce.ConversationItemRetrieve, now_ms: float) -> Step:
        item = self.conversation.get(event.item_id)
        if item is None:
            raise errors.item_not_found("retrieving", "item_retrieve_invalid_item_id", event.item_id)
        # Retrieved audio is in the session's format: user audio as it came in, assistant audio as sent.
        direction = "output" if item.role == "assistant" else "input"
        fmt = self.config["audio"][direction]["format"]["type"]
        wire = item.wire(audio_encoder=lambda pcm: pcm if fmt == "audio/pcm" else from_pcm16_24k(pcm, fmt))
        return Step(events=[self.emit("conversation.item.retrieved", item=wire)])

    # -- responses ------------------------------------------------------------------------------------

    def on_response_create(self, event: ce.ResponseCreate, now_ms: float) -> Step:
        out_of_band = event.response.get("conversation") == "none"
        if not out_of_band and self.active_response_id is not None:
            raise errors.active_response(self.active_response_id)
        input_items = None
        transcribe: list[Item] = []
        if "input" in event.response:
            input_items = tuple(self._input_item(entry, transcribe) for entry in event.response["input"])
        params = response_params(self.config, event.response, input_items)
        step = Step()
        for item in transcribe:  # inline audio: the response waits for its words like for a turn's
            item.in_conversation = False
            self.pending_transcripts[item.id] = item
            step.effects.append(self._transcribe_item(item))
        return step.extend(self._start_response(params, now_ms))

    def _input_item(self, entry: dict[str, Any], transcribe: list[Item]) -> Item:
        if entry.get("type") == "item_reference":
            item = self.conversation.get(entry["id"])
            if item is None:
                raise errors.item_not_found("referencing", "invalid_item_reference", entry["id"])
            return item
        item, needs_transcript = self._item_from_wire(entry)
        if needs_transcript:
            transcribe.append(item)
        return item

    def on_response_cancel(self, event: ce.ResponseCancel, now_ms: float) -> Step:
        response_id = event.response_id or self.active_response_id
        streamer = self.responses.get(response_id) if response_id else None
        if streamer is None or not streamer.r.is_active:
            raise errors.cancel_not_active()
        step = Step(events=streamer.cancel("client_cancelled"))
        self._forget_if_done(streamer, now_ms)
        return step

    def _start_response(self, params: ResponseParams, now_ms: float) -> Step:
        self.idle_deadline_ms = None
        out_of_band = params.conversation == "none"
        response = Response(
            self.ids.response(),
            params,
            None if out_of_band else self.conversation.id,
            now_ms,
            self.options.pacing,
        )
        streamer = ResponseStreamer(response, self.ids, self.emit, self._place_output, self.tokens)
        self.responses[response.id] = streamer
        if not out_of_band:
            self.active_response_id = response.id
        evicted = [] if out_of_band else self._make_room(0)
        step = Step(events=[*evicted, self.emit("response.created", response=response.wire())])
        return step.extend(self._think(streamer, now_ms))

    def _make_room(self, audio_bytes: int, items_needed: int = 1) -> list[dict[str, Any]]:
        """Bound the conversation before the engine adds an item (a commit, a reply): the oldest items
        go, each announced with ``conversation.item.deleted`` so the client's copy stays true — like the
        live service's "auto" truncation, which drops the oldest context first. Items a response is
        still writing stay."""
        limit_items = self.options.max_conversation_items - items_needed
        limit_bytes = self.options.max_conversation_audio_ms * 48 - audio_bytes
        writing = {id(i) for s in self.responses.values() if s.r.is_active for i in s.r.output}
        self.audio_spill.keep_newest(
            (i for i in reversed(list(self.conversation)) if id(i) not in writing), audio_bytes
        )
        audio_total = sum(len(item.audio) for item in self.conversation)
        if len(self.conversation) <= limit_items and audio_total <= limit_bytes:
            return []
        events = []
        for item in list(self.conversation):
            if len(self.conversation) <= max(limit_items, 0) and audio_total <= limit_bytes:
                break
            if id(item) in writing:
                continue
            self.conversation.delete(item.id)
            item.in_conversation = False
            audio_total -= len(item.audio)
            self.pending_transcripts.pop(item.id, None)
            events.append(self.emit("conversation.item.deleted", item_id=item.id))
        return events

    def _think(self, streamer: ResponseStreamer, now_ms: float) -> Step:
        """Ask the brain once every user audio item in the context has its transcript."""
        r = streamer.r
        context = r.params.input_items if r.params.input_items is not None else tuple(self.conversation)
        if any(self.pending_transcripts.get(item.id) is item for item in context):
            return Step()
        request = build_reply_request(r.params, context, self.response_count)
        self.response_count += 1
        try:
            reply = self.brain.reply(request)
        except (ValueError, RecursionError) as exc:
            # E.g. a tool schema no arguments can satisfy: the response fails, the session goes on.
            step = Step(events=streamer.fail("reply_failed", f"Could not build a reply: {exc}"))
            step.effects.append(Trace("reply_failed", {"response_id": r.id, "error": repr(exc)}))
            self._forget_if_done(streamer, now_ms)
            return step
        streamer.account_input(r.params.instructions, context)
        events, effects = streamer.begin(reply, now_ms)
        step = Step(events=events, effects=list(effects))
        step.effects.append(
            Trace(
                "reply",
                {
                    "response_id": r.id,
                    "rule": reply.rule,
                    "why": reply.why,
                    "text": reply.text,
                    "tool_calls": [c.name for c in reply.tool_calls],
                },
            )
        )
        self._forget_if_done(streamer, now_ms)
        return step

    def _place_output(self, item: Item) -> str | None:
        return self.conversation.insert(item)

    def _forget_if_done(self, streamer: ResponseStreamer, now_ms: float) -> None:
        if streamer.r.is_active:
            return
        self.responses.pop(streamer.r.id, None)
        self._audio_was_sent = self._audio_was_sent or streamer.audio_sent_bytes > 0
        if self.active_response_id == streamer.r.id:
            self.active_response_id = None
            self._arm_idle_timeout(streamer, now_ms)

    def _arm_idle_timeout(self, streamer: ResponseStreamer, now_ms: float) -> None:
        config = self._turn_detection or {}
        idle_ms = config.get("idle_timeout_ms")
        if config.get("type") != "server_vad" or not idle_ms or streamer.r.status != "completed":
            return
        heard_by_ms = max(now_ms, streamer.playback_end_ms or now_ms)
        self.idle_deadline_ms = heard_by_ms + idle_ms
