"""The default conversation: its items in order, as the client and the brain see them (reference §7).

Items keep what the wire echoes (``wire()``, no audio bytes, as in ``conversation.item.added``/``done``)
plus what the engine needs: audio for ``conversation.item.retrieved`` and truncation, transcripts for the
brain, and the facts seen in images.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from mockengine.brain.model import ImageFacts, ItemKind, TurnView
from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.audio_store import SpilledAudio

CONTEXT_PREFIX = "[context]"
OUTPUT_RATE_HZ = 24_000


@dataclass
class Item:
    """One conversation item. ``content`` holds wire content parts (without audio bytes).

    Every response reads the whole context (its words, the brain's views, the token counts), and a
    study's conversation holds hundreds of items: what the fields make of an item is kept until a field
    is assigned again. A change made in place inside ``content`` must be followed by :meth:`changed`
    (``set_audio_transcript`` does it).
    """

    id: str
    # message | function_call | function_call_output | mcp_list_tools | mcp_call | mcp_approval_request |
    # mcp_approval_response (the hosted MCP items, docs/tools.md)
    type: str
    role: str | None = None
    status: str = "completed"
    content: list[dict[str, Any]] = field(default_factory=list)
    name: str | None = None
    call_id: str | None = None
    arguments: str | None = None
    output: str | None = None
    # User input audio or the assistant audio sent so far (PCM16 24 kHz); older items' in a spill file.
    audio: bytes | bytearray | SpilledAudio = b""
    images: tuple[ImageFacts, ...] = ()
    # Where the item was placed when added (echoed again in conversation.item.done).
    previous_item_id: str | None = None
    # False for output of out-of-band responses (conversation "none"), which never joins the conversation.
    in_conversation: bool = True
    # Assistant audio the client cut (conversation.item.truncate): the ms it kept. The item shows no
    # transcript from then on (only the brain reads the words said in the kept audio, ``heard``); audio
    # its response still streams after the cut is added after it.
    truncated_at_ms: int | None = None
    # The words said in a cut item's kept audio: what a model still hears of its own reply.
    heard: str | None = None
    # The hosted MCP items' fields (openai-python's RealtimeMcp* item types): the server, the tools it
    # listed, a call's error (``{"type": "tool_execution_error" | "protocol_error" | "http_error", …}``),
    # an approval's request id and answer.
    server_label: str | None = None
    tools: list[dict[str, Any]] | None = None
    error: dict[str, Any] | None = None
    approval_request_id: str | None = None
    approve: bool | None = None
    reason: str | None = None
    # What the fields make of the item, kept until one is assigned again. Plain attributes, not a dict:
    # a long load test holds ~100,000 items, and each object more per item is one more the collector walks.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    _views: TurnView | tuple[TurnView, ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _counted_by: object | None = field(default=None, init=False, repr=False, compare=False)
    _token_counts: tuple[int, int, int] = field(default=(0, 0, 0), init=False, repr=False, compare=False)
    # The conversation holding the item, which keeps account of where its audio is (Conversation.insert).
    _holder: Conversation | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Set here, in one order for every item, so CPython keeps the attributes in the object itself:
        # added later, in whatever order first use makes, they cost each item a dict of its own.
        self.changed()
        object.__setattr__(self, "_token_counts", (0, 0, 0))
        object.__setattr__(self, "_holder", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "audio" and self._holder is not None:
            self._holder._audio_changes(self, value)
        else:
            object.__setattr__(self, name, value)
        if not name.startswith("_") and (
            self._text is not None or self._views is not None or self._counted_by is not None
        ):
            self.changed()

    def changed(self) -> None:
        """Forget what was made of the fields: call after changing ``content`` in place."""
        object.__setattr__(self, "_text", None)
        object.__setattr__(self, "_views", None)
        object.__setattr__(self, "_counted_by", None)
        holder = self._holder
        if holder is not None and holder._changed is not None:
            holder._changed[id(self)] = self

    def token_counts(self, tokens: object) -> tuple[int, int, int] | None:
        """The (text, audio, image) tokens ``tokens`` counted for this item as it is now, or None
        (``context_window.item_tokens`` counts and keeps them with :meth:`keep_token_counts`)."""
        return self._token_counts if self._counted_by is tokens else None

    def keep_token_counts(self, tokens: object, counts: tuple[int, int, int]) -> None:
        object.__setattr__(self, "_token_counts", counts)
        object.__setattr__(self, "_counted_by", tokens)

    @property
    def is_assistant_audio(self) -> bool:
        return self.role == "assistant" and any(p["type"] == "output_audio" for p in self.content)

    @property
    def audio_ms(self) -> int:
        return len(self.audio) // 2 * 1000 // OUTPUT_RATE_HZ

    def wire(self, audio_encoder: Callable[[bytes], bytes] | None = None) -> dict[str, Any]:
        """The item as events echo it; with ``audio_encoder`` the audio is included, base64, in the
        format the encoder produces (``conversation.item.retrieved``)."""
        if self.type == "function_call":
            return {
                "id": self.id,
                "type": self.type,
                "status": self.status,
                "name": self.name,
                "call_id": self.call_id,
                "arguments": self.arguments,
            }
        if self.type == "function_call_output":
            # With its status (the client's, else "completed"), as the client's other items are echoed
            # (the live user message: status "completed", reference §3.2) and openai-python types it;
            # the live echo of this one is not public (docs/realtime-protocol.md).
            return {
                "id": self.id,
                "type": self.type,
                "status": self.status,
                "call_id": self.call_id,
                "output": self.output,
            }
        if self.type.startswith("mcp_"):
            return self._mcp_wire()
        content = copy.deepcopy(self.content)
        if audio_encoder is not None and self.audio:
            for part in content:
                if part["type"] in ("input_audio", "output_audio"):
                    part["audio"] = base64.b64encode(audio_encoder(bytes(self.audio))).decode("ascii")
        return {
            "id": self.id,
            "type": self.type,
            "status": self.status,
            "role": self.role,
            "content": content,
        }

    def _mcp_wire(self) -> dict[str, Any]:
        """A hosted MCP item in openai-python's shapes (``RealtimeMcpListTools``, ``RealtimeMcpToolCall``,
        ``RealtimeMcpApprovalRequest``, ``RealtimeMcpApprovalResponse``); none of them has a status."""
        if self.type == "mcp_list_tools":
            return {
                "id": self.id,
                "type": self.type,
                "server_label": self.server_label,
                "tools": copy.deepcopy(self.tools or []),
            }
        if self.type == "mcp_approval_response":
            return {
                "id": self.id,
                "type": self.type,
                "approval_request_id": self.approval_request_id,
                "approve": self.approve,
                "reason": self.reason,
            }
        wire: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "server_label": self.server_label,
            "name": self.name,
            "arguments": self.arguments,
        }
        if self.type == "mcp_call":
            wire.update(
                approval_request_id=self.approval_request_id,
                output=self.output,
                error=copy.deepcopy(self.error),
            )
        return wire

    def truncate(self, audio_end_ms: int) -> None:
        """Keep the first ``audio_end_ms`` of the audio and drop the transcript, so no text the user did
        not hear stays in the context (reference §3.7): ``retrieve`` shows ``transcript: null``, and the
        brain sees only the words said in the audio kept (``keep_heard``), as a model still hears the
        audio of its own reply up to the cut ("What did you just say?" was "I haven't said anything
        yet.")."""
        if self.truncated_at_ms is None:
            said, spoken_ms = self.text(), float(self.audio_ms)
        else:  # cut again (Pipecat does, further on): the words heard at the first cut are all it knows
            said, spoken_ms = self.heard or "", float(self.truncated_at_ms)
        self.audio = bytes(self.audio[: audio_end_ms * OUTPUT_RATE_HZ // 1000 * 2])
        self.truncated_at_ms = audio_end_ms
        self.content = [{"type": "output_audio", "transcript": None}]
        self.keep_heard(said, spoken_ms)

    def keep_heard(self, said: str, spoken_ms: float) -> None:
        """Of ``said`` (the transcript of the first ``spoken_ms`` of the item's audio), keep the words the
        cut audio holds, as ``heard``: the transcript's words go out with their audio at an even pace
        (``streaming``), so a word is heard when its share of ``spoken_ms`` ends before the cut. A cut
        past a word's middle keeps it (our choice: whole words, no timing finer than the pace)."""
        words = said.split()
        cut_ms = self.truncated_at_ms or 0
        if cut_ms <= 0 or spoken_ms <= 0:  # nothing kept, or no audio to place the words in (a mirror's)
            kept = 0
        else:
            kept = len(words) if spoken_ms <= cut_ms else int(len(words) * cut_ms / spoken_ms + 0.5)
        self.heard = " ".join(words[:kept]) or None

    def set_audio_transcript(self, text: str) -> None:
        """Record what was heard in the ``input_audio`` part (retrieve shows it; the brain reads it)."""
        for part in self.content:
            if part["type"] == "input_audio":
                part["transcript"] = text
                self.changed()
                return

    def text(self) -> str:
        """The words of the item: typed text, audio transcript, function arguments or output."""
        if self._text is None:
            object.__setattr__(self, "_text", self._words())
        return self._text  # type: ignore[return-value]

    def text_is_longer_than(self, chars: int) -> bool:
        """Whether :meth:`text` has more than ``chars`` characters. Keeps nothing: a field assigned
        afterwards marks no change of the item (as after :meth:`text`)."""
        return len(self._text if self._text is not None else self._words()) > chars

    def _words(self) -> str:
        if self.type == "function_call":
            return self.arguments or ""
        if self.type == "function_call_output":
            return self.output or ""
        pieces = [p.get("text") or p.get("transcript") or "" for p in self.content]
        # A cut item's transcript is gone from its content: the words its kept audio holds stand in.
        return " ".join(p for p in pieces if p) or self.heard or ""

    def view(self) -> TurnView:
        return TurnView(self.id, self._kind(), self.text(), self.images, self.name, self.call_id)

    def views(self) -> tuple[TurnView, ...]:
        """What the brain sees of the item. A finished MCP call is a function call and its output, as an
        app's own tool would be (its error text as the output), so the brain grounds the next reply in it
        the same way; the other MCP items are the engine's and the client's bookkeeping, unseen."""
        views = self._views
        if views is None:
            made = self._made_views()
            # One view is kept bare: the tuple around it would be one more object per item to collect.
            views = made[0] if len(made) == 1 else made
            object.__setattr__(self, "_views", views)
        return (views,) if isinstance(views, TurnView) else views

    def _made_views(self) -> tuple[TurnView, ...]:
        if self.type == "mcp_call":
            if self.output is None and self.error is None:
                return ()
            output = (
                self.output if self.output is not None else f"Error: {(self.error or {}).get('message', '')}"
            )
            return (
                TurnView(self.id, "function_call", self.arguments or "", name=self.name, call_id=self.id),
                TurnView(f"{self.id}#output", "function_call_output", output, call_id=self.id),
            )
        if self.type.startswith("mcp_"):
            return ()
        return (self.view(),)

    def _kind(self) -> ItemKind:
        if self.type == "function_call":
            return "function_call"
        if self.type == "function_call_output":
            return "function_call_output"
        if self.role == "assistant":
            return "assistant"
        if self.role == "system":
            return "system"
        if any(p["type"] == "input_audio" for p in self.content):
            return "user_audio"
        if self.text().lstrip().startswith(CONTEXT_PREFIX):
            return "context"
        return "user_text"


class Conversation:
    """Ordered items with insertion after a given item (``previous_item_id``) or at the root.

    A client may create an item with an id the conversation already holds: like the live service
    (reference §7, "Duplicate client-supplied id", gpt-realtime-1.5), both items stay, in the order they
    were placed, and the brain sees both. An id then names the latest item created with it: ``get``,
    retrieve, truncate and ``previous_item_id`` act on that one; ``delete`` removes every item holding
    the id (one ``conversation.item.deleted``, so a client's copy keyed by id stays true).
    See docs/realtime-protocol.md, "Duplicate item ids".
    """

    def __init__(self, conversation_id: str) -> None:
        self.id = conversation_id
        self._order: list[Item] = []
        self._by_id: dict[str, list[Item]] = {}  # the items holding each id, oldest first
        # Where the items' audio is, kept as it changes, so bounding the conversation before each added
        # item (ConversationItems.make_room) costs the few items with audio in memory, not every item:
        # a pass over all of them grew the event loop's CPU with each call's age (0.3 ms an item added
        # at 1,000 items, 1.7 ms at 3,000).
        self._spilled_bytes = 0  # audio of held items in the spill file (immutable there)
        self._in_memory: dict[int, Item] = {}  # held items with audio in memory, by when they took it
        # For a response's token count (context_window.FitLedger), which counts only what is new: bumped
        # by every change but an item added at the end; and the held items changed since the ledger last
        # took them (None until it first does, so a conversation no response reads keeps none).
        self.revision = 0
        self._changed: dict[int, Item] | None = None

    def __contains__(self, item_id: str) -> bool:
        return item_id in self._by_id

    def __iter__(self) -> Iterator[Item]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def get(self, item_id: str) -> Item | None:
        """The latest item created with ``item_id``, or None."""
        held = self._by_id.get(item_id)
        return held[-1] if held else None

    def holds(self, item: Item) -> bool:
        """Whether this very item (not only its id) is in the conversation."""
        return any(i is item for i in self._by_id.get(item.id, ()))

    def insert(self, item: Item, previous_item_id: str | None = None, at_root: bool = False) -> str | None:
        """Add an item at the end, at the root, or after the latest item holding ``previous_item_id``
        (which must exist); returns the id of the item before it (None when first). An item whose id is
        already held joins the others (nothing accepted is lost)."""
        if at_root:
            index = 0
        elif previous_item_id is None:
            index = len(self._order)
        else:
            index = self._index_of(self._by_id[previous_item_id][-1]) + 1
        if index != len(self._order):
            self.revision += 1
        self._order.insert(index, item)
        self._by_id.setdefault(item.id, []).append(item)
        if item._holder is not None and item._holder is not self:
            item._holder.revision += 1  # the item's changes are no longer seen there
            item._holder._let_go(item)
        object.__setattr__(item, "_holder", self)
        self._count_audio(item, item.audio, +1)
        return self._order[index - 1].id if index > 0 else None

    def delete(self, item_id: str) -> list[Item]:
        """Remove every item holding ``item_id`` (none: KeyError); returns them, oldest first."""
        removed = self._by_id.pop(item_id)
        self._order = [i for i in self._order if i.id != item_id]
        self.revision += 1
        for item in removed:
            self._let_go(item)
        return removed

    def remove(self, item: Item) -> None:
        """Remove this one item (the oldest-first eviction, which goes item by item)."""
        del self._order[self._index_of(item)]
        self.revision += 1
        held = self._by_id[item.id]
        del held[next(n for n, i in enumerate(held) if i is item)]
        if not held:
            del self._by_id[item.id]
        self._let_go(item)

    @property
    def audio_bytes(self) -> int:
        """The audio the held items hold, in memory or spilled (PCM16 24 kHz bytes)."""
        return self._spilled_bytes + sum(len(item.audio) for item in self._in_memory.values())

    def audio_in_memory(self) -> list[Item]:
        """The held items whose audio is in memory (not spilled), newest first: the order they took it
        in, which is the conversation's for items added at the end."""
        return list(reversed(self._in_memory.values()))

    def _count_audio(self, item: Item, audio: bytes | bytearray | SpilledAudio, sign: int) -> None:
        if isinstance(audio, SpilledAudio):
            self._spilled_bytes += sign * len(audio)
        elif sign > 0:
            # A bytearray is counted even empty: a reply's audio grows in place while it is sent, so its
            # length is read when asked.
            if audio or isinstance(audio, bytearray):
                self._in_memory[id(item)] = item
        else:
            self._in_memory.pop(id(item), None)

    def _audio_changes(self, item: Item, audio: bytes | bytearray | SpilledAudio) -> None:
        # Item.__setattr__ of a held item's ``audio``: account the old value out, the new one in.
        self._count_audio(item, item.audio, -1)
        object.__setattr__(item, "audio", audio)
        self._count_audio(item, audio, +1)

    def _let_go(self, item: Item) -> None:
        self._count_audio(item, item.audio, -1)
        object.__setattr__(item, "_holder", None)

    def take_changed(self) -> list[Item]:
        """The held items changed (``Item.changed``) since the last call; from the first call on, changes
        are kept for the next."""
        changed = self._changed
        self._changed = {}
        return [item for item in (changed or {}).values() if item._holder is self]

    def holding(self, item_id: str) -> int:
        """How many held items have ``item_id``."""
        return len(self._by_id.get(item_id, ()))

    def items_from(self, index: int) -> list[Item]:
        """The items from position ``index`` on (the ones added at the end since a count of ``index``)."""
        return self._order[index:]

    def find_call(self, call_id: str) -> Item | None:
        return next((i for i in self if i.type == "function_call" and i.call_id == call_id), None)

    def _index_of(self, item: Item) -> int:
        # by identity: two items may hold the same id and even the same fields
        return next(n for n, i in enumerate(self._order) if i is item)


def item_from_wire(
    wire: dict[str, Any],
    *,
    ids: IdFactory,
    conversation: Conversation,
    describe_image: Callable[[str], ImageFacts],
    decode_audio: Callable[[bytes], bytes] = bytes,
    calls_before: AbstractSet[str] = frozenset(),
) -> tuple[Item, bool]:
    """A validated client item (``conversation.item.create`` or ``response.input``) as stored, and
    whether its audio still needs a transcript. ``decode_audio`` turns ``input_audio`` (in the
    session's input format, reference §7) into PCM16 24 kHz. ``calls_before``: the call ids of the
    ``function_call`` items before this one in the same ``response.input`` (its own context). Raises
    ProtocolError for a ``function_call_output`` whose call is in neither, an
    ``mcp_approval_response`` that answers no request or one already answered, an image that cannot be
    decoded, or invalid base64 audio. A message, ``function_call`` or ``function_call_output`` keeps the
    ``status`` the client gave it (``completed`` / ``incomplete`` / ``in_progress``, checked at the parse
    boundary; openai-python: "Has no effect on the conversation"), ``completed`` when it gave none."""
    if wire.get("id"):
        ids.take(wire["id"])
    item_id = wire.get("id") or ids.item()
    if wire["type"] == "mcp_approval_response":
        request = conversation.get(wire["approval_request_id"])
        if request is None or request.type != "mcp_approval_request":
            raise errors.approval_request_not_found(wire["approval_request_id"])
        # A second answer was taken too: an approval after a refusal ran the refused call in the next
        # response (mcp.approved_call reads the latest answer), and the context held both answers.
        answered = next(
            (
                i
                for i in conversation
                if i.type == "mcp_approval_response" and i.approval_request_id == request.id
            ),
            None,
        )
        if answered is not None:
            raise errors.approval_already_answered(request.id, answered.id)
        item = Item(item_id, "mcp_approval_response", approval_request_id=request.id, approve=wire["approve"])
        item.reason = wire.get("reason")
        return item, False
    if wire["type"] == "function_call_output":
        if wire["call_id"] not in calls_before and conversation.find_call(wire["call_id"]) is None:
            raise errors.tool_call_not_found(wire["call_id"])
        status = wire.get("status", "completed")
        return Item(
            item_id, "function_call_output", status=status, call_id=wire["call_id"], output=wire["output"]
        ), False
    if wire["type"] == "function_call":
        if wire.get("call_id"):
            ids.take(wire["call_id"])
        call_id = wire.get("call_id") or ids.call()
        status = wire.get("status", "completed")
        return Item(
            item_id,
            "function_call",
            status=status,
            name=wire["name"],
            arguments=wire["arguments"],
            call_id=call_id,
        ), False
    content: list[dict[str, Any]] = []
    images: list[ImageFacts] = []
    audio = b""
    needs_transcript = False
    for index, part in enumerate(wire["content"]):
        part = dict(part)
        param = f"item.content[{index}]"
        if part["type"] == "input_image":
            try:
                images.append(describe_image(part.get("image_url", "")))
            except ValueError as exc:
                raise ProtocolError(
                    "invalid_value", f"Invalid '{param}.image_url': {exc}", f"{param}.image_url"
                ) from exc
            part.setdefault("detail", "auto")
        elif part["type"] == "input_audio":
            try:
                audio += decode_audio(base64.b64decode(part.get("audio", ""), validate=True))
            except ValueError as exc:
                raise ProtocolError(
                    "invalid_value",
                    f"Invalid '{param}.audio': expected base64-encoded PCM16 audio.",
                    f"{param}.audio",
                ) from exc
            needs_transcript = needs_transcript or part.get("transcript") is None
            part = {"type": "input_audio", "transcript": part.get("transcript")}
        content.append(part)
    status = wire.get("status", "completed")
    item = Item(
        item_id,
        "message",
        role=wire["role"],
        status=status,
        content=content,
        audio=audio,
        images=tuple(images),
    )
    return item, needs_transcript and bool(audio)
