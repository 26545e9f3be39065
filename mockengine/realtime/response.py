"""One response: its lifecycle and the exact order of its server events (reference §3.2, §3.3, §3.5, §6).

Lifecycle (``status``)::

    in_progress ──all output sent──▶ completed
         │ response.cancel            ▶ cancelled (client_cancelled)
         │ speech_started + interrupt ▶ cancelled (turn_detected)
         └ engine failure             ▶ failed

Phases inside ``in_progress``: *thinking* (waiting for the user's transcript, then the brain) → *output*
(items streamed in order: at most one message, then function calls) → done.

Audio pacing: a message's audio is released in deltas of ``audio_delta_ms`` at ``pace`` × real time,
the first one no earlier than ``first_delta_delay_ms`` after ``response.created``. ``pace == 0`` releases
every delta as soon as its sentence is synthesized. Transcript deltas are interleaved with the audio
deltas: each sentence's words are spread over that sentence's audio deltas.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mockengine.audio.g711 import from_pcm16_24k
from mockengine.brain.model import Reply
from mockengine.engines.sentences import split_sentences
from mockengine.ids import IdFactory
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import Synthesize

BYTES_PER_MS = 48  # PCM16 mono 24 kHz
# Usage rule (documented approximation, not measured): audio tokens per duration, a flat cost per image.
USER_AUDIO_MS_PER_TOKEN = 100.0
ASSISTANT_AUDIO_MS_PER_TOKEN = 50.0
IMAGE_TOKENS = 85
MAX_TOKENS_DETAILS = {"type": "incomplete", "reason": "max_output_tokens"}
EmitFn = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class ResponseParams:
    """The effective parameters of one response (session defaults overlaid by ``response.create``)."""

    output_modalities: tuple[str, ...]
    voice: str
    speed: float
    output_format: dict[str, Any]
    instructions: str
    tools: tuple[dict[str, Any], ...]
    tool_choice: Any
    max_output_tokens: Any
    metadata: dict[str, Any] | None
    conversation: str  # "auto" | "none"
    input_items: tuple[Item, ...] | None = None  # response.input replaces the context

    @property
    def is_audio(self) -> bool:
        return "audio" in self.output_modalities


@dataclass(frozen=True)
class Pacing:
    pace: float = 3.0  # × real time; 0 = unpaced
    first_delta_delay_ms: int = 300
    delta_ms: int = 200


@dataclass
class _Sentence:
    text: str
    pcm: bytes | None = None
    sent_bytes: int = 0
    words_sent: int = 0


@dataclass
class Usage:
    input_text_tokens: int = 0
    input_audio_tokens: int = 0
    input_image_tokens: int = 0
    output_text_tokens: int = 0
    output_audio_tokens: int = 0

    def wire(self) -> dict[str, Any]:
        inputs = self.input_text_tokens + self.input_audio_tokens + self.input_image_tokens
        outputs = self.output_text_tokens + self.output_audio_tokens
        return {
            "total_tokens": inputs + outputs,
            "input_tokens": inputs,
            "output_tokens": outputs,
            "input_token_details": {
                "text_tokens": self.input_text_tokens,
                "audio_tokens": self.input_audio_tokens,
                "image_tokens": self.input_image_tokens,
                "cached_tokens": 0,
                "cached_tokens_details": {"text_tokens": 0, "audio_tokens": 0, "image_tokens": 0},
            },
            "output_token_details": {
                "text_tokens": self.output_text_tokens,
                "audio_tokens": self.output_audio_tokens,
            },
        }


@dataclass
class Response:
    id: str
    params: ResponseParams
    conversation_id: str | None
    created_ms: float
    pacing: Pacing
    status: str = "in_progress"
    status_details: dict[str, Any] | None = None
    output: list[Item] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    reply: Reply | None = None
    # Output streaming state
    _message: Item | None = None
    _sentences: list[_Sentence] = field(default_factory=list)
    _pending_calls: list[tuple[Item, str]] = field(default_factory=list)  # (item, full arguments)
    _next_due_ms: float = 0.0
    _message_open: bool = False
    _transcript: str = ""
    _was_cut_short: bool = False  # text output trimmed to max_output_tokens
    audio_sent_bytes: int = 0
    first_audio_ms: float | None = None  # wall time of the first audio delta

    @property
    def playback_end_ms(self) -> float | None:
        """When a client playing the audio at real time from its first delta would finish hearing it."""
        if self.first_audio_ms is None:
            return None
        return self.first_audio_ms + self.audio_sent_bytes / BYTES_PER_MS

    @property
    def is_active(self) -> bool:
        return self.status == "in_progress"

    @property
    def is_thinking(self) -> bool:
        return self.reply is None and self.is_active

    def wire(self) -> dict[str, Any]:
        done = self.status != "in_progress"
        return {
            "object": "realtime.response",
            "id": self.id,
            "status": self.status,
            "status_details": self.status_details,
            "output": [item.wire() for item in self.output],
            "conversation_id": self.conversation_id,
            "output_modalities": list(self.params.output_modalities),
            "max_output_tokens": self.params.max_output_tokens,
            "audio": {"output": {"format": self.params.output_format, "voice": self.params.voice}},
            "usage": self.usage.wire() if done else None,
            "metadata": self.params.metadata,
        }


class ResponseStreamer:
    """Turns a response's reply into server events over time. ``emit(type, **fields)`` builds an event;
    ``in_conversation(item, previous)`` adds an output item to the conversation and returns the id
    before it (or None for out-of-band responses, which add nothing)."""

    def __init__(
        self,
        response: Response,
        ids: IdFactory,
        emit: EmitFn,
        in_conversation: Callable[[Item], tuple[bool, str | None]],
        tokens: Any,
    ) -> None:
        self.r = response
        self.ids = ids
        self.emit = emit
        self.in_conversation = in_conversation
        self.tokens = tokens

    def count_tokens(self, text: str) -> int:
        return int(self.tokens.count(text)) if text else 0

    def account_input(self, instructions: str, context: Any) -> None:
        """Input usage by a documented rule: text tokens of the instructions and of every text item
        (whisper's tokenizer), 1 token per 100 ms of user audio, 85 tokens per image."""
        usage = self.r.usage
        usage.input_text_tokens += self.count_tokens(instructions)
        for item in context:
            if item.role == "user" and item.audio:
                usage.input_audio_tokens += _audio_tokens(item.audio_ms, USER_AUDIO_MS_PER_TOKEN)
            usage.input_text_tokens += self.count_tokens(item.text())
            usage.input_image_tokens += IMAGE_TOKENS * len(item.images)

    # -- start ------------------------------------------------------------------------------------------

    def begin(self, reply: Reply, now_ms: float) -> tuple[list[dict[str, Any]], list[Synthesize]]:
        """Open the output items for the brain's reply; returns events now and speech to synthesize."""
        r = self.r
        r.reply = reply
        events: list[dict[str, Any]] = []
        effects: list[Synthesize] = []
        for call in reply.tool_calls:
            item = Item(
                self.ids.item(),
                "function_call",
                status="in_progress",
                name=call.name,
                call_id=self.ids.call(),
                arguments="",
            )
            r._pending_calls.append((item, call.arguments))
        if reply.text:
            part_type = "output_audio" if r.params.is_audio else "output_text"
            key = "transcript" if r.params.is_audio else "text"
            message = Item(self.ids.item(), "message", role="assistant", status="in_progress", content=[])
            r._message = message
            events += self._open_item(message)
            message.content = [{"type": part_type, key: ""}]
            wire_part = (
                {"type": "audio", "transcript": ""} if r.params.is_audio else {"type": "text", "text": ""}
            )
            events.append(
                self.emit(
                    "response.content_part.added",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                    part=wire_part,
                )
            )
            r._message_open = True
            if r.params.is_audio:
                r._sentences = [_Sentence(s) for s in split_sentences(reply.text)]
                for index, sentence in enumerate(r._sentences):
                    effects.append(
                        Synthesize(f"{r.id}:{index}", sentence.text, r.params.voice, r.params.speed)
                    )
                r._next_due_ms = r.created_ms + r.pacing.first_delta_delay_ms
            else:
                events += self._text_message(reply.text)
        events += self.advance(now_ms)
        return events, effects

    def on_speech(self, index: int, pcm16: bytes) -> None:
        if 0 <= index < len(self.r._sentences):
            self.r._sentences[index].pcm = pcm16

    # -- progress -------------------------------------------------------------------------------------

    def next_deadline_ms(self) -> float | None:
        sentence = self._current_sentence()
        if not self.r.is_active or sentence is None or sentence.pcm is None:
            return None
        return self.r._next_due_ms if self.r.pacing.pace > 0 else 0.0

    def advance(self, now_ms: float) -> list[dict[str, Any]]:
        """Release what is due: audio deltas, then closing the message, the function calls, done."""
        r = self.r
        events: list[dict[str, Any]] = []
        if not r.is_active or r.reply is None:
            return events
        while r._message_open and r.params.is_audio:
            sentence = self._current_sentence()
            if sentence is None:
                events += self._close_message("completed")
                break
            if sentence.pcm is None or (r.pacing.pace > 0 and now_ms < r._next_due_ms):
                return events
            if self._is_over_budget():
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            events += self._audio_delta(sentence, now_ms)
        if r._message_open:  # text message: already streamed in begin()
            if r._was_cut_short:
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            events += self._close_message("completed")
        while r._pending_calls:
            events += self._function_call(*r._pending_calls.pop(0))
        events += self._finish("completed", None)
        return events

    def cancel(self, reason: str) -> list[dict[str, Any]]:
        """End the response now: close what is open, then ``response.done`` cancelled (reference §3.6)."""
        return self._end("cancelled", {"type": "cancelled", "reason": reason})

    def fail(self, code: str, message: str) -> list[dict[str, Any]]:
        details = {"type": "failed", "error": {"type": "server_error", "code": code, "message": message}}
        return self._end("failed", details)

    def _end(self, status: str, details: dict[str, Any]) -> list[dict[str, Any]]:
        """Close the open message (incomplete), drop calls not yet sent, and finish with ``status``."""
        events: list[dict[str, Any]] = []
        if self.r._message_open:
            events += self._close_message("incomplete")
        self.r._pending_calls.clear()
        return events + self._finish(status, details)

    def _is_over_budget(self) -> bool:
        """``max_output_tokens`` reached by what was already said (text and audio tokens)."""
        limit = self.r.params.max_output_tokens
        if not isinstance(limit, int):
            return False
        spent = self.count_tokens(self.r._transcript) + _audio_tokens(
            self.r.audio_sent_bytes / BYTES_PER_MS, ASSISTANT_AUDIO_MS_PER_TOKEN
        )
        return spent >= limit

    # -- pieces ---------------------------------------------------------------------------------------

    def _current_sentence(self) -> _Sentence | None:
        return next((s for s in self.r._sentences if s.pcm is None or s.sent_bytes < len(s.pcm)), None)

    def _open_item(self, item: Item) -> list[dict[str, Any]]:
        r = self.r
        r.output.append(item)
        output_index = len(r.output) - 1
        events = [
            self.emit(
                "response.output_item.added", response_id=r.id, output_index=output_index, item=item.wire()
            )
        ]
        item.in_conversation, item.previous_item_id = self.in_conversation(item)
        if item.in_conversation:
            events.append(
                self.emit("conversation.item.added", previous_item_id=item.previous_item_id, item=item.wire())
            )
        return events

    def _close_item(self, item: Item, status: str) -> list[dict[str, Any]]:
        r = self.r
        item.status = status
        events = []
        if item.in_conversation:
            events.append(
                self.emit("conversation.item.done", previous_item_id=item.previous_item_id, item=item.wire())
            )
        events.append(
            self.emit(
                "response.output_item.done",
                response_id=r.id,
                output_index=r.output.index(item),
                item=item.wire(),
            )
        )
        return events

    def _text_message(self, text: str) -> list[dict[str, Any]]:
        r = self.r
        message = r._message
        assert message is not None
        events = []
        words = text.split(" ")
        limit = r.params.max_output_tokens
        if isinstance(limit, int):
            while len(words) > 1 and self.count_tokens(" ".join(words)) > limit:
                words.pop()
                r._was_cut_short = True
            text = " ".join(words)
        for index, word in enumerate(words):
            piece = word if index == 0 else " " + word
            events.append(
                self.emit(
                    "response.output_text.delta",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                    delta=piece,
                    obfuscation=self.ids.obfuscation(),
                )
            )
        r._transcript = text
        message.content[0]["text"] = text
        r.usage.output_text_tokens += self.count_tokens(text)
        return events

    def _encode(self, pcm16: bytes) -> bytes:
        """Audio in the response's output format (G.711 at 8 kHz for pcmu/pcma)."""
        kind = self.r.params.output_format.get("type", "audio/pcm")
        return pcm16 if kind == "audio/pcm" else from_pcm16_24k(pcm16, kind)

    def _audio_delta(self, sentence: _Sentence, now_ms: float) -> list[dict[str, Any]]:
        r = self.r
        message = r._message
        assert message is not None and sentence.pcm is not None
        events = []
        chunk_bytes = r.pacing.delta_ms * BYTES_PER_MS
        total_chunks = max(1, -(-len(sentence.pcm) // chunk_bytes))
        chunk_index = sentence.sent_bytes // chunk_bytes
        words = sentence.text.split(" ")
        upto = len(words) * (chunk_index + 1) // total_chunks
        if upto > sentence.words_sent:
            piece = " ".join(words[sentence.words_sent : upto])
            if r._transcript:
                piece = " " + piece
            r._transcript += piece
            sentence.words_sent = upto
            events.append(
                self.emit(
                    "response.output_audio_transcript.delta",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                    delta=piece,
                    obfuscation=self.ids.obfuscation(),
                )
            )
        if sentence.sent_bytes == 0:
            message.spoken.append((sentence.text, len(sentence.pcm)))
        if r.first_audio_ms is None:
            r.first_audio_ms = now_ms
        chunk = sentence.pcm[sentence.sent_bytes : sentence.sent_bytes + chunk_bytes]
        sentence.sent_bytes += len(chunk)
        r.audio_sent_bytes += len(chunk)
        message.audio += chunk
        events.append(
            self.emit(
                "response.output_audio.delta",
                response_id=r.id,
                item_id=message.id,
                output_index=0,
                content_index=0,
                delta=_b64(self._encode(chunk)),
            )
        )
        if r.pacing.pace > 0:
            r._next_due_ms = max(r._next_due_ms, now_ms - 50) + len(chunk) / BYTES_PER_MS / r.pacing.pace
        return events

    def _close_message(self, status: str) -> list[dict[str, Any]]:
        r = self.r
        message = r._message
        assert message is not None
        r._message_open = False
        events = []
        if r.params.is_audio:
            message.content = [{"type": "output_audio", "transcript": r._transcript}]
            events.append(
                self.emit(
                    "response.output_audio.done",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                )
            )
            events.append(
                self.emit(
                    "response.output_audio_transcript.done",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                    transcript=r._transcript,
                )
            )
            part = {"type": "audio", "transcript": r._transcript}
            r.usage.output_text_tokens += self.count_tokens(r._transcript)
            r.usage.output_audio_tokens += _audio_tokens(
                r.audio_sent_bytes / BYTES_PER_MS, ASSISTANT_AUDIO_MS_PER_TOKEN
            )
        else:
            events.append(
                self.emit(
                    "response.output_text.done",
                    response_id=r.id,
                    item_id=message.id,
                    output_index=0,
                    content_index=0,
                    text=r._transcript,
                )
            )
            part = {"type": "text", "text": r._transcript}
        events.append(
            self.emit(
                "response.content_part.done",
                response_id=r.id,
                item_id=message.id,
                output_index=0,
                content_index=0,
                part=part,
            )
        )
        events += self._close_item(message, status)
        return events

    def _function_call(self, item: Item, arguments: str) -> list[dict[str, Any]]:
        r = self.r
        events = self._open_item(item)
        output_index = r.output.index(item)
        for piece in _split_arguments(arguments):
            events.append(
                self.emit(
                    "response.function_call_arguments.delta",
                    response_id=r.id,
                    item_id=item.id,
                    output_index=output_index,
                    call_id=item.call_id,
                    delta=piece,
                )
            )
        item.arguments = arguments
        events.append(
            self.emit(
                "response.function_call_arguments.done",
                response_id=r.id,
                item_id=item.id,
                output_index=output_index,
                call_id=item.call_id,
                name=item.name,
                arguments=arguments,
            )
        )
        r.usage.output_text_tokens += self.count_tokens(arguments)
        events += self._close_item(item, "completed")
        return events

    def _finish(self, status: str, details: dict[str, Any] | None) -> list[dict[str, Any]]:
        r = self.r
        r.status = status
        r.status_details = details
        events = [self.emit("response.done", response=r.wire())]
        remaining = 15_000_000 - r.usage.wire()["total_tokens"]
        events.append(
            self.emit(
                "rate_limits.updated",
                rate_limits=[
                    {"name": "tokens", "limit": 15_000_000, "remaining": remaining, "reset_seconds": 0.001}
                ],
            )
        )
        return events


def _split_arguments(arguments: str, pieces: int = 3) -> list[str]:
    size = max(1, -(-len(arguments) // pieces))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]


def _audio_tokens(duration_ms: float, ms_per_token: float) -> int:
    return int(-(-duration_ms // ms_per_token)) if duration_ms > 0 else 0


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
