"""The per-session state machine (sans-IO): client events in, server events and effects out.

How this works
--------------
The shell calls :meth:`RealtimeSession.receive` with each parsed client event and the wall time
``now_ms``; effect results come back through ``on_transcript`` / ``on_speech`` (and their ``*_failed``
twins); :meth:`tick` releases paced audio when :meth:`next_deadline_ms` comes due. Every call returns a
:class:`Step`. Nothing here awaits, reads a clock or touches a socket, so tests replay exact timing.

The session is four parts over one shared :class:`~mockengine.realtime.context.SessionContext`, each
handling the client events of its family (the handler is named after the wire type, ``on_<type>``):

- this module: dispatch, ``session.*``, and routing each effect's result to the part that asked for it;
- ``items.ConversationItems``: ``conversation.item.*``, user audio items and their transcripts;
- ``responses.Responses``: ``response.*``, the brain and the streamers;
- ``turns.UserTurns``: ``input_audio_buffer.*``, the input buffer and turn detection.

Dependencies run one way: turns → responses → items → context.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, assert_never

from mockengine.brain.model import Brain, ImageFacts, Reply
from mockengine.engines.stt import WordTiming
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import (
    SessionConfig,
    check_reasoning,
    check_session_type,
    default_session,
    default_transcription_session,
    merge_session,
    validate_noise_reduction,
    validate_tool_choice,
    validate_transcription,
    validate_turn_detection,
)
from mockengine.realtime.audio_store import AudioSpill
from mockengine.realtime.context import SessionContext, SessionOptions
from mockengine.realtime.conversation import Conversation
from mockengine.realtime.effects import (
    EffectKey,
    ItemTranscriptKey,
    McpCallKey,
    McpListKey,
    ProbeKey,
    SentenceKey,
    Step,
    TranscriptKey,
)
from mockengine.realtime.input_buffer import InputAudioBuffer
from mockengine.realtime.items import BACKLOG_CODE, ConversationItems, backlog_message
from mockengine.realtime.prosody import Prosody
from mockengine.realtime.responses import Responses
from mockengine.realtime.turns import UserTurns
from mockengine.realtime.usage import TokenCounting

__all__ = ["RealtimeSession", "SessionOptions"]


class RealtimeSession:
    """One Realtime session's state machine (see the module docstring)."""

    def __init__(
        self,
        options: SessionOptions,
        *,
        brain: Brain,
        ids: IdFactory,
        tokens: TokenCounting,
        describe_image: Callable[[str], ImageFacts],
    ) -> None:
        self.ids = ids
        expires_at = options.created_at_s + options.session_max_s
        if options.session_type == "transcription":
            config = default_transcription_session(ids.session(), expires_at)
        else:
            config = default_session(options.model, ids.session(), expires_at)
            if options.voice is not None:
                config["audio"]["output"]["voice"] = options.voice
        if options.initial_session:
            config = merge_session(config, options.initial_session)
        self.ctx = SessionContext(options, ids, config, Conversation(ids.conversation()))
        self.audio_spill = AudioSpill(options.audio_memory_ms * 48, options.audio_spill_dir)
        self.items = ConversationItems(
            self.ctx, tokens=tokens, describe_image=describe_image, audio_spill=self.audio_spill
        )
        self.responses = Responses(self.ctx, self.items, brain=brain, tokens=tokens)
        self.turns = UserTurns(self.ctx, self.items, self.responses)
        self._handlers = self._handler_table()

    @property
    def config(self) -> dict[str, Any]:
        """The session object as the client sees it (``session.created`` / ``session.updated``)."""
        return self.ctx.config

    @property
    def view(self) -> SessionConfig:
        """``config`` typed: read settings here (``view.turn_detection.silence_duration_ms``)."""
        return self.ctx.view

    @property
    def options(self) -> SessionOptions:
        return self.ctx.options

    @property
    def brain(self) -> Brain:
        return self.responses.brain

    @property
    def conversation(self) -> Conversation:
        return self.ctx.conversation

    # -- public API -----------------------------------------------------------------------------------

    def start(self) -> Step:
        step = Step(events=[se.session_created(self.ids.event(), session=copy.deepcopy(self.config))])
        return step.extend(self._list_mcp_tools())  # the MCP servers of a client secret's session

    def receive(self, event: ce.ClientEvent, now_ms: float) -> Step:
        """Apply one client event. Client mistakes become an ``error`` event; nothing else changes."""
        try:
            step = self._handlers[type(event)](event, now_ms)
        except ProtocolError as exc:
            exc.event_id = event.event_id
            return self.error(exc)
        if isinstance(event, ce.ConversationItemCreate) and event.item.get("type") == "mcp_approval_response":
            # The item is in; the response waiting on its request goes on (realtime.mcp).
            item = self.ctx.conversation.get(step.events[-1]["item"]["id"])
            if item is not None:
                step.extend(self.responses.approval_answered(item, now_ms))
        if isinstance(event, ce.ConversationItemCreate) and any(
            e["type"] == "conversation.item.deleted" for e in step.events
        ):
            # An item dropped to make room may be one a response was waiting to hear: its transcript is
            # no longer awaited (nor run by the shell), so the response goes on without it now.
            step.extend(self.responses.go_on_waiting(now_ms))
        return step

    def receive_audio(
        self, audio: bytes, event_id: str | None, now_ms: float, format_type: str | None = None
    ) -> Step:
        """``receive(InputAudioBufferAppend(audio, event_id), now_ms)`` without the event object: the
        shell's path for plain appends (50 a second per streaming session). ``format_type``: the audio's
        format, None for ``audio.input.format``; a WebRTC call's microphone (its Opus track decoded) is
        ``"audio/pcm"`` (24 kHz) whatever that says, as the format describes the bytes of an append, not
        the track. Re-encoded to a G.711 format first, each 20 ms frame was resampled as a clip of its
        own (soxr's edge transient at every frame) and cut to the 4 kHz telephone band."""
        try:
            return self.turns.append_audio(audio, now_ms, format_type)
        except ProtocolError as exc:
            exc.event_id = event_id
            return self.error(exc)

    def error(self, exc: ProtocolError, now_ms: float | None = None) -> Step:
        """``exc`` as an ``error`` event. ``now_ms``: when the shell refused a frame (a replay moves its
        clock there); the session itself does not need it."""
        return Step(events=[se.error(self.ids.event(), error=exc.payload())])

    def close(self) -> None:
        """Release what the session holds (items and their audio, the input buffer, responses, the spill
        file) when its connection ends. The session's own object graph has reference cycles (handlers
        are bound methods), which only the cycle collector frees; the bulk of its memory goes here, at
        once, whenever that runs."""
        for item in self.ctx.conversation:
            item.audio = b""
        self.ctx.conversation = Conversation(self.ctx.conversation.id)
        self.turns.buffer = InputAudioBuffer()
        self.ctx.streamers.clear()
        self.ctx.pending_transcripts.clear()
        self.turns.probe_items.clear()
        self.audio_spill.close()

    def fail_response(self, response_id: str, error: dict[str, Any], now_ms: float) -> Step:
        """End an active response now with ``status: "failed"`` (``error`` as ``status_details.error``):
        the shell's fault injection uses it; a response already finished is left alone."""
        return self.responses.fail(response_id, error, now_ms)

    def tick(self, now_ms: float) -> Step:
        step = self.responses.advance(now_ms)
        idle_deadline_ms = self.responses.idle_deadline_ms
        if idle_deadline_ms is not None and now_ms >= idle_deadline_ms:
            step.extend(self.turns.on_idle_timeout(now_ms))
        return step

    def next_deadline_ms(self) -> float | None:
        """When ``tick`` has something to do next (session ms), or None: a reply's next audio, the idle
        timeout. Only events and effects move these; an audio append that emits and asks for nothing
        leaves them as they were, so the server does not re-arm its timer after one (checked in
        tests/unit/test_hot_path.py)."""
        deadlines = [
            d for d in (self.responses.next_deadline_ms(), self.responses.idle_deadline_ms) if d is not None
        ]
        return min(deadlines) if deadlines else None

    # -- effect results -------------------------------------------------------------------------------

    def is_wanted(self, key: EffectKey) -> bool:
        """Whether an effect's result can still be used: the shell skips transcribing or speaking for a
        response that ended, an item that is gone, or a pause the speaker already talked through."""
        match key:
            case ItemTranscriptKey(item_id):
                return self.items.is_transcript_wanted(item_id)
            case ProbeKey():
                return self.turns.is_probe_wanted(key)
            case SentenceKey(response_id) | McpCallKey(response_id):
                return response_id in self.ctx.streamers
            case McpListKey(item_id):
                return self.responses.mcp.is_wanted(item_id)
            case _:
                assert_never(key)

    def on_transcript(
        self,
        key: TranscriptKey,
        text: str,
        now_ms: float,
        words: tuple[WordTiming, ...] = (),
        prosody: Prosody | None = None,
        language: str | None = None,
    ) -> Step:
        """A transcript arrived (``words``: whisper's word timings; ``prosody``: the last syllable's,
        measured in the same job; a semantic_vad probe uses both; ``language``: the ISO 639-1 code whisper
        decoded in, None when it did not run)."""
        match key:
            case ItemTranscriptKey(item_id):
                return self.responses.item_transcribed(item_id, text, now_ms, words=words, language=language)
            case ProbeKey():
                return self.turns.on_probe_transcript(key, text, words, now_ms, prosody)
            case _:
                assert_never(key)

    def on_transcript_failed(self, key: TranscriptKey, message: str, now_ms: float) -> Step:
        """The engine could not transcribe: a probe counts as unintelligible; an item gets the protocol's
        ``…input_audio_transcription.failed`` (when transcription events were asked for)."""
        match key:
            case ItemTranscriptKey(item_id):
                return self.responses.item_transcription_failed(item_id, message, now_ms)
            case ProbeKey():
                return self.turns.on_probe_failed(key, message, now_ms)
            case _:
                assert_never(key)

    def is_item_transcript(self, key: TranscriptKey) -> bool:
        """Whether a transcription job's words are a conversation item's transcript: an item's own job,
        or a turn detector's probe (server_vad's prefetch, semantic_vad's pause) whose turn was committed
        meanwhile; not a probe of a pause the detector is still weighing."""
        match key:
            case ItemTranscriptKey():
                return True
            case ProbeKey():
                return key in self.turns.probe_items
            case _:
                assert_never(key)

    def on_transcription_backlog(self, key: TranscriptKey, limit: int, now_ms: float) -> Step:
        """The shell let an item's transcription go unrun because more than ``limit`` of this session's
        item transcriptions were waiting for the transcriber and this was the oldest: the item gets
        ``…input_audio_transcription.failed`` (when transcription events were asked for) with
        ``error.code`` ``transcription_backlog``, and the responses waiting for its words go on without
        them. The item itself and its audio stay in the conversation."""
        message = backlog_message(limit)
        match key:
            case ItemTranscriptKey(item_id):
                return self.responses.item_transcription_failed(item_id, message, now_ms, BACKLOG_CODE)
            case ProbeKey():
                return self.turns.on_probe_failed(key, message, now_ms, BACKLOG_CODE)
            case _:
                assert_never(key)

    def on_speech(self, key: SentenceKey, pcm16: bytes, now_ms: float) -> Step:
        if not self.responses.on_speech(key.response_id, key.index, pcm16):
            return Step()  # the response ended (cancelled) before its speech was ready
        return self.tick(now_ms)

    def on_speech_failed(self, key: SentenceKey, message: str, now_ms: float) -> Step:
        return self.responses.on_speech_failed(key.response_id, message, now_ms)

    def on_mcp_tools(self, key: McpListKey, tools: list[dict[str, Any]] | None, now_ms: float) -> Step:
        """An MCP server's tools for a ``ListMcpTools`` effect (None: the server could not be listed)."""
        return self.responses.mcp_listed(key.item_id, tools, now_ms)

    def on_mcp_call(
        self, key: McpCallKey, output: str | None, error: dict[str, Any] | None, now_ms: float
    ) -> Step:
        """An MCP server's answer to a ``CallMcpTool`` effect: the tool's ``output``, or the ``error``
        object of the ``mcp_call`` item."""
        return self.responses.on_mcp_result(key, output, error, now_ms)

    def _list_mcp_tools(self) -> Step:
        """List the session's MCP servers not listed yet (``realtime.mcp``)."""
        return self.responses.list_mcp_tools(self.config.get("tools") or [])

    def think_aside(self) -> None:
        """From now on ask the brain through ``Think`` effects (the server runs it off its event loop)
        instead of inline; replies come back through ``on_reply``."""
        self.responses.think_aside = True
        self.items.count_aside = True

    def on_reply(self, response_id: str, outcome: Reply | Exception, now_ms: float) -> Step:
        """The brain's reply (or the error that fails the response) for a ``Think`` effect."""
        return self.responses.on_reply(response_id, outcome, now_ms)

    def on_counted(self, response_id: str, now_ms: float) -> Step:
        """A ``CountTexts`` effect's texts were counted: the response goes on to fit its context."""
        return self.responses.on_counted(response_id, now_ms)

    # -- dispatch -------------------------------------------------------------------------------------

    def _handler_table(self) -> dict[type, Callable[[Any, float], Step]]:
        """Each registered client event class → the ``on_<its wire type>`` of the one part that handles
        it; a missing or doubly defined handler fails here, at construction, not on the first such event."""
        parts = (self, self.items, self.responses, self.turns)
        table = {}
        for cls in ce.REGISTRY.values():
            name = ce.handler_name(cls.type)
            handlers = [getattr(part, name) for part in parts if hasattr(part, name)]
            if len(handlers) != 1:
                raise TypeError(f"{cls.type}: {len(handlers)} handlers named {name}, expected one")
            table[cls] = handlers[0]
        return table

    # -- session.* and the WebRTC-only events ---------------------------------------------------------

    def on_session_update(self, event: ce.SessionUpdate, now_ms: float) -> Step:
        """``session.updated`` with the whole effective session, or the update refused whole
        (ProtocolError). A ``model`` in it is taken and changes nothing: the session keeps the model it
        opened with (openai-python's ``SessionUpdateEvent``: "any field except for ``voice`` and
        ``model``"; docs/realtime-protocol.md), so ``reasoning`` is judged against that model."""
        update = event.session
        check_session_type(self.ctx.view.session_type, update)
        asked_model = update.get("model")
        if asked_model is not None:
            update = {key: value for key, value in update.items() if key != "model"}
        new_voice = update.get("audio", {}).get("output", {}).get("voice")
        if new_voice is not None and new_voice != self.ctx.view.voice and self.responses.has_assistant_audio:
            raise errors.cannot_update_voice()
        update = self._tracing_update(update)
        old = self.ctx.turn_detection
        merged = merge_session(self.config, update)
        validate_turn_detection(merged["audio"]["input"]["turn_detection"], merged)
        validate_noise_reduction(merged)
        validate_transcription(merged)
        if "tools" in merged:  # a transcription session has none
            validate_tool_choice(merged["tool_choice"], merged["tools"], "session")
            check_reasoning(merged["model"], merged.get("reasoning"), "session", asked_model=asked_model)
        self.ctx.config = merged
        updated = Step(events=[se.session_updated(self.ids.event(), session=copy.deepcopy(self.config))])
        updated.extend(self._list_mcp_tools())
        return updated.extend(self.turns.apply_turn_detection(old, self.ctx.turn_detection, now_ms))

    def _tracing_update(self, update: dict[str, Any]) -> dict[str, Any]:
        """``update`` as it may apply to ``tracing``. "Once tracing is enabled for a session, the
        configuration cannot be modified" (the API reference's ``tracing``): with tracing on, another
        configuration or ``null`` is refused (ProtocolError). Taken: the same value; ``"auto"``, as asking
        for nothing new (both Agents SDKs send it on every ``session.created`` unless told otherwise: it
        leaves the configuration in force, dropped from the update); and a configuration over ``"auto"``,
        which @openai/agents-realtime sends as naming a trace not yet named. docs/realtime-protocol.md."""
        if "tracing" not in update or self.config.get("tracing") is None:
            return update
        current, asked = self.config["tracing"], update["tracing"]
        if asked == current or asked == "auto":
            return {key: value for key, value in update.items() if key != "tracing"}
        if current == "auto" and asked is not None:
            return update
        raise errors.tracing_locked()

    def on_session_close(self, event: ce.SessionClose, now_ms: float) -> Step:
        """The live service accepts ``session.close`` but what it does is unknown (reference §1): accepted,
        and it changes nothing."""
        return Step()

    def on_output_audio_buffer_clear(self, event: ce.OutputAudioBufferClear, now_ms: float) -> Step:
        """WebRTC only (reference §13): the transport owns the audio being played and clears it."""
        return Step()
