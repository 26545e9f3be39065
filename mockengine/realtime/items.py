"""The conversation's items as the client edits them (``conversation.item.*``), the user audio items the
turns commit, their transcripts, and the bounds on the conversation's size (reference §7, §8).

A user audio item waits for its transcript in ``SessionContext.pending_transcripts``; the brain reads
the words, so a response whose context holds such an item waits too (``responses.Responses``, which
records a transcript that lands through :meth:`ConversationItems.transcribed`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from mockengine.audio.g711 import from_pcm16_24k, to_pcm16_24k
from mockengine.brain.model import ImageFacts
from mockengine.engines.stt import Transcript, WordTiming
from mockengine.engines.tokens import MAX_CACHED_CHARS as COUNT_ASIDE_CHARS
from mockengine.engines.transcript_segments import ONE_SPEAKER, cues
from mockengine.engines.transcript_tokens import logprobs
from mockengine.protocol import client_events as ce
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.session_schema import (
    DIARIZING_MODEL,
    DURATION_BILLED_MODEL,
    LANGUAGE_DETECTING_MODEL,
)
from mockengine.realtime.audio_store import AudioSpill
from mockengine.realtime.context import SessionContext
from mockengine.realtime.conversation import Item, item_from_wire
from mockengine.realtime.effects import ItemTranscriptKey, Step, Transcribe
from mockengine.realtime.usage import TokenCounting

Events = list[dict[str, Any]]
# The diarizing model's speaker label for everything one session hears (the audio API's first label).
STREAM_SPEAKER = ONE_SPEAKER
# ``error.code`` of ``…input_audio_transcription.failed`` for audio whisper could not make out (the
# reference's only recorded failure, §10), and for a turn left untranscribed because newer turns were
# waiting behind it (``RealtimeSession.on_transcription_backlog``; mockengine's: the live service's
# behaviour under such a backlog is not documented).
UNINTELLIGIBLE_CODE = "audio_unintelligible"
BACKLOG_CODE = "transcription_backlog"


def backlog_message(limit: int) -> str:
    """The ``message`` of a backlog failure; ``limit``: the transcriptions that may wait per session."""
    return (
        f"The audio was not transcribed: more than {limit} transcriptions were waiting in this session, "
        "so the oldest was dropped and newer turns are transcribed first."
    )


class ConversationItems:
    def __init__(
        self,
        ctx: SessionContext,
        *,
        tokens: TokenCounting,
        describe_image: Callable[[str], ImageFacts],
        audio_spill: AudioSpill,
    ) -> None:
        self.ctx = ctx
        self.tokens = tokens
        self.describe_image = describe_image
        self.audio_spill = audio_spill
        # Set with ``Responses.think_aside``: only a session whose brain runs off the loop counts long
        # texts aside, so only it registers them (an inline session would keep them referenced for ever).
        self.count_aside = False

    # -- client events --------------------------------------------------------------------------------

    def on_conversation_item_create(self, event: ce.ConversationItemCreate, now_ms: float) -> Step:
        if self.ctx.view.is_transcription:
            raise errors.not_in_transcription_session(event.type)
        conversation = self.ctx.conversation
        at_root = event.previous_item_id == "root"
        after = None if event.previous_item_id in (ce.APPEND, "root") else event.previous_item_id
        if after is not None and after not in conversation:
            raise errors.previous_item_not_found(after)
        item, needs_transcript = self.from_wire(event.item)
        # At the bound the oldest items make room, as for the engine's own items: the live service
        # documents no item cap (it trims the model's context by ``truncation``, reference §4), and a
        # refusal ended a long typed session. The item ``previous_item_id`` names stays, as the new one
        # goes after it ("root" names none); refused only when no item may go (``conversation_full``).
        anchor = None if after is None else conversation.get(after)
        limit = self.ctx.options.max_conversation_items
        if len(conversation) >= limit:
            held = self._unevictable(anchor)
            if sum(id(i) in held for i in conversation) >= limit:
                raise errors.conversation_full(limit)
        evicted = self.make_room(len(item.audio), keep=anchor)
        # A reused id joins the item already holding it (reference §7): see Conversation.
        previous = conversation.insert(item, after, at_root=at_root)
        item.previous_item_id = previous
        step = Step(
            events=[
                *evicted,
                se.conversation_item_added(self.ctx.ids.event(), previous_item_id=previous, item=item.wire()),
                se.conversation_item_done(self.ctx.ids.event(), previous_item_id=previous, item=item.wire()),
            ]
        )
        if needs_transcript:
            step.effects.append(self.transcribe(item, self.ctx.await_transcript(item)))
        return step

    def on_conversation_item_truncate(self, event: ce.ConversationItemTruncate, now_ms: float) -> Step:
        item = self.ctx.conversation.get(event.item_id)
        if item is None:
            # param null like delete and retrieve (live-tested, reference §8); truncate's own is unconfirmed
            raise errors.item_not_found("truncating", "item_truncate_invalid_item_id", event.item_id, None)
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
                se.conversation_item_truncated(
                    self.ctx.ids.event(),
                    item_id=item.id,
                    content_index=event.content_index,
                    audio_end_ms=event.audio_end_ms,
                )
            ]
        )

    def on_conversation_item_delete(self, event: ce.ConversationItemDelete, now_ms: float) -> Step:
        item = self.ctx.conversation.get(event.item_id)
        if item is None:
            # param null: live-tested (reference §8)
            raise errors.item_not_found("deleting", "item_delete_invalid_item_id", event.item_id, None)
        for removed in self.ctx.conversation.delete(event.item_id):
            removed.in_conversation = False  # a response still writing it sends no more conversation.item.*
        # A deleted id may come back on a new item, which is in the model's context like any new one
        self.ctx.out_of_context.discard(event.item_id)
        return Step(events=[se.conversation_item_deleted(self.ctx.ids.event(), item_id=event.item_id)])

    def on_conversation_item_retrieve(self, event: ce.ConversationItemRetrieve, now_ms: float) -> Step:
        item = self.ctx.conversation.get(event.item_id)
        if item is None:
            # param null: live-tested (steelburn/speaches against gpt-realtime-1.5, reference S11)
            raise errors.item_not_found("retrieving", "item_retrieve_invalid_item_id", event.item_id, None)
        # Retrieved audio is in the session's format: user audio as it came in, assistant audio as sent.
        direction = "output" if item.role == "assistant" else "input"
        view = self.ctx.view
        fmt = (view.output_format if direction == "output" else view.input_format).type
        wire = item.wire(audio_encoder=lambda pcm: pcm if fmt == "audio/pcm" else from_pcm16_24k(pcm, fmt))
        return Step(events=[se.conversation_item_retrieved(self.ctx.ids.event(), item=wire)])

    # -- items from the client and the turns ----------------------------------------------------------

    def from_wire(
        self, wire: dict[str, Any], calls_before: AbstractSet[str] = frozenset()
    ) -> tuple[Item, bool]:
        """A validated client item as stored, and whether its audio still needs a transcript;
        ``calls_before``: call ids a ``function_call_output`` may answer besides the conversation's."""
        item, needs_transcript = item_from_wire(
            wire,
            ids=self.ctx.ids,
            conversation=self.ctx.conversation,
            describe_image=self.describe_image,
            decode_audio=self.decode_input_audio,
            calls_before=calls_before,
        )
        if self.count_aside and item.text_is_longer_than(COUNT_ASIDE_CHARS):
            self.ctx.long_texts.append(item)
        return item, needs_transcript

    def decode_input_audio(self, data: bytes) -> bytes:
        """Client audio in the session's input format → PCM16 24 kHz."""
        fmt = self.ctx.view.input_format.type
        return data if fmt == "audio/pcm" else to_pcm16_24k(data, fmt)

    def commit_user_audio(self, item_id: str, pcm: bytes, *, transcribe: bool) -> Step:
        """Add committed input audio as a user item (``input_audio_buffer.committed`` and the item's
        events). It awaits its transcript; ``transcribe``: ask for it (False when its words are known
        or already being transcribed)."""
        item = Item(
            item_id, "message", role="user", content=[{"type": "input_audio", "transcript": None}], audio=pcm
        )
        evicted = self.make_room(len(pcm))
        previous = self.ctx.conversation.insert(item)
        item.previous_item_id = previous
        step = Step(
            events=[
                *evicted,
                se.input_audio_buffer_committed(
                    self.ctx.ids.event(), previous_item_id=previous, item_id=item_id
                ),
                se.conversation_item_added(self.ctx.ids.event(), previous_item_id=previous, item=item.wire()),
                se.conversation_item_done(self.ctx.ids.event(), previous_item_id=previous, item=item.wire()),
            ]
        )
        key = self.ctx.await_transcript(item)
        if transcribe:
            step.effects.append(self.transcribe(item, key))
        return step

    def make_room(self, audio_bytes: int, items_needed: int = 1, keep: Item | None = None) -> Events:
        """Bound the conversation before an item is added (a commit, a reply, a client's
        ``conversation.item.create``): the oldest items go, each announced with
        ``conversation.item.deleted`` so the client's copy stays true — like the live service's "auto"
        truncation, which drops the oldest context first. Items a response is still writing stay, and
        ``keep`` (the item a new one is placed after). Each dropped item's audio goes and its transcript
        is no longer awaited. ``audio_bytes``: the new item's audio (PCM16 24 kHz)."""
        options, conversation = self.ctx.options, self.ctx.conversation
        limit_items = options.max_conversation_items - items_needed
        limit_bytes = options.max_conversation_audio_ms * 48 - audio_bytes
        held = self._unevictable(keep)
        # This runs before every added item: the conversation keeps account of where its audio is, so
        # neither step walks every item (a long call's thousand items made each pass cost the loop).
        in_memory = conversation.audio_in_memory()
        self.audio_spill.keep_newest((i for i in in_memory if id(i) not in held), audio_bytes)
        audio_total = conversation.audio_bytes
        if len(conversation) <= limit_items and audio_total <= limit_bytes:
            return []
        events = []
        for item in list(conversation):
            if len(conversation) <= max(limit_items, 0) and audio_total <= limit_bytes:
                break
            if id(item) in held:
                continue
            conversation.remove(item)
            item.in_conversation = False
            if conversation.get(item.id) is None:
                self.ctx.out_of_context.discard(item.id)  # bounded by the conversation, not the session
            audio_total -= len(item.audio)
            self.ctx.forget_transcript(item)
            events.append(se.conversation_item_deleted(self.ctx.ids.event(), item_id=item.id))
        return events

    def _unevictable(self, keep: Item | None = None) -> set[int]:
        """``id()`` of the items ``make_room`` may not drop: those an active response is writing, and
        ``keep``."""
        active = [s.response for s in self.ctx.streamers.values() if s.response.is_active]
        held = {id(i) for response in active for i in response.output}
        if keep is not None:
            held.add(id(keep))
        return held

    # -- transcripts ----------------------------------------------------------------------------------

    def transcribe(self, item: Item, key: str) -> Transcribe:
        """The job for ``item``'s transcript; ``key``: what ``SessionContext.await_transcript`` gave."""
        transcription = self.ctx.view.transcription
        return Transcribe(
            ItemTranscriptKey(key),
            bytes(item.audio),
            language=(transcription.whisper_language if transcription else None) or "en",
            prompt=transcription.whisper_prompt if transcription else None,
        )

    def is_transcript_wanted(self, key: str) -> bool:
        """Whether the item's transcript still matters: it is pending, and in the conversation still or
        the inline input of a response that is still waiting for it."""
        pending = self.ctx.pending_transcripts.get(key)
        if pending is None:
            return False
        return self.ctx.conversation.holds(pending) or any(
            pending in (s.response.params.input_items or ()) for s in self.ctx.streamers.values()
        )

    def transcribed(
        self,
        key: str,
        text: str,
        announce: bool = True,
        words: tuple[WordTiming, ...] = (),
        language: str | None = None,
    ) -> Events:
        """Record an item's transcript (``key``: its wait key); the transcription events when the client
        asked for them. ``words``: whisper's word timings of ``text`` (their probabilities are the
        ``logprobs`` the session's ``include`` may ask for); ``language``: the ISO 639-1 code whisper
        decoded in."""
        item = self.ctx.pending_transcripts.pop(key, None)
        if item is None:
            return []
        item.set_audio_transcript(text)
        if announce and self.ctx.is_transcribing and self.ctx.conversation.holds(item):
            return self._transcription_events(item, text, words, language)
        return []

    def transcription_failed(self, key: str, message: str, code: str = UNINTELLIGIBLE_CODE) -> Events:
        """``…input_audio_transcription.failed`` for an item still awaited (``key``: its wait key; when
        transcription events were asked for); ``code``: the error's (``UNINTELLIGIBLE_CODE``,
        ``BACKLOG_CODE``)."""
        ctx = self.ctx
        pending = ctx.pending_transcripts.get(key)
        if not ctx.is_transcribing or pending is None or not ctx.conversation.holds(pending):
            return []
        error = {
            "type": "transcription_error",
            "code": code,
            "message": message,
            "param": None,
        }
        return [
            se.conversation_item_input_audio_transcription_failed(
                ctx.ids.event(),
                item_id=pending.id,
                content_index=0,
                error=error,
            )
        ]

    def _transcription_events(
        self, item: Item, text: str, words: tuple[WordTiming, ...], language: str | None
    ) -> Events:
        """A delta a word (the transcript comes once the turn is in), then (``gpt-4o-transcribe-diarize``)
        its segments, then completed. With
        ``include: ["item.input_audio_transcription.logprobs"]`` each delta carries its tokens' logprobs
        and completed all of them, computed as ``POST /v1/audio/transcriptions`` computes them
        (``engines.transcript_tokens``)."""
        token_logprobs = None
        if self.ctx.view.wants_transcription_logprobs:
            token_logprobs = logprobs(Transcript(text, item.audio_ms, None, words), self.tokens)
        events = [
            se.conversation_item_input_audio_transcription_delta(
                self.ctx.ids.event(),
                item_id=item.id,
                content_index=0,
                delta=delta,
                obfuscation=self.ctx.ids.obfuscation(),
                logprobs=share,
            )
            for delta, share in _word_deltas(text, token_logprobs)
        ]
        events.extend(self._diarized_segments(item, text, words))
        events.append(
            se.conversation_item_input_audio_transcription_completed(
                self.ctx.ids.event(),
                item_id=item.id,
                content_index=0,
                transcript=text,
                usage=self._transcription_usage(item, text),
                logprobs=token_logprobs,
                languages=self._detected_languages(text, language),
            )
        )
        return events

    def _diarized_segments(self, item: Item, text: str, words: tuple[WordTiming, ...]) -> Events:
        """``…input_audio_transcription.segment`` events, for the diarizing model only: the transcript
        cut as ``POST /v1/audio/transcriptions`` cuts its segments (at sentence ends, or every 12 words;
        whisper's word times, else the words spread over the audio), ``start`` / ``end`` in seconds of
        the item's audio. One speaker, ``"A"``: the engine hears one input stream and tells no voices
        apart, so every segment of every item is the stream's one speaker. None for silence."""
        transcription = self.ctx.view.transcription
        if transcription is None or transcription.model != DIARIZING_MODEL:
            return []
        return [
            se.conversation_item_input_audio_transcription_segment(
                self.ctx.ids.event(),
                item_id=item.id,
                content_index=0,
                id=self.ctx.ids.new("seg_"),
                text=cue.text,
                speaker=STREAM_SPEAKER,
                start=cue.start_s,
                end=cue.end_s,
            )
            for cue in cues(Transcript(text, item.audio_ms, None, words))
        ]

    def _transcription_usage(self, item: Item, text: str) -> dict[str, Any]:
        """Billed as the transcription model is (reference §10): whisper-1 by the second,
        ``{"type": "duration", "seconds": ceil(item audio s)}``; the others by tokens (audio 1 per 100 ms,
        the transcript's text tokens as output)."""
        transcription = self.ctx.view.transcription
        if transcription is not None and transcription.model == DURATION_BILLED_MODEL:
            return {"type": "duration", "seconds": -(-item.audio_ms // 1000)}
        audio_tokens = -(-item.audio_ms // 100)
        text_tokens = self.tokens.count(text) if text else 0
        return {
            "type": "tokens",
            "total_tokens": audio_tokens + text_tokens,
            "input_tokens": audio_tokens,
            "input_token_details": {"text_tokens": 0, "audio_tokens": audio_tokens},
            "output_tokens": text_tokens,
        }

    def _detected_languages(self, text: str, language: str | None) -> list[dict[str, str]] | None:
        """``languages`` of the completed event: gpt-transcribe's only (openai-python: "Returned by
        gpt-transcribe"), as its REST answer has them (``chat.transcription.detected_languages``): the
        language whisper decoded in, else the session's hint, else English; empty when nothing was heard
        (the SDK's "no language could be reliably detected"). LiveKit tags its transcript with the first."""
        transcription = self.ctx.view.transcription
        if transcription is None or transcription.model != LANGUAGE_DETECTING_MODEL:
            return None
        if not text.strip():
            return []
        return [{"code": language or transcription.whisper_language or "en"}]


# A word with the whitespace before it; whitespace the transcript ends with is a piece of its own.
_WORD = re.compile(r"\s*\S+|\s+$")


def _word_deltas(
    text: str, token_logprobs: list[dict[str, Any]] | None
) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """The transcript's deltas, a word each, as the live service streams an input transcript (reference
    S6, probe 7: "Hello", " from", " the", " Gateway", " Probe", "."), joined they are ``text``; with
    each, the logprobs of the tokens that start in it (None: not asked for). None for an empty text."""
    pieces = _WORD.findall(text)
    if token_logprobs is None:
        return [(piece, None) for piece in pieces]
    ends = list(itertools.accumulate(len(piece) for piece in pieces))
    shares: list[list[dict[str, Any]]] = [[] for _ in pieces]
    offset = 0
    for entry in token_logprobs:
        shares[next((i for i, end in enumerate(ends) if offset < end), len(pieces) - 1)].append(entry)
        offset += len(entry["token"])
    return list(zip(pieces, shares, strict=True))
