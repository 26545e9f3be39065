"""``read_situation`` with images-only user messages (video frames sent as their own items)."""

from __future__ import annotations

from mockengine.brain.model import ImageFacts, TurnView
from mockengine.brain.situation import read_situation

RED = ImageFacts(width=64, height=48, dominant_colour="red", dominant_share=1.0, brightness=0.3)


def frame(item_id: str) -> TurnView:
    return TurnView(item_id, "user_text", "", (RED,))


def test_words_before_frames_are_the_trigger_and_the_frame_is_what_they_are_about() -> None:
    situation = read_situation((TurnView("q", "user_text", "What colour is it?"), frame("f1"), frame("f2")))
    assert situation.trigger.item is not None and situation.trigger.item.item_id == "q"
    assert (situation.heard, situation.image, situation.asks_colour) == ("What colour is it?", RED, True)


def test_a_frame_after_a_reply_is_the_trigger_itself() -> None:
    history = (TurnView("q", "user_text", "Hello"), TurnView("a", "assistant", "Hi!"), frame("f"))
    situation = read_situation(history)
    assert situation.trigger.item is not None and situation.trigger.item.item_id == "f"
    assert situation.heard == ""


def test_a_frame_after_a_function_output_leaves_the_output_the_trigger() -> None:
    history = (TurnView("o", "function_call_output", '{"ok": true}'), frame("f"))
    assert read_situation(history).trigger.kind == "function_output"


def test_a_transcript_still_pending_is_not_skipped() -> None:
    """An audio item with no words yet is a turn, not a frame: nothing older is taken for it."""
    history = (TurnView("q", "user_text", "Hello"), TurnView("u", "user_audio", ""))
    trigger = read_situation(history).trigger
    assert trigger.item is not None and trigger.item.item_id == "u"
