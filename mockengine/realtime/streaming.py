"""Streaming one response: the exact order of its server events over time (reference §3.2, §3.3, §3.5).

Phases while ``in_progress``: *thinking* (no reply yet: the user's transcript is pending, then the brain
decides) → *output*: at most one message (spoken or written), then the function calls, then
``response.done`` and ``rate_limits.updated``.

Audio pacing: a message's audio is released in deltas of ``delta_ms`` at ``pace`` × real time, the first
no earlier than ``first_delta_delay_ms`` after ``response.created``; ``pace == 0`` releases each delta as
soon as its sentence is synthesized. Transcript deltas are interleaved with the audio: each sentence's
words are spread over that sentence's audio deltas, so a cut (cancel, barge-in) leaves a transcript that
matches the audio sent.

Usage rule (a documented approximation, not measured): text tokens counted with whisper's tokenizer; user
audio 1 token per 100 ms, assistant audio 1 token per 50 ms; 85 tokens per image; no cached tokens.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from mockengine.audio.g711 import from_pcm16_24k
from mockengine.audio.pcm import encode_base64_audio
from mockengine.brain.model import Reply
from mockengine.engines.sentences import split_sentences
from mockengine.ids import IdFactory
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import SentenceKey, Synthesize
from mockengine.realtime.response import Response

BYTES_PER_MS = 48  # PCM16 mono 24 kHz
USER_AUDIO_MS_PER_TOKEN = 100.0
ASSISTANT_AUDIO_MS_PER_TOKEN = 50.0
IMAGE_TOKENS = 85
MAX_TOKENS_DETAILS = {"type": "incomplete", "reason": "max_output_tokens"}
RATE_LIMIT_TOKENS = 15_000_000
Events = list[dict[str, Any]]
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


class TokenCounting(Protocol):
    def count(self, text: str) -> int: ...


@dataclass
class _Sentence:
    text: str
    pcm: bytes | None = None
    sent_bytes: int = 0
    words_sent: int = 0

    @property
    def is_sent(self) -> bool:
        """All its audio and all its words went out (a sentence piper made no audio for still has words)."""
        return (
            self.pcm is not None
            and self.sent_bytes >= len(self.pcm)
            and self.words_sent >= len(self.text.split(" "))
        )


class ResponseStreamer:
    """Turns a response's reply into server events over time.

    ``emit(type, **fields)`` builds an event; ``place(item)`` adds an output item to the conversation and
    returns the id before it. Out-of-band responses (``conversation: "none"``) place nothing.
    """

    def __init__(
        self,
        response: Response,
        ids: IdFactory,
        emit: Callable[..., dict[str, Any]],
        place: Callable[[Item], str | None],
        tokens: TokenCounting,
    ) -> None:
        self.r = response
        self.ids = ids
        self.emit = emit
        self.place = place
        self.tokens = tokens
        self.reply: Reply | None = None
        self._message: Item | None = None
        self._sentences: list[_Sentence] = []
        self._pending_calls: list[tuple[Item, str]] = []  # (item, its full arguments)
        self._next_due_ms = 0.0
        self._transcript = ""
        self._was_cut_short = False  # written text trimmed to max_output_tokens
        self.audio_sent_bytes = 0
        self.first_audio_ms: float | None = None

    @property
    def is_thinking(self) -> bool:
        return self.reply is None and self.r.is_active

    @property
    def playback_end_ms(self) -> float | None:
        """When a client playing the audio in real time from its first delta would have heard it all."""
        if self.first_audio_ms is None:
            return None
        return self.first_audio_ms + self.audio_sent_bytes / BYTES_PER_MS

    def count_tokens(self, text: str) -> int:
        return int(self.tokens.count(text)) if text else 0

    def account_input(self, instructions: str, context: Iterable[Item]) -> None:
        usage = self.r.usage
        usage.input_text_tokens += self.count_tokens(instructions)
        for item in context:
            if item.role == "user" and item.audio:
                usage.input_audio_tokens += _audio_tokens(item.audio_ms, USER_AUDIO_MS_PER_TOKEN)
            usage.input_text_tokens += self.count_tokens(item.text())
            usage.input_image_tokens += IMAGE_TOKENS * len(item.images)

    # -- start and progress ---------------------------------------------------------------------------

    def begin(self, reply: Reply, now_ms: float) -> tuple[Events, list[Synthesize]]:
        """Open the output for the brain's reply; returns the events due now and the speech to make."""
        if reply.text:
            # Control characters (an echoed NUL, say) are neither speakable nor wanted in a transcript.
            reply = dataclasses.replace(reply, text=" ".join(_CONTROL_CHARS.sub(" ", reply.text).split()))
        self.reply = reply
        for call in reply.tool_calls:
            item = Item(
                self.ids.item(),
                "function_call",
                status="in_progress",
                name=call.name,
                call_id=self.ids.call(),
                arguments="",
            )
            self._pending_calls.append((item, call.arguments))
        events: Events = []
        effects: list[Synthesize] = []
        if reply.text:
            events += self._open_message()
            if self.r.params.is_audio:
                self._sentences = [_Sentence(s) for s in split_sentences(reply.text)]
                effects = [
                    Synthesize(SentenceKey(self.r.id, i), s.text, self.r.params.voice, self.r.params.speed)
                    for i, s in enumerate(self._sentences)
                ]
                self._next_due_ms = self.r.created_ms + self.r.pacing.first_delta_delay_ms
            else:
                events += self._text_deltas(reply.text)
        return events + self.advance(now_ms), effects

    def on_speech(self, index: int, pcm16: bytes) -> None:
        if 0 <= index < len(self._sentences):
            self._sentences[index].pcm = pcm16

    def next_deadline_ms(self) -> float | None:
        sentence = self._current_sentence()
        if not self.r.is_active or sentence is None or sentence.pcm is None:
            return None
        return self._next_due_ms if self.r.pacing.pace > 0 else 0.0

    def advance(self, now_ms: float) -> Events:
        """Release what is due: audio deltas, then the message's end, the function calls, done."""
        events: Events = []
        if not self.r.is_active or self.reply is None:
            return events
        while self._message is not None and self.r.params.is_audio:
            sentence = self._current_sentence()
            if sentence is None:
                break
            if sentence.pcm is None or (self.r.pacing.pace > 0 and now_ms < self._next_due_ms):
                return events
            if self._budget_tokens() <= 0:
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            events += self._audio_delta(sentence, now_ms)
        if self._was_cut_short:
            return events + self._end("incomplete", MAX_TOKENS_DETAILS)
        if self._message is not None:
            events += self._close_message("completed")
        while self._pending_calls:
            if self._budget_tokens() <= 0:
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            events += self._function_call(*self._pending_calls.pop(0))
        return events + self._finish("completed", None)

    def cancel(self, reason: str) -> Events:
        """End the response now: close what is open, then ``response.done`` cancelled (reference §3.6)."""
        return self._end("cancelled", {"type": "cancelled", "reason": reason})

    def fail(self, code: str, message: str) -> Events:
        return self._end(
            "failed", {"type": "failed", "error": {"type": "server_error", "code": code, "message": message}}
        )

    # -- pieces ---------------------------------------------------------------------------------------

    def _end(self, status: str, details: dict[str, Any]) -> Events:
        events = self._close_message("incomplete") if self._message is not None else []
        self._pending_calls.clear()
        return events + self._finish(status, details)

    def _budget_tokens(self) -> float:
        """Output tokens left under ``max_output_tokens`` (text, audio and call arguments so far)."""
        limit = self.r.params.max_output_tokens
        if not isinstance(limit, int):
            return float("inf")
        if self._message is None:  # the message (if any) is closed and counted in the usage
            return limit - self.r.usage.output_text_tokens - self.r.usage.output_audio_tokens
        spent = self.count_tokens(self._transcript) + _audio_tokens(
            self.audio_sent_bytes / BYTES_PER_MS, ASSISTANT_AUDIO_MS_PER_TOKEN
        )
        return limit - spent

    def _current_sentence(self) -> _Sentence | None:
        return next((s for s in self._sentences if not s.is_sent), None)

    def _part_event(self, kind: str, **fields: Any) -> dict[str, Any]:
        """An event about the message's one content part (``output_index`` 0, ``content_index`` 0)."""
        assert self._message is not None
        return self.emit(
            kind, response_id=self.r.id, item_id=self._message.id, output_index=0, content_index=0, **fields
        )

    def _open_item(self, item: Item) -> Events:
        self.r.output.append(item)
        events = [
            self.emit(
                "response.output_item.added",
                response_id=self.r.id,
                output_index=len(self.r.output) - 1,
                item=item.wire(),
            )
        ]
        item.in_conversation = self.r.conversation_id is not None
        if item.in_conversation:
            item.previous_item_id = self.place(item)
            events.append(
                self.emit("conversation.item.added", previous_item_id=item.previous_item_id, item=item.wire())
            )
        return events

    def _close_item(self, item: Item, status: str) -> Events:
        item.status = status
        events = []
        if item.in_conversation:
            events.append(
                self.emit("conversation.item.done", previous_item_id=item.previous_item_id, item=item.wire())
            )
        events.append(
            self.emit(
                "response.output_item.done",
                response_id=self.r.id,
                output_index=self.r.output.index(item),
                item=item.wire(),
            )
        )
        return events

    def _open_message(self) -> Events:
        # bytearray: the audio grows by a delta at a time (bytes would be copied whole each time).
        self._message = Item(
            self.ids.item(), "message", role="assistant", status="in_progress", audio=bytearray()
        )
        events = self._open_item(self._message)
        if self.r.params.is_audio:
            self._message.content = [{"type": "output_audio", "transcript": ""}]
            part = {"type": "audio", "transcript": ""}
        else:
            self._message.content = [{"type": "output_text", "text": ""}]
            part = {"type": "text", "text": ""}
        return events + [self._part_event("response.content_part.added", part=part)]

    def _text_deltas(self, text: str) -> Events:
        words = text.split(" ")
        limit = self.r.params.max_output_tokens
        while isinstance(limit, int) and len(words) > 1 and self.count_tokens(" ".join(words)) > limit:
            words.pop()
            self._was_cut_short = True
        self._transcript = " ".join(words)
        return [
            self._part_event(
                "response.output_text.delta",
                delta=word if i == 0 else " " + word,
                obfuscation=self.ids.obfuscation(),
            )
            for i, word in enumerate(words)
        ]

    def _audio_delta(self, sentence: _Sentence, now_ms: float) -> Events:
        assert self._message is not None and sentence.pcm is not None
        events = []
        chunk_bytes = self.r.pacing.delta_ms * BYTES_PER_MS
        total_chunks = max(1, -(-len(sentence.pcm) // chunk_bytes))
        words = sentence.text.split(" ")
        upto = len(words) * (sentence.sent_bytes // chunk_bytes + 1) // total_chunks
        if upto > sentence.words_sent:
            piece = " ".join(words[sentence.words_sent : upto])
            piece = " " + piece if self._transcript else piece
            self._transcript += piece
            sentence.words_sent = upto
            events.append(
                self._part_event(
                    "response.output_audio_transcript.delta", delta=piece, obfuscation=self.ids.obfuscation()
                )
            )
        if self.first_audio_ms is None:
            self.first_audio_ms = now_ms
        # The last delta before max_output_tokens is cut to what the budget still allows.
        budget_bytes = self._budget_tokens() * ASSISTANT_AUDIO_MS_PER_TOKEN * BYTES_PER_MS
        chunk_bytes = int(min(chunk_bytes, max(budget_bytes, 2)) // 2 * 2)
        chunk = sentence.pcm[sentence.sent_bytes : sentence.sent_bytes + chunk_bytes]
        if not chunk:
            return events
        sentence.sent_bytes += len(chunk)
        self.audio_sent_bytes += len(chunk)
        audio = self._message.audio
        if not isinstance(audio, bytearray):  # truncated while still being sent: its bytes, growing again
            audio = self._message.audio = bytearray(bytes(audio))  # (a message being written never spills)
        audio += chunk
        events.append(self._part_event("response.output_audio.delta", delta=_b64(self._encode(chunk))))
        if self.r.pacing.pace > 0:
            self._next_due_ms = (
                max(self._next_due_ms, now_ms - 50) + len(chunk) / BYTES_PER_MS / self.r.pacing.pace
            )
        return events

    def _encode(self, pcm16: bytes) -> bytes:
        """Audio in the response's output format (G.711 at 8 kHz for pcmu/pcma)."""
        kind = self.r.params.output_format.get("type", "audio/pcm")
        return pcm16 if kind == "audio/pcm" else from_pcm16_24k(pcm16, kind)

    def _close_message(self, status: str) -> Events:
        message = self._message
        assert message is not None
        usage = self.r.usage
        usage.output_text_tokens += self.count_tokens(self._transcript)
        if self.r.params.is_audio:
            # A cut item keeps no transcript; the events still close the part the deltas built.
            heard = None if message.truncated_at_ms is not None else self._transcript
            message.content = [{"type": "output_audio", "transcript": heard}]
            usage.output_audio_tokens += _audio_tokens(
                self.audio_sent_bytes / BYTES_PER_MS, ASSISTANT_AUDIO_MS_PER_TOKEN
            )
            events = [
                self._part_event("response.output_audio.done"),
                self._part_event("response.output_audio_transcript.done", transcript=self._transcript),
            ]
            part = {"type": "audio", "transcript": self._transcript}
        else:
            message.content = [{"type": "output_text", "text": self._transcript}]
            events = [self._part_event("response.output_text.done", text=self._transcript)]
            part = {"type": "text", "text": self._transcript}
        events.append(self._part_event("response.content_part.done", part=part))
        self._message = None
        return events + self._close_item(message, status)

    def _function_call(self, item: Item, arguments: str) -> Events:
        events = self._open_item(item)
        output_index = self.r.output.index(item)
        common = {
            "response_id": self.r.id,
            "item_id": item.id,
            "output_index": output_index,
            "call_id": item.call_id,
        }
        for piece in _split_arguments(arguments):
            events.append(self.emit("response.function_call_arguments.delta", **common, delta=piece))
        item.arguments = arguments
        events.append(
            self.emit("response.function_call_arguments.done", **common, name=item.name, arguments=arguments)
        )
        self.r.usage.output_text_tokens += self.count_tokens(arguments)
        return events + self._close_item(item, "completed")

    def _finish(self, status: str, details: dict[str, Any] | None) -> Events:
        self.r.status = status
        self.r.status_details = details
        remaining = RATE_LIMIT_TOKENS - self.r.usage.wire()["total_tokens"]
        return [
            self.emit("response.done", response=self.r.wire()),
            self.emit(
                "rate_limits.updated",
                rate_limits=[
                    {
                        "name": "tokens",
                        "limit": RATE_LIMIT_TOKENS,
                        "remaining": remaining,
                        "reset_seconds": 0.001,
                    }
                ],
            ),
        ]


def _split_arguments(arguments: str, pieces: int = 3) -> list[str]:
    size = max(1, -(-len(arguments) // pieces))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]


def _audio_tokens(duration_ms: float, ms_per_token: float) -> int:
    return int(-(-duration_ms // ms_per_token)) if duration_ms > 0 else 0


def _b64(data: bytes) -> str:
    return encode_base64_audio(data)
