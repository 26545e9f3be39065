"""``realtime.context_window.fit``: which items a response reads under the session's ``truncation``
(pure; tokens counted here as one per word)."""

from __future__ import annotations

import pytest

from mockengine.realtime.context_window import INPUT_TOKEN_LIMIT, ContextTooLong, conversation_limit, fit
from mockengine.realtime.conversation import Item


class Words:
    def count(self, text: str) -> int:
        return len(text.split())

    def token_bytes(self, text: str) -> list[bytes]:
        return [w.encode() for w in text.split()]


def message(item_id: str, words: int, role: str = "user") -> Item:
    kind = "input_text" if role == "user" else "output_text"
    return Item(item_id, "message", role=role, content=[{"type": kind, "text": " ".join(["w"] * words)}])


def ratio(r: float, post: int | None = None) -> dict:
    truncation: dict = {"type": "retention_ratio", "retention_ratio": r}
    if post is not None:
        truncation["token_limits"] = {"post_instructions": post}
    return truncation


CONVERSATION = [message(f"item_{n}", 10) for n in range(6)]  # 60 tokens


def test_everything_is_read_while_it_fits():
    fitted = fit("auto", "two words", CONVERSATION, Words())
    assert fitted.items == tuple(CONVERSATION) and fitted.dropped == () and fitted.tokens == 60
    assert fitted.usage == (62, 0, 0)  # the instructions billed too


def test_auto_drops_the_oldest_just_enough():
    fitted = fit(ratio(1.0, 35), "", CONVERSATION, Words())
    assert [i.id for i in fitted.items] == ["item_3", "item_4", "item_5"] and fitted.tokens == 30
    assert fitted.dropped == ("item_0", "item_1", "item_2")


def test_retention_ratio_drops_down_to_its_fraction_and_dropped_items_stay_out():
    fitted = fit(ratio(0.5, 40), "", CONVERSATION, Words())
    assert fitted.tokens == 20 and [i.id for i in fitted.items] == ["item_4", "item_5"]
    # Next turn: the remembered drops stay out, and nothing more goes while it fits.
    grown = [*CONVERSATION, message("item_6", 10)]
    again = fit(ratio(0.5, 40), "", grown, Words(), out_of_context=fitted.dropped)
    assert [i.id for i in again.items] == ["item_4", "item_5", "item_6"] and again.dropped == ()


def test_the_instructions_take_from_the_model_limit():
    assert conversation_limit("auto", 224) == INPUT_TOKEN_LIMIT - 224 == 28_000
    assert conversation_limit(ratio(0.8, 50_000), 0) == INPUT_TOKEN_LIMIT  # capped at the model's
    assert conversation_limit(ratio(0.8, 100), 0) == 100


def test_disabled_refuses_instead_of_dropping():
    with pytest.raises(ContextTooLong, match="'disabled'"):
        fit("disabled", "", [message("big", INPUT_TOKEN_LIMIT + 1)], Words())
    assert fit("disabled", "", CONVERSATION, Words()).tokens == 60


def test_the_newest_item_is_never_dropped_even_alone_over_the_limit():
    fitted = fit(ratio(0.0, 15), "", CONVERSATION, Words())
    assert [i.id for i in fitted.items] == ["item_5"]
    alone = fit(ratio(1.0, 5), "", CONVERSATION, Words())
    assert [i.id for i in alone.items] == ["item_5"] and alone.tokens == 10
