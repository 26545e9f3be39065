"""What the parts of one session share: its options, ids, config, conversation and responses.

A :class:`~mockengine.realtime.session.RealtimeSession` is four parts over one :class:`SessionContext`:
the session itself (dispatch, ``session.*``, routing effect results), ``items`` (``conversation.item.*``
and the transcripts of user audio), ``responses`` (``response.*``: the brain and the streamers) and
``turns`` (``input_audio_buffer.*``: the input buffer and turn detection). Each part reads and changes
the shared state here; none holds a copy of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mockengine.ids import IdFactory
from mockengine.protocol.session_config import SessionConfig, SessionType, TurnDetection
from mockengine.realtime.conversation import Conversation, Item
from mockengine.realtime.response import Pacing
from mockengine.realtime.streaming import ResponseStreamer


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
    # "transcription": a transcription session (``?intent=transcription``, or a client secret minted
    # for one): its own session object, the same input path, no responses.
    session_type: SessionType = "realtime"


@dataclass
class SessionContext:
    """The state every part of one session reads. ``config`` is the wire session object (replaced whole
    by each ``session.update``); read its settings through ``view``, its typed, frozen form."""

    options: SessionOptions
    ids: IdFactory
    config: dict[str, Any]
    conversation: Conversation
    # Responses not yet done, by id (the default conversation's active one and any out-of-band ones).
    streamers: dict[str, ResponseStreamer] = field(default_factory=dict)
    # User audio items still being transcribed, by wait key (``await_transcript``). A result applies
    # only to the very item it was asked for (the client may delete an item or reuse its id meanwhile).
    pending_transcripts: dict[str, Item] = field(default_factory=dict)
    # Client items whose text is long enough that counting its tokens would hold the event loop
    # (``ConversationItems.from_wire``): a response thinking aside has them counted off the loop first
    # (``effects.CountTexts``). Dropped once counted, or once neither the conversation nor a response
    # holds them.
    long_texts: list[Item] = field(default_factory=list)
    # Ids of the conversation items truncation dropped from the model's context (``context_window.fit``):
    # they stay in the conversation but no later response reads them.
    out_of_context: set[str] = field(default_factory=set)
    _view: SessionConfig | None = field(default=None, init=False, repr=False)
    _view_of: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def await_transcript(self, item: Item) -> str:
        """Mark ``item`` as waiting for its transcript; returns the key its result comes back under: its
        id, or ``<id>#<n>`` while another item holding the same id waits too (a reused client id)."""
        key, n = item.id, 0
        while key in self.pending_transcripts:
            n += 1
            key = f"{item.id}#{n}"
        self.pending_transcripts[key] = item
        return key

    def is_awaiting_any(self, items: Iterable[Item]) -> bool:
        """Whether any of ``items`` waits for its transcript. One pass over ``items`` (a response's
        whole context), none while nothing waits."""
        if not self.pending_transcripts:
            return False
        pending = {id(item) for item in self.pending_transcripts.values()}
        return any(id(item) in pending for item in items)

    def forget_transcript(self, item: Item) -> None:
        """``item`` left the session: its transcript, if still due, is no longer awaited."""
        for key, pending in list(self.pending_transcripts.items()):
            if pending is item:
                del self.pending_transcripts[key]

    @property
    def view(self) -> SessionConfig:
        """``config`` typed (``protocol.session_config.SessionConfig``), made again when it is replaced."""
        if self._view is None or self._view_of is not self.config:
            self._view, self._view_of = SessionConfig.from_wire(self.config), self.config
        return self._view

    @property
    def turn_detection(self) -> TurnDetection | None:
        return self.view.turn_detection

    @property
    def is_transcribing(self) -> bool:
        """Whether the client asked for input transcription events (``audio.input.transcription``)."""
        return self.view.transcription is not None
