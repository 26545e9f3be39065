"""The replay's position in a recorded session, and how live input moves it (sans-IO).

The walk sends the recorded server events (``emit`` steps) at their recorded offsets from the last
matched input, scaled by ``speed`` (0: at once). At an ``expect`` step it waits for the live client's
next event and compares; at a ``vad`` step it waits for the engine's own turn detection on the live
audio. Live input that arrives while recorded events are still pending first releases them (the client
was quicker than the recording; nothing recorded is skipped), then must match the next expectation. A
mismatch does not move the walk: it is returned as a :class:`Divergence` for the shell to report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mockengine.protocol import client_events as ce
from mockengine.recordings.recording import RecordedSession, ScriptStep
from mockengine.recordings.restamp import IdMap, Restamper


@dataclass(frozen=True)
class Divergence:
    """Where the live client left the recording: what the recording expected next, what came."""

    expected: str
    got: str
    at_ms: float  # since the live session opened
    line: int | None  # journal line (``seq``) of the expected step; None at the end of the recording
    client_event_id: str | None = None

    def data(self) -> dict[str, Any]:
        return {"expected": self.expected, "got": self.got, "at_ms": round(self.at_ms, 1), "line": self.line}

    def message(self) -> str:
        return f"Replay divergence: the recording expected {self.expected}, but got {self.got}."


@dataclass
class WalkResult:
    events: list[dict[str, Any]] = field(default_factory=list)
    divergence: Divergence | None = None


class ReplayWalk:
    def __init__(
        self, session: RecordedSession, ids: IdMap, restamper: Restamper, speed: float, start_ms: float
    ) -> None:
        self.session = session
        self.steps = session.steps
        self.ids = ids
        self.restamper = restamper
        self.speed = speed
        self.pos = 0
        self.anchor = (0.0, start_ms)  # (recorded ms, live ms) of the last matched input
        self.start_ms = start_ms  # live clock (loop time) when the session opened
        self.output_format = "audio/pcm"

    @property
    def is_finished(self) -> bool:
        return self.pos >= len(self.steps)

    def _due_ms(self, step: ScriptStep) -> float:
        recorded_ms, live_ms = self.anchor
        if self.speed <= 0:
            return live_ms
        return live_ms + max(0.0, step.ms - recorded_ms) / self.speed

    def next_deadline_ms(self) -> float | None:
        if self.is_finished or self.steps[self.pos].kind != "emit":
            return None
        return self._due_ms(self.steps[self.pos])

    def due(self, now_ms: float) -> list[dict[str, Any]]:
        """The recorded server events due by ``now_ms``."""
        out = []
        while not self.is_finished and self.steps[self.pos].kind == "emit":
            step = self.steps[self.pos]
            if self._due_ms(step) > now_ms:
                break
            out.append(self.restamper.event(step.event, self.output_format))
            self.pos += 1
        return out

    def _pending_then(self) -> tuple[list[dict[str, Any]], ScriptStep | None]:
        """Every recorded event before the next expectation (sent now), and that expectation."""
        out = []
        while not self.is_finished and self.steps[self.pos].kind == "emit":
            out.append(self.restamper.event(self.steps[self.pos].event, self.output_format))
            self.pos += 1
        return out, None if self.is_finished else self.steps[self.pos]

    def _advance(self, step: ScriptStep, now_ms: float, sent: list[dict[str, Any]]) -> WalkResult:
        self.pos += 1
        self.anchor = (step.ms, now_ms)
        return WalkResult(sent + self.due(now_ms))

    def _diverged(self, step: ScriptStep | None, got: str, now_ms: float, event_id: str | None) -> Divergence:
        expected = "the end of the recording" if step is None else describe_step(step)
        at_ms = now_ms - self.start_ms  # the loop's clock means nothing to a reader: time into the session
        return Divergence(expected, got, at_ms, None if step is None else step.index, event_id)

    def on_client(self, live: ce.ClientEvent, now_ms: float) -> WalkResult:
        """A live client event (never an append): the next expectation must be the same kind."""
        pending, step = self._pending_then()
        if step is None or step.kind != "expect" or step.type != _type(live):
            return WalkResult(pending, self._diverged(step, describe_live(live), now_ms, live.event_id))
        problem = self._mismatch(step.event, live)
        if problem:
            got = f"{describe_live(live)}: {problem}"
            return WalkResult(pending, self._diverged(step, got, now_ms, live.event_id))
        self._bind(step.event, live)
        return self._advance(step, now_ms, pending)

    def on_vad(self, live: dict[str, Any], now_ms: float) -> WalkResult:
        """A turn detection event of the engine's own VAD on the live audio."""
        pending, step = self._pending_then()
        if step is None or step.kind != "vad" or step.type != live["type"]:
            return WalkResult(
                pending, self._diverged(step, f"`{live['type']}` from the live audio", now_ms, None)
            )
        recorded_item = step.event.get("item_id")
        if isinstance(recorded_item, str) and isinstance(live.get("item_id"), str):
            self.ids.bind(recorded_item, live["item_id"])
        event = self.restamper.event(step.event, self.output_format)
        for key in ("audio_start_ms", "audio_end_ms"):
            if key in live:
                event[key] = live[key]  # where the live audio spoke, not where the recorded audio did
        return self._advance(step, now_ms, [*pending, event])

    def on_refused(
        self, now_ms: float, event_type: str | None = None, event_id: str | None = None
    ) -> WalkResult | None:
        """A frame the parse boundary refused (not JSON, or a JSON event of ``event_type`` with a bad
        field): matched when the recording refused one here too, a frame that was not JSON or an event of
        the same type the recorded engine answered with an ``error``; the walk moves past it and its
        recorded answer is the reply (with the live ``event_id``). Else None: the engine answers it as
        usual and the walk stays where it is."""
        at = next((i for i in range(self.pos, len(self.steps)) if self.steps[i].kind != "emit"), None)
        if at is None:
            return None
        step = self.steps[at]
        # An append is a step only when its audio was refused (recording.is_refused_append).
        was_refused = step.type == ce.InputAudioBufferAppend.type or self._was_refused(at)
        if step.kind != "invalid" and not (step.type == event_type and was_refused):
            return None
        recorded_id = step.event.get("event_id")
        if isinstance(recorded_id, str) and event_id:
            self.ids.bind(recorded_id, event_id)
        pending, _ = self._pending_then()
        return self._advance(step, now_ms, pending)

    def _was_refused(self, at: int) -> bool:
        """The recorded client event at ``self.steps[at]`` got an ``error``: one naming its ``event_id``
        later on, or, when it had none, one with no ``event_id`` before the next client event."""
        recorded_id = self.steps[at].event.get("event_id")
        for later in self.steps[at + 1 :]:
            if later.kind != "emit":
                if isinstance(recorded_id, str):
                    continue
                return False
            if later.type == "error":
                error_id = (later.event.get("error") or {}).get("event_id")
                if error_id == (recorded_id if isinstance(recorded_id, str) else None):
                    return True
        return False

    def _mismatch(self, recorded: dict[str, Any], live: ce.ClientEvent) -> str:
        if isinstance(live, ce.ConversationItemCreate):
            return self._item_mismatch(recorded.get("item") or {}, live.item)
        if isinstance(live, ce.ConversationItemTruncate):
            expected = recorded.get("item_id")
            if isinstance(expected, str) and self.ids.live(expected) != live.item_id:
                return f"item_id {live.item_id}, not {self.ids.live(expected)}"
        return ""

    def _item_mismatch(self, recorded: dict[str, Any], live: dict[str, Any]) -> str:
        if recorded.get("type") != live.get("type"):
            return f"an item of type {live.get('type')}, not {recorded.get('type')}"
        if live.get("type") == "message":
            return _message_mismatch(recorded, live)
        if live.get("type") != "function_call_output":
            return ""
        call_id = recorded.get("call_id")
        expected_call = self.ids.live(call_id) if isinstance(call_id, str) else None
        if live.get("call_id") != expected_call:
            return f"call_id {live.get('call_id')}, not {expected_call}"
        if _normalised(live.get("output")) != _normalised(recorded.get("output")):
            return f"output {_short(live.get('output'))}, not {_short(recorded.get('output'))}"
        return ""

    def _bind(self, recorded: dict[str, Any], live: ce.ClientEvent) -> None:
        if isinstance(recorded.get("event_id"), str) and live.event_id:
            self.ids.bind(recorded["event_id"], live.event_id)
        recorded_id = (recorded.get("item") or {}).get("id")
        live_id = live.item.get("id") if isinstance(live, ce.ConversationItemCreate) else None
        if isinstance(recorded_id, str) and isinstance(live_id, str):
            self.ids.bind(recorded_id, live_id)


def _type(live: ce.ClientEvent) -> str:
    return live.type


def describe_step(step: ScriptStep) -> str:
    where = f"(recorded at {step.ms / 1000:.3f} s, journal line {step.index})"
    if step.kind == "vad":
        return f"`{step.type}` from the client's audio {where}"
    if step.kind == "invalid":
        return f"a frame that is not JSON {where}"
    detail = _item_detail(step.event.get("item")) if step.type == "conversation.item.create" else ""
    return f"client event `{step.type}`{detail} {where}"


def describe_live(live: ce.ClientEvent) -> str:
    kind = _type(live)
    detail = _item_detail(live.item) if isinstance(live, ce.ConversationItemCreate) else ""
    return f"client event `{kind}`{detail}"


def _item_detail(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    if item.get("type") == "function_call_output":
        return f" (function_call_output for {item.get('call_id')}: {_short(item.get('output'))})"
    words = " ".join(text for kind, text in _message_parts(item) if kind == "text")
    said = f": {_short(words)}" if item.get("type") == "message" and words else ""
    return f" ({item.get('type')}{' ' + str(item['role']) if item.get('role') else ''}{said})"


TEXT_PARTS = ("input_text", "text", "output_text")


def _message_parts(item: dict[str, Any]) -> list[tuple[str, str]]:
    """A message's content as matching compares it: each text part's words (runs of whitespace one
    space, the ends trimmed, as chat completions are matched), an image by its URL, any other part
    (audio: its words are heard, not typed) by its type alone."""
    parts: list[tuple[str, str]] = []
    content = item.get("content")
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in TEXT_PARTS:
            parts.append(("text", " ".join(str(part.get("text") or "").split())))
        elif kind == "input_image":
            parts.append(("input_image", str(part.get("image_url"))))
        else:
            parts.append((str(kind), ""))
    return parts


def _message_mismatch(recorded: dict[str, Any], live: dict[str, Any]) -> str:
    """Why a live message item is not the recorded one: another role, or other content (typed words
    compared as :func:`_message_parts` reads them), else ""."""
    if live.get("role") != recorded.get("role"):
        return f"role {live.get('role')}, not {recorded.get('role')}"
    live_parts, recorded_parts = _message_parts(live), _message_parts(recorded)
    if live_parts == recorded_parts:
        return ""
    if [k for k, _ in live_parts] != [k for k, _ in recorded_parts]:
        return f"content {[k for k, _ in live_parts]}, not {[k for k, _ in recorded_parts]}"
    for (kind, live_value), (_, recorded_value) in zip(live_parts, recorded_parts, strict=True):
        if live_value != recorded_value:
            what = "text" if kind == "text" else kind
            return f"{what} {_short(live_value)}, not {_short(recorded_value)}"
    return ""


def _normalised(output: Any) -> Any:
    if isinstance(output, str):
        try:
            return json.loads(output)
        except ValueError:
            return " ".join(output.split())
    return output


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
