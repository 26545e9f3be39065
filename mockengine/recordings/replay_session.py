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
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import merge_turn_detection
from mockengine.realtime.effects import Step, Trace, Transcribe, TranscriptKey
from mockengine.realtime.replies import response_params
from mockengine.realtime.response import Pacing, Response
from mockengine.realtime.session import RealtimeSession
from mockengine.recordings.mirror import mirror_events
from mockengine.recordings.open_responses import OpenResponses
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
        self.open = OpenResponses()  # recorded responses begun on the wire and not finished

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
        return self._out(self.walk.due(self.walk.anchor[1]), self.walk.anchor[1])

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
        return step.extend(self._out(self.walk.due(now_ms), now_ms))

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
                return self._out(list(matched.events), at_ms)
        return self.shadow.error(exc)

    def on_transcript(self, key: TranscriptKey, text: str, now_ms: float, *more: Any) -> Step:
        # more: word timings, prosody and language, as the shadow takes them
        step = self.shadow.on_transcript(key, text, now_ms, *more)
        return step if self.has_fallen_back else self._from_shadow(step, now_ms)

    def on_transcript_failed(self, key: TranscriptKey, message: str, now_ms: float) -> Step:
        step = self.shadow.on_transcript_failed(key, message, now_ms)
        return step if self.has_fallen_back else self._from_shadow(step, now_ms)

    def on_transcription_backlog(self, key: TranscriptKey, limit: int, now_ms: float) -> Step:
        step = self.shadow.on_transcription_backlog(key, limit, now_ms)
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
                # an edge that leaves the recording goes out too (_diverge): the participant's from here on
                out.extend(self._apply(self.walk.on_vad(event, now_ms), now_ms, None, vad=event))
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
        events = self.open.shown(events)
        mirror_events(self.shadow.ctx.conversation, events)
        return events

    def _out(self, events: list[dict[str, Any]], now_ms: float) -> Step:
        """Recorded events going out. When they were the recording's last and a response they began is
        still open, the recording stops in the middle of it: a divergence, which ends it."""
        step = Step(events=self._shown(events))
        if self.walk.is_finished and self.open.ids and not self.has_fallen_back:
            response_id = self.open.ids[0]
            ran_out = Divergence(
                f"`response.done` of response {response_id}",
                "the end of the recording (it stops in the middle of that response)",
                now_ms - self.walk.start_ms,
                None,
            )
            step.extend(self._diverge(ran_out, now_ms, None, None))
        return step

    def _apply(
        self,
        result: WalkResult,
        now_ms: float,
        event: ce.ClientEvent | None,
        vad: dict[str, Any] | None = None,
    ) -> Step:
        if result.divergence is None:
            return self._out(list(result.events), now_ms)
        # the divergence ends whatever response is open: no need to look for the recording's end first
        step = Step(events=self._shown(list(result.events)))
        return step.extend(self._diverge(result.divergence, now_ms, event, vad))

    def _diverge(
        self,
        divergence: Divergence,
        now_ms: float,
        event: ce.ClientEvent | None,
        vad: dict[str, Any] | None,
    ) -> Step:
        """Report ``divergence`` (trace, ``on_divergence``). Strict: an ``error`` naming it, every open
        recorded response ended ``failed``, and a response the live input asked for (a
        ``response.create``, a turn's end when its turn detection creates responses) answered with
        one that fails at once, so a client never waits for a ``response.done`` that cannot come.
        Otherwise the open responses end as the real service would end them for that input and the
        scripted participant takes over."""
        self.divergences.append(divergence)
        if self.on_divergence is not None:
            self.on_divergence(divergence)
        step = Step(effects=[Trace(TRACE_KIND, {**divergence.data(), "strict": self.is_strict})])
        error = ProtocolError("replay_divergence", divergence.message(), event_id=divergence.client_event_id)
        failed = {"type": "failed", "error": {k: error.payload()[k] for k in ("type", "code", "message")}}
        if self.is_strict:
            step.extend(self.shadow.error(error))
            step.events.extend(self._end_open("failed", failed))
            if self._asks_for_response(event, vad):
                step.events.extend(self._failed_response(event, failed, now_ms))
            return step
        details = failed
        if isinstance(event, ce.ResponseCancel):
            details = {"type": "cancelled", "reason": "client_cancelled"}
        elif (
            vad is not None
            and vad["type"] == "input_audio_buffer.speech_started"
            and self._answers("interrupt")
        ):
            details = {"type": "cancelled", "reason": "turn_detected"}
        if vad is not None:  # the live turn edge, before the response it cancels ends (as the engine's)
            step.events.append(vad)
        ended = self._end_open(str(details["type"]), details)
        # a cancel that ended a recorded response is answered; the shadow knows no response to cancel
        forward = not (isinstance(event, ce.ResponseCancel) and ended)
        step.events.extend(ended)
        return step.extend(self._fall_back(now_ms, event if forward else None))

    def _end_open(self, status: str, details: dict[str, Any]) -> list[dict[str, Any]]:
        return [self.open.end(rid, self.shadow.ids.event(), status, details) for rid in self.open.ids]

    def _answers(self, what: str) -> bool:
        """Whether the client's turn detection creates (``create``) or interrupts (``interrupt``)
        responses at a turn's edges (both default to true when it is on)."""
        turn_detection = self._client_turn_detection
        return isinstance(turn_detection, dict) and turn_detection.get(f"{what}_response") is not False

    def _asks_for_response(self, event: ce.ClientEvent | None, vad: dict[str, Any] | None) -> bool:
        if isinstance(event, ce.ResponseCreate):
            return True
        turn_ended = vad is not None and vad["type"] == "input_audio_buffer.speech_stopped"
        # a transcription session only transcribes: no response at a turn's end (as the engine's own)
        return turn_ended and self._answers("create") and not self.shadow.ctx.view.is_transcription

    def _failed_response(
        self, event: ce.ClientEvent | None, details: dict[str, Any], now_ms: float
    ) -> list[dict[str, Any]]:
        """``response.created`` and, at once, its ``response.done`` with status ``failed``: the response
        the live input asked for, which the recording cannot give. Its settings are the session's
        overlaid by the ``response.create``'s; it is in the conversation the client was shown."""
        overrides = event.response if isinstance(event, ce.ResponseCreate) else {}
        params = response_params(self.shadow.ctx.view, overrides)
        conversation_id = self.open.conversation_id or self.shadow.ctx.conversation.id
        response = Response(
            self.shadow.ids.response(),
            params,
            None if params.conversation == "none" else conversation_id,
            now_ms,
            Pacing(),
        )
        created = se.response_created(self.shadow.ids.event(), response=response.wire())
        response.status, response.status_details = "failed", details
        return [created, se.response_done(self.shadow.ids.event(), response=response.wire())]

    def _fall_back(self, now_ms: float, event: ce.ClientEvent | None) -> Step:
        """From now on the shadow answers, as the scripted participant, with the client's turn detection."""
        self.has_fallen_back = True
        self._update_shadow(self._client_turn_detection, now_ms)
        step = Step(effects=[Trace("replay_fallback", {"at_ms": round(now_ms - self.walk.start_ms, 1)})])
        if event is not None and not isinstance(event, SHADOW_EVENTS):
            step.extend(self.shadow.receive(event, now_ms))  # it has not seen this one yet
        return step
