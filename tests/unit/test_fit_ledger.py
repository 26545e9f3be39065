"""A response's fit of a long conversation counts only the items added or changed since the last one
(``context_window.FitLedger``): every response counted every item again, event-loop work that grew with
a call's age (docs/cpu.md, sixteenth pass). The ledger's fit equals the full count after any change.
Counted, not timed: these hold on any machine."""

from __future__ import annotations

import random

import pytest

from mockengine.engines.tokens import TokenCounter
from mockengine.protocol import client_events as ce
from mockengine.realtime import context_window
from mockengine.realtime.context_window import FitLedger, fit
from mockengine.realtime.conversation import Conversation, Item
from tests.conftest import RecordingDriver, make_recording_driver

QUESTION = "What is the capital of France?"
ANSWER = "Paris is the capital of France."


def _filled(items: int) -> RecordingDriver:
    driver = make_recording_driver()
    conversation = driver.session.ctx.conversation
    for n in range(items):
        if n % 2 == 0:
            content = [{"type": "input_audio", "transcript": f"{QUESTION} ({n})"}]
            conversation.insert(Item(f"item_u{n}", "message", role="user", content=content))
        else:
            content = [{"type": "output_audio", "transcript": ANSWER}]
            conversation.insert(Item(f"item_a{n}", "message", role="assistant", content=content))
    return driver


def _counted_reply(driver: RecordingDriver, monkeypatch: pytest.MonkeyPatch) -> int:
    """One typed turn and its reply; how many items the context's fit counted."""
    calls = 0
    item_tokens = context_window.item_tokens

    def counting(tokens: object, item: Item) -> tuple[int, int, int]:
        nonlocal calls
        calls += 1
        return item_tokens(tokens, item)  # type: ignore[arg-type]

    monkeypatch.setattr(context_window, "item_tokens", counting)
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": QUESTION}]}
    driver.send(ce.ConversationItemCreate(message))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    monkeypatch.setattr(context_window, "item_tokens", item_tokens)
    assert any(e["type"] == "response.done" for _, e in driver.events)
    return calls


def test_a_reply_counts_only_the_new_items_however_long_the_conversation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = {}
    for items in (300, 2000):
        driver = _filled(items)
        _counted_reply(driver, monkeypatch)  # the first reply counts the conversation once
        counts[items] = [_counted_reply(driver, monkeypatch) for _ in range(3)]
    # the typed item, the last reply's output (and a changed item or two): on the base, every item
    assert counts[300] == counts[2000], counts
    assert max(counts[2000]) <= 4, counts


def _fits_equal(
    conversation: Conversation, ledger: FitLedger, tokens: TokenCounter, truncation: object
) -> None:
    context = tuple(conversation)
    full = fit(truncation, "Be brief.", context, tokens)
    kept = fit(truncation, "Be brief.", context, tokens, ledger=(ledger, conversation))
    assert kept == full


def test_the_ledgers_fit_equals_the_full_count_after_any_change() -> None:
    rng = random.Random(15)
    tokens = TokenCounter()
    ledger = FitLedger()
    conversation = Conversation("conv_1")
    small = {"type": "retention_ratio", "retention_ratio": 0.5, "token_limits": {"post_instructions": 400}}
    made = 0
    for step in range(2000):
        items = list(conversation)
        roll = rng.random()
        if roll < 0.45 or not items:
            made += 1
            role = rng.choice(["user", "assistant"])
            kind = "input_audio" if role == "user" else "output_audio"
            words = " ".join(
                rng.choice(["yes", "the capital", "of France", "is Paris"]) for _ in range(rng.randint(1, 6))
            )
            item = Item(f"item_{made}", "message", role=role, content=[{"type": kind, "transcript": words}])
            if role == "user" and rng.random() < 0.5:
                item.audio = bytes(2 * rng.randint(1, 4000))
            where = rng.random()
            if where < 0.8:
                conversation.insert(item)
            elif where < 0.9:
                conversation.insert(item, at_root=True)
            else:
                conversation.insert(item, previous_item_id=rng.choice(items).id)
        elif roll < 0.6:  # a transcript arrives, in place
            item = rng.choice(items)
            item.content[0]["transcript"] = (item.content[0].get("transcript") or "") + " and more words"
            item.changed()
        elif roll < 0.7:  # a field assigned
            item = rng.choice(items)
            item.audio = bytes(2 * rng.randint(0, 4000)) if item.role == "user" else item.audio
            item.content = [{"type": "input_text", "text": "typed " * rng.randint(1, 9)}]
        elif roll < 0.78:
            conversation.delete(rng.choice(items).id)
        elif roll < 0.85:
            conversation.remove(rng.choice(items))
        elif roll < 0.87:  # an item reused with the same id (both held)
            twin = rng.choice(items)
            made += 1
            conversation.insert(
                Item(twin.id, "message", role="user", content=[{"type": "input_text", "text": "again"}])
            )
        if step % 3 == 0:
            _fits_equal(conversation, ledger, tokens, "auto")
        if step % 7 == 0:
            _fits_equal(conversation, ledger, tokens, small)  # over the limit: the full count's truncation
    assert ledger.counted < 2000 * len(conversation)  # it did not count every item every time


def test_a_new_conversation_or_counter_starts_afresh() -> None:
    ledger = FitLedger()
    tokens = TokenCounter()
    first = Conversation("conv_1")
    first.insert(
        Item("item_1", "message", role="user", content=[{"type": "input_text", "text": "one two three"}])
    )
    assert ledger.totals(first, tokens) == fit("auto", "", tuple(first), tokens).usage
    second = Conversation("conv_2")
    assert ledger.totals(second, tokens) == (0, 0, 0)
    other = TokenCounter()
    assert ledger.totals(first, other) == fit("auto", "", tuple(first), other).usage
