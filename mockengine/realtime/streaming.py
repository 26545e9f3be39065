"""Streaming one response: the exact order of its server events over time (reference §3.2, §3.3, §3.5).

The streamer moves only through ``response_phases.TRANSITIONS``: thinking (no reply yet) → preparing
(the reply is known) → at most one message (spoken or written) → its function calls → ``response.done``
and ``rate_limits.updated``. A message is announced (``output_item.added``, ``conversation.item.added``,
``content_part.added``) with its first delta, audio or text: a response cut before that ends with
``output: []``, adds no item, and bills nothing (reference §3.6).

Audio pacing: a message's audio is released in deltas of ``delta_ms`` at ``pace`` × real time, the first
no earlier than ``first_delta_delay_ms`` after ``response.created``; ``pace == 0`` releases each delta as
soon as its sentence is synthesized. Transcript deltas are interleaved with the audio: each sentence's
words are spread over that sentence's audio deltas, each delta's share (rounded up) just before its
audio (the live order within the interleaving is not documented: our choice, docs/realtime-protocol.md);
so a cut (cancel, barge-in) leaves a transcript that matches the audio sent, the words of the delta under
way included. How tokens are counted: ``usage``.

Text pacing: a written reply (``output_modalities: ["text"]``) goes out one word a delta, the first with the
message's opening no earlier than ``first_delta_delay_ms`` after ``response.created`` (as a spoken reply's
first audio: the live model takes a while to start writing too, and a client measures its time to first
token) and each next one its predecessor's tokens later at ``text_tokens_per_s`` (the live
model writes at its own speed, so a client's ``response.cancel`` can land mid-reply: an Agents SDK output
guardrail's does). ``text_tokens_per_s == 0`` writes the whole reply at once. Only the timing depends on
the rate: the events, their content and order are the same.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mockengine.audio.g711 import encoded_slice, from_pcm16_24k
from mockengine.audio.pcm import encode_base64_audio
from mockengine.brain.model import Reply
from mockengine.engines.sentences import split_sentences
from mockengine.ids import IdFactory
from mockengine.protocol import server_events as se
from mockengine.realtime.conversation import Item
from mockengine.realtime.effects import CallMcpTool, McpCallKey, SentenceKey, Synthesize
from mockengine.realtime.mcp import McpRoute, McpServer
from mockengine.realtime.response import Response, Usage
from mockengine.realtime.response_phases import IllegalMove, Move, Phase, next_phase
from mockengine.realtime.usage import (
    ASSISTANT_AUDIO_MS_PER_TOKEN,
    BYTES_PER_MS,
    TokenCounting,
    add_input_usage,
    assistant_audio_tokens,
    rate_limits,
    text_tokens,
)

MAX_TOKENS_DETAILS = {"type": "incomplete", "reason": "max_output_tokens"}
Events = list[dict[str, Any]]
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")
# The phases and the move a paced reply reads on every tick and delta, as module globals: in Python 3.11
# ``Phase.MESSAGE`` goes through EnumType's ``__getattr__`` hook (a method-wrapper made and called, ~190 ns
# a read against ~20 ns for a global; docs/cpu.md, eighteenth pass).
_THINKING, _PREPARING, _MESSAGE, _DONE = Phase.THINKING, Phase.PREPARING, Phase.MESSAGE, Phase.DONE
_MESSAGE_DELTA = Move.MESSAGE_DELTA


@dataclass
class _Sentence:
    text: str
    pcm: bytes | None = None
    sent_bytes: int = 0
    words_sent: int = 0
    # (output format, the whole sentence in it): G.711 deltas are slices of the sentence encoded once.
    encoded: tuple[str, bytes] | None = None
    # Its words, split once: each delta spreads them over the audio (not split again per delta).
    words: list[str] = dataclasses.field(init=False)
    # Each word's tokens as the transcript writes it (after a space but at the transcript's start),
    # counted once when a budget first needs them: see ``ResponseStreamer._transcript_tokens``.
    word_tokens: list[int] | None = None

    def __post_init__(self) -> None:
        self.words = self.text.split(" ")

    def encoded_slice(self, start_bytes: int, end_bytes: int, format_type: str) -> bytes:
        """The sentence's PCM16 24 kHz ``[start_bytes:end_bytes]`` in ``format_type``, cut from the whole
        sentence resampled once: resampling each delta as a clip of its own put soxr's edge transient at
        every delta boundary (clicks every 200 ms on a phone line, up to 7 040 of 20 159 peak on a spoken
        question). Slices of one encoding join into exactly that encoding."""
        assert self.pcm is not None
        if format_type == "audio/pcm":
            return self.pcm[start_bytes:end_bytes]
        if self.encoded is None or self.encoded[0] != format_type:
            self.encoded = (format_type, from_pcm16_24k(self.pcm, format_type))
        return encoded_slice(self.encoded[1], start_bytes, end_bytes, len(self.pcm))

    @property
    def is_sent(self) -> bool:
        """All its audio and all its words went out (a sentence piper made no audio for still has words)."""
        return (
            self.pcm is not None and self.sent_bytes >= len(self.pcm) and self.words_sent >= len(self.words)
        )


class ResponseStreamer:
    """Turns a response's reply into server events over time.

    Events are built by ``protocol.server_events``; ``place(item)`` adds an output item to the conversation
    and returns the id before it. Out-of-band responses (``conversation: "none"``) place nothing.
    """

    def __init__(
        self,
        response: Response,
        ids: IdFactory,
        place: Callable[[Item], str | None],
        tokens: TokenCounting,
    ) -> None:
        self.response = response
        self.ids = ids
        self.place = place
        self.tokens = tokens
        self.reply: Reply | None = None
        self._phase = Phase.THINKING
        self._message: Item | None = None
        self._sentences: list[_Sentence] = []
        # The first sentence not yet sent (sentences go out in order, and a sent one stays sent).
        self._sentence_index = 0
        # Where the open message's one content part is (every delta repeats it): made once per message.
        self._part_ref: se.ContentPartRef | None = None
        # (item, its full arguments): function calls, MCP calls and MCP approval requests, in order.
        self._pending_calls: list[tuple[Item, str]] = []
        self._servers: dict[str, McpServer] = {}  # the MCP servers the reply's calls go to, by label
        self.effects_due: list[CallMcpTool] = []  # MCP calls reached since the owner last took them
        self.awaited_approval_id: str | None = None  # the mcp_approval_request the response waits on
        self._next_delta_due_ms = 0.0
        # A written reply's words (cut to max_output_tokens), each one's tokens, how many went out.
        self._text_words: list[str] = []
        self._text_word_tokens: list[int] = []
        self._words_written = 0
        self._transcript = ""
        # The tokens in ``_transcript``, summed as its words are written: each word is counted once, not
        # the whole transcript again each delta (quadratic in a long reply's length: 2,000 words under
        # max_output_tokens took 18-24 s of tokenizing on the event loop). The sum is the whole text's
        # count: words are joined by single spaces, where byte-level BPE's pre-tokenizer (and the
        # fallback rule) cut anyway (as engines/tokens.py counts a long text in pieces).
        self._transcript_tokens = 0
        self._was_cut_short = False  # written text trimmed to max_output_tokens
        self.audio_sent_bytes = 0
        self.first_audio_ms: float | None = None

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_thinking(self) -> bool:
        return self._phase is Phase.THINKING

    @property
    def playback_end_ms(self) -> float | None:
        """When a client playing the audio in real time from its first delta would have heard it all."""
        if self.first_audio_ms is None:
            return None
        return self.first_audio_ms + self.audio_sent_bytes / BYTES_PER_MS

    def account_input(self, instructions: str, context: Iterable[Item]) -> None:
        add_input_usage(self.response.usage, self.tokens, instructions, context)

    # -- start and progress ---------------------------------------------------------------------------

    def begin(
        self,
        reply: Reply,
        now_ms: float,
        routes: dict[str, McpRoute] | None = None,
        servers: dict[str, McpServer] | None = None,
    ) -> tuple[Events, list[Synthesize]]:
        """Open the output for the brain's reply; returns the events due now and the speech to make.
        ``routes``: the tools (by name) that are hosted MCP tools and where they go (``servers``, by
        label); their calls become ``mcp_call`` or ``mcp_approval_request`` items, the others function
        calls. The MCP calls reached are in ``effects_due``.

        Raises :class:`IllegalMove` unless the response is still thinking."""
        if self._phase is not Phase.THINKING:
            raise IllegalMove(f"a reply arrived while the response is {self._phase.value}")
        if reply.text:
            # Control characters (an echoed NUL, say) are neither speakable nor wanted in a transcript.
            reply = dataclasses.replace(reply, text=" ".join(_CONTROL_CHARS.sub(" ", reply.text).split()))
        self.reply = reply
        self._move(Move.REPLY)
        self._servers = dict(servers or {})
        for call in reply.tool_calls:
            route = (routes or {}).get(call.name)
            if route is None:
                item = Item(
                    self.ids.item(),
                    "function_call",
                    status="in_progress",
                    name=call.name,
                    call_id=self.ids.call(),
                    arguments="",
                )
            else:
                kind = "mcp_approval_request" if route.needs_approval else "mcp_call"
                item = Item(self.ids.item(), kind, name=call.name, server_label=route.server_label)
                item.approval_request_id = route.approval_request_id
                item.arguments = call.arguments if route.needs_approval else ""
            self._pending_calls.append((item, call.arguments))
        events: Events = []
        effects: list[Synthesize] = []
        response = self.response
        if reply.text and response.params.is_audio:
            self._sentences = [_Sentence(s) for s in split_sentences(reply.text)]
            voice, speed = response.params.spoken_voice, response.params.speed
            effects = [
                Synthesize(SentenceKey(response.id, i), s.text, voice, speed)
                for i, s in enumerate(self._sentences)
            ]
            self._next_delta_due_ms = response.created_ms + response.pacing.first_delta_delay_ms
        elif reply.text:
            self._text_words, self._text_word_tokens = self._words_to_write(reply.text)
            self._next_delta_due_ms = response.created_ms + response.pacing.first_delta_delay_ms
        return events + self._release(now_ms), effects

    def on_speech(self, index: int, pcm16: bytes) -> None:
        if 0 <= index < len(self._sentences):
            self._sentences[index].pcm = pcm16

    def next_deadline_ms(self) -> float | None:
        phase = self._phase
        if (phase is _PREPARING or phase is _MESSAGE) and self._words_written < len(self._text_words):
            return self._next_delta_due_ms if self.response.pacing.text_tokens_per_s > 0 else 0.0
        sentence = self._current_sentence()
        if (phase is not _PREPARING and phase is not _MESSAGE) or sentence is None or sentence.pcm is None:
            return None
        return self._next_delta_due_ms if self.response.pacing.pace > 0 else 0.0

    def advance(self, now_ms: float) -> Events:
        """Release what is due (nothing while thinking or once done)."""
        if self._phase is _THINKING or self._phase is _DONE:
            return []
        return self._release(now_ms)

    def cancel(self, reason: str) -> Events:
        """End the response now: close what is open, then ``response.done`` cancelled (reference §3.6).
        Cut before any output, it bills nothing: ``output: []`` and usage all zeros, as the live service
        reports a response cancelled before its first delta (reference §3.6)."""
        if not self.response.output:
            self.response.usage = Usage()
        return self._end("cancelled", {"type": "cancelled", "reason": reason})

    def fail(self, code: str, message: str, error_type: str = "server_error") -> Events:
        """End the response now with ``status: "failed"``. Failed before any output, it bills nothing:
        ``output: []`` and usage all zeros, as the live service reports one (a GA ``server_error`` and a
        beta ``insufficient_quota`` failure, docs/realtime-protocol.md); after output, what was read and
        sent. ``error_type``: the ``status_details.error.type`` (``invalid_request_error`` when the
        client's input is at fault)."""
        if not self.response.output:
            self.response.usage = Usage()
        return self._end(
            "failed", {"type": "failed", "error": {"type": error_type, "code": code, "message": message}}
        )

    # -- pieces ---------------------------------------------------------------------------------------

    def _move(self, move: Move) -> None:
        self._phase = next_phase(self._phase, move)

    def _release(self, now_ms: float) -> Events:
        """The text or audio deltas due, then the message's end, the function calls, done."""
        events: Events = []
        pacing = self.response.pacing
        if self._words_written < len(self._text_words):
            if self._message is None:
                # A written message is announced with its first delta, as a spoken one with its audio.
                if pacing.text_tokens_per_s > 0 and now_ms < self._next_delta_due_ms:
                    return events
                events += self._open_message()
            events += self._text_deltas(now_ms)
            if self._words_written < len(self._text_words):
                return events
        while (sentence := self._current_sentence()) is not None:
            if sentence.pcm is None or (pacing.pace > 0 and now_ms < self._next_delta_due_ms):
                return events
            if self._output_tokens_left() <= 0:
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            if self._message is None:
                events += self._open_message()
            events += self._audio_delta(sentence, now_ms)
        if self._was_cut_short:
            return events + self._end("incomplete", MAX_TOKENS_DETAILS)
        if self._message is not None:
            events += self._close_message("completed")
        while self._pending_calls:
            if self._phase in (Phase.MCP_CALL, Phase.AWAITING_APPROVAL):
                return events  # on_mcp_result / on_approval go on
            if self._output_tokens_left() <= 0:
                return events + self._end("incomplete", MAX_TOKENS_DETAILS)
            item, arguments = self._pending_calls[0]
            if item.type == "mcp_call":
                events += self._start_mcp_call(item, arguments)
                continue
            self._pending_calls.pop(0)
            if item.type == "mcp_approval_request":
                self._move(Move.APPROVAL_ASKED)
                self.awaited_approval_id = item.id
                events += self._open_item(item) + self._close_item(item, "completed")
                self.response.usage.output_text_tokens += text_tokens(self.tokens, arguments)
            else:
                events += self._function_call(item, arguments)
        if self._phase is Phase.AWAITING_APPROVAL:
            return events  # on_approval goes on
        return events + self._finish("completed", None)

    def _end(self, status: str, details: dict[str, Any]) -> Events:
        events = self._close_message("incomplete") if self._message is not None else []
        if self._phase is Phase.MCP_CALL:  # cut while its server works: the call ends without its output
            item = self._pending_calls[0][0]
            error = {
                "type": "tool_execution_error",
                "message": "The response ended before the tool returned.",
            }
            events += self._finish_mcp_call(item, None, error)
        self._pending_calls.clear()
        return events + self._finish(status, details)

    def _output_tokens_left(self) -> float:
        """Output tokens left under ``max_output_tokens`` (text, audio and call arguments so far)."""
        limit = self.response.params.max_output_tokens
        if not isinstance(limit, int):
            return float("inf")
        usage = self.response.usage
        if self._message is None:  # the message (if any) is closed and counted in the usage
            return limit - usage.output_text_tokens - usage.output_audio_tokens
        return limit - self._transcript_tokens - assistant_audio_tokens(self.audio_sent_bytes)

    def _current_sentence(self) -> _Sentence | None:
        """The first sentence not yet sent (all of them before it are, and stay so)."""
        sentences, index = self._sentences, self._sentence_index
        while index < len(sentences) and sentences[index].is_sent:
            index += 1
        self._sentence_index = index
        return sentences[index] if index < len(sentences) else None

    def _part(self) -> se.ContentPartRef:
        """Where the message's one content part is (``output_index`` 0, ``content_index`` 0). The same
        dict for the whole message: the event builders copy it into each event, never change it."""
        assert self._message is not None
        if self._part_ref is None:
            self._part_ref = se.content_part_ref(self.response.id, self._message.id, 0, 0)
        return self._part_ref

    def _delta_part(self) -> se.ContentPartRef:
        """The part, for one more delta of it."""
        self._move(_MESSAGE_DELTA)
        return self._part()

    def _open_item(self, item: Item) -> Events:
        response = self.response
        response.output.append(item)
        events = [
            se.response_output_item_added(
                self.ids.event(),
                response_id=response.id,
                output_index=len(response.output) - 1,
                item=item.wire(),
            )
        ]
        item.in_conversation = response.conversation_id is not None
        if item.in_conversation:
            previous = item.previous_item_id = self.place(item)
            events.append(
                se.conversation_item_added(self.ids.event(), previous_item_id=previous, item=item.wire())
            )
        return events

    def _close_item(self, item: Item, status: str) -> Events:
        item.status = status
        events = []
        if item.in_conversation:
            previous = item.previous_item_id
            events.append(
                se.conversation_item_done(self.ids.event(), previous_item_id=previous, item=item.wire())
            )
        events.append(
            se.response_output_item_done(
                self.ids.event(),
                response_id=self.response.id,
                output_index=self.response.output.index(item),
                item=item.wire(),
            )
        )
        return events

    def _open_message(self) -> Events:
        self._move(Move.MESSAGE_ADDED)
        # bytearray: the audio grows by a delta at a time (bytes would be copied whole each time).
        self._message = Item(
            self.ids.item(), "message", role="assistant", status="in_progress", audio=bytearray()
        )
        events = self._open_item(self._message)
        if self.response.params.is_audio:
            self._message.content = [{"type": "output_audio", "transcript": ""}]
            part = {"type": "audio", "transcript": ""}
        else:
            self._message.content = [{"type": "output_text", "text": ""}]
            part = {"type": "text", "text": ""}
        return events + [se.response_content_part_added(self.ids.event(), self._part(), part=part)]

    def _words_to_write(self, text: str) -> tuple[list[str], list[int]]:
        """The reply's words and each one's tokens (as its delta writes it), the last words dropped while
        they would pass ``max_output_tokens`` (the first one always kept). Words past the limit are not
        counted."""
        words = text.split(" ")
        limit = self.response.params.max_output_tokens
        counts: list[int] = []
        total = 0
        for index, word in enumerate(words):
            count = text_tokens(self.tokens, " " + word if index else word)
            total += count
            if isinstance(limit, int) and total > limit and index > 0:
                self._was_cut_short = True
                return words[:index], counts
            counts.append(count)
        return words, counts

    def _text_deltas(self, now_ms: float) -> Events:
        """The written reply's deltas due at ``now_ms``, a word each; the next one is due its
        predecessor's tokens later (at ``text_tokens_per_s``; all of them now when that is 0)."""
        rate = self.response.pacing.text_tokens_per_s
        words, events = self._text_words, []
        while self._words_written < len(words):
            if rate > 0 and now_ms < self._next_delta_due_ms:
                break
            word, tokens = words[self._words_written], self._text_word_tokens[self._words_written]
            delta = " " + word if self._words_written else word
            self._words_written += 1
            self._transcript += delta
            self._transcript_tokens += tokens
            events.append(
                se.response_output_text_delta(
                    self.ids.event(), self._delta_part(), delta=delta, obfuscation=self.ids.obfuscation()
                )
            )
            if rate > 0:
                # A late timer catches up at most 50 ms (as audio does), not the whole lag in one burst.
                seconds = max(1, tokens) / rate
                self._next_delta_due_ms = max(self._next_delta_due_ms, now_ms - 50) + seconds * 1000
        return events

    def _audio_delta(self, sentence: _Sentence, now_ms: float) -> Events:
        assert self._message is not None and sentence.pcm is not None
        events = []
        pacing = self.response.pacing
        chunk_bytes = pacing.delta_ms * BYTES_PER_MS
        total_chunks = max(1, -(-len(sentence.pcm) // chunk_bytes))
        words = sentence.words
        # Rounded up: the words of a delta's audio go out with it, just before it (our choice: the live
        # order is not documented), so a response cancelled after its first audio delta keeps the words
        # spoken so far. Rounded down, a sentence with more deltas
        # than words sent its first audio delta with no words before it: an empty transcript.
        words_due = -(-len(words) * (sentence.sent_bytes // chunk_bytes + 1) // total_chunks)
        words_due = self._words_within_budget(sentence, words_due)
        if words_due > sentence.words_sent:
            piece = " ".join(words[sentence.words_sent : words_due])
            piece = " " + piece if self._transcript else piece
            if sentence.word_tokens is None:  # no budget: the piece at once (it adds up the same)
                self._transcript_tokens += text_tokens(self.tokens, piece)
            else:
                self._transcript_tokens += sum(sentence.word_tokens[sentence.words_sent : words_due])
            self._transcript += piece
            sentence.words_sent = words_due
            events.append(
                se.response_output_audio_transcript_delta(
                    self.ids.event(), self._delta_part(), delta=piece, obfuscation=self.ids.obfuscation()
                )
            )
        if self.first_audio_ms is None:
            self.first_audio_ms = now_ms
        # The last delta before max_output_tokens is cut to what the budget still allows (the words
        # just written count too: with none left, no audio, as a started audio token would overshoot).
        budget_bytes = self._output_tokens_left() * ASSISTANT_AUDIO_MS_PER_TOKEN * BYTES_PER_MS
        chunk_bytes = int(min(chunk_bytes, budget_bytes) // 2 * 2)
        start_bytes = sentence.sent_bytes
        # A view, not a copy: the message's audio and the base64 read it where it is (issue 15, eighth pass).
        chunk = memoryview(sentence.pcm)[start_bytes : start_bytes + chunk_bytes]
        if not chunk:
            return events
        sentence.sent_bytes += len(chunk)
        self.audio_sent_bytes += len(chunk)
        audio = self._message.audio
        if not isinstance(audio, bytearray):  # truncated while still being sent: its bytes, growing again
            audio = self._message.audio = bytearray(bytes(audio))  # (a message being written never spills)
        audio += chunk
        kind = self.response.params.output_format.get("type", "audio/pcm")
        # In PCM the delta is the chunk itself (encoded_slice would cut the same bytes again).
        if kind == "audio/pcm":
            delta = encode_base64_audio(chunk)
        else:
            delta = encode_base64_audio(sentence.encoded_slice(start_bytes, start_bytes + len(chunk), kind))
        events.append(se.response_output_audio_delta(self.ids.event(), self._delta_part(), delta=delta))
        if pacing.pace > 0:
            self._next_delta_due_ms = (
                max(self._next_delta_due_ms, now_ms - 50) + len(chunk) / BYTES_PER_MS / pacing.pace
            )
        return events

    def _words_within_budget(self, sentence: _Sentence, words_due: int) -> int:
        """``words_due`` cut to the words of ``sentence`` whose tokens still fit under
        ``max_output_tokens`` (none past ``words_sent`` when even the next one does not): the audio
        after them gets what is left, and the response ends ``incomplete`` once nothing is."""
        left = self._output_tokens_left()
        if left == float("inf"):
            return words_due
        if sentence.word_tokens is None:
            # Counted once a sentence (as the transcript writes them: after a space but at its start),
            # then each delta sums the words it adds.
            starts = not self._transcript and sentence.words_sent == 0
            sentence.word_tokens = [
                text_tokens(self.tokens, word if starts and index == 0 else " " + word)
                for index, word in enumerate(sentence.words)
            ]
        fits = sentence.words_sent
        for tokens in sentence.word_tokens[sentence.words_sent : words_due]:
            left -= tokens
            if left < 0:
                break
            fits += 1
        return fits

    def _close_message(self, status: str) -> Events:
        message = self._message
        assert message is not None
        self._move(Move.MESSAGE_DONE)
        ref, usage = self._part(), self.response.usage
        usage.output_text_tokens += self._transcript_tokens
        if self.response.params.is_audio:
            # A cut item keeps no transcript (only the words its kept audio holds, for the brain); the
            # events still close the part the deltas built.
            cut = message.truncated_at_ms is not None
            message.content = [{"type": "output_audio", "transcript": None if cut else self._transcript}]
            if cut:
                message.keep_heard(self._transcript, self.audio_sent_bytes / BYTES_PER_MS)
            usage.output_audio_tokens += assistant_audio_tokens(self.audio_sent_bytes)
            events = [
                se.response_output_audio_done(self.ids.event(), ref),
                se.response_output_audio_transcript_done(self.ids.event(), ref, transcript=self._transcript),
            ]
            part = {"type": "audio", "transcript": self._transcript}
        else:
            message.content = [{"type": "output_text", "text": self._transcript}]
            events = [se.response_output_text_done(self.ids.event(), ref, text=self._transcript)]
            part = {"type": "text", "text": self._transcript}
        events.append(se.response_content_part_done(self.ids.event(), ref, part=part))
        self._message = self._part_ref = None
        return events + self._close_item(message, status)

    def _function_call(self, item: Item, arguments: str) -> Events:
        self._move(Move.FUNCTION_CALL)
        events = self._open_item(item)
        assert item.name is not None  # a function call item always has its name
        common: dict[str, Any] = {"response_id": self.response.id, "item_id": item.id}
        common.update(output_index=self.response.output.index(item), call_id=item.call_id)
        for piece in _split_arguments(arguments):
            events.append(se.response_function_call_arguments_delta(self.ids.event(), **common, delta=piece))
        item.arguments = arguments
        events.append(
            se.response_function_call_arguments_done(
                self.ids.event(), **common, name=item.name, arguments=arguments
            )
        )
        self.response.usage.output_text_tokens += text_tokens(self.tokens, arguments)
        return events + self._close_item(item, "completed")

    def _start_mcp_call(self, item: Item, arguments: str) -> Events:
        """An MCP call's item, its arguments and ``mcp_call.in_progress``; its server is called now."""
        self._move(Move.MCP_CALL)
        events = self._open_item(item)
        output_index = self.response.output.index(item)
        common: dict[str, Any] = {
            "response_id": self.response.id,
            "item_id": item.id,
            "output_index": output_index,
        }
        for piece in _split_arguments(arguments):
            events.append(se.response_mcp_call_arguments_delta(self.ids.event(), **common, delta=piece))
        item.arguments = arguments
        events.append(se.response_mcp_call_arguments_done(self.ids.event(), **common, arguments=arguments))
        events.append(
            se.response_mcp_call_in_progress(self.ids.event(), item_id=item.id, output_index=output_index)
        )
        self.response.usage.output_text_tokens += text_tokens(self.tokens, arguments)
        server = self._servers.get(item.server_label or "")
        if server is None:
            # Its server left the session's tools (session.update while the brain thought, or while the
            # approval request waited): not called. A tool_execution_error, as the tool could not run
            # (no JSON-RPC or HTTP exchange took place to give another type's code).
            error = {
                "type": "tool_execution_error",
                "message": f"MCP server '{item.server_label}' is no longer in the session's tools; the tool "
                "was not called.",
            }
            return events + self._finish_mcp_call(item, None, error)
        key = McpCallKey(self.response.id, item.id)
        self.effects_due.append(CallMcpTool(key, server, item.name or "", arguments))
        return events

    def on_mcp_result(
        self, item_id: str, output: str | None, error: dict[str, Any] | None, now_ms: float
    ) -> Events:
        """The server's answer to the open MCP call ``item_id``: close it, then release what follows."""
        if self._phase is not Phase.MCP_CALL or self._pending_calls[0][0].id != item_id:
            return []  # not the call this response waits for (it ended meanwhile)
        item = self._pending_calls[0][0]
        return self._finish_mcp_call(item, output, error) + self._release(now_ms)

    def _finish_mcp_call(self, item: Item, output: str | None, error: dict[str, Any] | None) -> Events:
        self._move(Move.MCP_CALL_DONE)
        self._pending_calls.pop(0)
        item.output, item.error = (output, None) if error is None else (None, error)
        output_index = self.response.output.index(item)
        kind = se.response_mcp_call_completed if error is None else se.response_mcp_call_failed
        events = [kind(self.ids.event(), item_id=item.id, output_index=output_index)]
        return events + self._close_item(item, "completed")

    @property
    def awaited_request(self) -> Item | None:
        """The ``mcp_approval_request`` this response waits on, or None."""
        request_id = self.awaited_approval_id
        return next((item for item in self.response.output if item.id == request_id), None)

    def on_approval(
        self, request_id: str, approve: bool, now_ms: float, answered_id: str | None = None
    ) -> Events:
        """The client answered the approval request ``request_id`` this response waits for: approved,
        its call follows in this response (carrying ``approval_request_id``: ``answered_id`` when the
        answer was to an earlier request for the same call, made by a response that was cut); refused,
        none."""
        if self._phase is not Phase.AWAITING_APPROVAL or self.awaited_approval_id != request_id:
            return []
        self._move(Move.APPROVAL_ANSWERED)
        self.awaited_approval_id = None
        request = next(item for item in self.response.output if item.id == request_id)
        if approve:
            call = Item(self.ids.item(), "mcp_call", name=request.name, server_label=request.server_label)
            call.approval_request_id, call.arguments = answered_id or request.id, ""
            self._pending_calls.insert(0, (call, request.arguments or "{}"))
        return self._release(now_ms)

    def keep_servers(self, labels: set[str | None]) -> None:
        """Forget the MCP servers not named in ``labels``: their calls not yet made fail instead."""
        self._servers = {label: server for label, server in self._servers.items() if label in labels}

    def take_effects(self) -> list[CallMcpTool]:
        effects, self.effects_due = self.effects_due, []
        return effects

    def _finish(self, status: str, details: dict[str, Any] | None) -> Events:
        self._move(Move.RESPONSE_DONE)
        response = self.response
        response.status = status
        response.status_details = details
        return [
            se.response_done(self.ids.event(), response=response.wire()),
            se.rate_limits_updated(self.ids.event(), rate_limits=rate_limits(response.usage)),
        ]


def _split_arguments(arguments: str, pieces: int = 3) -> list[str]:
    size = max(1, -(-len(arguments) // pieces))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]
