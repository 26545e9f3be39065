"""HyperStudy context items: ``[context] {json}`` messages that tell the participant what is happening.

Source: HRP spec 0.2.0, ``voiceEngine.contextItems``. Known events: participants, screen (showtext,
showimage, vasrating, …), typed, question, timer, experimenter_message, revealed, paused, resumed. Any text
that starts with ``[context]`` but does not carry a JSON object with an ``event`` becomes an ``unparsed``
event, so free-text context (e.g. a nudge from the client) is still recognised as context; parsing never
raises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

CONTEXT_PREFIX = "[context]"
KNOWN_EVENTS: tuple[str, ...] = (
    "participants",
    "screen",
    "typed",
    "question",
    "timer",
    "experimenter_message",
    "revealed",
    "paused",
    "resumed",
    "unparsed",
)

_NUMBER = r"([-+−]?\d+(?:\.\d+)?)"
_LABEL = r"(?:\s*\([^)\n]{0,40}\))?"  # "from 1 (strongly disagree) to 5 (strongly agree)"
# Checked in order: an explicit instruction ("between 0 and 100", "on a scale of 0 to 10") beats a bare
# "N-M", and of bare pairs the last one wins, since an instruction ends a question ("How warm in the 5-10
# second clip? 0 to 100").
_RANGE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"between\s+{_NUMBER}{_LABEL}\s+and\s+{_NUMBER}", re.IGNORECASE),
    re.compile(rf"from\s+{_NUMBER}{_LABEL}\s+to\s+{_NUMBER}", re.IGNORECASE),
    re.compile(rf"scale\s+of\s+{_NUMBER}{_LABEL}\s*(?:to|-|–|—)\s*{_NUMBER}", re.IGNORECASE),
)
_BARE_RANGE = re.compile(rf"{_NUMBER}\s*(?:to|-|–|—)\s*{_NUMBER}", re.IGNORECASE)
_POINT_SCALE = re.compile(r"(\d+)[- ]point\b", re.IGNORECASE)
_LIST_INTRO = re.compile(
    r"(?:choices|options|items|labels|dimensions|answers|one of|any of|all of|following)"
    r"(?:\s+(?:are|is))?[ \t]*:[ \t]*(?P<rest>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(?[a-zA-Z]\))\s+(?P<item>\S.*?)\s*$", re.MULTILINE)
# Any "...: A, B, C" line, e.g. "Rank these activities: Reading, Hiking, Cooking".
_COLON_LIST = re.compile(r":[ \t]*(?P<rest>[^\n:]+)$", re.MULTILINE)
_MAX_ITEM_WORDS = 5
_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,80})[\"”]")
_LIST_FIELDS = ("choices", "options", "items", "labels", "dimensions")
# HRP ``answerableComponents`` (spec 0.2.0): a screen of one of these types is a question on screen.
ANSWERABLE_TYPES: tuple[str, ...] = (
    "multiplechoice",
    "likertscale",
    "vasrating",
    "ranking",
    "textinput",
    "rapidrate",
    "audiorecording",
)
# HRP ``answers[].voiceTool``: the component type each voice tool answers (answer_scale: likert or vas).
_TOOL_TYPES = {
    "answer_choice": "multiplechoice",
    "answer_choices": "multiplechoice",
    "answer_scale": "vasrating",
    "answer_ranking": "ranking",
    "answer_text": "textinput",
    "answer_dimensions": "rapidrate",
}


@dataclass(frozen=True)
class NumericRange:
    """An inclusive answer range stated in a question, e.g. 0..100 or 1..7."""

    low: float
    high: float

    @property
    def is_integral(self) -> bool:
        """Whole-number answers: integer ends, except a 0–1 scale (which takes decimals)."""
        ends = float(self.low).is_integer() and float(self.high).is_integer()
        return ends and (self.low, self.high) != (0.0, 1.0)


@dataclass(frozen=True)
class QuestionContext:
    """A ``question`` event: the tool HyperStudy expects and what the question says.

    ``choices`` lists the named options found in the event (``choices``/``options``/``dimensions`` fields)
    or in its text (a "Choices: A, B" line, bullet lines, or quoted strings): multiple-choice choices,
    ranking items or dimension labels alike.
    """

    tool: str | None
    question: str
    range: NumericRange | None
    choices: tuple[str, ...]
    during_video: bool
    component_type: str | None = None
    allow_multiple: bool = False

    @property
    def is_ranking(self) -> bool:
        return self.component_type == "ranking" or bool(re.search(r"\brank", self.question, re.IGNORECASE))

    @property
    def headline(self) -> str:
        """The first line of the question without its "Question:" label."""
        first = self.question.strip().splitlines()[0] if self.question.strip() else ""
        return re.sub(r"^\s*question\s*:\s*", "", first, flags=re.IGNORECASE).strip()


@dataclass(frozen=True)
class TypedContext:
    """A ``typed`` event: someone wrote ``said`` in the text chat."""

    speaker: str
    said: str


@dataclass(frozen=True)
class ContextEvent:
    """One parsed context item: ``event`` name and its whole JSON object as ``data``."""

    event: str
    data: dict[str, Any]
    raw: str

    @property
    def text(self) -> str:
        """The human-readable part of the event, if any (screen text, chat line, message)."""
        for key in ("text", "said", "question", "prompt", "message"):
            value = self.data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return self.raw if self.event == "unparsed" else ""

    def as_question(self) -> QuestionContext | None:
        """The question this item puts on screen: a ``question`` event, or a ``screen`` event whose
        ``type`` is an HRP answerable component (e.g. ``vasrating``)."""
        declared_type = _string(self.data.get("type")) or _string(self.data.get("componentType"))
        if self.event == "screen" and declared_type not in ANSWERABLE_TYPES:
            return None
        if self.event not in ("question", "screen"):
            return None
        question = (
            _string(self.data.get("question"))
            or _string(self.data.get("text"))
            or _string(self.data.get("prompt"))
        )
        tool = _string(self.data.get("tool")) or None
        component_type = declared_type if declared_type in ANSWERABLE_TYPES else _TOOL_TYPES.get(tool or "")
        return QuestionContext(
            tool=tool,
            question=question,
            range=_explicit_range(self.data)
            or parse_range(question)
            or (NumericRange(1.0, 7.0) if component_type == "likertscale" else None),
            choices=_listed_choices(self.data) or parse_choices(question),
            during_video=bool(self.data.get("duringVideo", False)),
            component_type=component_type,
            allow_multiple=bool(self.data.get("allowMultiple", False)) or tool == "answer_choices",
        )

    def as_typed(self) -> TypedContext | None:
        if self.event != "typed":
            return None
        return TypedContext(speaker=_string(self.data.get("speaker")), said=_string(self.data.get("said")))


def is_context_text(text: str) -> bool:
    return text.lstrip().lower().startswith(CONTEXT_PREFIX)


def parse_context(text: str) -> ContextEvent:
    """Parse ``[context] {json}`` (the prefix is optional); bad or missing JSON gives event ``unparsed``."""
    body = text.lstrip()
    if body.lower().startswith(CONTEXT_PREFIX):
        body = body[len(CONTEXT_PREFIX) :].lstrip()
    raw = body.strip()
    try:
        data, _ = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return ContextEvent(event="unparsed", data={}, raw=raw)
    if not isinstance(data, dict) or not isinstance(data.get("event"), str) or not data["event"]:
        return ContextEvent(event="unparsed", data=data if isinstance(data, dict) else {}, raw=raw)
    return ContextEvent(event=data["event"], data=data, raw=raw)


def _number(text: str) -> float:
    return float(text.replace("−", "-").lstrip("+"))


def parse_range(text: str) -> NumericRange | None:
    """The answer range a question states ("between 0 and 100", "from 1 (…) to 5 (…)", "scale of 0 to
    10", "0-100", "7-point")."""
    for pattern in _RANGE_PATTERNS:
        match = pattern.search(text)
        if match:
            low, high = _number(match.group(1)), _number(match.group(2))
            return NumericRange(min(low, high), max(low, high))
    bare = list(_BARE_RANGE.finditer(text))
    if bare:
        low, high = _number(bare[-1].group(1)), _number(bare[-1].group(2))
        return NumericRange(min(low, high), max(low, high))
    points = _POINT_SCALE.search(text)
    if points and int(points.group(1)) >= 2:
        return NumericRange(1.0, float(points.group(1)))
    return None


_LABEL_LINE = re.compile(r"^\s*question\s*:\s*", re.IGNORECASE | re.MULTILINE)
# "Which drink, coffee or tea?" / "Coffee, tea, or juice?": options in the question itself.
_OR_QUESTION = re.compile(
    r"(?:^|[,:]\s*)(?P<rest>[^,:?\n]+(?:,\s*[^,:?\n]+)*,?\s+or\s+[^,:?\n]+)\?\s*$", re.MULTILINE
)
_QUESTION_WORD = re.compile(
    r"^(?:which|what|who|whom|where|when|why|how|would|do|does|did|is|are|can|could|should|will)\b",
    re.IGNORECASE,
)
# A colon list of one item counts where the line asks to rate "each" of them (rapid-rate dimensions).
_EACH = re.compile(r"\beach\b|\bdimensions?\b", re.IGNORECASE)


def parse_choices(text: str) -> tuple[str, ...]:
    """Options named in a question's text, first found of: a "Choices: A, B or C" line, bullet lines,
    any "…: A, B, C" line of short items, two or more quoted strings, options after the question's mark
    ("Which drink?\nCoffee\nTea", "Which drink? Coffee, Tea or Juice"), or "…, A or B?".

    HyperStudy's own "Question:" label is not a list. Bullet and ";" lists keep each item's exact text;
    a comma list splits its last item on "or"/"and" ("Red, Green and Blue")."""
    text = _LABEL_LINE.sub("", text)
    intro = _LIST_INTRO.search(text)
    if intro and intro.group("rest").strip():
        items = _split_list(intro.group("rest"))
        if items:
            return items
    bullets = tuple(_clean_item(match.group("item"), exact=True) for match in _BULLET.finditer(text))
    # "Dimensions:" on a line of its own introduces a bullet list, even of one item.
    if len(bullets) >= 2 or (bullets and intro is not None):
        return tuple(item for item in bullets if item)
    quoted = tuple(_clean_item(match.group(1), exact=True) for match in _QUOTED.finditer(text))
    if len(quoted) >= 2:
        return quoted
    for match in _COLON_LIST.finditer(text):
        items = _split_list(match.group("rest"))
        line_start = text.rfind("\n", 0, match.start()) + 1
        enough = len(items) >= 2 or (len(items) == 1 and _EACH.search(text[line_start : match.start()]))
        if enough and all(len(item.split()) <= _MAX_ITEM_WORDS for item in items):
            return items
    after = _after_question_mark(text)
    if after:
        return after
    asked = _OR_QUESTION.search(text)
    if asked:
        rest = asked.group("rest")
        if "(" in rest:  # "Which colour (Red, Green or Blue)?": the options are the parenthesis's
            rest = rest.rsplit("(", 1)[1].rstrip().removesuffix(")")
        items = _split_list(rest)
        if items and _QUESTION_WORD.match(items[0]):
            items = items[1:]  # "Which drink, coffee or tea?": the first part asks, the rest are options
        if len(items) >= 2 and all(len(item.split()) <= _MAX_ITEM_WORDS for item in items):
            return items
    return ()


# A question and the options after its mark: "Which drink?\nCoffee\nTea" (one a line, as a screen lists
# them), "Which drink? Coffee, Tea or Juice" (a comma / "or" list on the same line).
_ASKED_LINE = re.compile(
    r"^(?P<asked>[^\n?]*\?)[ \t]*(?P<same>[^\n]*)(?P<lines>(?:\n[^\n]*)*)$", re.MULTILINE
)
# What a sentence after the question opens with (an instruction, a remark), never an option's first word.
_NOT_AN_OPTION = frozenset(
    (
        "answer",
        "respond",
        "please",
        "choose",
        "select",
        "pick",
        "rate",
        "rank",
        "say",
        "tell",
        "type",
        "use",
        "take",
        "think",
        "remember",
        "click",
        "tap",
        "press",
        "move",
        "drag",
        "then",
        "this",
        "that",
        "these",
        "there",
        "it",
        "you",
        "your",
        "we",
        "i",
        "if",
        "when",
        "because",
        "so",
        "just",
        "only",
        "be",
        "is",
        "are",
        "was",
        "were",
        "do",
        "don't",
        "note",
        "hint",
    )
)


def _after_question_mark(text: str) -> tuple[str, ...]:
    """The options listed after a question's "?": on the lines that follow, one a line, when every line
    (two or more) is a short option; else on the same line, a comma / "or" list of two or more short
    options. A sentence after the question ("Respond with a number between 0 and 100.", "Take your
    time, then answer.") is no list: its first word says so, it states a range, or it is too long."""
    found = _ASKED_LINE.search(text.strip())
    if found is None:
        return ()
    lines = [line.strip() for line in found.group("lines").split("\n") if line.strip()]
    same = found.group("same").strip()
    if not same:
        # an instruction line before or after the options ("Select one.", "Choose all that apply:") is
        # no option: the options are the run of short lines between them
        while lines and _instruction_line(lines[0]):
            lines = lines[1:]
        while lines and _instruction_line(lines[-1]):
            lines = lines[:-1]
    if not same and len(lines) >= 2:
        items = tuple(_clean_item(line.rstrip(".").strip(), exact=True) for line in lines)
        if all(_option_like(item) for item in items):
            return items
    listed = "," in same or re.search(r"\s+or\s+", same) is not None
    one_sentence = ";" not in same and "." not in same.rstrip(".") and "?" not in same
    if same and not lines and listed and one_sentence and parse_range(same) is None:
        items = _split_list(same)
        if len(items) >= 2 and all(_option_like(item) for item in items):
            return items
    return ()


def _instruction_line(line: str) -> bool:
    """A line that tells what to do with the options, not one of them: it opens with an instruction's
    or a remark's word ("Select one.", "Please pick one:", "Choose all that apply") or ends with a
    colon ("Options:")."""
    words = line.split()
    return bool(words) and (line.endswith(":") or words[0].lower().strip(",.!:") in _NOT_AN_OPTION)


def _option_like(item: str) -> bool:
    """A short option, not a sentence or an instruction: up to four words, none a question or a colon
    line, not opening with an instruction's or a remark's word."""
    words = item.split()
    if not words or len(words) > 4 or item.endswith(("?", ":")) or ":" in item:
        return False
    return words[0].lower().strip(",.!") not in _NOT_AN_OPTION


def _split_list(text: str) -> tuple[str, ...]:
    if ";" in text:
        return tuple(item for item in (_clean_item(part, exact=True) for part in text.split(";")) if item)
    parts = text.split(",")
    last = re.split(r"\s+or\s+|\s+and\s+", parts[-1])
    pieces = [*parts[:-1], *last]
    # Only the list's end can carry the sentence's full stop ("Choices: Coffee, Tea."); a "?" or "!" is
    # part of an option ("Really?").
    pieces[-1] = pieces[-1].rstrip().removesuffix(".")
    return tuple(item for item in (_clean_item(part) for part in pieces) if item)


def _clean_item(text: str, exact: bool = False) -> str:
    """An item without surrounding quotes; unless ``exact``, also without a leading "or"/"and"."""
    text = text.strip().strip("\"'“”‘’").strip()
    if not exact:
        text = re.sub(r"^(?:or|and)\s+", "", text, flags=re.IGNORECASE)
    return text.strip("\"'“”‘’").strip()


def _listed_choices(data: dict[str, Any]) -> tuple[str, ...]:
    for key in _LIST_FIELDS:
        value = data.get(key)
        if isinstance(value, list):
            items = tuple(_item_label(item) for item in value)
            return tuple(item for item in items if item)
    return ()


def _item_label(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("label", "text", "name", "value"):
            if isinstance(item.get(key), str | int | float):
                return str(item[key]).strip()
        return ""
    return str(item).strip() if isinstance(item, str | int | float) else ""


def _explicit_range(data: dict[str, Any]) -> NumericRange | None:
    for low_key, high_key in (("minValue", "maxValue"), ("min", "max"), ("minimum", "maximum")):
        low, high = data.get(low_key), data.get(high_key)
        if _is_number(low) and _is_number(high):
            return NumericRange(min(float(low), float(high)), max(float(low), float(high)))
    scale = data.get("scale")
    if isinstance(scale, int) and not isinstance(scale, bool) and scale >= 2:
        return NumericRange(1.0, float(scale))
    return None


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _string(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
