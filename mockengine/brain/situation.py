"""What the participant makes of the conversation so far: the item to react to and the facts around it.

The *trigger* is the newest item that asks for a reaction: a user message or transcript, a context item,
or a function output. Assistant messages and function calls are the brain's own output, and plain system
messages are standing orders rather than turns, so none of those is ever a trigger. A user message that
is only images (a video frame LiveKit's ``push_video`` or the Agents SDK sends as its own item, often just
after the words it goes with) shows something rather than asks it: when user words come before it since the
last reply, those words are the trigger, and the images are what they are about.
"""

from __future__ import annotations

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
from mockengine.brain.output_data import output_data

TriggerKind = Literal["user", "context", "function_output", "none"]
_COLOUR_WORDS = re.compile(r"\bcolou?rs?\b", re.IGNORECASE)
_BRIGHTNESS_WORDS = re.compile(r"\b(?:bright|brightness|dark|darker|brighter|light or dark)\b", re.IGNORECASE)
# A question about what an image shows: "what's in this image?", "what do you see?", "describe the photo".
# "what is in …" otherwise reads as a look ("what's in my cart"), and the image's noun became a value
# (get_weather {"city": "image"}).
_PICTURE = r"(?:image|picture|photo|photograph|pic|screenshot|frame|drawing)"
_ABOUT_IMAGE_WORDS = re.compile(
    r"\bwhat(?:'s|’s| is| are)?(?: there| shown)? in (?:this|the|that|my) " + _PICTURE + r"\b"
    r"|\b(?:what|anything) (?:do|can) you see\b"
    r"|\bdescribe (?:this|the|that|my|what's in the) " + _PICTURE + r"\b"
    r"|\bwhat (?:is|does) (?:this|the|that) " + _PICTURE + r" (?:show|of)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Trigger:
    """The item being answered. ``text`` is what was heard/typed (user, typed context) or the output."""

    kind: TriggerKind
    item: TurnView | None
    text: str
    context: ContextEvent | None = None


@dataclass(frozen=True)
class Participant:
    """Someone else in the study, from the newest ``participants`` context item."""

    name: str
    role: str = ""


@dataclass(frozen=True)
class Situation:
    """Facts read from the history, newest wins for each: the study state the context items describe.

    ``heard`` is the newest user words (message, transcript or chat line); ``focus_text`` is whichever is
    newer of those and the newest question, i.e. what an answer should be about. ``question_open`` is
    False once a call answering the newest question was made and not refused. ``paused`` follows the
    newest ``paused``/``resumed`` item; ``others``/``self_role`` come from the newest ``participants`` item
    (``self_role`` from its ``role``, ``self.role`` or ``you.role`` field, when HyperStudy sends one).
    ``question_during_pause``: the newest question came after the newest ``paused`` item (shown while the
    study was paused, or after it resumed: either way no reply while paused could answer it).
    """

    trigger: Trigger
    question: QuestionContext | None
    typed: TypedContext | None
    screen_text: str
    heard: str
    image: ImageFacts | None
    focus_text: str = ""
    paused: bool = False
    others: tuple[Participant, ...] = ()
    self_role: str | None = None
    screen: ContextEvent | None = None
    timer_seconds_left: float | None = None
    question_open: bool = False
    question_during_pause: bool = False

    @property
    def asks_colour(self) -> bool:
        """A colour question about an image: "colour"/"color" in the newest question or user words."""
        return self.image is not None and mentions_colour(self.focus_text)

    @property
    def asks_brightness(self) -> bool:
        """A question about how bright or dark the newest image is."""
        return self.image is not None and bool(_BRIGHTNESS_WORDS.search(self.focus_text))

    @property
    def asks_about_image(self) -> bool:
        """A question about what the newest image shows ("what's in this picture?", "what do you see?")."""
        return self.image is not None and bool(_ABOUT_IMAGE_WORDS.search(self.focus_text))

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
    question_at = -1
    typed: TypedContext | None = None
    screen: ContextEvent | None = None
    heard: str | None = None
    image: ImageFacts | None = None
    focus: str | None = None
    paused: bool | None = None
    paused_at = -1
    participants: ContextEvent | None = None
    timer: float | None = None
    for index in range(len(history) - 1, -1, -1):
        item = history[index]
        image = image or (item.images[-1] if item.images else None)
        event = context_of(item)
        if event is None:
            shown_after_words = _is_images_only(item) and trigger.kind == "user" and trigger.item is not item
            if heard is None and item.kind in ("user_text", "user_audio") and not shown_after_words:
                heard = item.text.strip()
                focus = heard if focus is None else focus
            continue
        asked = event.as_question() if question is None else None
        if asked is not None:
            question, question_at = asked, index
            focus = asked.question if focus is None else focus
        typed = typed or event.as_typed()
        if screen is None and event.event == "screen":
            screen = event
        if heard is None and event.event == "typed":
            heard = event.text
            focus = heard if focus is None else focus
        if paused is None and event.event in ("paused", "resumed"):
            paused = event.event == "paused"
        if paused_at < 0 and event.event == "paused":
            paused_at = index
        if participants is None and event.event == "participants":
            participants = event
        seconds = event.data.get("secondsLeft")
        if timer is None and event.event == "timer" and isinstance(seconds, int | float):
            timer = float(seconds)
    others, self_role = _participants(participants)
    return Situation(
        trigger,
        question,
        typed,
        screen.text if screen is not None else "",
        heard or "",
        image,
        focus or "",
        paused=bool(paused),
        others=others,
        self_role=self_role,
        screen=screen,
        timer_seconds_left=timer,
        question_open=question is not None and not _answered(history[question_at + 1 :]),
        question_during_pause=question is not None and 0 <= paused_at < question_at,
    )


# Tools that answer the question on screen: HRP's voice tools and the chat side's submit_response.
ANSWER_TOOLS = frozenset(
    (
        "answer_choice",
        "answer_choices",
        "answer_scale",
        "answer_ranking",
        "answer_text",
        "answer_dimensions",
        "submit_response",
    )
)


def _answered(after: tuple[TurnView, ...]) -> bool:
    """A call to an answer tool after the question whose output, if any yet, was not a refusal."""
    outputs = {item.call_id: item.text for item in after if item.kind == "function_call_output"}
    for item in after:
        if item.kind == "function_call" and item.name in ANSWER_TOOLS:
            output = outputs.get(item.call_id)
            if output is None or output_error(output) is None:
                return True
    return False


def _participants(event: ContextEvent | None) -> tuple[tuple[Participant, ...], str | None]:
    if event is None:
        return (), None
    others = tuple(
        Participant(str(other.get("name", "")).strip(), str(other.get("role", "")).strip())
        for other in event.data.get("others", [])
        if isinstance(other, dict) and str(other.get("name", "")).strip()
    )
    role = event.data.get("role")
    for key in ("self", "you"):
        mine = event.data.get(key)
        if role is None and isinstance(mine, dict):
            role = mine.get("role")
    return others, str(role).strip() if isinstance(role, str | int) and str(role).strip() else None


def mentions_colour(text: str) -> bool:
    return bool(_COLOUR_WORDS.search(text))


def output_error(output: str) -> str | None:
    """The error in a function output, or None when it was accepted.

    HRP (``voiceEngine.functionOutputs``): accepted is ``{"accepted": true}``, refused is ``{"error": "…"}``.
    ``{"accepted": false}`` also counts as refused; any other output (JSON or free text) as accepted.
    """
    data: Any = output_data(output)
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


def newest_words(history: tuple[TurnView, ...]) -> tuple[int, str] | None:
    """Where the newest words said or typed are (a user turn, or a ``typed`` context item) and their text
    as a trigger reads it (a typed item's ``said``); None when there are none."""
    for index in range(len(history) - 1, -1, -1):
        item = history[index]
        event = context_of(item)
        if event is not None:
            if event.event == "typed":
                return index, event.text
        elif item.kind in ("user_text", "user_audio"):
            return index, item.text.strip()
    return None


def _find_trigger(history: tuple[TurnView, ...]) -> Trigger:
    shown: TurnView | None = None  # the newest images-only user message, while words may precede it
    for item in reversed(history):
        if item.kind in ("assistant", "function_call"):
            if shown is not None:
                break
            continue
        if item.kind == "function_call_output":
            return Trigger("function_output", item, item.text)
        event = context_of(item)
        if event is not None:
            return Trigger("context", item, event.text, event)
        if _is_images_only(item):
            shown = shown or item
            continue
        if item.kind in ("user_text", "user_audio"):
            return Trigger("user", item, item.text.strip())
    if shown is not None:
        return Trigger("user", shown, "")
    return Trigger("none", None, "")


def _is_images_only(item: TurnView) -> bool:
    """A user message with images and no words."""
    return item.kind == "user_text" and bool(item.images) and not item.text.strip()
