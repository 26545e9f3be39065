"""Words for the tool matcher: tokens with stems, synonym concepts, and numbers, dates and times in text.

A *concept* is the key two words share when they mean the same action or thing for a tool ("show" and
"open", "play" and "launch", "previous" and "prev"): the first word of its synonym group. A word in no
group is its own concept (its Snowball stem). Multi-word phrases ("thumbs up", "pull up", "on screen") are
rewritten to single words before tokenizing, so "pull up the gesture project" reads like "open …".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
        *["actually", "well", "so", "oh", "nah", "hmm", "alright", "yep", "sure"],
        *["what", "which", "who", "how"],
    ]
)
# Words that stand for "the thing we were just talking about".
PRONOUNS = frozenset(["it", "this", "that", "them", "these", "those", "one", "same", "that's", "it's"])

# Synonym groups: the first word names the concept. Verbs first, then things, then qualities.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("open", "show", "display", "view", "see", "focus"),
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
    (
        "remove",
        "delete",
        "unfavorite",
        "unfavourite",
        "drop",
        "cancel",
        "clear",
        "discard",
        "scrap",
        "ditch",
        "scratch",
    ),
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
    ("create", "make", "new", "setup", "schedule", "book"),
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
    [
        "open",
        "launch",
        "pause",
        "resume",
        "restart",
        "close",
        "next",
        "prev",
        "back",
        "favorite",
        "like",
        "dislike",
        "remove",
        "add",
        "flip",
        "filter",
        "rate",
        "navigate",
        "buy",
        "search",
        "remind",
        "create",
        "complete",
        "track",
        "lock",
        "unlock",
        "shuffle",
        "state",
        "apply",
    ]
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
    (r"what am i (?:seeing|watching|looking at)", "screen state"),
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
    ("set up", "create"),
    (r"turn (\w+(?: \w+)?) over", r"flip \1"),
    ("open up", "open"),
    ("let's look at", "open"),
    ("look at", "open"),
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


@lru_cache(maxsize=8192)
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


_INVOKING = r"(?:use|call|run|invoke|trigger|try)"


def tool_mention(text: str, tool_name: str) -> re.Match[str] | None:
    """Where ``text`` names the tool itself, with its "use"/"call", "tool"/"function" and a following
    for/on/with: the name as written ("get_weather"), or spoken right after use/call ("use get weather",
    and as a transcript may mishear its first word, "use Git weather"). None when it does not: "get the
    weather in Oslo" is ordinary speech whose words still count."""
    words = identifier_words(tool_name).split()
    if not words:
        return None
    spoken = r"[\s_\-]*".join(re.escape(w) for w in words)
    names = [re.escape(tool_name), spoken]
    if len(words) > 1:  # after use/call: any first word, then the rest of the name
        names.append(r"[A-Za-z]+[\s_\-]+" + r"[\s_\-]*".join(re.escape(w) for w in words[1:]))
    name = "|".join(sorted(set(names), key=len, reverse=True))
    mention = re.compile(
        rf"\b(?:{_INVOKING}\s+)?(?:the\s+)?(?:{name})\b(?:\s+(?:tool|function))?(?:\s+(?:for|on|with)\b)?",
        re.IGNORECASE,
    )
    invoked = re.compile(rf"(?i){_INVOKING}\s")
    for found in mention.finditer(text):
        as_written = re.search(rf"(?i)\b{re.escape(tool_name)}\b", found.group(0)) and "_" in tool_name
        if invoked.match(found.group(0)) or as_written or not re.fullmatch(r"[A-Za-z ]+", found.group(0)):
            return found
    return None
