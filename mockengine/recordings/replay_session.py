"""A replaying session: what ``SessionRunner`` drives when a session answers from a recording.

:class:`ReplayingSession` has the shape of ``RealtimeSession`` (the runner cannot tell them apart). It
wraps a *shadow* ``RealtimeSession`` that sees the live client's input — session updates, audio, items —
and never answers by itself (its ``create_response`` / ``interrupt_response`` are held off), so the
engine's own VAD decides the live turn boundaries and the shadow's conversation keeps up. What goes out
is the :class:`ReplayWalk`'s recorded events. On a divergence the session reports it (a
``mockengine.replay_divergence`` trace, and ``on_divergence``, which the server counts on ``/metrics``)
and then either answers an ``error`` naming what was expected and keeps its place (strict), or hands
the session to the shadow, which from then on answers as the scripted participant (its turn detection
settings restored).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mockengine.protocol import client_events as ce
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import merge_turn_detection
from mockengine.realtime.effects import Step, Trace, Transcribe, TranscriptKey
from mockengine.realtime.session import RealtimeSession
from mockengine.recordings.mirror import mirror_events
from mockengine.recordings.recording import VAD_TYPES
from mockengine.recordings.walk import Divergence, ReplayWalk, WalkResult

TRACE_KIND = "mockengine.replay_divergence"
SHADOW_EVENTS = (  # what the shadow must see to keep its input side and conversation current
    ce.SessionUpdate,
    ce.InputAudioBufferAppend,
    ce.InputAudioBufferCommit,
    ce.InputAudioBufferClear,
    ce.ConversationItemCreate,
)


class ReplayingSession:
    def __init__(
        self,
        shadow: RealtimeSession,
        walk: ReplayWalk,
        strict: bool,
        on_divergence: Callable[[Divergence], None] | None = None,
    ) -> None:
        self.shadow = shadow
        self.walk = walk
        self.is_strict = strict
        self.on_divergence = on_divergence  # the server counts them on /metrics
        self.has_fallen_back = False
        self.divergences: list[Divergence] = []
        self._client_turn_detection: Any = copy.deepcopy(self._turn_detection())
        # item id → the audio_end_ms the live client truncated it at (the recorded answer echoes it)
        self._live_truncates: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:  # config, ids, brain, is_wanted, ...: the shadow's
        return getattr(self.shadow, name)

    def _turn_detection(self) -> Any:
        return self.shadow.config["audio"]["input"]["turn_detection"]

    def _hold_shadow_replies(self, turn_detection: Any) -> Any:
        if not isinstance(turn_detection, dict):
            return turn_detection
        return {**turn_detection, "create_response": False, "interrupt_response": False}

    def _update_shadow(self, turn_detection: Any, now_ms: float) -> None:
        update = {"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}}
        self.shadow.receive(ce.SessionUpdate(update), now_ms)

    # -- the RealtimeSession surface ------------------------------------------------------------------

    def start(self) -> Step:
        self.shadow.start()
        self._update_shadow(self._hold_shadow_replies(self._client_turn_detection), self.walk.anchor[1])
        self.walk.output_format = self._output_format()
        return Step(events=self._shown(self.walk.due(self.walk.anchor[1])))

    def receive(self, event: ce.ClientEvent, now_ms: float) -> Step:
        if self.has_fallen_back:
            return self.shadow.receive(event, now_ms)
        step = Step()
        if isinstance(event, SHADOW_EVENTS):
            shadow_step = self.shadow.receive(self._for_shadow(event), now_ms)
            self._note_client_turn_detection(event, shadow_step)
            step = self._from_shadow(shadow_step, now_ms)
        if isinstance(event, ce.InputAudioBufferAppend):
            return step
        if isinstance(event, ce.ConversationItemTruncate):
            self._live_truncates[event.item_id] = event.audio_end_ms
        self.walk.output_format = self._output_format()
        return step.extend(self._apply(self.walk.on_client(event, now_ms), now_ms, event))

    def receive_audio(self, audio: bytes, event_id: str | None, now_ms: float) -> Step:
        """The shell's plain-append path: an append, like any other client event here (the shadow's
        own ``receive_audio`` would skip the replay)."""
        return self.receive(ce.InputAudioBufferAppend(audio, event_id), now_ms)

    def tick(self, now_ms: float) -> Step:
        if self.has_fallen_back:
            return self.shadow.tick(now_ms)
        step = self._from_shadow(self.shadow.tick(now_ms), now_ms)
        return step.extend(Step(events=self._shown(self.walk.due(now_ms))))

    def next_deadline_ms(self) -> float | None:
        shadow = self.shadow.next_deadline_ms()
        if self.has_fallen_back:
            return shadow
        deadlines = [d for d in (shadow, self.walk.next_deadline_ms()) if d is not None]
        return min(deadlines) if deadlines else None

    def error(self, exc: ProtocolError, now_ms: float | None = None) -> Step:
        """A frame the parse boundary refused at ``now_ms``: the recorded answer when the recording refused
        one there; the recorded events after it are paced from ``now_ms`` (the walk's last anchor when
        not given)."""
        if not self.has_fallen_back:
            at_ms = self.walk.anchor[1] if now_ms is None else now_ms
            matched = self.walk.on_refused(at_ms, exc.client_event_type, exc.event_id)
            if matched is not None:
                return Step(events=self._shown(list(matched.events)))
        return self.shadow.error(exc)

    def on_transcript(self, key: TranscriptKey, text: str, now_ms: float, *more: Any) -> Step:
        # more: word timings, prosody and language, as the shadow takes them
        step = self.shadow.on_transcript(key, text, now_ms, *more)
        return step if self.has_fallen_back else self._from_shadow(step, now_ms)

    def on_transcript_failed(self, key: TranscriptKey, message: str, now_ms: float) -> Step:
        step = self.shadow.on_transcript_failed(key, message, now_ms)
        return step if self.has_fallen_back else self._from_shadow(step, now_ms)

    # -- replay ---------------------------------------------------------------------------------------

    def _output_format(self) -> str:
        return self.shadow.view.output_format.type

    def _for_shadow(self, event: ce.ClientEvent) -> ce.ClientEvent:
        """A session.update whose turn detection would let the shadow answer, with answering held off."""
        if not isinstance(event, ce.SessionUpdate):
            return event
        audio_input = (event.session.get("audio") or {}).get("input") or {}
        if "turn_detection" not in audio_input:
            return event
        session = copy.deepcopy(event.session)
        held = self._hold_shadow_replies(audio_input["turn_detection"])
        session["audio"]["input"]["turn_detection"] = held
        return ce.SessionUpdate(session, event.event_id)

    def _note_client_turn_detection(self, event: ce.ClientEvent, shadow_step: Step) -> None:
        """The turn detection the client has after an update the shadow accepted, merged as the engine
        merges it (an update may name only some fields): what a fallback gives back, create_response
        and interrupt_response included."""
        if not isinstance(event, ce.SessionUpdate):
            return
        audio_input = (event.session.get("audio") or {}).get("input") or {}
        accepted = any(e.get("type") == "session.updated" for e in shadow_step.events)
        if accepted and "turn_detection" in audio_input:
            self._client_turn_detection = merge_turn_detection(
                self._client_turn_detection, audio_input["turn_detection"]
            )

    def _from_shadow(self, step: Step, now_ms: float) -> Step:
        """The shadow's turn detection events go to the walk; its decisions stay in the trace; the user's
        audio still reaches whisper (semantic_vad decides on the words, and a fallback participant must
        know what was said); its other events are not sent and it synthesizes nothing."""
        out = Step(effects=[e for e in step.effects if isinstance(e, Trace | Transcribe)])
        for event in step.events:
            if self.has_fallen_back:
                out.events.append(event)
            elif event.get("type") in VAD_TYPES:
                out.extend(self._apply(self.walk.on_vad(event, now_ms), now_ms, None))
                if self.has_fallen_back:  # this edge left the recording: the participant's from here on
                    out.events.append(event)
        return out

    def _shown(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Recorded events on their way to the client; the shadow's conversation takes in their items.
        A recorded ``conversation.item.truncated`` answers the live truncate of its item, so it says
        the live ``audio_end_ms`` (a client truncates where its playback was, which differs run to run;
        matching ignores it)."""
        for event in events:
            if event.get("type") == "conversation.item.truncated":
                live_ms = self._live_truncates.pop(event.get("item_id", ""), None)
                if live_ms is not None:
                    event["audio_end_ms"] = live_ms
        mirror_events(self.shadow.ctx.conversation, events)
        return events

    def _apply(self, result: WalkResult, now_ms: float, event: ce.ClientEvent | None) -> Step:
        step = Step(events=self._shown(list(result.events)))
        divergence = result.divergence
        if divergence is None:
            return step
        self.divergences.append(divergence)
        if self.on_divergence is not None:
            self.on_divergence(divergence)
        step.effects.append(Trace(TRACE_KIND, {**divergence.data(), "strict": self.is_strict}))
        if self.is_strict:
            error = ProtocolError(
                "replay_divergence", divergence.message(), event_id=divergence.client_event_id
            )
            return step.extend(self.shadow.error(error))
        return step.extend(self._fall_back(now_ms, event))

    def _fall_back(self, now_ms: float, event: ce.ClientEvent | None) -> Step:
        """From now on the shadow answers, as the scripted participant, with the client's turn detection."""
        self.has_fallen_back = True
        self._update_shadow(self._client_turn_detection, now_ms)
        step = Step(effects=[Trace("replay_fallback", {"at_ms": round(now_ms - self.walk.start_ms, 1)})])
        if event is not None and not isinstance(event, SHADOW_EVENTS):
            step.extend(self.shadow.receive(event, now_ms))  # it has not seen this one yet
        return step
