"""Words for the tool matcher: tokens with stems, synonym concepts, and numbers, dates and times in text.

A *concept* is the key two words share when they mean the same action or thing for a tool ("show" and
"open", "play" and "launch", "previous" and "prev"): the first word of its synonym group. A word in no
group is its own concept (its Snowball stem). Multi-word phrases ("thumbs up", "pull up", "on screen") are
rewritten to single words before tokenizing, so "pull up the gesture project" reads like "open …".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "me",
        "my",
        "our",
        "us",
        "you",
        "your",
        "i",
        "we",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "them",
        "one",
        "ones",
        "please",
        "can",
        "could",
        "would",
        "will",
        "shall",
        "should",
        "do",
        "does",
        "did",
        "just",
        "to",
        "of",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "into",
        "onto",
        "and",
        "or",
        "but",
        "then",
        "so",
        "is",
        "are",
        "was",
        "be",
        "been",
        "am",
        "let",
        "lets",
        "let's",
        "now",
        "some",
        "any",
        "there",
        "here",
        "up",
        "down",
        "okay",
        "ok",
        "hey",
        "hi",
        "yeah",
        "yes",
        "go",
        "going",
        "want",
        "wanna",
        "like",
        "need",
        "id",
        "i'd",
        "i'm",
        "im",
        "you're",
        "it's",
        "that's",
        "what's",
        "whats",
        *"actually well so oh nah hmm alright yep sure".split(),
    ]
)
# Words that stand for "the thing we were just talking about".
PRONOUNS = frozenset(["it", "this", "that", "them", "these", "those", "one", "same"])

# Synonym groups: the first word names the concept. Verbs first, then things, then qualities.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("open", "show", "display", "view", "see", "focus", "visit"),
    ("launch", "play", "run", "start", "watch", "demo"),
    ("pause", "stop", "hold", "freeze"),
    ("resume", "continue", "unpause"),
    ("restart", "replay", "rewind", "beginning", "over"),
    ("close", "exit", "dismiss", "quit", "leave"),
    ("next", "forward", "ahead", "following", "skip"),
    ("prev", "previous", "before", "preceding", "earlier"),
    ("back", "return", "backward", "backwards"),
    ("favorite", "favourite", "bookmark", "star", "heart", "save", "fav"),
    ("like", "love", "enjoy"),
    ("dislike", "hate"),
    ("remove", "delete", "unfavorite", "unfavourite", "drop", "cancel", "clear", "discard", "scrap", "ditch"),
    ("add", "put", "include", "insert", "append", "chuck", "stick", "throw"),
    ("flip", "turnover", "reverse", "side", "face"),
    ("filter", "only", "narrow", "category", "tag", "topic", "kind"),
    ("rate", "rating", "reaction", "thumb", "thumbs", "score", "vote"),
    ("navigate", "move", "go", "jump"),
    ("details", "detail", "info", "information", "about", "more", "spec", "specs", "description"),
    ("state", "screen", "seeing", "looking"),
    ("media", "video", "clip", "movie", "film", "playback"),
    ("buy", "purchase", "checkout", "order", "pay"),
    ("cart", "basket", "bag", "trolley"),
    ("search", "find", "look", "browse", "lookup", "seek"),
    ("product", "item", "thing", "stuff"),
    ("remind", "reminder", "remember", "alert"),
    ("event", "meeting", "appointment", "calendar"),
    ("create", "make", "new", "setup", "plan", "schedule", "book"),
    ("apply", "use", "redeem", "enter"),
    ("list", "agenda", "upcoming", "planned"),
    ("complete", "done", "finish", "finished", "tick", "check"),
    ("track", "where", "status", "shipping", "deliver", "delivery", "arrive", "package"),
    ("coupon", "code", "promo", "voucher", "discount"),
    ("light", "lamp", "lights", "bulb", "lighting"),
    ("temperature", "thermostat", "heat", "heating", "warm", "warmer", "cool", "cooler", "degree"),
    ("volume", "loud", "louder", "quiet", "quieter", "softer", "mute"),
    ("music", "song", "track", "tune", "playlist", "album"),
    ("lock", "secure", "bolt"),
    ("unlock", "unbolt"),
    ("shuffle", "random", "mix"),
    ("bright", "brightness", "dim", "brighter", "dimmer"),
    ("on", "enable", "activate"),
    ("off", "disable", "deactivate", "kill"),
    ("up", "positive"),
    ("down", "negative"),
)

# The concepts that are actions (verbs a request is built around), as opposed to things.
ACTIONS = frozenset(
    """open launch pause resume restart close next prev back favorite like dislike remove add flip filter
    rate navigate buy search remind create complete track lock unlock shuffle state apply""".split()
)

# Phrases rewritten before tokenizing (lower case, whole words).
_PHRASES: tuple[tuple[str, str], ...] = (
    ("thumbs up", "thumbs up"),
    ("thumbs down", "thumbs down"),
    ("pull up", "open"),
    ("bring up", "open"),
    ("take me to", "open"),
    ("check out", "checkout"),
    ("look for", "search"),
    ("keep going", "resume"),
    ("carry on", "resume"),
    ("start over", "restart"),
    ("from the start", "restart"),
    ("from the beginning", "restart"),
    ("one before", "previous"),
    ("the one before", "previous"),
    ("go back", "back"),
    ("turn over", "turnover"),
    ("other side", "flip side"),
    ("on screen", "screen state"),
    ("on the screen", "screen state"),
    ("looking at", "looking state"),
    ("turn on", "on"),
    ("switch on", "on"),
    ("turn off", "off"),
    ("switch off", "off"),
    ("turn up", "louder"),
    ("turn down", "quieter"),
    ("take out", "remove"),
    ("get rid of", "remove"),
    ("mark as done", "complete"),
    ("cross off", "complete"),
    ("i'd like", "want"),
    ("would like", "want"),
    ("put on", "play"),
    ("do i have", "list"),
    ("what've i got", "list"),
    ("what have i got", "list"),
    ("am i free", "list"),
    ("block out", "schedule"),
    ("don't let me forget", "remind me"),
    ("do not let me forget", "remind me"),
    ("make it", "set it"),
    (r"(?:crank|turn) it up", "louder"),
    (r"(?:crank|turn) it down", "quieter"),
    ("got any", "search"),
    ("do you have", "search"),
    ("do you sell", "search"),
    ("i'm after", "search"),
    ("i'm looking for", "search"),
    ("looking for", "search"),
    ("what's in", "view in"),
    ("what is in", "view in"),
    ("get me out of here", "exit"),
    ("what's on", "list on"),
    ("what is on", "list on"),
    (r"take (.+?) out of", r"remove \1 from"),
)
# A phrase is a regular expression matched on whole words, case-insensitively.
_PHRASE_PATTERNS = tuple((re.compile(rf"\b{a}\b", re.IGNORECASE), b) for a, b in _PHRASES)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")


def stem(word: str) -> str:
    """The Snowball English stem of ``word`` (lower case)."""
    return str(_STEMMER.stemWord(word.lower().replace("’", "'")))


@lru_cache(maxsize=1)
def _concepts() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in _GROUPS:
        for word in group:
            table.setdefault(stem(word), group[0])
    return table


def concept(word: str) -> str:
    """The concept ``word`` belongs to: its synonym group's first word, else its own stem."""
    stemmed = stem(word)
    return _concepts().get(stemmed, stemmed)


@dataclass(frozen=True)
class Token:
    """One word of the (rewritten) text: as written, lower case, and its concept."""

    text: str
    lower: str
    concept: str

    @property
    def is_stop(self) -> bool:
        return self.lower in STOPWORDS


def rewrite(text: str, keep_case: bool = False) -> str:
    """``text`` with the multi-word phrases replaced (in lower case unless ``keep_case``)."""
    rewritten = " " + text.replace("’", "'") + " "
    rewritten = rewritten if keep_case else rewritten.lower()
    for pattern, replacement in _PHRASE_PATTERNS:
        rewritten = pattern.sub(replacement, rewritten)
    return " ".join(rewritten.split())


def tokens(text: str) -> list[Token]:
    """The words of ``text`` as written (no phrase rewriting), with concepts."""
    return [Token(m.group(0), m.group(0).lower(), concept(m.group(0))) for m in _WORD.finditer(text)]


def concepts_of(text: str) -> list[str]:
    """The concepts of the content words of ``text`` after phrase rewriting, in order."""
    words = [t for t in tokens(rewrite(text)) if not t.is_stop or t.lower in ("up", "down", "on", "off")]
    return [t.concept for t in words]


def identifier_words(name: str) -> str:
    """``open_card`` / ``openCard`` / ``open-card`` → ``open card``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(re.split(r"[_\-\s.]+", spaced)).lower().strip()


# -- numbers ----------------------------------------------------------------------------------------------

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}
_SCALES = {"hundred": 100, "thousand": 1000}
_NUMBER_WORDS = set(_UNITS) | set(_TENS) | set(_SCALES) | {"a", "and", "half", "couple", "dozen"}


@dataclass(frozen=True)
class Span:
    """A value found in the text and the character span ``[start, end)`` it came from."""

    value: object
    start: int
    end: int


_DIGITS = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)?(?![\w])")
_SPOKEN = re.compile(r"\b(?:[a-z]+)(?:[\s-]+(?:[a-z]+))*\b")


def numbers(text: str) -> list[Span]:
    """Numbers written as digits ("25", "2.5") or spoken ("twenty five", "a dozen", "a couple"), in order."""
    found = [Span(_number(m.group(0)), m.start(), m.end()) for m in _DIGITS.finditer(text)]
    lowered = text.lower()
    for match in re.finditer(r"[a-z]+(?:[\s-]+[a-z]+)*", lowered):
        found += _spoken_numbers(match.group(0), match.start())
    return sorted(found, key=lambda span: span.start)


def _number(text: str) -> float | int:
    value = float(text.replace(",", "."))
    return int(value) if value.is_integer() else value


def _spoken_numbers(chunk: str, offset: int) -> list[Span]:
    spans: list[Span] = []
    words = [(m.group(0), m.start() + offset, m.end() + offset) for m in re.finditer(r"[a-z]+", chunk)]
    i = 0
    while i < len(words):
        value, used = _read_number([w for w, _, _ in words[i:]])
        if used:
            spans.append(Span(value, words[i][1], words[i + used - 1][2]))
            i += used
        else:
            i += 1
    return spans


def _read_number(words: list[str]) -> tuple[int, int]:
    """The number the leading ``words`` spell and how many words it took (0: none)."""
    if words[:2] == ["a", "dozen"]:
        return 12, 2
    if words[:2] == ["a", "couple"]:
        return 2, 2 + (len(words) > 2 and words[2] == "of")
    total, current, used = 0, 0, 0
    for index, word in enumerate(words):
        if word in _UNITS and (used == 0 or words[index - 1] in _TENS or words[index - 1] in _SCALES):
            current += _UNITS[word]
        elif word in _TENS and (used == 0 or words[index - 1] in _SCALES or words[index - 1] == "and"):
            current += _TENS[word]
        elif word in _SCALES and used:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                total, current = total + current, 0
        elif word == "and" and used and index + 1 < len(words) and words[index + 1] in _UNITS | _TENS:
            pass
        else:
            break
        used = index + 1
    return total + current, used


# -- dates and times --------------------------------------------------------------------------------------

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS = (
    re.compile(r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"),
    re.compile(rf"\b(?:on\s+)?(?:the\s+)?{_ORDINAL}\s+(?:of\s+)?{_MONTH}\b"),
    re.compile(rf"\b(?:on\s+)?{_MONTH}\s+(?:the\s+)?{_ORDINAL}\b"),
    re.compile(r"\b(?:on\s+)?(?P<rel>today|tonight|tomorrow|day after tomorrow)\b"),
    re.compile(
        r"\b(?:on\s+)?(?P<next>next\s+|this\s+)?(?P<weekday>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
    ),
)
_SPOKEN_HOURS = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_HOUR = rf"(?P<hour>\d{{1,2}}|{'|'.join(_SPOKEN_HOURS)})"
_TIME_PATTERNS = (
    re.compile(r"\b(?:at\s+)?(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap]\.?m\.?)?(?![\w])"),
    re.compile(
        rf"\b(?:at\s+)?{_HOUR}(?:\s+(?P<spoken_minute>thirty|fifteen|forty five|forty-five))?\s*"
        r"(?P<ampm>[ap]\.?m\.?|o'clock|in the morning|in the afternoon|in the evening|at night)(?![\w])"
    ),
    re.compile(r"\b(?:at\s+)?(?P<named>noon|midday|midnight)\b"),
    re.compile(rf"\bat\s+{_HOUR}\b(?!\s*(?:%|percent|degrees|minutes|dollars))"),
)


def dates(text: str, today: date) -> list[Span]:
    """Dates in ``text`` as ISO ``YYYY-MM-DD`` strings: ISO, "March 5th", "the 5th of March", "today",
    "tomorrow", "friday", "next friday". Relative ones count from ``today``; a month-day without a year is
    the next such day on or after ``today``."""
    lowered = text.lower()
    found: list[Span] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(lowered):
            if any(s.start <= match.start() < s.end for s in found):
                continue
            value = _date_value(match, today)
            if value is not None:
                found.append(Span(value.isoformat(), match.start(), match.end()))
    return sorted(found, key=lambda span: span.start)


def _date_value(match: re.Match[str], today: date) -> date | None:
    groups = match.groupdict()
    if groups.get("iso"):
        try:
            return date.fromisoformat(groups["iso"])
        except ValueError:
            return None
    if groups.get("rel"):
        shift = {"today": 0, "tonight": 0, "tomorrow": 1, "day after tomorrow": 2}[groups["rel"]]
        return today + timedelta(days=shift)
    if groups.get("weekday"):
        wanted = next(i for i, d in enumerate(_WEEKDAYS) if d.startswith(groups["weekday"][:3]))
        ahead = (wanted - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)  # "next friday" and "friday" both mean the coming one
    month = next(i + 1 for i, m in enumerate(_MONTHS) if m.startswith(groups["month"][:3]))
    try:
        candidate = date(today.year, month, int(groups["day"]))
        return candidate if candidate >= today else date(today.year + 1, month, int(groups["day"]))
    except ValueError:
        return None


def times(text: str) -> list[Span]:
    """Clock times in ``text`` as ``HH:MM`` (24 h): "3 pm", "3:30pm", "15:30", "three thirty pm", "noon",
    "at 7", "9 in the morning"."""
    lowered = text.lower()
    found: list[Span] = []
    for pattern in _TIME_PATTERNS:
        for match in pattern.finditer(lowered):
            if any(s.start <= match.start() < s.end or match.start() <= s.start < match.end() for s in found):
                continue
            value = _time_value(match.groupdict())
            if value is not None:
                found.append(Span(value, match.start(), match.end()))
    return sorted(found, key=lambda span: span.start)


def _time_value(groups: dict[str, str | None]) -> str | None:
    named = groups.get("named")
    if named:
        return "00:00" if named == "midnight" else "12:00"
    hour_text = groups.get("hour") or ""
    hour = int(hour_text) if hour_text.isdigit() else _SPOKEN_HOURS.index(hour_text) + 1
    minute_text = groups.get("minute") or ""
    spoken = (groups.get("spoken_minute") or "").replace("-", " ")
    minute = (
        int(minute_text) if minute_text else {"": 0, "thirty": 30, "fifteen": 15, "forty five": 45}[spoken]
    )
    ampm = (groups.get("ampm") or "").replace(".", "")
    if ampm in ("pm", "in the afternoon", "in the evening", "at night") and hour < 12:
        hour += 12
    elif ampm in ("am", "in the morning") and hour == 12:
        hour = 0
    elif not ampm and not minute_text and 1 <= hour <= 7:
        hour += 12  # "at 3" in conversation means the afternoon
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"
