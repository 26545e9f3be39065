"""Re-stamping recorded server events for a live session: fresh ids mapped consistently, shifted unix
times, recorded audio in the live session's output format.

Every id the recording holds (``event_id``, ``item_id``, ``previous_item_id``, ``response_id``,
``call_id``, ``conversation_id``, an object's ``id``) goes through one :class:`IdMap`: the first time a
recorded id is seen it gets a fresh id of the same prefix and length (seeded: reproducible), and the
same live id every later time, so ``previous_item_id`` chains and references stay coherent. Ids the
live side chose (a client's own item ids and event ids, the engine's VAD item ids) are bound to the
recorded ones they stand for when they are matched.
"""

from __future__ import annotations

import copy
from typing import Any

from mockengine.audio.g711 import encoded_slice, from_pcm16_24k
from mockengine.ids import IdFactory
from mockengine.recordings.recording import RecordedSession, b64

ID_KEYS = frozenset({"event_id", "item_id", "previous_item_id", "response_id", "call_id", "conversation_id"})
TIME_KEYS = frozenset({"created_at", "expires_at"})


class IdMap:
    """Recorded id → live id."""

    def __init__(self, seed: int | None) -> None:
        self._ids = IdFactory(None if seed is None else f"replay:{seed}")
        self._live: dict[str, str] = {}
        self._recorded: dict[str, str] = {}

    def live(self, recorded: str) -> str:
        found = self._live.get(recorded)
        if found is None:
            prefix, sep, rest = recorded.partition("_")
            found = self._ids.new(prefix + sep, len(rest)) if sep else self._ids.new("", len(recorded))
            self.bind(recorded, found)
        return found

    def bind(self, recorded: str, live: str) -> None:
        self._live[recorded] = live
        self._recorded[live] = recorded

    def recorded(self, live: str) -> str | None:
        """The recorded id a live id stands for (None: not one the replay handed out or matched)."""
        return self._recorded.get(live)

    def fresh_event_id(self) -> str:
        return self._ids.event()


class Restamper:
    """Turns one recorded server event into the event to send now."""

    def __init__(self, session: RecordedSession, ids: IdMap, live_start_s: float) -> None:
        self.session = session
        self.ids = ids
        self.shift_s = live_start_s - session.started_at_s
        # (WAV name, output format) → the whole WAV in that format. A G.711 live session's deltas are
        # slices of their response's WAV encoded once: each encoded as a clip of its own put soxr's edge
        # transient at every 200 ms delta boundary of the replayed reply.
        self._encoded: dict[tuple[str, str], bytes] = {}

    def event(self, recorded: dict[str, Any], output_format: str) -> dict[str, Any]:
        event = self._walk(copy.deepcopy(recorded))
        if event.get("type") == "response.output_audio.delta":
            event["delta"] = self._audio(recorded.get("delta"), output_format)
        for item in _items(event):
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("audio"), dict):
                    part["audio"] = self._audio(part["audio"], output_format)
        return event

    def _audio(self, ref: Any, output_format: str) -> str:
        if output_format == "audio/pcm":
            return b64(self.session.audio(ref))
        span = self.session.span(ref)
        name = span[0] if span is not None else None
        if span is None or name is None:  # silence (a --no-audio recording's, a WAV gone) or nothing
            return b64(from_pcm16_24k(self.session.audio(ref), output_format))
        _, start, end = span
        whole = self._encoded.get((name, output_format))
        if whole is None:
            whole = self._encoded[(name, output_format)] = from_pcm16_24k(
                self.session.wavs[name], output_format
            )
        # The span is in samples (2 bytes each); the slice takes PCM bytes.
        return b64(encoded_slice(whole, start * 2, end * 2, len(self.session.wavs[name]) // 2 * 2))

    def _walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self._field(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        return value

    def _field(self, key: str, value: Any) -> Any:
        if isinstance(value, str) and (key in ID_KEYS or key == "id") and value:
            return self.ids.live(value)
        if key in TIME_KEYS and isinstance(value, int | float) and value > 1_000_000_000:
            return int(value + self.shift_s)
        return self._walk(value)


def _items(event: dict[str, Any]) -> list[dict[str, Any]]:
    items = [event["item"]] if isinstance(event.get("item"), dict) else []
    response = event.get("response")
    if isinstance(response, dict):
        items += [i for i in response.get("output") or [] if isinstance(i, dict)]
    return items
