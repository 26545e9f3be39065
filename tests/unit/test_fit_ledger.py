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


class _Fits:
    """Fits with and without a ledger, each keeping the ids it dropped out of the next as a session
    does (``Responses._fitted``)."""

    def __init__(self, truncation: object) -> None:
        self.truncation = truncation
        self.tokens = TokenCounter()
        self.ledger = FitLedger()
        self.out: set[str] = set()
        self.out_full: set[str] = set()
        self.full_counted = 0  # the items the full count looked at

    def check(self, conversation: Conversation) -> None:
        context = tuple(conversation)
        self.full_counted += len(context)
        try:
            full = fit(self.truncation, "Be brief.", context, self.tokens, self.out_full)
        except context_window.ContextTooLong as exc:
            with pytest.raises(context_window.ContextTooLong) as raised:
                fit(self.truncation, "Be brief.", context, self.tokens, self.out, (self.ledger, conversation))
            assert str(raised.value) == str(exc)
            return
        kept = fit(self.truncation, "Be brief.", context, self.tokens, self.out, (self.ledger, conversation))
        assert kept == full
        self.out.update(kept.dropped)
        self.out_full.update(full.dropped)


SMALL = {"post_instructions": 400}


@pytest.mark.parametrize(
    "truncation",
    [
        "auto",
        {"type": "retention_ratio", "retention_ratio": 1.0, "token_limits": SMALL},
        {"type": "retention_ratio", "retention_ratio": 0.5, "token_limits": SMALL},
        "disabled",
    ],
)
def test_the_ledgers_fit_equals_the_full_count_after_any_change(
    truncation: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(15)
    fits = _Fits(truncation)
    monkeypatch.setattr(context_window, "INPUT_TOKEN_LIMIT", 600)  # truncation many times over
    conversation = Conversation("conv_1")
    made = 0
    if True:
        for _ in range(1500):
            items = list(conversation)
            roll = rng.random()
            if roll < 0.55 or not items:
                made += 1
                role = rng.choice(["user", "assistant"])
                kind = "input_audio" if role == "user" else "output_audio"
                words = " ".join(
                    rng.choice(["yes", "the capital", "of France", "is Paris"])
                    for _ in range(rng.randint(1, 6))
                )
                item = Item(
                    f"item_{made}", "message", role=role, content=[{"type": kind, "transcript": words}]
                )
                if role == "user" and rng.random() < 0.5:
                    item.audio = bytes(2 * rng.randint(1, 4000))
                where = rng.random()
                if where < 0.9:
                    conversation.insert(item)
                elif where < 0.95:
                    conversation.insert(item, at_root=True)
                else:
                    conversation.insert(item, previous_item_id=rng.choice(items).id)
            elif roll < 0.7:  # a transcript arrives, in place
                item = rng.choice(items)
                item.content[0]["transcript"] = (item.content[0].get("transcript") or "") + " and more words"
                item.changed()
            elif roll < 0.78:  # a field assigned
                item = rng.choice(items)
                item.audio = bytes(2 * rng.randint(0, 4000)) if item.role == "user" else item.audio
                item.content = [{"type": "input_text", "text": "typed " * rng.randint(1, 9)}]
            elif roll < 0.82:  # deleted, as on conversation.item.delete
                item_id = rng.choice(items).id
                conversation.delete(item_id)
                fits.out.discard(item_id)
                fits.out_full.discard(item_id)
            elif roll < 0.86:  # the oldest removed, as the item cap's eviction does
                item = items[0]
                conversation.remove(item)
                if conversation.get(item.id) is None:
                    fits.out.discard(item.id)
                    fits.out_full.discard(item.id)
            elif roll < 0.88:  # an id held again, maybe one out of context (both items held)
                made += 1
                twin = rng.choice(items).id
                conversation.insert(
                    Item(twin, "message", role="user", content=[{"type": "input_text", "text": "again"}])
                )
            fits.check(conversation)
    # not every item every time, though a quarter of the steps change the conversation other than at its end
    assert fits.ledger.counted < fits.full_counted / 3, (fits.ledger.counted, fits.full_counted)


def test_a_new_conversation_or_counter_starts_afresh() -> None:
    ledger = FitLedger()
    tokens = TokenCounter()
    first = Conversation("conv_1")
    first.insert(
        Item("item_1", "message", role="user", content=[{"type": "input_text", "text": "one two three"}])
    )
    assert ledger.fit("auto", "", first, tokens, set()) == fit("auto", "", tuple(first), tokens)
    second = Conversation("conv_2")
    assert ledger.fit("auto", "", second, tokens, set()) == fit("auto", "", (), tokens)
    other = TokenCounter()
    assert ledger.fit("auto", "", first, other, set()) == fit("auto", "", tuple(first), other)
    assert ledger.counted == 2  # the item, counted once by each counter
