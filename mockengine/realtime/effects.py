"""What the sans-IO core asks its shell to do, and what one step of the core returns.

The core never awaits: it returns :class:`Step` (events to send now, effects to start). The shell runs
each effect (in an executor for the models) and feeds the result back through the matching
``RealtimeSession.on_*`` method, and calls ``RealtimeSession.tick(now_ms)`` when ``next_deadline_ms``
comes due.

Each effect carries a small typed key saying what its result is for; the shell hands it back untouched
with the result, and the session routes the result by the key's type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mockengine.brain.model import Brain, ReplyRequest
from mockengine.realtime.mcp import McpServer


@dataclass(frozen=True)
class ItemTranscriptKey:
    """The transcript of a user audio item: it feeds the brain and, if asked for, the input
    transcription events. ``item_id``: the item's id, or ``<id>#<n>`` while another item with the same
    (client-reused) id awaits its transcript too (``SessionContext.await_transcript``)."""

    item_id: str


@dataclass(frozen=True)
class ProbeKey:
    """A turn detector's transcript of the speech so far (its ``number``-th probe). ``generation``
    names the detector that asked: a result for an earlier one (turn detection restarted) is ignored."""

    generation: int
    number: int


@dataclass(frozen=True)
class SentenceKey:
    """The speech of sentence ``index`` (from 0) of a response's reply."""

    response_id: str
    index: int


@dataclass(frozen=True)
class McpListKey:
    """The listing of an MCP server's tools into the ``mcp_list_tools`` item ``item_id``."""

    item_id: str


@dataclass(frozen=True)
class McpCallKey:
    """The ``mcp_call`` item ``item_id`` of response ``response_id``."""

    response_id: str
    item_id: str


TranscriptKey = ItemTranscriptKey | ProbeKey
EffectKey = ItemTranscriptKey | ProbeKey | SentenceKey | McpListKey | McpCallKey


@dataclass(frozen=True)
class Transcribe:
    """Transcribe PCM16 24 kHz mono. ``key`` says what for. The result goes to
    ``RealtimeSession.on_transcript(key, text, now_ms, words, prosody)`` or
    ``on_transcript_failed(key, message)``; ``RealtimeSession.is_wanted(key)`` says if it still matters."""

    key: TranscriptKey
    pcm16: bytes
    language: str | None = None
    prompt: str | None = None
    # A semantic_vad probe: the same job also measures the prosody of the syllable ending here (ms from
    # the start of ``pcm16``), so the numpy work runs beside whisper, not on the event loop; the result
    # reaches ``on_transcript`` as ``prosody`` (see ``mockengine.realtime.probe_job``).
    prosody_at_ms: int | None = None


@dataclass(frozen=True)
class Synthesize:
    """Speak one sentence (PCM16 24 kHz). Result → ``RealtimeSession.on_speech(key, pcm16)`` or
    ``on_speech_failed(key, message)``."""

    key: SentenceKey
    text: str
    voice: str
    speed: float


@dataclass(frozen=True)
class Think:
    """Ask the brain for one response's reply (only when the core was told to think aside,
    ``Responses.think_aside``; else the brain answers inline). ``key`` is the response id. The shell runs
    ``responses.ask(brain, request)`` off its event loop, one job at a time in order, and hands the result
    (a ``Reply``, or the ``ValueError`` / ``RecursionError`` that fails the response) to
    ``RealtimeSession.on_reply(key, outcome, now_ms)``. The brain's random state is made per request from
    its seed and ``response_index``, so the thread it runs on changes nothing it decides."""

    key: str
    request: ReplyRequest
    brain: Brain
    # Texts the shell may count beside the brain, so a count on the event loop finds them cached: the
    # instructions. Not the items' texts: fitting the context counted them, kept with each item, and
    # looking every one up again here grew the brain's thread's work with the conversation.
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class CountTexts:
    """Count the tokens of long texts a response's context holds before the response fits it (only when
    the core was told to think aside): BPE over a pasted 1 MB message or a tool's 1 MB output takes about
    a second, too long for the event loop every session shares. ``key`` is the response id. The shell
    counts ``texts`` off its event loop, in the brain's lane (in order with its ``Think`` jobs), so the
    counter keeps the counts (``engines.tokens``: a long text by its digest), then calls
    ``RealtimeSession.on_counted(key, now_ms)``; the fit that follows finds them counted. Nothing the
    session sends depends on where the counting ran."""

    key: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Trace:
    """A decision worth logging (turn ends, brain rules): the shell writes it to the log / trace file."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class ListMcpTools:
    """List an MCP server's tools (``tools/list``). Result → ``RealtimeSession.on_mcp_tools(key, tools,
    now_ms)``: openai-python's ``RealtimeMcpListTools.Tool`` dicts (``name``, ``description``,
    ``input_schema``, ``annotations``), or None when the server could not be listed."""

    key: McpListKey
    server: McpServer


@dataclass(frozen=True)
class CallMcpTool:
    """Call tool ``name`` of an MCP server with ``arguments`` (JSON text of an object). Result →
    ``RealtimeSession.on_mcp_call(key, output, error, now_ms)``: the tool's text output, or the item's
    ``error`` object (``tool_execution_error``, ``protocol_error`` or ``http_error``)."""

    key: McpCallKey
    server: McpServer
    name: str
    arguments: str


Effect = Transcribe | Synthesize | Think | CountTexts | Trace | ListMcpTools | CallMcpTool


@dataclass
class Step:
    events: list[dict[str, Any]] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)

    def extend(self, other: Step) -> Step:
        self.events.extend(other.events)
        self.effects.extend(other.effects)
        return self


class _StaysEmpty(list[Any]):
    """An empty list that refuses to grow: the lists of :data:`NO_STEP`, which every append that changes
    nothing shares. Equal to ``[]``, so ``NO_STEP == Step()``."""

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("NO_STEP is shared by every append that changes nothing: build a Step() to add to")

    append = extend = insert = __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]


NO_STEP = Step(events=_StaysEmpty(), effects=_StaysEmpty())
"""The step of an append that changes nothing (most of them, 50 a second per session), shared instead of a
``Step()`` built for each (~1.9 k instructions: docs/cpu.md, twenty-first pass). Read-only: its lists
refuse to grow (TypeError), so code that adds to a step it was given must be given its own:
``UserTurns.on_input_audio_buffer_append`` returns a fresh ``Step()`` in its place, so only
``RealtimeSession.receive_audio``'s callers (the shells, which read a step) ever see it."""
