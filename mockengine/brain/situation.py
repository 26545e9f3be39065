"""What the participant makes of the conversation so far: the item to react to and the facts around it.

The *trigger* is the newest item that asks for a reaction: a user message or transcript, a context item,
or a function output. Assistant messages and function calls are the brain's own output, and plain system
messages are standing orders rather than turns, so none of those is ever a trigger.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from mockengine.brain.context import (
    ContextEvent,
    QuestionContext,
    TypedContext,
    is_context_text,
    parse_context,
)
from mockengine.brain.model import ImageFacts, TurnView

TriggerKind = Literal["user", "context", "function_output", "none"]
_COLOUR_WORDS = re.compile(r"\bcolou?rs?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Trigger:
    """The item being answered. ``text`` is what was heard/typed (user, typed context) or the output."""

    kind: TriggerKind
    item: TurnView | None
    text: str
    context: ContextEvent | None = None


@dataclass(frozen=True)
class Situation:
    """Facts read from the history, newest wins for each.

    ``heard`` is the newest user words (message, transcript or chat line); ``focus_text`` is whichever is
    newer of those and the newest question, i.e. what an answer should be about.
    """

    trigger: Trigger
    question: QuestionContext | None
    typed: TypedContext | None
    screen_text: str
    heard: str
    image: ImageFacts | None
    focus_text: str = ""

    @property
    def asks_colour(self) -> bool:
        """A colour question about an image: "colour"/"color" in the newest question or user words."""
        return self.image is not None and mentions_colour(self.focus_text)

    @property
    def heard_is_current(self) -> bool:
        """True when the trigger is something said or typed, so heard_* rules may fire on it."""
        return self.trigger.kind == "user" or (
            self.trigger.context is not None and self.trigger.context.event == "typed"
        )


def context_of(item: TurnView) -> ContextEvent | None:
    """The context event an item carries, or None; kind "context" items may omit the prefix."""
    if item.kind == "context":
        return parse_context(item.text)
    if item.kind in ("user_text", "system") and is_context_text(item.text):
        return parse_context(item.text)
    return None


def read_situation(history: tuple[TurnView, ...]) -> Situation:
    """Scan ``history`` (oldest first) once, newest to oldest."""
    trigger = _find_trigger(history)
    question: QuestionContext | None = None
    typed: TypedContext | None = None
    screen_text = ""
    heard: str | None = None
    image: ImageFacts | None = None
    focus: str | None = None
    for item in reversed(history):
        image = image or (item.images[-1] if item.images else None)
        event = context_of(item)
        if event is None:
            if heard is None and item.kind in ("user_text", "user_audio"):
                heard = item.text.strip()
                focus = heard if focus is None else focus
            continue
        asked = event.as_question() if question is None else None
        if asked is not None:
            question = asked
            focus = asked.question if focus is None else focus
        typed = typed or event.as_typed()
        if not screen_text and event.event == "screen":
            screen_text = event.text
        if heard is None and event.event == "typed":
            heard = event.text
            focus = heard if focus is None else focus
    return Situation(trigger, question, typed, screen_text, heard or "", image, focus or "")


def mentions_colour(text: str) -> bool:
    return bool(_COLOUR_WORDS.search(text))


def output_error(output: str) -> str | None:
    """The error in a function output, or None when it was accepted.

    HRP (``voiceEngine.functionOutputs``): accepted is ``{"accepted": true}``, refused is ``{"error": "…"}``.
    ``{"accepted": false}`` also counts as refused; any other output (JSON or free text) as accepted.
    """
    try:
        data: Any = json.loads(output)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if "error" in data and data["error"] not in (None, False):
        error = data["error"]
        if isinstance(error, dict):
            error = error.get("message", "")
        return str(error).strip() if error is not True else ""
    if data.get("accepted") is False:
        return ""
    return None


def function_name_for(history: tuple[TurnView, ...], call_id: str | None) -> str | None:
    """The name of the function call an output answers, found by ``call_id``."""
    for item in reversed(history):
        if item.kind == "function_call" and call_id is not None and item.call_id == call_id:
            return item.name
    return None


def _find_trigger(history: tuple[TurnView, ...]) -> Trigger:
    for item in reversed(history):
        if item.kind in ("assistant", "function_call"):
            continue
        if item.kind == "function_call_output":
            return Trigger("function_output", item, item.text)
        event = context_of(item)
        if event is not None:
            return Trigger("context", item, event.text, event)
        if item.kind in ("user_text", "user_audio"):
            return Trigger("user", item, item.text.strip())
    return Trigger("none", None, "")
