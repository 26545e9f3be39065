"""A study's conversation holds hundreds of items, and every response reads its whole context: what an
item's fields make (its words, the brain's views, its token counts) is kept with the item until a field
changes, and the brain's reply does not redo work per earlier turn it does not use (docs/memory.md,
"A long conversation"). Counted, not timed: these hold on any machine."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from mockengine.brain import phrases
from mockengine.protocol import client_events as ce
from mockengine.realtime.context_window import item_tokens
from mockengine.realtime.conversation import Item
from tests.conftest import make_driver


class CountingWords:
    """Tokens as words, and how many texts were counted."""

    def __init__(self) -> None:
        self.counted = 0

    def count(self, text: str) -> int:
        self.counted += 1
        return len(text.split())

    def token_bytes(self, text: str) -> list[bytes]:
        return [w.encode() for w in text.split()]


def test_an_items_words_and_views_follow_every_change():
    heard = Item("item_1", "message", role="user", content=[{"type": "input_audio", "transcript": None}])
    assert heard.text() == "" and heard.views()[0].text == ""
    heard.set_audio_transcript("What is the capital of France?")  # in place, inside content
    assert heard.text() == "What is the capital of France?"
    assert heard.views()[0].text == "What is the capital of France?"

    said = Item(
        "item_2", "message", role="assistant", content=[{"type": "output_audio", "transcript": "Paris."}]
    )
    said.audio = bytes(48_000)
    assert said.text() == "Paris."
    said.truncate(200)  # the transcript goes with the cut (reference §3.7)
    assert said.text() == "" and said.views()[0].text == ""
    said.content = [{"type": "output_audio", "transcript": "Lyon."}]
    assert said.text() == "Lyon."

    call = Item("item_3", "function_call", name="get_weather", call_id="call_1", arguments="")
    assert call.text() == ""
    call.arguments = '{"city": "Paris"}'  # streamed arguments, assigned when complete
    assert call.text() == '{"city": "Paris"}' and call.views()[0].text == '{"city": "Paris"}'


def test_an_items_tokens_are_counted_once_until_it_changes():
    words = CountingWords()
    item = Item("item_1", "message", role="user", content=[{"type": "input_text", "text": "one two three"}])
    assert item_tokens(words, item) == item_tokens(words, item) == (3, 0, 0)
    assert words.counted == 1
    item.content = [{"type": "input_text", "text": "one two"}]
    assert item_tokens(words, item) == (2, 0, 0) and words.counted == 2
    other = CountingWords()  # another tokenizer counts for itself
    assert item_tokens(other, item) == (2, 0, 0) and other.counted == 1


# Run in a fresh interpreter: where CPython keeps an object's attributes depends on the order its class's
# instances first set them, which the other tests in this process would already have decided.
KEPT_BY_AN_ITEM = """
import gc
from mockengine.engines.tokens import TokenCounter
from mockengine.realtime.context_window import item_tokens
from mockengine.realtime.conversation import Item

words = TokenCounter(None)
spoken = [{"type": "input_audio", "transcript": "What is the capital of France?"}]
items = [Item(f"item_{n}", "message", role="user", content=spoken, audio=bytes(960)) for n in range(100)]
before = {id(item): [o for o in gc.get_referents(item) if gc.is_tracked(o)] for item in items}
for item in items:  # as responses read them
    item.text(), item.views(), item_tokens(words, item)
gc.collect()
for item in items:
    new = [o for o in gc.get_referents(item) if not any(o is b for b in before[id(item)])]
    kept = [o for o in new if gc.is_tracked(o)]
    print(" ".join(sorted(type(o).__name__ for o in kept)))
"""


def test_what_an_item_keeps_adds_one_object_for_the_collector():
    """A long load test holds ~100,000 items, and a full collection walks every object they hold: what a
    response makes of an item adds the brain's view (and a reference to the session's one counter), not
    a dict of the item's attributes (they stay in the object) nor a tuple around the one view."""
    run = subprocess.run([sys.executable, "-c", KEPT_BY_AN_ITEM], capture_output=True, text=True, check=True)
    assert set(run.stdout.splitlines()) == {"TokenCounter TurnView"}, run.stdout[:300]


def test_equal_items_stay_equal_whatever_was_made_of_them():
    first = Item("item_1", "message", role="user", content=[{"type": "input_text", "text": "hi"}])
    second = Item("item_1", "message", role="user", content=[{"type": "input_text", "text": "hi"}])
    first.text()
    assert first == second


def _typed_turn(driver, text: str) -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    driver.send(ce.ConversationItemCreate(item))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()


def test_a_response_makes_words_only_for_the_items_new_since_the_last(monkeypatch):
    made: list[str] = []
    words = Item._words

    def counted(self: Item) -> str:
        made.append(self.id)
        return words(self)

    monkeypatch.setattr(Item, "_words", counted)
    driver = make_driver()
    per_turn = []
    for n in range(40):
        made.clear()
        _typed_turn(driver, f"What is the capital of France? ({n})")
        per_turn.append(len(made))
    assert len(driver.session.ctx.conversation) >= 80
    # Each turn adds a user item and a reply (its words made again as they stream); the ~80 items
    # before them are read from what they made.
    assert max(per_turn) <= 6, per_turn


def test_a_reply_echoes_only_what_it_quotes_of_the_earlier_turns(monkeypatch):
    echoed: list[str] = []
    echo_of = phrases.echo_of
    monkeypatch.setattr(phrases, "echo_of", lambda words: echoed.append(words) or echo_of(words))
    earlier = [f"I like number {n}." for n in range(300)]
    reply = phrases.reply_to_words("What is the capital of France?", random.Random(1), "", earlier=earlier)
    assert "Paris" in reply and len(echoed) == 1  # the question's own echo
    echoed.clear()
    summary = phrases.reply_to_words(
        "Summarize the conversation so far.", random.Random(1), "", earlier=earlier
    )
    assert (
        summary == 'So far you\'ve said "I like number 297", "I like number 298", then "I like number 299".'
    )
    assert len(echoed) == 3


@pytest.mark.parametrize("before", [0, 1])
def test_a_summary_with_little_said_before_reads_the_same(before):
    earlier = ["My name is Ada."][:before]
    summary = phrases.reply_to_words(
        "Summarize the conversation so far.", random.Random(1), "", earlier=earlier
    )
    expected = 'So far you\'ve said "My name is Ada".' if before else "There isn't much to sum up yet"
    assert summary.startswith(expected)
