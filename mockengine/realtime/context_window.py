"""The model's context window and the session's ``truncation``: which conversation items a response
reads (the brain and ``usage.input_token_details``), or that it cannot be answered.

The live rule (openai-python's ``RealtimeSessionCreateRequest.truncation`` and
``RealtimeTruncationRetentionRatio`` docstrings): when the conversation's tokens exceed the model's input
limit, messages are dropped from the model's context starting from the oldest. ``"auto"`` (the default)
drops as needed; ``{"type": "retention_ratio", "retention_ratio": r}`` drops "until r of the maximum
allowed tokens are used", so later turns have room before the next drop; ``token_limits.post_instructions``
lowers the limit for the conversation after the instructions; ``"disabled"`` never drops and the response
fails instead. "A 32k context model with 4,096 max output tokens can only include 28,224 tokens in the
context before truncation occurs": the engine's one input limit (every realtime model it serves is one).

Ours (not public): "auto" drops just enough to fit; an item once dropped stays out of the context of later
responses (the cache benefit the docstring describes needs a stable prefix), though it stays in the
conversation (retrievable; no event announces the drop); the newest item is never dropped, so a response
reads it even when it alone is over the limit (the live answer to one item larger than the window is not
public: the engine answers rather than fails); token counts are ``usage``'s (instructions' and items' text,
user audio at one token per 100 ms, 85 per image; tool definitions are not counted); a response's own
``input`` is fitted the same way but remembers nothing. Pure: the same conversation gives the same result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mockengine.engines.tokens import USER_AUDIO_MS_PER_TOKEN
from mockengine.protocol.errors import counted
from mockengine.realtime.conversation import Conversation, Item
from mockengine.realtime.usage import IMAGE_TOKENS, TokenCounting, audio_tokens, text_tokens

# The input limit (instructions and conversation) of the realtime models: the SDK docstring's example.
INPUT_TOKEN_LIMIT = 28_224
CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"


@dataclass(frozen=True)
class Fitted:
    """What a response reads: ``items`` (oldest first), the ids ``dropped`` now, and its token count
    (the items'); ``usage``: the input tokens it bills, instructions included, as ``Usage`` splits them
    (text, audio, image), so the response's usage needs no second count."""

    items: tuple[Item, ...]
    dropped: tuple[str, ...]
    tokens: int
    usage: tuple[int, int, int] = (0, 0, 0)


class ContextTooLong(Exception):
    """The context is over the limit and truncation is ``"disabled"``. ``str()`` is the message of the
    failed response's error."""


def item_tokens(tokens: TokenCounting, item: Item) -> tuple[int, int, int]:
    """The (text, audio, image) tokens one item costs in the model's input (``usage.add_input_usage``'s
    rule); kept with the item until it changes (every response counts its whole context)."""
    counts = item.token_counts(tokens)
    if counts is None:
        audio = (
            audio_tokens(item.audio_ms, USER_AUDIO_MS_PER_TOKEN) if item.role == "user" and item.audio else 0
        )
        counts = (text_tokens(tokens, item.text()), audio, IMAGE_TOKENS * len(item.images))
        item.keep_token_counts(tokens, counts)
    return counts


class FitLedger:
    """A conversation's token counts summed as it grows, so a response's :func:`fit` of the whole
    conversation counts only the items added or changed since the last (``counted``: items counted in
    all, for tests). Every response counted every item again: with the other per-reply walks, ~0.6 ms of
    the event loop per reply at 1,000 items, and a crowd of calls whose turns end together pays it all in
    one tick (docs/cpu.md, sixteenth pass).

    The items truncation left out of the context are the conversation's oldest, so the ledger sums the
    items after that prefix and drops from its front as the conversation grows past the limit. It starts
    afresh when the conversation is another one or changed other than by items added at the end
    (``Conversation.revision``), or the ids out of context are not the ones it dropped; it declines
    (:meth:`fit` returns None: the full count decides) when they are not a prefix of the conversation
    (an id dropped and held again by a newer item), and leaves a ``"disabled"`` overflow's error to the
    full count."""

    def __init__(self) -> None:
        self._conversation: Conversation | None = None
        self._tokens: TokenCounting | None = None
        self._revision = -1
        self._out_size = -1  # len(out_of_context) when the ledger last agreed with it
        self._first = 0  # the leading items out of context
        self._length = 0  # the items looked at (the conversation's length then)
        self._counts: dict[int, tuple[int, int, int]] = {}  # the items after the first, by id()
        self._sums = [0, 0, 0]
        self.counted = 0

    def fit(
        self,
        truncation: Any,
        instructions: str,
        conversation: Conversation,
        tokens: TokenCounting,
        out_of_context: set[str] | frozenset[str],
    ) -> Fitted | None:
        """:func:`fit` of all of ``conversation``'s items, or None when the full count must decide."""
        if (
            conversation is not self._conversation
            or tokens is not self._tokens
            or conversation.revision != self._revision
            or len(out_of_context) != self._out_size
        ):
            if not self._start(conversation, tokens, out_of_context):
                return None
        else:
            for item in conversation.take_changed():
                old = self._counts.get(id(item))
                if old is not None:
                    self._add(id(item), item_tokens(tokens, item), old)
        for item in conversation.items_from(self._length):
            if item.id in out_of_context:  # a dropped id held again: left out too, not a prefix
                self._revision = -1
                return None
            self._add(id(item), item_tokens(tokens, item), (0, 0, 0))
        self._length = len(conversation)
        instruction_tokens = text_tokens(tokens, instructions)
        limit = conversation_limit(truncation, instruction_tokens)
        total = sum(self._sums)
        order = conversation.items_from(self._first)
        if total > limit:
            if truncation == "disabled":
                return None
            target = limit
            if isinstance(truncation, dict) and truncation.get("type") == "retention_ratio":
                target = int(limit * float(truncation.get("retention_ratio", 1.0)))
            dropped: list[str] = []
            while len(dropped) < len(order) - 1 and total > target:
                item = order[len(dropped)]
                counts = self._counts.pop(id(item))
                for n in range(3):
                    self._sums[n] -= counts[n]
                total -= sum(counts)
                dropped.append(item.id)
            self._first += len(dropped)
            self._out_size = len(out_of_context.union(dropped))
            if any(conversation.holding(item_id) > 1 for item_id in dropped):
                self._revision = -1  # a newer item holds a dropped id: the full count leaves it out next
            text, audio, image = self._sums
            usage = (instruction_tokens + text, audio, image)
            return Fitted(tuple(order[len(dropped) :]), tuple(dropped), total, usage)
        text, audio, image = self._sums
        return Fitted(tuple(order), (), total, (instruction_tokens + text, audio, image))

    def _start(
        self, conversation: Conversation, tokens: TokenCounting, out_of_context: set[str] | frozenset[str]
    ) -> bool:
        self._conversation, self._tokens, self._revision = conversation, tokens, conversation.revision
        self._out_size, self._length, self._counts, self._sums = len(out_of_context), 0, {}, [0, 0, 0]
        conversation.take_changed()
        items = conversation.items_from(0)
        first = 0
        while first < len(items) and items[first].id in out_of_context:
            first += 1
        self._first = self._length = first
        if any(item.id in out_of_context for item in items[first:]):
            self._revision = -1
            return False
        return True

    def _add(self, key: int, counts: tuple[int, int, int], old: tuple[int, int, int]) -> None:
        self.counted += 1
        self._counts[key] = counts
        for n in range(3):
            self._sums[n] += counts[n] - old[n]


def conversation_limit(truncation: Any, instruction_tokens: int) -> int:
    """The tokens the conversation may hold after the instructions: the input limit less the
    instructions, lowered by ``token_limits.post_instructions`` when given."""
    room = max(INPUT_TOKEN_LIMIT - instruction_tokens, 0)
    if isinstance(truncation, dict):
        post = (truncation.get("token_limits") or {}).get("post_instructions")
        if isinstance(post, int):
            room = min(room, post)
    return room


def fit(
    truncation: Any,
    instructions: str,
    context: Sequence[Item],
    tokens: TokenCounting,
    out_of_context: Iterable[str] = (),
    ledger: tuple[FitLedger, Conversation] | None = None,
) -> Fitted:
    """The items of ``context`` the response reads under ``truncation`` (the session's: ``"auto"``,
    ``"disabled"`` or the retention_ratio object), leaving out the ids in ``out_of_context`` (dropped
    before). Raises :class:`ContextTooLong` when they do not fit and truncation is ``"disabled"``.
    ``ledger``: a :class:`FitLedger` and the conversation ``context`` is all of, in order (the ids out of
    context dropped by fits with that ledger): only its new or changed items are counted."""
    gone = set(out_of_context)
    if ledger is not None:
        fitted = ledger[0].fit(truncation, instructions, ledger[1], tokens, gone)
        if fitted is not None:
            return fitted
    kept = [item for item in context if item.id not in gone]
    split = [item_tokens(tokens, item) for item in kept]
    costs = [sum(parts) for parts in split]
    instruction_tokens = text_tokens(tokens, instructions)
    limit = conversation_limit(truncation, instruction_tokens)
    total = sum(costs)

    def billed(start: int) -> tuple[int, int, int]:
        read = split[start:]
        return (
            instruction_tokens + sum(p[0] for p in read),
            sum(p[1] for p in read),
            sum(p[2] for p in read),
        )

    if total <= limit:
        return Fitted(tuple(kept), (), total, billed(0))
    if truncation == "disabled":
        raise ContextTooLong(
            f"The conversation is {counted(total, 'token')}, over the {counted(limit, 'token')} the model's "
            "input holds after the "
            "instructions, and the session's truncation is 'disabled': delete items or enable truncation."
        )
    target = limit
    if isinstance(truncation, dict) and truncation.get("type") == "retention_ratio":
        target = int(limit * float(truncation.get("retention_ratio", 1.0)))
    start = 0
    while start < len(kept) - 1 and total > target:
        total -= costs[start]
        start += 1
    return Fitted(tuple(kept[start:]), tuple(item.id for item in kept[:start]), total, billed(start))
